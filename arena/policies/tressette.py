"""Heuristic for Tressette: declare every accuso, redeal weak hands, sensible trick play.

Trick play (no trumps, follow suit) from what the seat has seen this hand:
- lead a card that cannot be beaten (the highest card left in its suit) when others still hold
  that suit; otherwise lead low from the longest suit, preferring suits with a 3 or 2 and never
  leading an unguarded ace; return a suit the partner asked for with ``busso``;
- when the partner is sure to win, load points (the ace first, never wasting a 3 or 2);
- when an opponent is winning, take the trick with a card that cannot be beaten afterwards (or
  cheaply when playing last), securing an ace where possible; otherwise play the lowest card;
- with signals on, a lead carries ``volo`` (last card of the suit), ``busso`` (holding the top
  card of the suit) or ``striscio`` (more cards of the suit).

The same code plays one table of Tressette incrociato (``tressette_toro``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.games.api import EventKind, Game, Observation
from arena.games.cards import TRESSETTE_STRENGTH, TRESSETTE_THIRDS, Rank
from arena.games.tressette import ACCUSO_BASE, KEEP, MONTE, SIGNAL_BASE
from arena.games.tressette_core import NUM_ACCUSI, SUIT_SPAN

CARDS_PER_COPY = 40
BUSSO, STRISCIO, VOLO = 1, 2, 3


def strength(card: int) -> int:
    """Trick-taking strength of a card (any deck copy)."""
    return TRESSETTE_STRENGTH[card % SUIT_SPAN]


def thirds(card: int) -> int:
    """Card points in thirds (any deck copy)."""
    return TRESSETTE_THIRDS[card % SUIT_SPAN]


def suit_of(card: int) -> int:
    """The suit block of a card: copy * 4 + suit, so that copies never mix."""
    return card // SUIT_SPAN


def is_top(card: int) -> bool:
    """A 3 or a 2: cards that win tricks rather than cards to give away."""
    return card % SUIT_SPAN in (Rank.DUE, Rank.TRE)


@dataclass
class TableView:
    """What one seat knows about one table's hand in progress."""

    seat: int
    order: tuple[int, ...]
    """Seats in playing order around the table."""
    partners: frozenset[int]
    hand: list[int]
    trick: list[tuple[int, int]]
    copy: int
    played: set[int] = field(default_factory=set)
    voids: dict[int, set[int]] = field(default_factory=dict)
    """Seat -> suit blocks it has shown to be void in."""
    asked: set[int] = field(default_factory=set)
    """Suit blocks a partner asked to have returned (``busso``)."""

    def outstanding(self, suit: int) -> list[int]:
        """Cards of a suit that neither were played nor are in this seat's hand."""
        low = suit * SUIT_SPAN
        mine = set(self.hand)
        return [card for card in range(low, low + SUIT_SPAN)
                if card not in self.played and card not in mine]

    def seats_after(self) -> list[int]:
        """Seats still to play in the current trick after this seat."""
        size = len(self.order)
        index = self.order.index(self.seat)
        return [self.order[(index + k) % size] for k in range(1, size - len(self.trick))]

    def unbeatable(self, card: int, by: list[int]) -> bool:
        """True when none of the seats ``by`` can beat ``card`` in its suit."""
        suit = suit_of(card)
        if all(suit in self.voids.get(seat, ()) for seat in by):
            return True
        return all(strength(other) < strength(card) for other in self.outstanding(suit))


def read_table(observation: Observation, copy: int, order: tuple[int, ...],
               partners: frozenset[int]) -> TableView:
    """Build a seat's view of one table from its hand, trick and this hand's events."""
    low, high = copy * CARDS_PER_COPY, (copy + 1) * CARDS_PER_COPY
    seat = observation.seat
    view = TableView(seat=seat, order=order, partners=partners,
                     hand=[card for card in observation.hand if low <= card < high],
                     trick=[(who, card) for who, card in observation.trick if low <= card < high],
                     copy=copy)
    events = observation.events
    start = 0
    for index in range(len(events) - 1, -1, -1):
        event = events[index]
        if (event.kind == EventKind.DEAL and event.seat == seat and event.cards
                and low <= event.cards[0] < high):
            start = index
            break
    led: int | None = None
    for event in events[start:]:
        if event.kind == EventKind.PLAY and event.cards and low <= event.cards[0] < high:
            card = event.cards[0]
            view.played.add(card)
            if led is None:
                led = suit_of(card)
                if event.values and event.values[0] == BUSSO and event.seat in partners:
                    view.asked.add(led)
            elif suit_of(card) != led:
                view.voids.setdefault(event.seat, set()).add(led)
        elif event.kind == EventKind.TRICK and event.cards and low <= event.cards[0] < high:
            led = None
    return view


