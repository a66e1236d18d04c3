"""A long-running arena's collector: set-up objects frozen, young garbage collected less
often, cycles made later still collected (in a process of its own, so no other test's
collector is changed)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from arena.agents.heap import YOUNG_THRESHOLD

CHECK = textwrap.dedent("""
    import gc, json, weakref
    from arena.agents.heap import settle_heap
    before = gc.get_threshold()
    settle_heap()
    frozen = gc.get_freeze_count()

    class Node:
        pass

    a, b = Node(), Node()
    a.other, b.other = b, a
    alive = weakref.ref(a)
    del a, b
    gc.collect()
    print(json.dumps({"before": before, "after": gc.get_threshold(), "frozen": frozen,
                      "cycle_freed": alive() is None}))
""")

WORKER = textwrap.dedent("""
    import gc, json
    from arena.league.run_match import worker_pool
    before = gc.get_freeze_count()
    worker_pool()
    print(json.dumps({"before": before, "after": gc.get_freeze_count(),
                      "young": gc.get_threshold()[0]}))
""")


def _run(code: str) -> dict[str, object]:
    """Run ``code`` in a fresh interpreter; the JSON it prints."""
    import json

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_settling_freezes_what_is_alive_and_still_collects_later_cycles() -> None:
    """Objects alive at settling are frozen; a cycle made afterwards is freed by a collection;
    the young generation's threshold is raised, the older ones kept."""
    seen = _run(CHECK)
    assert seen["frozen"] > 1000  # the interpreter's and the arena's set-up objects
    assert seen["cycle_freed"] is True
    before, after = seen["before"], seen["after"]
    assert isinstance(before, list) and isinstance(after, list)
    assert after[0] == max(before[0], YOUNG_THRESHOLD) > before[0]
    assert after[1:] == before[1:]


def test_a_worker_settles_its_heap_when_it_makes_its_pool() -> None:
    """The worker pool of a league process (local pool or Celery) is made after settling."""
    seen = _run(WORKER)
    assert seen["before"] == 0
    assert isinstance(seen["after"], int) and seen["after"] > 0
    assert seen["young"] == YOUNG_THRESHOLD
