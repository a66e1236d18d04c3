"""The portable heuristic (docs/portable-heuristic.md): score every legal action, keep the best.

It reads only the wire: the game id, deck and card values of ``MatchStart`` and each
``DecisionRequest``. Ties go to the lowest action id, so every port makes the same choice on the
same request.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cardarena_sdk import pb

HIDDEN = -1
"""The card id of a card the seat may not see."""

COINS = 1
"""The suit index of coins in the Italian decks."""
SEVEN = 6
"""The rank index of the seven in the Italian decks."""
AVOID_GAME = "tressette-non-prendere"
"""The game a seat loses by taking the most points, or none: it wants one point, then no more."""
ONE_POINT = 3
"""The thirds of one point in family T."""


@dataclass(frozen=True)
class Family:
    """The card points that make a trick worth taking (strength and points come from the
    MatchStart's card values)."""

    threshold: int


FAMILY_B = Family(threshold=10)
"""Briscola-like games: a trick worth an ace or a three."""
FAMILY_T = Family(threshold=3)
"""Tressette-like games: a trick worth one point (three thirds)."""


def family_of(game: str) -> Family | None:
    """Family B or T for the game id, None for every other game (family N)."""
    if game.startswith("briscola") or game == "madrasso":
        return FAMILY_B
    if game.startswith("tressette"):
        return FAMILY_T
    return None


@dataclass(frozen=True)
class Figures:
    """What the strategy knows of a match: the game, the cards' suits, strengths and points."""

    game: str
    family: Family | None
    italian: bool
    suits: tuple[int, ...]
    ranks: tuple[int, ...]
    strengths: tuple[int, ...]
    points: tuple[int, ...]

    @classmethod
    def from_match_start(cls, start: pb.MatchStart) -> Figures:
        """Read the game id, every card of ``MatchStart.deck`` and, in families B and T, each
        card's trick strength and points from ``MatchStart.card_values``."""
        family = family_of(start.game)
        cards = sorted(start.deck.cards, key=lambda card: card.id)
        strength_table = start.card_values.trick_strength if family else []
        points_table = start.card_values.points if family else []
        return cls(
            game=start.game,
            family=family,
            italian=start.deck.name.startswith("italian"),
            suits=tuple(card.suit for card in cards),
            ranks=tuple(card.rank for card in cards),
            strengths=tuple(wire_figure(strength_table, card.id, card.rank) for card in cards),
            points=tuple(wire_figure(points_table, card.id, 0) for card in cards),
        )

    def value(self, card: int) -> int:
        """16 × points + strength of one card; a hidden card is worth nothing."""
        if card == HIDDEN:
            return 0
        return 16 * self.points[card] + self.strengths[card]

    def values(self, cards: Sequence[int]) -> int:
        """The value of a list of cards."""
        return sum(self.value(card) for card in cards)

    def card_points(self, card: int) -> int:
        """The points of one card; a hidden card has none."""
        return 0 if card == HIDDEN else self.points[card]

    def strength(self, card: int) -> int:
        """The strength of one card; a hidden card has none."""
        return 0 if card == HIDDEN else self.strengths[card]


def wire_figure(table: Sequence[int], card: int, default: int) -> int:
    """A card's entry in a card-values table, or ``default`` where the table does not cover it
    (an empty table: family N, or an arena that sends no card values)."""
    return table[card] if 0 <= card < len(table) else default


Scorer = Callable[[Figures, pb.Observation, pb.LegalAction], int]
"""The score of one legal action in one observation."""


def score_swap(figures: Figures, observation: pb.Observation, action: pb.LegalAction) -> int:
    """SWAP: always first."""
    return 5000


def own_side_points(observation: pb.Observation) -> int:
    """The card points of the seat and of every teammate."""
    points = observation.points
    seats = [observation.seat, *observation.teammates]
    return sum(points[seat] for seat in seats if 0 <= seat < len(points))


def needs_a_point(observation: pb.Observation) -> bool:
    """Whether the seat's own points are under one point (3 thirds)."""
    points, seat = observation.points, observation.seat
    return (points[seat] if 0 <= seat < len(points) else 0) < ONE_POINT


def score_declare(figures: Figures, observation: pb.Observation, action: pb.LegalAction) -> int:
    """DECLARE: next after SWAP; in briscola-31 only once the own side reaches 31 points."""
    if figures.game == "briscola-31" and own_side_points(observation) < 31:
        return -5000
    return 4000


def score_capture(figures: Figures, observation: pb.Observation, action: pb.LegalAction) -> int:
    """CAPTURE: more cards, coins, sevens, the settebello and a sweep of the table score more."""
    captured = list(action.captured)
    score = 3000 + 10 * len(captured)
    if figures.italian:
        for card in [*action.cards, *captured]:
            if card == HIDDEN:
                continue
            coins = figures.suits[card] == COINS
            seven = figures.ranks[card] == SEVEN
            score += 5 * coins + 3 * seven + 20 * (coins and seven)
    if len(captured) == len(observation.table):
        score += 100
    return score


def trick_best(figures: Figures, observation: pb.Observation) -> pb.TrickPlay | None:
    """The best visible card of the trick so far, None when no card is visible."""
    best: pb.TrickPlay | None = None
    for play in observation.trick:
        if play.card == HIDDEN:
            continue
        if best is None or beats(figures, observation.trump_suit, play.card, best.card):
            best = play
    return best


def beats(figures: Figures, trump_suit: int, card: int, best: int) -> bool:
    """Whether ``card`` becomes the best over ``best``: same suit and stronger, or a trump."""
    same_suit = figures.suits[card] == figures.suits[best]
    if same_suit and figures.strengths[card] > figures.strengths[best]:
        return True
    return trump_suit >= 0 and figures.suits[card] == trump_suit != figures.suits[best]


def is_winning_card(figures: Figures, observation: pb.Observation,
                    action: pb.LegalAction) -> bool:
    """A single card of family B or T that takes a trick worth the family's threshold from the
    other side; in the avoid game, a trick worth anything, and only while the seat needs a point."""
    family = figures.family
    if family is None or len(action.cards) != 1 or action.cards[0] == HIDDEN:
        return False
    avoid = figures.game == AVOID_GAME
    if avoid and not needs_a_point(observation):
        return False
    best = trick_best(figures, observation)
    if best is None or best.seat in observation.teammates:
        return False
    card = action.cards[0]
    if not beats(figures, observation.trump_suit, card, best.card):
        return False
    trick_points = sum(figures.card_points(play.card) for play in observation.trick)
    return trick_points + figures.card_points(card) >= (1 if avoid else family.threshold)


def score_play(figures: Figures, observation: pb.Observation, action: pb.LegalAction) -> int:
    """PLAY: the cheapest card, unless a card wins a trick worth taking; the avoid game's rules
    for any other card of its own."""
    if is_winning_card(figures, observation, action):
        return 3000 - figures.values(action.cards)
    if figures.game == AVOID_GAME and len(action.cards) == 1 and action.cards[0] != HIDDEN:
        return score_avoid_play(figures, observation, action.cards[0])
    return 2000 - figures.values(action.cards)


def score_avoid_play(figures: Figures, observation: pb.Observation, card: int) -> int:
    """A card of the avoid game that is no winning card: lead the strongest card while the seat
    needs a point, else the cheapest; follow with the dearest card that does not take the lead,
    else the cheapest."""
    if not observation.trick:
        if needs_a_point(observation):
            return 2000 + figures.strength(card)
        return 2000 - figures.value(card)
    best = trick_best(figures, observation)
    if best is not None and beats(figures, observation.trump_suit, card, best.card):
        return 1000 - figures.value(card)
    return 2000 + figures.value(card)


def score_play_face_down(figures: Figures, observation: pb.Observation,
                         action: pb.LegalAction) -> int:
    """PLAY_FACE_DOWN: the cheapest card."""
    return 2000 - figures.values(action.cards)


def score_keep_done_draw(figures: Figures, observation: pb.Observation,
                         action: pb.LegalAction) -> int:
    """KEEP, DONE, DRAW: a plain move."""
    return 1000


def score_give_discard(figures: Figures, observation: pb.Observation,
                       action: pb.LegalAction) -> int:
    """GIVE, DISCARD: part with the cheapest cards; in the avoid game, the dearest."""
    if figures.game == AVOID_GAME:
        return 1000 + figures.values(action.cards)
    return 1000 - figures.values(action.cards)


def score_call(figures: Figures, observation: pb.Observation, action: pb.LegalAction) -> int:
    """CALL: the most valuable card named, else the highest rank named."""
    if len(action.cards) == 1:
        return 1000 + figures.value(action.cards[0])
    if action.rank >= 0:
        return 1000 + action.rank
    return 1000


def score_pass(figures: Figures, observation: pb.Observation, action: pb.LegalAction) -> int:
    """PASS: before any bid."""
    return 600


def score_bid(figures: Figures, observation: pb.Observation, action: pb.LegalAction) -> int:
    """BID: the lowest bid, after passing."""
    return 900 - (action.value if action.HasField("value") else 0)


def score_redeal_other(figures: Figures, observation: pb.Observation,
                       action: pb.LegalAction) -> int:
    """REDEAL, OTHER: last."""
    return 0


SCORERS: dict[int, Scorer] = {
    pb.ACTION_KIND_SWAP: score_swap,
    pb.ACTION_KIND_DECLARE: score_declare,
    pb.ACTION_KIND_CAPTURE: score_capture,
    pb.ACTION_KIND_PLAY: score_play,
    pb.ACTION_KIND_PLAY_FACE_DOWN: score_play_face_down,
    pb.ACTION_KIND_KEEP: score_keep_done_draw,
    pb.ACTION_KIND_DONE: score_keep_done_draw,
    pb.ACTION_KIND_DRAW: score_keep_done_draw,
    pb.ACTION_KIND_GIVE: score_give_discard,
    pb.ACTION_KIND_DISCARD: score_give_discard,
    pb.ACTION_KIND_CALL: score_call,
    pb.ACTION_KIND_PASS: score_pass,
    pb.ACTION_KIND_BID: score_bid,
}
"""The score of each action kind; the others (REDEAL, OTHER) score nothing."""


def score(figures: Figures, observation: pb.Observation, action: pb.LegalAction) -> int:
    """The score of one legal action."""
    return SCORERS.get(action.kind, score_redeal_other)(figures, observation, action)


def choose(figures: Figures, request: pb.DecisionRequest) -> int:
    """The id of the best-scoring legal action; ties go to the lowest id."""
    observation = request.observation
    best = max(request.legal_actions,
               key=lambda action: (score(figures, observation, action), -action.id))
    return best.id
