"""Misère: 4 seats, 52 French cards, a match of 8 deals (docs/games/misere.md).

Rules summary:
- French 52-card deck. Rank order A K Q J 10 9 ... 2 (``rank_order=bridge``, the source text's) or
  A 3 K Q J 10 9 8 7 6 5 4 2 (``rank_order=briscola``).
- A match is 8 deals. The first dealer is seat 3 and the deal moves to the right (dealer+1).
  Cards are dealt one at a time from the dealer's right: seat dealer+1 gets cards 1, 5, 9, ...
  of the deal order, seat dealer+2 cards 2, 6, 10, ..., the dealer cards 4, 8, 12, ...;
  13 cards each. ``hand_size`` (1..13, default 13) is a variant and testing parameter that
  deals fewer cards the same way; the rest of the deck stays out of play.
- Trumps: deal 1 hearts, deal 2 diamonds, deal 3 clubs, deal 4 spades; deals 5-8 no trump.
- Bids in deals 1-6 only: each player bids once, 0..hand_size, from the dealer's right, the
  dealer last. The dealer's hook: the dealer may not make the four bids sum to hand_size.
  Deal 6 is bid blind: no seat sees its hand (nor its DEAL event) until all four have bid;
  the hook applies there too unless ``hook_in_blind`` is false.
- Play: the dealer's right leads the first trick, the trick winner leads the next. Follow
  suit if able; a void player may play any card (``must_trump_if_void``: must trump if able,
  in the trump deals). The highest trump wins, else the highest card of the led suit.
- Game points per deal. Bid deals 1-6: a bid n >= 1 made +10n; a missed bid
  -10 * |tricks - bid|; bid 0 made +50; bid 0 failed -10 * tricks (``misere_fail=per_trick``)
  or -50 (``minus_50``). Deal 7 "ciapa ciapa": +10 per trick. Deal 8 "misère": -10 per
  trick. No bids in deals 7 and 8.
- Returns: 0 until the match ends; then the k seats with the highest total after 8 deals
  (ties shared) get 4 - k each and the others -k each (0 for all when all four tie).
- Observation: ``points`` = tricks taken per seat in the current deal, ``scores`` = running
  game-point totals of the finished deals; bids are public BID events (values = (bid,)).
  A TRICK is worth 1 (values = (1,)); HAND_END values = tricks per seat, cards = the cards
  not dealt (none with 13-card hands). The game counts no card points.

Actions:
| id     | meaning                                          |
|--------|--------------------------------------------------|
| 0-51   | play that card (French 52-card id = suit*13 + rank) |
| 52-65  | bid 0-13 (``BID_BASE + n``)                      |
"""

from __future__ import annotations

from bisect import bisect_left
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
    LogEntry,
    Observation,
    State,
    play_entries,
    play_meanings,
)
from arena.games.cards import FRENCH_52
from arena.games.outcomes import side_outcome
from arena.games.params import GameSpec, Param, ParamValue
from arena.games.tricks import NO_TRUMP, trick_key_tables

_PLAY_MEANINGS: Final = play_meanings(FRENCH_52)
"""The meaning of each card play, built once."""

NUM_SEATS: Final = 4
DEALS_PER_MATCH: Final = 8
MAX_HAND: Final = 13
BID_BASE: Final = FRENCH_52.size
NUM_ACTIONS: Final = BID_BASE + MAX_HAND + 1
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)

SUIT: Final = FRENCH_52.suit_table()
BRIDGE_STRENGTH: Final = FRENCH_52.per_card(tuple(range(13)))
"""Per card: 2 lowest ... ace highest."""
BRISCOLA_STRENGTH: Final = FRENCH_52.per_card((0, 11, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12))
"""Per card: A 3 K Q J 10 9 8 7 6 5 4 2, from strongest to weakest."""
STRENGTHS = {"bridge": BRIDGE_STRENGTH, "briscola": BRISCOLA_STRENGTH}
TRICK_KEYS = {name: trick_key_tables(SUIT, strength, FRENCH_52.suits)
              for name, strength in STRENGTHS.items()}


class DealKind(IntEnum):
    """What a deal is played for."""

    BID = 0
    BLIND = 1
    CIAPA_CIAPA = 2
    MISERE = 3


TRUMPS: Final[tuple[int, ...]] = (HEARTS, DIAMONDS, CLUBS, SPADES,
                                  NO_TRUMP, NO_TRUMP, NO_TRUMP, NO_TRUMP)
