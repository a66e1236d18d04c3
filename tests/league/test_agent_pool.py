"""A worker's pool of process bots (``arena.agents.pool``): reuse across matches (one instance
per seat and rotation, never one shown a deal twice), relaunch after a fault, and no process
left behind when the worker ends.

The bots are real processes (the scripted test bot); the matches are played by the real
runner on the pool's event loop, as ``run_match`` plays them.
"""

from __future__ import annotations

import faulthandler
import json
import os
import signal
import time
from collections.abc import Iterator, Sequence
from multiprocessing import get_context
from multiprocessing.queues import Queue
from pathlib import Path

import pytest
from agents.botkit import make_bot, short_temp_root

from arena.agents import BotSeat, PolicySeat, SeatSpec, ledger
from arena.agents.pool import AgentPool
from arena.games import load_game
from arena.match import DuplicateResult
from arena.match.results import clean_instances
from arena.match.runner import run_duplicate_async
from arena.match.timecontrol import TimeControl

WAIT_S = 60.0
"""The longest a test waits for a process to end."""


@pytest.fixture
def temp_root() -> Iterator[Path]:
    """A short folder for the bots' sockets."""
    with short_temp_root() as root:
        yield root


@pytest.fixture
def pool() -> Iterator[AgentPool]:
    """A pool, closed at the end."""
    agents = AgentPool()
    yield agents
    agents.close()


def play(pool: AgentPool, seats: Sequence[SeatSpec], seed: int = 7,
         control: TimeControl | None = None) -> tuple[DuplicateResult, list[int]]:
    """One duplicate set of 2-seat briscola with the pool, as ``run_match`` plays it; the
    result and the process id of each pooled instance (by entrant, then rotation)."""
    loan = pool.lend(seats, seed)
    game = load_game("briscola", 2)
    try:
        result = pool.run(run_duplicate_async(game, seed, loan.seats, control))
    except BaseException:
        pool.give_back(loan, None)
        raise
    pids = [agent.bot.process.pid for _, _, agent in sorted(
        loan.agents(), key=lambda item: item[:2])
        if agent.bot is not None and agent.bot.process is not None]
    pool.give_back(loan, clean_instances(result))
    return result, pids


def faults(result: DuplicateResult) -> list[str]:
    """Every fault of a set, as ``kind@seat``."""
    return [f"{fault.kind}@{fault.seat}" for deal in result.deals for fault in deal.faults]


def running(pid: int) -> bool:
    """True while a process exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def wait_gone(pid: int) -> bool:
    """Wait until the process has ended; False if it still runs after ``WAIT_S``."""
    deadline = time.monotonic() + WAIT_S
    while running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_clean_bot_is_reused_across_matches(pool: AgentPool, tmp_path: Path,
                                              temp_root: Path) -> None:
    """Three sets in a row: two processes of the bot (one per rotation) play them all, each
    shown each deal once, and the pool's close stops them and removes their folders."""
    bot = BotSeat.from_path(make_bot(tmp_path / "bot"), temp_root)
    pids = []
    for seed in (1, 2, 3):
        result, both = play(pool, [bot, PolicySeat("random")], seed)
        assert faults(result) == []
        assert [deal.reason_names for deal in result.deals] == [("OK", "OK")] * 2
        assert len(set(both)) == 2
        pids += both
    assert len(set(pids)) == 2
    assert pool.launched == 2
    bots = pool.bots
    assert sorted(len(agent.ledger) for agent in bots) == [3, 3]
    assert all(seed in agent.ledger for agent in bots for seed in (1, 2, 3))
    workdirs = [agent.workdir for agent in bots]
    assert all(workdir is not None and workdir.exists() for workdir in workdirs)
    pool.close()
    assert pool.bots == []
    assert all(wait_gone(pid) for pid in set(pids))
    assert not any(workdir is not None and workdir.exists() for workdir in workdirs)


def test_a_bot_in_two_seats_has_an_instance_per_seat_and_rotation(
        pool: AgentPool, tmp_path: Path, temp_root: Path) -> None:
    """The same bot at both seats: four processes (two seats, two rotations), all reused by
    the next set."""
    bot = BotSeat.from_path(make_bot(tmp_path / "bot"), temp_root)
    first, first_pids = play(pool, [bot, bot], 1)
    second, second_pids = play(pool, [bot, bot], 2)
    assert faults(first) == faults(second) == []
    assert len(set(first_pids)) == 4
    assert set(second_pids) == set(first_pids)
    assert pool.launched == 4


def test_an_instance_is_never_lent_for_a_deal_it_has_seen(pool: AgentPool, tmp_path: Path,
                                                          temp_root: Path) -> None:
    """A deal played again on the same pool (a match retried on the same worker): none of the
    instances that saw it plays it again; new ones do, and every instance is kept for the
    next deal."""
    bot = BotSeat.from_path(make_bot(tmp_path / "bot"), temp_root)
    _, first = play(pool, [bot, PolicySeat("random")], 5)
    again, second = play(pool, [bot, PolicySeat("random")], 5)
    assert faults(again) == []
    assert not set(first) & set(second)
    assert pool.launched == 4
    _, third = play(pool, [bot, PolicySeat("random")], 6)
    assert len(set(third)) == 2 and set(third) <= set(first) | set(second)
    assert pool.launched == 4


