"""Hostile bots against the random policy at 2-seat briscola, in both seat orders, on both
transports of bots' streams (the compiled one and the grpc.aio reference).

Each bot folder under ``bots/`` misbehaves in one way. For each, the test checks the hostile
seat's reason code, its faults and strikes in the record, that the opponent ended OK with its
returns recorded, that the deal completed and replays, and that no bot process or socket
folder is left behind. The clock is short (200 ms a decision, a 1 s bank) to keep the suite
fast; each misbehaviour is far outside it, so the verdicts do not depend on the machine's load.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from agents.botkit import KeptBotSeat

from arena.agents import LocalProcessAgent, PolicySeat
from arena.agents.output import OUTPUT_CAP
from arena.games import load_game
from arena.match import replay
from arena.match.conduct import DEBUG_CAP
from arena.match.faults import FaultKind
from arena.match.record import MatchRecord
from arena.match.results import DealResult
from arena.match.runner import run_deal
from arena.match.timecontrol import TimeControl

BOTS = Path(__file__).parent / "bots"
BRISCOLA = load_game("briscola")
SEED = 11
CONTROL = TimeControl(decision_ms=200, bank_ms=1000, startup_ms=5000, ready_ms=1000)

TIMEOUT, ILLEGAL, UNSET, STALE = (FaultKind.TIMEOUT, FaultKind.ILLEGAL, FaultKind.UNSET,
                                  FaultKind.STALE)
MALFORMED, OVERSIZED, CRASH, INIT = (FaultKind.MALFORMED, FaultKind.OVERSIZED, FaultKind.CRASH,
                                     FaultKind.INIT_ERROR)


@dataclass(frozen=True)
class Case:
    """A hostile bot and its expected verdict."""

    bot: str
    reason: str
    faults: tuple[FaultKind, ...]
    detail: str
    """A pattern the seat's detail (or, for a seat that ended OK, its first fault) must match."""
    strikes: int = 0
    control: TimeControl = CONTROL
    stderr: str = ""
    """A text the bot's captured output must contain."""
    played: bool = True
    """False when the bot never got to play (its decisions are all the substitute's)."""


CASES = [
    Case("crash-at-start", "INIT_ERROR", (INIT,),
         r"the bot exited with status 1 before listening on its socket",
         stderr="FileNotFoundError", played=False),
    Case("never-listens", "INIT_ERROR", (INIT,),
         r"the bot did not listen on its socket within 1 s",
         control=TimeControl(decision_ms=200, bank_ms=1000, startup_ms=1000, ready_ms=1000),
         stderr="never-listens: warming up", played=False),
    Case("no-command", "INIT_ERROR", (INIT,),
         r"cannot run the command 'cardarena-no-such-command' in .*no-command: "
         r"No such file or directory", played=False),
    Case("wrong-version", "INIT_ERROR", (INIT,),
         r"the bot speaks protocol 'cardarena\.v0'; the arena speaks 'cardarena\.v1'",
         played=False),
    Case("no-ready", "INIT_ERROR", (INIT,), r"no Ready within 0\.5 s of MatchStart",
         control=TimeControl(decision_ms=200, bank_ms=1000, startup_ms=5000, ready_ms=500),
         played=False),
    Case("shut-window", "INIT_ERROR", (INIT,), r"the bot did not take MatchStart within 1 s",
         played=False),
    Case("window-shuts", "TIMEOUT", (TIMEOUT,),
         r"the bot did not take request \d+ within 1200 ms \(decision and bank\); its stream "
         r"was stopped"),
    Case("crash-mid-match", "CRASH", (CRASH,), r"the bot exited on signal 6 \(SIGABRT\)",
         stderr="crash-mid-match: aborting"),
    Case("exits-mid-match", "CRASH", (CRASH,), r"the bot exited with status 0",
         stderr="exits-mid-match: done here"),
    Case("raises-in-act", "CRASH", (CRASH,),
         r"the bot ended the stream with INTERNAL: bot raises-in-act raised ValueError in act: "
         r"no card to play", stderr="Traceback"),
    Case("hangs", "TIMEOUT", (TIMEOUT,) * 3,
         r"3 strikes; the last: timeout: no answer within 200 ms \(decision and bank\)",
         strikes=3),
    Case("late-once", "OK", (TIMEOUT,), r"no answer within 1200 ms \(decision and bank\)",
         strikes=1),
    Case("illegal", "INVALID", (ILLEGAL,) * 3,
         r"3 strikes; the last: illegal: action id \d+ is not legal; legal ids: ", strikes=3),
    Case("unset", "INVALID", (UNSET,) * 3,
         r"3 strikes; the last: unset: action id 0 \(unset\) is never an action", strikes=3),
    Case("stale", "INVALID", (STALE,) * 3,
         r"3 strikes; the last: stale: answered request \d+ while request \d+ was asked",
         strikes=3),
    Case("garbage", "INVALID", (MALFORMED,) * 3,
         r"3 strikes; the last: malformed: not a PlayResponse message", strikes=3),
    Case("oversized", "INVALID", (OVERSIZED,),
         r"the bot sent a message larger than the 65536 byte limit"),
    Case("debug-flood", "OK", (), r"", stderr="log line"),
]


