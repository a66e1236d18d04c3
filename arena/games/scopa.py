"""Scopa (2 or 3 seats) and Scopone (4 seats in pairs) (docs/games/scopa.md).

Rules summary:
- Italian 40-card deck; Scopa values A 1, 2-7 face value, F 8, C 9, R 10.
- Scopa: the dealer deals 3 cards each, one at a time from the dealer's right (seat dealer+1
  gets cards 1, n+1, 2n+1 of the deal order), then the next 4 cards face up on the table. A
  table with 3 or more kings is thrown in (a REDEAL event) and the same dealer deals again
  from a new order. Whenever every hand is empty, 3 more cards each are dealt the same way
  from the rest of the order.
- Scopone scientifico (``scopone``): 10 cards each, one at a time from the dealer's right,
  nothing on the table; ``classic``: 9 each and the last 4 face up on the table (thrown in
  on 3+ kings as in Scopa). Partners sit crossed: seats 0+2 against 1+3.
- Play runs counter-clockwise from the dealer's right. A played card takes a table card of
  equal value; if there is none it takes a set of table cards whose values add up to its
  value. A single card of equal value is mandatory over a set; a choice between cards or
  sets is a choice between actions. A card that can take may not be laid down (capture is
  compulsory); any card of the hand may be played. ``min_cards_capture``: among the sets
  only those with the fewest cards may be taken. ``asso_piglia_tutto``: an ace played on a
  table without an ace takes the whole table (no scopa).
- Taking every table card is a scopa, +1, except on the last play of the hand
  (``scopa_on_last_play`` counts it there too). Table cards left at the end go to the last
  player who took (``last_cards_to_dealer``: to the dealer).
- Points per hand, ties giving no point: carte (most cards; 21+ of 40 between two sides),
  denari (most coins), settebello (7 of denari), primiera (best card of each suit with 7 21,
  6 18, A 16, 5 15, 4 14, 3 13, 2 12, figures 10, summed; only with all four suits), one per
  scopa. ``re_bello``: +1 for the king of denari. ``napola``: 3 for A-2-3 of denari, +1 per
  further denari in sequence. Scopone counts per side.
- The match runs hand after hand, the dealer moving to the right (dealer+1), until a seat
  (Scopa) or side (Scopone) has ``target`` points (11 or 21 by default) or more with a
  strictly higher score than everyone else; a tie at the top plays on.
- Returns: 0 until the end. Scopa: the winner gets n-1 and each other seat -1. Scopone: +1 to
  each winning partner and -1 to each loser.
- Events: HAND_START, DEAL (private, seat = receiver), DEAL with seat -1 (table cards, public),
  REDEAL, PLAY (public), CAPTURE (seat = taker, cards = the table cards taken plus the played
  card, values = (1,) for a scopa else (0,); at the end of the hand the leftover table cards
  as a CAPTURE with values (0,) and no played card), HAND_END (values = cards taken per seat,
  cards = table cards nobody took), SCORE (per-seat game points of the hand, a side's points
  repeated for both partners), MATCH_END. Observation ``points`` = cards taken per seat this
  hand, ``scores`` = running match score per seat.

Actions (``scopa_captures``): action = card + 40 * code.
| code        | meaning                                                        |
|-------------|----------------------------------------------------------------|
| 0           | lay the card (Italian 40-card id) on the table                 |
| 1-4050      | play the card and take ``CAPTURE_SETS[code - 1]`` (fixed card sets) |
| 4051        | play an ace and take the whole table (``asso_piglia_tutto``)   |
``action_to_string`` names the card and the cards taken, e.g. ``7D x 3C+4S``.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

from mypy_extensions import i64

from arena.games.api import (
    ALL_SEATS,
    TERMINAL,
    ActionKind,
    ActionMeaning,
    DealInput,
    EventKind,
    Game,
    Observation,
    State,
    play_entries,
)
from arena.games.cards import (
    CARD_BIT,
    HIDDEN,
    ITALIAN_40,
    Rank,
    cards_outside,
    insert_sorted,
    remove_card,
)
from arena.games.outcomes import pair_outcome, side_outcome
from arena.games.params import GameSpec, Param, ParamValue
from arena.games.scopa_captures import (
    CAPTURE_SETS,
    DECK_SIZE,
    MAX_VALUE,
    TAKE_ALL,
    TAKE_ALL_OFFSET,
    VALUE,
    VALUE_KEY,
    decode,
    set_offsets,
    set_sums,
)
from arena.games.scopa_scoring import ScoringRules, mask_points

RANK: Final = ITALIAN_40.rank_table()
TABLE_SEAT: Final = -1
"""The seat of the DEAL event that lays cards on the table."""
KINGS_FOR_REDEAL: Final = 3
TABLE_CARDS: Final = 4
ROUND_CARDS: Final = 3

_PLAY_ENTRY: Final = play_entries(EventKind.PLAY, 4, DECK_SIZE)
_CAPTURE: Final = EventKind.CAPTURE
_DEAL: Final = EventKind.DEAL
_HAND_START: Final = EventKind.HAND_START
_REDEAL: Final = EventKind.REDEAL
_KING: Final = Rank.RE
_ALL_CARDS: Final = CARD_BIT[DECK_SIZE] - 1
"""The card mask of the whole deck."""
_SUIT_SPAN: Final = 10
"""Card ids per suit."""
_SUIT_COLUMN: Final = 0x40100401
"""The card mask of the four aces (ids 0, 10, 20, 30): shifted by ``value - 1``, the cards
of that value."""
_NO_SCOPA: Final[tuple[int, ...]] = (0,)
_SCOPA: Final[tuple[int, ...]] = (1,)


class Phase(IntEnum):
    """Scopa has one phase of play; the match ends when a side reaches the target."""

    PLAY = 0
    OVER = 1


_PLAYING: Final = Phase.PLAY


class ScopaGame(Game):
    """Scopa with 2 or 3 seats, or Scopone with 4 seats in pairs."""


    def __init__(self, spec: GameSpec, num_players: int, params: dict[str, ParamValue]) -> None:
        """Derive the deal layout, sides and rule flags from the parameters."""
        super().__init__(spec, num_players, params)
        self.deck = ITALIAN_40
        self.capture_value = VALUE
        self.pairs = spec.id == "scopone"
        self.team_of = tuple(seat % 2 for seat in range(num_players)) if self.pairs else tuple(
            range(num_players))
        self.sides = 2 if self.pairs else num_players
        if self.pairs and not params.get("classic"):
            self.first_deal, self.table_deal = 10, 0
        elif self.pairs:
            self.first_deal, self.table_deal = 9, TABLE_CARDS
        else:
            self.first_deal, self.table_deal = ROUND_CARDS, TABLE_CARDS
        self.target = int(params["target"])
        self.last_play_scopa = bool(params["scopa_on_last_play"])
        self.min_cards = bool(params["min_cards_capture"])
        self.ace_takes_all = bool(params["asso_piglia_tutto"])
        self.leftover_to_dealer = bool(params.get("last_cards_to_dealer", False))
        self.scoring = ScoringRules(re_bello=bool(params["re_bello"]),
                                    napola=bool(params["napola"]))

    def teams(self) -> tuple[tuple[int, ...], ...] | None:
        """Pairs 0+2 and 1+3 in Scopone."""
        return ((0, 2), (1, 3)) if self.pairs else None

    def new_initial_state(self, seed: int, deal: DealInput = None) -> ScopaState:
        """A new match."""
        return ScopaState(self, seed, deal)


class ScopaState(State[ScopaGame]):
    """A Scopa or Scopone match in progress."""

    __slots__ = ("_dealer", "_drawn", "_hand_number", "_hands", "_keys", "_last_taker",
                 "_order", "_phase", "_scope", "_scores", "_table_bits", "_taken", "_won")

    _hands: list[list[int]]
    """Per seat, its hand, sorted."""
    _table_bits: i64
    """The table's cards as a card mask (``_table`` lists them)."""
    _keys: list[int]
    """The table's cards as value-order keys (``VALUE_KEY``), ascending: what captures search."""
    _order: list[int]
    """The hand's dealt order; the stock is its cards from ``_drawn`` on."""
    _drawn: int
    """How many cards of ``_order`` have been dealt."""
    _taken: list[int]
    """Per seat, how many cards it has taken this hand."""
    _won: list[int]
    """Per side, the card mask of the cards it has taken this hand."""


    def _start(self) -> None:
        """Deal the first hand."""
        game = self.game
        self._hand_number = 0
        self._dealer = game.num_players - 1
        self._scores = [0] * game.sides
        self._start_hand()

    # --- dealing and hand flow -------------------------------------------------------------

    def _start_hand(self) -> None:
        """Deal hands and table (again while the table holds 3+ kings)."""
        game = self.game
        n = game.num_players
        self._phase = _PLAYING
        self._taken = [0] * n
        self._won = [0] * game.sides
        self._scope = [0] * n
        self._last_taker = -1
        self._event(_HAND_START, self._dealer, values=(self._hand_number,))
        table_deal = game.table_deal
        while True:
            order = self._next_deal(frozen=True)
            self._order = order
            self._drawn = 0
            self._hands = [[] for _ in range(n)]
            self._deal_round(game.first_deal)
            drawn = self._drawn
            table = order[drawn:drawn + table_deal]
            table.sort()
            self._drawn = drawn + table_deal
            self._set_table(table)
            if table_deal:
                self._event(_DEAL, TABLE_SEAT, tuple(table))
            kings = 0
            for card in table:
                if RANK[card] == _KING:
                    kings += 1
            if kings < KINGS_FOR_REDEAL:
                break
            self._event(_REDEAL, self._dealer, tuple(table), (kings,))
        self._current = (self._dealer + 1) % n

    def _set_table(self, table: list[int]) -> None:
        """Lay the sorted cards ``table`` as the table."""
        bits: i64 = 0
        keys: list[int] = []
        for card in table:
            bits |= CARD_BIT[card]
            keys.append(VALUE_KEY[card])
        keys.sort()
        self._table_bits = bits
        self._keys = keys

    def _table(self) -> tuple[int, ...]:
        """The table's cards, sorted."""
        return cards_outside(_ALL_CARDS ^ self._table_bits, DECK_SIZE)

    def _deal_round(self, count: int) -> None:
        """Deal ``count`` cards each from the stock, one at a time from the dealer's right."""
        n = self.game.num_players
        order = self._order
        start = self._drawn
        stop = start + count * n
        hands = self._hands
        log = self._log
        first = (self._dealer + 1) % n
        for index in range(n):
            seat = (first + index) % n
            hand: list[int] = []
            position = start + index
            while position < stop:
                hand.append(order[position])
                position += n
            hand.sort()
            hands[seat] = hand
            log.append((_DEAL, seat, tuple(hand), (), 1 << seat))
        self._drawn = stop

    def _end_hand(self) -> None:
        """Give away the leftover table, score the hand, then deal again or end the match."""
        game = self.game
        n = game.num_players
        team_of = game.team_of
        taker = self._dealer if game.leftover_to_dealer else self._last_taker
        left = self._table()
        if left and taker >= 0:
            side = team_of[taker]
            self._won[side] = self._won[side] | self._table_bits
            self._taken[taker] += len(left)
            self._event(_CAPTURE, taker, left, _NO_SCOPA)
            left = ()
        self._set_table([])
        self._event(EventKind.HAND_END, self._dealer, left, tuple(self._taken))
        side_scope = [0] * game.sides
        for seat in range(n):
            side_scope[team_of[seat]] += self._scope[seat]
        points = mask_points(self._won, side_scope, game.scoring)
        self._event(EventKind.SCORE, self._dealer,
                    values=tuple(points[team_of[seat]] for seat in range(n)))
        for side in range(game.sides):
            self._scores[side] += points[side]
        self._hand_number += 1
        winner = self._match_winner()
        if winner is None:
            self._dealer = (self._dealer + 1) % n
            self._start_hand()
            return
        outcome = (pair_outcome(winner, n, team_of) if game.pairs
                   else side_outcome([winner], n))
        for seat, value in enumerate(outcome):
            self._returns[seat] = float(value)
        self._phase = Phase.OVER
        self._current = TERMINAL
        self._event(EventKind.MATCH_END, -1, values=tuple(outcome))

    def _match_winner(self) -> int | None:
        """The side with the target or more and strictly the highest score, if any."""
        scores = self._scores
        best = max(scores)
        if best < self.game.target or scores.count(best) > 1:
            return None
        return scores.index(best)

    # --- the API ----------------------------------------------------------------------------

    def _legal_play(self) -> list[int]:
        """Each card of the hand with each capture it may make, or laid down if it takes none
        (``capture_offsets``, with the equal cards and the ace's take-all worked out here).

        The actions come out sorted without a sort in most positions: the laid-down cards
        (ids below ``DECK_SIZE``) go in front in hand order, and the captures are sorted only
        when one came out below the one before."""
        seat = self._current
        if seat < 0:
            return []
        hand = self._hands[seat]
        table = self._table_bits
        if not table:
            return hand[:]
        game = self.game
        legal: list[int] = []
        laid = 0
        last = -1
        ordered = True
        # Per value: its set offsets, once searched (made at the first search).
        known: list[list[int] | None] | None = None
        sums: i64 = -1
        for card in hand:
            value = VALUE[card]
            equal: i64 = table >> value - 1 & _SUIT_COLUMN
            if equal:
                # Taking the table card of this value in suit s (id s * 10 + value - 1).
                offset = DECK_SIZE * value
                while equal:
                    if equal & 1:
                        action = card + offset
                        ordered = ordered and action > last
                        last = action
                        legal.append(action)
                    equal >>= _SUIT_SPAN
                    offset += DECK_SIZE * _SUIT_SPAN
                continue
            if value == 1 and game.ace_takes_all:
                action = card + TAKE_ALL_OFFSET
                ordered = ordered and action > last
                last = action
                legal.append(action)
                continue
            if sums < 0:
                sums = set_sums(self._keys)
            if not sums >> value & 1:
                legal.insert(laid, card)
                laid += 1
                continue
            if known is None:
                known = [None] * (MAX_VALUE + 1)
            offsets = known[value]
            if offsets is None:
                offsets = known[value] = set_offsets(self._keys, value, game.min_cards)
            for offset in offsets:
                action = card + offset
                ordered = ordered and action > last
                last = action
                legal.append(action)
        if not ordered:
            legal.sort()
        return legal

    def _apply_play(self, action: int) -> None:
        """Play a card, lay it down or take, then move on, deal or end the hand."""
        game = self.game
        seat = self._current
        code = action // DECK_SIZE
        card = action - code * DECK_SIZE
        hands = self._hands
        remove_card(hands[seat], card)
        log = self._log
        log.append(_PLAY_ENTRY[seat][card])
        last_play = self._drawn == len(self._order) and _all_empty(hands)
        if code:
            if code == TAKE_ALL:
                taken = self._table()
                bits: i64 = self._table_bits
                self._keys.clear()
            else:
                taken = CAPTURE_SETS[code - 1]
                bits = 0
                keys = self._keys
                for other in taken:
                    bits |= CARD_BIT[other]
                    remove_card(keys, VALUE_KEY[other])
            table: i64 = self._table_bits & ~bits
            self._table_bits = table
            won = self._won
            side = game.team_of[seat]
            won[side] = won[side] | bits | CARD_BIT[card]
            self._taken[seat] += len(taken) + 1
            self._last_taker = seat
            sweep = not table and (not last_play or game.last_play_scopa) and code != TAKE_ALL
            if sweep:
                self._scope[seat] += 1
            log.append((_CAPTURE, seat, (*taken, card), _SCOPA if sweep else _NO_SCOPA,
                         ALL_SEATS))
        else:
            insert_sorted(self._keys, VALUE_KEY[card])
            self._table_bits |= CARD_BIT[card]
        if last_play:
            self._end_hand()
            return
        following = (seat + 1) % game.num_players
        self._current = following
        if not hands[following] and _all_empty(hands):
            self._deal_round(ROUND_CARDS)

    def _compute_legal(self) -> list[int]:
        """The legal actions: those of play."""
        return self._legal_play()

    def _apply(self, action: int) -> None:
        """Apply an action of play."""
        self._apply_play(action)


    # --- views ------------------------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        """The card played and the cards taken, e.g. ``7D x 3C+4S``, or just ``7D``."""
        card, taken = decode(action, self._table())
        name = ITALIAN_40.short(card)
        if action // DECK_SIZE == TAKE_ALL:
            return f"{name} x all" + (f" ({'+'.join(ITALIAN_40.short(c) for c in taken)})"
                                      if taken else "")
        if not taken:
            return name
        return f"{name} x {'+'.join(ITALIAN_40.short(other) for other in taken)}"

    def action_meaning(self, action: int) -> ActionMeaning:
        """PLAY to lay the card on the table, or CAPTURE of the table cards it takes."""
        label = self.action_to_string(action)
        card, taken = decode(action, self._table())
        if action < DECK_SIZE:
            return ActionMeaning(ActionKind.PLAY, cards=(card,), label=label)
        return ActionMeaning(ActionKind.CAPTURE, cards=(card,), captured=taken, label=label)

    def observation(self, seat: int) -> Observation:
        """Own hand, the table, hand sizes, public captures and scores."""
        game = self.game
        n = game.num_players
        partner = (seat + 2) % 4 if game.pairs else -1
        return Observation(
            game=game.id,
            seat=seat,
            num_seats=n,
            hand_number=self._hand_number,
            dealer=self._dealer,
            phase=self._phase.name.lower(),
            current_player=self._current,
            hand=tuple(self._hands[seat]),
            hand_sizes=tuple(len(h) for h in self._hands),
            trump_suit=HIDDEN,
            table=self._table(),
            stock_size=len(self._order) - self._drawn,
            teammates=(partner,) if partner >= 0 else (),
            points=tuple(self._taken),
            scores=tuple(float(self._scores[game.team_of[s]]) for s in range(n)),
            events=self._events_for(seat),
            legal_actions=tuple(self._compute_legal()) if seat == self._current else (),
        )


