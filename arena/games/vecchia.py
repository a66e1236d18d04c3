"""Vecchia (pampalugo), Old Maid with the Italian deck, 2-8 seats (docs/games/vecchia.md).

With two seats each hand is the complement of the other, so nothing is hidden
(``Game.perfect_information``) and no choice changes the outcome; it is offered all the same.

Rules summary:
- The 40-card Italian deck minus three fanti: only the Fante of ``old_maid`` (spade by
  default, or bastoni) stays, 37 cards. The removed fanti are listed by HAND_END.
- Every card is dealt, one at a time from the dealer's right (seat dealer+1): that seat gets
  the 1st, 1+n-th, ... card of the order with the three fanti skipped; counts may be uneven.
- Each player in turn from the dealer's right discards every pair of equal rank, one pair
  per action (10 + rank; the two lowest card ids of the rank; a third card stays), then says
  ``done`` (20), legal only once no pair is left. A discarded pair is two public PLAY events
  of its seat, one per card, lower id first. These forced decisions make every public discard
  follow an action, so replaying the actions over another deal diverges exactly when the
  discards do.
- The player with the most cards starts (ties: the first from the dealer's right). They offer
  their hand face down to the next seat still holding cards, who draws one card by position.
  Before every draw the game puts the offered hand in a fresh random order from its seeded
  generator (a uniformly random rotation of the sorted hand: only one card is taken from each
  order, so this draws exactly like a full shuffle), so the position tells nothing. The DRAW
  event (seat: the drawer, values: (giver,)) shows the card to the drawer and the giver only.
  Then the drawer's one legal action is to discard the pair the drawn card made (10 + rank),
  or ``done`` (20) when it made none.
- The next drawer is the next seat after the drawer still holding cards; they draw from the
  nearest seat before them still holding cards. Players without cards leave the hand.
- The holder of the last card (the old maid) loses: -(n-1) game points, everyone else +1.
- A match is ``hands`` hands; the dealer moves to dealer+1 each hand. ``returns()`` are 0
  until the end, then the sum of the hands' game points (zero-sum); ``observation.scores``
  is that running sum. Vecchia counts no card points (``points`` are all 0).

Actions:
| id    | meaning                                                   |
|-------|-----------------------------------------------------------|
| 0-9   | draw the card at that position of the offered hand        |
| 10-19 | discard the pair of that rank (10 + Italian rank index)   |
| 20    | done: no pair left to discard                             |
"""

from __future__ import annotations

from bisect import insort
from enum import IntEnum
from typing import Final

