"""Tressette machinery shared by the Tressette games: card tables, accusi, redeals, a table.

- Ranks for taking tricks (high to low): 3 2 A R C F 7 6 5 4; no trumps, follow suit.
- Card points in thirds of a point: an ace is 3, a 3, 2, R, C or F is 1, the rest 0; the last
  trick is worth 3 more (``LAST_TRICK_THIRDS``); a deck holds 32 + 3 = 35 thirds. A side's
  points of a hand are its thirds // 3 (plus accusi), always 11 in total without accusi.
- Accusi (declarations; docs/games/tressette.md): three or four aces, threes or twos (3 or 4
  points) and the napoletana A-2-3 of one suit (3 points); see ``ACCUSO_*`` for the codes.
- Mandare a monte: the hand patterns that allow a player to demand a redeal.
- ``TableMixin``: one table's hand of Tressette (2 or 4 seats, optional stock), writing its
  events with global seat numbers and card ids into ``_log``, so that several tables can share
  one event log. A game state inherits it directly (one table, no indirection on the hot path)
  or holds ``Table`` objects (several tables).

Cards may come from a multi-copy deck (``ITALIAN_120``): a table plays one copy, ids
``copy * 40 + suit * 10 + rank``, and every table here is indexed by such a full id.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from functools import cache
from operator import itemgetter
from typing import Final

from mypy_extensions import trait

from arena.games.api import (
    ALL_SEATS,
    ActionKind,
    ActionMeaning,
    EventKind,
    LogEntry,
    attribute_names,
    play_entries,
)
from arena.games.cards import (
    ITALIAN_120,
    TRESSETTE_STRENGTH,
    TRESSETTE_THIRDS,
    Deck,
    Rank,
    Suit,
    insert_sorted,
    remove_card,
)
from arena.games.tricks import keyed_trick, trick_key_tables

LAST_TRICK_THIRDS: Final = 3
"""The last trick's bonus point, in thirds."""
DECK_THIRDS: Final = 35
"""Thirds in one 40-card deck, last trick included."""
SUIT_SPAN: Final = 10
"""Card ids of one suit (and copy) are ``SUIT_SPAN`` consecutive ids."""

TOP_RANKS = (Rank.ASSO, Rank.DUE, Rank.TRE)
"""The ranks of accusi (and the cards that count against a redeal)."""

ACCUSO_THREE: Final = 0
"""Codes 0-11: three of a kind, ``rank index * 4 + missing suit`` (rank index 0 A, 1 2, 2 3)."""
ACCUSO_FOUR: Final = 12
"""Codes 12-14: four aces, twos or threes."""
ACCUSO_NAPOLETANA: Final = 15
"""Codes 15-18: the napoletana (A, 2, 3) of a suit."""
NUM_ACCUSI: Final = 19

DECLARE_THREE, DECLARE_FOUR, DECLARE_NAPOLETANA = 1, 2, 3
"""The ``kind`` value of a DECLARE event."""

SIGNAL_NAMES = ("busso", "striscio", "volo")
"""Signals 1-3 (0 is no signal) that a lead may carry when the ``signals`` option is on."""
SIGNAL_CHOICES = ("none", *SIGNAL_NAMES, "all")
REDEAL_RULES = ("seed", "low_value", "few_figures", "none")
FIRST_LEADS = ("dealer_right", "four_of_denari")


class Status(IntEnum):
    """What the last action did at a table, for the game that drives several tables."""

    CONTINUE = 0
    TRICK_DONE = 1
    HAND_OVER = 2
    REDEAL = 3


class TablePhase(IntEnum):
    """The phases of one table's hand."""

    MONTE = 0  # each seat in turn keeps its hand or demands a redeal
    PLAY = 1
    DONE = 2


