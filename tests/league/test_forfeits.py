"""Forfeits under the two policies: the worst return per game, ranks in ratings and results in
comparisons, the faults counted per bot."""

from __future__ import annotations

from typing import Any, cast

import pytest

from arena.agents import AgentExit
from arena.games import Game, load_game
from arena.league.compare import bot_summaries, compare_pairs, set_score
from arena.league.forfeits import (
    ForfeitPolicy,
    deal_faults,
    fault_counts,
    forfeit_policy,
    log_excerpt,
    scored_returns,
    worst_return,
)
from arena.league.ratings import hand_outcomes, hand_sides, set_outcomes
from arena.match.faults import reason_code
from arena.match.local import play_local
from arena.match.results import DealResult, DuplicateResult, EntrantResult

LOSS, STAND = ForfeitPolicy.LOSS, ForfeitPolicy.STAND


def forfeit_set(game: str, seat_returns: list[list[float]],
                seat_reasons: list[list[str]] | None = None) -> DuplicateResult:
    """A set whose rotation ``r`` ended with ``seat_returns[r]`` and ``seat_reasons[r]``."""
    players = len(seat_returns[0])
    reasons = seat_reasons or [["OK"] * players for _ in seat_returns]
    deals = []
    for rotation, (returns, names) in enumerate(zip(seat_returns, reasons, strict=True)):
        entrants = tuple((seat - rotation) % players for seat in range(players))
        deals.append(DealResult(
            rotation=rotation, entrants=entrants, labels=tuple(f"e{e}" for e in entrants),
            returns=tuple(float(value) for value in returns),
            reasons=tuple(reason_code(name) for name in names),
            details=tuple("" if name == "OK" else f"{name.lower()} detail" for name in names),
            forfeited=tuple(name != "OK" for name in names), faults=(), record=None))
    entrants = tuple(EntrantResult(
        index=e, label=f"e{e}", agent={}, seats=(),
        returns=tuple(d.returns[d.entrants.index(e)] for d in deals),
        reasons=tuple(d.reasons[d.entrants.index(e)] for d in deals), exit=AgentExit())
        for e in range(players))
    return DuplicateResult(game=game, players=players, params={}, seed=1, deals=tuple(deals),
                           entrants=entrants)


@pytest.mark.parametrize(("game", "seats", "params", "worst"), [
    ("briscola", 2, {}, -1.0), ("briscola", 3, {}, -2.0), ("briscola", 2, {"hands": 3}, -3.0),
    ("briscola", 4, {}, -1.0), ("briscola-31", 3, {}, -2.0), ("misere", 4, {}, -3.0),
    ("presidente", 6, {}, -5.0), ("tressette", 4, {}, -1.0), ("tressette", 2, {}, -1.0),
    ("tressette-pozzo", 3, {}, -2.0), ("tressette-non-prendere", 3, {}, -2.0),
    ("tressette-toro", 6, {}, -5.0), ("madrasso", 4, {}, -1.0), ("scopa", 3, {}, -1.0),
    ("scopone", 4, {}, -1.0), ("vecchia", 4, {"hands": 2}, -6.0),
    ("briscola-chiamata", 5, {}, -8.0), ("briscola-chiamata", 5, {"bid_multiplier": True},
                                          -40.0),
    ("briscola-chiamata-punti", 6, {"hands": 2}, -20.0),
])
def test_the_worst_return_each_game_allows(game: str, seats: int, params: dict[str, Any],
                                           worst: float) -> None:
    """The numbers docs/league.md gives per game."""
    rules = load_game(game, seats, params)
    deal = forfeit_set(game, [[0.0] * seats]).deals[0]
    assert worst_return(rules, deal) == worst


def test_a_game_the_table_does_not_know_gets_the_deals_lowest_return() -> None:
    """A plugin game: the lowest return any seat had in the deal."""
    briscola = load_game("briscola", 3, {})

    class Plugin:
        """Briscola under another id (a game from a plugin)."""

        id = "plugin-game"

        def __getattr__(self, name: str) -> Any:
            return getattr(briscola, name)

    deal = forfeit_set("plugin-game", [[3.0, -7.0, 4.0]]).deals[0]
    assert worst_return(cast(Game, Plugin()), deal) == -7.0


def test_a_forfeit_takes_the_worst_return_for_the_seat_and_its_side() -> None:
    """Under loss the forfeiting seat's team takes the worst; under stand nothing changes;
    VOID_INFRA is no forfeit."""
    pairs = load_game("briscola", 4, {})
    deal = forfeit_set("briscola", [[1, -1, 1, -1]],
                       [["CRASH", "OK", "OK", "OK"]]).deals[0]
    assert scored_returns(pairs, deal, LOSS) == (-1.0, -1.0, -1.0, -1.0)
    assert scored_returns(pairs, deal, STAND) == (1.0, -1.0, 1.0, -1.0)
    alone = load_game("misere", 4, {})
    deal = forfeit_set("misere", [[3, -1, -1, -1]], [["TIMEOUT", "OK", "OK", "OK"]]).deals[0]
    assert scored_returns(alone, deal, LOSS) == (-3.0, -1.0, -1.0, -1.0)
    void = forfeit_set("misere", [[3, -1, -1, -1]], [["VOID_INFRA", "OK", "OK", "OK"]])
    assert scored_returns(alone, void.deals[0], LOSS) == (3.0, -1.0, -1.0, -1.0)


