"""Briscola chiamata: Marchigiano, Povo "a carta" and "a punti", the dead hand, two decks
(docs/games/chiamata.md).

Rules summary:
- Italian 40-card deck, briscola order A 3 R C F 7 6 5 4 2, points A 11, 3 10, R 4, C 3, F 2
  (120 a deck). The whole deck is dealt one card at a time from the dealer's right; there is no
  face-up card. 5 seats: 8 cards each; 6 seats: the four 2s are removed, 6 each; 8 seats: 5 each.
- Dead hand (``briscola-chiamata-morto``, and ``morto=true`` with two decks): an extra hand at
  table position n, between seat n-1 and seat 0. It never bids or deals, is dealt and plays in
  table order, and plays automatically: a uniformly random card of its hand (``morto_policy=
  random``: a play order drawn from the seeded generator at the deal) or its cards in the order
  dealt (``top_of_pile``).
  Its hand is hidden from everyone; its plays are public. 7 seats: 8 hands of 5; 4 seats: 5 of 8.
- Two decks (``briscola-chiamata-due-mazzi``): 80 cards, card id = copy * 40 + card; 8 seats get
  10 cards, 10 seats 8, 9 seats with ``morto=true`` make 10 hands of 8. When two identical cards
  meet the later one wins. 240 points; the base target is 121.
- The dealer's right (seat dealer+1, always a real seat) leads trick 1 whoever called; the
  trick winner leads next. No obligation to follow suit or to trump. Seat n-1 deals the first
  hand; the deal moves to dealer+1 each hand; a match is ``hands`` hands.
- Auction: real seats bid in turn from the dealer's right, skipping those who passed; a pass is
  final. The auction ends when one bidder remains and all others have passed.
  - Marchigiano (``briscola-chiamata``): a bid is a rank strictly lower in briscola order than the
    last one. Once the lowest rank (the 2; the 4 with 6 seats) has been bid, bids go on as
    "2 a 62", "2 a 63", ... up to 120 (two decks: from 122 to 240). The opener may pass. The
    winner then names the suit, publicly. All pass: the hand is thrown in and the next dealer
    deals (``all_pass=redeal``), or the dealer may not pass when all others have
    (``forced_dealer``). After ``max_redeals`` throw-ins in a row (default 3) the next auction
    is played as with ``forced_dealer``, so that a match always ends. ``allow_4_obbligato``:
    where a plain 2 is a legal bid, a holder of a 2 may bid "4 obbligato" instead: the level of
    the 2, calling the 4 of a suit whose 2 they hold.
  - Povo "a carta" (``briscola-chiamata-carta``): the same ladder, but the opener must bid. The
    suit stays secret: committed at auction end (``suit_choice=commit``, visible to the caller
    only) or chosen after trick 1 (``after_trick1``). In trick 1 every card of the called rank
    is played face down (``facedown_optional``: the player chooses); the dead hand plays face
    up. After the last card of trick 1 the suit is revealed, face-down cards are turned up, and
    the trick is resolved with the trump now known.
  - Povo "a punti" (``briscola-chiamata-punti``): point bids only; the opener bids 61 (two decks
    121) or more, then each bid raises, up to 120 (240). The winner names the full card.
  - ``briscola-chiamata-morto`` and ``-due-mazzi`` take ``auction={marchigiano,carta,punti}``.
- The called card's suit is trump. Every other holder of a copy of it is the caller's partner
  (two decks: 0, 1 or 2 partners). Calling a card one holds ("chiamarsi in mano") is allowed. A
  called dead hand is on the caller's side: its card points count for the caller.
- Target: the caller's side needs 61 card points (121 with two decks), or the point bid X
  ("2 a X", "a punti"): at least X (``bid_threshold=ge``) or more than X (``gt``). No ties.

Game points per hand, zero-sum, for D defending seats and P real partners (a called dead hand
is not scored and adds nothing to P): each defender -1 when the caller's side wins, +1 when it
loses; each real partner +1 / -1; the caller +(D - P) / -(D - P). With 5 seats: caller 2,
partner 1, defenders -1 each; a self-call: caller 4, defenders -1 each. Cappotto (the caller's
side or the defending seats take every card point) doubles it. ``bid_multiplier``: the target
61-70 x1, 71-80 x2, 81-90 x3, 91-100 x4, 101+ x5 (two decks: on the target minus 60).

Actions:
| id      | meaning                                                                    |
|---------|----------------------------------------------------------------------------|
| 0-79    | play that card (deck id; one deck uses 0-39); face down in Povo's trick 1  |
|         | when it has the called rank, unless ``facedown_optional``                   |
| 80      | pass                                                                       |
| 81-90   | bid a rank: 81 + rank index (A 81, 2 82, 3 83, ... F 88, C 89, R 90)        |
| 91      | bid "4 obbligato"                                                          |
| 100+X   | bid X points ("2 a X", or a Povo "a punti" bid), X up to 240                |
| 350-353 | name, commit or choose the suit: coppe, denari, bastoni, spade             |
| 360-399 | name the full called card ("a punti"): 360 + card id 0-39                  |
| 400-479 | play that card face down (400 + card id; only with ``facedown_optional``)  |

``action_meaning``: a card is PLAY, or PLAY_FACE_DOWN when it goes face down; 80 PASS; a bid is
BID with ``rank`` the called rank (-1 "a punti") and ``value`` its code (81-91) for a rank bid
or "4 obbligato", X for a point bid; 350-353 CALL with ``suit``; 360+ CALL with the card, its
suit and rank; 400+ PLAY_FACE_DOWN.

Events (besides the conventions of ``arena.games.api``): HAND_START carries the cards removed
from the deck (6 seats: the four 2s); BID values are ``(bid action,)``; CALL is a public called
card with values ``(trump suit,)``, followed by TRUMP; COMMIT is the Povo caller's secret card
and suit; after trick 1 a REVEAL with values ``(trump suit,)`` makes the commitment public and
a REVEAL without values turns up a face-down card. The dead hand uses table position n as the
seat of its DEAL (seen by nobody), PLAY and TRICK events; HAND_END ``values`` then has n+1
entries, the last the dead hand's card points, and the observation's ``hand_sizes``, ``points``
and ``trick`` seats likewise. A thrown-in hand logs REDEAL and a HAND_END listing every card
with zero points.

Observation: ``called_card`` (two decks: the copy-0 id) and ``trump_suit`` are HIDDEN until
public, except the Povo caller's own commitment. ``teammates`` lists only seats known to be on
the seat's side: a partner knows the caller once it knows the called card; the caller knows a
partner once that partner's copy is seen; defenders know each other once every copy of the
called card has been seen. Face-down cards are HIDDEN to all but their player until revealed.
"""

