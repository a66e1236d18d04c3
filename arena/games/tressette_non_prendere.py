"""Tressette a non prendere: 3 seats, a match to a number of losses
(docs/games/tressette_non_prendere.md).

Rules summary:
- Italian 40-card deck, Tressette order 3 2 A R C F 7 6 5 4, no trumps. Points in thirds: an
  ace 3, a 3, 2, R, C or F 1, the rest 0; the last trick is worth 3 more (35 thirds a hand).
- Deal one card at a time counter-clockwise from the dealer's right (seat dealer+1, the first
  player), 13 each, then the 40th card to the first player, who holds 14. With the deal order
  ``o``: ``o[0:39:3] + o[39:]`` to dealer+1, ``o[1:39:3]`` to dealer+2, ``o[2:39:3]`` to the dealer.
- Passing: the first player passes one card face down to dealer+2, who then passes one card to
  the dealer; the dealer puts one card face down aside. A passed card is seen by its giver and
  receiver only, the set-aside card by the dealer only (it is shown at the end of the hand).
- Play: the first player leads; the trick winner leads next. Players must follow suit; a void
  player may play any card. The highest card of the led suit wins.
- Hand points: the set-aside card goes with the last trick. Every seat but the last-trick taker
  scores its thirds divided by 3, rounded down; the last-trick taker scores 11 minus the others.
- Loser of a hand: a seat with 0 points loses (every such seat). Otherwise the highest score
  loses; a tie for the highest (``tie_rule``): all tied seats lose (``all_lose``) or nobody does
  (``none_lose``). Cappotto, one seat taking every trick (``cappotto_rule``): both others lose
  (``others_lose``) or the taker does (``taker_loses``).
- The match: every lost hand is a loss; after the hand in which some seat reaches ``losses``
  (default 5) losses, the match ends and those seats lose it. The dealer moves to the right
  (dealer+1) each hand; the first dealer is seat 2.
- Returns: 0 until the match ends; then, with k seats that did not lose the match, each of them
  gets 3-k and each match loser -k. ``observation.scores`` are the losses of each seat;
  ``points`` the thirds each seat has won in tricks this hand.

Events: HAND_START, DEAL (private), PASS (cards: the passed card, seen by giver and receiver;
the receiver is the giver's right, seat+1), PLAY_FACE_DOWN (the dealer's set-aside card, private),
PLAY, TRICK (values: thirds of the trick), HAND_END (values: per-seat thirds won in tricks,
with the last-trick 3; cards: the set-aside card), SCORE (values: 1 for each seat that lost the
hand, else 0), MATCH_END (values: returns).

Actions: one id per card in every phase; the phase says whether it is passed, set aside or
played.
| id   | meaning                                                           |
|------|-------------------------------------------------------------------|
| 0-39 | pass, set aside or play that card (Italian 40-card id)            |
"""

from __future__ import annotations

from bisect import bisect_left, insort
from enum import IntEnum
from typing import Final

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
from arena.games.cards import HIDDEN, ITALIAN_40, TRESSETTE_STRENGTH, TRESSETTE_THIRDS
from arena.games.outcomes import side_outcome
from arena.games.params import GameSpec, Param, ParamValue
from arena.games.tricks import NO_TRUMP, trick_key_tables

NUM_ACTIONS: Final = ITALIAN_40.size
NUM_SEATS = 3
TRICKS: Final = 13
LAST_TRICK_THIRDS: Final = 3
HAND_POINTS: Final = 11
ALL_LOSE: Final = "all_lose"
NONE_LOSE: Final = "none_lose"
OTHERS_LOSE: Final = "others_lose"
TAKER_LOSES: Final = "taker_loses"

SUIT: Final = ITALIAN_40.suit_table()
STRENGTH: Final = ITALIAN_40.per_card(TRESSETTE_STRENGTH)
THIRDS: Final = ITALIAN_40.per_card(TRESSETTE_THIRDS)
LED_KEYS: Final = trick_key_tables(SUIT, STRENGTH, ITALIAN_40.suits)[NO_TRUMP]
"""Per led suit, a key per card: the highest key wins the trick."""

