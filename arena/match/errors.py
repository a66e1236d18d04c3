"""The errors of matches, match records and replays; each message names the problem."""

from __future__ import annotations


class MatchError(ValueError):
    """Bad input to a match: policies that do not fit the seats, a bad seed, a runaway match."""


class RecordError(MatchError):
    """A match record that cannot be read: a missing file, bad JSON, a missing or bad field."""


class ReplayError(RecordError):
    """A record whose re-simulation fails or disagrees with what it recorded."""
