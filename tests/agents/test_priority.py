"""The arena yields the CPU to its bots: once it runs a match with a bot, its threads run at a
lower priority (a higher nice value) than the bots it starts, which keep the first one."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.agents.child import start_child
from arena.agents.priority import (
    DEFAULT_NICE,
    NICE_ENV,
    PriorityError,
    arena_nice,
    autogroup_nice,
)

SAMPLE_RANDOM = Path(__file__).resolve().parents[2] / "sample_bots" / "python" / "random"

MATCH = """
import json, os, sys, tempfile
from pathlib import Path
from arena.agents import priority
from arena.agents.seats import BotSeat, PolicySeat
from arena.games import load_game
from arena.match.runner import run_duplicate

first = os.getpriority(os.PRIO_PROCESS, 0)
bots = []

class WatchedSeat(BotSeat):
    def create_agent(self):
        agent = super().create_agent()
        agent.on_spawn = lambda bot: bots.append(os.getpriority(os.PRIO_PROCESS, bot.process.pid))
        return agent

root = Path(tempfile.mkdtemp(prefix="cat-nice-", dir="/tmp"))
seats = [WatchedSeat.from_path(Path(sys.argv[1]), root), PolicySeat("random")]
result = run_duplicate(load_game("briscola"), 1, seats)
spawner = priority._spawner().thread_id
threads = {int(task.name): priority.thread_nice(int(task.name))
           for task in Path("/proc/self/task").iterdir()}
print(json.dumps({"first": first, "bots": bots, "spawner": threads.pop(spawner),
                  "autogroup": priority.autogroup_nice(),
                  "own_session": os.getsid(0) == os.getpid(),
                  "arena": sorted(set(threads.values())),
                  "reasons": sorted({r for deal in result.deals for r in deal.reason_names})}))
"""


def _play(step: str) -> dict[str, object]:
    """Run a 2-seat briscola set with the random bot in a new Python with ``step``; what it saw."""
    env = {**os.environ, NICE_ENV: step}
    ran = subprocess.run([sys.executable, "-c", MATCH, str(SAMPLE_RANDOM)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr[-2000:]
    seen: dict[str, object] = json.loads(ran.stdout.strip().splitlines()[-1])
    assert seen["reasons"] == ["OK"]
    return seen


def test_a_match_with_a_bot_lowers_the_arena_below_its_bots() -> None:
    """Every bot instance starts at the process's first nice value; afterwards every thread
    of the arena but the spawner runs a step lower."""
    seen = _play("5")
    first = seen["first"]
    assert isinstance(first, int) and first <= 14, "the test needs room for a step of 5"
    assert seen["bots"] == [first, first]
    assert seen["spawner"] == first
    assert seen["arena"] == [first + 5]


def test_a_pool_worker_takes_a_session_of_its_own_and_lowers_its_autogroup() -> None:
    """A process that leads neither its session nor its group (as a pool worker) takes a
    session of its own, whose autogroup it gives the step, where the kernel groups by
    session; where it groups none, the process stays in its session."""
    grouped = autogroup_nice() is not None
    seen = _play("5")
    assert seen["own_session"] is grouped
    assert seen["autogroup"] == (5 if grouped else None)


def test_a_step_of_zero_leaves_the_priorities_alone() -> None:
    """``CARDARENA_ARENA_NICE=0``: bots and arena keep the first nice value."""
    seen = _play("0")
    first = seen["first"]
    assert seen["bots"] == [first, first]
    assert seen["arena"] == [first]
    assert seen["own_session"] is False


LEADER = """
import sys
from arena.agents import priority
priority.yield_cpu_to_bots()
print(priority.autogroup_nice())
"""


def test_a_command_from_a_shell_lowers_its_session_only_while_it_runs() -> None:
    """A process group's leader in a shared session (a command started from a shell) lowers
    the session's autogroup while it runs and puts the first value back when it exits."""
    before = autogroup_nice()
    assert before is None or before < 15, "the test needs room for a step of 15"
    ran = subprocess.run([sys.executable, "-c", LEADER], env={**os.environ, NICE_ENV: "15"},
                         process_group=0, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stdout.split() == ["None" if before is None else "15"]
    assert autogroup_nice() == before


@pytest.mark.parametrize("text", ["abc", "-1", "20", "2.5"])
def test_a_bad_step_is_refused_naming_the_variable(monkeypatch: pytest.MonkeyPatch,
                                                   text: str) -> None:
    """Anything but a whole number from 0 to 19 is a clear error."""
    monkeypatch.setenv(NICE_ENV, text)
    with pytest.raises(PriorityError, match=f"{NICE_ENV} must be a whole number from 0 to 19"):
        arena_nice()


def test_the_default_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unset or empty: the default step."""
    monkeypatch.delenv(NICE_ENV, raising=False)
    assert arena_nice() == DEFAULT_NICE
    monkeypatch.setenv(NICE_ENV, " ")
    assert arena_nice() == DEFAULT_NICE


def test_a_child_gives_its_output_and_exit_status(tmp_path: Path) -> None:
    """``start_child``: the merged output, the exit status from ``wait`` and ``returncode``."""

    async def run() -> tuple[bytes, int, int | None]:
        child = await start_child(["sh", "-c", "echo out; echo err >&2; exit 3"], tmp_path,
                                  os.environ)
        assert child.stdout is not None
        output = await child.stdout.read()
        status = await child.wait()
        return output, status, child.returncode

    output, status, returncode = asyncio.run(run())
    assert sorted(output.split()) == [b"err", b"out"]
    assert status == returncode == 3


def test_a_killed_child_reports_its_signal(tmp_path: Path) -> None:
    """A child stopped by SIGKILL: ``wait`` gives -9."""

    async def run() -> int:
        child = await start_child(["sleep", "30"], tmp_path, os.environ)
        child.kill()
        return await child.wait()

    assert asyncio.run(run()) == -9


def test_a_missing_command_raises_os_error(tmp_path: Path) -> None:
    """A command that does not exist: ``OSError`` from ``start_child``."""
    with pytest.raises(OSError):
        asyncio.run(start_child([str(tmp_path / "nothing-here")], tmp_path, os.environ))
