"""Heuristic for Tressette con il pozzo: bid by hand strength, call, discard, Tressette card play.

Hand strength is an estimate of the thirds a hand takes as a soloist: per suit, the cards that
rank above every card still unseen are sure tricks (a long suit wins the rest once the others
are drawn out), a card with few unseen cards above it and enough guards counts half, and the
unseen points of a suit count in proportion to the tricks won in it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from arena.games.api import Event, EventKind, Game, Observation
from arena.games.cards import HIDDEN
from arena.games.tressette_pozzo import (
    CHIAMO,
    LAST_TRICK_THIRDS,
    PASS,
    SOLISSIMO,
    SOLO,
    STRENGTH,
    SUIT,
    THIRDS,
)

SUIT_CARDS = tuple(tuple(sorted(range(suit * 10, suit * 10 + 10), key=lambda c: -STRENGTH[c]))
                   for suit in range(4))
"""Each suit's cards from the strongest (the 3) to the weakest (the 4)."""
BID_THRESHOLDS = ((SOLISSIMO, 25), (SOLO, 20), (CHIAMO, 13))
"""Estimated thirds of the dealt 12 cards needed for each bid, highest contract first."""
_HAND_BREAKS = (EventKind.HAND_START, EventKind.REDEAL)


def estimate(hand: Collection[int], gone: Collection[int]) -> float:
    """Thirds a soloist holding ``hand`` may expect; ``gone`` cards are out of everyone's hand."""
    total = 0.0
    long_suit = False
    for suit_cards in SUIT_CARDS:
        mine: list[int] = []
        above: list[int] = []
        unseen = unseen_thirds = sure = 0
        for card in suit_cards:
            if card in hand:
                if not unseen:
                    sure += 1
                mine.append(THIRDS[card])
                above.append(unseen)
            elif card not in gone:
                unseen += 1
                unseen_thirds += THIRDS[card]
        held = len(mine)
        if not held:
            continue
        if sure and unseen <= 2 * sure:
            tricks = float(held)
            won = float(sum(mine))
            long_suit = long_suit or held > sure
        else:
            tricks = float(sure)
            won = float(sum(mine[:sure]))
            for index in range(sure, held):
                if above[index] <= 2 and held - index > above[index]:
                    tricks += 0.5
                    won += 0.5 * mine[index]
        if unseen:
            won += unseen_thirds * min(1.0, 2 * tricks / unseen)
        total += won
    if long_suit:
        total += LAST_TRICK_THIRDS
    return total


class HandView:
    """What the policy reads from an observation about the current hand."""

    def __init__(self, observation: Observation) -> None:
        """Scan the events of the current deal for played cards and own discards."""
        self.seat = observation.seat
        self.hand = observation.hand
        gone: set[int] = set()
        events: Sequence[Event] = observation.events
        for index in range(len(events) - 1, -1, -1):
            event = events[index]
            kind = event.kind
            if kind in _HAND_BREAKS:
                break
            if kind == EventKind.PLAY:
                gone.update(event.cards)
            elif (kind == EventKind.SWAP and event.seat == self.seat and not event.values
                  and event.cards[0] != HIDDEN):
                gone.add(event.cards[0])
        gone.discard(HIDDEN)
        self.gone = gone
        if observation.teammates:
            self.friends = {self.seat, *observation.teammates}
        else:
            self.friends = {self.seat}

    def is_master(self, card: int) -> bool:
        """True when no card still unseen by this seat beats ``card``."""
        for other in SUIT_CARDS[SUIT[card]]:
            if other == card:
                return True
            if other not in self.gone and other not in self.hand:
                return False
        return True


def lowest(cards: Sequence[int]) -> int:
    """The card that gives away least: fewest thirds, then weakest."""
    return min(cards, key=lambda c: (THIRDS[c], STRENGTH[c]))


def choose_lead(view: HandView, cards: Sequence[int]) -> int:
    """Cash a sure winner (the strongest first), else lead low from the longest safe suit."""
    masters = [card for card in cards if view.is_master(card)]
    if masters:
        return max(masters, key=lambda c: (STRENGTH[c], THIRDS[c]))
    length = [0, 0, 0, 0]
    risk = [0, 0, 0, 0]
    for card in cards:
        length[SUIT[card]] += 1
        risk[SUIT[card]] += THIRDS[card]
    return min(cards, key=lambda c: (THIRDS[c] > 0, risk[SUIT[c]] - length[SUIT[c]],
                                     STRENGTH[c]))