from __future__ import annotations

from dataclasses import replace
from enum import IntEnum
from math import factorial
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
    BRISCOLA_POINTS,
    BRISCOLA_STRENGTH,
    HIDDEN,
    ITALIAN_40,
    ITALIAN_80,
    ITALIAN_SUIT_NAMES_IT,
    Rank,
)
from arena.games.chiamata_auction import (
    AUCTIONS,
    BID_4_OBBLIGATO,
    BID_POINTS,
    CARTA,
    MARCHIGIANO,
    NO_BID,
    PASS,
    PUNTI,
    AuctionRules,
    bid_level,
    bid_name,
    bid_target,
    called_rank,
    is_bid,
    legal_bids,
    make_rules,
)
from arena.games.chiamata_scoring import score_hand
from arena.games.params import GameSpec, IllegalActionError, Param, ParamValue
from arena.games.tricks import trick_key_tables

NAME_SUIT = 350
NAME_CARD = 360
FACE_DOWN: Final = 400
NUM_ACTIONS: Final = 480
MAX_POSITIONS: Final = 11

SUIT: Final = ITALIAN_80.suit_table()
RANK: Final = ITALIAN_80.rank_table()
BASE: Final = tuple(ITALIAN_80.base(card) for card in ITALIAN_80.cards)
STRENGTH: Final = ITALIAN_80.per_card(BRISCOLA_STRENGTH)
POINTS: Final = ITALIAN_80.per_card(BRISCOLA_POINTS)
TRICK_KEYS: Final = trick_key_tables(SUIT, STRENGTH, ITALIAN_80.suits)

_TRICK: Final = EventKind.TRICK
_HAND_START: Final = EventKind.HAND_START
_DEAL: Final = EventKind.DEAL
_PASS: Final = EventKind.PASS
_BID: Final = EventKind.BID
_REDEAL: Final = EventKind.REDEAL
_HAND_END: Final = EventKind.HAND_END
_SCORE: Final = EventKind.SCORE
_MATCH_END: Final = EventKind.MATCH_END
_TRUMP: Final = EventKind.TRUMP
_CALL: Final = EventKind.CALL
_COMMIT: Final = EventKind.COMMIT
_REVEAL: Final = EventKind.REVEAL
_DEAL_VIEWERS: Final = tuple(1 << position for position in range(MAX_POSITIONS))
_PLAY_ENTRY: Final = play_entries(EventKind.PLAY, MAX_POSITIONS, ITALIAN_80.size)
_FACE_DOWN_ENTRY: Final = play_entries(EventKind.PLAY_FACE_DOWN, MAX_POSITIONS, ITALIAN_80.size,
                                private=True)
_ALL_SUITS: Final[tuple[int, ...]] = (0, 1, 2, 3)
_TWOS: Final = frozenset(c for c in ITALIAN_80.cards if RANK[c] == Rank.DUE)
_CARD_SHOWN: Final[tuple[EventKind, ...]] = (EventKind.PLAY, EventKind.PLAY_FACE_DOWN,
                                              EventKind.REVEAL)
