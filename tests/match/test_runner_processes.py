"""The runner with real bot processes over gRPC: a duplicate set, faults, crashes, bad starts.

Every test checks that each bot process it started has exited and that no temporary folder
or socket is left.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from agents.botkit import SAMPLE_RANDOM, KeptBotSeat, make_bot

from arena.agents import LocalProcessAgent, PolicySeat
from arena.bots import BotConfigError
from arena.games import load_game
from arena.match import replay
from arena.match.faults import FaultKind
from arena.match.results import DealResult, DuplicateResult
from arena.match.runner import run_duplicate
from arena.match.timecontrol import TimeControl
from arena.reasons import Reason

BRISCOLA = load_game("briscola")
OK = Reason.OK


def bot_seat(tmp_path: Path, temp_root: Path, *args: str) -> KeptBotSeat:
    """The scripted bot with ``args``; its temporary folders go under ``temp_root``."""
    return KeptBotSeat(make_bot(tmp_path / "bot", *args), temp_root)


def assert_cleaned_up(seat: KeptBotSeat, temp_root: Path) -> list[LocalProcessAgent]:
    """Every agent's process has exited; no temporary folder is left. The agents."""
    agents = [agent for agent in seat.agents if isinstance(agent, LocalProcessAgent)]
    assert agents and len(agents) == len(seat.agents)
    for agent in agents:
        assert agent.process is not None and agent.process.returncode is not None
        assert agent.workdir is not None and not agent.workdir.exists()
    assert list(temp_root.iterdir()) == []
    return agents


def one_deal(seat: KeptBotSeat, control: TimeControl | None = None,
             strikes: int = 3) -> DealResult:
    """One briscola deal: the bot at seat 0, the random policy at seat 1."""
    result = run_duplicate(BRISCOLA, 3, [seat, PolicySeat("random")], control, strikes=strikes,
                           rotations=1)
    return result.deals[0]


def test_a_duplicate_set_of_a_sample_bot_against_a_policy(tmp_path: Path, temp_root: Path) -> None:
    pytest.importorskip("cardarena_sdk")
    seat = KeptBotSeat(SAMPLE_RANDOM, temp_root)
    result: DuplicateResult = run_duplicate(BRISCOLA, 21, [seat, PolicySeat("heuristic")])
    assert len(result.deals) == 2
    assert [deal.entrants for deal in result.deals] == [(0, 1), (1, 0)]
    assert all(deal.reasons == (OK, OK) for deal in result.deals)
    bot, policy = result.entrants
    assert bot.seats == (0, 1) and policy.seats == (1, 0)
    assert bot.label == "random (bot)"
    assert bot.agent["ready"]["protocol_version"] == "cardarena.v1"
    assert bot.exit.status == 0
    assert bot.total == sum(bot.returns) == -policy.total
    for rotation, deal in enumerate(result.deals):
        record = deal.record
        assert record is not None and record.conduct is not None
        assert replay(record).returns() == list(deal.returns)
        report = record.conduct.seats[rotation]
        assert report.agent["path"] == str(SAMPLE_RANDOM)
        assert report.reason == "OK" and report.strikes == 0
        assert all(time is not None for time in record.conduct.decision_us)
    first = result.deals[0].record
    assert first is not None and first.conduct is not None
    assert "listening on unix:" in first.conduct.seats[0].stderr
    assert_cleaned_up(seat, temp_root)


def test_strikes_of_several_kinds_forfeit_the_bot(tmp_path: Path, temp_root: Path) -> None:
    seat = bot_seat(tmp_path, temp_root, "--faults", "1:illegal,2:unset,3:malformed")
    deal = one_deal(seat)
    assert [fault.kind for fault in deal.faults] == [FaultKind.ILLEGAL, FaultKind.UNSET,
                                                     FaultKind.MALFORMED]
    assert deal.reasons == (Reason.INVALID, OK)
    record = deal.record
    assert record is not None and record.conduct is not None
    assert replay(record).returns() == list(deal.returns)
    assert "match end REASON_CODE_INVALID REASON_CODE_OK" in record.conduct.seats[0].stderr
    assert_cleaned_up(seat, temp_root)


