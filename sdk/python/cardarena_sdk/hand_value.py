"""What the end of a hand is worth to each seat, learnt from the engine, for any game.

A search that plays every playout to the end of a match of several hands learns little about
the move at hand: the later hands' cards drown it. ``ISMCTS`` therefore stops a playout when the
current hand is scored (its ``SCORE`` event) and values that hand for each seat:

    value = sign * (score - mean score) / scale + points_weight * coefficient * point share

- ``score - mean score`` is the seat's hand score against the table's (``SCORE`` values);
- ``point share`` is its side's share of the hand's card points (``HAND_END`` values), from -1
  (none) to 1 (all);
- ``sign``, ``scale`` and ``coefficient`` are what a survey of random matches of the
  configuration says: ``sign`` is the sign of the correlation between a seat's summed hand
  scores and its match return (negative where a hand's score is a penalty), ``scale`` the mean
  size of a score margin, and ``coefficient`` the correlation between a hand's point share and
  its signed score margin (near 1 where points win hands, near 0 or below where they do not).

So no game is named here: what a hand means comes from the rules engine's own matches.
Correlations are ``statistics.correlation`` (Pearson). A game without ``SCORE`` events is
valued by its match returns at the end.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from arena.games import EventKind, Game, State

SURVEY_MATCHES: Final = 40
"""Random matches played to learn a configuration's hand values."""
_SCORE: Final = int(EventKind.SCORE)
_HAND_END: Final = int(EventKind.HAND_END)


@dataclass(frozen=True)
class HandValue:
    """How a scored hand turns into a value per seat (see the module's docstring)."""

    scored: bool
    """Whether the game logs ``SCORE`` events (else its returns are the value)."""
    sign: float
    scale: float
    coefficient: float
    teams: tuple[tuple[int, ...], ...] | None

    def values(self, state: State, score: Sequence[int] | None,
               points: Sequence[int] | None, seats: set[int]) -> dict[int, float]:
        """Each of ``seats``' value of a hand scored ``score`` with card points ``points``
        (``state``, at the hand's end or the match's, gives hidden partnerships)."""
        if score is None:
            returns = state.returns()
            return {seat: returns[seat] / self.scale for seat in seats}
        players = len(score)
        mean = sum(score) / players
        values = {}
        for seat in seats:
            value = self.sign * (score[seat] - mean) / self.scale
            if self.coefficient and points is not None:
                value += self.coefficient * point_share(points[:players], self.side(state, seat))
            values[seat] = value
        return values

    def side(self, state: State, seat: int) -> set[int]:
        """The seats whose points count for ``seat``."""
        return _side(state, self.teams, seat)


def point_share(points: Sequence[int], side: set[int]) -> float:
    """The side's card points minus the others', over all the hand's points (-1 to 1)."""
    total = sum(points)
    if not total:
        return 0.0
    mine = sum(value for seat, value in enumerate(points) if seat in side)
    return (2 * mine - total) / total


class HandWatch:
    """Follows a state's events from one point on and says when a hand has been scored."""

    __slots__ = ("checked", "points", "score")

    def __init__(self, start: int) -> None:
        """Watch the events from index ``start`` on."""
        self.checked = start
        self.score: tuple[int, ...] | None = None
        """The SCORE values of the first hand scored, once it is."""
        self.points: tuple[int, ...] | None = None
        """The card points of the last HAND_END before it."""

    def scored(self, state: State) -> bool:
        """Whether a hand has been scored in the events logged since the start."""
        if self.score is not None:
            return True
        count = state.event_count()
        if count == self.checked:
            return False
        for kind, _, _, values in state.event_entries(self.checked):
            if kind == _HAND_END:
                self.points = values
            elif kind == _SCORE:
                self.score = values
                return True
        self.checked = count
        return False


_SURVEYS: dict[tuple[object, ...], HandValue] = {}


def hand_value(game: Game, points_weight: float = 1.0) -> HandValue:
    """The hand values of ``game``'s configuration, surveyed once (``points_weight`` scales the
    point share's coefficient)."""
    key = (game.id, game.num_players, tuple(sorted(game.params.items())), points_weight)
    cached = _SURVEYS.get(key)
    if cached is None:
        cached = _SURVEYS[key] = survey(game, points_weight)
    return cached


def survey(game: Game, points_weight: float) -> HandValue:
    """Learn the sign, scale and point coefficient from seeded random matches."""
    teams = game.teams()
    rng = random.Random(0)
    totals: list[float] = []
    returns: list[float] = []
    margins: list[float] = []
    shares: list[float] = []
    for seed in range(SURVEY_MATCHES):
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        players = game.num_players
        summed = [0.0] * players
        points: tuple[int, ...] | None = None
        for kind, _, _, values in state.event_entries():
            if kind == _HAND_END:
                points = values
            elif kind == _SCORE:
                mean = sum(values) / players
                for seat in range(players):
                    margin = values[seat] - mean
                    summed[seat] += margin
                    margins.append(margin)
                    shares.append(point_share(points[:players], _side(state, teams, seat))
                                  if points is not None else 0.0)
        totals.extend(summed)
        returns.extend(state.returns())
    if not margins:
        scale = statistics.fmean(abs(value) for value in returns) or 1.0
        return HandValue(False, 1.0, scale, 0.0, teams)
    sign = -1.0 if _correlation(totals, returns) < 0 else 1.0
    scale = statistics.fmean(abs(margin) for margin in margins) or 1.0
    coefficient = _correlation(shares, [sign * margin for margin in margins])
    return HandValue(True, sign, scale, points_weight * coefficient, teams)


def _side(state: State, teams: tuple[tuple[int, ...], ...] | None, seat: int) -> set[int]:
    """The seat's fixed team, or its partners as its view of the finished match shows them."""
    if teams is not None:
        for team in teams:
            if seat in team:
                return set(team)
    return {seat, *state.observation(seat).teammates}


def _correlation(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Pearson's correlation, 0 where it is undefined (a constant series)."""
    try:
        return statistics.correlation(xs, ys)
    except statistics.StatisticsError:
        return 0.0