"""Trump suit per deal of the match (``NO_TRUMP`` = -1)."""
KINDS: Final = (DealKind.BID,) * 5 + (DealKind.BLIND, DealKind.CIAPA_CIAPA, DealKind.MISERE)
"""Kind of each deal of the match."""
BIDDING_DEALS: Final = 6
"""Deals 1-6 are bid; deals 7 and 8 are not."""


class Phase(IntEnum):
    """Bidding, trick play, and the end of the match."""

    BID = 0
    PLAY = 1
    OVER = 2


PHASE_NAMES: Final = tuple(phase.name.lower() for phase in Phase)
"""``Observation.phase`` per phase."""

# Enum members as module constants: a class attribute lookup costs more on the hot path.
_PLAYING: Final = Phase.PLAY
_BIDDING: Final = Phase.BID
_BLIND: Final = DealKind.BLIND
_CIAPA_CIAPA: Final = DealKind.CIAPA_CIAPA
_MISERE: Final = DealKind.MISERE
_TRICK: Final = EventKind.TRICK
_DEAL: Final = EventKind.DEAL
_ONE_TRICK: Final[tuple[int, ...]] = (1,)
_PLAY_ENTRY: Final = play_entries(EventKind.PLAY, NUM_SEATS, FRENCH_52.size)
_BID_ENTRY: tuple[tuple[LogEntry, ...], ...] = tuple(
    tuple((EventKind.BID, seat, (), (bid,), ALL_SEATS) for bid in range(MAX_HAND + 1))
    for seat in range(NUM_SEATS)
)


def deal_score(kind: DealKind, bid: int, tricks: int, minus_50: bool = False) -> int:
    """Game points of one seat for one deal (``minus_50``: a failed bid of 0 costs 50)."""
    if kind is _CIAPA_CIAPA:
        return 10 * tricks
    if kind is _MISERE:
        return -10 * tricks
    if bid == 0:
        if tricks == 0:
            return 50
        return -50 if minus_50 else -10 * tricks
    return 10 * bid if tricks == bid else -10 * abs(tricks - bid)


def hook_bid(bids: list[int], hand_size: int) -> int | None:
    """The bid the dealer may not make (the sum would equal hand_size), if it is a bid."""
    forbidden = hand_size - sum(bids)
    return forbidden if 0 <= forbidden <= hand_size else None


def match_outcome(totals: list[int]) -> list[int]:
    """Zero-sum returns: each of the k top totals gets 4 - k, every other seat -k."""
    best = max(totals)
    return side_outcome([seat for seat, total in enumerate(totals) if total == best],
                        len(totals))


def deal_hands(order: list[int], first: int, hand_size: int) -> list[list[int]]:
    """Sorted hands dealt one card at a time from seat ``first``; the rest of ``order`` is out."""
    stop = NUM_SEATS * hand_size
    dealt = [sorted(order[index:stop:NUM_SEATS]) for index in range(NUM_SEATS)]
    return [dealt[(seat - first) % NUM_SEATS] for seat in range(NUM_SEATS)]


class MisereGame(Game):
    """Misère with its options."""


    def __init__(self, spec: GameSpec, num_players: int, params: dict[str, ParamValue]) -> None:
        """Derive the rank tables and flags from the parameters."""
        super().__init__(spec, num_players, params)
        self.deck = FRENCH_52
        order = str(params["rank_order"])
        self.trick_strength = STRENGTHS[order]
        self.trick_keys = TRICK_KEYS[order]
        self.hand_size = int(params["hand_size"])
        self.must_trump = bool(params["must_trump_if_void"])
        self.minus_50 = params["misere_fail"] == "minus_50"
        self.hook_in_blind = bool(params["hook_in_blind"])

    def new_initial_state(self, seed: int, deal: DealInput = None) -> MisereState:
        """A new match; ``deal`` injects the card order of the first deal (or of several)."""
        return MisereState(self, seed, deal)


