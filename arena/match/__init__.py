"""Matches: local play between reference policies, match records, replays and their display."""

from arena.match.errors import MatchError, RecordError, ReplayError
from arena.match.local import DEFAULT_POLICY, play_local, seat_policies
from arena.match.record import FORMAT_VERSION, MatchRecord, replay
from arena.match.timeline import Step, match_steps

__all__ = [
    "DEFAULT_POLICY",
    "FORMAT_VERSION",
    "MatchError",
    "MatchRecord",
    "RecordError",
    "ReplayError",
    "Step",
    "match_steps",
    "play_local",
    "replay",
    "seat_policies",
]
