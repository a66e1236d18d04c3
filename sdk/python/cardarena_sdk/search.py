"""Search helpers: sample a full state consistent with one seat's view, and play it out.

``sample_state(game, observation, rng)`` builds, with the engine itself, a state whose
``observation(seat)`` equals the given one, the cards the seat has not seen dealt at random.
It is generic: it replays the match from random deal orders, choosing actions whose events
reproduce the seat's view, and swaps cards in the orders when the replay cannot follow (see
``search_walk`` and ``search_repair``). It never sees the real match, only the observation.

``SamplingError`` says when no consistent state was found: games whose own chance lives in
the state and cannot be reproduced by a card order (Vecchia's reshuffled hand), or a table the
seat never sees that shows only in a public score (Tressette a toro over several rounds).

``Sampler`` does the same for many samples of one seat: it starts each from the last sample,
with the cards the seat has not located shuffled, so that later samples need few repairs.
"""

from __future__ import annotations

import random
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.games import EventKind, Game, Observation, State
from arena.games.cards import HIDDEN
from arena.policies import Policy
from cardarena_sdk.search_repair import repair, reshuffle
from cardarena_sdk.search_walk import (
    Checkpoint,
    Failure,
    FailureKind,
    OutOfTime,
    Walker,
    names_only,
    set_aside_cards,
)

SEED_ATTEMPTS = 4
"""Fresh starts (random orders and seed) before giving up."""
REPAIRS_PER_ATTEMPT = 400
"""Repairs (each followed by a replay) in one start."""
STALL_LIMIT = 40
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
    """The last sample for one seat: its deal orders, seed and replay checkpoints."""

    observation: Observation
    orders: list[list[int]]
    seed: int
    segment_deal: int
    """The first deal order of the hand (or overlapping hands) in progress."""
    checkpoints: list[Checkpoint]
    """Replay states before that deal, valid for any sample that keeps the earlier orders."""
    deal_pos: dict[int, int]


class Sampler:
    """Samples states of one game, starting each sample from the last one of the same seat.

    The start keeps what the seat has located and shuffles every other card of the hand in
    progress, so it is as random as a fresh start while needing few repairs; the earlier
    hands are not replayed again. Every sample is checked against the observation.
    """

    def __init__(self, game: Game) -> None:
        """Sample states of ``game``."""
        self.game = game
        self._last: dict[int, _Solution] = {}

    def sample(self, observation: Observation, rng: random.Random,
               deadline: float | None = None,
               clock: Callable[[], float] = time.perf_counter) -> State:
        """A state made by the engine whose ``observation(seat)`` equals ``observation``.

        With a ``deadline`` (a time of ``clock``), a search still repairing when it passes
        gives up with ``SamplingError``, so a bot on a clock can play its fallback in time.
        """
        _check(self.game, observation)
        seat = observation.seat
        reused = self._reusable(observation)
        failures: list[Failure] = []
        for attempt in range(SEED_ATTEMPTS):
            walker = self._walker(observation, rng, reused if attempt == 0 else None)
            outcome = _search(walker, deadline, clock)
            if outcome is None:
                raise SamplingError(
                    f"{self.game!r}: no state found for seat {seat}'s view of "
                    f"{len(observation.events)} events before the deadline")
            if isinstance(outcome, Failure):
                failures.append(outcome)
                continue
            if outcome.observation(seat) != observation:
                continue
            segment = _segment_deal(walker)
            self._last[seat] = _Solution(
                observation, [list(order) for order in walker.orders], walker.seed, segment,
                [cp for cp in walker.checkpoints if cp.deals <= segment],
                {deal: pos for deal, pos in walker.deal_pos.items() if deal < segment})
            return outcome
        raise SamplingError(_failure_message(self.game, observation, failures))

    def _walker(self, observation: Observation, rng: random.Random, reused: _Solution | None
                ) -> Walker:
        """A walker from the last solution (resampled) or from random orders and seed."""
        if reused is None:
            return Walker(self.game, observation, rng, _fresh_orders(self.game, observation, rng),
                          rng.getrandbits(62))
        orders = _resampled(reused, observation, rng, self.game)
        return Walker(self.game, observation, rng, orders, reused.seed,
                      list(reused.checkpoints), dict(reused.deal_pos))

    def _reusable(self, observation: Observation) -> _Solution | None:
        """The last solution for this seat when the new view extends its events."""
        last = self._last.get(observation.seat)
        if last is None:
            return None
        before = last.observation.events
        if observation.events[:len(before)] != before:
            return None
        return last


SHARED_SAMPLERS = 16
"""Game configurations whose last samples ``sample_state`` keeps."""
_SHARED: OrderedDict[tuple[object, ...], Sampler] = OrderedDict()


def sample_state(game: Game, observation: Observation, rng: random.Random) -> State:
    """A full state, made by the engine, whose ``observation(seat)`` equals ``observation``.

    The cards the seat has not seen are placed at random; raises ``SamplingError`` when no
    consistent state is found (games whose own random events cannot be reproduced). Repeated
    calls for one game and seat start from the previous sample (see ``Sampler``).
    """
    key = (game.id, game.num_players, tuple(sorted(game.params.items())))
    sampler = _SHARED.get(key)
    if sampler is None:
        sampler = _SHARED[key] = Sampler(game)
        while len(_SHARED) > SHARED_SAMPLERS:
            _SHARED.popitem(last=False)
    else:
        _SHARED.move_to_end(key)
    return sampler.sample(observation, rng)


def _failure_message(game: Game, observation: Observation, failures: list[Failure]) -> str:
    """Why sampling gave up: the furthest any replay got."""
    deepest = max(failures, key=lambda failure: failure.pos)
    return (f"{game!r}: no state found for seat {observation.seat}'s view of "
            f"{len(observation.events)} events after {SEED_ATTEMPTS} fresh starts; the furthest "
            f"replay stopped at event {deepest.pos} ({deepest.kind.value}: observed "
            f"{deepest.observed}, replayed {deepest.replayed}); the game's own chance events "
            f"may not be reproducible from deal orders")


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


def _search(walker: Walker, deadline: float | None = None,
            clock: Callable[[], float] = time.perf_counter) -> State | Failure | None:
    """Replay and repair until the walker reproduces the observation, or give up (None when
    the deadline passed first)."""
    furthest = -1
    stalled = 0
    earlier = 0
    signature: tuple[object, ...] | None = None
    failure: Failure | None = None
    walker.deadline, walker.clock = deadline, clock
    for _ in range(REPAIRS_PER_ATTEMPT):
        if deadline is not None and clock() > deadline:
            return None
        try:
            outcome = walker.walk()
        except OutOfTime:
            return None
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
    first = _hand_segment_start(walker.observation)
    deals = [deal for deal, pos in walker.deal_pos.items() if pos <= first]
    return max(deals, default=0)


def located_cards(observation: Observation) -> set[int]:
    """Cards whose place the seat knows in the hands in progress (named cards excepted)."""
    return _located(observation, _hand_segment_start(observation))


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
    fixed = _located(observation, first_event) | set_aside_cards(game)
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