_CONTINUE: Final = Status.CONTINUE
_TRICK_DONE: Final = Status.TRICK_DONE
_HAND_OVER: Final = Status.HAND_OVER
_REDEAL_DEMANDED: Final = Status.REDEAL
_MONTE: Final = int(TablePhase.MONTE)
_PLAY: Final = int(TablePhase.PLAY)
_DONE: Final = int(TablePhase.DONE)
_PLAY_KIND: Final = EventKind.PLAY
_TRICK_KIND: Final = EventKind.TRICK
_PASS_KIND: Final = EventKind.PASS
_HAND_START_KIND: Final = EventKind.HAND_START
_DEAL_KIND: Final = EventKind.DEAL
_REVEAL_KIND: Final = EventKind.REVEAL
_DECLARE_KIND: Final = EventKind.DECLARE
_REDEAL_KIND: Final = EventKind.REDEAL
_HAND_END_KIND: Final = EventKind.HAND_END


@dataclass(frozen=True, slots=True)
class CardTables:
    """Per-card lookup tables of a deck for Tressette."""

    suit: tuple[int, ...]
    rank: tuple[int, ...]
    strength: tuple[int, ...]
    thirds: tuple[int, ...]
    suit_low: tuple[int, ...]
    led_keys: tuple[tuple[int, ...], ...]


def card_tables(deck: Deck) -> CardTables:
    """Suit, rank, strength, thirds, first id of the suit block and trick keys per card."""
    suit = deck.suit_table()
    strength = deck.per_card(TRESSETTE_STRENGTH)
    no_trump = trick_key_tables(suit, strength, deck.suits)[-1]
    return CardTables(
        suit=suit,
        rank=deck.rank_table(),
        strength=strength,
        thirds=deck.per_card(TRESSETTE_THIRDS),
        suit_low=tuple(card - card % SUIT_SPAN for card in deck.cards),
        led_keys=tuple(no_trump[suit[card]] for card in deck.cards),
    )


# --- hand profiles: accusi and mandare a monte ------------------------------------------------

