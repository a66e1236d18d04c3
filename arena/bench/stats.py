"""Small statistics for benchmark reports: percentiles, Student's t quantiles, mean intervals.

Only the standard library is used (no SciPy). The t quantile integrates the density with
Simpson's rule and refines it with Newton steps from the normal quantile, which lies below it,
so the steps approach the root from one side; it agrees with tables to about 1e-6.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

SIMPSON_STEPS = 2000
"""Intervals of the numerical integration of the t density (an even number)."""

NEWTON_STEPS = 50
NEWTON_TOLERANCE = 1e-12


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0..100), linear between the closest ranks (as NumPy's default)."""
    if not values:
        raise ValueError("percentile of no values")
    if not 0 <= q <= 100:
        raise ValueError(f"percentile must be within 0..100, got {q}")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    fraction = position - low
    return ordered[low] + (ordered[high] - ordered[low]) * fraction


def _t_density(x: float, df: float) -> float:
    """The density of Student's t distribution with ``df`` degrees of freedom at ``x``."""
    log_norm = (math.lgamma((df + 1) / 2) - math.lgamma(df / 2)
                - 0.5 * math.log(df * math.pi))
    return math.exp(log_norm - (df + 1) / 2 * math.log1p(x * x / df))


def _t_mass(x: float, df: float) -> float:
    """The probability of a t variable lying between 0 and ``x`` (Simpson's rule)."""
    step = x / SIMPSON_STEPS
    total = _t_density(0.0, df) + _t_density(x, df)
    for index in range(1, SIMPSON_STEPS):
        total += (4 if index % 2 else 2) * _t_density(index * step, df)
    return total * step / 3


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile (0.5 < p < 1) of Student's t with ``df`` >= 1 degrees of freedom."""
    if not 0.5 < p < 1:
        raise ValueError(f"t_quantile needs 0.5 < p < 1, got {p}")
    if df < 1:
        raise ValueError(f"t_quantile needs at least 1 degree of freedom, got {df}")
    x = NormalDist().inv_cdf(p)
    target = p - 0.5
    for _ in range(NEWTON_STEPS):
        step = (target - _t_mass(x, df)) / _t_density(x, df)
        x += step
        if abs(step) < NEWTON_TOLERANCE * max(1.0, x):
            break
    return x


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
    half = t_quantile(0.5 + level / 2, n - 1) * se
    return MeanInterval(n, mean, sd, se, mean - half, mean + half, level)


def goal_mark(ok: bool | None) -> str:
    """A green tick for a goal met, a red cross for one missed, a dash when not measured."""
    if ok is None:
        return "–"
    return "[green]✓[/green]" if ok else "[red]✗[/red]"
