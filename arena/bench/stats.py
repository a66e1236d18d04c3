"""Small statistics for benchmark reports: percentiles and mean intervals (NumPy and SciPy)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0..100), linear between the closest ranks (``numpy.percentile``)."""
    if not values:
        raise ValueError("percentile of no values")
    if not 0 <= q <= 100:
        raise ValueError(f"percentile must be within 0..100, got {q}")
    return float(np.percentile(np.asarray(values, dtype=float), q))


@dataclass(frozen=True)
class MeanInterval:
    """A sample mean with its standard error and a two-sided t confidence interval."""

    n: int
    mean: float
    sd: float
    """The sample standard deviation (n - 1 in the denominator); 0 for one value."""
    se: float
    low: float | None
    """None when one value gives no interval."""
    high: float | None
    level: float

    @property
    def excludes_zero(self) -> bool:
        """True when the whole interval lies on one side of zero."""
        return self.low is not None and self.high is not None and (
            self.low > 0 or self.high < 0)


def mean_interval(values: Sequence[float], level: float = 0.95) -> MeanInterval:
    """The mean of ``values`` and its ``level`` confidence interval (Student's t)."""
    n = len(values)
    if n == 0:
        raise ValueError("mean_interval of no values")
    if not 0 < level < 1:
        raise ValueError(f"confidence level must be within 0..1, got {level}")
    mean = math.fsum(values) / n
    if n == 1:
        return MeanInterval(1, mean, 0.0, 0.0, None, None, level)
    sd = math.sqrt(math.fsum((value - mean) ** 2 for value in values) / (n - 1))
    se = sd / math.sqrt(n)
    from scipy import stats  # imported when first needed: it takes most of a second

    half = float(stats.t.ppf(0.5 + level / 2, n - 1)) * se
    return MeanInterval(n, mean, sd, se, mean - half, mean + half, level)


def goal_mark(ok: bool | None) -> str:
    """A green tick for a goal met, a red cross for one missed, a dash when not measured."""
    if ok is None:
        return "–"
    return "[green]✓[/green]" if ok else "[red]✗[/red]"
