"""The sequential test on synthetic streams with a known answer: its error rates, its bounds,
streams without spread, and the mean's interval."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena.league.sprt import (
    MIN_SETS,
    Decision,
    Sprt,
    SprtError,
    mean_difference,
    win_share,
    win_share_interval,
)

RUNS = 1000
"""Simulated tests per hypothesis."""

MAX_SETS = 5000
"""Values per simulated stream (far more than any test here needs)."""


def error_rates(sprt: Sprt, draw_h0, draw_h1, seed: int) -> tuple[float, float, float]:
    """Over ``RUNS`` streams drawn under each hypothesis: the share that accepted H1 under
    H0, the share that accepted H0 under H1, and the share left inconclusive."""
    rng = np.random.default_rng(seed)
    wrong_h1 = wrong_h0 = undecided = 0
    for _ in range(RUNS):
        decision, _ = sprt.first_decision(draw_h0(rng, MAX_SETS))
        wrong_h1 += decision is Decision.H1
        undecided += decision is Decision.INCONCLUSIVE
        decision, _ = sprt.first_decision(draw_h1(rng, MAX_SETS))
        wrong_h0 += decision is Decision.H0
        undecided += decision is Decision.INCONCLUSIVE
    return wrong_h1 / RUNS, wrong_h0 / RUNS, undecided / (2 * RUNS)


def test_normal_stream_errors_close_to_alpha_and_beta() -> None:
    """Normal differences with the mean at delta0, then at delta1: the wrong decisions come at
    about the rates asked for (Wald's bounds err on the safe side, so at most a little over)."""
    sprt = Sprt(delta0=0.0, delta1=0.2, alpha=0.05, beta=0.05)
    alpha, beta, undecided = error_rates(
        sprt, lambda rng, n: rng.normal(0.0, 0.6, n), lambda rng, n: rng.normal(0.2, 0.6, n), 1)
    assert undecided == 0
    assert 0.02 <= alpha <= 0.07
    assert 0.02 <= beta <= 0.07


def test_unequal_rates_follow_their_own_parameters() -> None:
    """alpha 0.02 and beta 0.10: the two kinds of error follow each its own rate."""
    sprt = Sprt(delta0=0.0, delta1=0.5, alpha=0.02, beta=0.10)
    alpha, beta, undecided = error_rates(
        sprt, lambda rng, n: rng.normal(0.0, 1.5, n), lambda rng, n: rng.normal(0.5, 1.5, n), 2)
    assert undecided == 0
    assert alpha <= 0.04
    assert 0.05 <= beta <= 0.13
    assert beta > alpha


def test_discrete_stream_of_duplicate_scores() -> None:
    """Differences that take only the values -2, 0 and 2 (a win-or-lose game in duplicate),
    with means 0 and 0.2: error rates close to 0.05 each."""
    values = np.array([-2.0, 0.0, 2.0])

    def draw(mean: float):
        """Draw -2/0/2 with 40% zeros and the given mean."""
        up = 0.3 + mean / 4
        return lambda rng, n: rng.choice(values, size=n, p=[0.6 - up, 0.4, up])

    alpha, beta, undecided = error_rates(Sprt(0.0, 0.2), draw(0.0), draw(0.2), 3)
    assert undecided == 0
    assert 0.02 <= alpha <= 0.07
    assert 0.02 <= beta <= 0.07


def test_a_clear_edge_decides_fast_and_nothing_before_the_minimum() -> None:
    """A mean far above delta1 accepts H1, never before MIN_SETS values."""
    rng = np.random.default_rng(4)
    sprt = Sprt(0.0, 0.2)
    for _ in range(100):
        decision, used = sprt.first_decision(rng.normal(1.3, 1.0, 200))
        assert decision is Decision.H1
        assert MIN_SETS <= used < 60


def test_llr_path_matches_the_ratio_of_each_prefix() -> None:
    """The vectorized path equals ``llr`` of every prefix; ``decide`` agrees with it."""
    rng = np.random.default_rng(5)
    values = rng.normal(0.1, 1.0, 40)
    sprt = Sprt(-0.1, 0.3, 0.1, 0.05)
    path = sprt.llr_path(values)
    for n in (1, 2, 7, 40):
        assert path[n - 1] == pytest.approx(sprt.llr(values[:n]), rel=1e-9, abs=1e-9)
    decision, used = sprt.first_decision(values)
    assert sprt.decide(list(values[:used])) is decision


def test_llr_is_the_normal_generalized_likelihood_ratio() -> None:
    """n/2 log(r0/r1), r(s) the mean squared distance to s: a hand-worked stream."""
    values = [1.0, 0.0, 2.0, 1.0]
    r0 = sum(v * v for v in values) / 4  # distance to 0: 1.5
    r1 = sum((v - 0.5) ** 2 for v in values) / 4  # distance to 0.5: 0.75
    assert Sprt(0.0, 0.5).llr(values) == pytest.approx(2 * math.log(r0 / r1))
    assert Sprt(0.0, 0.5).llr([]) == 0


def test_bounds_are_wald_s() -> None:
    """log(beta / (1 - alpha)) and log((1 - beta) / alpha)."""
    sprt = Sprt(0.0, 1.0, alpha=0.05, beta=0.1)
    assert sprt.lower_bound == pytest.approx(math.log(0.1 / 0.95))
    assert sprt.upper_bound == pytest.approx(math.log(0.9 / 0.05))


def test_streams_without_spread_decide_at_the_minimum() -> None:
    """Equal differences (two deterministic bots): a finite ratio, toward the hypothesis nearer
    the mean; at delta0 itself, H0 at MIN_SETS."""
    sprt = Sprt(0.0, 0.2)
    assert sprt.first_decision([0.0] * 50) == (Decision.H0, MIN_SETS)
    decision, used = sprt.first_decision([2.0] * 50)
    assert decision is Decision.H1 and used < 50
    assert math.isfinite(sprt.llr([0.0] * 50))
    assert sprt.decide([0.0] * (MIN_SETS - 1)) is Decision.INCONCLUSIVE


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"alpha": -0.05}, "--alpha must lie between 0 and 0.5"),
    ({"beta": 0.0}, "--beta must lie between 0 and 0.5"),
    ({"alpha": 0.7}, "--alpha must lie between 0 and 0.5"),
    ({"delta0": 0.5, "delta1": 0.2}, "inverted SPRT bounds: --delta1 (0.2) must be greater "
                                     "than --delta0 (0.5)"),
    ({"delta0": 0.2, "delta1": 0.2}, "inverted SPRT bounds"),
    ({"delta1": -0.2}, "--delta1 must be a positive margin"),
    ({"delta1": float("nan")}, "--delta1 must be a finite number"),
])
def test_bad_parameters_are_one_clear_line(kwargs: dict[str, float], words: str) -> None:
    """Negative or inverted bounds and error rates outside (0, 0.5) are refused."""
    with pytest.raises(SprtError) as error:
        Sprt(**kwargs)
    assert words in str(error.value)
    assert "\n" not in str(error.value)


