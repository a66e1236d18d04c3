"""Madrasso: 4 seats in fixed pairs, a match to 777 (docs/games/madrasso.md).

Rules summary:
- Italian 40-card deck, briscola order A 3 R C F 7 6 5 4 2, points A 11, 3 10, R 4, C 3, F 2;
  the last trick is worth 10 more, so a hand is worth 130. Pairs 0+2 against 1+3.
- Deal (it.wikipedia): from the dealer's right (seat dealer+1) counter-clockwise, five cards at a
  time to the four seats (the dealer last), then the 21st card face up beside the dealer, then
  five each to dealer+1, dealer+2, dealer+3 and four to the dealer. With the deal order ``o``:
  ``o[0:5]`` to dealer+1, ``o[5:10]`` to dealer+2, ``o[10:15]`` to dealer+3, ``o[15:20]`` to the
  dealer, ``o[20]`` face up, ``o[21:26]``, ``o[26:31]``, ``o[31:36]`` to dealer+1..dealer+3 and
  ``o[36:40]`` to the dealer.
- The face-up card sets trump and belongs to the dealer, who holds nine cards in hand and may
  play the face-up card as his tenth: whenever the rules of play allow
  (``faceup_release=anytime``, the seed), or only from the fourth trick on or once a trump has
  been played in the hand, the current trick included (``after_3_tricks_or_trump``,
  it.wikipedia). While it is not yet available it does not count for following suit.
- Seven swap: an opponent of the dealer (dealer+1 or dealer+3) holding the 7 of trump may, at
  any of their own turns while the face-up card lies there, swap it for the face-up card; the
  7 then lies face up for the dealer. ``swap_first_trick_only`` allows it in the first trick only.
- The dealer's right leads; the trick winner leads next. Players must follow suit; a void
  player may play any card (``must_trump_if_void``: must trump if able). The highest trump
  wins, else the highest card of the led suit.
- Scoring: each pair adds its card points of the hand (with the last-trick 10) to its match
  score. At the end of a hand, a pair with ``target`` (777) or more and more than the other
  pair wins the match; level scores at or above the target play on. ``min_hands`` (Intelligiochi
  10; default 0 = off) delays that check until so many hands have been played;
  ``cappotto_wins`` makes a pair that takes all ten tricks of a hand win the match at once.
- The dealer moves to the right (dealer+1) each hand; the first dealer is seat 3.
- Returns: 0 until the match ends, then +1 to each seat of the winning pair and -1 to each
  seat of the other. ``observation.scores`` is each seat's pair match score; ``points`` the
  card points each seat has won in the current hand (once the match is over: in the last hand,
  with the last-trick 10).
- Observation: ``hand`` is the seat's real hand (the dealer's nine cards); while the face-up card
  lies beside the dealer it is ``trump_card`` and ``table`` for everybody (afterwards
  ``trump_card`` is -1), and for the dealer it is a legal play whenever the release rule allows.

Events: HAND_START, DEAL (private), TRUMP (the face-up card, public), SWAP (cards: the 7 and
the face-up card taken), PLAY, TRICK (values: card points of the trick, without the last-trick
10), HAND_END (values: per-seat card points with the last-trick 10; cards: none, since every
card is played), SCORE (per-seat pair points of the hand), MATCH_END (values: returns).

Actions:
| id   | meaning                                                              |
|------|----------------------------------------------------------------------|
| 0-39 | play that card (Italian 40-card id); the dealer's face-up card too   |
| 40   | swap the 7 of trump in hand for the face-up card                     |
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Sequence
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
    play_meanings,
)
from arena.games.cards import BRISCOLA_POINTS, BRISCOLA_STRENGTH, HIDDEN, ITALIAN_40, Rank
from arena.games.outcomes import pair_outcome
from arena.games.params import GameSpec, Param, ParamValue
from arena.games.tricks import trick_key_tables

_PLAY_MEANINGS: Final = play_meanings(ITALIAN_40)
"""The meaning of each card play, built once."""

SWAP_SEVEN: Final = 40
NUM_ACTIONS: Final = 41
NUM_SEATS: Final = 4
HAND_SIZE: Final = 10
LAST_TRICK_BONUS: Final = 10
ANYTIME: Final = "anytime"
AFTER_3_TRICKS_OR_TRUMP: Final = "after_3_tricks_or_trump"

SUIT: Final = ITALIAN_40.suit_table()
STRENGTH: Final = ITALIAN_40.per_card(BRISCOLA_STRENGTH)
POINTS: Final = ITALIAN_40.per_card(BRISCOLA_POINTS)
TRICK_KEYS: Final = trick_key_tables(SUIT, STRENGTH, ITALIAN_40.suits)
SEVEN_OF: Final = tuple(ITALIAN_40.card(suit, Rank.SETTE) for suit in range(ITALIAN_40.suits))
"""The 7 of each suit, by trump suit."""
TEAM_OF: Final[tuple[int, ...]] = (0, 1, 0, 1)

_TRICK: Final = EventKind.TRICK
_PLAY_ENTRY: Final = play_entries(EventKind.PLAY, NUM_SEATS, ITALIAN_40.size)


class Phase(IntEnum):
    """Madrasso has one phase of decisions; the match ends when a pair reaches the target."""

    PLAY = 0
    OVER = 1


PHASE_NAMES: Final = tuple(phase.name.lower() for phase in Phase)
"""``observation.phase`` by phase."""


def deal_hands(order: list[int], dealer: int) -> tuple[list[list[int]], int]:
    """The four sorted hands (the dealer's without the face-up card) and the face-up card."""
    packets = []
    for offset in range(NUM_SEATS):
        hand = order[5 * offset:5 * offset + 5] + order[21 + 5 * offset:26 + 5 * offset]
        hand.sort()
        packets.append(hand)
    shift = (NUM_SEATS - 1 - dealer) % NUM_SEATS
    return packets[shift:] + packets[:shift], order[20]


def match_winner(scores: Sequence[int], hands_played: int, hand_tricks: Sequence[int],
                 game: MadrassoGame) -> int | None:
    """The pair (0 or 1) that wins the match after a hand, or None to play on."""
    if game.cappotto_wins and HAND_SIZE in hand_tricks:
        return hand_tricks.index(HAND_SIZE)
    if hands_played < game.min_hands or max(scores) < game.target or scores[0] == scores[1]:
        return None
    return 0 if scores[0] > scores[1] else 1


class MadrassoGame(Game):
    """Madrasso with its rule options."""


    def __init__(self, spec: GameSpec, num_players: int, params: dict[str, ParamValue]) -> None:
        """Unpack the parameters for the hot path."""
        super().__init__(spec, num_players, params)
        self.deck = ITALIAN_40
        self.points_total = sum(POINTS) + LAST_TRICK_BONUS
        self.card_points = POINTS
        self.trick_strength = STRENGTH
        self.target = int(params["target"])
        self.min_hands = int(params["min_hands"])
        self.faceup_anytime = params["faceup_release"] == ANYTIME
        self.swap_first_trick_only = bool(params["swap_first_trick_only"])
        self.must_trump = bool(params["must_trump_if_void"])
        self.cappotto_wins = bool(params["cappotto_wins"])

    def teams(self) -> tuple[tuple[int, ...], ...] | None:
        """Pairs 0+2 and 1+3."""
        return ((0, 2), (1, 3))

    def new_initial_state(self, seed: int, deal: DealInput = None) -> MadrassoState:
        """A new match."""
        return MadrassoState(self, seed, deal)


class MadrassoState(State[MadrassoGame]):
    """A Madrasso match in progress."""

    __slots__ = ("_dealer", "_faceup", "_hand_number", "_hands", "_leader", "_led_low", "_match",
                 "_phase", "_points", "_swapper", "_team_tricks", "_trick", "_tricks_done",
                 "_trump", "_trump_played")


    def _start(self) -> None:
        """Deal the first hand."""
        self._hand_number = 0
        self._dealer = NUM_SEATS - 1
        self._match = [0, 0]
        self._start_hand()

    # --- dealing and hand flow -------------------------------------------------------------

    def _start_hand(self) -> None:
        """Deal 5+5 each around the face-up card; the dealer's right leads."""
        dealer = self._dealer
        self._hands, self._faceup = deal_hands(self._next_deal(), dealer)
        self._trump = SUIT[self._faceup]
        self._trick: list[int] = []
        self._points = [0] * NUM_SEATS
        self._team_tricks = [0, 0]
        self._tricks_done = 0
        self._trump_played = False
        self._led_low = 0
        self._swapper = self._seven_holder()
        first = (dealer + 1) % NUM_SEATS
        self._leader = first
        self._current = first
        self._phase = Phase.PLAY
        self._event(EventKind.HAND_START, dealer, values=(self._hand_number,))
        for seat in range(NUM_SEATS):
            self._event(EventKind.DEAL, seat, tuple(self._hands[seat]), viewers=1 << seat)
        self._event(EventKind.TRUMP, dealer, (self._faceup,), (self._trump,))

    def _seven_holder(self) -> int:
        """The opponent of the dealer holding the 7 of trump, or -1."""
        seven = SEVEN_OF[self._trump]
        for offset in (1, 3):
            seat = (self._dealer + offset) % NUM_SEATS
            if seven in self._hands[seat]:
                return seat
        return -1

    def _end_hand(self, last_winner: int) -> None:
        """Add the last-trick 10, score the pairs, then deal again or end the match."""
        game = self.game
        points = self._points
        points[last_winner] += LAST_TRICK_BONUS
        pair = (points[0] + points[2], points[1] + points[3])
        self._event(EventKind.HAND_END, self._dealer, (), tuple(points))
        self._event(EventKind.SCORE, self._dealer, values=(*pair, *pair))
        match = self._match
        match[0] += pair[0]
        match[1] += pair[1]
        self._hand_number += 1
        winner = match_winner(match, self._hand_number, self._team_tricks, game)
        if winner is not None:
            self._returns = [float(v) for v in pair_outcome(winner, NUM_SEATS, TEAM_OF)]
            self._phase = Phase.OVER
            self._current = TERMINAL
            self._event(EventKind.MATCH_END, -1, values=tuple(int(r) for r in self._returns))
            return
        self._dealer = (self._dealer + 1) % NUM_SEATS
        self._start_hand()

    # --- the API ----------------------------------------------------------------------------

    def _faceup_available(self) -> bool:
        """True when the dealer may take up the face-up card now."""
        if self.game.faceup_anytime or self._trump_played or self._tricks_done >= 3:
            return True
        trump = self._trump
        return any(SUIT[card] == trump for card in self._trick)

    def _can_swap(self, seat: int) -> bool:
        """True when ``seat`` may swap the 7 of trump for the face-up card now."""
        if seat != self._swapper or (self.game.swap_first_trick_only and self._tricks_done > 0):
            return False
        return SEVEN_OF[self._trump] in self._hands[seat]

    def _legal_play(self) -> list[int]:
        """Cards that follow suit (with the face-up card for the dealer), and the seven swap."""
        if self._phase:
            return []
        seat = self._current
        hand = self._hands[seat]
        swap = False
        if self._faceup >= 0:
            if seat == self._dealer:
                if self._faceup_available():
                    hand = hand[:]
                    insort(hand, self._faceup)
            elif seat == self._swapper:
                swap = self._can_swap(seat)
        if self._trick:
            low = self._led_low
            start = bisect_left(hand, low)
            stop = bisect_left(hand, low + 10, start)
            if start < stop:
                hand = hand[start:stop]
            elif self.game.must_trump:
                low = self._trump * 10
                start = bisect_left(hand, low)
                stop = bisect_left(hand, low + 10, start)
                if start < stop:
                    hand = hand[start:stop]
        if swap:
            return [*hand, SWAP_SEVEN]
        return hand

    def _apply_swap(self) -> None:
        """Take the face-up card into hand and leave the 7 of trump face up for the dealer."""
        seat = self._current
        seven = SEVEN_OF[self._trump]
        hand = self._hands[seat]
        hand.remove(seven)
        insort(hand, self._faceup)
        self._event(EventKind.SWAP, seat, (seven, self._faceup))
        self._faceup = seven
        self._swapper = -1

    def _apply_play(self, action: int) -> None:
        """Play a card (or swap the seven); resolve a complete trick."""
        if action == SWAP_SEVEN:
            self._apply_swap()
            return
        seat = self._current
        if action == self._faceup:
            self._faceup = HIDDEN
        else:
            self._hands[seat].remove(action)
        trick = self._trick
        trick.append(action)
        self._log.append(_PLAY_ENTRY[seat][action])
        played = len(trick)
        if played < NUM_SEATS:
            if played == 1:
                self._led_low = action - action % 10
            self._current = (seat + 1) & 3
            return
        a, b, c, d = trick
        trump = self._trump
        if not self._trump_played:
            self._trump_played = trump in (SUIT[a], SUIT[b], SUIT[c], SUIT[d])
        keys = TRICK_KEYS[trump][SUIT[a]]
        best, best_key = 0, keys[a]
        if keys[b] > best_key:
            best, best_key = 1, keys[b]
        if keys[c] > best_key:
            best, best_key = 2, keys[c]
        if keys[d] > best_key:
            best = 3
        points = POINTS[a] + POINTS[b] + POINTS[c] + POINTS[d]
        winner = (self._leader + best) & 3
        self._points[winner] += points
        self._team_tricks[winner & 1] += 1
        self._log.append((_TRICK, winner, (a, b, c, d), (points,), ALL_SEATS))
        self._trick = []
        self._leader = winner
        self._current = winner
        self._tricks_done += 1
        if self._tricks_done == HAND_SIZE:
            self._end_hand(winner)

    # Madrasso has a single phase of decisions: dispatch without a table.
    def _compute_legal(self) -> list[int]:
        """The legal actions: those of play."""
        return self._legal_play()

    def _apply(self, action: int) -> None:
        """Apply an action of play."""
        self._apply_play(action)


    # --- views ------------------------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        """A card's compact name, or ``swap-seven``."""
        if action == SWAP_SEVEN:
            return "swap-seven"
        if not 0 <= action < ITALIAN_40.size:
            raise ValueError(f"{action} is not a {self.game.id} action (0..{NUM_ACTIONS - 1})")
        return ITALIAN_40.short(action)

    def action_meaning(self, action: int) -> ActionMeaning:
        """A card (the face-up one too) is PLAY; ``swap-seven`` is SWAP of the 7 of trump."""
        if 0 <= action < ITALIAN_40.size:
            return _PLAY_MEANINGS[action]
        label = self.action_to_string(action)
        if action == SWAP_SEVEN:
            return ActionMeaning(ActionKind.SWAP, cards=(SEVEN_OF[self._trump],), label=label)
        return ActionMeaning(ActionKind.PLAY, cards=(action,), label=label)

    def observation(self, seat: int) -> Observation:
        """Own hand, the face-up card while it lies there, the trick, the public history."""
        if not 0 <= seat < NUM_SEATS:
            raise ValueError(f"{self.game.id}: seat {seat} does not exist (0..{NUM_SEATS - 1})")
        faceup = self._faceup
        trick = self._trick
        match = self._match
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
            trump_suit=self._trump,
            trump_card=faceup,
            table=(faceup,) if faceup >= 0 else (),
            trick=tuple(((self._leader + i) % NUM_SEATS, card) for i, card in enumerate(trick)),
            teammates=((seat + 2) % NUM_SEATS,),
            points=tuple(self._points),
            scores=(float(match[0]), float(match[1]), float(match[0]), float(match[1])),
            events=self._events_for(seat),
            legal_actions=tuple(self._compute_legal()) if seat == self._current else (),
        )


