"""Briscola (2, 3 or 4 seats) and Briscola a 31 (docs/games/briscola.md).

Rules summary:
- Italian 40-card deck, briscola order A 3 R C F 7 6 5 4 2, points A 11, 3 10, R 4, C 3, F 2.
- Deal 3 cards each, one at a time, from the dealer's right (seat dealer+1). The next card is
  turned face up: its suit is trump and it is the last card drawn from the stock.
- The dealer's right leads; the trick winner leads next. No obligation to follow suit or trump.
  The highest trump wins, else the highest card of the led suit.
- After each trick every player draws one card, the winner first.
- 3 seats: the 2 of bastoni is removed before the shuffle (``three_player_fix=remove_2_bastoni``;
  the deal's recorded order lists it last, and an injected order has it taken out wherever
  it is) or the last card of the stock stays on the table (``leave_last_card``).
- 4 seats: fixed pairs, partners opposite (seats 0+2 against 1+3).
  ``show_partner_hand_when_stock_empty`` shows each partner's hand once the stock is empty.
- ``trump_swap``: the holder of the 7 (or 2) of trump may, at their turn while the stock still
  has a card besides the face-up one, swap it for the face-up trump. Default off.
- A hand ends when all cards are played: a side with 61+ card points wins, 60-60 is a draw.
  With 3 seats the most card points win.
- Briscola a 31 (``briscola-31``): at any of their own turns a player may declare 31; if their
  side has 31+ card points they win the hand at once, otherwise they lose it at once. When
  nobody declares the hand ends as in Briscola.
- Game points per hand, zero-sum: a side that wins gets +1 per seat and the losers -1 (two
  seats or pairs); with 3 seats each of k winners gets 3-k and each loser -k. A match is
  ``hands`` hands, the dealer moving to the right (dealer+1) each hand.

Actions:
| id     | meaning                                     |
|--------|---------------------------------------------|
| 0-39   | play that card (Italian 40-card id)         |
| 40     | declare 31 (``briscola-31`` only)           |
| 41     | swap the 7 or 2 of trump for the face-up card (``trump_swap``) |

``action_meaning``: a card is PLAY, 40 DECLARE with value 31, 41 SWAP with cards = the card of
trump put face up; its label names the card given and the face-up card taken.
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
    LogEntry,
    Observation,
    State,
    play_entries,
    play_meanings,
)
from arena.games.cards import (
    BRISCOLA_POINTS,
    BRISCOLA_STRENGTH,
    CARD_BIT,
    ITALIAN_40,
    Rank,
    Suit,
    cards_outside,
    insert_sorted,
    remove_card,
)
from arena.games.outcomes import pair_outcome, side_outcome
from arena.games.params import GameSpec, Param, ParamValue
from arena.games.tricks import keyed_trick, trick_key_tables

DECLARE_31: Final = 40
SWAP_TRUMP: Final = 41
NUM_ACTIONS: Final = 42

_PLAY_MEANINGS: Final = play_meanings(ITALIAN_40)
"""The meaning of each card play, built once."""

SUIT: Final = ITALIAN_40.suit_table()
STRENGTH: Final = ITALIAN_40.per_card(BRISCOLA_STRENGTH)
POINTS: Final = ITALIAN_40.per_card(BRISCOLA_POINTS)
TWO_OF_BASTONI: Final = ITALIAN_40.card(Suit.BASTONI, Rank.DUE)
DECLARE_TARGET: Final = 31
_DECLARE_MEANING: Final = ActionMeaning(ActionKind.DECLARE, value=DECLARE_TARGET,
                                        label="declare-31")
"""The meaning of declaring 31, the same object every time (encoders cache by identity)."""

_PLAY: Final = EventKind.PLAY
_HAND_START: Final = EventKind.HAND_START
_DEAL: Final = EventKind.DEAL
_TRUMP: Final = EventKind.TRUMP
_TRICK: Final = EventKind.TRICK
_DRAW: Final = EventKind.DRAW
_DECLARE: Final = EventKind.DECLARE
_HAND_END: Final = EventKind.HAND_END
_SCORE: Final = EventKind.SCORE
_MATCH_END: Final = EventKind.MATCH_END
TRICK_KEYS: Final = trick_key_tables(SUIT, STRENGTH, ITALIAN_40.suits)
_DECLARE_ONLY: Final = [DECLARE_31]
"""The extra action of Briscola a 31 without a trump swap."""
_TRICK_POINTS: Final = tuple((points,) for points in range(4 * 11 + 1))
"""A TRICK entry's values, ``(points,)``, prebuilt for every trick's card points."""
_PLAY_ENTRY: Final = play_entries(EventKind.PLAY, 4, ITALIAN_40.size)
_PRIVATE_DRAW_ENTRY: Final = play_entries(EventKind.DRAW, 4, ITALIAN_40.size, private=True)
_TRUMP_ENTRY: Final = tuple(
    tuple((_TRUMP, dealer, (card,), (SUIT[card],), ALL_SEATS) for card in range(ITALIAN_40.size))
    for dealer in range(4))
"""Prebuilt TRUMP log entries ``[dealer][face-up card]``."""
_DECLARE_ENTRY: Final = tuple(
    tuple((_DECLARE, seat, (), (points,), ALL_SEATS) for points in range(121))
    for seat in range(4))
"""Prebuilt DECLARE log entries ``[seat][side points]``."""
_PREBUILT_HANDS: Final = 16
_HAND_START_ENTRY: Final = tuple(
    tuple((_HAND_START, dealer, (), (hand,), ALL_SEATS) for dealer in range(4))
    for hand in range(_PREBUILT_HANDS))
"""Prebuilt HAND_START log entries ``[hand number][dealer]`` for the first hands."""


class Phase(IntEnum):
    """Briscola has one phase of play; the match ends after the last hand."""

    PLAY = 0
    OVER = 1


_PLAYING: Final = Phase.PLAY
_OVER: Final = Phase.OVER
_PHASE_NAMES: Final[tuple[str, ...]] = tuple(phase.name.lower() for phase in Phase)
"""An observation's ``phase`` text, by phase."""


