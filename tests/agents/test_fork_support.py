"""Bots started while the arena's gRPC threads are busy start cleanly: gRPC's fork support is
off in the arena's processes, so no after-fork handler runs between a bot's fork and exec."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SAMPLE_RANDOM = Path(__file__).resolve().parents[2] / "sample_bots" / "python" / "random"

SETS = """
import sys, tempfile
from pathlib import Path
from arena.agents.seats import BotSeat
from arena.games import load_game
from arena.match.runner import run_duplicate
root = Path(tempfile.mkdtemp(prefix="cat-fork-", dir="/tmp"))
game = load_game("briscola-chiamata")
for seed in range(3):
    seats = [BotSeat.from_path(Path(sys.argv[1]), root) for _ in range(5)]
    result = run_duplicate(game, seed, seats)
    print([entrant.exit.status for entrant in result.entrants],
          sorted({reason for deal in result.deals for reason in deal.reason_names}))
"""


def test_importing_the_arena_turns_grpc_fork_support_off() -> None:
    """Whatever the environment said, the arena's processes run with fork support off."""
    env = {**os.environ, "GRPC_ENABLE_FORK_SUPPORT": "true"}
    shown = subprocess.run([sys.executable, "-c", "import arena, os; "
                            "print(os.environ['GRPC_ENABLE_FORK_SUPPORT'])"],
                           env=env, capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "false"


def test_many_bots_started_at_once_all_start_and_exit_cleanly() -> None:
    """Three sets of five-seat briscola chiamata, 25 instances of the random bot started
    together in each: every seat OK, every instance exits with 0, and gRPC never reports
    skipping its fork handlers (which it does only with fork support on)."""
    env = {**os.environ, "GRPC_ENABLE_FORK_SUPPORT": "true"}
    ran = subprocess.run([sys.executable, "-c", SETS, str(SAMPLE_RANDOM)], env=env,
                         capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0, ran.stderr[-2000:]
    lines = ran.stdout.strip().splitlines()
    assert lines == ["[0, 0, 0, 0, 0] ['OK']"] * 3, (lines, ran.stderr[-2000:])
    assert "fork_posix" not in ran.stderr