"""Events that show who held a card (a REVEAL with values is the caller's commitment instead)."""


class Phase(IntEnum):
    """Phases of a hand; ``PLAY`` is 0 so the hot path tests it with one truth check."""

    PLAY = 0
    AUCTION = 1
    NAME_SUIT = 2
    NAME_CARD = 3
    FIRST_TRICK = 4
    CHOOSE_SUIT = 5
    OVER = 6


_PLAYING, _AUCTION, _NAME_SUIT, _NAME_CARD, _FIRST_TRICK, _CHOOSE_SUIT, _OVER = tuple(Phase)
"""The phases as module constants: an enum member lookup on the class is slow on a hot path."""


class ChiamataGame(Game):
    """One Briscola chiamata configuration: auction, seats, deck and dead hand fixed."""

    def __init__(self, spec: GameSpec, num_players: int, params: dict[str, ParamValue]) -> None:
        """Derive the table layout, the deck and the auction rules from the parameters."""
        super().__init__(spec, num_players, params)
        self.two_decks = spec.id == "briscola-chiamata-due-mazzi"
        self.deck = ITALIAN_80 if self.two_decks else ITALIAN_40
        self.total = 240 if self.two_decks else 120
        self.points_total = self.total
        self.card_points = POINTS[:self.deck.size]
        self.trick_strength = STRENGTH[:self.deck.size]
        self.auction = str(params.get("auction", _FIXED_AUCTION.get(spec.id, CARTA)))
        self.morto = spec.id == "briscola-chiamata-morto" or bool(params.get("morto", False))
        self.dead_hand = self.morto
        self.num_hands = num_players + (1 if self.morto else 0)
        removed: tuple[int, ...] = ()
        if num_players == 6 and not self.two_decks:
            removed = tuple(ITALIAN_40.card(suit, Rank.DUE) for suit in _ALL_SUITS)
        self.removed = removed
        self.hand_size = (self.deck.size - len(removed)) // self.num_hands
        self.rules: AuctionRules = make_rules(
            self.auction, bool(removed), self.two_decks,
            bool(params.get("allow_4_obbligato", True)),
            params.get("all_pass", "redeal") == "forced_dealer",
        )
        self.forced_rules = replace(self.rules, forced_dealer=True)
        """The auction once ``max_redeals`` hands in a row were thrown in."""
        self.max_redeals = int(params.get("max_redeals", _MAX_REDEALS.default))
        self.strict = params.get("bid_threshold", "ge") == "gt"
        self.scale_with_bid = bool(params.get("bid_multiplier", False))
        self.commit = params.get("suit_choice", "commit") == "commit"
        self.facedown_optional = bool(params.get("facedown_optional", False))
        self.morto_random = params.get("morto_policy", "random") == "random"
        self.hands = int(params.get("hands", 1))
        self.card_calls = [NAME_CARD + c for c in ITALIAN_40.cards if c not in removed]
        self._bid_cache: dict[tuple[int, bool, bool, bool], list[int]] = {}
        self.bid_levels = tuple(bid_level(self.rules, a) if is_bid(self.rules, a) else NO_BID
                                for a in range(NAME_SUIT))

    def legal_bids(self, high: int, holds_two: bool, alone: bool, forced: bool) -> list[int]:
        """The legal auction actions (a shared list, computed once per situation).

        ``forced``: the auction after ``max_redeals`` throw-ins, where the last bidder must bid.
        """
        key = (high, holds_two, alone, forced)
        legal = self._bid_cache.get(key)
        if legal is None:
            rules = self.forced_rules if forced else self.rules
            legal = self._bid_cache[key] = legal_bids(rules, high, holds_two, alone)
        return legal

    def new_initial_state(self, seed: int, deal: DealInput = None) -> ChiamataState:
        """A new match."""
        return ChiamataState(self, seed, deal)