_TRICK: Final = EventKind.TRICK
_PLAY_ENTRY: Final = play_entries(EventKind.PLAY, NUM_SEATS, ITALIAN_40.size)


class Phase(IntEnum):
    """Passing (two passes), setting a card aside, playing, and the end of the match."""

    PASS = 0
    DISCARD = 1
    PLAY = 2
    OVER = 3


PHASE_NAMES: Final = tuple(phase.name.lower() for phase in Phase)
"""``observation.phase`` by phase."""
_PLAY_PHASE: Final = Phase.PLAY
_CARD_KINDS = (ActionKind.GIVE, ActionKind.DISCARD, ActionKind.PLAY, ActionKind.PLAY)
"""What a card action does, by phase: passed, set aside or played."""


def deal_hands(order: list[int], dealer: int) -> list[list[int]]:
    """The three sorted hands: one card at a time from dealer+1, who also gets the 40th."""
    hands: list[list[int]] = [[] for _ in range(NUM_SEATS)]
    for offset in range(NUM_SEATS):
        hands[(dealer + 1 + offset) % NUM_SEATS] = sorted(order[offset:39:NUM_SEATS])
    insort(hands[(dealer + 1) % NUM_SEATS], order[39])
    return hands


def hand_points(thirds: list[int], last_taker: int) -> list[int]:
    """Points per seat: others' thirds // 3, the last-trick taker 11 minus the others."""
    points = [third // 3 for third in thirds]
    points[last_taker] = HAND_POINTS - sum(points) + points[last_taker]
    return points


def hand_losers(points: list[int], cappotto: int, tie_rule: str, cappotto_rule: str) -> list[int]:
    """The seats that lose a hand; ``cappotto`` is the seat that took every trick, or -1."""
    seats = range(len(points))
    if cappotto >= 0:
        if cappotto_rule == TAKER_LOSES:
            return [cappotto]
        return [seat for seat in seats if seat != cappotto]
    zeros = [seat for seat in seats if points[seat] < 1]
    if zeros:
        return zeros
    top = max(points)
    tied = [seat for seat in seats if points[seat] == top]
    if len(tied) > 1 and tie_rule == NONE_LOSE:
        return []
    return tied


class NonPrendereGame(Game):
    """Tressette a non prendere with its rule options."""


    def __init__(self, spec: GameSpec, num_players: int, params: dict[str, ParamValue]) -> None:
        """Unpack the parameters."""
        super().__init__(spec, num_players, params)
        self.deck = ITALIAN_40
        self.points_total = sum(THIRDS) + LAST_TRICK_THIRDS
        self.card_points = THIRDS
        self.trick_strength = STRENGTH
        self.losses = int(params["losses"])
        self.tie_rule = str(params["tie_rule"])
        self.cappotto_rule = str(params["cappotto_rule"])

    def new_initial_state(self, seed: int, deal: DealInput = None) -> NonPrendereState:
        """A new match."""
        return NonPrendereState(self, seed, deal)


class NonPrendereState(State[NonPrendereGame]):
    """A Tressette a non prendere match in progress."""

    __slots__ = ("_dealer", "_discard", "_hand_number", "_hands", "_leader", "_led_low",
                 "_losses", "_phase", "_thirds", "_trick", "_tricks_done", "_tricks_won")


    def _start(self) -> None:
        """Deal the first hand."""
        self._hand_number = 0
        self._dealer = NUM_SEATS - 1
        self._losses = [0] * NUM_SEATS
        self._start_hand()

    # --- dealing and hand flow -------------------------------------------------------------

    def _start_hand(self) -> None:
        """Deal 14, 13, 13; the first player passes first."""
        dealer = self._dealer
        self._hands = deal_hands(self._next_deal(), dealer)
        self._discard = HIDDEN
        self._trick: list[int] = []
        self._thirds = [0] * NUM_SEATS
        self._tricks_won = [0] * NUM_SEATS
        self._tricks_done = 0
        self._led_low = 0
        first = (dealer + 1) % NUM_SEATS
        self._leader = first
        self._current = first
        self._phase = Phase.PASS
        self._event(EventKind.HAND_START, dealer, values=(self._hand_number,))
        for seat in range(NUM_SEATS):
            self._event(EventKind.DEAL, seat, tuple(self._hands[seat]), viewers=1 << seat)

    def _end_hand(self, last_taker: int) -> None:
        """Score the hand, count the losses, then deal again or end the match."""
        game = self.game
        thirds = self._thirds
        thirds[last_taker] += LAST_TRICK_THIRDS
        self._event(EventKind.HAND_END, self._dealer, (self._discard,), tuple(thirds))
        points = hand_points(thirds, last_taker)
        cappotto = last_taker if self._tricks_won[last_taker] == TRICKS else -1
        losers = hand_losers(points, cappotto, game.tie_rule, game.cappotto_rule)
        lost = tuple(1 if seat in losers else 0 for seat in range(NUM_SEATS))
        self._event(EventKind.SCORE, self._dealer, values=lost)
        for seat in losers:
            self._losses[seat] += 1
        self._hand_number += 1
        beaten = [seat for seat in range(NUM_SEATS) if self._losses[seat] >= game.losses]
        if beaten:
            winners = [seat for seat in range(NUM_SEATS) if seat not in beaten]
            self._returns = [float(v) for v in side_outcome(winners, NUM_SEATS)]
            self._phase = Phase.OVER
            self._current = TERMINAL
            self._event(EventKind.MATCH_END, -1, values=tuple(int(r) for r in self._returns))
            return
        self._dealer = (self._dealer + 1) % NUM_SEATS
        self._start_hand()

    # --- passing and setting aside ------------------------------------------------------------

    def _legal_hand(self) -> list[int]:
        """Any card in hand (passing and setting aside)."""
        return self._hands[self._current]

    def _apply_pass(self, card: int) -> None:
        """Give a card face down to the right-hand neighbour."""
        seat = self._current
        receiver = (seat + 1) % NUM_SEATS
        self._hands[seat].remove(card)
        insort(self._hands[receiver], card)
        self._event(EventKind.PASS, seat, (card,), viewers=(1 << seat) | (1 << receiver))
        self._current = receiver
        if receiver == self._dealer:
            self._phase = Phase.DISCARD

    def _apply_discard(self, card: int) -> None:
        """The dealer sets a card aside face down; the first player leads."""
        dealer = self._dealer
        self._hands[dealer].remove(card)
        self._discard = card
        self._event(EventKind.PLAY_FACE_DOWN, dealer, (card,), viewers=1 << dealer)
        self._phase = Phase.PLAY
        self._current = self._leader

    # --- play -----------------------------------------------------------------------------------

    def _legal_play(self) -> list[int]:
        """The cards of the led suit if the player has any, else the whole hand.

        Also the entry point of every phase (``_compute_legal``): the others go by table.
        """
        if self._phase != _PLAY_PHASE:
            return _LEGAL[self._phase](self)
        hand = self._hands[self._current]
        if self._trick:
            low = self._led_low
            start = bisect_left(hand, low)
            stop = bisect_left(hand, low + 10, start)
            if start < stop:
                return hand[start:stop]
        return hand

    def _apply_play(self, action: int) -> None:
        """Play a card; resolve a complete trick.

        Also the entry point of every phase (``_apply``): the others go by table.
        """
        if self._phase != _PLAY_PHASE:
            _APPLY[self._phase](self, action)
            return
        card = action
        seat = self._current
        self._hands[seat].remove(card)
        trick = self._trick
        trick.append(card)
        self._log.append(_PLAY_ENTRY[seat][card])
        played = len(trick)
        if played < NUM_SEATS:
            if played == 1:
                self._led_low = card - card % 10
            self._current = (seat + 1) % NUM_SEATS
            return
        a, b, c = trick
        keys = LED_KEYS[SUIT[a]]
        best, best_key = 0, keys[a]
        if keys[b] > best_key:
            best, best_key = 1, keys[b]
        if keys[c] > best_key:
            best = 2
        thirds = THIRDS[a] + THIRDS[b] + THIRDS[c]
        winner = (self._leader + best) % NUM_SEATS
        self._thirds[winner] += thirds
        self._tricks_won[winner] += 1
        self._log.append((_TRICK, winner, (a, b, c), (thirds,), ALL_SEATS))
        self._trick = []
        self._leader = winner
        self._current = winner
        self._tricks_done += 1
        if self._tricks_done == TRICKS:
            self._end_hand(winner)

    def _legal_over(self) -> list[int]:
        """No actions once the match is over."""
        return []

    # Play is the hot path: its handlers are the entry points and dispatch the other phases.
    def _compute_legal(self) -> list[int]:
        """The legal actions: those of play."""
        return self._legal_play()

    def _apply(self, action: int) -> None:
        """Apply an action of play."""
        self._apply_play(action)


    # --- views ------------------------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        """The card's compact name (the phase says whether it is passed, set aside or played)."""
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"{action} is not a {self.game.id} action (0..{NUM_ACTIONS - 1})")
        return ITALIAN_40.short(action)

    def action_meaning(self, action: int) -> ActionMeaning:
        """A card: GIVE while passing, DISCARD when set aside, else PLAY; one shared instance
        per action and phase (the game's ``meanings``, keyed by ``action * 4 + phase``)."""
        meanings = self.game.meanings
        key = action * len(_CARD_KINDS) + self._phase
        meaning = meanings.get(key)
        if meaning is None:
            label = self.action_to_string(action)
            meaning = meanings[key] = ActionMeaning(_CARD_KINDS[self._phase], cards=(action,),
                                                    label=label)
        return meaning

    def observation(self, seat: int) -> Observation:
        """Own hand, the set-aside card (face down to all but the dealer), the trick, history."""
        if not 0 <= seat < NUM_SEATS:
            raise ValueError(f"{self.game.id}: seat {seat} does not exist (0..{NUM_SEATS - 1})")
        table: tuple[int, ...] = ()
        if self._discard != HIDDEN and self._phase != Phase.OVER:
            table = (self._discard if seat == self._dealer else HIDDEN,)
        return Observation(
            game=self.game.id,
            seat=seat,
            num_seats=NUM_SEATS,
            hand_number=self._hand_number,
            dealer=self._dealer,
            phase=PHASE_NAMES[self._phase],
            current_player=self._current,
            hand=tuple(self._hands[seat]),
            hand_sizes=tuple(len(h) for h in self._hands),
            trump_suit=NO_TRUMP,
            table=table,
            trick=tuple(((self._leader + i) % NUM_SEATS, card)
                        for i, card in enumerate(self._trick)),
            points=tuple(self._thirds),
            scores=tuple(float(loss) for loss in self._losses),
            events=self._events_for(seat),
            legal_actions=tuple(self._compute_legal()) if seat == self._current else (),
        )


