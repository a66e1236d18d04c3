"""Comparisons: t intervals over duplicate sets, Wilson win rates, Holm-corrected tests, head to
head, decision times."""

from dataclasses import replace

import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from arena.agents.seats import PolicySeat
from arena.games import load_game
from arena.league.compare import (
    MIN_SETS,
    SetScore,
    adjust_p_values,
    bot_decision_times,
    bot_summaries,
    check_correction,
    compare_pairs,
    correct,
    decision_seats,
    family_size,
    head_to_head,
    mean_test,
    pair_comparison,
    percentile,
    result_deals,
    set_score,
    t_interval,
    time_stats,
    wilson_interval,
)
from arena.league.schedule import schedule_game
from arena.match.runner import run_duplicate


def sets(game: str, bots: tuple[str, ...], rows: list[tuple[float, ...]]) -> list[SetScore[str]]:
    """One set per row of entrant means."""
    return [SetScore(game, bots, row) for row in rows]


KNOWN = [0.8, -0.3, 1.9, 0.4, 1.1, -0.6, 2.2, 0.9]
"""Known per-set differences: mean 0.8, sample deviation 0.9885..."""


def test_t_interval_and_p_value_match_scipy_on_known_data() -> None:
    test = mean_test(KNOWN)
    reference = stats.ttest_1samp(KNOWN, 0.0)
    low, high = reference.confidence_interval(confidence_level=0.95)
    assert (test.interval.low, test.interval.high) == pytest.approx((low, high), abs=1e-12)
    assert test.p_value == pytest.approx(reference.pvalue, abs=1e-12)
    half = 2.3646243 * stats.tstd(KNOWN) / len(KNOWN) ** 0.5
    assert (test.interval.low, test.interval.high) == pytest.approx((0.8 - half, 0.8 + half),
                                                                    abs=1e-6)
    assert t_interval(KNOWN) == test.interval and test.not_enough_data == ""


def test_wilson_interval_known_values() -> None:
    interval = wilson_interval(7, 10)
    assert (interval.low, interval.high) == pytest.approx((0.3967781, 0.8922087), abs=1e-6)
    assert wilson_interval(0, 20).low == 0.0 and wilson_interval(20, 20).high == 1.0
    assert wilson_interval(3, MIN_SETS - 1) is None and wilson_interval(0, 0) is None


def test_zero_variance_over_three_sets_is_not_significant() -> None:
    a_b = compare_pairs(sets("g", ("a", "b"), [(1.0, -1.0)] * 3))["g", "a", "b"]
    assert a_b.mean_difference == 2.0 and a_b.wins == 3
    assert a_b.difference_ci is None and a_b.p_value is None and not a_b.significant
    assert a_b.not_enough_data == f"fewer than {MIN_SETS} sets"
    assert a_b.win_ci is None


def test_zero_variance_over_many_sets_gives_no_interval() -> None:
    a_b = compare_pairs(sets("g", ("a", "b"), [(1.0, -1.0)] * 12))["g", "a", "b"]
    assert a_b.difference_ci is None and not a_b.significant and not a_b.tested
    assert a_b.not_enough_data == "no variance"
    assert a_b.to_dict()["not_enough_data"] == "no variance"
    assert a_b.win_ci is not None and a_b.win_ci.low > 0.5


def test_too_few_sets_give_no_interval_even_when_they_vary() -> None:
    test = mean_test([3.0, 1.0, 2.0, 5.0])
    assert test.interval is None and test.p_value is None
    assert test.not_enough_data == f"fewer than {MIN_SETS} sets"
    assert mean_test([3.0, 1.0, 2.0, 5.0, 4.0]).interval is not None


def test_holm_over_a_family_changes_a_borderline_verdict() -> None:
    borderline = [0.9, -0.2, 1.4, 0.3, 1.1, -0.4, 1.2, 0.6]
    alone = pair_comparison("g", "a", "b", borderline)
    assert 0.01 < alone.p_value < 0.05 and alone.significant
    rows = [(x, -x, 0.0) for x in borderline]
    null = [0.5, -0.7, 0.2, -0.1, 0.6, -0.4, 0.3, -0.5]
    scores = sets("g", ("a", "b", "c"), rows) + sets("h", ("a", "b"),
                                                     [(x, -x) for x in null])
    pairs = compare_pairs(scores)
    a_b = pairs["g", "a", "b"]
    assert a_b.p_value == pytest.approx(alone.p_value) and a_b.correction == "holm"
    family = [pair.p_value for key, pair in pairs.items() if key[1] < key[2]]
    assert family_size(pairs.values()) == len(family) == 4
    _, expected, _, _ = multipletests(family, method="holm")
    assert sorted(pair.adjusted_p for key, pair in pairs.items() if key[1] < key[2]) == \
        pytest.approx(sorted(expected))
    assert a_b.adjusted_p > 0.05 and not a_b.significant
    assert pairs["g", "b", "a"].adjusted_p == a_b.adjusted_p
    unadjusted = correct(pairs, "none")["g", "a", "b"]
    assert unadjusted.adjusted_p == unadjusted.p_value and unadjusted.significant


def test_unknown_corrections_are_one_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown multiple-comparison correction 'holmes'"):
        check_correction("holmes")
    assert adjust_p_values([0.01, 0.04], "bonferroni") == pytest.approx([0.02, 0.08])


