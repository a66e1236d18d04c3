"""OpenSkill ratings per game from duplicate sets, and an overall table.

The model is OpenSkill's Plackett-Luce (``openskill.models.PlackettLuce``, its defaults:
mu 25, sigma 25/3, tau 25/300). A contest is an ``Outcome``: sides, each a tuple of bots, and
their ranks (lower is better, equal ranks tie). How a duplicate set becomes contests:

- Games without teams (two seats: one against one; Misere, Vecchia, Presidente, ...: a
  ranking): one contest per set, each entrant a side, ranked by its total return over the
  rotations, so card luck cancels before the rating sees the result. Ties share a rank.
- Fixed partnerships (``Game.teams()``): one contest per set between the teams, ranked by the
  team's total return. When rotating a seat does not map teams onto teams, each deal is a
  contest of its own instead.
- Briscola chiamata: sides change every hand, so every scored hand of every deal is a contest
  between the caller with the partner(s) and the defenders, ranked by who made the target.
  The sides are not in the deal's result: the match record is replayed and the engine's
  ``caller()`` and ``partners()`` are read at each hand's SCORE event. A thrown-in hand is
  not a contest.

Sides of different sizes (Briscola chiamata's 2 against 3, 1 against 4) are padded to one
size with placeholder players at the prior mu and a tiny sigma, whose updates are dropped: the
model adds up the skills of a side, and would otherwise expect the larger side to win and learn
little when it does. The smaller side's handicap is the game's business (the bid), not skill.

A bot may fill several seats (a league with fewer bots than seats). Every seat it fills is a
separate copy of its rating in the contest; its update is the mean of its copies' changes in
mu, and its new sigma the root mean square of theirs. A contest with a single bot in it is
skipped: it says nothing about anyone.

The overall table averages the per-game ratings: mu the mean of the games' mu, sigma the
standard deviation of that mean (the root of the summed variances over the number of games),
a game the bot has no rating in counting at the model's prior. Rating every game on its own
keeps one game's scale of returns or number of contests (Briscola chiamata rates every hand)
from swamping the others. Every table is ordered by the conservative estimate mu - 3 sigma.

Ratings are updated contest by contest, so they depend on the order: rate sets in schedule
order (``game_ratings``), never in the order they happened to finish.

Forfeits (``arena.league.forfeits``): under the ``loss`` policy a seat that forfeited a deal
ranks below every seat that did not. In a contest over a whole set, an entrant that lost a deal
by a forfeit (its own, or its side's) ranks below every entrant that lost none, the ones with
forfeits ranked among themselves by their returns with each forfeited deal at the worst the
game allows; in a contest of one deal, the side of a forfeiting seat ranks below the others.
In a Briscola chiamata hand, the side holding a forfeiting seat loses, unless both sides hold
one. Under ``stand`` the returns decide as played.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from openskill.models import PlackettLuce

from arena.games import Game
from arena.games.api import EventKind
from arena.games.chiamata import ChiamataGame, ChiamataState
from arena.league.forfeits import (
    DEFAULT_POLICY,
    ForfeitPolicy,
    entrant_scores,
    losing_seats,
    scored_returns,
)
from arena.match.record import MatchRecord, apply_recorded
from arena.match.results import DuplicateResult

BotId = TypeVar("BotId", bound=Hashable)

CONSERVATIVE_Z = 3.0
"""Sigmas taken off mu for the conservative estimate that orders every table."""

PLACEHOLDER_SIGMA = 1e-3
"""The sigma of the average players that pad a smaller side (their updates are dropped)."""


@dataclass(frozen=True)
class Outcome(Generic[BotId]):
    """One rated contest: the bots of each side and each side's rank (lower is better)."""

    sides: tuple[tuple[BotId, ...], ...]
    ranks: tuple[float, ...]

    @property
    def bots(self) -> set[BotId]:
        """Every bot taking part."""
        return {bot for side in self.sides for bot in side}


@dataclass(frozen=True)
class Rating(Generic[BotId]):
    """A bot's rating: mean skill, its uncertainty, and how many contests it rests on."""

    bot: BotId
    mu: float
    sigma: float
    contests: int = 0

    @property
    def conservative(self) -> float:
        """mu - 3 sigma: the skill the bot has with high confidence."""
        return self.mu - CONSERVATIVE_Z * self.sigma

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"bot": self.bot, "mu": self.mu, "sigma": self.sigma,
                "conservative": self.conservative, "contests": self.contests}