def seats_for(hostile: KeptBotSeat, seat: int) -> list[KeptBotSeat | PolicySeat]:
    """The hostile bot at ``seat``, the random policy at the other."""
    opponent = PolicySeat("random")
    return [hostile, opponent] if seat == 0 else [opponent, hostile]


def assert_nothing_left(hostile: KeptBotSeat, temp_root: Path) -> None:
    """The bot's process group is gone and its socket folder removed."""
    (agent,) = hostile.agents
    assert isinstance(agent, LocalProcessAgent)
    assert agent.workdir is not None and not agent.workdir.exists()
    assert list(temp_root.iterdir()) == []
    if agent.process is None:
        return
    assert agent.process.returncode is not None
    with pytest.raises(ProcessLookupError):
        os.killpg(agent.process.pid, 0)


def assert_opponent_stands(deal: DealResult, other: int) -> None:
    """The opponent ended OK, its returns recorded, the deal complete and replayable."""
    record = deal.record
    assert record is not None and record.conduct is not None
    assert deal.reason_names[other] == "OK" and not deal.forfeited[other]
    report = record.conduct.seats[other]
    assert report.reason == "OK" and report.strikes == 0
    assert report.agent == {"kind": "policy", "name": "random"}
    final = replay(record)
    assert final.is_terminal()
    assert final.returns() == list(deal.returns) == list(record.returns)
    assert sum(deal.returns) == 0
    assert all(fault.seat != other for fault in deal.faults)


@pytest.mark.parametrize("seat", [0, 1], ids=["hostile-first", "hostile-second"])
@pytest.mark.parametrize("case", CASES, ids=[case.bot for case in CASES])
def test_a_hostile_bot_gets_its_verdict(case: Case, seat: int, temp_root: Path,
                                        transport: str) -> None:
    hostile = KeptBotSeat(BOTS / case.bot, temp_root)
    other = 1 - seat
    deal = run_deal(BRISCOLA, SEED, seats_for(hostile, seat), case.control)
    assert_nothing_left(hostile, temp_root)
    assert_opponent_stands(deal, other)
    record = deal.record
    assert record is not None and record.conduct is not None
    report = record.conduct.seats[seat]
    assert deal.reason_names[seat] == report.reason == case.reason
    assert deal.forfeited[seat] == report.forfeited == (case.reason != "OK")
    assert [fault.kind for fault in deal.faults] == list(case.faults)
    assert record.conduct.faults == deal.faults
    assert report.strikes == case.strikes
    assert [fault.strike for fault in deal.faults] == (
        list(range(1, case.strikes + 1)) if case.strikes else [0] * len(case.faults))
    detail = report.detail if case.reason != "OK" else (
        deal.faults[0].detail if deal.faults else "")
    assert re.fullmatch(case.detail + ".*", detail, re.DOTALL), detail
    for fault in deal.faults:
        if fault.decision is not None:
            assert record.actions[fault.decision] == fault.action
    seat_times = [time for time, who in zip(record.conduct.decision_us, decision_seats(record),
                                             strict=True) if who == seat]
    if case.played:
        assert seat_times and seat_times[0] is not None
    else:
        assert all(time is None for time in seat_times)
        assert deal.faults[0].decision is None
    assert case.stderr in report.stderr
    if case.bot == "debug-flood":
        assert_flood_capped(deal, seat)


def decision_seats(record: MatchRecord) -> list[int]:
    """The seat that made each decision of a briscola record."""
    state = BRISCOLA.new_initial_state(SEED)
    seats = []
    for action in record.actions:
        seats.append(state.current_player())
        state.apply_action(action)
    return seats


def assert_flood_capped(deal: DealResult, seat: int) -> None:
    """Debug notes are capped at 1 KiB each, the captured output at 64 KiB."""
    record = deal.record
    assert record is not None and record.conduct is not None
    notes = [note for note in record.conduct.debug if note.seat == seat]
    assert len(notes) == 20
    assert all(len(note.text.encode()) == DEBUG_CAP for note in notes)
    stderr = record.conduct.seats[seat].stderr
    header, _, rest = stderr.partition("\n")
    assert re.fullmatch(r"\[\d+ earlier bytes dropped\]", header)
    assert len(rest.encode()) <= OUTPUT_CAP
