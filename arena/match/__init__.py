"""Matches: the runner (bots and policies, clock, faults, duplicate sets), local play between
reference policies, match records, replays and their display."""

from arena.match.errors import MatchError, RecordError, ReplayError
from arena.match.faults import DEFAULT_STRIKES, Fault, FaultKind
from arena.match.local import DEFAULT_POLICY, play_local, seat_policies
from arena.match.record import FORMAT_VERSION, MatchRecord, replay
from arena.match.results import DealResult, DuplicateResult, EntrantResult, read_records
from arena.match.runner import run_deal, run_duplicate, run_duplicate_async
from arena.match.timecontrol import TimeControl
from arena.match.timeline import Step, match_steps

__all__ = [
    "DEFAULT_POLICY",
    "DEFAULT_STRIKES",
    "FORMAT_VERSION",
    "DealResult",
    "DuplicateResult",
    "EntrantResult",
    "Fault",
    "FaultKind",
    "MatchError",
    "MatchRecord",
    "RecordError",
    "ReplayError",
    "Step",
    "TimeControl",
    "match_steps",
    "play_local",
    "read_records",
    "replay",
    "run_deal",
    "run_duplicate",
    "run_duplicate_async",
    "seat_policies",
]