from arena.games.api import (
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
from arena.games.cards import ITALIAN_40, Rank, Suit
from arena.games.params import GameSpec, Param, ParamValue

MAX_POSITIONS: Final = 10
"""After the discards a hand holds at most one card per rank, so at most 10 cards."""
DISCARD = 10
DONE: Final = 20
NUM_ACTIONS: Final = 21

RANK = ITALIAN_40.rank_table()
OLD_MAID_SUITS = {"spade": Suit.SPADE, "bastoni": Suit.BASTONI}
POSITIONS: Final = tuple(list(range(k)) for k in range(MAX_POSITIONS + 1))
SINGLE: Final = tuple([action] for action in range(NUM_ACTIONS))
"""Prebuilt one-action legal lists (never mutated: ``State.legal_actions`` copies)."""
DRAWING: Final = -1
"""``_pending`` while the next action is a draw."""

_DRAW: Final = EventKind.DRAW
_PLAY_ENTRY: Final = play_entries(EventKind.PLAY, 8, ITALIAN_40.size)


class Phase(IntEnum):
    """Discarding the dealt pairs, then drawing; the match ends after the last hand."""

    DISCARD = 0
    DRAW = 1
    OVER = 2


def removed_fanti(old_maid: str) -> tuple[int, ...]:
    """The three fanti taken out of the deck, keeping the old maid's suit."""
    keep = OLD_MAID_SUITS[old_maid]
    return tuple(ITALIAN_40.card(suit, Rank.FANTE) for suit in Suit if suit != keep)


def pair_ranks(hand: list[int]) -> list[int]:
    """The ranks of which a hand holds two or more cards, sorted."""
    counts = [0] * ITALIAN_40.ranks
    for card in hand:
        counts[RANK[card]] += 1
    return [rank for rank in range(ITALIAN_40.ranks) if counts[rank] > 1]


def of_rank(hand: list[int], rank: int) -> list[int]:
    """The cards of a rank in a hand, in hand order."""
    return [card for card in hand if RANK[card] == rank]


class VecchiaGame(Game):
    """Vecchia with 2 to 8 seats."""


    def __init__(self, spec: GameSpec, num_players: int, params: dict[str, ParamValue]) -> None:
        """Derive the removed cards and the old maid from the parameters."""
        super().__init__(spec, num_players, params)
        self.deck = ITALIAN_40
        self.removed = removed_fanti(str(params["old_maid"]))
        self.old_maid = ITALIAN_40.card(OLD_MAID_SUITS[str(params["old_maid"])], Rank.FANTE)
        self.hands = int(params["hands"])
        self.perfect_information = num_players == 2
        self.draw_entries = tuple(
            tuple(tuple((_DRAW, drawer, (card,), (giver,), (1 << drawer) | (1 << giver))
                        for card in range(ITALIAN_40.size))
                  for giver in range(num_players))
            for drawer in range(num_players))
        """Prebuilt DRAW log entries ``[drawer][giver][card]``."""

    def new_initial_state(self, seed: int, deal: DealInput = None) -> VecchiaState:
        """A new match."""
        return VecchiaState(self, seed, deal)


class VecchiaState(State[VecchiaGame]):
    """A Vecchia match in progress."""

    __slots__ = ("_dealer", "_discards", "_giver", "_hand_number", "_hands", "_pair", "_pending",
                 "_phase", "_scores")


    def _start(self) -> None:
        """Deal the first hand."""
        game = self.game
        self._hand_number = 0
        self._dealer = game.num_players - 1
        self._scores = [0] * game.num_players
        self._giver = 0
        self._pending = DRAWING
        self._pair = (0, 0)
        self._discards: list[int] = []
        """The discard actions left to the seat discarding now (discard phase only)."""
        self._start_hand()

    # --- dealing and hand flow -------------------------------------------------------------

    def _start_hand(self) -> None:
        """Deal every card one at a time; the dealer's right discards first."""
        game = self.game
        n = game.num_players
        order = [card for card in self._next_deal() if card not in game.removed]
        first = (self._dealer + 1) % n
        self._hands: list[list[int]] = [[] for _ in range(n)]
        for index in range(n):
            self._hands[(first + index) % n] = sorted(order[index::n])
        self._event(EventKind.HAND_START, self._dealer, values=(self._hand_number,))
        for seat in range(n):
            self._event(EventKind.DEAL, seat, tuple(self._hands[seat]), viewers=1 << seat)
        self._phase = Phase.DISCARD
        self._pending = DRAWING
        self._begin_discards(first)

    def _begin_discards(self, seat: int) -> None:
        """Give ``seat`` its turn to discard, listing once the pairs its hand holds."""
        self._current = seat
        self._discards = [DISCARD + rank for rank in pair_ranks(self._hands[seat])]

    def _start_drawing(self) -> None:
        """The player with most cards (first from the dealer's right on ties) offers first."""
        n = self.game.num_players
        first = (self._dealer + 1) % n
        sizes = [len(self._hands[(first + offset) % n]) for offset in range(n)]
        starter = (first + sizes.index(max(sizes))) % n
        self._phase = Phase.DRAW
        self._next_turn(starter, self._next_holder(starter))

    def _next_turn(self, giver: int, drawer: int) -> None:
        """Let ``drawer`` draw from ``giver``, or end the hand when only one seat holds cards."""
        if giver == drawer:
            self._end_hand(drawer)
            return
        self._giver = giver
        self._current = drawer

    def _next_holder(self, seat: int) -> int:
        """The first seat after ``seat`` still holding cards (``seat`` itself if none)."""
        n = self.game.num_players
        hands = self._hands
        for offset in range(1, n):
            other = (seat + offset) % n
            if hands[other]:
                return other
        return seat

    def _previous_holder(self, seat: int) -> int:
        """The first seat before ``seat`` still holding cards (``seat`` itself if none)."""
        n = self.game.num_players
        hands = self._hands
        for offset in range(1, n):
            other = (seat - offset) % n
            if hands[other]:
                return other
        return seat

    def _end_hand(self, loser: int) -> None:
        """Score the hand against the holder of the last card; deal again or end the match."""
        game = self.game
        n = game.num_players
        outcome = tuple(-(n - 1) if seat == loser else 1 for seat in range(n))
        self._event(EventKind.HAND_END, self._dealer, tuple(ITALIAN_40.cards), (0,) * n)
        self._event(EventKind.SCORE, self._dealer, values=outcome)
        for seat in range(n):
            self._scores[seat] += outcome[seat]
        self._hand_number += 1
        if self._hand_number >= game.hands:
            self._phase = Phase.OVER
            self._current = TERMINAL
            self._returns = [float(score) for score in self._scores]
            self._event(EventKind.MATCH_END, -1, values=tuple(self._scores))
            return
        self._dealer = (self._dealer + 1) % n
        self._start_hand()

    # --- the API ----------------------------------------------------------------------------

    def _compute_legal(self) -> list[int]:
        """Discard (or show no pair) in the discard phase, else one action per position."""
        phase = self._phase
        if phase == Phase.DRAW:
            pending = self._pending
            if pending == DRAWING:
                return POSITIONS[len(self._hands[self._giver])]
            return SINGLE[pending]
        if phase == Phase.DISCARD:
            # Kept up to date by the discards; apply_action drops it before any change.
            return self._discards or SINGLE[DONE]
        return []

    def _apply(self, action: int) -> None:
        """Discard pairs, or draw a card."""
        if action >= DISCARD:
            self._apply_discard(action)
        else:
            self._apply_draw(action)

    def _apply_discard(self, action: int) -> None:
        """Throw away a pair (or finish discarding), then move on."""
        seat = self._current
        hand = self._hands[seat]
        drawing = self._phase == Phase.DRAW
        if action < DONE:
            if drawing:
                pair = self._pair
            else:
                same = of_rank(hand, action - DISCARD)
                pair = same[0], same[1]
                if len(same) < 4:
                    self._discards.remove(action)
            hand.remove(pair[0])
            hand.remove(pair[1])
            entries = _PLAY_ENTRY[seat]
            self._log += (entries[pair[0]], entries[pair[1]])
            if not drawing:
                return
        if not drawing:
            n = self.game.num_players
            following = (seat + 1) % n
            if following == (self._dealer + 1) % n:
                self._start_drawing()
            else:
                self._begin_discards(following)
            return
        self._pending = DRAWING
        following = self._next_holder(seat)
        self._next_turn(self._previous_holder(following), following)

    def _apply_draw(self, action: int) -> None:
        """Draw the card at a position of the offered hand in a fresh random order."""
        drawer = self._current
        giver = self._giver
        offered = self._hands[giver]
        size = len(offered)
        card = offered.pop((self.rng.below(size) + action) % size)
        self._log.append(self.game.draw_entries[drawer][giver][card])
        hand = self._hands[drawer]
        rank = RANK[card]
        self._pending = DONE
        for other in hand:
            if RANK[other] == rank:
                self._pair = (other, card) if other < card else (card, other)
                self._pending = DISCARD + rank
                break
        insort(hand, card)

    # --- views ------------------------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        """``draw-<position>``, ``discard-<rank>`` or ``done``."""
        if action == DONE:
            return "done"
        if DISCARD <= action < DONE:
            return f"discard-{ITALIAN_40.rank_letters[action - DISCARD]}"
        if not 0 <= action < MAX_POSITIONS:
            raise ValueError(f"{action} is not a {self.game.id} action (0..{NUM_ACTIONS - 1})")
        return f"draw-{action}"

    def action_meaning(self, action: int) -> ActionMeaning:
        """DRAW at a position, DISCARD of a pair (the two cards it throws out), or DONE."""
        label = self.action_to_string(action)
        if action == DONE:
            return ActionMeaning(ActionKind.DONE, label=label)
        if action < DISCARD:
            return ActionMeaning(ActionKind.DRAW, value=action, label=label)
        rank = action - DISCARD
        if self._phase == Phase.DRAW:
            pair: tuple[int, ...] = self._pair if self._pending == action else ()
        else:
            seat = self._current
            held = [card for card in self._hands[seat] if RANK[card] == rank] if seat >= 0 else []
            pair = tuple(held[:2]) if len(held) > 1 else ()
        return ActionMeaning(ActionKind.DISCARD, cards=pair, rank=rank, label=label)

    def observation(self, seat: int) -> Observation:
        """Own hand, every seat's card count and the public history."""
        game = self.game
        n = game.num_players
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
            points=(0,) * n,
            scores=tuple(float(score) for score in self._scores),
            events=self._events_for(seat),
            legal_actions=tuple(self._compute_legal()) if seat == self._current else (),
        )


PARAMS = (
    Param("hands", 1, "hands in a match; the dealer moves to the right each hand", minimum=1,
          maximum=1000),
    Param("old_maid", "spade", "the suit of the one fante kept in the deck (the losing card)",
          choices=("spade", "bastoni")),
)


def _make(spec: GameSpec, players: int, params: dict[str, ParamValue]) -> Game:
    """The game factory."""
    return VecchiaGame(spec, players, params)


SPECS = (
    GameSpec(
        id="vecchia", title="Vecchia (pampalugo)", section="1.13", seats=(4, 2, 3, 5, 6, 7, 8),
        params=PARAMS, factory=_make,
        summary="Old Maid with 37 cards: draw from your neighbour, pair off; the last fante loses",
        extra_configurations=(
            (3, (("old_maid", "bastoni"), ("hands", 3))),
            (5, (("hands", 2),)),
        ),
    ),
)