def test_an_extra_answer_is_stale_and_never_applied_later(tmp_path: Path, temp_root: Path) -> None:
    # Decision 2 is answered twice: the copy is read as the answer to the bot's next request
    # (a stale fault) and that request's own answer is then dropped; decision 4 is empty.
    seat = bot_seat(tmp_path, temp_root, "--faults", "1:stale,2:twice,4:empty")
    deal = one_deal(seat)
    kinds = [fault.kind for fault in deal.faults]
    assert kinds == [FaultKind.STALE, FaultKind.STALE, FaultKind.MALFORMED]
    assert deal.faults[1].detail.startswith("answered request ")
    assert deal.reasons == (Reason.INVALID, OK)
    (agent,) = assert_cleaned_up(seat, temp_root)
    assert agent.discarded == 1


def test_a_late_answer_is_a_timeout_and_is_dropped(tmp_path: Path, temp_root: Path) -> None:
    # The bot takes 50 ms a decision; its first answer comes 1 s later still, while the deal
    # goes on (at least 19 more decisions of 50 ms after the 500 ms timeout).
    seat = bot_seat(tmp_path, temp_root, "--faults", "1:late", "--late-ms", "1000",
                    "--sleep-ms", "50")
    deal = one_deal(seat, TimeControl(decision_ms=500, bank_ms=0))
    (fault,) = deal.faults
    assert fault.kind == FaultKind.TIMEOUT and fault.strike == 1
    assert fault.detail == "no answer within 500 ms (decision and bank)"
    assert deal.reasons == (OK, OK)
    (agent,) = assert_cleaned_up(seat, temp_root)
    assert agent.discarded == 1
    assert deal.record is not None
    assert replay(deal.record).returns() == list(deal.returns)


def test_a_bot_that_stops_answering_forfeits_on_time(tmp_path: Path, temp_root: Path) -> None:
    seat = bot_seat(tmp_path, temp_root, "--faults", "2:hang")
    deal = one_deal(seat, TimeControl(decision_ms=150, bank_ms=50))
    assert [fault.kind for fault in deal.faults] == [FaultKind.TIMEOUT] * 3
    assert deal.faults[0].detail == "no answer within 200 ms (decision and bank)"
    assert deal.faults[1].detail == "no answer within 150 ms (decision and bank)"
    assert deal.reasons == (Reason.TIMEOUT, OK)
    assert_cleaned_up(seat, temp_root)


def test_an_oversized_answer_forfeits(tmp_path: Path, temp_root: Path) -> None:
    seat = bot_seat(tmp_path, temp_root, "--faults", "2:big")
    deal = one_deal(seat)
    (fault,) = deal.faults
    assert fault.kind == FaultKind.OVERSIZED
    assert fault.detail == "the bot sent a message larger than the 65536 byte limit"
    assert deal.reasons == (Reason.INVALID, OK)
    assert_cleaned_up(seat, temp_root)


def test_a_crash_forfeits_its_deal_and_each_rotation_has_an_instance_of_its_own(
        tmp_path: Path, temp_root: Path) -> None:
    # The bot crashes at its third decision in every instance: each rotation's own process
    # crashes in its own deal, and the opponent's results stand.
    seat = bot_seat(tmp_path, temp_root, "--crash-at", "3")
    result = run_duplicate(BRISCOLA, 3, [seat, PolicySeat("random")])
    first, second = result.deals
    assert first.reasons == (Reason.CRASH, OK)
    assert second.reasons == (OK, Reason.CRASH)
    for deal, seat_index in ((first, 0), (second, 1)):
        assert deal.details[seat_index] == "the bot exited with status 3"
        (fault,) = deal.faults
        assert fault.kind == FaultKind.CRASH and fault.decision is not None
        assert deal.record is not None and deal.record.conduct is not None
        assert replay(deal.record).returns() == list(deal.returns)
        assert sum(deal.returns) == 0
        assert "crashing at decision 3" in deal.record.conduct.seats[seat_index].stderr
    bot, policy = result.entrants
    assert bot.reason_names == ("CRASH", "CRASH")
    assert policy.reason_names == ("OK", "OK")
    assert policy.returns == (first.returns[1], second.returns[0])
    assert bot.exit.status == 3
    assert [exit_.status for exit_ in bot.exits] == [3, 3]
    agents = assert_cleaned_up(seat, temp_root)
    assert len(agents) == 2 and agents[0].process.pid != agents[1].process.pid


