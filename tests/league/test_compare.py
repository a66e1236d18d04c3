"""Comparisons: t intervals over duplicate sets, Wilson win rates, head to head, decision times."""

from dataclasses import replace

import pytest

from arena.agents.seats import PolicySeat
from arena.games import load_game
from arena.league.compare import (
    SetScore,
    bot_decision_times,
    bot_summaries,
    compare_pairs,
    decision_seats,
    head_to_head,
    percentile,
    result_deals,
    set_score,
    t_interval,
    t_quantile,
    time_stats,
    wilson_interval,
)
from arena.league.schedule import schedule_game
from arena.match.runner import run_duplicate


def sets(game: str, bots: tuple[str, ...], rows: list[tuple[float, ...]]) -> list[SetScore[str]]:
    """One set per row of entrant means."""
    return [SetScore(game, bots, row) for row in rows]


@pytest.mark.parametrize(("df", "expected"), [(1, 12.7062047), (2, 4.3026527), (9, 2.2621572),
                                              (30, 2.0422725), (10_000, 1.9602012)])
def test_t_quantiles_match_the_tables(df: int, expected: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-6)


def test_wilson_interval_known_values() -> None:
    interval = wilson_interval(7, 10)
    assert (interval.low, interval.high) == pytest.approx((0.3967781, 0.8922087), abs=1e-6)
    assert wilson_interval(0, 20).low == 0.0 and wilson_interval(20, 20).high == 1.0
    assert wilson_interval(0, 0).to_list() == [0.0, 1.0]


def test_t_interval_is_mean_plus_minus_t_times_standard_error() -> None:
    interval = t_interval([1.0, 2.0, 3.0, 4.0])
    half = t_quantile(0.975, 3) * (5 / 3 / 4) ** 0.5
    assert (interval.low, interval.high) == pytest.approx((2.5 - half, 2.5 + half))
    assert t_interval([1.0]) is None


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
    assert a_b.to_dict()["difference_ci"] is None


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
    assert summaries["misere", "a"].return_ci.low == summaries["misere", "a"].return_ci.high
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
    for match in schedule_game("briscola", list(policies), 2, deals=4, rounds=2, seed=1):
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
