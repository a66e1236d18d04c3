"""Replay a match from injected deal orders, choosing actions that reproduce one seat's view.

A ``Walker`` holds the card order of every deal and the seed of a candidate match. ``walk``
replays it from the start (or from a saved deal checkpoint): at each decision it picks a legal
action whose events, as the observing seat sees them, equal the next observed events. Actions
whose events the seat sees in full are found by their meaning; hidden ones are tried on clones in
random order, and the untried ones are kept as choice points to backtrack to. When no action
fits, or an event the action brings (a deal, a draw) shows other cards, the walk returns a
``Failure`` for the repairs (``search_repair``) to act on.
"""

from __future__ import annotations

import random
import time
from bisect import bisect_right
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from enum import Enum

from arena.games import Event, EventKind, Game, Observation, State
from arena.games.cards import HIDDEN

CLOCK_EVERY = 32
"""A walk with a deadline reads the clock every this many steps."""
BACKTRACKS_PER_WALK = 64
"""Choice points revisited in one walk before its deepest failure is handed to the repairs."""
IDENTITY_CHECKS = 8
"""Decisions at which every card-sized legal id played its card before trusting that."""
CHECKPOINT_LOOKAHEAD = 16
"""An action is preceded by a checkpoint when a hand may start within this many observed events."""
DEAL_KINDS = frozenset({EventKind.HAND_START, EventKind.HAND_END, EventKind.REDEAL})
"""Observed events after which a new deal order may be consumed."""
HAND_KINDS = frozenset({EventKind.PLAY, EventKind.PLAY_FACE_DOWN, EventKind.DECLARE,
                        EventKind.PASS, EventKind.SWAP})
"""Events whose visible cards leave (or are shown from) the hand of the event's seat."""


class FailureKind(Enum):
    """How a replay left the observed events."""

    MISMATCH = "an event shows other cards or another seat than observed"
    UNREACHABLE = "no legal action reproduces the next observed event"
    EXTRA = "the replay and the observation disagree on what comes next"
    END = "every observed event is matched but the observation differs"


@dataclass
class Failure:
    """Where and how a replay could not follow the observation."""

    kind: FailureKind
    pos: int
    """Index of the first observed event not reproduced."""
    start: int
    """Index of the first observed event of the failing action (or chance event)."""
    observed: Event | None
    replayed: Event | None
    state: State
    """The replay at the failure: before the action for UNREACHABLE, after it otherwise."""
    actor: int

    @property
    def deal(self) -> int:
        """Index of the latest deal order the replay had consumed."""
        return len(self.state.deals()) - 1


@dataclass
class Checkpoint:
    """A replay state from which a walk may resume: before the action that consumed a deal."""

    deals: int
    """Deal orders consumed by the state."""
    state: State
    pos: int
    logpos: int


@dataclass
class Choice:
    """A decision where several actions fit the observation; the untried ones remain."""

    state: State
    pos: int
    logpos: int
    remaining: list[int]


class OutOfTime(Exception):
    """A walk's deadline passed."""