class BriscolaGame(Game):
    """Briscola or Briscola a 31 with 2, 3 or 4 seats."""


    def __init__(self, spec: GameSpec, num_players: int, params: dict[str, ParamValue]) -> None:
        """Derive the seat layout from the seat count and parameters."""
        super().__init__(spec, num_players, params)
        self.deck = ITALIAN_40
        self.points_total = 120
        self.card_points = POINTS
        self.trick_strength = STRENGTH
        self.declare_31 = spec.id == "briscola-31"
        self.team_of = tuple(seat % 2 for seat in range(4)) if num_players == 4 else tuple(
            range(num_players))
        fix = params.get("three_player_fix")
        self.removed = (TWO_OF_BASTONI,) if num_players == 3 and fix == "remove_2_bastoni" else ()
        swap = params.get("trump_swap", "none")
        self.swap_rank = {"seven": Rank.SETTE, "two": Rank.DUE}.get(str(swap))
        self.has_extra_actions = self.declare_31 or self.swap_rank is not None
        self.hands = int(params["hands"])
        self.declare_outcomes = tuple(
            (self._declare_outcome(seat, False), self._declare_outcome(seat, True))
            for seat in range(num_players))
        self.declare_scores = tuple(
            tuple(tuple((_SCORE, dealer, (), tuple(outcome), ALL_SEATS) for outcome in pair)
                  for pair in self.declare_outcomes)
            for dealer in range(num_players))
        """The SCORE log entry of a declaration ``[dealer][declarer][claim true]``."""

    def _declare_outcome(self, seat: int, claim_true: bool) -> list[int]:
        """Game points when ``seat`` declares 31 truly or falsely."""
        n = self.num_players
        mine = [s for s in range(n) if self.team_of[s] == self.team_of[seat]]
        others = [s for s in range(n) if s not in mine]
        if n == 3:
            return side_outcome(mine if claim_true else others, n)
        return pair_outcome(self.team_of[seat] if claim_true else self.team_of[others[0]], n,
                            self.team_of)

    def teams(self) -> tuple[tuple[int, ...], ...] | None:
        """Pairs 0+2 and 1+3 with four seats."""
        return ((0, 2), (1, 3)) if self.num_players == 4 else None

    def new_initial_state(self, seed: int, deal: DealInput = None) -> BriscolaState:
        """A new match."""
        return BriscolaState(self, seed, deal)


