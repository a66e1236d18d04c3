"""Heuristic for Misère: bid the tricks the hand is likely to take, then play to make the bid."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.games.api import EventKind, Game, Observation
from arena.games.misere import BID_BASE, KINDS, MAX_HAND, STRENGTHS, SUIT, DealKind
from arena.games.tricks import NO_TRUMP, beats
from arena.policies.trick_play import events_this_hand

TOP = MAX_HAND - 1
"""Strength of the highest rank of a suit."""
SIDE_HONOURS = ((0.95, 0.95), (0.3, 0.75), (0.0, 0.35))
"""Tricks expected from a side suit's top three ranks: (when the suit is short, when long)."""
TRUMP_HONOURS = (1.0, 0.9, 0.65, 0.4)
"""Tricks expected from the four highest trumps, when the trump suit is long enough."""
SCALE = 1.2
"""Every trick goes to someone: in self-play, counting high cards alone underbids by this."""


@dataclass
class DealView:
    """What the policy reads from the public history of the current deal."""

    bid: int | None = None
    played: set[int] = field(default_factory=set)
    void_suits: set[int] = field(default_factory=set)
    """Suits some other seat is known to be void in (it did not follow them)."""


def read_deal(observation: Observation) -> DealView:
    """The seat's bid, the cards played and the known voids of the current deal."""
    view = DealView()
    lead_suit = -1
    plays_in_trick = 0
    for event in events_this_hand(observation):
        if event.kind == EventKind.BID and event.seat == observation.seat:
            view.bid = event.values[0]
        elif event.kind == EventKind.PLAY:
            card = event.cards[0]
            view.played.add(card)
            if plays_in_trick == 0:
                lead_suit = SUIT[card]
            elif SUIT[card] != lead_suit and event.seat != observation.seat:
                view.void_suits.add(lead_suit)
            plays_in_trick = (plays_in_trick + 1) % 4
    return view


def expected_tricks(hand: Sequence[int], trump: int, strength: Sequence[int]) -> float:
    """A rough count of the tricks a hand takes: high cards, long trumps, short side suits."""
    suits: list[list[int]] = [[], [], [], []]
    for card in hand:
        suits[SUIT[card]].append(strength[card])
    total = 0.0
    trumps = len(suits[trump]) if trump != NO_TRUMP else 0
    for suit, ranks in enumerate(suits):
        length = len(ranks)
        if suit == trump:
            for rank in ranks:
                gap = TOP - rank
                if gap < len(TRUMP_HONOURS):
                    total += TRUMP_HONOURS[gap] if length > gap else 0.3
            total += 0.8 * max(0, length - 4)
            continue
        for rank in ranks:
            gap = TOP - rank
            if gap < len(SIDE_HONOURS):
                total += SIDE_HONOURS[gap][length > gap]
        if trump == NO_TRUMP and length >= 5 and max(ranks) >= TOP - 1:
            total += 0.5 * (length - 4)
        if trump != NO_TRUMP and trumps >= 2 and length <= 1:
            total += 0.5 if length == 0 else 0.25
    return SCALE * total


def choose_bid(legal: Sequence[int], estimate: float) -> int:
    """The legal bid action nearest to the estimate (the lower one on a tie)."""
    return min(legal, key=lambda action: (abs(action - BID_BASE - estimate), action))


class HeuristicPolicy:
    """Bids its likely tricks; wins tricks while short of its bid, ducks once it has made it."""

    def __init__(self, game: Game, seat: int, seed: int) -> None:
        """Keep the rank order of the game; the policy is deterministic."""
        self.seat = seat
        self.strength = STRENGTHS[str(game.params["rank_order"])]
        self.hand_size = int(game.params["hand_size"])

    def act(self, observation: Observation) -> int:
        """A bid in the bidding phase, else a card."""
        legal = observation.legal_actions
        if legal[0] >= BID_BASE:
            return self.bid(observation)
        return self.play(observation, read_deal(observation))

    def bid(self, observation: Observation) -> int:
        """Estimate the tricks of the hand; bid blind a quarter of the hand, rounded down."""
        if not observation.hand:
            return choose_bid(observation.legal_actions, float(self.hand_size // 4))
        estimate = expected_tricks(observation.hand, observation.trump_suit, self.strength)
        return choose_bid(observation.legal_actions, estimate)

    def wants_tricks(self, observation: Observation, view: DealView) -> bool:
        """True while a trick helps: ciapa ciapa, or short of the bid."""
        kind = KINDS[observation.hand_number]
        if kind == DealKind.CIAPA_CIAPA:
            return True
        if kind == DealKind.MISERE or view.bid is None:
            return False
        return observation.points[observation.seat] < view.bid

    def play(self, observation: Observation, view: DealView) -> int:
        """Lead or follow, trying to win or to duck the trick."""
        legal = list(observation.legal_actions)
        want = self.wants_tricks(observation, view)
        if not observation.trick:
            return self.lead(legal, observation, view, want)
        return self.follow(legal, observation, want)

    def unseen_above(self, card: int, gone: set[int]) -> int:
        """Cards of the same suit, stronger than ``card``, and not in ``gone``."""
        strength = self.strength
        low = SUIT[card] * 13
        mine = strength[card]
        return sum(1 for other in range(low, low + 13)
                   if strength[other] > mine and other not in gone)

    def lead(self, legal: list[int], observation: Observation, view: DealView,
             want: bool) -> int:
        """Lead a sure winner when taking tricks, else the card least likely to win."""
        strength = self.strength
        trump = observation.trump_suit
        gone = view.played | set(observation.hand)
        above = {card: self.unseen_above(card, gone) for card in legal}
        if want:
            masters = [c for c in legal if above[c] == 0]
            if masters:
                return max(masters, key=lambda c: (SUIT[c] != trump,
                                                   SUIT[c] not in view.void_suits, strength[c]))
            side = [c for c in legal if SUIT[c] != trump] or legal
            return max(side, key=lambda c: strength[c])
        return min(legal, key=lambda c: (-above[c], SUIT[c] == trump, strength[c]))

    def follow(self, legal: list[int], observation: Observation, want: bool) -> int:
        """Take the trick as cheaply as possible, or stay under the winning card."""
        strength = self.strength
        trump = observation.trump_suit
        winner_card = observation.trick[0][1]
        for _, card in observation.trick[1:]:
            if beats(card, winner_card, SUIT, strength, trump):
                winner_card = card
        last = len(observation.trick) == observation.num_seats - 1
        winning = [c for c in legal if beats(c, winner_card, SUIT, strength, trump)]
        losing = [c for c in legal if c not in winning]
        if want:
            if not winning:
                return min(legal, key=lambda c: (SUIT[c] == trump, strength[c]))
            if last or SUIT[winning[0]] == trump != SUIT[observation.trick[0][1]]:
                return min(winning, key=lambda c: strength[c])
            return max(winning, key=lambda c: strength[c])
        if losing:
            return max(losing, key=lambda c: (strength[c], SUIT[c] == trump))
        if last:
            return max(winning, key=lambda c: strength[c])
        return min(winning, key=lambda c: strength[c])
