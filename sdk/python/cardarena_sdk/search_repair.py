"""Repairs: swap cards in a candidate's deal orders so that its replay gets past a failure.

Every repair moves only cards the observing seat has not seen placed earlier in the same deal
(and never a card the rules set aside by identity), so what already matched keeps matching:
- an event shows card x where the replay had y (a deal, a draw, the dead hand's play): swap x
  and y in the deal order; when the seat kept x and gave y (its best cards), send y away;
- an event shows cards of a seat the replay gave to another (who holds the 4 of denari): move
  them into that seat's hand;
- an observed action is not legal in the replay: the cards it shows (a set played as several
  events counts whole) are missing from the actor's hand: move them in, swapping out cards the
  seat does not play later, and give every hidden hand the cards its seat plays later while
  there is room; or the actor holds cards that change the action (a lower card of the set's
  rank) or make it illegal (following suit): swap those out, preferring cards of another suit
  from seats not known to lack it (what made the action illegal is remembered per deal);
- anything else: swap two unseen cards at random (a perturbation).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence

from arena.games import EventKind, GameError, State
from arena.games.cards import HIDDEN
from cardarena_sdk.search_walk import HAND_KINDS, Failure, FailureKind, Walker

ACTION_CARD_KINDS = HAND_KINDS | {EventKind.CAPTURE, EventKind.REDEAL, EventKind.REVEAL}
"""Observed actions whose visible cards come from the actor's hand."""


