"""What an arena process starts dies with it, for real: ``arena play`` with a Docker bot and a
process bot that leaves a daemon behind, killed with SIGKILL mid-match; ``arena bot build``
killed during a RUN step; a spawned worker whose parent is gone before the worker could ask to
die with it; and a reaper that was itself killed, replaced by the next one, told of everything
still live.

Each test kills only the arena's own process and then requires that within ``GONE_WITHIN_S``
no process carrying the test's marker, none of the recorded processes, no container labelled
by them and no bot or socket folder is left.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.sandbox.images import BotImage

from .conftest import SAMPLE_RANDOM, require_docker
from .orphans import ARENA, RUNNING_WITHIN_S, Arena, alive, escaper_bot, wait_for


@pytest.mark.docker
def test_kill_9_of_arena_play_with_a_docker_bot_leaves_nothing(
        arena: Arena, bot_image: Callable[[Path], BotImage]) -> None:
    """``arena play`` of the random bot's image against a process bot that leaves a daemon,
    killed mid-match: the container, the bot, its daemon and both folders go too."""
    client = require_docker()
    image = bot_image(SAMPLE_RANDOM)
    escaper = escaper_bot(arena.temp.parent / "escaper")
    program = arena.start([ARENA, "play", "briscola", "--bot", f"image:{image.ref}",
                           "--bot", str(escaper), "--duplicate", "--decision-ms", "10000"])
    arena.kill(program, arena.matches_running(client, program))
    arena.assert_nothing_left(client)


@pytest.mark.docker
def test_kill_9_of_a_bot_build_stops_the_build(arena: Arena, base_image: str) -> None:
    """``arena bot build`` killed while a RUN step runs: the daemon ends the build with its
    client's connection, so no step container and no image is left (a build is not a child
    process; the daemon's own cancellation is what ends it)."""
    client = require_docker()
    folder = arena.temp.parent / "slow-build"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "slow-build"\nversion = "1.0.0"\n'
                                     'language = "python"\ncommand = ["python", "bot.py"]\n'
                                     'games = ["*"]\n')
    (folder / "Dockerfile").write_text(f"ARG BASE=cardarena/python-base\nFROM ${{BASE}}\n"
                                       f"RUN sleep 120 # {arena.marker}\n")
    program = arena.start([ARENA, "bot", "build", str(folder)])

    def step() -> list[Any] | None:
        """The build step's containers, once there is one."""
        found = [entry for entry in client.api.containers(all=True)
                 if arena.marker in str(entry.get("Command", ""))]
        return found or None

    try:
        wait_for(step, RUNNING_WITHIN_S, "the build's RUN step", program)
    except AssertionError as error:
        raise AssertionError(f"{error}: {arena.output()}") from None
    os.kill(program.pid, signal.SIGKILL)
    program.wait()
    wait_for(lambda: True if step() is None else None, 30, "the build's step container to go")
    assert client.images.list(name="cardarena-bot/slow-build") == []


ORPHANED_WORKER = textwrap.dedent("""
    import multiprocessing, os, sys, time
    from pathlib import Path
    from arena.sandbox.lifeline import die_with_parent

    def work(note):
        Path(note + ".new").write_text(str(os.getpid()))
        os.replace(note + ".new", note)
        die_with_parent()
        time.sleep(300)

    if __name__ == "__main__":
        multiprocessing.get_context("spawn").Process(target=work, args=(sys.argv[1],)).start()
        os._exit(0)
""")


def test_a_worker_whose_parent_died_before_it_started_dies(tmp_path: Path) -> None:
    """The parent exits as soon as it has spawned the worker, before the worker can ask the
    kernel for PR_SET_PDEATHSIG (which would then never fire): the worker notices (its parent
    is not the one that spawned it, and the parent's pipe is closed) and dies."""
    script = tmp_path / "orphaned.py"
    script.write_text(ORPHANED_WORKER)
    note = tmp_path / "worker.pid"
    subprocess.run([sys.executable, str(script), str(note)], check=True, timeout=60)
    pid = wait_for(lambda: int(note.read_text()) if note.exists() else None, 60,
                   "the worker to start")
    wait_for(lambda: True if not alive(pid) else None, 30, f"the orphaned worker {pid} to die")


RESTARTED_REAPER = textwrap.dedent("""
    import os, subprocess, sys, time
    from arena.sandbox.lifeline import GROUP, lifeline

    guard = lifeline()

    def bot():
        # No pdeathsig here: only the reaper can stop these.
        env = {**os.environ, **guard.environment()}
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"],
                                 env=env, start_new_session=True)
        guard.track(GROUP, child.pid)
        return child.pid

    first = bot()
    print(first, guard.reaper_pid, flush=True)
    sys.stdin.readline()
    second = bot()
    print(second, guard.reaper_pid, flush=True)
    time.sleep(300)
""")


def test_a_killed_reaper_is_replaced_and_told_everything(tmp_path: Path) -> None:
    """An arena's reaper killed from outside: the next bot the arena starts starts a new
    reaper, told of the bot already running too; kill -9 of the arena then takes both bots
    (started without pdeathsig, in sessions of their own: only the reaper can stop them)."""
    script = tmp_path / "reaped.py"
    script.write_text(RESTARTED_REAPER)
    program = subprocess.Popen([sys.executable, str(script)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, start_new_session=True)
    assert program.stdin is not None and program.stdout is not None
    bots: list[int] = []
    try:
        first, reaper = map(int, program.stdout.readline().split())
        bots.append(first)
        os.kill(reaper, signal.SIGKILL)
        wait_for(lambda: True if not alive(reaper) else None, 30, "the reaper to die")
        assert alive(first)
        program.stdin.write(b"\n")
        program.stdin.flush()
        second, new_reaper = map(int, program.stdout.readline().split())
        bots.append(second)
        assert new_reaper != reaper and alive(new_reaper)
        assert alive(first) and alive(second)
        os.kill(program.pid, signal.SIGKILL)
        program.wait()
        wait_for(lambda: True if not any(alive(pid) for pid in bots) else None, 30,
                 "both bots to die")
        wait_for(lambda: True if not alive(new_reaper) else None, 30, "the new reaper to exit")
    finally:
        for pid in [program.pid, *bots]:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        program.wait()


def test_a_folder_is_told_to_the_reaper_before_it_exists(tmp_path: Path) -> None:
    """``Lifeline.new_folder`` tells the reaper first: a process killed the moment the folder
    is made (before it could tell of it afterwards) leaves no folder behind."""
    script = textwrap.dedent(f"""
        import os, signal
        from pathlib import Path
        from arena.sandbox.lifeline import FOLDER, SOCKET_DIR, lifeline
        first = lifeline().new_folder(FOLDER, "cat-test-", Path({str(tmp_path)!r}))
        second = lifeline().new_folder(SOCKET_DIR, "cat-", Path({str(tmp_path)!r}))
        print(first, second, oct(first.stat().st_mode & 0o777), flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == -signal.SIGKILL, run.stderr
    first, second, mode = run.stdout.split()
    assert mode == "0o700" and first != second
    assert Path(first).name.startswith("cat-test-") and Path(second).parent == tmp_path
    wait_for(lambda: True if not any(tmp_path.iterdir()) else None, 30,
             "the reaper to remove both folders")
