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
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from enum import Enum

from arena.games import Event, EventKind, Game, Observation, State
from arena.games.cards import HIDDEN

BACKTRACKS_PER_WALK = 24
"""Choice points revisited in one walk before its deepest failure is handed to the repairs."""
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
    EXTRA = "the replay needs events the observation does not have"
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

    def __post_init__(self) -> None:
        """Index the observed events."""
        self.seat = self.observation.seat
        self.target: tuple[Event, ...] = self.observation.events
        self.last_use = _last_use(self.target, self.game.num_players, HAND_KINDS)
        self.reveals = _last_use(self.target, self.game.num_players, {EventKind.REVEAL})

    # --- resuming ---------------------------------------------------------------------------

    def invalidate_from(self, deal: int) -> None:
        """Forget checkpoints that depend on deal order ``deal`` or later."""
        self.checkpoints = [cp for cp in self.checkpoints if cp.deals <= deal]

    def reset(self) -> None:
        """Forget every checkpoint (after a new seed or new orders)."""
        self.checkpoints = []
        self.deal_pos = {}

    def _resume(self) -> tuple[State, int, int]:
        """The latest checkpoint (patched with the current orders), or a fresh initial state."""
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
        while True:
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
            if shown and not shown & set(state.action_meaning(legal[0]).cards):
                return [], None
            return legal, legal[0]
        rng = self.rng
        if nxt is None or nxt.seat != actor or not nxt.cards:
            shuffled = legal[:]
            rng.shuffle(shuffled)
            if nxt is not None and nxt.seat == actor and not nxt.cards and nxt.values:
                shuffled.sort(key=lambda a: state.action_meaning(a).value not in nxt.values)
            return shuffled, None
        cards = nxt.cards
        if HIDDEN in cards:
            used = self.last_use[actor]
            shown = self.reveals[actor]
            shuffled = legal[:]
            rng.shuffle(shuffled)

            def key(action: int) -> tuple[bool, bool]:
                """Cards revealed later first; cards played or shown later last."""
                meant = state.action_meaning(action).cards
                return (not any(shown.get(c, -1) > pos for c in meant),
                        any(used.get(c, -1) > pos for c in meant))

            shuffled.sort(key=key)
            return shuffled, None
        run = self.run_cards(pos)
        exact: list[int] = []
        part: list[int] = []
        close: list[int] = []
        rest: list[int] = []
        wanted = set(run)
        for action in legal:
            meant = state.action_meaning(action).cards
            if meant == run:
                exact.append(action)
            elif meant and meant == run[:len(meant)]:
                part.append(action)
            elif wanted & set(meant):
                close.append(action)
            else:
                rest.append(action)
        if len(exact) == 1 and not part and not close:
            return exact, exact[0]
        for group in (exact, part, close, rest):
            rng.shuffle(group)
        part.sort(key=lambda action: -len(state.action_meaning(action).cards))
        return exact + part + close + rest, None

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
        untried action involving one of them (a card given back unseen) is the one to revisit;
        its actions with those cards are tried first.
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
            if hits:
                del stack[index + 1:]
                choice.remaining = hits + [a for a in choice.remaining if a not in hits]
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
        ahead = self.target[pos:pos + CHECKPOINT_LOOKAHEAD]
        if any(event.kind in DEAL_KINDS for event in ahead):
            return Checkpoint(len(state.deals()), state.clone(), pos, logpos)
        return None

    def _save(self, checkpoint: Checkpoint) -> None:
        """Keep a checkpoint, replacing any at the same or a later deal."""
        self.checkpoints = [cp for cp in self.checkpoints if cp.deals < checkpoint.deals]
        self.checkpoints.append(checkpoint)

    # --- what the seat has seen -------------------------------------------------------------

    def seen_between(self, start: int, stop: int) -> set[int]:
        """Cards the seat saw placed in observed events ``start:stop`` (naming is not placing)."""
        seen: set[int] = set()
        for event in self.target[start:stop]:
            if not names_only(event):
                seen.update(event.cards)
        seen.discard(HIDDEN)
        return seen

    def deal_start(self, deal: int) -> int:
        """Observed-event index where deal ``deal`` began (0 when unknown)."""
        return self.deal_pos.get(deal, 0)

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


def _deal_begins(events: Sequence[Event]) -> int:
    """Where a deal made during these events begins: its HAND_START, or after a REDEAL."""
    begin = 0
    for index, event in enumerate(events):
        if event.kind == EventKind.HAND_START:
            begin = index
        elif event.kind == EventKind.REDEAL:
            begin = index + 1
    return begin


def _last_use(events: Sequence[Event], seats: int, kinds: Collection[EventKind]
              ) -> list[dict[int, int]]:
    """Per seat: card -> the last observed-event index where an event of ``kinds`` shows it."""
    uses: list[dict[int, int]] = [{} for _ in range(seats + 1)]
    for index, event in enumerate(events):
        if event.kind in kinds and 0 <= event.seat <= seats:
            for card in event.cards:
                if card != HIDDEN:
                    uses[event.seat][card] = index
    return uses