def default_model() -> PlackettLuce:
    """The rating model: Plackett-Luce with OpenSkill's defaults."""
    return PlackettLuce()


def ranks_from_scores(scores: Sequence[float], lost: Sequence[bool] = ()
                      ) -> tuple[float, ...]:
    """Competition ranks, highest score first: 1 + how many scores are strictly higher (scores
    equal to 9 decimals tie, so that sums of fractions do not split a tie by rounding).

    ``lost[i]`` True puts score ``i`` below every score whose ``lost`` is False (a forfeit).
    """
    flags = list(lost) or [False] * len(scores)
    keys = [(not flag, round(score, 9)) for score, flag in zip(scores, flags, strict=True)]
    return tuple(float(1 + sum(other > key for other in keys)) for key in keys)


def rate(outcomes: Iterable[Outcome[BotId]], bots: Iterable[BotId] = (),
         model: PlackettLuce | None = None) -> dict[BotId, Rating[BotId]]:
    """Ratings after the contests in order, every bot of ``bots`` starting at the prior."""
    model = model or default_model()
    table: dict[BotId, Rating[BotId]] = {bot: Rating(bot, model.mu, model.sigma) for bot in bots}
    for outcome in outcomes:
        update(table, outcome, model)
    return table


def game_ratings(game: Game, played: Iterable[tuple[Sequence[BotId], DuplicateResult]],
                 bots: Iterable[BotId] = (), model: PlackettLuce | None = None,
                 policy: ForfeitPolicy = DEFAULT_POLICY) -> dict[BotId, Rating[BotId]]:
    """One game's ratings from its played sets, each with its table (bot of each entrant).

    Updates are sequential, so give the sets in schedule order (round, table, deal), not in
    the order they finished: the same league then always gives the same table.
    """
    return rate((outcome for table, result in played
                 for outcome in set_outcomes(game, table, result, policy)), bots, model)


def update(table: dict[BotId, Rating[BotId]], outcome: Outcome[BotId],
           model: PlackettLuce) -> None:
    """Apply one contest to the table (see the module docstring for bots in several seats)."""
    if len(outcome.bots) < 2 or len(outcome.sides) < 2:
        return
    for bot in outcome.bots:
        table.setdefault(bot, Rating(bot, model.mu, model.sigma))
    teams = [[model.rating(mu=table[bot].mu, sigma=table[bot].sigma) for bot in side]
             for side in outcome.sides]
    size = max(len(side) for side in outcome.sides)
    for team in teams:
        team.extend(model.rating(mu=model.mu, sigma=PLACEHOLDER_SIGMA)
                    for _ in range(size - len(team)))
    rated = model.rate(teams, ranks=list(outcome.ranks))
    changes: dict[BotId, list[tuple[float, float]]] = {}
    for side, new_side in zip(outcome.sides, rated, strict=True):
        for bot, new in zip(side, new_side[:len(side)], strict=True):
            changes.setdefault(bot, []).append((new.mu - table[bot].mu, new.sigma ** 2))
    for bot, copies in changes.items():
        old = table[bot]
        mu = old.mu + sum(delta for delta, _ in copies) / len(copies)
        sigma = math.sqrt(sum(variance for _, variance in copies) / len(copies))
        table[bot] = Rating(bot, mu, sigma, old.contests + 1)


def leaderboard(table: Mapping[BotId, Rating[BotId]]) -> list[Rating[BotId]]:
    """The ratings ordered by conservative estimate (then mu, then the bot's name)."""
    return sorted(table.values(), key=lambda r: (-r.conservative, -r.mu, str(r.bot)))


def overall(per_game: Mapping[str, Mapping[BotId, Rating[BotId]]], bots: Iterable[BotId] = (),
            model: PlackettLuce | None = None) -> dict[BotId, Rating[BotId]]:
    """The overall table: per bot, the mean of its per-game ratings (prior where missing)."""
    model = model or default_model()
    everyone = list(dict.fromkeys([*bots, *(bot for table in per_game.values()
                                            for bot in table)]))
    games = list(per_game.values())
    if not games:
        return {bot: Rating(bot, model.mu, model.sigma) for bot in everyone}
    result = {}
    for bot in everyone:
        found = [table.get(bot) or Rating(bot, model.mu, model.sigma) for table in games]
        mu = sum(r.mu for r in found) / len(found)
        sigma = math.sqrt(sum(r.sigma ** 2 for r in found)) / len(found)
        result[bot] = Rating(bot, mu, sigma, sum(r.contests for r in found))
    return result