def test_idle_instances_beyond_the_cap_are_stopped(tmp_path: Path, temp_root: Path) -> None:
    """A pool that keeps one idle instance per bot stops the other after the set."""
    pool = AgentPool(max_idle=1)
    try:
        bot = BotSeat.from_path(make_bot(tmp_path / "bot"), temp_root)
        _, pids = play(pool, [bot, PolicySeat("random")], 1)
        [kept] = [bot.process.pid for bot in pool.bots if bot.process is not None]
        [stopped] = [pid for pid in pids if pid != kept]
        assert kept in pids and running(kept)
        assert wait_gone(stopped)
    finally:
        pool.close()


def test_an_instance_whose_ledger_is_full_is_retired(
        pool: AgentPool, tmp_path: Path, temp_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An instance that has been shown as many deals as a ledger holds is stopped, not kept."""
    monkeypatch.setattr(ledger, "MAX_DEALS", 1)
    bot = BotSeat.from_path(make_bot(tmp_path / "bot"), temp_root)
    result, pids = play(pool, [bot, PolicySeat("random")], 1)
    assert faults(result) == []
    assert pool.bots == []
    assert all(wait_gone(pid) for pid in pids)


def test_a_crashed_bot_is_relaunched(pool: AgentPool, tmp_path: Path,
                                     temp_root: Path) -> None:
    """A bot whose instances crash in a set is forfeited in each deal; the next set starts new
    ones."""
    bot = BotSeat.from_path(make_bot(tmp_path / "bot", "--crash-at", "3"), temp_root)
    first, first_pids = play(pool, [bot, PolicySeat("random")], 1)
    assert faults(first) == ["crash@0", "crash@1"]
    assert first.entrants[0].forfeits == 2
    assert not any(running(pid) for pid in first_pids)
    second, second_pids = play(pool, [bot, PolicySeat("random")], 2)
    assert not set(second_pids) & set(first_pids)
    assert faults(second) == ["crash@0", "crash@1"]
    assert pool.launched == 4


def test_a_bot_with_a_fault_is_stopped_not_reused(pool: AgentPool, tmp_path: Path,
                                                  temp_root: Path) -> None:
    """An illegal action (a strike, no forfeit) in a set: the bot is stopped after it and the
    next set has a new process."""
    bot = BotSeat.from_path(make_bot(tmp_path / "bot", "--faults", "2:illegal"), temp_root)
    first, first_pids = play(pool, [bot, PolicySeat("random")], 1)
    assert faults(first) == ["illegal@0", "illegal@1"]
    assert first.entrants[0].forfeits == 0
    assert all(wait_gone(pid) for pid in first_pids)
    assert pool.bots == []
    _, second_pids = play(pool, [bot, PolicySeat("random")], 2)
    assert not set(second_pids) & set(first_pids)


def test_a_bot_that_timed_out_is_not_reused(pool: AgentPool, tmp_path: Path,
                                            temp_root: Path) -> None:
    """A bot that stops answering is forfeited for the timeout and stopped; the next set
    starts a new process."""
    bot = BotSeat.from_path(make_bot(tmp_path / "bot", "--faults", "1:hang"), temp_root)
    control = TimeControl(decision_ms=50, bank_ms=0)
    first, first_pids = play(pool, [bot, PolicySeat("random")], 1, control)
    assert "timeout@0" in faults(first)
    assert all(wait_gone(pid) for pid in first_pids)
    _, second_pids = play(pool, [bot, PolicySeat("random")], 2, control)
    assert not set(second_pids) & set(first_pids)


def test_an_idle_bot_that_died_is_replaced_before_the_match(pool: AgentPool, tmp_path: Path,
                                                            temp_root: Path) -> None:
    """A kept bot killed between matches is noticed at the next launch: a new process plays,
    and the set has no fault."""
    bot = BotSeat.from_path(make_bot(tmp_path / "bot"), temp_root)
    _, [first_pid, kept_pid] = play(pool, [bot, PolicySeat("random")], 1)
    os.killpg(first_pid, signal.SIGKILL)
    assert wait_gone(first_pid)
    second, second_pids = play(pool, [bot, PolicySeat("random")], 2)
    assert faults(second) == []
    assert first_pid not in second_pids and kept_pid in second_pids
    assert pool.launched == 3


def test_a_changed_manifest_starts_a_new_bot(pool: AgentPool, tmp_path: Path,
                                            temp_root: Path) -> None:
    """A new version of the bot folder's manifest: the old process is stopped, a new one
    plays."""
    folder = make_bot(tmp_path / "bot")
    _, first_pids = play(pool, [BotSeat.from_path(folder, temp_root), PolicySeat("random")])
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text().replace('version = "0.1"', 'version = "0.2"'))
    _, second_pids = play(pool, [BotSeat.from_path(folder, temp_root), PolicySeat("random")],
                          8)
    assert not set(second_pids) & set(first_pids)
    assert all(wait_gone(pid) for pid in first_pids)
    assert len(pool.bots) == 2


def worker(folder: str, temp_root: str, end: str,
           report: Queue[list[tuple[int, str]]]) -> None:
    """In a spawned process: play a set with the process's worker pool (SIGTERM handled by
    it), report the kept bots' pids and folders, then return (``exit``) or wait to be
    killed."""
    from arena.league.run_match import worker_pool

    faulthandler.register(signal.SIGUSR1, all_threads=True)
    pool = worker_pool()
    pool.install_sigterm()
    play(pool, [BotSeat.from_path(folder, Path(temp_root)), PolicySeat("random")])
    kept = []
    for bot in pool.bots:
        assert bot.process is not None and bot.workdir is not None
        kept.append((bot.process.pid, str(bot.workdir)))
    # checked here: once this worker returns, its pool stops the bots at its exit
    assert all(running(pid) for pid, _ in kept)
    report.put(kept)
    deadline = time.monotonic() + WAIT_S
    while end != "exit" and time.monotonic() < deadline:
        time.sleep(0.05)  # short naps: a handler waits for the main thread to wake


@pytest.mark.parametrize("end", ["exit", "sigterm", "sigkill"])
def test_a_worker_that_ends_leaves_no_bot_behind(tmp_path: Path, temp_root: Path,
                                                 end: str) -> None:
    """A worker process that returns, is stopped with SIGTERM or killed with SIGKILL while its
    bot waits for the next match: the bot is stopped and its folder removed (after SIGKILL, by
    the pool's watchdog)."""
    context = get_context("spawn")
    report: Queue[list[tuple[int, str]]] = context.Queue()
    process = context.Process(target=worker, args=(
        str(make_bot(tmp_path / "bot")), str(temp_root), end, report))
    process.start()
    try:
        kept = report.get(timeout=WAIT_S)
        assert len(kept) == 2  # running when reported (the worker checks; exit code 0)
        if end != "exit":
            os.kill(process.pid, signal.SIGTERM if end == "sigterm" else signal.SIGKILL)
        process.join(timeout=WAIT_S)
    finally:
        hung = process.is_alive()
        if hung:
            os.kill(process.pid, signal.SIGUSR1)  # its threads' stacks, to the test's stderr
            process.join(timeout=2)
            process.kill()
            process.join()
    assert not hung, f"the worker did not end within {WAIT_S:g} s ({end}); stacks above"
    assert process.exitcode == {"exit": 0, "sigterm": -signal.SIGTERM,
                                "sigkill": -signal.SIGKILL}[end]
    assert all(wait_gone(pid) for pid, _ in kept)
    deadline = time.monotonic() + WAIT_S
    while any(Path(workdir).exists() for _, workdir in kept) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not any(Path(workdir).exists() for _, workdir in kept)


def starting_worker(folder: str, temp_root: str) -> None:
    """In a spawned process: play a set whose bot never listens, with a long start-up limit
    (the worker is killed while it waits)."""
    from arena.league.run_match import worker_pool

    pool = worker_pool()
    play(pool, [BotSeat.from_path(folder, Path(temp_root)), PolicySeat("random")],
         control=TimeControl(startup_ms=int(WAIT_S * 1000)))


def test_a_worker_killed_while_its_bot_starts_leaves_no_bot_behind(
        tmp_path: Path, temp_root: Path) -> None:
    """SIGKILL of a worker whose bot has started but does not listen yet: the pool's watchdog
    already knows the bot, and stops it."""
    pid_file = tmp_path / "bot.pid"
    folder = tmp_path / "slow-start"
    folder.mkdir()
    script = (f"import os, pathlib, time; pathlib.Path({str(pid_file)!r})"
              ".write_text(str(os.getpid())); time.sleep(600)")
    (folder / "bot.toml").write_text(
        'name = "slow-start"\nversion = "0.1"\nlanguage = "python"\n'
        f'command = ["python", "-c", {json.dumps(script)}]\ngames = ["*"]\n', encoding="utf-8")
    context = get_context("spawn")
    process = context.Process(target=starting_worker, args=(str(folder), str(temp_root)))
    process.start()
    try:
        deadline = time.monotonic() + WAIT_S
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < deadline, "the bot never started"
            assert process.is_alive(), f"the worker ended early ({process.exitcode})"
            time.sleep(0.01)
        pid = int(pid_file.read_text())
        os.kill(process.pid, signal.SIGKILL)
        process.join(timeout=WAIT_S)
    finally:
        if process.is_alive():
            process.kill()
            process.join()
    assert process.exitcode == -signal.SIGKILL
    assert wait_gone(pid)
