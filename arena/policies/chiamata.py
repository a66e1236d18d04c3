"""Heuristic for Briscola chiamata: bid on a strong suit, call its best missing card."""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.api import EventKind, Game, Observation
from arena.games.cards import HIDDEN, ITALIAN_40, Rank
from arena.games.chiamata import (
    FACE_DOWN,
    NAME_CARD,
    NAME_SUIT,
    POINTS,
    RANK,
    STRENGTH,
    SUIT,
    ChiamataGame,
)
from arena.games.chiamata_auction import (
    BID_4_OBBLIGATO,
    BID_POINTS,
    BID_RANK,
    PASS,
    RANK_LEVEL,
)
from arena.policies.trick_play import choose_card

BID_FLOOR = 34
"""Suit value an 8-card hand needs to call an ace (scaled to the hand size); each lower rank
called needs ``LEVEL_COST`` more."""
LEVEL_COST = 3
POINTS_PER_VALUE = 2
"""Point bids allowed above the base target per unit of suit value beyond the floor."""


def suit_value(hand: Sequence[int], suit: int) -> int:
    """How good ``suit`` is as trump for this hand: its cards and points, plus side aces."""
    value = 0
    for card in hand:
        if SUIT[card] == suit:
            value += 5 + POINTS[card]
        elif RANK[card] == Rank.ASSO:
            value += 5
    return value


def missing_ranks(hand: Sequence[int], suit: int) -> list[int]:
    """Ranks of ``suit`` not in the hand, strongest first (briscola order)."""
    held = {RANK[card] for card in hand if SUIT[card] == suit}
    return sorted((r for r in range(10) if r not in held), key=lambda r: RANK_LEVEL[r])


def bid_level(action: int) -> int:
    """The level of a rank bid (4 obbligato counts as the 2)."""
    return RANK_LEVEL[Rank.DUE if action == BID_4_OBBLIGATO else action - BID_RANK]


class HeuristicPolicy:
    """Passes weak hands, bids the cheapest sound call, and plays sensible tricks."""

    def __init__(self, game: Game, seat: int, seed: int) -> None:
        """Remember the seat and the base target of the game; the policy is deterministic."""
        self.seat = seat
        self.two_decks = game.deck.copies > 1
        self.base = 121 if self.two_decks else 61
        self.lowest_rank = game.rules.lowest_rank if isinstance(game, ChiamataGame) else Rank.DUE

    def act(self, observation: Observation) -> int:
        """Choose by phase: a bid, a suit, a called card, or a card to play."""
        legal = observation.legal_actions
        phase = observation.phase
        if phase == "auction":
            return self._bid(observation.hand, legal)
        if phase in ("name_suit", "choose_suit"):
            return self._suit(observation, legal)
        if phase == "name_card":
            return self._card_call(observation.hand, legal)
        return self._play(observation, legal)

    def _best_suit(self, hand: Sequence[int]) -> tuple[int, int]:
        """(value, suit) of the hand's best trump suit."""
        return max((suit_value(hand, suit), suit) for suit in range(4))

    def _bid(self, hand: Sequence[int], legal: Sequence[int]) -> int:
        """The cheapest sound bid, or pass; a forced opener makes the cheapest bid."""
        value, suit = self._best_suit(hand)
        floor = BID_FLOOR * len(hand) // 8
        can_pass = PASS in legal
        rank_bids = [a for a in legal if BID_RANK <= a <= BID_4_OBBLIGATO]
        point_bids = [a for a in legal if a >= BID_POINTS]
        sound = [a for a in rank_bids if a != BID_4_OBBLIGATO
                 and a - BID_RANK in missing_ranks(hand, suit)
                 and value >= floor + LEVEL_COST * RANK_LEVEL[a - BID_RANK]]
        if sound:
            return min(sound, key=bid_level)
        if point_bids and not rank_bids:
            limit = self.base + POINTS_PER_VALUE * (value - floor - LEVEL_COST * 9)
            if point_bids[0] - BID_POINTS <= limit or not can_pass:
                return point_bids[0]
        if not can_pass:
            return min(rank_bids, key=bid_level) if rank_bids else point_bids[0]
        return PASS

    def _suit(self, observation: Observation, legal: Sequence[int]) -> int:
        """The best trump suit, avoiding a self-call unless it is much better."""
        hand = observation.hand
        rank = self._called_rank(observation)

        def score(action: int) -> int:
            """Suit value, less a penalty when the caller holds the called card."""
            suit = action - NAME_SUIT
            holds = any(SUIT[c] == suit and RANK[c] == rank for c in hand)
            return suit_value(hand, suit) - (15 if holds else 0)

        return max(legal, key=score)

    def _called_rank(self, observation: Observation) -> int:
        """The rank won in the auction, from the last public bid."""
        bids = [e.values[0] for e in observation.events if e.kind == EventKind.BID and e.values]
        last = bids[-1] if bids else PASS
        if last == BID_4_OBBLIGATO:
            return Rank.QUATTRO
        if BID_RANK <= last < BID_4_OBBLIGATO:
            return last - BID_RANK
        return self.lowest_rank

    def _card_call(self, hand: Sequence[int], legal: Sequence[int]) -> int:
        """"A punti": call the strongest card of the best suit that the hand lacks."""
        _, suit = self._best_suit(hand)
        for rank in missing_ranks([c % 40 for c in hand], suit):
            action = NAME_CARD + ITALIAN_40.card(suit, rank)
            if action in legal:
                return action
        return legal[0]

    def _play(self, observation: Observation, legal: Sequence[int]) -> int:
        """A rule-of-thumb card; cards that may go face down do."""
        seat = observation.seat
        friends = {seat, *observation.teammates}
        cards = [a for a in legal if a < FACE_DOWN]
        trick = [(s, c) for s, c in observation.trick if c != HIDDEN]
        positions = len(observation.hand_sizes)
        later = [(seat + k) % positions
                 for k in range(1, positions - len(observation.trick))]
        foes_after = sum(1 for s in later if s not in friends)
        trump = observation.trump_suit
        card = choose_card(cards, trick, friends, foes_after, SUIT, STRENGTH, POINTS, trump)
        return FACE_DOWN + card if FACE_DOWN + card in legal else card
