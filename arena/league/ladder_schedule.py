"""The ladder's scheduler: which duplicate sets to play next, from ratings and counts alone.

``next_sets(state, count)`` is a plain function: the same state gives the same sets. Each set
is chosen in three steps, and the counts are updated before the next one is chosen:

1. **The focus bot.** A bot still in placement (fewer than ``placement`` sets of its own) comes
   first, the fewest sets first: every set includes a bot in placement while there is one.
   Otherwise the bot with the fewest sets (counted from its ``base``, the sets it was credited
   with when it joined), so that every bot plays at a steady rate.
2. **The game.** The ladder's game with the fewest sets so far (then the first listed).
3. **The opponents**, one seat at a time, among the bots whose count is within
   ``EXPOSURE_SLACK`` of the fewest (widened one set at a time once they are all seated): the
   one whose cost against the bots already seated is lowest. The cost of a pair is its rating
   gap, in units of the spread of a game between them and capped at ``MAX_GAP``, times
   ``GAP_WEIGHT``, plus the log of how many times more the pair has met than the seated bot's
   least-met pair (``ln((1 + met) / (1 + fewest))``). Close ratings are the most informative
   sets, so they are preferred; but a pair meets at most about ``exp(GAP_WEIGHT * MAX_GAP)``
   (4.5) times as often as the seated bot's least-met pair, so no pair is starved.

A game with more seats than there are bots seats copies of them as a league does
(``arena.league.schedule.tables``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from arena.league.schedule import Teams, tables

PLACEMENT_SETS = 5
"""The sets a new bot (or a new version) plays before anything else is scheduled."""

EXPOSURE_SLACK = 1
"""How far above the fewest sets an opponent's count may be."""

GAP_WEIGHT = 0.5
"""The weight of a pair's rating gap against the log of its surplus of meetings."""

MAX_GAP = 3.0
"""The rating gap (in spreads of a game) beyond which pairs count as equally far apart."""

BETA = 25.0 / 6.0
"""OpenSkill's default performance spread of one game."""


@dataclass(frozen=True)
class LadderGame:
    """A game the ladder plays: its id, seat count and fixed partnerships (seat groups)."""

    game: str
    seats: int
    teams: tuple[tuple[int, ...], ...] = ()


@dataclass(frozen=True)
class Skill:
    """A bot's rating: OpenSkill's mu and sigma."""

    mu: float = 25.0
    sigma: float = 25.0 / 3.0


@dataclass
class LadderState:
    """What the scheduler decides from: active bots (in join order), ratings and counts."""

    bots: Sequence[int]
    games: Sequence[LadderGame]
    ratings: Mapping[int, Skill] = field(default_factory=dict)
    sets: Mapping[int, int] = field(default_factory=dict)
    """Sets scheduled for each bot (its own, without ``base``)."""
    base: Mapping[int, int] = field(default_factory=dict)
    """Sets each bot is credited with from when it joined."""
    meetings: Mapping[frozenset[int], int] = field(default_factory=dict)
    """Sets scheduled for each pair of bots."""
    game_sets: Mapping[str, int] = field(default_factory=dict)
    """Sets scheduled for each game."""
    placement: int = PLACEMENT_SETS


@dataclass(frozen=True)
class LadderSet:
    """One set to play: a game and the bot of each seat in the first rotation."""

    game: str
    seats: tuple[int, ...]


def next_sets(state: LadderState, count: int) -> list[LadderSet]:
    """The next ``count`` sets (none when fewer than two bots are active)."""
    if len(state.bots) < 2 or not state.games or count <= 0:
        return []
    sets = Counter({bot: state.sets.get(bot, 0) for bot in state.bots})
    meetings = Counter(state.meetings)
    game_sets = Counter(state.game_sets)
    chosen = []
    for _ in range(count):
        picked = _next_set(state, sets, meetings, game_sets)
        chosen.append(picked)
        for bot in set(picked.seats):
            sets[bot] += 1
        for pair in pairs(picked.seats):
            meetings[pair] += 1
        game_sets[picked.game] += 1
    return chosen


def pairs(seats: Sequence[int]) -> set[frozenset[int]]:
    """The pairs of different bots at a table."""
    bots = sorted(set(seats))
    return {frozenset((a, b)) for i, a in enumerate(bots) for b in bots[i + 1:]}


def _next_set(state: LadderState, sets: Counter[int], meetings: Counter[frozenset[int]],
              game_sets: Counter[str]) -> LadderSet:
    """One set, from the counts so far."""
    exposure = {bot: sets[bot] + state.base.get(bot, 0) for bot in state.bots}
    order = {bot: index for index, bot in enumerate(state.bots)}
    placing = [bot for bot in state.bots if sets[bot] < state.placement]
    focus = min(placing or state.bots,
                key=lambda bot: ((sets[bot] if placing else exposure[bot]), order[bot]))
    game = min(state.games, key=lambda item: (game_sets[item.game], state.games.index(item)))
    table = [focus]
    wanted = min(game.seats, len(state.bots))
    others = [bot for bot in state.bots if bot != focus]
    least = min(exposure[bot] for bot in others)
    slack = EXPOSURE_SLACK
    while len(table) < wanted:
        pool = [bot for bot in others if bot not in table and exposure[bot] <= least + slack]
        if not pool:
            slack += 1
            continue
        table.append(min(pool, key=lambda bot: (
            sum(_cost(state, meetings, seated, bot) for seated in table), order[bot])))
    if game.seats > len(table):
        options = tables(table, game.seats, game.teams or None)
        return LadderSet(game.game, tuple(options[game_sets[game.game] % len(options)]))
    return LadderSet(game.game, tuple(table))


def _cost(state: LadderState, meetings: Counter[frozenset[int]], seated: int,
          bot: int) -> float:
    """How little a set of ``seated`` against ``bot`` would tell: a wide rating gap, or a pair
    met more often than the seated bot's least-met pair (see the module docstring)."""
    fewest = min(meetings[frozenset((seated, other))] for other in state.bots
                 if other != seated)
    return GAP_WEIGHT * rating_gap(state.ratings.get(seated, Skill()),
                                   state.ratings.get(bot, Skill())) \
        + math.log((1 + meetings[frozenset((seated, bot))]) / (1 + fewest))


def rating_gap(a: Skill, b: Skill) -> float:
    """The gap between two ratings in spreads of one game between them, capped."""
    spread = math.sqrt(2 * BETA ** 2 + a.sigma ** 2 + b.sigma ** 2)
    return min(MAX_GAP, abs(a.mu - b.mu) / spread)


def team_groups(teams: Teams | None) -> tuple[tuple[int, ...], ...]:
    """A game's partnerships as a tuple of seat groups (empty for none)."""
    return tuple(tuple(team) for team in teams or ())