def test_a_negative_delta0_is_a_non_inferiority_test() -> None:
    """delta0 below zero with a positive delta1 is a valid test (as fishtest's)."""
    assert Sprt(-0.2, 0.1).lower_bound < 0


def test_mean_interval_is_student_t() -> None:
    """[1, 2, 3, 4, 5]: mean 3, t(0.975, 4) = 2.7764 times sqrt(2.5) / sqrt(5)."""
    result = mean_difference([1.0, 2.0, 3.0, 4.0, 5.0])
    half = 2.776445 * math.sqrt(2.5) / math.sqrt(5)
    assert (result.n, result.mean) == (5, 3.0)
    assert result.ci_low == pytest.approx(3 - half, abs=1e-5)
    assert result.ci_high == pytest.approx(3 + half, abs=1e-5)


def test_no_interval_from_fewer_sets_than_a_comparison_needs() -> None:
    """Four sets with spread: a mean and a win share, but no interval for either."""
    values = [1.0, 2.0, 3.0, -1.0]
    assert mean_difference(values).ci_low is None
    assert mean_difference(values).mean == 1.25
    assert win_share_interval(values) is None


def test_no_interval_from_one_set_or_no_spread() -> None:
    """One value, or values all equal: a mean, no interval."""
    assert mean_difference([1.5]).ci_low is None
    constant = mean_difference([0.0] * 20)
    assert (constant.mean, constant.ci_low, constant.ci_high) == (0.0, None, None)
    assert mean_difference([]).n == 0


def test_win_share_counts_ties_half() -> None:
    """Two wins, a tie and a loss, twice over: 62.5%, inside its Wilson interval."""
    values = [1.0, 0.5, 0.0, -2.0] * 2
    assert win_share(values) == 0.625
    interval = win_share_interval(values)
    assert interval is not None and interval[0] < 0.625 < interval[1]
    assert win_share_interval([]) is None
