"""A worker's pool of process bots (``arena.agents.pool``): reuse across matches, relaunch
after a fault, and no process left behind when the worker ends.

The bots are real processes (the scripted test bot); the matches are played by the real
runner on the pool's event loop, as ``run_match`` plays them.
"""

from __future__ import annotations

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

from arena.agents import BotSeat, PolicySeat, SeatSpec
from arena.agents.pool import AgentPool
from arena.games import load_game
from arena.match import DuplicateResult
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
    result and the process id of each pooled entrant's bot."""
    loan = pool.lend(seats)
    game = load_game("briscola", 2)
    try:
        result = pool.run(run_duplicate_async(game, seed, loan.seats, control))
    except BaseException:
        pool.give_back(loan, None)
        raise
    pids = [agent.bot.process.pid for agent in loan.agents()
            if agent is not None and agent.bot is not None and agent.bot.process is not None]
    pool.give_back(loan, result)
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
    """Three sets in a row: one process per seat slot of the bot plays them all, and the
    pool's close stops it and removes its folder."""
    bot = BotSeat.from_path(make_bot(tmp_path / "bot"), temp_root)
    pids = []
    for seed in (1, 2, 3):
        result, [pid] = play(pool, [bot, PolicySeat("random")], seed)
        assert faults(result) == []
        assert [deal.reason_names for deal in result.deals] == [("OK", "OK")] * 2
        pids.append(pid)
    assert len(set(pids)) == 1
    assert pool.launched == 1
    [agent] = pool.bots
    workdir = agent.workdir
    assert workdir is not None and workdir.exists()
    pool.close()
    assert pool.bots == []
    assert wait_gone(pids[0])
    assert not workdir.exists()


def test_a_bot_in_two_seats_keeps_one_process_per_slot(pool: AgentPool, tmp_path: Path,
                                                       temp_root: Path) -> None:
    """The same bot at both seats: two processes (slots 0 and 1), both reused next time."""
    bot = BotSeat.from_path(make_bot(tmp_path / "bot"), temp_root)
    first, first_pids = play(pool, [bot, bot], 1)
    second, second_pids = play(pool, [bot, bot], 2)
    assert faults(first) == faults(second) == []
    assert len(set(first_pids)) == 2
    assert second_pids == first_pids
    assert pool.launched == 2


def test_a_crashed_bot_is_relaunched(pool: AgentPool, tmp_path: Path,
                                     temp_root: Path) -> None:
    """A bot that crashes in a set is forfeited as before; the next set starts a new one."""
    bot = BotSeat.from_path(make_bot(tmp_path / "bot", "--crash-at", "3"), temp_root)
    first, [first_pid] = play(pool, [bot, PolicySeat("random")], 1)
    assert faults(first)[0] == "crash@0"
    assert first.entrants[0].forfeits == 2
    assert not running(first_pid)
    second, [second_pid] = play(pool, [bot, PolicySeat("random")], 2)
    assert second_pid != first_pid
    assert faults(second)[0] == "crash@0"
    assert pool.launched == 2


def test_a_bot_with_a_fault_is_stopped_not_reused(pool: AgentPool, tmp_path: Path,
                                                  temp_root: Path) -> None:
    """An illegal action (a strike, no forfeit) in a set: the bot is stopped after it and the
    next set has a new process."""
    bot = BotSeat.from_path(make_bot(tmp_path / "bot", "--faults", "2:illegal"), temp_root)
    first, [first_pid] = play(pool, [bot, PolicySeat("random")], 1)
    assert faults(first) == ["illegal@0", "illegal@1"]
    assert first.entrants[0].forfeits == 0
    assert wait_gone(first_pid)
    assert pool.bots == []
    _, [second_pid] = play(pool, [bot, PolicySeat("random")], 2)
    assert second_pid != first_pid


