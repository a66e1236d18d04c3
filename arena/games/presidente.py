"""Presidente: pagat's President on the Italian deck, 3-6 seats (docs/games/presidente.md).

Rules summary:
- Every card is dealt, one at a time from the dealer's right (seat dealer+1 gets the 1st,
  1+n-th, ... card of the order); counts may be uneven.
- Rank order ``rank_order``: ``pagat`` (default) 2 > A > R > C > F > 7 > 6 > 5 > 4 > 3, or
  ``briscola`` A > 3 > R > C > F > 7 > 6 > 5 > 4 > 2. Suits never matter.
- A round: the leader plays a set of 1 to 4 cards of one rank. Each following player in turn
  (counter-clockwise, dealer+1 after the dealer) plays a set of the same size and of a higher
  rank (``allow_equal_rank``: or the same rank), or passes. With ``pass_is_final_for_round``
  (default true) a player who passed cannot play again in that round; otherwise play goes on
  until every other player still holding cards has passed in a row after the last play.
  The last player to play then leads a new round (if they have gone out, the next seat still
  holding cards leads). A set is played from the lowest card ids of its rank (coppe first,
  then denari, bastoni, spade), logged as one public PLAY event per card in id order (the
  PLAY events of a seat between two other events are one set).
- A player who plays their last card goes out; the finishing order sets the ranks President,
  Vice-President, ..., Vice-Scum, Scum (the last player holding cards). A deal scores n-1
  points for the first out down to 0 for the Scum.
- From the second deal on, before play: the Scum gives their 2 best cards (highest ranks,
  lowest card ids first on equal rank) to the President, who returns any 2, one card per
  decision; then (4+ seats only; with 3 seats the Vice-President is the Vice-Scum) the
  Vice-Scum gives their best card to the Vice-President, who returns any 1. Exchanged cards
  are SWAP events (seat: giver, values: (receiver,)) seen by both parties only.
- The first deal is led by the dealer's right; later deals by the Scum of the previous deal.
- A match is ``deals`` deals (default 4); the dealer moves to dealer+1 each deal.
  ``observation.scores`` is the running total of deal points; ``returns()`` are 0 until the
  end, then free-for-all over the totals: each of k seats with the highest total gets n-k,
  every other seat -k (all tied: 0).
- Rounds are TRICK events (seat: the last player, cards: the round's cards, values: (0,));
  the HAND_END lists the cards of the unfinished last round and those left in hand. There are
  no card points.

Actions:
| id    | meaning                                                          |
|-------|------------------------------------------------------------------|
| 0-39  | play a set: rank * 4 + (count - 1), rank = Italian rank index    |
| 40    | pass                                                             |
| 41-80 | exchange: give back card (action - 41) (President, Vice-President) |
"""

from __future__ import annotations

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
from arena.games.cards import BRISCOLA_STRENGTH, ITALIAN_40
from arena.games.outcomes import side_outcome
from arena.games.params import GameSpec, Param, ParamValue

PASS: Final = 40
GIVE: Final = 41
NUM_ACTIONS: Final = 81
MAX_SET: Final = 4

RANK = ITALIAN_40.rank_table()
STRENGTHS = {
    "pagat": (8, 9, 0, 1, 2, 3, 4, 5, 6, 7),
    "briscola": BRISCOLA_STRENGTH,
}
"""Per Italian rank index (A, 2, 3, 4, 5, 6, 7, F, C, R): higher beats lower."""

_PASS: Final = EventKind.PASS
_PLAY_ENTRY: Final = play_entries(EventKind.PLAY, 6, ITALIAN_40.size)

LEAD: Final = tuple(tuple(list(range(rank * MAX_SET, rank * MAX_SET + count)) for count in
                   range(MAX_SET + 1)) for rank in range(ITALIAN_40.ranks))
"""``LEAD[rank][held]``: the actions of leading 1..held cards of a rank."""
RANK_CARDS: Final = tuple(tuple(card for card in ITALIAN_40.cards if RANK[card] == rank)
                   for rank in range(ITALIAN_40.ranks))
"""The card ids of each rank, lowest first."""