class Repair:
    """One repair of a walker's deal orders, for one failure."""

    def __init__(self, walker: Walker, failure: Failure, earlier: int) -> None:
        """Work on deal ``failure.deal - earlier`` (earlier orders when a repair did not help)."""
        self.walker = walker
        self.failure = failure
        self.rng: random.Random = walker.rng
        latest = failure.deal
        _extend_orders(walker, failure.state, latest)
        latest = walker.deal_at(failure.pos, latest)
        self.deal = max(0, latest - earlier)
        self.order = walker.orders[self.deal]
        start = walker.deal_start(self.deal)
        self.stop = walker.deal_stop(self.deal, failure.pos)
        self.seen_before = walker.seen_between(start, failure.pos) | walker.set_aside
        self.seen_ever = walker.seen_between(start, self.stop) | walker.set_aside
        if self.stop >= len(walker.target):
            self.seen_ever |= walker.located_now()
        self.copy = walker.game.deck.copy
        self.strict_copies = walker.copies_apart
        self._hands: dict[int, set[int]] | None = None
        self._owner: dict[int, int] = {}

    # --- entry point ------------------------------------------------------------------------

    def run(self) -> int:
        """Apply the repair; returns the index of the deal order it changed."""
        failure = self.failure
        done = False
        if failure.kind == FailureKind.MISMATCH:
            done = self._mismatch()
        elif failure.kind == FailureKind.UNREACHABLE:
            done = self._unreachable()
        elif failure.kind == FailureKind.END:
            done = self._end()
        if not done:
            self._perturb(failure.actor)
        return self.deal

    # --- the cases --------------------------------------------------------------------------

    def _mismatch(self) -> bool:
        """An event of the replay differs from the observed one."""
        observed, replayed = self.failure.observed, self.failure.replayed
        assert observed is not None and replayed is not None
        shown = _visible(observed.cards)
        if not shown:
            return False
        same_place = (observed.kind, observed.seat) == (replayed.kind, replayed.seat)
        if same_place and len(observed.cards) == len(replayed.cards) and HIDDEN not in (
                *observed.cards, *replayed.cards):
            wanted = Counter(observed.cards) - Counter(replayed.cards)
            extra = list((Counter(replayed.cards) - Counter(observed.cards)).elements())
            movable = [card for card in wanted.elements() if card not in self.seen_before]
            if movable and extra:
                self.rng.shuffle(extra)
                self.hands()
                for card, other in zip(movable, extra, strict=False):
                    if observed.kind in HAND_KINDS and self._owner.get(card) == observed.seat:
                        self._send_away(other, observed.seat)
                    else:
                        self._swap(card, other)
                return True
            if not wanted:
                for mine, theirs in zip(observed.cards, replayed.cards, strict=True):
                    if mine != theirs:
                        self._swap(mine, theirs)
                        return True
            return False
        return self._move_into_hand(observed.seat, shown)

    def _unreachable(self) -> bool:
        """No legal action of the replay reproduces the observed action."""
        failure = self.failure
        observed = failure.observed
        actor = failure.actor
        if observed is None or observed.seat != actor:
            return False
        shown = _visible(observed.cards)
        if not shown and observed.cards:
            shown = self._revealed_later(actor)
            return bool(shown) and self._move_into_hand(actor, shown)
        if not shown or observed.kind not in ACTION_CARD_KINDS:
            return False
        hand = self.hands().get(actor)
        if hand is None:
            return False
        shown = list(self.walker.run_cards(failure.pos)) or shown
        missing = [card for card in shown if card not in hand and card not in self.seen_before]
        if missing:
            moved = self._move_into_hand(actor, missing, self._later_plays(actor, hand))
            if moved:
                self._place_later_plays(actor)
            return moved
        state = failure.state
        meanings = [state.action_meaning(action).cards for action in state.legal_actions()]
        keep = set(shown) | self._plays_from(actor) | self.seen_before
        extra = {card for cards in meanings if set(cards) & set(shown) for card in cards
                 if card in hand and card not in keep}
        if extra:
            return self._replace_in_hand(actor, sorted(extra))
        blocking = {card for cards in meanings for card in cards
                    if card in hand and card not in shown and card not in self.seen_before}
        if not blocking:
            return False
        self._forbidden(actor).update(blocking)
        return self._replace_in_hand(actor, sorted(blocking))

    def _end(self) -> bool:
        """Every event matched, yet a hand the rules show differs."""
        state = self.failure.state
        mine = dict(state.observation(self.walker.seat).visible_hands)
        for seat, cards in self.walker.observation.visible_hands:
            if mine.get(seat) != cards and self._move_into_hand(seat, cards):
                return True
        return False

    def _revealed_later(self, seat: int) -> list[int]:
        """The cards of ``seat``'s next REVEAL in this deal (its hidden play turned up)."""
        for event in self.walker.target[self.failure.pos + 1:self.stop]:
            if event.seat == seat and event.kind == EventKind.REVEAL:
                cards = _visible(event.cards)
                if cards:
                    return [card for card in cards if card not in self.seen_before]
        return []

    def _place_later_plays(self, skip: int) -> None:
        """Give every other hidden hand the cards its seat plays later, while it has room."""
        for seat, hand in sorted(self.hands().items()):
            if seat not in (skip, self.walker.seat):
                later = self._later_plays(seat, hand)
                if later:
                    self._move_into_hand(seat, (), later)

    def _played_last(self, seat: int, cards: Sequence[int]) -> list[int]:
        """Of ``cards`` (all played later by ``seat``), the one it plays last (drawn late)."""
        first: dict[int, int] = {}
        for index in range(self.failure.pos, self.stop):
            event = self.walker.target[index]
            if event.seat == seat and event.kind in HAND_KINDS:
                for card in event.cards:
                    first.setdefault(card, index)
        return [max(cards, key=lambda card: first.get(card, len(self.walker.target)))] if cards \
            else []

    def _plays_from(self, seat: int) -> set[int]:
        """Every card ``seat`` plays or shows from now to the end of this deal."""
        cards: set[int] = set()
        for event in self.walker.target[self.failure.pos:self.stop]:
            if event.seat == seat and event.kind in HAND_KINDS:
                cards.update(event.cards)
        cards.discard(HIDDEN)
        return cards

    def _later_plays(self, seat: int, hand: set[int]) -> list[int]:
        """Cards ``seat`` plays or shows later in this deal that the replay has elsewhere."""
        later: list[int] = []
        for event in self.walker.target[self.failure.pos + 1:self.stop]:
            if event.seat == seat and event.kind in HAND_KINDS:
                later.extend(card for card in event.cards if card != HIDDEN
                             and card not in hand and card not in self.seen_before
                             and card not in later)
        return later

    # --- moves ------------------------------------------------------------------------------

    def _move_into_hand(self, seat: int, cards: Sequence[int], optional: Sequence[int] = ()
                        ) -> bool:
        """Put ``cards`` (then, while unseen cards remain to give, ``optional``) in a hand.

        Each card comes in for a card of the hand the observer has not seen placed, which goes
        where the incoming card was, avoiding a seat known not to hold it.
        """
        hands = self.hands()
        hand = hands.get(seat)
        if hand is None:
            return False
        wanted = set(cards) | set(optional)
        keep = wanted | self._plays_from(seat)
        moved = False
        for index, card in enumerate([*cards, *optional]):
            needed = index < len(cards)
            if card in hand or card in self.seen_before:
                continue
            pool = [other for other in hand
                    if other not in keep and other not in self.seen_before]
            if needed and not pool:
                pool = self._played_last(seat, [other for other in hand if other not in wanted
                                                and other not in self.seen_before])
            destination = self._owner.get(card)
            allowed = [other for other in pool if not self._bars(destination, other)]
            if needed and pool and not allowed:
                pool = self._through_loose(pool, destination, keep) or pool
            else:
                pool = allowed if allowed or not needed else pool
            other = self._pick(pool, card)
            if other is None:
                if needed:
                    return moved
                continue
            self._swap(card, other)
            self._give(seat, card, other, destination)
            moved = True
        return moved

    def _through_loose(self, pool: list[int], destination: int | None, keep: set[int]
                       ) -> list[int]:
        """Park a hand card the destination cannot take in a place no hand holds.

        Swaps a card of ``pool`` with a loose card (in no hand) that ``destination`` may take;
        returns that card, now in the hand, as the only choice (or [] when there is none).
        """
        loose = [card for card in self.order
                 if card not in self._owner and card not in self.seen_before
                 and card not in keep and not self._bars(destination, card)]
        outgoing = self.rng.choice(pool)
        incoming = self._pick(loose, outgoing)
        if incoming is None:
            return []
        seat = next(s for s, hand in self.hands().items() if outgoing in hand)
        self._swap(outgoing, incoming)
        self._give(seat, incoming, outgoing, None)
        return [incoming]

    def _replace_in_hand(self, seat: int, cards: Sequence[int]) -> bool:
        """Swap ``cards`` out of ``seat``'s hand for unseen cards from where they may go.

        Replacements of another suit than the cards they replace come first: what made the
        observed action illegal (following suit, trumping) is most often the suit.
        """
        hands = self.hands()
        hand = hands[seat]
        banned = self._forbidden(seat)
        suit = self.walker.game.deck.suit
        suits = {suit(card) for card in banned}
        moved = False
        for card in cards:
            outside = [other for other in self.order
                       if other not in hand and other not in self.seen_before
                       and other not in banned and self._owner.get(other) != self.walker.seat]
            other = self._pick(outside, card,
                               lambda c, out=card: not self._bars(self._owner.get(c), out),
                               lambda c: suit(c) not in suits)
            if other is None:
                break
            destination = self._owner.get(other)
            self._swap(card, other)
            self._give(seat, other, card, destination)
            moved = True
        return moved

    def _send_away(self, card: int, seat: int) -> None:
        """Swap ``card`` out of ``seat``'s deal for an unseen card held by nobody else known.

        For an event where the seat chose ``card`` over the observed one it also held (giving
        its best cards): the card must not have been in that hand at all.
        """
        hand = self.hands().get(seat, set())
        outside = [other for other in self.order
                   if other not in hand and other != card and other not in self.seen_before
                   and self._owner.get(other) != self.walker.seat]
        other = self._pick(outside, card)
        if other is not None:
            self._swap(card, other)

    def _perturb(self, seat: int) -> None:
        """Swap unseen cards at random: one from ``seat``'s hand when it has one."""
        free = [card for card in self.order if card not in self.seen_before]
        if len(free) < 2:
            return
        hand = self.hands().get(seat) if seat >= 0 else None
        mine = [card for card in free if hand is not None and card in hand]
        first = self._pick(mine or free, None)
        assert first is not None
        rest = [card for card in free if card != first and (hand is None or card not in hand)]
        if self.strict_copies:
            rest = [card for card in rest if self.copy(card) == self.copy(first)]
        if rest:
            self._swap(first, self.rng.choice(rest))

    def _pick(self, pool: Sequence[int], partner: int | None,
              *preferences: Callable[[int], bool]) -> int | None:
        """A random card of ``pool``, narrowed by each preference that leaves some choice.

        Cards never seen placed come first, then the given preferences, then cards of
        ``partner``'s deck copy (a copy may stand for a table).
        """
        if not pool:
            return None
        choices = list(pool)
        tests: list[Callable[[int], bool]] = [lambda card: card not in self.seen_ever,
                                              *preferences]
        if partner is not None:
            copy = self.copy(partner)
            if self.strict_copies:
                choices = [card for card in choices if self.copy(card) == copy]
                if not choices:
                    return None
            tests.append(lambda card: self.copy(card) == copy)
        for test in tests:
            choices = [card for card in choices if test(card)] or choices
        return self.rng.choice(choices)

    def _swap(self, first: int, second: int) -> None:
        """Exchange two cards in the deal order under repair."""
        order = self.order
        i, j = order.index(first), order.index(second)
        order[i], order[j] = second, first

    # --- the replay's hands -----------------------------------------------------------------

    def hands(self) -> dict[int, set[int]]:
        """Every seat's hand in the replay at the failure (seats without a view left out)."""
        if self._hands is None:
            state = self.failure.state
            self._hands = {}
            for seat in range(state.game.num_players):
                try:
                    self._hands[seat] = set(state.observation(seat).hand)
                except (GameError, IndexError, ValueError):
                    continue
                for card in self._hands[seat]:
                    self._owner[card] = seat
        return self._hands

    def _give(self, seat: int, incoming: int, outgoing: int, destination: int | None) -> None:
        """Record that ``incoming`` joined ``seat``'s hand and ``outgoing`` went elsewhere."""
        hands = self.hands()
        hands[seat].discard(outgoing)
        hands[seat].add(incoming)
        self._owner[incoming] = seat
        self._owner.pop(outgoing, None)
        if destination is not None and destination in hands:
            hands[destination].discard(incoming)
            hands[destination].add(outgoing)
            self._owner[outgoing] = destination

    def _bars(self, seat: int | None, card: int) -> bool:
        """True when ``seat`` is known not to hold ``card`` or (a void) its suit."""
        if seat is None:
            return False
        banned = self._forbidden(seat)
        suit = self.walker.game.deck.suit
        return card in banned or any(suit(other) == suit(card) for other in banned)

    def _forbidden(self, seat: int) -> set[int]:
        """Cards ``seat`` is known not to have held in this deal (a learned constraint)."""
        return self.walker.forbidden.setdefault((self.deal, seat), set())


def _visible(cards: Sequence[int]) -> list[int]:
    """The cards of an event that are not hidden."""
    return [card for card in cards if card != HIDDEN]


def _extend_orders(walker: Walker, state: State, deal: int) -> None:
    """Make the walker inject every deal up to ``deal`` (seeded ones as the replay dealt them)."""
    dealt = state.deals()
    while len(walker.orders) <= deal:
        walker.orders.append(list(dealt[len(walker.orders)]))
        walker.reset()


def reshuffle(walker: Walker, failure: Failure) -> int:
    """Shuffle the failing deal's cards the observer has not seen placed; the deal changed."""
    fix = Repair(walker, failure, 0)
    deck = walker.game.deck
    order = fix.order
    for copy in range(deck.copies):
        places = [index for index, card in enumerate(order)
                  if card not in fix.seen_before and deck.copy(card) == copy]
        cards = [order[index] for index in places]
        walker.rng.shuffle(cards)
        for index, card in zip(places, cards, strict=True):
            order[index] = card
    return fix.deal


def repair(walker: Walker, failure: Failure, earlier: int = 0) -> int:
    """Change the walker's deal orders to get past ``failure``; the deal order changed."""
    return Repair(walker, failure, earlier).run()
