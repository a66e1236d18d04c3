"""Tressette con il pozzo: Calabresella (Terziglio) for 3 seats, or Tressette in three with a stock
(docs/games/tressette_pozzo.md).

Rules summary:
- Italian 40-card deck, Tressette order 3 2 A R C F 7 6 5 4, no trumps, follow suit if able;
  the highest card of the led suit wins. Card points are counted in thirds: an ace 3, a 3, 2,
  R, C or F 1, the last trick 3 more. A side's points are floor(thirds / 3); 11 per hand.
- Seats counter-clockwise; the first dealer is seat 2, the deal passes to the right
  (dealer+1) each hand; the dealer's right (dealer+1) bids first and leads the first trick.

``variant=calabresella`` (the default):
- 12 cards each, dealt in packets of 4 from the dealer's right (deal order: seat dealer+1 gets
  cards 0-3, dealer+2 cards 4-7, the dealer 8-11, then again from 12); cards 36-39 are the monte
  (the pozzo), face down.
- Single-round auction from the dealer's right, each bid higher than the last: pass, chiamo,
  solo, solissimo. Nobody speaks after a solissimo. The highest bidder is the soloist against
  the other two. All pass: the cards are thrown in (REDEAL) and the next dealer (dealer+1)
  deals again; the new deal belongs to the same hand (same hand number, no HAND_END). After
  ``max_redeals`` throw-ins in a row (default 3) the last speaker may not pass when the
  others have, so that a match always ends.
- Chiamo: the soloist calls a card they do not hold (public). Its holder hands it over (public)
  and the soloist gives back a card of their choice, face up (not the called card). If the
  called card is in the monte nothing is handed over and the soloist may not call again: they
  take it with the monte. Then the soloist takes the monte face up and discards 4 cards.
- Solo: the soloist takes the monte unseen by the others and discards 4.
- Solissimo: no exchange; the monte is not used.
- Discards are one decision per card and are seen by the soloist only. The monte (solissimo)
  or the discards go to the winner of the last trick, shown to all at the end (CAPTURE).
- The soloist makes the contract with at least 6 of the 11 points. The stake is 1 for chiamo,
  2 for solo, 3 for solissimo, times the difference between the two sides' points
  (``payment=difference``, the default, as Wikipedia's Calabresella scores it) or times 1
  (``payment=stake``; a flat stake makes a match to 21 last about a hundred hands between
  equal players, since the scores drift around zero). Zero-sum: each defender pays the stake to the
  soloist when the contract is made (soloist +2 stakes, defenders -1 each), and receives it
  when it fails. ``first_lead=soloist`` lets the soloist lead the first trick instead.

``variant=draw_pool`` (Tressette in three with a stock):
- The 4 of spade is removed, leaving 39 cards: 10 each, dealt in packets of 5 from the
  dealer's right (seat dealer+1 gets cards 0-4, dealer+2 5-9, the dealer 10-14, then again);
  the other 9 cards form the stock, drawn in deal order.
- After each trick while the stock lasts every player draws one card, the winner first, then
  counter-clockwise; every drawn card is shown to all. 13 tricks; free-for-all.
- Each seat scores its own points, floor(thirds / 3), every hand.

Match: hands are played until a seat's running score reaches ``target`` (21) at the end of a
hand; the highest score wins, ties shared. ``observation.scores`` is that running score.
``returns()`` is the zero-sum match outcome, 0 until the end: each of k winners gets 3-k and
each loser -k (one winner: +2, -1, -1).

Actions:
| id    | meaning                                                                   |
|-------|---------------------------------------------------------------------------|
| 0-39  | a card (Italian 40-card id): played, or called, given back or discarded   |
|       | as the phase says (``call``, ``give``, ``discard``, ``play``)             |
| 40    | pass                                                                      |
| 41    | bid chiamo                                                                |
| 42    | bid solo                                                                  |
| 43    | bid solissimo                                                             |

Events besides HAND_START, DEAL (private), PLAY, HAND_END, SCORE and MATCH_END (all public
unless marked):
| kind    | seat              | cards                 | values (and who sees it)          |
|---------|-------------------|-----------------------|-----------------------------------|
| PASS    | the passer        |                       |                                   |
| BID     | the bidder        |                       | (1 chiamo, 2 solo, 3 solissimo,)  |
| REDEAL  | the new dealer    |                       |                                   |
| CALL    | the soloist       | (called card,)        |                                   |
| SWAP    | the giver         | (card,)               | (receiver,): a card changes hands |
| SWAP    | the soloist       | (card,)               | (): a discard, soloist only       |
| DRAW    | the drawer        | the monte, or a card  | solo: the monte, soloist only     |
| TRICK   | the winner        | the trick, play order | (thirds, +3 on the last trick,)   |
| CAPTURE | last-trick winner | the monte or discards | (thirds,)                         |
HAND_END values are per-seat thirds of the hand (tricks, last trick, monte); its cards are the
cards nobody won (the removed 4 of spade with ``draw_pool``). SCORE values are the hand's game
points. In an observation ``points`` are the hand's thirds per seat, ``stock_size`` the face-down
monte or discards (the stock with ``draw_pool``), ``called_card`` the chiamo card, and a
defender's ``teammates`` the other defender.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from enum import IntEnum
from operator import itemgetter
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
from arena.games.cards import (
    HIDDEN,
    ITALIAN_40,
    TRESSETTE_STRENGTH,
    TRESSETTE_THIRDS,
    Rank,
    Suit,
)
from arena.games.outcomes import side_outcome
from arena.games.params import GameSpec, Param, ParamValue
from arena.games.tricks import NO_TRUMP, trick_key_tables

NUM_SEATS = 3
PASS: Final = 40
CHIAMO: Final = 41
SOLO: Final = 42
SOLISSIMO: Final = 43
NUM_ACTIONS: Final = 44
CONTRACT_NAMES = ("pass", "chiamo", "solo", "solissimo")
"""Contract names by level (0 = no contract); action = PASS + level."""
STAKES: Final[tuple[int, ...]] = (0, 1, 2, 3)
"""Stake per contract level."""

SUIT: Final = ITALIAN_40.suit_table()
STRENGTH: Final = ITALIAN_40.per_card(TRESSETTE_STRENGTH)
THIRDS: Final = ITALIAN_40.per_card(TRESSETTE_THIRDS)
LAST_TRICK_THIRDS: Final = 3
POINTS_TOTAL: Final = sum(THIRDS) + LAST_TRICK_THIRDS
WIN_POINTS: Final = 6
HAND_POINTS: Final = 11
MONTE_SIZE: Final = 4
REMOVED_FOUR: Final = ITALIAN_40.card(Suit.SPADE, Rank.QUATTRO)
"""The card ``draw_pool`` removes so that 39 cards divide among 3 seats and their draws."""

MONTE_DEALT: Final = 36
POOL_DEALT: Final = 30


def _dealing(packet: int, dealt: int) -> tuple[itemgetter[tuple[int, ...]], ...]:
    """Per seat, counting from the dealer's right: the deal positions of its cards."""
    return tuple(itemgetter(*[index for index in range(dealt)
                              if index // packet % NUM_SEATS == offset])
                 for offset in range(NUM_SEATS))


_MONTE_DEAL: Final = _dealing(4, MONTE_DEALT)
_POOL_DEAL: Final = _dealing(5, POOL_DEALT)

LED_KEYS: Final = trick_key_tables(SUIT, STRENGTH, ITALIAN_40.suits)[NO_TRUMP]
"""Per led suit: a key per card, highest wins (no trumps)."""
SUIT_START: Final = tuple(SUIT[card] * ITALIAN_40.ranks for card in ITALIAN_40.cards)
"""First card id of each card's suit: a sorted hand holds a suit as one slice."""
NEXT_SEAT: Final[tuple[int, ...]] = (1, 2, 0)
ALL_CARDS: Final = tuple(ITALIAN_40.cards)

_PLAY_ENTRY: Final = play_entries(EventKind.PLAY, NUM_SEATS, ITALIAN_40.size)
_DRAW_ENTRY: Final = play_entries(EventKind.DRAW, NUM_SEATS, ITALIAN_40.size)
_DISCARD_ENTRY: Final = play_entries(EventKind.SWAP, NUM_SEATS, ITALIAN_40.size, private=True)
_TRICK: Final = EventKind.TRICK
_BID_LEGAL: Final = tuple([PASS, *range(PASS + level + 1, SOLISSIMO + 1)] for level in range(4))
"""Legal auction actions by the highest bid so far."""
_FORCED_BID: Final = list(range(PASS + 1, SOLISSIMO + 1))
"""The last speaker's actions after ``max_redeals`` throw-ins when the others passed."""


class Phase(IntEnum):
    """The phases of a hand; OVER once the match has ended."""

    BID = 0
    CALL = 1
    GIVE = 2
    DISCARD = 3
    PLAY = 4
    OVER = 5


_PLAY_PHASE: Final = Phase.PLAY
_CARD_KINDS = (ActionKind.PLAY, ActionKind.CALL, ActionKind.GIVE, ActionKind.DISCARD,
               ActionKind.PLAY, ActionKind.PLAY)
"""What a card action does, by phase."""


def contract_score(contract: int, soloist: int, points: int, by_difference: bool) -> list[int]:
    """Per-seat game points of a Calabresella hand whose soloist took ``points`` of 11.

    The stake is 1, 2 or 3 by contract (times the difference of the sides' points when
    ``by_difference``); each defender pays it to the soloist, or is paid it on a failure.
    """
    stake = STAKES[contract]
    if by_difference:
        stake *= abs(2 * points - HAND_POINTS)
    sign = 1 if points >= WIN_POINTS else -1
    return [2 * sign * stake if seat == soloist else -sign * stake for seat in range(NUM_SEATS)]


class PozzoGame(Game):
    """Tressette con il pozzo: Calabresella, or Tressette in three drawing from a stock."""


    def __init__(self, spec: GameSpec, num_players: int, params: dict[str, ParamValue]) -> None:
        """Read the variant and scoring parameters."""
        super().__init__(spec, num_players, params)
        self.deck = ITALIAN_40
        self.points_total = POINTS_TOTAL
        self.card_points = THIRDS
        self.trick_strength = STRENGTH
        self.draw_pool = params["variant"] == "draw_pool"
        self.target = int(params["target"])
        self.by_difference = params["payment"] == "difference"
        self.max_redeals = int(params["max_redeals"])
        self.soloist_leads = params["first_lead"] == "soloist"

    def new_initial_state(self, seed: int, deal: DealInput = None) -> PozzoState:
        """A new match."""
        return PozzoState(self, seed, deal)


class PozzoState(State[PozzoGame]):
    """A match of Tressette con il pozzo in progress."""

    __slots__ = ("_called", "_contract", "_dealer", "_first", "_hand_number", "_hands",
                 "_holder", "_leader", "_monte", "_phase", "_redeals", "_scores", "_soloist",
                 "_spoken", "_stock", "_thirds", "_trick")


    def _start(self) -> None:
        """Deal the first hand."""
        self._hand_number = 0
        self._redeals = 0
        self._dealer = NUM_SEATS - 1
        self._scores = [0] * NUM_SEATS
        self._start_hand()

    # --- dealing and hand flow -------------------------------------------------------------

    def _start_hand(self) -> None:
        """Log the start of a hand and deal it."""
        self._event(EventKind.HAND_START, self._dealer, values=(self._hand_number,))
        self._deal()

    def _deal(self) -> None:
        """Shuffle (or take the injected order) and deal by packets from the dealer's right."""
        order = self._next_deal()
        first = NEXT_SEAT[self._dealer]
        self._first = first
        draw_pool = self.game.draw_pool
        if draw_pool:
            order.remove(REMOVED_FOUR)
        getters = _POOL_DEAL if draw_pool else _MONTE_DEAL
        hands: list[list[int]] = [[], [], []]
        for offset in range(NUM_SEATS):
            hands[(first + offset) % NUM_SEATS] = sorted(getters[offset](order))
        self._hands = hands
        if draw_pool:
            self._stock = order[POOL_DEALT:][::-1]
            self._monte = []
        else:
            self._stock = []
            self._monte = order[MONTE_DEALT:]
        self._trick: list[int] = []
        self._thirds = [0] * NUM_SEATS
        self._leader = first
        self._current = first
        self._soloist = -1
        self._contract = 0
        self._spoken = 0
        self._called = HIDDEN
        self._holder = -1
        self._phase = _PLAY_PHASE if draw_pool else Phase.BID
        for seat in range(NUM_SEATS):
            self._event(EventKind.DEAL, seat, tuple(hands[seat]), viewers=1 << seat)

    def _start_play(self) -> None:
        """The first trick: the dealer's right leads (or the soloist with ``first_lead``)."""
        self._phase = _PLAY_PHASE
        leader = self._soloist if self.game.soloist_leads else self._first
        self._leader = self._current = leader

    def _end_hand(self, last_winner: int) -> None:
        """Give the monte to the last trick's winner, score the hand, go on or end the match."""
        game = self.game
        if self._monte:
            monte = tuple(sorted(self._monte))
            thirds = sum(THIRDS[card] for card in monte)
            self._thirds[last_winner] += thirds
            self._event(EventKind.CAPTURE, last_winner, monte, (thirds,))
            self._monte = []
        left = (REMOVED_FOUR,) if game.draw_pool else ()
        self._event(EventKind.HAND_END, self._dealer, left, tuple(self._thirds))
        score = self._hand_score()
        self._event(EventKind.SCORE, self._dealer, values=tuple(score))
        scores = self._scores
        for seat in range(NUM_SEATS):
            scores[seat] += score[seat]
        best = max(scores)
        if best >= game.target:
            winners = [seat for seat in range(NUM_SEATS) if scores[seat] == best]
            outcome = side_outcome(winners, NUM_SEATS)
            self._returns = [float(value) for value in outcome]
            self._event(EventKind.MATCH_END, -1, values=tuple(outcome))
            self._phase = Phase.OVER
            self._current = TERMINAL
            return
        self._hand_number += 1
        self._redeals = 0
        self._dealer = NEXT_SEAT[self._dealer]
        self._start_hand()

    def _hand_score(self) -> list[int]:
        """Game points of the hand: own points (draw_pool), or the soloist's stake, zero-sum."""
        if self.game.draw_pool:
            return [thirds // 3 for thirds in self._thirds]
        soloist = self._soloist
        return contract_score(self._contract, soloist, self._thirds[soloist] // 3,
                              self.game.by_difference)

    # --- the auction and the exchange ------------------------------------------------------

    def _legal_bid(self) -> list[int]:
        """Pass, or any contract above the highest bid so far."""
        if (self._spoken == NUM_SEATS - 1 and self._soloist < 0
                and self._redeals >= self.game.max_redeals):
            return _FORCED_BID
        return _BID_LEGAL[self._contract]

    def _apply_bid(self, action: int) -> None:
        """Pass or bid; close the auction after three speakers or a solissimo."""
        seat = self._current
        if action == PASS:
            self._event(EventKind.PASS, seat)
        else:
            self._contract = action - PASS
            self._soloist = seat
            self._event(EventKind.BID, seat, values=(self._contract,))
        self._spoken += 1
        if self._spoken < NUM_SEATS and self._contract < SOLISSIMO - PASS:
            self._current = NEXT_SEAT[seat]
            return
        soloist = self._soloist
        if soloist < 0:
            self._dealer = NEXT_SEAT[self._dealer]
            self._redeals += 1
            self._event(EventKind.REDEAL, self._dealer)
            self._deal()
            return
        self._current = soloist
        if self._contract == CHIAMO - PASS:
            self._phase = Phase.CALL
        elif self._contract == SOLO - PASS:
            self._take_monte(public=False)
        else:
            self._start_play()

    def _take_monte(self, public: bool) -> None:
        """The soloist takes the monte (face up or unseen by the others) and must discard 4."""
        soloist = self._soloist
        monte = tuple(sorted(self._monte))
        self._event(EventKind.DRAW, soloist, monte, viewers=ALL_SEATS if public else 1 << soloist)
        hand = self._hands[soloist]
        hand.extend(monte)
        hand.sort()
        self._monte = []
        self._phase = Phase.DISCARD

    def _legal_call(self) -> list[int]:
        """Any card the soloist does not hold."""
        hand = set(self._hands[self._soloist])
        return [card for card in ALL_CARDS if card not in hand]

    def _apply_call(self, card: int) -> None:
        """Call a card: its holder hands it over, or it is in the monte and comes with it."""
        soloist = self._soloist
        self._called = card
        self._event(EventKind.CALL, soloist, (card,))
        for holder in range(NUM_SEATS):
            if card in self._hands[holder]:
                self._hands[holder].remove(card)
                insort(self._hands[soloist], card)
                self._holder = holder
                self._event(EventKind.SWAP, holder, (card,), (soloist,))
                self._phase = Phase.GIVE
                return
        self._take_monte(public=True)

    def _legal_give(self) -> list[int]:
        """Any card of the soloist but the one just called."""
        return [card for card in self._hands[self._soloist] if card != self._called]

    def _apply_give(self, card: int) -> None:
        """Give a card back, face up, to the called card's holder; then take the monte."""
        soloist = self._soloist
        self._hands[soloist].remove(card)
        insort(self._hands[self._holder], card)
        self._event(EventKind.SWAP, soloist, (card,), (self._holder,))
        self._take_monte(public=True)

    def _legal_discard(self) -> list[int]:
        """Any card of the soloist."""
        return self._hands[self._soloist]

    def _apply_discard(self, card: int) -> None:
        """Put a card face down on the table; after the fourth, play starts."""
        soloist = self._soloist
        self._hands[soloist].remove(card)
        self._monte.append(card)
        self._log.append(_DISCARD_ENTRY[soloist][card])
        if len(self._monte) == MONTE_SIZE:
            self._start_play()

    # --- play --------------------------------------------------------------------------------

    def _legal_play(self) -> list[int]:
        """The cards of the led suit in hand, else the whole hand; other phases dispatch."""
        if self._phase is not _PLAY_PHASE:
            return self._legal_other()
        hand = self._hands[self._current]  # kept sorted: a suit is one slice
        trick = self._trick
        if not trick:
            return hand
        start = SUIT_START[trick[0]]
        low = bisect_left(hand, start)
        high = bisect_left(hand, start + 10, low)
        return hand[low:high] if low < high else hand

    def _apply_play(self, action: int) -> None:
        """Play a card; resolve a full trick, draw from the stock, end the hand after the last.

        Other phases dispatch to their handlers.
        """
        if self._phase is not _PLAY_PHASE:
            self._apply_other(action)
            return
        card = action
        seat = self._current
        hands = self._hands
        hands[seat].remove(card)
        trick = self._trick
        trick.append(card)
        self._log.append(_PLAY_ENTRY[seat][card])
        if len(trick) < NUM_SEATS:
            self._current = NEXT_SEAT[seat]
            return
        first, second, third = trick
        keys = LED_KEYS[SUIT[first]]
        best, key = 0, keys[first]
        if keys[second] > key:
            best, key = 1, keys[second]
        if keys[third] > key:
            best = 2
        winner = (self._leader + best) % NUM_SEATS
        thirds = THIRDS[first] + THIRDS[second] + THIRDS[third]
        last = not hands[winner]
        if last:
            thirds += LAST_TRICK_THIRDS
        self._thirds[winner] += thirds
        self._log.append((_TRICK, winner, (first, second, third), (thirds,), ALL_SEATS))
        self._trick = []
        stock = self._stock
        if stock:
            drawer = winner
            for _ in range(NUM_SEATS):
                drawn = stock.pop()
                insort(hands[drawer], drawn)
                self._log.append(_DRAW_ENTRY[drawer][drawn])
                drawer = NEXT_SEAT[drawer]
        self._leader = self._current = winner
        if last:
            self._end_hand(winner)

    # Play is the hot path: its handlers are the entry points and dispatch the other phases.
    def _compute_legal(self) -> list[int]:
        """The legal actions: those of play."""
        return self._legal_play()

    def _apply(self, action: int) -> None:
        """Apply an action of play."""
        self._apply_play(action)


    def _legal_other(self) -> list[int]:
        """The legal actions of a phase other than play."""
        phase = self._phase
        if phase == Phase.BID:
            return self._legal_bid()
        if phase == Phase.CALL:
            return self._legal_call()
        if phase == Phase.GIVE:
            return self._legal_give()
        if phase == Phase.DISCARD:
            return self._legal_discard()
        return []

    def _apply_other(self, action: int) -> None:
        """Apply a legal action of a phase other than play."""
        phase = self._phase
        if phase == Phase.BID:
            self._apply_bid(action)
        elif phase == Phase.CALL:
            self._apply_call(action)
        elif phase == Phase.GIVE:
            self._apply_give(action)
        else:
            self._apply_discard(action)

    # --- views ------------------------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        """A bid name or a card's compact name (what a card action does depends on the phase)."""
        if PASS <= action < NUM_ACTIONS:
            return CONTRACT_NAMES[action - PASS]
        if not 0 <= action < ITALIAN_40.size:
            raise ValueError(f"{action} is not a {self.game.id} action (0..{NUM_ACTIONS - 1})")
        return ITALIAN_40.short(action)

    def action_meaning(self, action: int) -> ActionMeaning:
        """PASS, BID (value 1-3), or a card: CALL, GIVE, DISCARD or PLAY as the phase says; one
        shared instance per action and, for a card, phase (the game's ``meanings``, keyed by
        ``action * 6 + phase`` for a card, ``action * 6`` for a bid)."""
        meanings = self.game.meanings
        key = action * len(_CARD_KINDS) + (self._phase if action < PASS else 0)
        meaning = meanings.get(key)
        if meaning is None:
            meaning = meanings[key] = self._new_meaning(action)
        return meaning

    def _new_meaning(self, action: int) -> ActionMeaning:
        """The meaning of ``action`` in the current phase, made afresh."""
        label = self.action_to_string(action)
        if action >= PASS:
            if action == PASS:
                return ActionMeaning(ActionKind.PASS, label=label)
            return ActionMeaning(ActionKind.BID, value=action - PASS, label=label)
        kind = _CARD_KINDS[self._phase]
        if kind is ActionKind.CALL:
            return ActionMeaning(kind, cards=(action,), suit=SUIT[action],
                                 rank=ITALIAN_40.rank(action), label=label)
        return ActionMeaning(kind, cards=(action,), label=label)

    def observation(self, seat: int) -> Observation:
        """Own hand, the trick, the called card, public history and the running scores."""
        soloist = self._soloist
        if soloist < 0 or seat == soloist or self._phase == Phase.BID:
            teammates: tuple[int, ...] = ()
        else:
            teammates = tuple(s for s in range(NUM_SEATS) if s not in (seat, soloist))
        trick_seats = [(self._leader + i) % NUM_SEATS for i in range(len(self._trick))]
        return Observation(
            game=self.game.id,
            seat=seat,
            num_seats=NUM_SEATS,
            hand_number=self._hand_number,
            dealer=self._dealer,
            phase=self._phase.name.lower(),
            current_player=self._current,
            hand=tuple(self._hands[seat]),
            hand_sizes=tuple(len(hand) for hand in self._hands),
            trump_suit=NO_TRUMP,
            called_card=self._called,
            trick=tuple(zip(trick_seats, self._trick, strict=True)),
            stock_size=len(self._stock) + len(self._monte),
            teammates=teammates,
            points=tuple(self._thirds),
            scores=tuple(float(score) for score in self._scores),
            events=self._events_for(seat),
            legal_actions=tuple(self._compute_legal()) if seat == self._current else (),
        )


def _cross_check(players: int, values: dict[str, ParamValue]) -> str | None:
    """Calabresella-only options are an error with ``variant=draw_pool``."""
    if values["variant"] != "draw_pool":
        return None
    for name, default in (("payment", "difference"), ("first_lead", "dealer_right")):
        if values[name] != default:
            return f"parameter {name} applies to variant=calabresella only"
    return None


def _make(spec: GameSpec, players: int, params: dict[str, ParamValue]) -> Game:
    """The game factory."""
    return PozzoGame(spec, players, params)


SPECS = (
    GameSpec(
        id="tressette-pozzo", title="Tressette con il pozzo (Calabresella)", section="1.7",
        seats=(NUM_SEATS,),
        params=(
            Param("variant", "calabresella", "calabresella: auction, one soloist against two, "
                  "4-card monte; draw_pool: free-for-all drawing from a stock (39 cards)",
                  choices=("calabresella", "draw_pool")),
            Param("target", 21, "the match ends when a running score reaches this",
                  minimum=1, maximum=1000),
            Param("payment", "difference", "each defender pays the stake (chiamo 1, solo 2, "
                  "solissimo 3) times the difference of the sides' points, or the stake alone",
                  choices=("stake", "difference")),
            Param("first_lead", "dealer_right", "who leads the first trick of a Calabresella "
                  "hand", choices=("dealer_right", "soloist")),
            Param("max_redeals", 3, "after this many throw-ins in a row the last speaker may "
                  "not pass, so a match always ends", minimum=0, maximum=100),
        ),
        factory=_make, rules_version="3",
        summary="Calabresella: bid chiamo/solo/solissimo, 1 against 2, 6 of 11 points; to 21",
        cross_check=_cross_check,
        extra_configurations=(
            (3, (("variant", "draw_pool"),)),
            (3, (("payment", "stake"), ("first_lead", "soloist"))),
            (3, (("target", 5),)),
        ),
    ),
)