def ranks_above(strength: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Per floor strength 0..10: the ranks whose strength is at least the floor, in id order."""
    return tuple(tuple(rank for rank in range(len(strength)) if strength[rank] >= floor)
                 for floor in range(len(strength) + 1))


class Phase(IntEnum):
    """Returning exchanged cards, playing rounds; the match ends after the last deal."""

    EXCHANGE = 0
    PLAY = 1
    OVER = 2


def set_action(rank: int, count: int) -> int:
    """The action id of playing ``count`` cards of ``rank``."""
    return rank * MAX_SET + count - 1


def best_cards(hand: list[int], count: int, strength: tuple[int, ...]) -> list[int]:
    """The ``count`` highest-ranked cards of a hand, lowest card ids first on equal rank."""
    return sorted(hand, key=lambda card: (-strength[RANK[card]], card))[:count]


class PresidenteGame(Game):
    """Presidente with 3 to 6 seats."""


    def __init__(self, spec: GameSpec, num_players: int, params: dict[str, ParamValue]) -> None:
        """Read the options."""
        super().__init__(spec, num_players, params)
        self.deck = ITALIAN_40
        self.strength = STRENGTHS[str(params["rank_order"])]
        self.rank_strength = self.deck.per_card(self.strength)
        self.above = ranks_above(self.strength)
        self.deals = int(params["deals"])
        self.pass_is_final = bool(params["pass_is_final_for_round"])
        self.allow_equal = bool(params["allow_equal_rank"])
        self.pass_entries = tuple((_PASS, seat, (), (), ALL_SEATS) for seat in range(num_players))
        """Prebuilt PASS log entries per seat."""

    def new_initial_state(self, seed: int, deal: DealInput = None) -> PresidenteState:
        """A new match."""
        return PresidenteState(self, seed, deal)


class PresidenteState(State[PresidenteGame]):
    """A Presidente match in progress."""

    __slots__ = ("_counts", "_deal_number", "_dealer", "_exchanges", "_finished", "_hands",
                 "_last", "_passed", "_phase", "_points", "_ranking", "_round",
                 "_round_seats", "_scores", "_top")


    def _start(self) -> None:
        """Deal the first hand."""
        game = self.game
        n = game.num_players
        self._deal_number = 0
        self._dealer = n - 1
        self._scores = [0] * n
        self._ranking: list[int] = []
        self._start_deal()

    # --- dealing, exchange and deal flow ------------------------------------------------------

    def _start_deal(self) -> None:
        """Deal every card, then exchange (from the second deal) or start the first round."""
        n = self.game.num_players
        order = self._next_deal()
        first = (self._dealer + 1) % n
        self._hands: list[list[int]] = [[] for _ in range(n)]
        for index in range(n):
            self._hands[(first + index) % n] = sorted(order[index::n])
        self._counts = [[0] * ITALIAN_40.ranks for _ in range(n)]
        for seat in range(n):
            for card in self._hands[seat]:
                self._counts[seat][RANK[card]] += 1
        self._finished: list[int] = []
        self._points = [0] * n
        self._round: list[int] = []
        self._round_seats: list[int] = []
        self._top = (-1, 0)
        self._passed = 0
        self._last = first
        self._event(EventKind.HAND_START, self._dealer, values=(self._deal_number,))
        for seat in range(n):
            self._event(EventKind.DEAL, seat, tuple(self._hands[seat]), viewers=1 << seat)
        ranking = self._ranking
        if not ranking:
            self._exchanges: list[tuple[int, int, int]] = []
            self._begin_play(first)
            return
        self._exchanges = [(ranking[0], ranking[-1], 2)]
        if n >= 4:
            self._exchanges.append((ranking[1], ranking[-2], 1))
        self._phase = Phase.EXCHANGE
        self._next_exchange()

    def _move(self, giver: int, receiver: int, cards: list[int]) -> None:
        """Move cards between hands and log the private SWAP event."""
        give_hand, take_hand = self._hands[giver], self._hands[receiver]
        for card in cards:
            give_hand.remove(card)
            self._counts[giver][RANK[card]] -= 1
            take_hand.append(card)
            self._counts[receiver][RANK[card]] += 1
        take_hand.sort()
        self._event(EventKind.SWAP, giver, tuple(sorted(cards)), (receiver,),
                    viewers=(1 << giver) | (1 << receiver))

    def _next_exchange(self) -> None:
        """The next low seat gives its best cards; its high partner then returns as many."""
        if not self._exchanges:
            self._begin_play(self._ranking[-1])
            return
        high, low, count = self._exchanges[0]
        self._move(low, high, best_cards(self._hands[low], count, self.game.strength))
        self._current = high

    def _apply_give(self, action: int) -> None:
        """The President (or Vice-President) gives back one card."""
        high, low, count = self._exchanges[0]
        self._move(high, low, [action - GIVE])
        if count > 1:
            self._exchanges[0] = (high, low, count - 1)
            return
        self._exchanges.pop(0)
        self._next_exchange()

    def _begin_play(self, leader: int) -> None:
        """Start the first round of a deal."""
        self._phase = Phase.PLAY
        self._current = leader

    def _end_deal(self) -> None:
        """Score the finishing order; deal again or end the match."""
        game = self.game
        n = game.num_players
        left = [*self._round]
        for hand in self._hands:
            left.extend(hand)
        points = [0] * n
        for place, seat in enumerate(self._finished):
            points[seat] = n - 1 - place
        self._points = points
        self._event(EventKind.HAND_END, self._dealer, tuple(sorted(left)), (0,) * n)
        self._event(EventKind.SCORE, self._dealer, values=tuple(points))
        for seat in range(n):
            self._scores[seat] += points[seat]
        self._ranking = self._finished
        self._deal_number += 1
        if self._deal_number >= game.deals:
            self._phase = Phase.OVER
            self._current = TERMINAL
            best = max(self._scores)
            outcome = side_outcome([s for s in range(n) if self._scores[s] == best], n)
            self._returns = [float(value) for value in outcome]
            self._event(EventKind.MATCH_END, -1, values=tuple(outcome))
            return
        self._dealer = (self._dealer + 1) % n
        self._start_deal()

    # --- rounds -----------------------------------------------------------------------------

    def _advance(self, seat: int) -> None:
        """Give the turn to the next player who may still play, or close the round."""
        n = self.game.num_players
        hands = self._hands
        last = self._last
        passed = self._passed
        final = self.game.pass_is_final
        for offset in range(1, n + 1):
            other = (seat + offset) % n
            if not hands[other]:
                continue
            if other == last:
                break
            if passed >> other & 1:
                if final:
                    continue
                break
            self._current = other
            return
        self._close_round()

    def _close_round(self) -> None:
        """Log the round as a trick of its last player, who (or the next holder) leads anew."""
        last = self._last
        self._log.append((EventKind.TRICK, last, tuple(self._round), (0,), ALL_SEATS))
        self._round = []
        self._round_seats = []
        self._top = (-1, 0)
        self._passed = 0
        n = self.game.num_players
        hands = self._hands
        leader = last
        for offset in range(n):
            leader = (last + offset) % n
            if hands[leader]:
                break
        self._current = leader

    def _apply_play(self, action: int) -> None:
        """Play a set from the lowest card ids of its rank, pass, or give a card back."""
        seat = self._current
        if action > PASS:
            self._apply_give(action)
            return
        if action == PASS:
            self._passed |= 1 << seat
            self._log.append(self.game.pass_entries[seat])
            self._advance(seat)
            return
        rank, count = divmod(action, MAX_SET)
        count += 1
        hand = self._hands[seat]
        entries = _PLAY_ENTRY[seat]
        if count == 1:
            for card in RANK_CARDS[rank]:  # the lowest id held
                if card in hand:
                    break
            hand.remove(card)
            self._log.append(entries[card])
            self._round.append(card)
            self._round_seats.append(seat)
        else:
            played = [card for card in RANK_CARDS[rank] if card in hand][:count]
            for card in played:
                hand.remove(card)
            self._log += [entries[card] for card in played]
            self._round += played
            self._round_seats += [seat] * count
        self._counts[seat][rank] -= count
        game = self.game
        self._top = (game.strength[rank], count)
        self._last = seat
        if not game.pass_is_final:
            self._passed = 0
        if not hand:
            self._finished.append(seat)
            holders = [s for s in range(self.game.num_players) if self._hands[s]]
            if len(holders) == 1:
                self._finished.append(holders[0])
                self._end_deal()
                return
        self._advance(seat)

    # --- the API ----------------------------------------------------------------------------

    def _compute_legal(self) -> list[int]:
        """Cards to give back, or the sets that beat the top play (any set when leading)."""
        phase = self._phase
        if phase == Phase.PLAY:
            counts = self._counts[self._current]
            top_strength, top_count = self._top
            if not top_count:
                legal = []
                for rank in range(ITALIAN_40.ranks):
                    held = counts[rank]
                    if held:
                        legal += LEAD[rank][held]
                return legal
            game = self.game
            floor = top_strength if game.allow_equal else top_strength + 1
            offset = top_count - 1
            legal = [rank * MAX_SET + offset for rank in game.above[floor]
                     if counts[rank] >= top_count]
            legal.append(PASS)
            return legal
        if phase == Phase.EXCHANGE:
            return [GIVE + card for card in self._hands[self._current]]
        return []

    # Play and exchange actions have disjoint ids: dispatch on the action, without a table.
    def _apply(self, action: int) -> None:
        """Apply an action of play."""
        self._apply_play(action)


    # --- views ------------------------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        """``3x7`` (three sevens), ``pass`` or ``give-7D``."""
        if action == PASS:
            return "pass"
        if GIVE <= action < NUM_ACTIONS:
            return f"give-{ITALIAN_40.short(action - GIVE)}"
        if not 0 <= action < PASS:
            raise ValueError(f"{action} is not a {self.game.id} action (0..{NUM_ACTIONS - 1})")
        rank, count = divmod(action, MAX_SET)
        return f"{count + 1}x{ITALIAN_40.rank_letters[rank]}"

    def action_meaning(self, action: int) -> ActionMeaning:
        """PLAY of a set (``rank``, ``value`` the count, the cards it takes), PASS, or GIVE."""
        label = self.action_to_string(action)
        if action == PASS:
            return ActionMeaning(ActionKind.PASS, label=label)
        if action > PASS:
            return ActionMeaning(ActionKind.GIVE, cards=(action - GIVE,), label=label)
        rank, count = divmod(action, MAX_SET)
        count += 1
        seat = self._current
        held = [card for card in self._hands[seat] if RANK[card] == rank] if seat >= 0 else []
        cards = tuple(held[:count]) if len(held) >= count else ()
        return ActionMeaning(ActionKind.PLAY, cards=cards, value=count, rank=rank, label=label)

    def observation(self, seat: int) -> Observation:
        """Own hand, card counts, the round so far, deal points and the public history."""
        game = self.game
        n = game.num_players
        return Observation(
            game=game.id,
            seat=seat,
            num_seats=n,
            hand_number=self._deal_number,
            dealer=self._dealer,
            phase=self._phase.name.lower(),
            current_player=self._current,
            hand=tuple(self._hands[seat]),
            hand_sizes=tuple(len(h) for h in self._hands),
            trick=tuple(zip(self._round_seats, self._round, strict=True)),
            points=tuple(self._points),
            scores=tuple(float(score) for score in self._scores),
            events=self._events_for(seat),
            legal_actions=tuple(self._compute_legal()) if seat == self._current else (),
        )


PARAMS = (
    Param("deals", 4, "deals in a match; the dealer moves to the right each deal", minimum=1,
          maximum=1000),
    Param("rank_order", "pagat", "pagat: 2 > A > R > ... > 3; briscola: A > 3 > R > ... > 2",
          choices=("pagat", "briscola")),
    Param("pass_is_final_for_round", True,
          "a player who passed may not play again until the next round"),
    Param("allow_equal_rank", False, "a set may be followed by a set of the same rank"),
)


def _make(spec: GameSpec, players: int, params: dict[str, ParamValue]) -> Game:
    """The game factory."""
    return PresidenteGame(spec, players, params)


SPECS = (
    GameSpec(
        id="presidente", title="Presidente", section="1.14", seats=(4, 3, 5, 6), params=PARAMS,
        factory=_make,
        summary="Climbing game: beat the last set or pass; go out first to be President",
        extra_configurations=(
            (4, (("rank_order", "briscola"), ("allow_equal_rank", True))),
            (5, (("pass_is_final_for_round", False), ("deals", 2))),
            (3, (("pass_is_final_for_round", False), ("allow_equal_rank", True))),
        ),
    ),
)