class ChiamataState(State[ChiamataGame]):
    """A Briscola chiamata match in progress."""

    __slots__ = ("_bidder", "_called", "_called_rank", "_caller", "_dealer", "_dealt",
                 "_face_down", "_hand_log_start", "_hand_number", "_hands", "_high",
                 "_high_action", "_leader", "_m", "_morto_partner", "_n", "_obbligato_suits",
                 "_partners", "_passed", "_phase", "_points", "_public", "_redeals", "_target",
                 "_trick", "_trump")


    def _start(self) -> None:
        """Deal the first hand."""
        game = self.game
        self._n = game.num_players
        self._m = game.num_hands
        self._hand_number = 0
        self._redeals = 0
        self._dealer = game.num_players - 1
        self._start_hand()

    # --- dealing and hand flow -------------------------------------------------------------

    def _start_hand(self) -> None:
        """Deal the whole deck one card at a time from the dealer's right and open the auction."""
        game = self.game
        n, m = self._n, self._m
        order = self._next_deal()
        if game.removed:
            order = [card for card in order if card not in game.removed]
        first = (self._dealer + 1) % n
        hands: list[list[int]] = [[] for _ in range(m)]
        for index in range(m):
            position = (first + index) % m
            cards = order[index::m]
            hands[position] = cards if position == n else sorted(cards)
        self._hands = hands
        self._dealt = dealt = tuple(map(tuple, hands))
        if m > n:
            hands[n] = self._morto_pile(hands[n])
        self._trick: list[int] = []
        self._face_down: list[int] = []
        self._points = [0] * m
        self._passed = [False] * n
        self._high = NO_BID
        self._high_action = NO_BID
        self._bidder = -1
        self._caller = -1
        self._called_rank = -1
        self._called = -1
        self._trump = -1
        self._public = False
        self._target = 0
        self._partners: tuple[int, ...] = ()
        self._morto_partner = False
        self._obbligato_suits: tuple[int, ...] = _ALL_SUITS
        self._leader = first
        self._current = first
        self._phase = _AUCTION
        log = self._log
        self._hand_log_start = len(log)
        log.append((_HAND_START, self._dealer, game.removed, (self._hand_number,), ALL_SEATS))
        for position in range(m):
            log.append((_DEAL, position, dealt[position], (), _DEAL_VIEWERS[position] if
                        position < n else 0))

    def _redeal(self) -> None:
        """Everyone passed: throw the hand in; the next dealer deals again."""
        self._event(_REDEAL, self._dealer)
        self._event(_HAND_END, self._dealer, tuple(self.game.deck.cards),
                    (0,) * self._m)
        self._dealer = (self._dealer + 1) % self._n
        self._redeals += 1
        self._start_hand()

    def _end_hand(self) -> None:
        """Score the hand, then deal the next one or end the match."""
        game = self.game
        n = self._n
        points = self._points
        self._event(_HAND_END, self._dealer, game.removed, tuple(points))
        caller, partners = self._caller, self._partners
        team = points[caller]
        for partner in partners:
            team += points[partner]
        defending = sum(points[:n]) - team
        side = team + points[n] if self._morto_partner else team
        result = score_hand(n, caller, partners, side, defending, game.total,
                            self._target, game.strict, game.scale_with_bid, game.two_decks)
        self._event(_SCORE, self._dealer, values=result.scores)
        returns = self._returns
        for seat, value in enumerate(result.scores):
            returns[seat] += value
        self._hand_number += 1
        if self._hand_number >= game.hands:
            self._phase = _OVER
            self._current = TERMINAL
            self._event(_MATCH_END, -1, values=tuple(map(int, self._returns)))
            return
        self._dealer = (self._dealer + 1) % n
        self._redeals = 0
        self._start_hand()

    # --- the auction and the call -------------------------------------------------------------

    def _apply_auction(self, action: int) -> None:
        """A pass or a bid; close the auction when one bidder is left."""
        seat = self._current
        if action == PASS:
            self._passed[seat] = True
            self._log.append((_PASS, seat, (), (), ALL_SEATS))
        else:
            self._high = self.game.bid_levels[action]
            self._high_action = action
            self._bidder = seat
            self._log.append((_BID, seat, (), (action,), ALL_SEATS))
        passed = self._passed
        remaining = passed.count(False)
        if remaining == 0:
            self._redeal()
        elif remaining == 1 and self._high != NO_BID:
            self._auction_won(self._bidder)
        else:
            n = self._n
            nxt = (seat + 1) % n
            while passed[nxt]:
                nxt = (nxt + 1) % n
            self._current = nxt

    def _auction_won(self, caller: int) -> None:
        """Fix the caller, the called rank and the target; ask for the suit or the card."""
        game = self.game
        rules = game.rules
        action = self._high_action
        self._caller = caller
        self._called_rank = called_rank(rules, action)
        self._target = bid_target(rules, action)
        if action == BID_4_OBBLIGATO:
            self._obbligato_suits = tuple(sorted({SUIT[c] for c in self._hands[caller]
                                                  if RANK[c] == Rank.DUE}))
        if game.auction == PUNTI:
            self._phase = _NAME_CARD
            self._current = caller
        elif game.auction == MARCHIGIANO or game.commit:
            self._phase = _NAME_SUIT
            self._current = caller
        else:
            self._start_play()

    def _fix_called(self, card: int) -> None:
        """Set the called card (its copy-0 id) and trump, and find the partners."""
        self._called = card
        self._trump = SUIT[card]
        caller, n = self._caller, self._n
        copy = card + ITALIAN_40.size
        holders = [p for p, dealt in enumerate(self._dealt)
                   if p != caller and (card in dealt or copy in dealt)]
        self._partners = tuple(p for p in holders if p < n)
        self._morto_partner = n in holders

    def _announce(self, kind: EventKind) -> None:
        """Log the called card as public (CALL or REVEAL) and the trump suit."""
        self._public = True
        self._event(kind, self._caller, (self._called,), (self._trump,))
        self._event(_TRUMP, self._caller, values=(self._trump,))

    def _apply_suit(self, action: int) -> None:
        """Name (Marchigiano), commit (Povo) or choose after trick 1 the suit of the called rank."""
        card = ITALIAN_40.card(action - NAME_SUIT, self._called_rank)
        self._fix_called(card)
        if self._phase == _CHOOSE_SUIT:
            self._announce(_CALL)
            self._turn_up_first_trick()
            return
        if self.game.auction == MARCHIGIANO:
            self._announce(_CALL)
        else:
            self._event(_COMMIT, self._caller, (card,), (self._trump,),
                        viewers=1 << self._caller)
        self._start_play()

    def _apply_card_call(self, action: int) -> None:
        """Name the full called card ("a punti")."""
        card = action - NAME_CARD
        self._called_rank = RANK[card]
        self._fix_called(card)
        self._announce(_CALL)
        self._start_play()

    def _start_play(self) -> None:
        """The dealer's right leads trick 1."""
        self._phase = _FIRST_TRICK if self.game.auction == CARTA else _PLAYING
        first = (self._dealer + 1) % self._n
        self._leader = first
        self._current = first

    # --- play -----------------------------------------------------------------------------------

    def _play_first_trick(self, action: int) -> None:
        """A card in Povo's trick 1: cards of the called rank go face down."""
        game = self.game
        seat = self._current
        card = action - FACE_DOWN if action >= FACE_DOWN else action
        self._hands[seat].remove(card)
        trick = self._trick
        down = action >= FACE_DOWN or (RANK[card] == self._called_rank
                                       and not game.facedown_optional)
        if down:
            self._face_down.append(len(trick))
            self._log.append(_FACE_DOWN_ENTRY[seat][card])
        else:
            self._log.append(_PLAY_ENTRY[seat][card])
        trick.append(card)
        self._after_card(seat)

    def _after_card(self, position: int) -> None:
        """Pass the turn on (the dead hand plays at once) or complete the trick."""
        if len(self._trick) == self._m:
            self._trick_complete()
            return
        nxt = position + 1
        if nxt == self._m:
            nxt = 0
        if nxt == self._n:
            self._morto_turn()
        else:
            self._current = nxt

    def _morto_pile(self, cards: list[int]) -> list[int]:
        """The dead hand's cards in reverse play order: as dealt, or a seeded uniform shuffle.

        The shuffle is one draw of a permutation index, so every play is a uniformly random card
        of what the dead hand still holds; it depends only on positions in the deal, never on
        which cards they hold.
        """
        if not self.game.morto_random:
            return cards[::-1]
        code = self.rng.below(factorial(len(cards)))
        remaining = cards[:]
        order = []
        for size in range(len(cards), 0, -1):
            code, index = divmod(code, size)
            order.append(remaining.pop(index))
        order.reverse()
        return order

    def _morto_turn(self) -> None:
        """The dead hand plays the next card of its pile, face up."""
        n = self._n
        card = self._hands[n].pop()
        self._trick.append(card)
        self._log.append(_PLAY_ENTRY[n][card])
        self._after_card(n)

    def _trick_complete(self) -> None:
        """Resolve a full trick, or in Povo's trick 1 reveal the suit first."""
        if self._phase == _FIRST_TRICK:
            if self._called < 0:
                self._phase = _CHOOSE_SUIT
                self._current = self._caller
                return
            self._announce(_REVEAL)
            self._turn_up_first_trick()
            return
        self._resolve_trick()

    def _turn_up_first_trick(self) -> None:
        """Turn up the face-down cards of trick 1 and resolve it with the known trump."""
        m = self._m
        for index in self._face_down:
            self._event(_REVEAL, (self._leader + index) % m, (self._trick[index],))
        self._face_down = []
        self._phase = _PLAYING
        self._resolve_trick()

    def _resolve_trick(self) -> None:
        """Give the trick to its winner (the later of identical cards wins), who leads next."""
        trick = self._trick
        m = self._m
        keys = TRICK_KEYS[self._trump][SUIT[trick[0]]]
        best, best_key, points = 0, keys[trick[0]], 0
        for index in range(m):
            card = trick[index]
            points += POINTS[card]
            key = keys[card]
            if key >= best_key:
                best, best_key = index, key
        winner = (self._leader + best) % m
        self._points[winner] += points
        self._log.append((_TRICK, winner, tuple(trick), (points,), ALL_SEATS))
        self._trick = []
        self._leader = winner
        if not self._hands[winner]:
            self._end_hand()
        elif winner == self._n:
            self._morto_turn()
        else:
            self._current = winner

    # --- the API, with a fast path for normal play ---------------------------------------------

    def is_terminal(self) -> bool:
        """True once the match is over."""
        return self._phase == _OVER

    def legal_actions(self) -> list[int]:
        """The legal actions of the player to act, sorted (in normal play: the hand)."""
        if self._phase:
            legal = self._legal
            if legal is None:
                legal = self._legal = self._legal_other()
            return legal[:]
        return self._hands[self._current][:]

    def apply_action(self, action: int) -> None:
        """Play an action; an illegal one raises and leaves the state unchanged."""
        if self._phase:
            legal = self._legal
            if legal is None:
                legal = self._legal_other()
            if action not in legal:
                raise IllegalActionError(self._illegal_message(action, legal))
            self._legal = None
            self._actions.append(action)
            if self._phase == _AUCTION:
                self._apply_auction(action)
            else:
                self._apply_other(action)
            return
        hand = self._hands[self._current]
        if action not in hand:
            raise IllegalActionError(self._illegal_message(action, hand))
        self._actions.append(action)
        self._apply(action)

    def _compute_legal(self) -> list[int]:
        """The hand itself in normal play; otherwise per phase."""
        if self._phase:
            return self._legal_other()
        return self._hands[self._current]

    def _legal_other(self) -> list[int]:
        """Legal actions outside normal play, sorted; shared lists that callers must not change."""
        phase = self._phase
        seat = self._current
        if phase == _AUCTION:
            return self.game.legal_bids(self._high, not _TWOS.isdisjoint(self._hands[seat]),
                                        self._passed.count(False) == 1,
                                        self._redeals >= self.game.max_redeals)
        if phase in (_NAME_SUIT, _CHOOSE_SUIT):
            return [NAME_SUIT + suit for suit in self._obbligato_suits]
        if phase == _NAME_CARD:
            return self.game.card_calls
        if phase == _FIRST_TRICK:
            hand = self._hands[seat]
            if not self.game.facedown_optional:
                return hand
            rank = self._called_rank
            return [*hand, *(FACE_DOWN + c for c in hand if RANK[c] == rank)]
        return []

    def _apply(self, action: int) -> None:
        """Play a card on the hot path; other phases dispatch to their handlers."""
        if self._phase:
            self._apply_other(action)
            return
        position = self._current
        self._hands[position].remove(action)
        trick = self._trick
        trick.append(action)
        self._log.append(_PLAY_ENTRY[position][action])
        if len(trick) < self._m:
            nxt = position + 1
            if nxt == self._m:
                nxt = 0
            if nxt == self._n:
                self._morto_turn()
            else:
                self._current = nxt
        else:
            self._resolve_trick()

    def _apply_other(self, action: int) -> None:
        """Apply a legal action outside normal play."""
        phase = self._phase
        if phase == _AUCTION:
            self._apply_auction(action)
        elif phase == _FIRST_TRICK:
            self._play_first_trick(action)
        elif phase == _NAME_CARD:
            self._apply_card_call(action)
        else:
            self._apply_suit(action)

    # --- views ------------------------------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        """A card's compact name, a bid, a suit, a called card or a face-down play."""
        game = self.game
        size = game.deck.size
        if 0 <= action < size:
            return game.deck.short(action)
        if action == PASS or is_bid(game.rules, action):
            return bid_name(game.rules, action)
        if NAME_SUIT <= action < NAME_SUIT + 4:
            return f"suit {ITALIAN_SUIT_NAMES_IT[action - NAME_SUIT]}"
        if NAME_CARD <= action < NAME_CARD + ITALIAN_40.size:
            return f"call {ITALIAN_40.short(action - NAME_CARD)}"
        if FACE_DOWN <= action < FACE_DOWN + size:
            return f"face down {game.deck.short(action - FACE_DOWN)}"
        raise ValueError(f"{action} is not a {game.id} action (0..{NUM_ACTIONS - 1})")

    def action_meaning(self, action: int) -> ActionMeaning:
        """PLAY or PLAY_FACE_DOWN (as the card goes), PASS, BID, CALL of a suit or a card; one
        shared instance per action and way the card goes (the game's ``meanings``, keyed by
        ``2 * action + 1`` for a card that goes face down, ``2 * action`` otherwise)."""
        game = self.game
        down = (action < game.deck.size and self._phase == _FIRST_TRICK
                and not game.facedown_optional and RANK[action] == self._called_rank)
        key = 2 * action + down
        meaning = game.meanings.get(key)
        if meaning is None:
            meaning = game.meanings[key] = self._new_meaning(action, down)
        return meaning

    def _new_meaning(self, action: int, down: bool) -> ActionMeaning:
        """The meaning of ``action``, made afresh (``down``: a card that goes face down)."""
        label = self.action_to_string(action)
        game = self.game
        if action < game.deck.size:
            kind = ActionKind.PLAY_FACE_DOWN if down else ActionKind.PLAY
            return ActionMeaning(kind, cards=(action,), label=label)
        if action == PASS:
            return ActionMeaning(ActionKind.PASS, label=label)
        if action < NAME_SUIT:
            value = action - BID_POINTS if action > BID_POINTS else action
            rank = int(called_rank(game.rules, action))
            return ActionMeaning(ActionKind.BID, value=value, rank=rank, label=label)
        if action < NAME_CARD:
            return ActionMeaning(ActionKind.CALL, suit=action - NAME_SUIT, label=label)
        if action < FACE_DOWN:
            card = action - NAME_CARD
            return ActionMeaning(ActionKind.CALL, cards=(card,), suit=SUIT[card], rank=RANK[card],
                                 label=label)
        return ActionMeaning(ActionKind.PLAY_FACE_DOWN, cards=(action - FACE_DOWN,), label=label)

    def _knows_called(self, seat: int) -> bool:
        """True when ``seat`` knows the called card: it is public, or the seat is the caller."""
        return self._called >= 0 and (self._public or seat == self._caller)

    def _teammates(self, seat: int) -> tuple[int, ...]:
        """The seats ``seat`` knows to be on its side, from its own cards and what it has seen."""
        if self._caller < 0 or not self._knows_called(seat):
            return ()
        called, caller, n = self._called, self._caller, self._n
        own = {c for c in self._dealt[seat] if BASE[c] == called}
        accounted = set(own)
        shown: set[int] = set()
        bit = 1 << seat
        for kind, who, cards, values, viewers in self._log[self._hand_log_start:]:
            if (kind in _CARD_SHOWN and not values and (viewers == ALL_SEATS or viewers & bit)
                    and BASE[cards[0]] == called):
                accounted.add(cards[0])
                if who != caller:
                    shown.add(who)
        if seat == caller:
            return tuple(sorted(p for p in shown if p < n))
        if own:
            return tuple(sorted(p for p in {caller, *shown} if p < n and p != seat))
        if len(accounted) < self.game.deck.copies:
            return ()
        return tuple(s for s in range(n) if s not in shown and s not in (caller, seat))

    def observation(self, seat: int) -> Observation:
        """Own hand, the trick (face-down cards hidden), the called card and trump once known."""
        game = self.game
        m = self._m
        knows = self._knows_called(seat)
        hidden: set[int] = set() if self._phase not in (_FIRST_TRICK, _CHOOSE_SUIT) else {
            index for index in self._face_down if (self._leader + index) % m != seat}
        trick = tuple(((self._leader + index) % m, HIDDEN if index in hidden else card)
                      for index, card in enumerate(self._trick))
        phase = _PLAYING if self._phase == _FIRST_TRICK else self._phase
        return Observation(
            game=game.id,
            seat=seat,
            num_seats=self._n,
            hand_number=self._hand_number,
            dealer=self._dealer,
            phase=phase.name.lower(),
            current_player=self._current,
            hand=tuple(sorted(self._hands[seat])),
            hand_sizes=tuple(len(h) for h in self._hands),
            trump_suit=self._trump if knows else HIDDEN,
            called_card=self._called if knows else HIDDEN,
            trick=trick,
            teammates=self._teammates(seat),
            points=tuple(self._points),
            scores=tuple(self._returns),
            events=self._events_for(seat),
            legal_actions=tuple(self._compute_legal()) if seat == self._current else (),
        )

    # --- for tests and tools -----------------------------------------------------------------

    def caller(self) -> int:
        """The caller's seat, or -1 during the auction (never shown to a bot)."""
        return self._caller

    def partners(self) -> tuple[int, ...]:
        """The real seats holding the called card, besides the caller (never shown to a bot)."""
        return self._partners

    def morto_is_partner(self) -> bool:
        """True when the dead hand holds the called card (never shown to a bot)."""
        return self._morto_partner


