"""Ratings: contests from duplicate sets, OpenSkill updates, chiamata's sides, the overall table."""

import math
from dataclasses import replace
from typing import Any, cast

import pytest

from arena.agents import AgentExit
from arena.agents.seats import PolicySeat
from arena.games import Game, load_game
from arena.league.ratings import (
    Outcome,
    Rating,
    game_ratings,
    hand_outcomes,
    hand_sides,
    leaderboard,
    overall,
    ranks_from_scores,
    rate,
    rotation_keeps_teams,
    set_outcomes,
)
from arena.league.schedule import schedule_game
from arena.match.local import play_local
from arena.match.results import DealResult, DuplicateResult, EntrantResult
from arena.match.runner import run_duplicate
from arena.reasons import Reason

PRIOR_MU, PRIOR_SIGMA = 25.0, 25 / 3


def synthetic_set(game: str, seat_returns: list[list[float]], seed: int = 1) -> DuplicateResult:
    """A duplicate set whose rotation ``r`` ended with ``seat_returns[r]`` (seat order)."""
    players = len(seat_returns[0])
    deals = []
    for rotation, returns in enumerate(seat_returns):
        entrants = tuple((seat - rotation) % players for seat in range(players))
        deals.append(DealResult(rotation=rotation, entrants=entrants,
                                labels=tuple(f"e{e}" for e in entrants), returns=tuple(returns),
                                reasons=(Reason.OK,) * players, details=("",) * players,
                                forfeited=(False,) * players, faults=(), record=None))
    entrants = tuple(
        EntrantResult(index=e, label=f"e{e}", agent={}, seats=(),
                      returns=tuple(d.returns[d.entrants.index(e)] for d in deals),
                      reasons=(), exit=AgentExit())
        for e in range(players))
    return DuplicateResult(game=game, players=players, params={}, seed=seed,
                           deals=tuple(deals), entrants=entrants)


def test_ranks_from_scores_share_ties() -> None:
    assert ranks_from_scores([3, 1, 3, 0]) == (1.0, 3.0, 1.0, 4.0)
    assert ranks_from_scores([0.1 + 0.2, 0.3]) == (1.0, 1.0)


def test_a_bot_that_always_wins_one_against_one_rates_higher_symmetrically() -> None:
    game = load_game("briscola", 2, {})
    outcomes = [o for _ in range(20)
                for o in set_outcomes(game, ["strong", "weak"], synthetic_set(
                    "briscola", [[1, -1], [-1, 1]]))]
    assert all(o.sides == (("strong",), ("weak",)) and o.ranks == (1.0, 2.0) for o in outcomes)
    table = rate(outcomes)
    strong, weak = table["strong"], table["weak"]
    assert strong.mu > PRIOR_MU > weak.mu
    assert math.isclose(strong.mu - PRIOR_MU, PRIOR_MU - weak.mu, rel_tol=1e-9)
    assert strong.sigma < PRIOR_SIGMA and strong.contests == 20
    assert [r.bot for r in leaderboard(table)] == ["strong", "weak"]


def test_a_split_duplicate_set_is_a_draw() -> None:
    game = load_game("briscola", 2, {})
    result = synthetic_set("briscola", [[1, -1], [1, -1]])  # the seat won, not the bot
    outcomes = set_outcomes(game, ["a", "b"], result)
    assert outcomes == [Outcome((("a",), ("b",)), (1.0, 1.0))]
    table = rate(outcomes * 5)
    assert table["a"].mu == pytest.approx(PRIOR_MU) == table["b"].mu
    assert table["a"].sigma < PRIOR_SIGMA


