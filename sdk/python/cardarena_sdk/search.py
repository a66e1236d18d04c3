"""Search helpers: sample a full state consistent with one seat's view, and play it out.

``sample_state(game, observation, rng)`` builds, with the engine itself, a state whose
``observation(seat)`` equals the given one, the cards the seat has not seen dealt at random.
It is generic: it replays the match from random deal orders, choosing actions whose events
reproduce the seat's view, and swaps cards in the orders when the replay cannot follow (see
``search_walk`` and ``search_repair``). It never sees the real match, only the observation.

Games whose chance lives inside the state can defeat it (a configuration's random events that
no order of the cards reproduces); ``SamplingError`` says so.

``Sampler`` does the same for many samples of one seat: it starts each from the last sample,
with the cards the seat has not located shuffled, so that later samples need few repairs.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from arena.games import EventKind, Game, Observation, State
from arena.games.cards import HIDDEN
from arena.policies import Policy
from cardarena_sdk.search_repair import repair, reshuffle
from cardarena_sdk.search_walk import Failure, FailureKind, Walker, names_only

SEED_ATTEMPTS = 4
"""Fresh starts (random orders and seed) before giving up."""
REPAIRS_PER_ATTEMPT = 400
"""Repairs (each followed by a replay) in one start."""
STALL_LIMIT = 60
"""Repairs in a row that get no further through the observed events before a fresh start."""
RESHUFFLE_AFTER = 12
"""Repairs in a row without progress after which the failing deal's unseen cards are shuffled."""
EARLIER_ORDERS = 3
"""A repeated event mismatch is repaired in the latest deal order, then in the two before it
(a game may deal some tables from an earlier order)."""
MAX_STEPS = 100_000
"""A simulation longer than this is a bug in the game."""


class SamplingError(RuntimeError):
    """No state consistent with the observation was found."""


@dataclass
class _Solution:
    """The deal orders and seed of the last sample for one seat."""

    observation: Observation
    orders: list[list[int]]
    seed: int
    segment_deal: int
    """The first deal order of the hand (or overlapping hands) in progress."""


class Sampler:
    """Samples states for one game, reusing the last sample as the start of the next."""

    def __init__(self, game: Game) -> None:
        """Sample states of ``game``."""
        self.game = game
        self._last: dict[int, _Solution] = {}

    def sample(self, observation: Observation, rng: random.Random) -> State:
        """A state made by the engine whose ``observation(seat)`` equals ``observation``."""
        _check(self.game, observation)
        reused = self._reusable(observation)
        failures: list[Failure] = []
        for attempt in range(SEED_ATTEMPTS):
            if reused is not None and attempt == 0:
                walker = Walker(self.game, observation, rng, _resampled(reused, observation, rng,
                                                                        self.game), reused.seed)
            else:
                walker = Walker(self.game, observation, rng, _fresh_orders(self.game, observation,
                                                                           rng),
                                rng.getrandbits(62))
            outcome = _search(walker)
            if isinstance(outcome, State):
                if outcome.observation(observation.seat) != observation:
                    raise AssertionError("a sampled state does not reproduce the observation")
                self._last[observation.seat] = _Solution(
                    observation, [list(order) for order in walker.orders], walker.seed,
                    _segment_deal(walker))
                return outcome
            failures.append(outcome)
        deepest = max(failures, key=lambda failure: failure.pos)
        raise SamplingError(
            f"{self.game!r}: no state found for seat {observation.seat}'s view of "
            f"{len(observation.events)} events after {SEED_ATTEMPTS} fresh starts; the furthest "
            f"replay stopped at event {deepest.pos} ({deepest.kind.value}: observed "
            f"{deepest.observed}, replayed {deepest.replayed}). The game's own chance events "
            f"may not be reproducible from deal orders")

    def _reusable(self, observation: Observation) -> _Solution | None:
        """The last solution for this seat when the new view extends its events."""
        last = self._last.get(observation.seat)
        if last is None:
            return None
        before = last.observation.events
        if observation.events[:len(before)] != before:
            return None
        return last


def sample_state(game: Game, observation: Observation, rng: random.Random) -> State:
    """A full state, made by the engine, whose ``observation(seat)`` equals ``observation``.

    The cards the seat has not seen are placed at random; raises ``SamplingError`` when no
    consistent state is found (games whose own random events cannot be reproduced).
    """
    return Sampler(game).sample(observation, rng)