@dataclass
class Walker:
    """A candidate match (deal orders and seed) replayed against one seat's observation."""

    game: Game
    observation: Observation
    rng: random.Random
    orders: list[list[int]]
    seed: int
    checkpoints: list[Checkpoint] = field(default_factory=list)
    deal_pos: dict[int, int] = field(default_factory=dict)
    """Observed-event index at which each deal order was first seen consumed."""
    forbidden: dict[tuple[int, int], set[int]] = field(default_factory=dict)
    """(deal, seat) -> cards the seat cannot have held when it acted (learned from repairs)."""
    deadline: float | None = None
    """When ``clock()`` passes it, a walk raises ``OutOfTime``."""
    clock: Callable[[], float] = time.perf_counter

    def __post_init__(self) -> None:
        """Index the observed events."""
        self.seat = self.observation.seat
        self.target: tuple[Event, ...] = self.observation.events
        self.uses = _uses(self.target, self.game.num_players, HAND_KINDS)
        self.reveals = _uses(self.target, self.game.num_players, {EventKind.REVEAL})
        self.next_hand = _next_of_kinds(self.target, {EventKind.HAND_START})
        self.copies_apart = _copies_apart(self.game, self.target)
        self.set_aside = set_aside_cards(self.game)
        self.next_deal_event = _next_of_kinds(self.target, DEAL_KINDS)
        self.card_ids_play: bool | None = None
        """Whether a legal action id below the deck size plays that card (learned)."""
        self._identity_checks = 0
        self._seen: dict[tuple[int, int], frozenset[int]] = {}

    # --- resuming ---------------------------------------------------------------------------

    def invalidate_from(self, deal: int) -> None:
        """Forget checkpoints that depend on deal order ``deal`` or later."""
        self.checkpoints = [cp for cp in self.checkpoints if cp.deals <= deal]

    def reset(self) -> None:
        """Forget every checkpoint (after a new seed or new orders)."""
        self.checkpoints = []
        self.deal_pos = {}

    def _resume(self) -> tuple[State, int, int]:
        """The latest checkpoint (patched with the current orders), or a fresh initial state.

        A checkpoint is a clone taken before a deal; the orders of that deal and the later
        ones are written into its injected deals (``State._injected``, the list the engine
        takes them from), or the walk starts afresh when a state has no such list.
        """
        if self.checkpoints:
            cp = self.checkpoints[-1]
            state = cp.state.clone()
            injected = getattr(state, "_injected", None)
            if isinstance(injected, list) and len(injected) == len(self.orders):
                for index in range(cp.deals, len(self.orders)):
                    injected[index] = tuple(self.orders[index])
                self.deal_pos = {k: v for k, v in self.deal_pos.items() if k < cp.deals}
                return state, cp.pos, cp.logpos
            self.checkpoints = []
        self.deal_pos = {}
        state = self.game.new_initial_state(self.seed, deal=[tuple(o) for o in self.orders])
        return state, 0, 0

    # --- walking ----------------------------------------------------------------------------

    def walk(self) -> State | Failure:
        """Replay until the observation is reproduced (the state) or a failure."""
        state, pos, logpos = self._resume()
        first = self._consume(state, pos, logpos, -1)
        if isinstance(first, Failure):
            return first
        pos, logpos = first
        stack: list[Choice] = []
        deepest: Failure | None = None
        backtracks = 0
        steps = 0
        while True:
            steps += 1
            if self.deadline is not None and steps % CLOCK_EVERY == 0 and (
                    self.clock() > self.deadline):
                raise OutOfTime
            outcome = self._advance(state, pos, logpos, stack)
            if isinstance(outcome, State):
                return outcome
            if isinstance(outcome, tuple):
                state, pos, logpos = outcome
                continue
            if deepest is None or outcome.pos > deepest.pos:
                deepest = outcome
            self._jump_to_culprit(stack, outcome)
            resumed = None
            while stack and backtracks < BACKTRACKS_PER_WALK and resumed is None:
                backtracks += 1
                resumed = self._retry(stack)
            if resumed is None:
                return deepest
            state, pos, logpos = resumed

    def _advance(self, state: State, pos: int, logpos: int, stack: list[Choice]
                 ) -> State | Failure | tuple[State, int, int]:
        """One decision: the finished state, a failure, or the state after a fitting action."""
        target = self.target
        if pos == len(target) and state.observation(self.seat) == self.observation:
            return state
        if state.is_terminal():
            return Failure(FailureKind.END if pos == len(target) else FailureKind.EXTRA, pos,
                           pos, target[pos] if pos < len(target) else None, None, state, -1)
        actor = state.current_player()
        legal = state.legal_actions()
        nxt = target[pos] if pos < len(target) else None
        ranked, unique = self._rank(state, actor, legal, nxt, pos)
        if unique is not None:
            return self._apply_in_place(state, unique, pos, logpos, actor)
        return self._try(state, ranked, pos, logpos, actor, stack)

    def _rank(self, state: State, actor: int, legal: list[int], nxt: Event | None, pos: int
              ) -> tuple[list[int], int | None]:
        """Legal actions, likeliest first, and the one action that must be it (if any)."""
        if len(legal) == 1:
            if nxt is None or nxt.seat != actor:
                return legal, None
            shown = set(nxt.cards) - {HIDDEN}
            meant = set(state.action_meaning(legal[0]).cards)
            if shown and meant and not shown & meant:
                return ([], None) if not self._hidden_turn(state, actor) else (legal, legal[0])
            return legal, legal[0]
        rng = self.rng
        if nxt is not None and nxt.seat != actor and self._hidden_turn(state, actor):
            return legal, rng.choice(legal)
        if nxt is None or nxt.seat != actor or not nxt.cards:
            shuffled = legal[:]
            rng.shuffle(shuffled)
            if nxt is not None and nxt.seat == actor and not nxt.cards and nxt.values:
                shuffled.sort(key=lambda a: state.action_meaning(a).value not in nxt.values)
            return shuffled, None
        cards = nxt.cards
        if HIDDEN in cards:
            used = self.uses[actor]
            shown = self.reveals[actor]
            stop = self.next_hand[pos]
            shuffled = legal[:]
            rng.shuffle(shuffled)

            def key(action: int) -> tuple[bool, bool]:
                """Cards revealed later this hand first; cards played or shown later last."""
                meant = state.action_meaning(action).cards
                return (not any(_occurs(shown, c, pos, stop) for c in meant),
                        any(_occurs(used, c, pos, stop) for c in meant))

            shuffled.sort(key=key)
            return shuffled, None
        run = self.run_cards(pos)
        if len(run) == 1 and self.card_ids_play:
            unique = self._card_play(state, legal, run[0])
            if unique is not None:
                return [unique], unique
        exact: list[int] = []
        part: list[int] = []
        close: list[int] = []
        rest: list[int] = []
        wanted = set(run)
        size = self.game.deck.size
        identity = True
        for action in legal:
            meant = state.action_meaning(action).cards
            if action < size and meant != (action,):
                identity = False
            if meant == run:
                exact.append(action)
            elif meant and meant == run[:len(meant)]:
                part.append(action)
            elif wanted & set(meant):
                close.append(action)
            else:
                rest.append(action)
        self._learn_identity(identity)
        if len(exact) == 1 and not part and not close:
            return exact, exact[0]
        if not (exact or part or close) and self._hidden_turn(state, actor):
            return legal, rng.choice(legal)
        for group in (exact, part, close, rest):
            rng.shuffle(group)
        part.sort(key=lambda action: -len(state.action_meaning(action).cards))
        return exact + part + close + rest, None

    def _learn_identity(self, identity: bool) -> None:
        """Record whether card-sized action ids were plays of that card at one decision."""
        if not identity:
            self.card_ids_play = False
        elif self.card_ids_play is None:
            self._identity_checks += 1
            if self._identity_checks >= IDENTITY_CHECKS:
                self.card_ids_play = True

    def _card_play(self, state: State, legal: list[int], card: int) -> int | None:
        """The action playing ``card`` when it is the only legal action showing that card.

        Used once card ids have proved to be their own plays: only actions beyond the deck's
        ids (declarations, swaps, captures) need their meanings read.
        """
        if card not in legal or state.action_meaning(card).cards != (card,):
            return None
        size = self.game.deck.size
        for action in legal:
            if action >= size and card in state.action_meaning(action).cards:
                return None
        return card

    def _hidden_turn(self, state: State, actor: int) -> bool:
        """True when the observer may not even see who acts now (a table it does not sit at)."""
        return state.observation(self.seat).current_player != actor

    def run_cards(self, pos: int) -> tuple[int, ...]:
        """The cards of the observed events from ``pos`` with its kind and seat, in a row."""
        target = self.target
        first = target[pos]
        cards: list[int] = []
        index = pos
        while index < len(target) and (target[index].kind, target[index].seat) == (
                first.kind, first.seat) and HIDDEN not in target[index].cards:
            cards.extend(target[index].cards)
            index += 1
        return tuple(cards)

    def _splits_run(self, state: State, pos: int, new_pos: int) -> bool:
        """True when an action stopped inside a row of one seat's events that it cannot go on.

        A set played as several PLAY events must come from one action: when the seat that
        played the row's last event is not to act now (and the observer would see who is),
        the action played too few of its cards.
        """
        target = self.target
        if not pos < new_pos < len(target):
            return False
        last, nxt = target[new_pos - 1], target[new_pos]
        if (nxt.kind, nxt.seat) != (last.kind, last.seat) or nxt.kind not in HAND_KINDS:
            return False
        actor = state.current_player()
        if actor == nxt.seat or state.is_terminal():
            return False
        return state.observation(self.seat).current_player == actor

    def _apply_in_place(self, state: State, action: int, pos: int, logpos: int, actor: int
                        ) -> Failure | tuple[State, int, int]:
        """Apply the one action the next event names, then check what it brought."""
        checkpoint = self._maybe_checkpoint(state, pos, logpos)
        before = len(state.deals())
        state.apply_action(action)
        if checkpoint is not None and len(state.deals()) > before:
            self._save(checkpoint)
        result = self._consume(state, pos, logpos, actor)
        if isinstance(result, Failure):
            return result
        return state, *result

    def _try(self, state: State, ranked: list[int], pos: int, logpos: int, actor: int,
             stack: list[Choice]) -> Failure | tuple[State, int, int]:
        """Try actions on clones in order; the first that fits wins, the rest stay a choice."""
        best: Failure | None = None
        nxt_exists = pos < len(self.target)
        for index, action in enumerate(ranked):
            twin = state.clone()
            twin.apply_action(action)
            result = self._consume(twin, pos, logpos, actor)
            if isinstance(result, Failure):
                if best is None or result.pos > best.pos:
                    best = result
                continue
            new_pos, new_logpos = result
            if self._splits_run(twin, pos, new_pos):
                if best is None:
                    best = Failure(FailureKind.UNREACHABLE, pos, pos, self.target[pos], None,
                                   state, actor)
                continue
            if len(twin.deals()) > len(state.deals()):
                self._save(Checkpoint(len(state.deals()), state, pos, logpos))
            rest = ranked[index + 1:]
            if rest and self._ambiguous(pos, actor):
                stack.append(Choice(state, pos, logpos, rest))
            return twin, new_pos, new_logpos
        if best is None or best.pos == pos:
            nxt = self.target[pos] if nxt_exists else None
            return Failure(FailureKind.UNREACHABLE if nxt_exists else FailureKind.END, pos, pos,
                           nxt, best.replayed if best else None, state, actor)
        return best

    def _ambiguous(self, pos: int, actor: int) -> bool:
        """True when the observed event at ``pos`` may hide which action ``actor`` took."""
        if pos >= len(self.target):
            return True
        event = self.target[pos]
        return event.seat != actor or HIDDEN in event.cards

    def _jump_to_culprit(self, stack: list[Choice], failure: Failure) -> None:
        """Drop choice points back to the latest one that could have kept the needed cards.

        When an observed action needs cards the actor lacks, the latest hidden choice with an
        untried action involving one of them is the one to revisit: another seat's choice
        (a card given unseen) tries those actions first, the actor's own choice (a card it
        passed or put aside) tries them last.
        """
        if failure.kind != FailureKind.UNREACHABLE or failure.observed is None or not stack:
            return
        if not 0 <= failure.actor < self.game.num_players:
            return
        needed = set(self.run_cards(failure.pos)) - set(
            failure.state.observation(failure.actor).hand)
        if not needed:
            return
        for index in range(len(stack) - 1, -1, -1):
            choice = stack[index]
            hits = [action for action in choice.remaining
                    if needed & set(choice.state.action_meaning(action).cards)]
            if not hits:
                continue
            rest = [action for action in choice.remaining if action not in hits]
            if choice.state.current_player() == failure.actor:
                if not rest:
                    continue
                choice.remaining = rest + hits
            else:
                choice.remaining = hits + rest
            del stack[index + 1:]
            return

    def _retry(self, stack: list[Choice]) -> tuple[State, int, int] | None:
        """The next untried action of the latest choice point that fits, or None."""
        choice = stack[-1]
        while choice.remaining:
            action = choice.remaining.pop(0)
            twin = choice.state.clone()
            twin.apply_action(action)
            result = self._consume(twin, choice.pos, choice.logpos, choice.state.current_player())
            if isinstance(result, Failure) or self._splits_run(twin, choice.pos, result[0]):
                continue
            if not choice.remaining:
                stack.pop()
            return twin, *result
        stack.pop()
        return None

    def _consume(self, state: State, pos: int, logpos: int, actor: int
                 ) -> Failure | tuple[int, int]:
        """Match the seat's new events with the observed ones: new positions or a failure."""
        new = state.events_since(self.seat, logpos)
        deals = len(state.deals())
        if deals and deals - 1 not in self.deal_pos:
            begin = _deal_begins(new)
            for index in range(deals):
                self.deal_pos.setdefault(index, pos + begin)
        target = self.target
        count = len(new)
        if target[pos:pos + count] != new:
            index = 0
            while pos + index < len(target) and target[pos + index] == new[index]:
                index += 1
            at = pos + index
            observed = target[at] if at < len(target) else None
            kind = FailureKind.MISMATCH if observed is not None else FailureKind.EXTRA
            return Failure(kind, at, pos, observed, new[index], state, actor)
        return pos + count, state.event_count()

    # --- checkpoints ------------------------------------------------------------------------

    def _maybe_checkpoint(self, state: State, pos: int, logpos: int) -> Checkpoint | None:
        """A clone before an action that may deal, judged from the observed events ahead."""
        if self.next_deal_event[pos] - pos < CHECKPOINT_LOOKAHEAD:
            return Checkpoint(len(state.deals()), state.clone(), pos, logpos)
        return None

    def _save(self, checkpoint: Checkpoint) -> None:
        """Keep a checkpoint, replacing any at the same or a later deal."""
        self.checkpoints = [cp for cp in self.checkpoints if cp.deals < checkpoint.deals]
        self.checkpoints.append(checkpoint)

    # --- what the seat has seen -------------------------------------------------------------

    def seen_between(self, start: int, stop: int) -> set[int]:
        """Cards the seat saw placed in observed events ``start:stop`` (naming is not placing)."""
        key = (start, stop)
        seen = self._seen.get(key)
        if seen is None:
            found: set[int] = set()
            for event in self.target[start:stop]:
                if not names_only(event):
                    found.update(event.cards)
            found.discard(HIDDEN)
            seen = self._seen[key] = frozenset(found)
        return set(seen)

    def deal_start(self, deal: int) -> int:
        """Observed-event index where deal ``deal`` began (0 when unknown)."""
        return self.deal_pos.get(deal, 0)

    def deal_at(self, pos: int, latest: int) -> int:
        """The deal in effect at observed event ``pos`` (at most ``latest``)."""
        begun = [deal for deal, start in self.deal_pos.items() if start <= pos and deal <= latest]
        return max(begun, default=latest)

    def deal_stop(self, deal: int, after: int) -> int:
        """Observed-event index where the deal after ``deal`` begins (at or after ``after``).

        Known once a replay got there; else the next HAND_START or REDEAL, or the end.
        """
        known = self.deal_pos.get(deal + 1)
        if known is not None:
            return known
        for index in range(after, len(self.target)):
            kind = self.target[index].kind
            if kind == EventKind.HAND_START:
                return index
            if kind == EventKind.REDEAL:
                return index + 1
        return len(self.target)

    def located_now(self) -> set[int]:
        """Cards whose place the seat knows from the observation's fields beyond the events."""
        obs = self.observation
        cards = set(obs.hand) | set(obs.table) | {card for _, card in obs.trick}
        for _, shown in obs.visible_hands:
            cards.update(shown)
        cards.add(obs.trump_card)
        cards.discard(HIDDEN)
        return cards