class BriscolaState(State[BriscolaGame]):
    """A Briscola match in progress."""

    __slots__ = ("_dealer", "_hand_number", "_hands", "_leader", "_order", "_phase",
                 "_points", "_stock_left", "_trick", "_trump", "_trump_card", "_won")

    _won: i64
    """A bit per card won in a trick this hand."""
    _order: list[int]
    """The hand's dealt order: the stock is its cards after the face-up trump, drawn in turn
    (the next one at ``len(_order) - _stock_left + 1``)."""
    _stock_left: i64
    """Cards in the stock, the face-up trump (always drawn last) included."""


    def _start(self) -> None:
        """Deal the first hand."""
        game = self.game
        self._hand_number = 0
        self._dealer = game.num_players - 1
        self._start_hand()

    # --- dealing and hand flow -------------------------------------------------------------

    def _start_hand(self) -> None:
        """Shuffle (or take the injected order), deal 3 each, turn up the trump."""
        game = self.game
        n = game.num_players
        order = self._next_deal(game.removed, frozen=True)
        dealer = self._dealer
        first = (dealer + 1) % n
        # One card at a time from the dealer's right: seat first+i gets order[i], order[i+n]...
        hands = []
        for seat in range(n):
            index = (seat - first) % n
            hands.append(_sorted_three(order[index], order[index + n], order[index + 2 * n]))
        self._hands = hands
        trump_card = self._trump_card = order[3 * n]
        self._trump = SUIT[trump_card]
        # The stock is the cards after the face-up one, drawn in order; the face-up card last.
        self._order = order
        self._stock_left = len(order) - 3 * n
        self._trick: list[int] = []
        self._points = [0] * n
        self._won = 0
        self._leader = first
        self._current = first
        self._phase = _PLAYING
        log = self._log
        hand_number = self._hand_number
        log.append(_HAND_START_ENTRY[hand_number][dealer] if hand_number < _PREBUILT_HANDS
                   else (_HAND_START, dealer, (), (hand_number,), ALL_SEATS))
        for seat in range(n):
            log.append((_DEAL, seat, tuple(hands[seat]), (), 1 << seat))
        log.append(_TRUMP_ENTRY[dealer][trump_card])

    def _end_hand(self, outcome: list[int], score: LogEntry | None = None) -> None:
        """Score the hand (``score``: its SCORE entry, when prebuilt), then deal the next one
        or end the match."""
        game = self.game
        dealer = self._dealer
        log = self._log
        log.append((_HAND_END, dealer, cards_outside(self._won, ITALIAN_40.size),
                    tuple(self._points), ALL_SEATS))
        entry = score if score is not None else (_SCORE, dealer, (), tuple(outcome), ALL_SEATS)
        log.append(entry)
        returns = self._returns
        for seat, value in enumerate(outcome):
            returns[seat] += value
        self._hand_number += 1
        if self._hand_number >= game.hands:
            self._phase = _OVER
            self._current = TERMINAL
            # After a single hand the match's points are that hand's, as SCORE lists them.
            final = entry[3] if self._hand_number == 1 else tuple(
                [int(value) for value in returns])
            log.append((_MATCH_END, -1, (), final, ALL_SEATS))
            return
        self._dealer = (self._dealer + 1) % game.num_players
        self._start_hand()

    def _normal_outcome(self) -> list[int]:
        """Game points when every card has been played."""
        game = self.game
        n = game.num_players
        if n == 3:
            best = max(self._points)
            return side_outcome([s for s in range(n) if self._points[s] == best], n)
        side_points = [0, 0]
        for seat in range(n):
            side_points[game.team_of[seat] % 2] += self._points[seat]
        if side_points[0] == side_points[1]:
            return pair_outcome(None, n, game.team_of)
        return pair_outcome(0 if side_points[0] > side_points[1] else 1, n, game.team_of)

    def side_points(self, seat: int) -> int:
        """Card points of a seat's side in this hand."""
        points = self._points
        if len(points) == 4:
            return points[seat] + points[(seat + 2) % 4]
        return points[seat]

    # --- the API ----------------------------------------------------------------------------

    def _legal_play(self) -> list[int]:
        """Cards in hand, plus declaring 31 and the trump swap where allowed."""
        if self._phase:
            return []
        game = self.game
        hand = self._hands[self._current]  # kept sorted
        if not game.has_extra_actions:
            return hand
        if game.swap_rank is None:
            return hand + _DECLARE_ONLY
        legal = hand[:]
        if game.declare_31:
            legal.append(DECLARE_31)
        if game.swap_rank is not None and self._can_swap(hand):
            legal.append(SWAP_TRUMP)
        return legal

    def _can_swap(self, hand: list[int]) -> bool:
        """True when the player holds the swap card and the face-up card is still out."""
        rank = self.game.swap_rank
        if rank is None or self._stock_left < 2:
            return False
        return ITALIAN_40.card(self._trump, rank) in hand

    def _apply_declare(self) -> None:
        """A true claim wins the hand for the declarer's side, a false one loses it."""
        seat = self._current
        side = self.side_points(seat)
        self._log.append(_DECLARE_ENTRY[seat][side])
        game = self.game
        claim_true = side >= DECLARE_TARGET
        self._end_hand(game.declare_outcomes[seat][claim_true],
                       game.declare_scores[self._dealer][seat][claim_true])

    def _apply_swap(self) -> None:
        """Exchange the 7 (or 2) of trump in hand with the face-up card."""
        seat = self._current
        rank = self.game.swap_rank
        assert rank is not None
        own = ITALIAN_40.card(self._trump, rank)
        hand = self._hands[seat]
        hand.remove(own)
        insert_sorted(hand, self._trump_card)
        self._event(EventKind.SWAP, seat, (own, self._trump_card))
        self._trump_card = own

    def _apply_play(self, action: int) -> None:
        """Play a card (resolving the trick and drawing), declare 31 or swap the trump."""
        if action >= DECLARE_31:
            if action == DECLARE_31:
                self._apply_declare()
            else:
                self._apply_swap()
            return
        card = action
        seat = self._current
        remove_card(self._hands[seat], card)
        trick = self._trick
        trick.append(card)
        self._log.append(_PLAY_ENTRY[seat][card])
        n = len(self._hands)
        if len(trick) < n:
            self._current = following = (seat + 1) % n
            if not self.game.has_extra_actions:
                self._legal = self._hands[following]  # kept sorted: the legal plays
            return
        best, points = keyed_trick(trick, TRICK_KEYS[self._trump][SUIT[trick[0]]], POINTS)
        winner = (self._leader + best) % n
        self._points[winner] += points
        won = self._won
        for played in trick:
            won |= CARD_BIT[played]
        self._won = won
        self._log.append((_TRICK, winner, tuple(trick), _TRICK_POINTS[points], ALL_SEATS))
        trick.clear()
        left = self._stock_left
        if left >= n:
            hands = self._hands
            log = self._log
            for offset in range(n):
                drawer = (winner + offset) % n
                left -= 1
                if left:
                    drawn = self._order[len(self._order) - left]
                    log.append(_PRIVATE_DRAW_ENTRY[drawer][drawn])
                else:  # the face-up trump, which everybody sees taken
                    drawn = self._trump_card
                    log.append((_DRAW, drawer, (drawn,), (), ALL_SEATS))
                insert_sorted(hands[drawer], drawn)
            self._stock_left = left
        self._leader = winner
        self._current = winner
        if not self._hands[winner]:
            self._end_hand(self._normal_outcome())

    # Briscola has a single phase of decisions: dispatch without a table.
    def _compute_legal(self) -> list[int]:
        """The legal actions: those of play."""
        return self._legal_play()

    def _apply(self, action: int) -> None:
        """Apply an action of play."""
        self._apply_play(action)


    # --- views ------------------------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        """A card's compact name, ``declare-31`` or ``swap-trump 7D for AD`` (gives, takes)."""
        if action == DECLARE_31:
            return "declare-31"
        if action == SWAP_TRUMP:
            own = self._swap_card()
            if own < 0:
                return "swap-trump"
            return f"swap-trump {ITALIAN_40.short(own)} for {ITALIAN_40.short(self._trump_card)}"
        if not 0 <= action < ITALIAN_40.size:
            raise ValueError(f"{action} is not a {self.game.id} action (0..{NUM_ACTIONS - 1})")
        return ITALIAN_40.short(action)

    def _swap_card(self) -> int:
        """The card of trump a swap puts face up (the 7 or the 2), or -1 without ``trump_swap``."""
        rank = self.game.swap_rank
        return -1 if rank is None else ITALIAN_40.card(self._trump, rank)

    def action_meaning(self, action: int) -> ActionMeaning:
        """A card is PLAY, ``declare-31`` DECLARE (value 31), ``swap-trump`` SWAP of the 7 or 2."""
        if 0 <= action < ITALIAN_40.size:
            return _PLAY_MEANINGS[action]
        if action == DECLARE_31:
            return _DECLARE_MEANING
        label = self.action_to_string(action)
        if action == SWAP_TRUMP:
            own = self._swap_card()
            return ActionMeaning(ActionKind.SWAP, cards=(own,) if own >= 0 else (), label=label)
        return ActionMeaning(ActionKind.PLAY, cards=(action,), label=label)

    def observation(self, seat: int) -> Observation:
        """Own hand, the face-up trump, the trick, public history; the partner's hand when shown."""
        game = self.game
        n = game.num_players
        partner = (seat + 2) % 4 if n == 4 else -1
        visible: tuple[tuple[int, tuple[int, ...]], ...] = ()
        if (partner >= 0 and game.params.get("show_partner_hand_when_stock_empty")
                and not self._stock_left and self._phase == Phase.PLAY):
            visible = ((partner, tuple(sorted(self._hands[partner]))),)
        leader = self._leader
        trick = tuple([((leader + i) % n, card) for i, card in enumerate(self._trick)])
        return Observation(
            game=game.id,
            seat=seat,
            num_seats=n,
            hand_number=self._hand_number,
            dealer=self._dealer,
            phase=_PHASE_NAMES[self._phase],
            current_player=self._current,
            hand=tuple(self._hands[seat]),  # kept sorted
            hand_sizes=tuple(len(h) for h in self._hands),
            visible_hands=visible,
            trump_suit=self._trump,
            trump_card=self._trump_card,
            trick=trick,
            stock_size=self._stock_left,
            teammates=(partner,) if partner >= 0 else (),
            points=tuple(self._points),
            scores=tuple(self._returns),
            events=self._events_for(seat),
            legal_actions=tuple(self._compute_legal()) if seat == self._current else (),
        )


