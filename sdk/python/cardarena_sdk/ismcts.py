"""Information-set Monte Carlo tree search (ISMCTS) over any game of the engine.

This is single-observer ISMCTS (Cowling, Powley and Whitehouse, "Information Set Monte Carlo
Tree Search", 2012). One tree is grown for the searching seat. Each iteration:

1. draws a *determinization*: a full state whose ``observation(seat)`` equals the seat's own
   (``cardarena_sdk.determinize``, built on the SDK's consistent sampling: the hidden cards
   placed at random, every state checked against the observation);
2. walks down the tree along that state's legal actions, choosing at each node the child of
   best upper confidence bound (UCB1 with availability counts: a child's exploration term
   counts the iterations in which it was legal, not the parent's visits), the mover's value
   being that child's mean;
3. adds one child for an action not tried yet, and plays the state out with the rollout policy
   (uniformly random, or the arena's heuristic for every seat) until the hand in progress is
   scored, or the match ends;
4. adds that hand's value for each node's mover to the nodes of the path.

A node stands for the moves made from the root, so its statistics are shared by every
determinization in which those moves were legal: the tree is one tree over the seat's
information sets. Children are keyed by the mover and the action, so a state in which another
seat moves never shares a node's statistics.

The answer is the root action visited most. With a *guide* (a policy such as the arena's
heuristic), the guide's action is played instead unless the most visited action's mean beats
the guide's by ``confidence`` standard errors of their difference: where a short search cannot
tell the moves apart, the bot plays what a good policy plays, and it departs from it only where
the search clearly finds better.

A hand's value for a seat (``cardarena_sdk.hand_value``) is its score margin, plus
``points_weight`` times its side's share of the card points, each signed and scaled by what a
survey of random matches of the game says they are worth: playouts end with the hand, since
later hands' cards would drown the move at hand. Values are normalized, for the UCB, by the
least and greatest seen in the search (as MuZero normalizes its values), so one exploration
constant serves every game.

The search knows nothing of any game beyond the engine's ``Game``/``State`` API and the
policies it may call; it sees only the observation it is given.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

from arena.games import Game, GameError, Observation, State
from arena.policies import Policy, make_policy
from cardarena_sdk.determinize import Determinizer
from cardarena_sdk.hand_value import HandWatch, hand_value
from cardarena_sdk.search import Sampler

DEFAULT_EXPLORATION: Final = 0.7
"""The UCB exploration constant, for values normalized to [0, 1] (tuned: docs/bots.md)."""
DEFAULT_POINTS_WEIGHT: Final = 1.0
"""Weight of the side's card-point share in a hand's value (``cardarena_sdk.hand_value``)."""
DEFAULT_CONFIDENCE: Final = 1.5
"""Standard errors by which the search's action must beat a guide's to be played instead."""
ROLLOUTS: Final = ("random", "heuristic")
"""The rollout policies a search may use."""
MAX_STEPS: Final = 100_000
"""A playout longer than this is a bug in the game."""
MOVER_SLOTS: Final = 64
"""Children are keyed ``action * MOVER_SLOTS + mover`` (at most 64 seats)."""


class Node:
    """A node of the tree: the moves from the root to it, seen by the searching seat."""

    __slots__ = ("action", "available", "children", "mover", "parent", "value_squares",
                 "value_sum", "visits")

    def __init__(self, action: int, mover: int, parent: Node | None) -> None:
        """A node reached by ``mover`` playing ``action`` from ``parent``."""
        self.action = action
        self.mover = mover
        self.parent = parent
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.available = 0
        """Iterations in which this node's action was legal when its parent was reached."""
        self.value_sum = 0.0
        """The summed playout values for ``mover``."""
        self.value_squares = 0.0

    def mean(self) -> float:
        """The mean playout value for the mover (0 before the first visit)."""
        return self.value_sum / self.visits if self.visits else 0.0

    def mean_variance(self) -> float:
        """The variance of the mean (the values' sample variance over the visits)."""
        if self.visits < 2:
            return math.inf
        mean = self.value_sum / self.visits
        spread = max(0.0, self.value_squares / self.visits - mean * mean)
        return spread / (self.visits - 1)