PARAMS = (
    Param("target", 777, "match score a pair needs to win, checked at the end of each hand",
          minimum=1, maximum=100_000),
    Param("faceup_release", ANYTIME, "when the dealer may play the face-up card: whenever the "
          "rules of play allow, or only after 3 tricks or once a trump has been played",
          choices=(ANYTIME, AFTER_3_TRICKS_OR_TRUMP)),
    Param("swap_first_trick_only", False, "the seven swap is allowed in the first trick only"),
    Param("must_trump_if_void", False, "a player void in the led suit must trump if able"),
    Param("cappotto_wins", False, "a pair that takes every trick of a hand wins the match"),
    Param("min_hands", 0, "hands to play before the target can end the match (0 = off)",
          minimum=0, maximum=1000),
)


def _make(spec: GameSpec, players: int, params: dict[str, ParamValue]) -> Game:
    """The game factory."""
    return MadrassoGame(spec, players, params)


SPECS = (
    GameSpec(
        id="madrasso", title="Madrasso", section="1.5", seats=(4,), params=PARAMS,
        factory=_make,
        summary="pairs, 10 cards each, the dealer's face-up trump, follow suit, "
                "last trick 10; first pair to 777",
        extra_configurations=(
            (4, (("faceup_release", AFTER_3_TRICKS_OR_TRUMP), ("must_trump_if_void", True),
                 ("swap_first_trick_only", True), ("target", 300))),
            (4, (("cappotto_wins", True), ("min_hands", 3), ("target", 200))),
        ),
    ),
)
