"""Errors of the store, each a one-line message naming the database and the problem."""

from __future__ import annotations


class StoreError(Exception):
    """Something the store cannot do; the message is one line a user can act on."""


class DatabaseUnreachable(StoreError):
    """The database cannot be opened: a bad URL, a missing driver, a server that does not answer."""


class UnknownRevision(StoreError):
    """The database's schema is at a revision this version of Card Arena does not know."""