@dataclass
class SearchResult:
    """What one search found: the action chosen and the root's statistics."""

    action: int
    iterations: int
    visits: dict[int, int] = field(default_factory=dict)
    """Visits of each of the seat's legal actions at the root."""
    means: dict[int, float] = field(default_factory=dict)
    """Mean playout value of each root action for the seat."""
    guide: int | None = None
    """The guide policy's action, when the search has a guide."""
    seconds: float = field(default=0.0, compare=False)
    """Wall time of the search (not compared: the rest is fixed by the seed)."""

    def describe(self) -> str:
        """One line for a bot's debug text."""
        best = self.visits.get(self.action, 0)
        guided = "" if self.guide is None else f" guide={self.guide}"
        return (f"ismcts iterations={self.iterations} action={self.action} visits={best} "
                f"mean={self.means.get(self.action, 0.0):+.3f}{guided}")


class Rollout:
    """Plays a state on: uniformly random, or the heuristic policy for every seat."""

    def __init__(self, game: Game, kind: str, rng: random.Random) -> None:
        """The rollout ``kind`` (``ROLLOUTS``); the heuristic falls back to random where a
        game has none."""
        if kind not in ROLLOUTS:
            raise ValueError(
                f"unknown rollout policy {kind!r}: choose one of {', '.join(ROLLOUTS)}")
        self.rng = rng
        self.policies: list[Policy] | None = None
        if kind == "heuristic":
            self.policies = _heuristics(game, rng)
        self.kind = "random" if self.policies is None else "heuristic"
        """The policy the playouts use."""

    def play(self, state: State, watch: HandWatch) -> None:
        """Play ``state`` (in place) until the watched hand is scored or the match is over."""
        policies = self.policies
        for _ in range(MAX_STEPS):
            if state.is_terminal() or watch.scored(state):
                return
            if policies is None:
                state.apply_action(self.rng.choice(state.legal_actions()))
            else:
                seat = state.current_player()
                state.apply_action(policies[seat].act(state.observation(seat)))
        raise RuntimeError(f"{state.game!r}: no end after {MAX_STEPS} actions")


def _guide(game: Game, seat: int, name: str | None, rng: random.Random) -> Policy | None:
    """The guide policy ``name`` for ``seat``, or None (no guide, or the game has none)."""
    if name is None:
        return None
    try:
        return make_policy(name, game, seat, rng.getrandbits(32))
    except GameError:
        return None


def _heuristics(game: Game, rng: random.Random) -> list[Policy] | None:
    """The heuristic of ``game`` for every seat, or None when the game has none."""
    try:
        return [make_policy("heuristic", game, seat, rng.getrandbits(32))
                for seat in range(game.num_players)]
    except GameError:
        return None