def _pack(card: int) -> int:
    """A card's contribution to a hand profile (see ``hand_profile``)."""
    rank = card % SUIT_SPAN
    top = rank <= Rank.TRE
    figure = rank >= Rank.FANTE
    bit = 1 << (rank * 4 + (card % 40) // SUIT_SPAN) if top else 0
    return int(top) | int(figure) << 8 | bit << 16 | TRESSETTE_THIRDS[rank] << 28


_PACK: Final = tuple(_pack(card) for card in ITALIAN_120.cards)


def hand_profile(hand: list[int] | tuple[int, ...]) -> tuple[int, int, int, int]:
    """(A/2/3 count, figure count, 12-bit set of A/2/3 as ``rank index * 4 + suit``, thirds)."""
    packed = 0
    for card in hand:
        packed += _PACK[card]
    return packed & 255, packed >> 8 & 255, packed >> 16 & 4095, packed >> 28


def hand_thirds(cards: list[int] | tuple[int, ...]) -> int:
    """Card points of some cards, in thirds."""
    return hand_profile(cards)[3]


def _accusi_of_mask(mask: int) -> tuple[int, ...]:
    """The accuso codes of a 12-bit set of A/2/3 cards."""
    suits_by_rank = [[suit for suit in range(4) if mask >> (index * 4 + suit) & 1]
                     for index in range(3)]
    codes = []
    for index, suits in enumerate(suits_by_rank):
        if len(suits) == 4:
            codes.append(ACCUSO_FOUR + index)
        elif len(suits) == 3:
            missing = ({0, 1, 2, 3} - set(suits)).pop()
            codes.append(ACCUSO_THREE + index * 4 + missing)
    for suit in range(4):
        if all(suit in suits for suits in suits_by_rank):
            codes.append(ACCUSO_NAPOLETANA + suit)
    return tuple(sorted(codes))


_ACCUSI_BY_MASK: Final = tuple(_accusi_of_mask(mask) for mask in range(1 << 12))


def find_accusi(hand: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    """The accuso codes a hand can declare, sorted (four of a kind excludes three of it)."""
    return _ACCUSI_BY_MASK[hand_profile(hand)[2]]


def accuso_points(code: int) -> int:
    """Game points of an accuso."""
    return 4 if ACCUSO_FOUR <= code < ACCUSO_NAPOLETANA else 3


def accuso_values(code: int) -> tuple[int, int, int, int]:
    """DECLARE event values: (kind, rank or -1, missing or napoletana suit or -1, points)."""
    if code < ACCUSO_FOUR:
        return (DECLARE_THREE, int(TOP_RANKS[code // 4]), code % 4, 3)
    if code < ACCUSO_NAPOLETANA:
        return (DECLARE_FOUR, int(TOP_RANKS[code - ACCUSO_FOUR]), -1, 4)
    return (DECLARE_NAPOLETANA, -1, code - ACCUSO_NAPOLETANA, 3)


def accuso_cards(code: int, copy: int = 0) -> tuple[int, ...]:
    """The cards an accuso shows, sorted (card ids of the given deck copy)."""
    base = copy * 40
    if code < ACCUSO_FOUR:
        rank, missing = TOP_RANKS[code // 4], code % 4
        return tuple(base + suit * SUIT_SPAN + rank for suit in range(4) if suit != missing)
    if code < ACCUSO_NAPOLETANA:
        rank = TOP_RANKS[code - ACCUSO_FOUR]
        return tuple(base + suit * SUIT_SPAN + rank for suit in range(4))
    suit = code - ACCUSO_NAPOLETANA
    return tuple(base + suit * SUIT_SPAN + rank for rank in TOP_RANKS)


def accuso_name(code: int, deck: Deck) -> str:
    """A short name such as ``accuso 3A-noC``, ``accuso 4x3`` or ``accuso napoletana-D``."""
    if code < ACCUSO_FOUR:
        rank = deck.rank_letters[TOP_RANKS[code // 4]]
        return f"accuso 3{rank}-no{deck.suit_letters[code % 4]}"
    if code < ACCUSO_NAPOLETANA:
        return f"accuso 4x{deck.rank_letters[TOP_RANKS[code - ACCUSO_FOUR]]}"
    return f"accuso napoletana-{deck.suit_letters[code - ACCUSO_NAPOLETANA]}"


def profile_qualifies(rule: str, size: int, top: int, figures: int, thirds: int) -> bool:
    """``qualifies_for_redeal`` from a hand's size and profile."""
    if rule == "seed":
        low = size - top - figures
        return (top == 1 and low == size - 1) or (top == 0 and figures == 3 and low == size - 3)
    if rule == "low_value":
        return thirds < 3
    if rule == "few_figures":
        return top == 0 and figures < 3
    if rule == "none":
        return False
    raise ValueError(f"unknown redeal rule {rule!r}; valid rules: {', '.join(REDEAL_RULES)}")


@cache
def redeal_test(rule: str, hand_size: int) -> Callable[[int], bool] | None:
    """A cached test of packed hand profiles (``sum`` of ``_PACK``), or None for ``none``."""
    if rule == "none":
        return None
    if rule == "low_value":
        return lambda packed: packed >> 28 < 3
    if rule not in REDEAL_RULES:
        raise ValueError(f"unknown redeal rule {rule!r}; valid rules: {', '.join(REDEAL_RULES)}")
    counts = frozenset(top | figures << 8 for top in range(hand_size + 1)
                       for figures in range(hand_size + 1 - top)
                       if profile_qualifies(rule, hand_size, top, figures, 0))
    return lambda packed: packed & 0xFFFF in counts


def qualifies_for_redeal(hand: list[int] | tuple[int, ...], rule: str) -> bool:
    """True when a hand may demand a redeal under ``rule`` (docs/games/tressette.md).

    ``seed``: exactly one A/2/3 and nine of 4-7, or exactly three figures and seven of 4-7;
    ``low_value``: worth less than one point; ``few_figures``: no A/2/3 and fewer than three
    figures; ``none``: never.
    """
    top, figures, _, thirds = hand_profile(hand)
    return profile_qualifies(rule, len(hand), top, figures, thirds)


def allowed_signals(option: str) -> tuple[int, ...]:
    """Signal codes (1-3) a lead may carry under the ``signals`` option."""
    if option == "none":
        return ()
    if option == "all":
        return (1, 2, 3)
    return (SIGNAL_NAMES.index(option) + 1,)


# --- one table ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class TableRules:
    """What a table needs to know: deck, seat counts, options and action ids."""

    deck: Deck
    tables: CardTables
    size: int
    """Seats at the table (2 or 4)."""
    num_seats: int
    """Seats of the whole game (event values are per global seat)."""
    copy: int
    hand_size: int
    packet: int
    """Cards dealt to a seat at a time."""
    accusi: bool
    redeal_rule: str
    signals: tuple[int, ...]
    four_of_denari_leads: bool
    accuso_lost_on_cappotto: bool
    accuso_base: int
    keep_action: int
    monte_action: int
    signal_base: int

    @property
    def four_of_denari(self) -> int:
        """The 4 of denari of this table's copy."""
        return self.deck.card(Suit.DENARI, Rank.QUATTRO, self.copy)

    def action_name(self, action: int) -> str:
        """The name of a table action (card, accuso, keep, monte or signalled lead)."""
        size = self.deck.size
        if 0 <= action < size:
            return self.deck.short(action)
        if self.accuso_base <= action < self.accuso_base + NUM_ACCUSI:
            return accuso_name(action - self.accuso_base, self.deck)
        if action == self.keep_action:
            return "keep"
        if action == self.monte_action:
            return "monte"
        signal, card = divmod(action - self.signal_base, size)
        if self.signal_base <= action and signal < len(SIGNAL_NAMES):
            return f"{self.deck.short(card)}+{SIGNAL_NAMES[signal]}"
        raise ValueError(f"{action} is not an action of this table")

    def action_meaning(self, action: int, label: str, table: int = -1) -> ActionMeaning:
        """PLAY (``value``: a lead's signal), accuso DECLARE (``value``: its code), KEEP, REDEAL."""
        size = self.deck.size
        if 0 <= action < size:
            return ActionMeaning(ActionKind.PLAY, cards=(action,), table=table, label=label)
        code = action - self.accuso_base
        if 0 <= code < NUM_ACCUSI:
            return ActionMeaning(ActionKind.DECLARE, cards=accuso_cards(code, self.copy),
                                 value=code, table=table, label=label)
        if action == self.keep_action:
            return ActionMeaning(ActionKind.KEEP, table=table, label=label)
        if action == self.monte_action:
            return ActionMeaning(ActionKind.REDEAL, table=table, label=label)
        signal, card = divmod(action - self.signal_base, size)
        return ActionMeaning(ActionKind.PLAY, cards=(card,), value=signal + 1, table=table,
                             label=label)


@cache
def play_rows(kind: EventKind, seats: tuple[int, ...], num_seats: int,
              deck_size: int) -> tuple[tuple[LogEntry, ...], ...]:
    """Prebuilt public one-card entries ``[local seat][card]`` with global seat numbers."""
    every = play_entries(kind, num_seats, deck_size)
    return tuple(every[seat] for seat in seats)


@cache
def dealing(size: int, hand_size: int,
            packet: int) -> tuple[Callable[[list[int]], tuple[int, ...]], ...]:
    """Per seat after the dealer (1, 2, ...): a getter of its cards from a deal order."""
    getters: list[Callable[[list[int]], tuple[int, ...]]] = []
    for offset in range(size):
        indices = [(round_ * size + offset) * packet + k
                   for round_ in range(hand_size // packet) for k in range(packet)]
        getters.append(itemgetter(*indices))
    return tuple(getters)


@cache
def accusi_actions(base: int) -> tuple[tuple[int, ...], ...]:
    """Per 12-bit set of A/2/3 cards: the accuso actions (``base`` + code) it allows."""
    return tuple(tuple(base + code for code in codes) for codes in _ACCUSI_BY_MASK)


def by_suit(hand: list[int], base: int) -> list[list[int]]:
    """A sorted hand of one deck copy split into its four suits (ids from ``base``)."""
    suits: list[list[int]] = [[], [], [], []]
    for card in hand:
        suits[(card - base) // SUIT_SPAN].append(card)
    return suits


TABLE_SLOTS = ("accuso_base", "accusi_table", "deal_getters", "deck_size", "declared", "dealer",
               "draw_rows", "first", "hand_number", "hands", "keep_legal", "leader", "led_keys",
               "monte_left", "monte_legal", "monte_ok", "pending", "phase", "play_rows",
               "redeal_test", "rules", "seats", "signal_base", "signals", "size", "stock",
               "suit_of", "suits", "thirds", "thirds_of", "total_tricks", "trick",
               "tricks_played", "tricks_won")
"""The attributes of a table; a class using ``TableMixin`` also needs ``_current`` and ``_log``."""


@trait
class TableMixin:
    """One Tressette table's hand: deal, mandare a monte, accusi, tricks and the stock.

    Local seats 0..size-1 are in playing order and ``seats`` maps them to global seats;
    ``_current`` is the local seat to act. A hand is kept sorted, and also as four sorted suit
    lists (``suits``) for following suit. After a
    completed trick, a hand's end or a redeal demand the hooks ``_after_trick``,
    ``_after_hand`` and ``_after_redeal`` run.
    """


    accuso_base: int
    accusi_table: tuple[tuple[int, ...], ...] | None
    deal_getters: tuple[Callable[[list[int]], tuple[int, ...]], ...]
    deck_size: int
    declared: list[int]
    dealer: int
    draw_rows: tuple[tuple[LogEntry, ...], ...]
    first: int
    hand_number: int
    hands: list[list[int]]
    keep_legal: list[int]
    leader: int
    led_keys: tuple[tuple[int, ...], ...]
    monte_left: int
    monte_legal: list[int]
    monte_ok: list[list[int]]
    pending: list[tuple[int, ...]]
    phase: int
    play_rows: tuple[tuple[LogEntry, ...], ...]
    redeal_test: Callable[[int], bool] | None
    rules: TableRules
    seats: tuple[int, ...]
    signal_base: int
    signals: tuple[int, ...]
    size: int
    stock: list[int]
    suit_of: tuple[int, ...]
    suits: list[list[list[int]]]
    thirds: list[int]
    thirds_of: tuple[int, ...]
    total_tricks: int
    trick: list[int]
    tricks_played: int
    tricks_won: list[int]
    _current: int
    _log: list[LogEntry]

    def init_table(self, rules: TableRules, seats: tuple[int, ...]) -> None:
        """An empty table; ``seats`` maps local seats (in playing order) to global seats."""
        self.rules = rules
        self.size = rules.size
        self.deck_size = rules.deck.size
        self.total_tricks = 40 // rules.size
        self.accuso_base = rules.accuso_base
        self.accusi_table = accusi_actions(rules.accuso_base) if rules.accusi else None
        self.deal_getters = dealing(rules.size, rules.hand_size, rules.packet)
        self.redeal_test = redeal_test(rules.redeal_rule, rules.hand_size)
        self.keep_legal = [rules.keep_action]
        self.monte_legal = [rules.keep_action, rules.monte_action]
        self.signal_base = rules.signal_base
        self.signals = rules.signals
        self.suit_of = rules.tables.suit
        self.led_keys = rules.tables.led_keys
        self.thirds_of = rules.tables.thirds
        self.dealer = rules.size - 1
        self.first = self.leader = self._current = 0
        self.hand_number = 0
        self.phase = _DONE
        self.hands = [[] for _ in range(rules.size)]
        self.suits = [[[], [], [], []] for _ in range(rules.size)]
        self.trick = []
        self.stock = []
        self.thirds = [0] * rules.size
        self.tricks_won = [0] * rules.size
        self.tricks_played = 0
        self.declared = [0] * rules.size
        self.pending = [() for _ in range(rules.size)]
        self.monte_ok = []
        self.monte_left = 0
        self.seat_at(seats)

    def seat_at(self, seats: tuple[int, ...]) -> None:
        """Set which global seat sits at each local seat (and the prebuilt events for them)."""
        rules = self.rules
        self.seats = seats
        self.play_rows = play_rows(EventKind.PLAY, seats, rules.num_seats, rules.deck.size)
        self.draw_rows = play_rows(EventKind.DRAW, seats, rules.num_seats, rules.deck.size)

    # --- dealing -------------------------------------------------------------------------------

    def start_hand(self, order: list[int], hand_number: int, first_hand: bool,
                   redeal: bool = False) -> None:
        """Deal ``order`` from the dealer's right, ``packet`` cards at a time; the rest is stock.

        A redeal (after a REDEAL event) deals again within the same hand: no HAND_START.
        """
        rules = self.rules
        size = self.size
        dealer = self.dealer
        self.hand_number = hand_number
        flat: list[list[int]] = [[] for _ in range(size)]
        for offset, getter in enumerate(self.deal_getters, dealer + 1):
            flat[offset % size] = sorted(getter(order))
        base = rules.copy * 40
        self.hands = flat
        self.suits = [by_suit(hand, base) for hand in flat]
        self.stock = order[size * rules.hand_size:][::-1]
        self.trick = []
        self.thirds = [0] * size
        self.tricks_won = [0] * size
        self.tricks_played = 0
        self.declared = [0] * size
        leader = (dealer + 1) % size
        holder = -1
        if first_hand and rules.four_of_denari_leads:
            holder = leader = next(s for s in range(size) if rules.four_of_denari in flat[s])
        self.first = self.leader = self._current = leader
        seats = self.seats
        log = self._log
        if not redeal:
            log.append((_HAND_START_KIND, seats[dealer], (), (hand_number,), ALL_SEATS))
        for seat in range(size):
            log.append((_DEAL_KIND, seats[seat], tuple(flat[seat]), (), 1 << seats[seat]))
        if holder >= 0:
            log.append((_REVEAL_KIND, seats[holder], (rules.four_of_denari,), (), ALL_SEATS))
        packs = []
        for hand in flat:
            packed = 0
            for card in hand:
                packed += _PACK[card]
            packs.append(packed)
        table = self.accusi_table
        if table is not None:
            self.pending = [table[packed >> 16 & 4095] for packed in packs]
        else:
            self.pending = [() for _ in range(size)]
        test = self.redeal_test
        if test is None:
            self.phase = _PLAY
            return
        keep, monte = self.keep_legal, self.monte_legal
        self.monte_ok = [monte if test(packed) else keep for packed in packs]
        self.monte_left = size
        self.phase = _MONTE

    def next_hand(self, order: list[int], hand_number: int) -> None:
        """Deal the next hand: the player who led this one deals, so the lead moves right."""
        self.dealer = self.first
        self.start_hand(order, hand_number, first_hand=False)

    # --- legal actions -------------------------------------------------------------------------

    def table_legal(self) -> list[int]:
        """The legal actions of the seat to act (a hand or suit list itself when that is all)."""
        phase = self.phase
        if phase == _PLAY:
            seat = self._current
            trick = self.trick
            if trick:
                legal = self.suits[seat][self.suit_of[trick[0]]] or self.hands[seat]
            elif self.signals:
                legal = self.hands[seat] + self._signalled(self.hands[seat])
            else:
                legal = self.hands[seat]
            if not self.tricks_played and self.pending[seat]:
                legal = sorted([*legal, *self.pending[seat]])
            return legal
        if phase == _MONTE:
            return self.monte_ok[self._current]
        return []

    def _signalled(self, hand: list[int]) -> list[int]:
        """Lead actions carrying each allowed signal."""
        base = self.signal_base
        size = self.deck_size
        return [base + (signal - 1) * size + card for signal in self.signals for card in hand]

    # --- applying actions ----------------------------------------------------------------------

    def table_apply(self, action: int) -> None:
        """Apply a legal action of the seat to act.

        A complete trick goes to its winner; then, while there is a stock, each seat draws a
        card, the winner first, shown to all; the last trick ends the hand.
        """
        if self.phase != _PLAY:
            self._apply_monte(action)
            return
        seat = self._current
        if action < self.deck_size:
            card = action
            entry = self.play_rows[seat][card]
        elif action < self.signal_base:
            self._declare(seat, action - self.accuso_base)
            return
        else:
            signal, card = divmod(action - self.signal_base, self.deck_size)
            entry = (_PLAY_KIND, self.seats[seat], (card,), (signal + 1,), ALL_SEATS)
        remove_card(self.hands[seat], card)
        remove_card(self.suits[seat][self.suit_of[card]], card)
        trick = self.trick
        trick.append(card)
        self._log.append(entry)
        if not self.tricks_played and self.pending[seat]:
            self.pending[seat] = ()
        size = self.size
        if len(trick) < size:
            self._current = (seat + 1) % size
            return
        best, points = keyed_trick(trick, self.led_keys[trick[0]], self.thirds_of)
        winner = (self.leader + best) % size
        self._log.append((_TRICK_KIND, self.seats[winner], tuple(trick), (points,), ALL_SEATS))
        self.thirds[winner] += points
        self.tricks_won[winner] += 1
        self.tricks_played += 1
        self.trick = []
        self.leader = self._current = winner
        stock = self.stock
        if stock:
            hands, suits, suit_of, rows, log = (self.hands, self.suits, self.suit_of,
                                                 self.draw_rows, self._log)
            for offset in range(size):
                drawer = (winner + offset) % size
                drawn = stock.pop()
                insert_sorted(hands[drawer], drawn)
                insert_sorted(suits[drawer][suit_of[drawn]], drawn)
                log.append(rows[drawer][drawn])
        if self.tricks_played < self.total_tricks:
            self._after_trick()
            return
        self.thirds[winner] += LAST_TRICK_THIRDS
        self._end_hand()
        self._after_hand()

    def _declare(self, seat: int, code: int) -> None:
        """Declare an accuso: public, credited to the seat's side at the end of the hand."""
        action = self.accuso_base + code
        self.pending[seat] = tuple(a for a in self.pending[seat] if a != action)
        self.declared[seat] += accuso_points(code)
        self._log.append((_DECLARE_KIND, self.seats[seat],
                          accuso_cards(code, self.rules.copy), accuso_values(code), ALL_SEATS))

    def _apply_monte(self, action: int) -> None:
        """Keep the hand (the next seat is asked) or demand a redeal, showing the hand."""
        seat = self._current
        if action == self.rules.monte_action:
            self._log.append((_REDEAL_KIND, self.seats[seat], tuple(self.hand_of(seat)), (),
                              ALL_SEATS))
            self.phase = _DONE
            self._after_redeal()
            return
        self._log.append((_PASS_KIND, self.seats[seat], (), (), ALL_SEATS))
        self.monte_left -= 1
        if self.monte_left:
            self._current = (seat + 1) % self.size
        else:
            self.phase = _PLAY
            self._current = self.leader

    def _end_hand(self) -> None:
        """Log HAND_END: per global seat thirds, and every card not won in a trick."""
        unplayed = [*self.trick, *self.stock]
        for seat in range(self.size):
            unplayed.extend(self.hand_of(seat))
        values = [0] * self.rules.num_seats
        for seat, thirds in enumerate(self.thirds):
            values[self.seats[seat]] = thirds
        self._log.append((_HAND_END_KIND, self.seats[self.dealer], tuple(sorted(unplayed)),
                          tuple(values), ALL_SEATS))
        self.phase = _DONE

    def stop_hand(self) -> None:
        """End the hand at once: the trick just taken counts as the last (it takes the point)."""
        self.thirds[self.leader] += LAST_TRICK_THIRDS
        self._end_hand()

    def _after_trick(self) -> None:
        """Runs after a trick that is not the last."""

    def _after_hand(self) -> None:
        """Runs after the last trick of a hand (HAND_END is logged)."""

    def _after_redeal(self) -> None:
        """Runs after a redeal demand; the game deals again with ``start_hand``."""

    # --- results and views ---------------------------------------------------------------------

    def hand_of(self, seat: int) -> list[int]:
        """A local seat's hand, sorted."""
        return self.hands[seat][:]

    def hand_size_of(self, seat: int) -> int:
        """How many cards a local seat holds."""
        return len(self.hands[seat])

    def side_points(self) -> tuple[int, int]:
        """Game points of local sides 0 (seats 0, 2) and 1 (seats 1, 3) so far: points + accusi."""
        thirds = [0, 0]
        accusi = [0, 0]
        won = [0, 0]
        for seat in range(self.size):
            side = seat % 2
            thirds[side] += self.thirds[seat]
            accusi[side] += self.declared[seat]
            won[side] += self.tricks_won[seat]
        complete = self.tricks_played == self.total_tricks
        if complete and self.rules.accuso_lost_on_cappotto:
            accusi = [0 if won[side] == 0 else accusi[side] for side in (0, 1)]
        return (thirds[0] // 3 + accusi[0], thirds[1] // 3 + accusi[1])

    def trick_pairs(self) -> tuple[tuple[int, int], ...]:
        """The trick in progress as (global seat, card) in play order."""
        size = self.size
        return tuple((self.seats[(self.leader + i) % size], card)
                     for i, card in enumerate(self.trick))

    def phase_name(self) -> str:
        """``monte``, ``play`` or ``done``."""
        return TablePhase(self.phase).name.lower()


class Table(TableMixin):
    """A table held by a game that runs several; ``status`` tells what the last action did."""

    __slots__ = (*TABLE_SLOTS, "_current", "_log", "status")

    def __init__(self, rules: TableRules, seats: tuple[int, ...], log: list[LogEntry], *,
                 blank: bool = False) -> None:
        """A table writing to ``log``, its hand dealt (not when ``blank``, for ``clone``)."""
        self._log = log
        self.status = _CONTINUE
        if not blank:
            self.init_table(rules, seats)

    @property
    def current(self) -> int:
        """The local seat to act."""
        return self._current

    def apply(self, action: int) -> Status:
        """Apply a legal action; what it did."""
        self.status = _CONTINUE
        self.table_apply(action)
        return self.status

    def _after_trick(self) -> None:
        """Record a completed trick."""
        self.status = _TRICK_DONE

    def _after_hand(self) -> None:
        """Record the end of the hand."""
        self.status = _HAND_OVER

    def _after_redeal(self) -> None:
        """Record a redeal demand."""
        self.status = _REDEAL_DEMANDED

    def clone(self, log: list[LogEntry]) -> Table:
        """An independent copy writing to ``log``."""
        twin = Table(self.rules, self.seats, log, blank=True)
        for name in attribute_names(Table):
            setattr(twin, name, getattr(self, name))
        twin._log = log
        twin.hands = [hand[:] for hand in self.hands]
        twin.suits = [[suit[:] for suit in suits] for suits in self.suits]
        twin.trick = self.trick[:]
        twin.stock = self.stock[:]
        twin.thirds = self.thirds[:]
        twin.tricks_won = self.tricks_won[:]
        twin.declared = self.declared[:]
        twin.pending = self.pending[:]
        return twin
