"""The garbage collector of a long-running arena loop: set up once, then out of the way.

A worker's event loop plays decision after decision, each allocating a few hundred short-lived
objects (futures, handles, tuples), while the objects that live for the whole run (modules,
games, caches, bot agents, gRPC channels) stay put. With Python's defaults a young-generation
collection runs every 700 net allocations, about twice a decision, and the older generations
are walked through every long-lived object again and again. ``settle_heap`` collects once,
moves every object alive then into the collector's permanent generation (``gc.freeze``: never
scanned again, never freed while frozen, which is what a run's set-up objects are anyway), and
lets the young generation grow to ``YOUNG_THRESHOLD`` objects before it is collected. Garbage
made later is collected as before (reference counting frees most of it at once; the collector
finds the cycles), only less often. A frozen object that later becomes garbage is still freed
by reference counting; only a cycle of frozen objects would stay.

Measured with 16 matches of 5-seat briscola chiamata at once (``arena bench protocol``): about
a tenth less CPU time in the arena's thread per decision (docs/protocol.md, "Arena cost per
decision").
"""

from __future__ import annotations

import gc
from typing import Final

YOUNG_THRESHOLD: Final = 10_000
"""Net allocations between two young-generation collections (Python's default is 700)."""


def settle_heap() -> None:
    """Collect, freeze what is alive, and collect the young generation less often; once a
    long-running loop has set up (calling it again freezes what has been made since)."""
    gc.collect()
    gc.freeze()
    young, middle, old = gc.get_threshold()
    gc.set_threshold(max(young, YOUNG_THRESHOLD), middle, old)
