"""High Card: a tiny two-seat trick game, the example of a game added as a plugin.

Rules summary:
- Italian 40-card deck, briscola order A 3 R C F 7 6 5 4 2, points A 11, 3 10, R 4, C 3, F 2
  (120 in the deck).
- Each hand deals ``hand_size`` cards (default 5) to each seat, one at a time, starting with the
  dealer's right (seat dealer+1): that seat gets the cards 0, 2, 4 ... of the shuffled order, the
  dealer the cards 1, 3, 5 ... The rest of the deck is set aside unseen.
- The dealer's right leads the first trick; the trick winner leads the next. The other seat must
  follow the led suit if able. There are no trumps: the stronger card of the led suit wins.
- When the hands are empty, the seat with more card points wins the hand: +1 game point to it
  and -1 to the other (0 each when equal). The set-aside cards count for nobody.
- A match is ``hands`` hands (default 1); the dealer moves to dealer+1 each hand, seat 1 deals
  first.
- Returns: 0 until the end; then +1 for the seat with more game points and -1 for the other
  (0 each when equal). ``observation.scores`` is the running total of game points.

Actions:
| id   | meaning                              |
|------|--------------------------------------|
| 0-39 | play that card (Italian 40-card id)  |
"""

from __future__ import annotations

from enum import IntEnum

from arena.games.api import (
    ALL_SEATS,
    TERMINAL,
    DealInput,
    EventKind,
    Game,
    Observation,
    State,
    play_entries,
)
from arena.games.cards import BRISCOLA_POINTS, BRISCOLA_STRENGTH, ITALIAN_40
from arena.games.outcomes import side_outcome
from arena.games.params import GameSpec, Param, ParamValue
from arena.games.tricks import NO_TRUMP, trick_key_tables

SEATS = 2
SUIT = ITALIAN_40.suit_table()
STRENGTH = ITALIAN_40.per_card(BRISCOLA_STRENGTH)
POINTS = ITALIAN_40.per_card(BRISCOLA_POINTS)
LED_KEYS = trick_key_tables(SUIT, STRENGTH, ITALIAN_40.suits)[NO_TRUMP]
"""Per led suit, a key per card: the highest key in a trick wins it."""

_TRICK = EventKind.TRICK
_PLAY_ENTRY = play_entries(EventKind.PLAY, SEATS, ITALIAN_40.size)


class Phase(IntEnum):
    """High Card has one phase of play; the match ends after the last hand."""

    PLAY = 0
    OVER = 1


class HighCardGame(Game):
    """High Card for two seats."""

    deck = ITALIAN_40
    points_total = 120
    card_points = POINTS

    def __init__(self, spec: GameSpec, num_players: int, params: dict[str, ParamValue]) -> None:
        """Keep the hand size and the match length."""
        super().__init__(spec, num_players, params)
        self.hand_size = int(params["hand_size"])
        self.hands = int(params["hands"])

    def new_initial_state(self, seed: int, deal: DealInput = None) -> HighCardState:
        """A new match."""
        return HighCardState(self, seed, deal)