def choose_lead(view: TableView, cards: list[int]) -> int:
    """The card to lead."""
    others = [seat for seat in view.order if seat != view.seat]
    by_suit: dict[int, list[int]] = {}
    for card in cards:
        by_suit.setdefault(suit_of(card), []).append(card)
    winners = []
    for suit, held in by_suit.items():
        outstanding = view.outstanding(suit)
        top = max(held, key=strength)
        if outstanding and view.unbeatable(top, others):
            winners.append((sum(thirds(c) for c in outstanding), len(held), strength(top), top))
    if winners:
        return max(winners)[3]
    for suit in view.asked:
        if suit in by_suit:
            return max(by_suit[suit], key=strength)

    def suit_score(suit: int) -> tuple[int, int, int]:
        """Longer suits and suits with a 3 or 2 first; an unguarded ace last."""
        held = by_suit[suit]
        lone_ace = len(held) == 1 and held[0] % SUIT_SPAN == Rank.ASSO
        return (0 if lone_ace else 1, len(held), sum(1 for c in held if is_top(c)))

    suit = max(by_suit, key=suit_score)
    return min(by_suit[suit], key=lambda c: (thirds(c), strength(c)))


def choose_follow(view: TableView, cards: list[int]) -> int:
    """The card to play to a trick in progress."""
    led = suit_of(view.trick[0][1])
    winner_seat, winning = view.trick[0]
    for seat, card in view.trick[1:]:
        if suit_of(card) == led and strength(card) > strength(winning):
            winner_seat, winning = seat, card
    after = view.seats_after()
    foes_after = [seat for seat in after if seat not in view.partners]
    on_table = sum(thirds(card) for _, card in view.trick)
    if winner_seat in view.partners and (not foes_after
                                         or view.unbeatable(winning, foes_after)):
        return max(cards, key=lambda c: (not is_top(c), thirds(c), -strength(c)))
    beaters = [c for c in cards if suit_of(c) == led and strength(c) > strength(winning)]
    safe = [c for c in beaters if not foes_after or view.unbeatable(c, foes_after)]
    if safe:
        return max(safe, key=lambda c: (thirds(c), -strength(c)))
    if beaters and on_table >= 3:
        return max(beaters, key=strength)
    return min(cards, key=lambda c: (thirds(c), is_top(c), strength(c)))


def signal_for(view: TableView, card: int, allowed: set[int]) -> int:
    """The signal to attach to a lead (0 for none)."""
    held = [c for c in view.hand if suit_of(c) == suit_of(card)]
    outstanding = view.outstanding(suit_of(card))
    if len(held) == 1 and VOLO in allowed:
        return VOLO
    if (BUSSO in allowed and outstanding
            and any(strength(c) > max(map(strength, outstanding)) for c in held if c != card)):
        return BUSSO
    if len(held) >= 3 and STRISCIO in allowed:
        return STRISCIO
    return 0


def choose_action(view: TableView, legal: tuple[int, ...], deck_size: int, accusi: range,
                  keep: int, monte: int, signal_base: int) -> int:
    """Declare accusi, demand a redeal when allowed, else pick a card (and a signal)."""
    declarations = [action for action in legal if action in accusi]
    if declarations:
        return declarations[0]
    if monte in legal:
        return monte
    if keep in legal:
        return keep
    cards = [action for action in legal if action < deck_size]
    if view.trick:
        return choose_follow(view, cards)
    card = choose_lead(view, cards)
    allowed = {(action - signal_base) // deck_size + 1 for action in legal
               if action >= signal_base}
    signal = signal_for(view, card, allowed) if allowed else 0
    return card if not signal else signal_base + (signal - 1) * deck_size + card


class HeuristicPolicy:
    """Tressette rules of thumb for 2 or 4 seats."""

    def __init__(self, game: Game, seat: int, seed: int) -> None:
        """Remember the seating; the policy is deterministic."""
        self.seat = seat
        self.order = tuple(range(game.num_players))
        self.partners = frozenset({(seat + 2) % 4} if game.num_players == 4 else ())

    def act(self, observation: Observation) -> int:
        """The chosen action."""
        view = read_table(observation, 0, self.order, self.partners)
        return choose_action(view, observation.legal_actions, CARDS_PER_COPY,
                             range(ACCUSO_BASE, ACCUSO_BASE + NUM_ACCUSI), KEEP, MONTE,
                             SIGNAL_BASE)
