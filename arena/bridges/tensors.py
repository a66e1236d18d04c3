"""A seat's observation as a fixed-shape vector of float32, for learning agents.

The vector is made from one ``Observation`` (what ``state.observation(seat)`` returns) and
nothing else: the engine masks what the seat may not know before this module sees it, so the
vector holds nothing a seat may not know. Its length depends only on the game's seat count and
deck (``Layout``); the same layout serves every bridge (PettingZoo, OpenSpiel).

Segments, in order (N seats, D cards of the deck, S suits, K event kinds, P phases):

==================  =========  ==============================================================
segment             size       content
==================  =========  ==============================================================
seat                N          one-hot: the observing seat
current_player      N          one-hot: the seat to act (all zero once the match is over)
dealer              N          one-hot: the dealer of the hand
phase               P + 1      one-hot over ``PHASES``; the last slot for any other phase
hand_number         1          the hand number (0 for the first hand)
hand                D          the seat's own hand, one slot per card id
hand_sizes          N          how many cards each seat holds
visible_hands       N x D      the cards of each seat's hand that the rules show
table               D          the cards face up on the table
trick               N x D      the card each seat has played to the current trick
trump_suit          S          one-hot: the trump suit, when known
trump_card          D          one-hot: the face-up trump card, when shown
called_card         D          one-hot: the called card, when public
stock_size          1          cards left in the stock
teammates           N          the seat's known partners
points              N          card points of the hand so far, per seat
scores              N          the match score so far, per seat
played              N x D      the cards each seat has played face up this hand (its events)
won                 N x D      the cards each seat has taken this hand (TRICK, CAPTURE events)
seen                D          every card the seat has seen this hand
event_counts        N x K      how many events of each kind each seat has had this hand
last_values         N x 4      the first value of each seat's last BID, CALL, DECLARE and
                               COMMIT this hand (0 when none: ``event_counts`` tells)
==================  =========  ==============================================================

"This hand" means the events since the last ``HAND_START`` (or ``REDEAL``) of the seat's log.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Final

import numpy as np
import numpy.typing as npt

from arena.games import Event, EventKind, Game, Observation

PHASES: Final = ("auction", "bid", "call", "choose_suit", "discard", "done", "draw",
                 "exchange", "first_trick", "give", "monte", "name_card", "name_suit", "pass",
                 "play", "over")
"""The phase names of the built-in games; any other phase (a plugin's) sets the last slot."""

VALUE_KINDS: Final = (EventKind.BID, EventKind.CALL, EventKind.DECLARE, EventKind.COMMIT)
"""Event kinds whose last first value ``last_values`` keeps, per seat."""

PLAYED_KINDS: Final = frozenset({EventKind.PLAY, EventKind.PLAY_FACE_DOWN})
WON_KINDS: Final = frozenset({EventKind.TRICK, EventKind.CAPTURE})
HAND_BOUNDARIES: Final = frozenset({EventKind.HAND_START, EventKind.REDEAL})

BIG: Final = 1e9
"""The bound of numbers with no natural bound (scores, counts)."""

Vector = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Segment:
    """A named run of the vector, its bounds and what it holds."""

    name: str
    size: int
    low: float
    high: float
    meaning: str


@dataclass(frozen=True)
class Layout:
    """The segments of one game configuration's observation vector."""

    game: str
    num_seats: int
    deck_size: int
    num_suits: int
    segments: tuple[Segment, ...]

    @cached_property
    def size(self) -> int:
        """The length of the vector."""
        return sum(segment.size for segment in self.segments)

    def offsets(self) -> dict[str, int]:
        """Where each segment starts (a new dict)."""
        return dict(self.starts)

    @cached_property
    def starts(self) -> dict[str, int]:
        """Where each segment starts, computed once."""
        found, start = {}, 0
        for segment in self.segments:
            found[segment.name] = start
            start += segment.size
        return found

    def bounds(self) -> tuple[Vector, Vector]:
        """The lowest and highest value of each entry."""
        low = np.concatenate([np.full(s.size, s.low, np.float32) for s in self.segments])
        high = np.concatenate([np.full(s.size, s.high, np.float32) for s in self.segments])
        return low, high


def layout(game: Game) -> Layout:
    """The observation layout of a game configuration."""
    n, d, s = game.num_players, game.deck.size, game.deck.suits
    k = len(EventKind)
    spec = [
        ("seat", n, 0, 1, "one-hot: the observing seat"),
        ("current_player", n, 0, 1, "one-hot: the seat to act (none once the match is over)"),
        ("dealer", n, 0, 1, "one-hot: the dealer of the hand"),
        ("phase", len(PHASES) + 1, 0, 1, "one-hot: " + ", ".join(PHASES) + ", other"),
        ("hand_number", 1, 0, BIG, "the hand number (0 for the first hand)"),
        ("hand", d, 0, 1, "the seat's own hand"),
        ("hand_sizes", n, 0, d, "how many cards each seat holds"),
        ("visible_hands", n * d, 0, 1, "per seat, the cards of its hand the rules show"),
        ("table", d, 0, 1, "the cards face up on the table"),
        ("trick", n * d, 0, 1, "per seat, the card it played to the current trick"),
        ("trump_suit", s, 0, 1, "one-hot: the trump suit, when known"),
        ("trump_card", d, 0, 1, "one-hot: the face-up trump card, when shown"),
        ("called_card", d, 0, 1, "one-hot: the called card, when public"),
        ("stock_size", 1, 0, d, "cards left in the stock"),
        ("teammates", n, 0, 1, "the seat's known partners"),
        ("points", n, -BIG, BIG, "card points of the hand so far, per seat"),
        ("scores", n, -BIG, BIG, "the match score so far, per seat"),
        ("played", n * d, 0, 1, "per seat, the cards it played face up this hand"),
        ("won", n * d, 0, 1, "per seat, the cards it took this hand"),
        ("seen", d, 0, 1, "every card the seat has seen this hand"),
        ("event_counts", n * k, 0, BIG, "per seat and event kind (EventKind order), "
                                        "the events this hand"),
        ("last_values", n * len(VALUE_KINDS), -BIG, BIG,
         "per seat, the first value of its last BID, CALL, DECLARE, COMMIT this hand"),
    ]
    segments = tuple(Segment(name, size, float(low), float(high), meaning)
                     for name, size, low, high, meaning in spec)
    return Layout(game.id, n, d, s, segments)


class _Writer:
    """Fills one vector segment by segment, ignoring cards and seats out of range."""

    def __init__(self, shape: Layout) -> None:
        """A zero vector of ``shape``."""
        self.shape = shape
        self.vector: Vector = np.zeros(shape.size, np.float32)
        self.start = shape.starts

    def one_hot(self, segment: str, index: int, size: int) -> None:
        """Set ``index`` of a segment of ``size`` entries, when it is in range."""
        if 0 <= index < size:
            self.vector[self.start[segment] + index] = 1.0

    def cards(self, segment: str, cards: Iterable[int], row: int = 0) -> None:
        """Mark known cards in a card segment (row ``row`` of an N x D segment)."""
        d = self.shape.deck_size
        if not 0 <= row < self.shape.num_seats:
            return
        base = self.start[segment] + row * d
        self.vector[[base + card for card in cards if 0 <= card < d]] = 1.0

    def values(self, segment: str, values: Sequence[float]) -> None:
        """Copy per-seat numbers into a segment of N entries."""
        n = self.shape.num_seats
        for seat, value in enumerate(values[:n]):
            self.vector[self.start[segment] + seat] = float(value)

    def put(self, segment: str, index: int, value: float) -> None:
        """Set one entry of a segment."""
        self.vector[self.start[segment] + index] = value


def encode(observation: Observation, shape: Layout, memo: HandEvents | None = None) -> Vector:
    """The vector of one seat's observation (see the module's table of segments).

    ``memo``, kept by a caller that encodes one seat's observations of one match in turn,
    reads only the events that are new since its last call; the vector is the same.
    """
    n, d = shape.num_seats, shape.deck_size
    out = _Writer(shape)
    out.one_hot("seat", observation.seat, n)
    out.one_hot("current_player", observation.current_player, n)
    out.one_hot("dealer", observation.dealer, n)
    phase = PHASES.index(observation.phase) if observation.phase in PHASES else len(PHASES)
    out.one_hot("phase", phase, len(PHASES) + 1)
    out.put("hand_number", 0, float(max(observation.hand_number, 0)))
    out.cards("hand", observation.hand)
    out.values("hand_sizes", observation.hand_sizes)
    for seat, cards in observation.visible_hands:
        out.cards("visible_hands", cards, seat)
    out.cards("table", observation.table)
    for seat, card in observation.trick:
        out.cards("trick", (card,), seat)
    out.one_hot("trump_suit", observation.trump_suit, shape.num_suits)
    out.one_hot("trump_card", observation.trump_card, d)
    out.one_hot("called_card", observation.called_card, d)
    out.put("stock_size", 0, float(observation.stock_size))
    for seat in observation.teammates:
        out.one_hot("teammates", seat, n)
    out.values("points", observation.points)
    out.values("scores", observation.scores)
    hand = memo if memo is not None else HandEvents(shape)
    hand.read(observation.events)
    hand.write(out.vector)
    seen = set(hand.cards)
    seen.update(observation.hand)
    seen.update(observation.table)
    seen.update(card for _, card in observation.trick)
    for _, cards in observation.visible_hands:
        seen.update(cards)
    seen.update((observation.trump_card, observation.called_card))
    out.cards("seen", seen)
    return out.vector


class HandEvents:
    """What a seat's events of the current hand put in its vector (``played``, ``won``,
    ``event_counts``, ``last_values`` and the cards for ``seen``), read event by event."""

    def __init__(self, shape: Layout) -> None:
        """Nothing read yet."""
        self.shape = shape
        self.count = 0
        """How many events of the log have been read."""
        self.last: Event | None = None
        """The last event read: a log that does not hold it there is another match's."""
        self._clear()

    def _clear(self) -> None:
        """Forget the hand read so far."""
        self.ones: set[int] = set()
        self.counts: dict[int, float] = {}
        self.values: dict[int, float] = {}
        self.cards: set[int] = set()

    def read(self, events: Sequence[Event]) -> None:
        """Read the events not read yet (all of the current hand's for another log)."""
        if self.count > len(events) or (self.count and events[self.count - 1] != self.last):
            self.count, self.last = 0, None
            self._clear()
        first = self.count or next((index for index in range(len(events) - 1, -1, -1)
                                    if events[index].kind in HAND_BOUNDARIES), 0)
        starts = self.shape.starts
        n, d, k = self.shape.num_seats, self.shape.deck_size, len(EventKind)
        counts_at, values_at = starts["event_counts"], starts["last_values"]
        played_at, won_at = starts["played"], starts["won"]
        for event in events[first:]:
            kind = event.kind
            if kind in HAND_BOUNDARIES:
                self._clear()
            self.cards.update(event.cards)
            seat = event.seat
            if not 0 <= seat < n:
                continue
            index = counts_at + seat * k + (int(kind) - 1)
            self.counts[index] = self.counts.get(index, 0.0) + 1.0
            if kind in PLAYED_KINDS or kind in WON_KINDS:
                base = (played_at if kind in PLAYED_KINDS else won_at) + seat * d
                self.ones.update(base + card for card in event.cards if 0 <= card < d)
            elif kind in VALUE_KINDS:
                slot = values_at + seat * len(VALUE_KINDS) + VALUE_KINDS.index(kind)
                self.values[slot] = float(event.values[0]) if event.values else 0.0
        self.count = len(events)
        self.last = events[-1] if events else None

    def write(self, vector: Vector) -> None:
        """Put what was read in a vector."""
        vector[list(self.ones)] = 1.0
        for table in (self.counts, self.values):
            if table:
                vector[list(table)] = list(table.values())