_FIXED_AUCTION = {
    "briscola-chiamata": MARCHIGIANO,
    "briscola-chiamata-carta": CARTA,
    "briscola-chiamata-punti": PUNTI,
}

_HANDS = Param("hands", 1, "hands in a match; the dealer moves to the right each hand",
               minimum=1, maximum=1000)
_THRESHOLD = Param("bid_threshold", "ge", "a point bid X needs at least X (ge) or more than X "
                   "(gt) card points", choices=("ge", "gt"))
_MULTIPLIER = Param("bid_multiplier", False, "scale game points with the target: 61-70 x1, "
                    "71-80 x2, 81-90 x3, 91-100 x4, 101+ x5")
_ALL_PASS = Param("all_pass", "redeal", "when everyone passes: the next dealer deals again, or "
                  "the dealer may not pass", choices=("redeal", "forced_dealer"))
_MAX_REDEALS = Param("max_redeals", 3, "with all_pass=redeal: after this many throw-ins in a "
                     "row the last bidder may not pass, so a match always ends",
                     minimum=0, maximum=100)
_OBBLIGATO = Param("allow_4_obbligato", True, "a holder of a 2 may bid the 4 of a suit whose 2 "
                   "they hold at the level of the 2")
_SUIT_CHOICE = Param("suit_choice", "commit", "Povo: the caller commits the suit secretly at "
                     "auction end, or chooses it after trick 1",
                     choices=("commit", "after_trick1"))