class HighCardState(State):
    """A High Card match in progress."""

    __slots__ = ("_dealer", "_hand_number", "_hands", "_leader", "_phase", "_points",
                 "_scores", "_set_aside", "_trick")

    game: HighCardGame

    def __init__(self, game: HighCardGame, seed: int, deal: DealInput) -> None:
        """Deal the first hand."""
        super().__init__(game, seed, deal)
        self._hand_number = 0
        self._dealer = SEATS - 1
        self._scores = [0] * SEATS
        self._start_hand()

    # --- dealing and hand flow -------------------------------------------------------------

    def _start_hand(self) -> None:
        """Shuffle (or take the injected order) and deal one card at a time."""
        size = self.game.hand_size
        order = self._next_deal()
        first = (self._dealer + 1) % SEATS
        self._hands: list[list[int]] = [[], []]
        for index in range(SEATS):
            self._hands[(first + index) % SEATS] = sorted(order[index:SEATS * size:SEATS])
        self._set_aside = sorted(order[SEATS * size:])
        self._trick: list[int] = []
        self._points = [0] * SEATS
        self._leader = first
        self._current = first
        self._phase = Phase.PLAY
        self._event(EventKind.HAND_START, self._dealer, values=(self._hand_number,))
        for seat in range(SEATS):
            self._event(EventKind.DEAL, seat, tuple(self._hands[seat]), viewers=1 << seat)

    def _end_hand(self) -> None:
        """Score the hand, then deal the next one or end the match."""
        points = self._points
        winners = [seat for seat in range(SEATS) if points[seat] == max(points)]
        outcome = side_outcome(winners, SEATS)
        self._event(EventKind.HAND_END, self._dealer, tuple(self._set_aside), tuple(points))
        self._event(EventKind.SCORE, self._dealer, values=tuple(outcome))
        for seat in range(SEATS):
            self._scores[seat] += outcome[seat]
        self._hand_number += 1
        if self._hand_number < self.game.hands:
            self._dealer = (self._dealer + 1) % SEATS
            self._start_hand()
            return
        best = max(self._scores)
        final = side_outcome([s for s in range(SEATS) if self._scores[s] == best], SEATS)
        self._returns = [float(value) for value in final]
        self._phase = Phase.OVER
        self._current = TERMINAL
        self._event(EventKind.MATCH_END, -1, values=tuple(final))

    # --- the API ----------------------------------------------------------------------------

    def _compute_legal(self) -> list[int]:
        """Any card to lead; a card of the led suit to follow, when the hand has one."""
        if self._phase:
            return []
        hand = self._hands[self._current]  # kept sorted
        if not self._trick:
            return hand
        led = SUIT[self._trick[0]]
        same = [card for card in hand if SUIT[card] == led]
        return same or hand

    def _apply(self, action: int) -> None:
        """Play a card; the second card of a trick resolves it."""
        seat = self._current
        self._hands[seat].remove(action)
        trick = self._trick
        trick.append(action)
        self._log.append(_PLAY_ENTRY[seat][action])
        if len(trick) < SEATS:
            self._current = 1 - seat
            return
        keys = LED_KEYS[SUIT[trick[0]]]
        winner = self._leader if keys[trick[0]] > keys[trick[1]] else 1 - self._leader
        points = POINTS[trick[0]] + POINTS[trick[1]]
        self._points[winner] += points
        self._log.append((_TRICK, winner, tuple(trick), (points,), ALL_SEATS))
        self._trick = []
        self._leader = winner
        self._current = winner
        if not self._hands[winner]:
            self._end_hand()

    # --- views ------------------------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        """A card's compact name, such as ``AC``."""
        if not 0 <= action < ITALIAN_40.size:
            raise ValueError(f"{action} is not a {self.game.id} action (0..{ITALIAN_40.size - 1})")
        return ITALIAN_40.short(action)

    def observation(self, seat: int) -> Observation:
        """Own hand, the trick in progress and the public history."""
        trick_seats = [(self._leader + i) % SEATS for i in range(len(self._trick))]
        return Observation(
            game=self.game.id,
            seat=seat,
            num_seats=SEATS,
            hand_number=self._hand_number,
            dealer=self._dealer,
            phase=self._phase.name.lower(),
            current_player=self._current,
            hand=tuple(self._hands[seat]),
            hand_sizes=tuple(len(hand) for hand in self._hands),
            trump_suit=NO_TRUMP,
            trick=tuple(zip(trick_seats, self._trick, strict=True)),
            points=tuple(self._points),
            scores=tuple(float(score) for score in self._scores),
            events=self._events_for(seat),
            legal_actions=tuple(self._compute_legal()) if seat == self._current else (),
        )


def _make(spec: GameSpec, players: int, params: dict[str, ParamValue]) -> Game:
    """The game factory."""
    return HighCardGame(spec, players, params)


SPECS = (
    GameSpec(
        id="high-card",
        title="High Card (example plugin)",
        section="-",
        seats=(SEATS,),
        params=(
            Param("hands", 1, "hands in a match; the dealer moves to the right each hand",
                  minimum=1, maximum=1000),
            Param("hand_size", 5, "cards dealt to each seat per hand", minimum=1, maximum=20),
        ),
        factory=_make,
        summary="2 seats, follow suit, no trumps; more card points of 120 wins the hand",
        extra_configurations=((2, (("hand_size", 10), ("hands", 3))),),
    ),
)
"""The games of this module; the entry point ``cardarena.games`` names the module."""