def test_a_bot_that_timed_out_is_not_reused(pool: AgentPool, tmp_path: Path,
                                            temp_root: Path) -> None:
    """A bot that stops answering is forfeited for the timeout and stopped; the next set
    starts a new process."""
    bot = BotSeat.from_path(make_bot(tmp_path / "bot", "--faults", "1:hang"), temp_root)
    control = TimeControl(decision_ms=50, bank_ms=0)
    first, [first_pid] = play(pool, [bot, PolicySeat("random")], 1, control)
    assert "timeout@0" in faults(first)
    assert wait_gone(first_pid)
    _, [second_pid] = play(pool, [bot, PolicySeat("random")], 2, control)
    assert second_pid != first_pid


def test_an_idle_bot_that_died_is_replaced_before_the_match(pool: AgentPool, tmp_path: Path,
                                                            temp_root: Path) -> None:
    """A kept bot killed between matches is noticed at the next launch: a new process plays,
    and the set has no fault."""
    bot = BotSeat.from_path(make_bot(tmp_path / "bot"), temp_root)
    _, [first_pid] = play(pool, [bot, PolicySeat("random")], 1)
    os.killpg(first_pid, signal.SIGKILL)
    assert wait_gone(first_pid)
    second, [second_pid] = play(pool, [bot, PolicySeat("random")], 2)
    assert faults(second) == []
    assert second_pid != first_pid
    assert pool.launched == 2


def test_a_changed_manifest_starts_a_new_bot(pool: AgentPool, tmp_path: Path,
                                            temp_root: Path) -> None:
    """A new version of the bot folder's manifest: the old process is stopped, a new one
    plays."""
    folder = make_bot(tmp_path / "bot")
    _, [first_pid] = play(pool, [BotSeat.from_path(folder, temp_root), PolicySeat("random")])
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text().replace('version = "0.1"', 'version = "0.2"'))
    _, [second_pid] = play(pool, [BotSeat.from_path(folder, temp_root), PolicySeat("random")])
    assert second_pid != first_pid
    assert wait_gone(first_pid)
    assert len(pool.bots) == 1


def worker(folder: str, temp_root: str, end: str, report: Queue[tuple[int, str]]) -> None:
    """In a spawned process: play a set with the process's worker pool (SIGTERM handled by
    it), report the kept bot's pid and folder, then return (``exit``) or wait to be killed."""
    from arena.league.run_match import worker_pool

    pool = worker_pool()
    pool.install_sigterm()
    play(pool, [BotSeat.from_path(folder, Path(temp_root)), PolicySeat("random")])
    [bot] = pool.bots
    assert bot.process is not None and bot.workdir is not None
    report.put((bot.process.pid, str(bot.workdir)))
    if end != "exit":
        time.sleep(WAIT_S)


@pytest.mark.parametrize("end", ["exit", "sigterm", "sigkill"])
def test_a_worker_that_ends_leaves_no_bot_behind(tmp_path: Path, temp_root: Path,
                                                 end: str) -> None:
    """A worker process that returns, is stopped with SIGTERM or killed with SIGKILL while its
    bot waits for the next match: the bot is stopped and its folder removed (after SIGKILL, by
    the pool's watchdog)."""
    context = get_context("spawn")
    report: Queue[tuple[int, str]] = context.Queue()
    process = context.Process(target=worker, args=(
        str(make_bot(tmp_path / "bot")), str(temp_root), end, report))
    process.start()
    try:
        pid, workdir = report.get(timeout=WAIT_S)
        assert running(pid)
        if end != "exit":
            os.kill(process.pid, signal.SIGTERM if end == "sigterm" else signal.SIGKILL)
        process.join(timeout=WAIT_S)
    finally:
        if process.is_alive():
            process.kill()
            process.join()
    assert process.exitcode == {"exit": 0, "sigterm": -signal.SIGTERM,
                                "sigkill": -signal.SIGKILL}[end]
    assert wait_gone(pid)
    deadline = time.monotonic() + WAIT_S
    while Path(workdir).exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not Path(workdir).exists()


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