def test_partnerships_rate_teams_and_copies_fill_a_team() -> None:
    game = load_game("briscola", 4, {})
    assert rotation_keeps_teams(game.teams(), 4)
    result = synthetic_set("briscola", [[1, -1, 1, -1], [-1, 1, -1, 1]] * 2)
    outcomes = set_outcomes(game, ["a", "b", "a", "b"], result)
    assert outcomes == [Outcome((("a", "a"), ("b", "b")), (1.0, 2.0))]
    mixed = set_outcomes(game, ["a", "b", "c", "d"], result)
    assert mixed == [Outcome((("a", "c"), ("b", "d")), (1.0, 2.0))]
    table = rate(mixed)
    assert table["a"].mu == table["c"].mu > PRIOR_MU > table["b"].mu == table["d"].mu


def test_layouts_that_rotation_breaks_are_rated_deal_by_deal() -> None:
    assert not rotation_keeps_teams(((0, 1), (2, 3)), 4)
    briscola = load_game("briscola", 4, {})

    class Neighbours:
        """Briscola with neighbours as partners (the game classes may be compiled, so this
        wraps one rather than subclassing it)."""

        def __getattr__(self, name: str) -> Any:
            """Everything else as in Briscola."""
            return getattr(briscola, name)

        def teams(self) -> tuple[tuple[int, ...], ...]:
            """Seats 0+1 against 2+3."""
            return ((0, 1), (2, 3))

    game = cast(Game, Neighbours())
    result = synthetic_set("briscola", [[1, 1, -1, -1], [-1, -1, 1, 1]])
    outcomes = set_outcomes(game, ["a", "b", "c", "d"], result)
    assert outcomes == [Outcome((("a", "b"), ("c", "d")), (1.0, 2.0)),
                        Outcome((("d", "a"), ("b", "c")), (2.0, 1.0))]


def test_game_ratings_rate_played_sets_in_the_order_given() -> None:
    game = load_game("scopa", 2, {})
    won = synthetic_set("scopa", [[1, -1], [-1, 1]])
    table = game_ratings(game, [(["a", "b"], won), (["b", "c"], won)], bots=["z"])
    assert table["a"].mu > PRIOR_MU and table["c"].mu < PRIOR_MU
    assert table["z"] == Rating("z", PRIOR_MU, PRIOR_SIGMA, 0)


def test_multi_player_rankings_follow_the_totals() -> None:
    game = load_game("misere", 4, {})
    result = synthetic_set("misere", [[3, 1, -1, -3], [-3, 3, 1, -1], [-1, -3, 3, 1],
                                      [1, -1, -3, 3]])
    outcome, = set_outcomes(game, ["w", "x", "y", "z"], result)
    assert outcome.ranks == (1.0, 2.0, 3.0, 4.0)
    table = rate([outcome] * 10)
    assert [r.bot for r in leaderboard(table)] == ["w", "x", "y", "z"]


def test_a_bot_on_both_sides_moves_by_the_mean_of_its_copies() -> None:
    table = rate([Outcome((("a",), ("b",), ("a",)), (1.0, 2.0, 3.0))])
    single = rate([Outcome((("a",), ("b",), ("c",)), (1.0, 2.0, 3.0))])
    expected = PRIOR_MU + ((single["a"].mu - PRIOR_MU) + (single["c"].mu - PRIOR_MU)) / 2
    assert table["a"].mu == pytest.approx(expected)
    assert table["a"].contests == 1
    assert rate([Outcome((("a",), ("a",)), (1.0, 2.0))]) == {}


@pytest.mark.parametrize("caller_side", [("a",), ("a", "b")])
def test_a_smaller_side_is_not_expected_to_lose_for_its_size(caller_side: tuple[str, ...]
                                                             ) -> None:
    defenders = tuple(bot for bot in "bcde" if bot not in caller_side)
    won = rate([Outcome((caller_side, defenders), (1.0, 2.0))])
    lost = rate([Outcome((caller_side, defenders), (2.0, 1.0))])
    gain, loss = won["a"].mu - PRIOR_MU, PRIOR_MU - lost["a"].mu
    assert gain > 0 and gain == pytest.approx(loss)
    assert PRIOR_MU - won["e"].mu == pytest.approx(gain)