def names_only(event: Event) -> bool:
    """True for an event that names cards without placing them: a call, a commitment (shown)."""
    return event.kind in (EventKind.CALL, EventKind.COMMIT) or (
        event.kind == EventKind.REVEAL and bool(event.values))


SET_ASIDE_PROBES = 64
"""Random first deals inspected to find the cards a configuration never deals."""


def set_aside_cards(game: Game) -> frozenset[int]:
    """Cards the rules remove from the deck by identity (a 2 of bastoni with 3 seats).

    Found by dealing the first hand from random orders: a card no deal ever shows outside
    HAND_START and HAND_END is set aside whatever its place, so moving it would shift every
    card after it. Cached per configuration.
    """
    key = (game.id, game.num_players, tuple(sorted(game.params.items())))
    cached = _SET_ASIDE.get(key)
    if cached is None:
        rng = random.Random(0)
        dealt: set[int] = set()
        for index in range(SET_ASIDE_PROBES):
            order = list(game.deck.cards)
            rng.shuffle(order)
            state = game.new_initial_state(index, deal=[order])
            for event in state.full_events():
                if event.kind not in (EventKind.HAND_START, EventKind.HAND_END):
                    dealt.update(event.cards)
        unseen = frozenset(game.deck.cards) - dealt
        cached = _SET_ASIDE[key] = unseen if len(unseen) < game.deck.size // 2 else frozenset()
    return cached


