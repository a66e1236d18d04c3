"""The error of a malformed or inconsistent protocol message."""

from __future__ import annotations


class ProtocolError(ValueError):
    """A message or wire value that breaks the protocol; the text names the problem."""