_LEGAL = (NonPrendereState._legal_hand, NonPrendereState._legal_hand,
          NonPrendereState._legal_play, NonPrendereState._legal_over)
"""``_legal_<phase>`` by phase."""
_APPLY = (NonPrendereState._apply_pass, NonPrendereState._apply_discard,
          NonPrendereState._apply_play)
"""``_apply_<phase>`` by phase."""

PARAMS = (
    Param("losses", 5, "the first seat to this many lost hands loses the match", minimum=1,
          maximum=100),
    Param("tie_rule", ALL_LOSE, "when seats tie for the highest score: all of them lose, or "
          "nobody loses the hand", choices=(ALL_LOSE, NONE_LOSE)),
    Param("cappotto_rule", OTHERS_LOSE, "when one seat takes every trick: both others lose, or "
          "the taker loses", choices=(OTHERS_LOSE, TAKER_LOSES)),
)


def _make(spec: GameSpec, players: int, params: dict[str, ParamValue]) -> Game:
    """The game factory."""
    return NonPrendereGame(spec, players, params)


SPECS = (
    GameSpec(
        id="tressette-non-prendere", title="Tressette a non prendere", section="1.8",
        seats=(3,), params=PARAMS, factory=_make,
        summary="take as few points as possible but at least 1; 14-13-13 deal, one card "
                "passed on twice and one set aside for the last trick",
        extra_configurations=(
            (3, (("tie_rule", NONE_LOSE), ("cappotto_rule", TAKER_LOSES), ("losses", 2))),
        ),
    ),
)