def set_outcomes(game: Game, table: Sequence[BotId], result: DuplicateResult,
                 policy: ForfeitPolicy = DEFAULT_POLICY) -> list[Outcome[BotId]]:
    """The contests of one duplicate set; ``table[e]`` is the bot of entrant ``e``."""
    if result.void:
        return []
    loss = policy is ForfeitPolicy.LOSS
    if is_hidden_sides_game(game):
        outcomes: list[Outcome[BotId]] = []
        for deal in result.deals:
            if deal.record is not None:
                seat_bots = [table[entrant] for entrant in deal.entrants]
                outcomes.extend(hand_outcomes(deal.record, seat_bots,
                                              losing_seats(game, deal) if loss else ()))
        return outcomes
    totals, lost = entrant_scores(game, result, policy)
    teams = game.teams()
    if not teams:
        return [Outcome(tuple((bot,) for bot in table),
                        ranks_from_scores(totals, [count > 0 for count in lost]))]
    if rotation_keeps_teams(teams, game.num_players):
        return [team_outcome(teams, table, totals, [count > 0 for count in lost])]
    return [team_outcome(teams, [table[e] for e in deal.entrants],
                         scored_returns(game, deal, policy),
                         losing_seats(game, deal) if loss else ())
            for deal in result.deals]


def team_outcome(teams: Sequence[Sequence[int]], seat_bots: Sequence[BotId],
                 returns: Sequence[float], lost: Sequence[bool] = ()) -> Outcome[BotId]:
    """A contest between fixed teams of seats, ranked by each team's summed return (a team
    with a seat in ``lost`` below the teams without)."""
    flags = [any(lost[seat] for seat in team) if lost else False for team in teams]
    return Outcome(tuple(tuple(seat_bots[seat] for seat in team) for team in teams),
                   ranks_from_scores([sum(returns[seat] for seat in team) for team in teams],
                                     flags))


def rotation_keeps_teams(teams: Sequence[Sequence[int]], seats: int) -> bool:
    """True when moving every seat one place on maps each team onto a team."""
    partition = {frozenset(team) for team in teams}
    return all(frozenset((seat + 1) % seats for seat in team) in partition for team in teams)


def is_hidden_sides_game(game: Game) -> bool:
    """True for games whose sides change each hand (Briscola chiamata and its variants)."""
    return isinstance(game, ChiamataGame)


@dataclass(frozen=True)
class HandSides:
    """The sides of one scored hand of Briscola chiamata."""

    caller: int
    partners: tuple[int, ...]
    scores: tuple[int, ...]

    @property
    def callers_side(self) -> tuple[int, ...]:
        """The caller and the real seats holding the called card."""
        return (self.caller, *self.partners)

    @property
    def defenders(self) -> tuple[int, ...]:
        """Every other seat."""
        return tuple(seat for seat in range(len(self.scores)) if seat not in self.callers_side)

    @property
    def caller_won(self) -> bool:
        """True when the caller's side made its target (the defenders lost points)."""
        return sum(self.scores[seat] for seat in self.defenders) < 0


def hand_sides(record: MatchRecord) -> list[HandSides]:
    """Replay a Briscola chiamata record and read the sides at each hand's score."""
    state = record.make_game().new_initial_state(record.seed)
    if not isinstance(state, ChiamataState):
        raise ValueError(f"{record.game} is not a game with a caller and partners")
    sides: list[HandSides] = []
    total = len(record.actions)
    for index, action in enumerate(record.actions):
        caller, partners = state.caller(), state.partners()
        start = state.event_count()
        apply_recorded(state, index, action, total)
        sides.extend(HandSides(caller, partners, tuple(event.values))
                     for event in state.full_events(start) if event.kind == EventKind.SCORE)
    return sides


def hand_outcomes(record: MatchRecord, seat_bots: Sequence[BotId],
                  lost: Sequence[bool] = ()) -> list[Outcome[BotId]]:
    """One contest per scored hand: the caller's side against the defenders (the side of a
    seat in ``lost`` loses, unless both sides hold one)."""
    outcomes = []
    for hand in hand_sides(record):
        caller_won = hand.caller_won
        if lost:
            callers = any(lost[seat] for seat in hand.callers_side)
            defenders = any(lost[seat] for seat in hand.defenders)
            if callers != defenders:
                caller_won = defenders
        ranks = (1.0, 2.0) if caller_won else (2.0, 1.0)
        outcomes.append(Outcome((tuple(seat_bots[s] for s in hand.callers_side),
                                 tuple(seat_bots[s] for s in hand.defenders)), ranks))
    return outcomes