def choose_follow(view: HandView, cards: Sequence[int],
                  trick: Sequence[tuple[int, int]], num_seats: int) -> int:
    """Load points on a safe friend's trick, take tricks worth taking, else give least."""
    led = SUIT[trick[0][1]]
    win_seat, win_card = trick[0]
    for seat, card in trick[1:]:
        if SUIT[card] == led and STRENGTH[card] > STRENGTH[win_card]:
            win_seat, win_card = seat, card
    after = [(view.seat + k) % num_seats for k in range(1, num_seats - len(trick))]
    foes_after = [seat for seat in after if seat not in view.friends]
    following = SUIT[cards[0]] == led
    friend_safe = win_seat in view.friends and (not foes_after or view.is_master(win_card))
    if friend_safe:
        spare = [card for card in cards if not view.is_master(card)] or list(cards)
        if following:
            spare = [c for c in spare if STRENGTH[c] < STRENGTH[win_card]] or spare
        return max(spare, key=lambda c: (THIRDS[c], -STRENGTH[c]))
    if not following:
        return discard_choice(view, cards)
    beaters = [card for card in cards if STRENGTH[card] > STRENGTH[win_card]]
    if win_seat in view.friends:
        return lowest(cards)
    if beaters and not foes_after:
        return max(beaters, key=lambda c: (THIRDS[c], -STRENGTH[c]))
    sure = [card for card in beaters if view.is_master(card)]
    if sure:
        return min(sure, key=lambda c: STRENGTH[c])
    return lowest(cards)


def discard_choice(view: HandView, cards: Sequence[int]) -> int:
    """A card to throw away: no sure winner, few thirds, from a short suit, weak."""
    length = [0, 0, 0, 0]
    for card in view.hand:
        length[SUIT[card]] += 1
    return min(cards, key=lambda c: (view.is_master(c), THIRDS[c], length[SUIT[c]], STRENGTH[c]))


def least_useful(hand: Sequence[int], cards: Sequence[int], gone: Collection[int]) -> int:
    """A card worth no points (if any) whose loss lowers the hand's estimate least.

    Ties go to the card of the shortest suit, then the weakest.
    """
    worthless = [card for card in cards if not THIRDS[card]]
    if worthless:
        cards = worthless
    length = [0, 0, 0, 0]
    for card in hand:
        length[SUIT[card]] += 1
    kept = set(hand)

    def cost(card: int) -> tuple[float, int, int, int]:
        """Estimate lost, then thirds, suit length and strength of the card."""
        kept.discard(card)
        value = estimate(kept, gone)
        kept.add(card)
        return (-value, THIRDS[card], length[SUIT[card]], STRENGTH[card])

    return min(cards, key=cost)


class HeuristicPolicy:
    """Bids on a strong hand, calls the card that helps most, discards low, plays Tressette."""

    def __init__(self, game: Game, seat: int, seed: int) -> None:
        """Remember the seat; the policy is deterministic."""
        self.seat = seat

    @staticmethod
    def _bid(value: float, legal: Sequence[int]) -> int:
        """The bid the hand's value earns, when still open; else pass, or the cheapest bid
        when the seat may not pass (everyone else passed)."""
        for bid, threshold in BID_THRESHOLDS:
            if value >= threshold and bid in legal:
                return bid
            if value >= threshold:
                break
        return PASS if PASS in legal else min(legal)

    def act(self, observation: Observation) -> int:
        """The chosen action for the phase."""
        legal = observation.legal_actions
        if len(legal) == 1:
            return legal[0]
        view = HandView(observation)
        phase = observation.phase
        if phase == "bid":
            return self._bid(estimate(view.hand, ()), legal)
        if phase == "call":
            held = set(view.hand)
            return max(legal, key=lambda c: (estimate(held | {c}, ()), STRENGTH[c]))
        if phase in ("give", "discard"):
            return least_useful(view.hand, legal, view.gone)
        if not observation.trick:
            return choose_lead(view, legal)
        return choose_follow(view, legal, observation.trick, observation.num_seats)