def test_a_bot_that_always_wins_is_significantly_better() -> None:
    scores = sets("briscola", ("a", "b"), [(1.0, -1.0)] * 6 + [(2.0, -2.0)] * 4)
    pairs = compare_pairs(scores)
    a_b = pairs["briscola", "a", "b"]
    assert a_b.sets == 10 and a_b.wins == 10 and a_b.win_rate == 1.0
    assert a_b.mean_difference == pytest.approx(2.8)
    assert a_b.significant and a_b.difference_ci.low > 0
    assert a_b.win_ci.low > 0.5
    b_a = pairs["briscola", "b", "a"]
    assert b_a.mean_difference == pytest.approx(-2.8) and b_a.significant
    assert b_a.difference_ci.high < 0 and b_a.losses == 10


def test_symmetric_results_give_an_interval_covering_zero() -> None:
    scores = sets("scopa", ("a", "b"), [(1.0, -1.0), (-1.0, 1.0)] * 5 + [(0.0, 0.0)] * 2)
    a_b = compare_pairs(scores)["scopa", "a", "b"]
    assert a_b.mean_difference == pytest.approx(0.0)
    assert a_b.difference_ci.low < 0 < a_b.difference_ci.high
    assert not a_b.significant
    assert a_b.win_rate == pytest.approx(0.5) and a_b.ties == 2
    assert a_b.win_ci.low < 0.5 < a_b.win_ci.high


def test_one_set_gives_no_interval_and_no_significance() -> None:
    a_b = compare_pairs(sets("g", ("a", "b"), [(3.0, -3.0)]))["g", "a", "b"]
    assert a_b.difference_ci is None and not a_b.significant
    assert a_b.to_dict()["difference_ci"] is None and a_b.to_dict()["win_ci"] is None


def test_copies_of_a_bot_are_averaged_and_the_matrix_is_antisymmetric() -> None:
    score = SetScore("misere", ("a", "b", "a", "c"), (3.0, 1.0, 1.0, -5.0))
    assert score.bot_scores() == {"a": 2.0, "b": 1.0, "c": -5.0}
    rows = [score, SetScore("misere", ("a", "b", "a", "c"), (1.0, 0.0, 1.0, -2.0))]
    pairs = compare_pairs(rows)
    matrix = head_to_head(pairs, "misere", ["a", "b", "c"])
    assert matrix[0][0] is None and matrix[1][1] is None
    for i in range(3):
        for j in range(3):
            if i != j:
                assert matrix[i][j].mean_difference == pytest.approx(
                    -matrix[j][i].mean_difference)
                assert matrix[i][j].win_rate == pytest.approx(1 - matrix[j][i].win_rate)
    assert matrix[0][2].mean_difference == pytest.approx(((2 + 5) + (1 + 2)) / 2)


def test_bot_summaries_pool_the_share_of_opponents_beaten() -> None:
    rows = sets("misere", ("a", "b", "c"), [(2.0, 0.0, -2.0), (2.0, -2.0, 0.0)])
    summaries = bot_summaries(rows)
    assert summaries["misere", "a"].win_rate == 1.0
    assert summaries["misere", "b"].win_rate == pytest.approx(0.25)
    assert summaries["misere", "a"].mean_return == 2.0
    assert summaries["misere", "a"].return_ci is None
    assert summaries["misere", "a"].win_ci is None
    assert summaries["misere", "b"].to_dict()["sets"] == 2


def test_percentiles_interpolate() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == pytest.approx(50.5)
    assert percentile(values, 0.95) == pytest.approx(95.05)
    assert percentile([7.0], 0.95) == 7.0
    stats = time_stats({"a": [5, 1, 3], "b": []})
    assert set(stats) == {"a"}
    assert (stats["a"].p50_us, stats["a"].max_us, stats["a"].decisions) == (3.0, 5.0, 3)


def test_a_scheduled_league_finds_the_stronger_policy_significantly_better() -> None:
    game = load_game("briscola", 2, {})
    policies = {"h1": "heuristic", "h2": "heuristic", "r": "random"}
    scores = []
    for match in schedule_game("briscola", list(policies), 2, deals=8, rounds=2, seed=1):
        seats = [PolicySeat(policies[bot]) for bot in match.seats]
        score = set_score(match.seats, run_duplicate(game, match.seed, seats,
                                                     rotations=match.rotations))
        assert score is not None
        scores.append(score)
    pairs = compare_pairs(scores)
    for strong in ("h1", "h2"):
        assert pairs["briscola", strong, "r"].significant
        assert pairs["briscola", strong, "r"].mean_difference > 0
    assert not pairs["briscola", "h1", "h2"].significant


def test_real_sets_give_scores_and_decision_times_per_bot() -> None:
    game = load_game("briscola", 2, {})
    result = run_duplicate(game, 4, [PolicySeat("heuristic"), PolicySeat("random")])
    score = set_score(["h", "r"], result)
    assert score is not None and score.bots == ("h", "r") and score.game == "briscola"
    assert set_score(["h", "r"], result, "briscola-2").game == "briscola-2"
    void = replace(result, deals=(replace(result.deals[0], void="arena failure"),
                                  result.deals[1]))
    assert set_score(["h", "r"], void) is None
    assert score.means == tuple(entrant.mean for entrant in result.entrants)
    deals = result_deals(["h", "r"], result)
    assert [seat_bots for seat_bots, _ in deals] == [("h", "r"), ("r", "h")]
    times = bot_decision_times(deals)
    expected = {"h": 0, "r": 0}
    for seat_bots, record in deals:
        seats = decision_seats(record)
        assert len(seats) == len(record.actions)
        for seat in seats:
            expected[seat_bots[seat]] += 1
    assert {bot: len(values) for bot, values in times.items()} == expected
    stats = time_stats(times)
    assert set(stats) == {"h", "r"}
    for bot_stats in stats.values():
        assert bot_stats.p50_us <= bot_stats.p95_us <= bot_stats.max_us