def simulate(state: State, policies: Sequence[Policy] | random.Random) -> list[float]:
    """Play ``state`` (in place) to the end; the returns.

    ``policies`` is one policy per seat (``arena.policies`` objects, acting on observations)
    or a ``random.Random`` for uniformly random play.
    """
    if isinstance(policies, random.Random):
        rng = policies
        for _ in range(MAX_STEPS):
            if state.is_terminal():
                return state.returns()
            state.apply_action(rng.choice(state.legal_actions()))
    else:
        for _ in range(MAX_STEPS):
            if state.is_terminal():
                return state.returns()
            seat = state.current_player()
            state.apply_action(policies[seat].act(state.observation(seat)))
    raise RuntimeError(f"{state.game!r}: no end after {MAX_STEPS} actions")


# --- internals -------------------------------------------------------------------------------

def _check(game: Game, observation: Observation) -> None:
    """Reject an observation of another game or seat count."""
    if observation.game != game.id or observation.num_seats != game.num_players:
        raise ValueError(
            f"the observation is of {observation.game} with {observation.num_seats} seats, "
            f"not of {game.id} with {game.num_players}")


def _search(walker: Walker) -> State | Failure:
    """Replay and repair until the walker reproduces the observation, or give up."""
    furthest = -1
    stalled = 0
    earlier = 0
    signature: tuple[object, ...] | None = None
    failure: Failure | None = None
    for _ in range(REPAIRS_PER_ATTEMPT):
        outcome = walker.walk()
        if isinstance(outcome, State):
            return outcome
        failure = outcome
        if failure.pos > furthest:
            furthest, stalled = failure.pos, 0
        else:
            stalled += 1
            if stalled > STALL_LIMIT:
                return failure
        now = (failure.kind, failure.pos, failure.observed, failure.replayed)
        repeated = now == signature and failure.kind == FailureKind.MISMATCH
        earlier = (earlier + 1) % EARLIER_ORDERS if repeated else 0
        signature = now
        if stalled and stalled % RESHUFFLE_AFTER == 0:
            changed = reshuffle(walker, failure)
        else:
            changed = repair(walker, failure, earlier)
        walker.invalidate_from(changed)
    assert failure is not None
    return failure


def _fresh_orders(game: Game, observation: Observation, rng: random.Random) -> list[list[int]]:
    """Random card orders, one per deal the observed events may need."""
    deals = 1 + sum(1 for event in observation.events
                    if event.kind in (EventKind.HAND_START, EventKind.REDEAL))
    orders = []
    for _ in range(deals):
        order = list(game.deck.cards)
        rng.shuffle(order)
        orders.append(order)
    return orders


def _segment_deal(walker: Walker) -> int:
    """The first deal order of the hands in progress at the end of the observation."""
    events = walker.target
    depth = 0
    first = 0
    for index, event in enumerate(events):
        if event.kind == EventKind.HAND_START:
            if depth == 0:
                first = index
            depth += 1
        elif event.kind == EventKind.HAND_END:
            depth = max(0, depth - 1)
    deals = [deal for deal, pos in walker.deal_pos.items() if pos <= first]
    return max(deals, default=0)


def _located(observation: Observation, first_event: int) -> set[int]:
    """Cards whose place the seat knows in the hands in progress (named cards excepted)."""
    cards = set(observation.hand) | set(observation.table)
    cards.update(card for _, card in observation.trick)
    for _, shown in observation.visible_hands:
        cards.update(shown)
    cards.add(observation.trump_card)
    for event in observation.events[first_event:]:
        if not names_only(event):
            cards.update(event.cards)
    cards.discard(HIDDEN)
    return cards


def _resampled(last: _Solution, observation: Observation, rng: random.Random, game: Game
               ) -> list[list[int]]:
    """The last solution's orders with the cards the seat has not located shuffled in place.

    Cards move only among places of the same deck copy (a copy may stand for a table).
    """
    orders = [list(order) for order in last.orders]
    first_event = _hand_segment_start(observation)
    fixed = _located(observation, first_event)
    for order in orders[last.segment_deal:]:
        for copy in range(game.deck.copies):
            places = [index for index, card in enumerate(order)
                      if card not in fixed and game.deck.copy(card) == copy]
            cards = [order[index] for index in places]
            rng.shuffle(cards)
            for index, card in zip(places, cards, strict=True):
                order[index] = card
    return orders


def _hand_segment_start(observation: Observation) -> int:
    """Index of the first HAND_START of the hands in progress (overlapping hands together)."""
    depth = 0
    first = 0
    for index, event in enumerate(observation.events):
        if event.kind == EventKind.HAND_START:
            if depth == 0:
                first = index
            depth += 1
        elif event.kind == EventKind.HAND_END:
            depth = max(0, depth - 1)
    return first