class MisereState(State[MisereGame]):
    """A Misère match in progress."""

    __slots__ = ("_bids", "_dealer", "_hand_number", "_hands", "_keys", "_kind", "_leader",
                 "_left_out", "_phase", "_totals", "_trick", "_tricks", "_trump")


    def _start(self) -> None:
        """Deal the first hand."""
        self._hand_number = 0
        self._dealer = NUM_SEATS - 1
        self._totals = [0] * NUM_SEATS
        self._start_hand()

    # --- dealing and deal flow --------------------------------------------------------------

    def _start_hand(self) -> None:
        """Deal, set the trump and the deal kind, and open the bidding (or the play)."""
        game = self.game
        order = self._next_deal()
        first = (self._dealer + 1) % NUM_SEATS
        number = self._hand_number
        self._hands = deal_hands(order, first, game.hand_size)
        self._left_out = tuple(sorted(order[NUM_SEATS * game.hand_size:]))
        self._trump = TRUMPS[number]
        self._kind = KINDS[number]
        self._keys = game.trick_keys[self._trump]
        self._bids: list[int] = []
        self._tricks = [0] * NUM_SEATS
        self._trick: list[int] = []
        self._leader = first
        self._current = first
        self._event(EventKind.HAND_START, self._dealer, values=(number,))
        if self._kind is not _BLIND:
            self._log_deal()
        self._event(EventKind.TRUMP, self._dealer, values=(self._trump,))
        self._phase = _BIDDING if number < BIDDING_DEALS else _PLAYING

    def _log_deal(self) -> None:
        """Show every seat its own hand."""
        log = self._log
        for seat, hand in enumerate(self._hands):
            log.append((_DEAL, seat, tuple(hand), (), 1 << seat))

    def _end_hand(self) -> None:
        """Score the deal, then deal the next one or end the match."""
        game = self.game
        kind = self._kind
        bids = self._bids or [0] * NUM_SEATS
        # Bids are stored in bidding order; put them in seat order.
        first = (self._dealer + 1) % NUM_SEATS
        by_seat = [bids[(seat - first) % NUM_SEATS] for seat in range(NUM_SEATS)]
        scores = tuple(deal_score(kind, by_seat[seat], self._tricks[seat], game.minus_50)
                       for seat in range(NUM_SEATS))
        self._event(EventKind.HAND_END, self._dealer, self._left_out, tuple(self._tricks))
        self._event(EventKind.SCORE, self._dealer, values=scores)
        for seat in range(NUM_SEATS):
            self._totals[seat] += scores[seat]
        self._hand_number += 1
        if self._hand_number >= DEALS_PER_MATCH:
            outcome = match_outcome(self._totals)
            self._returns = [float(value) for value in outcome]
            self._phase = Phase.OVER
            self._current = TERMINAL
            self._event(EventKind.MATCH_END, -1, values=tuple(outcome))
            return
        self._dealer = (self._dealer + 1) % NUM_SEATS
        self._start_hand()

    # --- bidding ----------------------------------------------------------------------------

    def _legal_bid(self) -> list[int]:
        """Bids 0..hand_size; the dealer may not make the sum equal hand_size."""
        size = self.game.hand_size
        bids = range(BID_BASE, BID_BASE + size + 1)
        if len(self._bids) < NUM_SEATS - 1 or (
                self._kind is _BLIND and not self.game.hook_in_blind):
            return list(bids)
        forbidden = hook_bid(self._bids, size)
        return [a for a in bids if a - BID_BASE != forbidden]

    def _apply_bid(self, action: int) -> None:
        """Record a bid; after the dealer's, play starts (and a blind hand is shown)."""
        seat = self._current
        self._bids.append(action - BID_BASE)
        self._log.append(_BID_ENTRY[seat][action - BID_BASE])
        if len(self._bids) < NUM_SEATS:
            self._current = (seat + 1) % NUM_SEATS
            return
        if self._kind is _BLIND:
            self._log_deal()
        self._phase = _PLAYING
        self._current = self._leader

    # --- play (the hot path: the dispatch to the other phases starts here) ----------------

    def _legal_play(self) -> list[int]:
        """Follow suit if able (trump if able and required), else any card; other phases."""
        if self._phase is not _PLAYING:
            return self._legal_bid() if self._phase is _BIDDING else []
        hand = self._hands[self._current]  # kept sorted: a suit is a contiguous run
        trick = self._trick
        if not trick:
            return hand
        low = SUIT[trick[0]] * 13
        start = bisect_left(hand, low)
        stop = bisect_left(hand, low + 13, start)
        if start < stop:
            return hand[start:stop]
        if self.game.must_trump and self._trump >= 0:
            low = self._trump * 13
            start = bisect_left(hand, low)
            stop = bisect_left(hand, low + 13, start)
            if start < stop:
                return hand[start:stop]
        return hand

    def _apply_play(self, action: int) -> None:
        """Play a card, the trick going to its winner, who leads next; or apply a bid."""
        if self._phase is not _PLAYING:
            self._apply_bid(action)
            return
        card = action
        seat = self._current
        self._hands[seat].remove(card)
        trick = self._trick
        trick.append(card)
        self._log.append(_PLAY_ENTRY[seat][card])
        if len(trick) < NUM_SEATS:
            self._current = (seat + 1) % NUM_SEATS
            return
        first, second, third, fourth = trick
        keys = self._keys[SUIT[first]]
        best, best_key = 0, keys[first]
        key = keys[second]
        if key > best_key:
            best, best_key = 1, key
        key = keys[third]
        if key > best_key:
            best, best_key = 2, key
        if keys[fourth] > best_key:
            best = 3
        winner = (self._leader + best) % NUM_SEATS
        self._tricks[winner] += 1
        self._log.append((_TRICK, winner, (first, second, third, fourth), _ONE_TRICK, ALL_SEATS))
        self._trick = []
        self._leader = winner
        self._current = winner
        if not self._hands[winner]:
            self._end_hand()

    def _compute_legal(self) -> list[int]:
        """The legal actions: those of play."""
        return self._legal_play()

    def _apply(self, action: int) -> None:
        """Apply an action of play."""
        self._apply_play(action)


    # --- views ------------------------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        """A card's compact name (``TH``) or ``bid N``."""
        if 0 <= action < BID_BASE:
            return FRENCH_52.short(action)
        if BID_BASE <= action < NUM_ACTIONS:
            return f"bid {action - BID_BASE}"
        raise ValueError(f"{action} is not a {self.game.id} action (0..{NUM_ACTIONS - 1})")

    def action_meaning(self, action: int) -> ActionMeaning:
        """A card is PLAY; ``bid N`` is BID with value N."""
        if 0 <= action < BID_BASE:
            return _PLAY_MEANINGS[action]
        label = self.action_to_string(action)
        if action >= BID_BASE:
            return ActionMeaning(ActionKind.BID, value=action - BID_BASE, label=label)
        return ActionMeaning(ActionKind.PLAY, cards=(action,), label=label)

    def _hand_hidden(self) -> bool:
        """True while the blind deal is being bid (no seat sees its hand)."""
        return self._kind is _BLIND and self._phase is _BIDDING

    def observation(self, seat: int) -> Observation:
        """Own hand (none while bidding blind), the trick, the public history and the totals."""
        leader = self._leader
        return Observation(
            game=self.game.id,
            seat=seat,
            num_seats=NUM_SEATS,
            hand_number=self._hand_number,
            dealer=self._dealer,
            phase=PHASE_NAMES[self._phase],
            current_player=self._current,
            hand=() if self._hand_hidden() else tuple(self._hands[seat]),
            hand_sizes=tuple(map(len, self._hands)),
            trump_suit=self._trump,
            trick=tuple(((leader + index) % NUM_SEATS, card)
                        for index, card in enumerate(self._trick)),
            points=tuple(self._tricks),
            scores=tuple(map(float, self._totals)),
            events=self._events_for(seat),
            legal_actions=tuple(self._compute_legal()) if seat == self._current else (),
        )