_COMMON = (
    Param("hands", 1, "hands in a match; the dealer moves to the right each hand", minimum=1,
          maximum=1000),
    Param("three_player_fix", "remove_2_bastoni", "with 3 seats: remove the 2 of bastoni, or "
          "leave the last stock card on the table", choices=("remove_2_bastoni",
                                                              "leave_last_card")),
    Param("show_partner_hand_when_stock_empty", False,
          "with 4 seats: partners see each other's hand once the stock is empty"),
    Param("trump_swap", "none", "the holder of this card of trump may swap it for the face-up "
          "trump", choices=("none", "seven", "two")),
)


def _sorted_three(a: int, b: int, c: int) -> list[int]:
    """Three cards in ascending order."""
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
        if a > b:
            a, b = b, a
    return [a, b, c]


def _make(spec: GameSpec, players: int, params: dict[str, ParamValue]) -> Game:
    """The game factory."""
    return BriscolaGame(spec, players, params)


SPECS = (
    GameSpec(
        id="briscola", title="Briscola", section="1.2", seats=(2, 3, 4), params=_COMMON,
        factory=_make, rules_version="3",
        summary="3 cards each, face-up trump, no obligation to follow; 61 of 120 wins",
        extra_configurations=(
            (3, (("three_player_fix", "leave_last_card"),)),
            (4, (("show_partner_hand_when_stock_empty", True), ("hands", 2))),
            (2, (("trump_swap", "seven"), ("hands", 3))),
            (3, (("trump_swap", "two"),)),
        ),
    ),
    GameSpec(
        id="briscola-31", title="Briscola a 31", section="1.3", seats=(2, 3, 4), params=_COMMON,
        factory=_make, rules_version="3",
        summary="Briscola where the first to declare 31 card points wins; a false claim loses",
        extra_configurations=((4, (("hands", 3),)),),
    ),
)
