"""A sequential probability ratio test on per-set score differences (as fishtest tests engines).

Each duplicate set gives one difference ``x`` (bot A's score minus bot B's). The test weighs
H0: the mean difference is ``delta0`` against H1: it is ``delta1`` (``delta0 < delta1``), with
error rates ``alpha`` (accepting H1 when H0 holds) and ``beta`` (accepting H0 when H1 holds).

The statistic is the generalized log-likelihood ratio of a normal model whose variance is
unknown (fishtest's GSPRT approximation, ``LLR_alt2``): with ``r(s)`` the mean of
``(x - s)**2`` over the ``n`` differences, the variance's maximum-likelihood estimate when the
mean is ``s``,

    LLR = n / 2 * log(r(delta0) / r(delta1)).

Wald's bounds: H0 is accepted once ``LLR <= log(beta / (1 - alpha))``, H1 once
``LLR >= log((1 - beta) / alpha)``. No decision is taken before ``MIN_SETS`` differences (the
variance estimate of a few sets is too rough), and ``r(s)`` never falls below a floor of
``VARIANCE_FLOOR * (delta1 - delta0)**2`` so that a stream without spread (two deterministic
bots) still gives a finite ratio, which leans toward the hypothesis nearer its mean (at
``delta0`` itself it accepts H0 at ``MIN_SETS``).

The mean's interval is Student's t (``scipy.stats.t``); it is the plain interval of the sets
played, not corrected for the test's stopping rule. None is given from fewer sets than a
league's comparisons need (``arena.league.compare.MIN_SETS``) or from differences without
spread; nor is the win rate's interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from scipy import stats

from arena.league.compare import MIN_SETS as INTERVAL_MIN_SETS

MIN_SETS = 10
"""Sets played before the test may decide."""

VARIANCE_FLOOR = 1e-4
"""The least variance the ratio uses, as a share of ``(delta1 - delta0)**2``."""

CONFIDENCE = 0.95
"""The level of the mean difference's interval."""

DEFAULT_ALPHA = 0.05
DEFAULT_BETA = 0.05


class SprtError(ValueError):
    """Bad parameters of a test: error rates or hypotheses that make no test."""


class Decision(StrEnum):
    """What the test concluded."""

    H0 = "H0"
    H1 = "H1"
    INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True)
class Sprt:
    """The hypotheses and error rates of one test."""

    delta0: float = 0.0
    delta1: float = 0.2
    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA

    def __post_init__(self) -> None:
        """Refuse error rates outside (0, 0.5) and hypotheses that are inverted or negative."""
        for name, rate in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < rate < 0.5 or not math.isfinite(rate):
                raise SprtError(f"--{name} must lie between 0 and 0.5 (an error rate), "
                                f"got {rate:g}")
        for name, delta in (("delta0", self.delta0), ("delta1", self.delta1)):
            if not math.isfinite(delta):
                raise SprtError(f"--{name} must be a finite number, got {delta}")
        if self.delta1 <= 0:
            raise SprtError(f"--delta1 must be a positive margin (the difference H1 expects), "
                            f"got {self.delta1:g}")
        if self.delta1 <= self.delta0:
            raise SprtError(f"inverted SPRT bounds: --delta1 ({self.delta1:g}) must be greater "
                            f"than --delta0 ({self.delta0:g})")

    @property
    def lower_bound(self) -> float:
        """The LLR at or below which H0 is accepted: ``log(beta / (1 - alpha))``."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper_bound(self) -> float:
        """The LLR at or above which H1 is accepted: ``log((1 - beta) / alpha)``."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, values: Sequence[float]) -> float:
        """The log-likelihood ratio of H1 against H0 after ``values`` (0 without any)."""
        x = np.asarray(values, dtype=float)
        if x.size == 0:
            return 0.0
        floor = VARIANCE_FLOOR * (self.delta1 - self.delta0) ** 2
        variance = max(float(x.var()), floor)
        mean = float(x.mean())
        r0 = variance + (mean - self.delta0) ** 2
        r1 = variance + (mean - self.delta1) ** 2
        return x.size / 2 * math.log(r0 / r1)

    def llr_path(self, values: Sequence[float]) -> np.ndarray:
        """The LLR after each of ``values`` in turn (``llr`` of every prefix, at once)."""
        x = np.asarray(values, dtype=float)
        n = np.arange(1, x.size + 1)
        mean = np.cumsum(x) / n
        variance = np.maximum(np.cumsum(x * x) / n - mean * mean,
                              VARIANCE_FLOOR * (self.delta1 - self.delta0) ** 2)
        r0 = variance + (mean - self.delta0) ** 2
        r1 = variance + (mean - self.delta1) ** 2
        path: np.ndarray = n / 2 * np.log(r0 / r1)
        return path

    def first_decision(self, values: Sequence[float], min_sets: int = MIN_SETS
                       ) -> tuple[Decision, int]:
        """The decision a test playing ``values`` one by one stops at, and the values it took
        (all of them when it stays inconclusive)."""
        path = self.llr_path(values)
        index = np.arange(1, path.size + 1)
        crossed = np.flatnonzero((index >= min_sets)
                                 & ((path >= self.upper_bound) | (path <= self.lower_bound)))
        if crossed.size == 0:
            return Decision.INCONCLUSIVE, len(values)
        first = int(crossed[0])
        return (Decision.H1 if path[first] >= self.upper_bound else Decision.H0), first + 1

    def decide(self, values: Sequence[float], min_sets: int = MIN_SETS) -> Decision:
        """H0 or H1 once the LLR leaves its bounds (after ``min_sets``), else inconclusive."""
        if len(values) < min_sets:
            return Decision.INCONCLUSIVE
        llr = self.llr(values)
        if llr >= self.upper_bound:
            return Decision.H1
        if llr <= self.lower_bound:
            return Decision.H0
        return Decision.INCONCLUSIVE


@dataclass(frozen=True)
class MeanDifference:
    """The mean of the differences with its t interval (None: fewer than 2, or no spread)."""

    n: int
    mean: float
    ci_low: float | None
    ci_high: float | None


def mean_difference(values: Sequence[float], confidence: float = CONFIDENCE) -> MeanDifference:
    """The mean of ``values`` and its Student t interval (from ``INTERVAL_MIN_SETS`` on)."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return MeanDifference(0, 0.0, None, None)
    mean = float(x.mean())
    if x.size < INTERVAL_MIN_SETS or float(x.std(ddof=1)) == 0:
        return MeanDifference(int(x.size), mean, None, None)
    low, high = stats.t.interval(confidence, x.size - 1, loc=mean, scale=stats.sem(x))
    return MeanDifference(int(x.size), mean, float(low), float(high))


def win_share(values: Sequence[float]) -> float:
    """The share of the sets in which A outscored B, a tie (to 9 decimals) counting half."""
    if not values:
        return 0.0
    rounded = [round(value, 9) for value in values]
    return (sum(value > 0 for value in rounded) + sum(value == 0 for value in rounded) / 2) \
        / len(rounded)


def win_share_interval(values: Sequence[float], confidence: float = CONFIDENCE
                       ) -> tuple[float, float] | None:
    """The Wilson interval of ``win_share`` (``statsmodels``); None from fewer than
    ``INTERVAL_MIN_SETS`` sets."""
    if len(values) < INTERVAL_MIN_SETS:
        return None
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(win_share(values) * len(values), len(values),
                                   alpha=1 - confidence, method="wilson")
    return float(low), float(high)