def ranking_set() -> DuplicateResult:
    """Presidente, four rotations: entrant 0 wins three of them but forfeits the first."""
    returns, reasons = [], []
    for rotation in range(4):
        seat_of_0 = rotation % 4
        row = [-1.0] * 4
        row[seat_of_0] = 3.0
        names = ["OK"] * 4
        if rotation == 0:
            names[seat_of_0] = "CRASH"
        returns.append(row)
        reasons.append(names)
    return forfeit_set("presidente", returns, reasons)


def test_a_forfeiting_bot_ranks_below_every_bot_that_did_not() -> None:
    """Even with the best total, a forfeit ranks last under loss; stand ranks by returns."""
    rules = load_game("presidente", 4, {})
    result = ranking_set()
    [loss] = set_outcomes(rules, ["crash", "a", "b", "c"], result, LOSS)
    assert loss.ranks == (4.0, 1.0, 1.0, 1.0)
    [stand] = set_outcomes(rules, ["crash", "a", "b", "c"], result, STAND)
    assert stand.ranks == (1.0, 2.0, 2.0, 2.0)


def test_a_forfeit_loses_the_set_for_the_seats_team() -> None:
    """Briscola in pairs: the team of the forfeiting seat ranks below, whatever the points."""
    rules = load_game("briscola", 4, {})
    result = forfeit_set("briscola", [[1, -1, 1, -1], [-1, 1, -1, 1]] * 2,
                         [["INVALID", "OK", "OK", "OK"]] + [["OK"] * 4] * 3)
    [loss] = set_outcomes(rules, ["a", "b", "c", "d"], result, LOSS)
    assert loss.sides == (("a", "c"), ("b", "d")) and loss.ranks == (2.0, 1.0)
    [stand] = set_outcomes(rules, ["a", "b", "c", "d"], result, STAND)
    assert stand.ranks == (1.0, 2.0)


def test_a_chiamata_hand_is_lost_by_the_side_holding_the_forfeiting_seat() -> None:
    """Each hand: the side with seat 2 loses, unless both sides hold a forfeiting seat."""
    record = play_local(load_game("briscola-chiamata", 5, {"hands": 4}), 21, ["heuristic"] * 5)
    sides = hand_sides(record)
    lost = [False, False, True, False, False]
    for hand, outcome in zip(sides, hand_outcomes(record, list("pqrst"), lost), strict=True):
        caller_side_lost = 2 in hand.callers_side
        assert outcome.ranks == ((2.0, 1.0) if caller_side_lost else (1.0, 2.0))
    everyone = [True] * 5
    for hand, outcome in zip(sides, hand_outcomes(record, list("pqrst"), everyone),
                             strict=True):
        assert outcome.ranks == ((1.0, 2.0) if hand.caller_won else (2.0, 1.0))


def test_comparisons_score_the_worst_return_and_a_forfeit_loses_the_set() -> None:
    """Under loss the crashing bot's score uses the worst return and it loses every set it
    forfeited in, though its returns as played tie; under stand the returns decide."""
    result = forfeit_set("briscola", [[1, -1], [1, -1]], [["CRASH", "OK"], ["OK", "OK"]])
    lost = set_score(["crash", "fine"], result, policy=LOSS)
    assert lost is not None and lost.means == (-1.0, 0.0) and lost.lost == (True, False)
    assert lost.versus("crash", "fine") == 0.0 and lost.versus("fine", "crash") == 1.0
    stood = set_score(["crash", "fine"], result, policy=STAND)
    assert stood is not None and stood.means == (0.0, 0.0)
    assert stood.versus("crash", "fine") == 0.5
    pairs = compare_pairs([lost] * 3)
    crash = pairs["briscola", "crash", "fine"]
    assert (crash.wins, crash.ties, crash.losses) == (0, 0, 3)
    assert crash.mean_difference == -1.0
    summaries = bot_summaries([lost] * 3)
    assert summaries["briscola", "crash"].win_rate == 0.0
    assert summaries["briscola", "fine"].win_rate == 1.0


def test_faults_are_listed_and_counted_per_bot() -> None:
    """Each forfeited seat once, with its deal, seat, bot and reason; counts by reason code."""
    result = forfeit_set("briscola", [[1, -1], [1, -1]], [["CRASH", "OK"], ["OK", "TIMEOUT"]])
    entries = deal_faults("briscola", "m1", ["x", "y"], result)
    assert [(e.deal, e.seat, e.bot, e.reason) for e in entries] == [
        (0, 0, "x", "CRASH"), (1, 1, "x", "TIMEOUT")]
    counts = fault_counts(entries, ["x", "y"])
    assert counts["x"].to_dict() == {"faults": {"CRASH": 1, "TIMEOUT": 1}, "forfeits": 2}
    assert counts["x"].text() == "TIMEOUT 1, CRASH 1"
    assert counts["y"].to_dict() == {"faults": {}, "forfeits": 0} and counts["y"].text() == "–"


def test_policy_names_and_log_excerpts() -> None:
    assert forfeit_policy(" Loss ") is LOSS and forfeit_policy("stand") is STAND
    with pytest.raises(ValueError, match="unknown forfeit policy 'draw': choose loss, stand"):
        forfeit_policy("draw")
    assert log_excerpt("\n".join(f"line {n}" for n in range(20)) + "\n\n", 3) == (
        "line 17\nline 18\nline 19")