def test_void_sets_give_no_contest() -> None:
    game = load_game("briscola", 2, {})
    result = synthetic_set("briscola", [[1, -1], [-1, 1]])
    void = replace(result, deals=(replace(result.deals[0], void="arena failure"),
                                  result.deals[1]))
    assert set_outcomes(game, ["a", "b"], void) == []


def test_chiamata_sides_come_from_the_engine_per_hand() -> None:
    game = load_game("briscola-chiamata", 5, {"hands": 4})
    record = play_local(game, 21, ["heuristic"] * 5)
    sides = hand_sides(record)
    assert len(sides) == 4
    totals = [sum(hand.scores[seat] for hand in sides) for seat in range(5)]
    assert totals == pytest.approx(list(record.returns))
    for hand in sides:
        assert sorted(hand.callers_side + hand.defenders) == list(range(5))
        caller_points = hand.scores[hand.caller]
        assert (caller_points > 0) == hand.caller_won or caller_points == 0
    outcomes = hand_outcomes(record, ["p", "q", "r", "s", "t"])
    assert len(outcomes) == 4
    for hand, outcome in zip(sides, outcomes, strict=True):
        assert len(outcome.sides[0]) == len(hand.callers_side)
        assert outcome.ranks == ((1.0, 2.0) if hand.caller_won else (2.0, 1.0))


def test_chiamata_sets_rate_every_hand_of_every_rotation() -> None:
    game = load_game("briscola-chiamata", 5, {"hands": 2})
    seats = [PolicySeat("heuristic"), PolicySeat("random")] * 2 + [PolicySeat("heuristic")]
    result = run_duplicate(game, 8, seats)
    outcomes = set_outcomes(game, ["h", "r", "h", "r", "h"], result)
    assert len(outcomes) == sum(len(hand_sides(deal.record)) for deal in result.deals)
    assert all(outcome.bots <= {"h", "r"} for outcome in outcomes)


def test_a_stronger_policy_rates_higher_over_real_duplicate_sets() -> None:
    game = load_game("briscola", 2, {})
    outcomes = []
    for seed in range(12):
        result = run_duplicate(game, seed, [PolicySeat("heuristic"), PolicySeat("random")])
        outcomes.extend(set_outcomes(game, ["heuristic", "random"], result))
    table = rate(outcomes)
    assert table["heuristic"].mu > table["random"].mu


def test_a_stronger_policy_rates_higher_in_chiamata_with_copies_at_the_table() -> None:
    game = load_game("briscola-chiamata", 5, {})
    policies = {"h1": "heuristic", "h2": "heuristic", "r": "random"}
    played = []
    for match in schedule_game("briscola-chiamata", list(policies), 5, deals=4, rounds=2,
                               seed=1):
        seats = [PolicySeat(policies[bot]) for bot in match.seats]
        played.append((match.seats, run_duplicate(game, match.seed, seats,
                                                  rotations=match.rotations)))
    order = [rating.bot for rating in leaderboard(game_ratings(game, played))]
    assert order[-1] == "r"


def test_overall_is_the_mean_of_the_games_with_the_prior_where_missing() -> None:
    per_game = {"briscola": {"a": Rating("a", 30.0, 2.0, 5), "b": Rating("b", 20.0, 2.0, 5)},
                "scopa": {"a": Rating("a", 26.0, 4.0, 3)}}
    table = overall(per_game)
    assert table["a"].mu == pytest.approx(28.0)
    assert table["a"].sigma == pytest.approx(math.sqrt(4 + 16) / 2)
    assert table["b"].mu == pytest.approx((20.0 + PRIOR_MU) / 2)
    assert table["b"].sigma == pytest.approx(math.sqrt(4 + PRIOR_SIGMA ** 2) / 2)
    assert table["a"].contests == 8
    assert leaderboard(table)[0].bot == "a"
    assert table["a"].conservative == pytest.approx(table["a"].mu - 3 * table["a"].sigma)