_FACEDOWN = Param("facedown_optional", False, "Povo: a card of the called rank in trick 1 may "
                  "be played face up or face down")
_AUCTION_PARAM = Param("auction", CARTA, "the auction: Marchigiano ranks, Povo a carta, Povo "
                       "a punti", choices=AUCTIONS)
_MORTO_POLICY = Param("morto_policy", "random", "the dead hand plays a random card, or its "
                      "cards in the order dealt", choices=("random", "top_of_pile"))
_MORTO = Param("morto", False, "add a dead hand (9 seats: 10 hands of 8)")

_SCORING = (_HANDS, _THRESHOLD, _MULTIPLIER)
_RANK_AUCTION = (_OBBLIGATO,)
_POVO = (_SUIT_CHOICE, _FACEDOWN)
_ANY_AUCTION = (_AUCTION_PARAM, *_SCORING, _ALL_PASS, _MAX_REDEALS, _OBBLIGATO, *_POVO,
                _MORTO_POLICY)


def _make(spec: GameSpec, players: int, params: dict[str, ParamValue]) -> Game:
    """The game factory."""
    return ChiamataGame(spec, players, params)


def _two_decks_check(seats: int, params: dict[str, ParamValue]) -> str | None:
    """9 seats need the dead hand; 8 and 10 seats must not have one."""
    if seats == 9 and not params.get("morto"):
        return ("9 players need morto=true (9 seats and the dead hand make 10 hands of 8); "
                "without it play with 8 or 10")
    if seats != 9 and params.get("morto"):
        return f"morto=true needs 9 players, not {seats} (8 and 10 seats play without it)"
    return None


