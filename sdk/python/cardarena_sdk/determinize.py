"""Many states consistent with one observation, fast: permutations of one sampled state.

``Determinizer(sampler, observation, rng)`` draws states whose ``observation(seat)`` equals
``observation``. The first comes from the ``Sampler`` (``cardarena_sdk.search``), which finds
one by replaying and repairing deal orders. Each later draw permutes, in that state's current
deal, the cards the seat has not located (the cards the rules set aside stay put), replays the
state's actions on the permuted deal, and keeps the result only when every action is legal
there and the seat's observation is unchanged: rejection sampling, so the kept states are
uniform among the permutations the seat cannot tell apart. A few rejections in a row fall back
to a fresh sample from the ``Sampler`` (which also becomes the state later draws permute); a
view that rejects most permutations (late in a hand where voids are known, say) goes to the
``Sampler`` straight away. With a deadline, the ``Sampler`` gives up when it passes: the first
draw then raises ``SamplingError``, a later one repeats the last state.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Final

from arena.games import GameError, Observation, State
from cardarena_sdk.search import Sampler, SamplingError, located_cards
from cardarena_sdk.search_walk import set_aside_cards

PERMUTATION_TRIES: Final = 3
"""Permutations tried before a draw falls back to the Sampler."""
MIN_ACCEPTANCE: Final = 0.1
"""Below this share of accepted permutations (after ``JUDGE_AFTER`` tries) draws use the
Sampler only."""
JUDGE_AFTER: Final = 20


class Determinizer:
    """Draws states consistent with one observation (see the module's docstring)."""

    def __init__(self, sampler: Sampler, observation: Observation, rng: random.Random,
                 deadline: float | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        """Draw for ``observation`` with ``sampler``'s game; raises ``SamplingError`` when no
        consistent state can be found (before ``deadline``, a time of ``clock``, if given)."""
        self.sampler = sampler
        self.observation = observation
        self.rng = rng
        self.deadline = deadline
        self.clock = clock
        game = sampler.game
        self.game = game
        self._fixed = located_cards(observation) | set_aside_cards(game)
        self._base = sampler.sample(observation, rng, deadline, clock)
        self._places = self._movable_places(self._base)
        self.tried = 0
        self.accepted = 0
        self.sampled = 1

    def draw(self) -> State:
        """A new state consistent with the observation (the caller may change it)."""
        if self._permuting():
            for _ in range(PERMUTATION_TRIES):
                state = self._permuted()
                self.tried += 1
                if state is not None:
                    self.accepted += 1
                    return state
        try:
            self._base = self.sampler.sample(self.observation, self.rng, self.deadline,
                                             self.clock)
        except SamplingError:
            return self._base.clone()  # a miss, or no time left: the last state again
        self._places = self._movable_places(self._base)
        self.sampled += 1
        return self._base.clone()

    def _permuting(self) -> bool:
        """Whether permutations are worth trying: some cards move, and enough are kept."""
        if not any(len(places) > 1 for places in self._places):
            return False
        return self.tried < JUDGE_AFTER or self.accepted >= MIN_ACCEPTANCE * self.tried

    def _permuted(self) -> State | None:
        """The base state's actions replayed on a permuted deal, when the seat cannot tell."""
        base = self._base
        deals = base.deals()
        order = list(deals[-1])
        for places in self._places:
            cards = [order[index] for index in places]
            self.rng.shuffle(cards)
            for index, card in zip(places, cards, strict=True):
                order[index] = card
        deals[-1] = tuple(order)
        try:
            state = self.game.new_initial_state(base.seed(), deal=deals)
            for action in base.history():
                state.apply_action(action)
        except GameError:
            return None
        if state.observation(self.observation.seat) != self.observation:
            return None
        return state

    def _movable_places(self, base: State) -> list[list[int]]:
        """For each deck copy, the places in the current deal of cards that may move."""
        deals = base.deals()
        if not deals:
            return []
        deck, fixed = self.game.deck, self._fixed
        return [[index for index, card in enumerate(deals[-1])
                 if card not in fixed and deck.copy(card) == copy]
                for copy in range(deck.copies)]