class ISMCTS:
    """Single-observer ISMCTS for one seat of one game (see the module's docstring)."""

    def __init__(self, game: Game, seat: int, rng: random.Random, *,
                 exploration: float = DEFAULT_EXPLORATION, rollout: str = "random",
                 points_weight: float = DEFAULT_POINTS_WEIGHT, guide: str | None = None,
                 confidence: float = DEFAULT_CONFIDENCE, sampler: Sampler | None = None) -> None:
        """Search for ``seat`` of ``game``, drawing every random number from ``rng``; with a
        ``guide`` policy (``heuristic``), its action is played unless the search finds another
        better by ``confidence`` standard errors."""
        self.game = game
        self.seat = seat
        self.rng = rng
        self.exploration = exploration
        self.points_weight = points_weight
        self.confidence = confidence
        self.guide = _guide(game, seat, guide, rng)
        self.rollout = Rollout(game, rollout, rng)
        self.hand_value = hand_value(game, points_weight)
        self.sampler = sampler if sampler is not None else Sampler(game)
        self._low = math.inf
        self._high = -math.inf
        self.last_worlds: Determinizer | None = None
        """The states drawn by the last search (their counts show how they were drawn)."""

    def search(self, observation: Observation, *, iterations: int | None = None,
               deadline: float | None = None,
               clock: Callable[[], float] = time.perf_counter) -> SearchResult:
        """The action to play from ``observation``, after ``iterations`` iterations or until
        ``clock()`` passes ``deadline`` (at least one iteration; both may be given).

        Raises ``SamplingError`` when no state consistent with the observation can be drawn
        (before the deadline, when there is one).
        """
        if iterations is None and deadline is None:
            raise ValueError("give a number of iterations, a deadline, or both")
        if observation.seat != self.seat:
            raise ValueError(f"this search is for seat {self.seat}, not {observation.seat}")
        started = clock()
        legal = list(observation.legal_actions)
        root = Node(-1, -1, None)
        self._low, self._high = math.inf, -math.inf
        worlds = Determinizer(self.sampler, observation, self.rng, deadline, clock)
        done = 0
        while iterations is None or done < iterations:
            if done and deadline is not None and clock() >= deadline:
                break
            self._iterate(root, worlds.draw())
            done += 1
        self.last_worlds = worlds
        guide = self.guide.act(observation) if self.guide is not None else None
        return self._result(root, legal, done, clock() - started, guide)

    # --- one iteration -------------------------------------------------------------------

    def _iterate(self, root: Node, state: State) -> None:
        """Select, expand, play out and back up once on the determinization ``state``."""
        node = root
        path = [root]
        watch = HandWatch(state.event_count())
        while not state.is_terminal() and not watch.scored(state):
            mover = state.current_player()
            legal = state.legal_actions()
            children = node.children
            untried = [action for action in legal
                       if action * MOVER_SLOTS + mover not in children]
            if untried:
                action = self.rng.choice(untried)
                child = Node(action, mover, node)
                children[action * MOVER_SLOTS + mover] = child
                state.apply_action(action)
                path.append(child)
                break
            node = self._select([children[action * MOVER_SLOTS + mover] for action in legal])
            state.apply_action(node.action)
            path.append(node)
        self.rollout.play(state, watch)
        values = self._values(state, watch, {node.mover for node in path[1:]})
        for node in path:
            node.visits += 1
            if node.mover >= 0:
                value = values[node.mover]
                node.value_sum += value
                node.value_squares += value * value

    def _select(self, children: Sequence[Node]) -> Node:
        """The child of best UCB (every child counted as available)."""
        low, high = self._low, self._high
        scale = 1.0 / (high - low) if high > low else 0.0
        best = children[0]
        best_score = -math.inf
        for child in children:
            child.available += 1
            mean = (child.mean() - low) * scale if scale else 0.5
            score = mean + self.exploration * math.sqrt(math.log(child.available) / child.visits)
            if score > best_score:
                best, best_score = child, score
        return best

    def _values(self, state: State, watch: HandWatch, movers: set[int]) -> dict[int, float]:
        """The playout's value for each mover (the hand's, see ``hand_value``), noting the
        range of values seen."""
        values = self.hand_value.values(state, watch.score, watch.points, movers)
        for value in values.values():
            self._low = min(self._low, value)
            self._high = max(self._high, value)
        return values

    def _result(self, root: Node, legal: list[int], iterations: int, seconds: float,
                guide: int | None) -> SearchResult:
        """The most visited root action (ties to the better mean, then the lower action), or
        the guide's action unless the search's is better by ``confidence`` standard errors."""
        visits: dict[int, int] = {}
        means: dict[int, float] = {}
        for action in legal:
            child = root.children.get(action * MOVER_SLOTS + self.seat)
            visits[action] = child.visits if child else 0
            means[action] = child.mean() if child else 0.0
        best = max(legal, key=lambda action: (visits[action], means[action], -action))
        if guide is not None and guide != best and not self._surely_better(root, best, guide):
            best = guide
        return SearchResult(best, iterations, visits, means, guide, seconds)

    def _surely_better(self, root: Node, action: int, other: int) -> bool:
        """Whether ``action``'s mean beats ``other``'s by ``confidence`` standard errors of
        their difference (a root child with fewer than two visits proves nothing)."""
        mine = root.children.get(action * MOVER_SLOTS + self.seat)
        theirs = root.children.get(other * MOVER_SLOTS + self.seat)
        if mine is None or mine.visits < 2:
            return False
        if theirs is None or theirs.visits < 2:
            return True
        error = math.sqrt(mine.mean_variance() + theirs.mean_variance())
        gap = mine.mean() - theirs.mean()
        return gap > self.confidence * error if error > 0 else gap > 0
