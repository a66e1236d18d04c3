"""The counting helpers (``arena.telemetry.metrics``) on this process's registry, and a
league match's end told to them (``arena.league.observe``) from a real duplicate set."""

from __future__ import annotations

from arena.agents import PolicySeat
from arena.games import load_game
from arena.league.observe import match_ended
from arena.match import run_duplicate
from arena.match.timecontrol import TimeControl
from arena.telemetry.metrics import (
    count_container_start,
    count_lease_expiries,
    count_match,
    observe_build,
)

from .scraping import sample


def test_counts_add_up() -> None:
    """Matches, decisions, faults, strikes, expiries, container starts and builds each move
    their own sample by what was counted."""
    names = [("arena_matches_total", {"game": "scopa", "result": "void"}),
             ("arena_decisions_total", {"game": "scopa"}),
             ("arena_faults_total", {"reason": "OOM"}),
             ("arena_strikes_total", {"kind": "stale"}),
             ("arena_lease_expiries_total", {}),
             ("arena_container_starts_total", {"result": "failed"}),
             ("arena_build_seconds_count", {"result": "ok"}),
             ("arena_build_seconds_bucket", {"result": "ok", "le": "5.0"})]
    before = [sample(name, **labels) for name, labels in names]
    count_match("scopa", "void", 40, {"OOM": 2}, {"stale": 3})
    count_lease_expiries(2)
    count_lease_expiries(0)
    count_container_start(ok=False)
    observe_build(3.0, ok=True)
    after = [sample(name, **labels) for name, labels in names]
    assert [b - a for a, b in zip(before, after, strict=True)] == [1, 40, 2, 3, 2, 1, 1, 1]


def test_a_match_end_counts_its_decisions_and_forfeits() -> None:
    """A set of two deals between the policies: every action counted once, no fault."""
    game = load_game("briscola", 2)
    result = run_duplicate(game, 7, [PolicySeat("random"), PolicySeat("heuristic")],
                           TimeControl(decision_ms=5000), rotations=2)
    before = sample("arena_decisions_total", game="briscola")
    done = sample("arena_matches_total", game="briscola", result="done")
    match_ended("abc", "friday", result, ["policy:random", "policy:heuristic"], "done", 0.5)
    played = sum(len(record.actions) for record in result.records)
    assert played > 0
    assert sample("arena_decisions_total", game="briscola") - before == played
    assert sample("arena_matches_total", game="briscola", result="done") - done == 1


FIRST_COUNTS_AT_ONCE = """\
import threading
from prometheus_client import REGISTRY
from arena.telemetry.metrics import count_container_start
THREADS = 8
barrier = threading.Barrier(THREADS)
failed = []
def start():
    barrier.wait()
    try:
        count_container_start(ok=True)
    except Exception as error:
        failed.append(repr(error))
threads = [threading.Thread(target=start) for _ in range(THREADS)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(len(failed), REGISTRY.get_sample_value("arena_container_starts_total", {"result": "ok"}))
"""


def test_threads_counting_their_first_event_at_once_all_count() -> None:
    """Eight threads of a fresh process count their first container start at the same moment
    (as the seats of a match do): the metrics are made once, no count fails, all eight add up."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", FIRST_COUNTS_AT_ONCE], capture_output=True,
                          text=True, timeout=60, check=True)
    assert done.stdout.split() == ["0", "8.0"], done.stdout + done.stderr