def test_a_crash_in_one_rotation_leaves_the_next_rotation_to_a_fresh_instance(
        tmp_path: Path, temp_root: Path) -> None:
    # Only the first instance to reach its third decision crashes: the second rotation's
    # instance, started apart, plays its deal to the end.
    seat = bot_seat(tmp_path, temp_root, "--crash-at", "3", "--crash-once",
                    str(tmp_path / "crashed"))
    result = run_duplicate(BRISCOLA, 3, [seat, PolicySeat("random")])
    first, second = result.deals
    assert first.reasons == (Reason.CRASH, OK)
    assert second.reasons == (OK, OK) and second.faults == ()
    bot, _ = result.entrants
    assert bot.reason_names == ("CRASH", "OK")
    assert [exit_.status for exit_ in bot.exits] == [3, 0]
    assert bot.exit.status == 3
    assert second.record is not None and second.record.conduct is not None
    assert "crashing" not in second.record.conduct.seats[1].stderr
    assert "match end REASON_CODE_OK REASON_CODE_OK" in second.record.conduct.seats[1].stderr
    assert_cleaned_up(seat, temp_root)


def test_a_wrong_protocol_version_is_an_init_error(tmp_path: Path, temp_root: Path) -> None:
    seat = bot_seat(tmp_path, temp_root, "--version", "cardarena.v9")
    deal = one_deal(seat)
    assert deal.reasons == (Reason.INIT_ERROR, OK)
    assert deal.problems() == ["seat 0 scripted (bot): INIT_ERROR: the bot speaks protocol "
                               "'cardarena.v9'; the arena speaks 'cardarena.v1'"]
    assert deal.faults[0].kind == FaultKind.INIT_ERROR
    assert deal.record is not None
    assert replay(deal.record).returns() == list(deal.returns)
    assert_cleaned_up(seat, temp_root)


def test_a_bot_that_exits_at_start_is_an_init_error(tmp_path: Path, temp_root: Path) -> None:
    seat = bot_seat(tmp_path, temp_root, "--exit-at-start", "5")
    deal = one_deal(seat)
    assert deal.reasons == (Reason.INIT_ERROR, OK)
    assert deal.details[0] == "the bot exited with status 5 before listening on its socket"
    assert deal.record is not None and deal.record.conduct is not None
    assert "failing at start" in deal.record.conduct.seats[0].stderr
    assert_cleaned_up(seat, temp_root)


def test_a_bot_for_other_games_is_refused_before_anything_starts(tmp_path: Path,
                                                                  temp_root: Path) -> None:
    seat = KeptBotSeat(make_bot(tmp_path / "bot", games=("scopa",)), temp_root)
    with pytest.raises(BotConfigError, match=r"bot scripted \(.*\) does not play briscola"):
        run_duplicate(BRISCOLA, 3, [seat, PolicySeat("random")])
    assert seat.agents == []


FORKED_WORKER = """
import multiprocessing, sys
from pathlib import Path
import arena.cli.main
from arena.agents import BotSeat, PolicySeat
from arena.games import load_game
from arena.match.runner import run_deal

def child(queue):
    seats = [BotSeat.from_path(sys.argv[1], Path(sys.argv[2])), PolicySeat("random")]
    queue.put(run_deal(load_game("briscola"), 3, seats).reason_names)

run_deal(load_game("briscola"), 3, [PolicySeat("random"), PolicySeat("heuristic")])
context = multiprocessing.get_context("fork")
queue = context.Queue()
worker = context.Process(target=child, args=(queue,))
worker.start()
print(" ".join(queue.get(timeout=60)))
worker.join(60)
sys.exit(worker.exitcode)
"""


def test_a_worker_forked_after_imports_and_local_play_can_run_bots(tmp_path: Path,
                                                                   temp_root: Path) -> None:
    bot = make_bot(tmp_path / "bot")
    done = subprocess.run([sys.executable, "-c", FORKED_WORKER, str(bot), str(temp_root)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["OK", "OK"]
    assert list(temp_root.iterdir()) == []