def _all_empty(hands: list[list[int]]) -> bool:
    """True when no hand holds a card."""
    return all(not hand for hand in hands)


_SHARED = (
    Param("scopa_on_last_play", False, "a sweep on the last play of a hand counts as a scopa"),
    Param("min_cards_capture", False, "among the sets a card can take, only those with the "
          "fewest cards may be taken"),
    Param("napola", False, "3 points for A-2-3 of denari, +1 per further denari in sequence"),
    Param("re_bello", False, "1 point for the king of denari"),
    Param("asso_piglia_tutto", False, "an ace played on a table without an ace takes it all "
          "(no scopa)"),
)
_SCOPA_PARAMS = (
    Param("target", 11, "points that win the match (11, 16 or 21 are usual)", minimum=1,
          maximum=100),
    *_SHARED,
)
_SCOPONE_PARAMS = (
    Param("target", 21, "points that win the match (21 or 11 are usual)", minimum=1,
          maximum=100),
    Param("classic", False, "9 cards each and 4 on the table instead of 10 each"),
    Param("last_cards_to_dealer", False, "the table cards left at the end go to the dealer"),
    *_SHARED,
)


def _make(spec: GameSpec, players: int, params: dict[str, ParamValue]) -> Game:
    """The game factory."""
    return ScopaGame(spec, players, params)


SPECS = (
    GameSpec(
        id="scopa", title="Scopa", section="1.10", seats=(2, 3), params=_SCOPA_PARAMS,
        factory=_make,
        summary="capture table cards by equal value or sum; scope, carte, denari, settebello, "
                "primiera; first to 11",
        extra_configurations=(
            (2, (("napola", True), ("re_bello", True), ("scopa_on_last_play", True))),
            (3, (("asso_piglia_tutto", True), ("min_cards_capture", True), ("target", 16))),
        ),
    ),
    GameSpec(
        id="scopone", title="Scopone scientifico", section="1.11", seats=(4,),
        params=_SCOPONE_PARAMS, factory=_make,
        summary="Scopa in crossed pairs, 10 cards each and an empty table; first side to 21",
        extra_configurations=(
            (4, (("classic", True), ("napola", True), ("target", 11))),
            (4, (("last_cards_to_dealer", True), ("min_cards_capture", True),
                 ("asso_piglia_tutto", True), ("re_bello", True),
                 ("scopa_on_last_play", True))),
        ),
    ),
)