_SET_ASIDE: dict[tuple[object, ...], frozenset[int]] = {}


def _next_of_kinds(events: Sequence[Event], kinds: Collection[EventKind]) -> list[int]:
    """For each index (and one past the end): the index of the next event of ``kinds``.

    Where none follows, a number far beyond the end.
    """
    nxt = [2 * len(events) + CHECKPOINT_LOOKAHEAD] * (len(events) + 1)
    for index in range(len(events) - 1, -1, -1):
        nxt[index] = index if events[index].kind in kinds else nxt[index + 1]
    return nxt


def _copies_apart(game: Game, events: Sequence[Event]) -> bool:
    """True when each hand dealt to the seat holds one deck copy (a copy is a table's deck).

    Cards then move only among places of their own copy: the order of a copy's cards decides
    that table's deal.
    """
    copy = game.deck.copy
    dealt = [event.cards for event in events
             if event.kind == EventKind.DEAL and event.cards and HIDDEN not in event.cards]
    return game.deck.copies > 1 and bool(dealt) and all(
        len({copy(card) for card in cards}) == 1 for cards in dealt)


def _deal_begins(events: Sequence[Event]) -> int:
    """Where a deal made during these events begins: its HAND_START, or after a REDEAL."""
    begin = 0
    for index, event in enumerate(events):
        if event.kind == EventKind.HAND_START:
            begin = index
        elif event.kind == EventKind.REDEAL:
            begin = index + 1
    return begin


def _uses(events: Sequence[Event], seats: int, kinds: Collection[EventKind]
          ) -> list[dict[int, list[int]]]:
    """Per seat: card -> the observed-event indices (ascending) where ``kinds`` show it."""
    uses: list[dict[int, list[int]]] = [{} for _ in range(seats + 1)]
    for index, event in enumerate(events):
        if event.kind in kinds and 0 <= event.seat <= seats:
            for card in event.cards:
                if card != HIDDEN:
                    uses[event.seat].setdefault(card, []).append(index)
    return uses


def _occurs(uses: dict[int, list[int]], card: int, after: int, before: int) -> bool:
    """True when ``card`` has a use at an index strictly between ``after`` and ``before``."""
    indices = uses.get(card)
    if not indices:
        return False
    at = bisect_right(indices, after)
    return at < len(indices) and indices[at] < before