def _make(spec: GameSpec, players: int, params: dict[str, ParamValue]) -> Game:
    """The game factory."""
    return MisereGame(spec, players, params)


PARAMS = (
    Param("rank_order", "bridge", "rank order: bridge (A K Q J 10 ... 2, the source text's) or "
          "briscola (A 3 K Q J 10 ... 4 2)", choices=("bridge", "briscola")),
    Param("must_trump_if_void", False, "a player void in the led suit must trump if able"),
    Param("misere_fail", "per_trick", "a failed bid of 0 costs 10 per trick (per_trick) or 50 "
          "(minus_50)", choices=("per_trick", "minus_50")),
    Param("hook_in_blind", True, "the dealer's hook also applies to the blind deal (deal 6)"),
    Param("hand_size", MAX_HAND, "cards per hand (variant and testing parameter; bids and "
          "the hook use it)", minimum=1, maximum=MAX_HAND),
)

SPECS = (
    GameSpec(
        id="misere", title="Misère", section="1.1", seats=(NUM_SEATS,), params=PARAMS,
        factory=_make,
        summary="8 deals of 13 cards: bid your tricks exactly, a blind deal, ciapa ciapa and "
                "misère",
        extra_configurations=(
            (4, (("rank_order", "briscola"), ("must_trump_if_void", True), ("hand_size", 7))),
            (4, (("misere_fail", "minus_50"), ("hook_in_blind", False), ("hand_size", 3))),
        ),
    ),
)