SPECS = (
    GameSpec(
        id="briscola-chiamata", title="Briscola chiamata (Marchigiano)", section="1.4",
        seats=(5, 6, 8), params=(*_SCORING, _ALL_PASS, _MAX_REDEALS, *_RANK_AUCTION),
        factory=_make, rules_version="3",
        summary="descending rank auction, then 2 a 62...; the caller names the trump suit; "
                "caller and the called card's holder against the rest",
        extra_configurations=(
            (5, (("all_pass", "forced_dealer"), ("hands", 2))),
            (6, (("bid_threshold", "gt"), ("bid_multiplier", True))),
            (5, (("allow_4_obbligato", False), ("hands", 3))),
        ),
    ),
    GameSpec(
        id="briscola-chiamata-carta", title="Briscola chiamata a carta (Povo)", section="1.4",
        seats=(5, 6, 8), params=(*_SCORING, *_RANK_AUCTION, *_POVO), factory=_make,
        summary="the opener must bid a rank; the suit stays secret and cards of the called "
                "rank go face down in trick 1",
        extra_configurations=(
            (5, (("suit_choice", "after_trick1"),)),
            (5, (("facedown_optional", True), ("hands", 2))),
            (6, (("suit_choice", "after_trick1"), ("facedown_optional", True))),
        ),
    ),
    GameSpec(
        id="briscola-chiamata-punti", title="Briscola chiamata a punti (Povo)", section="1.4",
        seats=(5, 6, 8), params=_SCORING, factory=_make,
        summary="point auction from 61 to 120; the winner names the full called card",
        extra_configurations=((5, (("bid_threshold", "gt"), ("bid_multiplier", True),
                                   ("hands", 2))),),
    ),
    GameSpec(
        id="briscola-chiamata-morto", title="Briscola chiamata con il morto", section="1.4",
        seats=(7, 4), params=_ANY_AUCTION, factory=_make, rules_version="3",
        summary="a dead hand is dealt, plays blind and can be called",
        extra_configurations=(
            (7, (("morto_policy", "top_of_pile"), ("auction", MARCHIGIANO))),
            (4, (("auction", PUNTI),)),
            (7, (("suit_choice", "after_trick1"), ("hands", 2))),
        ),
    ),
    GameSpec(
        id="briscola-chiamata-due-mazzi", title="Briscola chiamata con due mazzi",
        section="1.4", seats=(8, 10, 9), params=(*_ANY_AUCTION, _MORTO), factory=_make,
        rules_version="3",
        summary="two decks, 121 of 240; the later of identical cards wins; 1 or 2 partners",
        cross_check=_two_decks_check,
        extra_configurations=(
            (9, (("morto", True),)),
            (8, (("auction", MARCHIGIANO),)),
            (10, (("auction", PUNTI),)),
        ),
    ),
)
