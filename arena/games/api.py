"""The ``Game`` / ``State`` API every game implements, and the per-seat ``Observation``.

Vocabulary follows OpenSpiel: a ``Game`` is a spec with parameters and
``new_initial_state(seed, deal=None)``; a ``State`` has ``current_player()``,
``legal_actions()`` (sorted ints), ``apply_action(a)``, ``is_terminal()``, ``returns()``,
``observation(seat)``, ``clone()``, ``history()`` and ``action_to_string(a)``.

Chance never shows up as a player: deals and the dead hand's plays are drawn from the seeded
generator inside the state, so a match is fully given by (game, params, seed, actions).

Events are logged as plain tuples ``(kind, seat, cards, values, viewers)``; ``viewers`` is a
bit mask of the seats that may see the cards and values (``ALL_SEATS`` for public events).
An observation masks, for every other seat, the cards as ``HIDDEN`` and the values as empty.
The log only grows: an entry is never changed once written.

``Event``, ``ActionMeaning`` and ``Observation`` are dataclasses with ``Final`` fields and a
written ``__init__``: compiled, that ``__init__`` is native and about ten times faster than a
frozen dataclass's (which sets each field through ``object.__setattr__``), and the compiled
classes still refuse assignment to a field. They compare and hash by value.

Conventions every game follows (the generic tests check them):
- DEAL events are private to their seat; a hand the rules show goes in ``visible_hands``.
- A card is won by a TRICK or a CAPTURE event (its ``cards``); HAND_END ``cards`` lists every
  card of the deck not won that hand, and its ``values`` the per-seat card points of the hand
  (one more value for a dead hand); with ``Game.card_points`` set, won points add up to
  ``Game.points_total``.
- ``returns()`` are zero-sum game points of the match: the sum of the hands' SCORE events in
  games scored hand by hand, the match outcome in games played to a target.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, fields
from enum import IntEnum
from functools import cache
from typing import Any, Final, Generic, Self, TypeVar

from mypy_extensions import mypyc_attr

from arena.games.cards import HIDDEN, Deck
from arena.games.params import (
    GameSpec,
    IllegalActionError,
    InvalidDealError,
    ParamValue,
)
from arena.games.rng import Rng, shuffled_deck

TERMINAL: Final = -4
"""``current_player()`` once the match is over."""

ALL_SEATS: Final = -1
"""Viewer mask of a public event."""


class EventKind(IntEnum):
    """What happened, in the public history every observation carries."""

    HAND_START = 1  # seat: dealer; values: (hand number,)
    DEAL = 2  # seat receives cards (private to the seat)
    TRUMP = 3  # cards: (face-up card,) or (); values: (trump suit,)
    BID = 4  # seat bids; values: game-specific bid (see the game's docstring)
    PASS = 5  # seat passes
    CALL = 6  # seat calls a card; cards: (card,) when public
    COMMIT = 7  # seat secretly commits to something; values private to the seat
    PLAY = 8  # seat plays cards face up
    PLAY_FACE_DOWN = 9  # seat plays a card face down (cards private to the seat)
    REVEAL = 10  # seat's face-down or secret cards become public
    TRICK = 11  # seat won a trick; cards: the trick in play order; values: (points,)
    DRAW = 12  # seat draws cards (private unless the rules show them)
    DECLARE = 13  # seat declares; values: game-specific declaration
    SWAP = 14  # seat swaps cards with the table
    CAPTURE = 15  # seat captures table cards
    HAND_END = 16  # values: per-seat card points of the hand; cards: cards never played
    SCORE = 17  # values: per-seat game points of the hand
    REDEAL = 18  # the hand is thrown in and dealt again
    MATCH_END = 19  # values: per-seat match returns


@dataclass(init=False, unsafe_hash=True)
class Event:
    """One entry of the public history, as a seat sees it."""

    kind: Final[EventKind]
    seat: Final[int]
    cards: Final[tuple[int, ...]]
    values: Final[tuple[int, ...]]

    def __init__(self, kind: EventKind, seat: int, cards: tuple[int, ...] = (),
                 values: tuple[int, ...] = ()) -> None:
        """An event (compiled, a written ``__init__`` is a native one: see the module doc)."""
        self.kind = kind
        self.seat = seat
        self.cards = cards
        self.values = values

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"kind": self.kind.name, "seat": self.seat, "cards": list(self.cards),
                "values": list(self.values)}


class ActionKind(IntEnum):
    """What a legal action does, for bots that read actions rather than decode ids."""

    PLAY = 1  # play ``cards`` face up (``value``: a signal, where the game has them)
    PLAY_FACE_DOWN = 2  # play ``cards`` face down
    PASS = 3  # pass (in an auction, or a turn)
    BID = 4  # bid ``value`` (the game's units; ``rank`` for a rank auction); ``label`` names it
    CALL = 5  # name a card (``cards``), a rank (``rank``) or a suit (``suit``)
    DECLARE = 6  # declare ``value`` (the game's declaration code); ``cards``: the cards shown
    CAPTURE = 7  # play ``cards`` and take the table cards ``captured``
    SWAP = 8  # exchange ``cards`` from the hand with a face-up card
    DISCARD = 9  # put ``cards`` aside (a discard, a pair thrown out)
    GIVE = 10  # give ``cards`` to another seat
    DRAW = 11  # draw the card at position ``value`` of what is offered
    KEEP = 12  # keep the hand as dealt
    REDEAL = 13  # demand a redeal
    DONE = 14  # nothing left to do in this phase
    OTHER = 15  # anything else; ``label`` says what


@dataclass(init=False, unsafe_hash=True)
class ActionMeaning:
    """The structured meaning of one action id, as bots in any language receive it."""

    kind: Final[ActionKind]
    cards: Final[tuple[int, ...]]
    captured: Final[tuple[int, ...]]
    value: Final[int | None]
    suit: Final[int]
    rank: Final[int]
    table: Final[int]
    """The table an action belongs to, in games played at several tables at once."""
    label: Final[str]

    def __init__(self, kind: ActionKind, cards: tuple[int, ...] = (),
                 captured: tuple[int, ...] = (), value: int | None = None, suit: int = -1,
                 rank: int = -1, table: int = -1, label: str = "") -> None:
        """A meaning; fields not given are empty."""
        self.kind = kind
        self.cards = cards
        self.captured = captured
        self.value = value
        self.suit = suit
        self.rank = rank
        self.table = table
        self.label = label


@dataclass(init=False, unsafe_hash=True)
class Observation:
    """Exactly what one seat may know; -1 (``HIDDEN``) marks unknown or absent cards."""

    game: Final[str]
    seat: Final[int]
    num_seats: Final[int]
    hand_number: Final[int]
    dealer: Final[int]
    phase: Final[str]
    current_player: Final[int]
    hand: Final[tuple[int, ...]]
    hand_sizes: Final[tuple[int, ...]]
    points: Final[tuple[int, ...]]
    scores: Final[tuple[float, ...]]
    events: Final[tuple[Event, ...]]
    legal_actions: Final[tuple[int, ...]]
    visible_hands: Final[tuple[tuple[int, tuple[int, ...]], ...]]
    trump_suit: Final[int]
    trump_card: Final[int]
    called_card: Final[int]
    table: Final[tuple[int, ...]]
    trick: Final[tuple[tuple[int, int], ...]]
    stock_size: Final[int]
    teammates: Final[tuple[int, ...]]

    def __init__(self, game: str, seat: int, num_seats: int, hand_number: int, dealer: int,
                 phase: str, current_player: int, hand: tuple[int, ...],
                 hand_sizes: tuple[int, ...], points: tuple[int, ...],
                 scores: tuple[float, ...], events: tuple[Event, ...],
                 legal_actions: tuple[int, ...],
                 visible_hands: tuple[tuple[int, tuple[int, ...]], ...] = (),
                 trump_suit: int = -1, trump_card: int = HIDDEN, called_card: int = HIDDEN,
                 table: tuple[int, ...] = (), trick: tuple[tuple[int, int], ...] = (),
                 stock_size: int = 0, teammates: tuple[int, ...] = ()) -> None:
        """An observation; the fields after ``legal_actions`` are empty when not given."""
        self.game = game
        self.seat = seat
        self.num_seats = num_seats
        self.hand_number = hand_number
        self.dealer = dealer
        self.phase = phase
        self.current_player = current_player
        self.hand = hand
        self.hand_sizes = hand_sizes
        self.points = points
        self.scores = scores
        self.events = events
        self.legal_actions = legal_actions
        self.visible_hands = visible_hands
        self.trump_suit = trump_suit
        self.trump_card = trump_card
        self.called_card = called_card
        self.table = table
        self.trick = trick
        self.stock_size = stock_size
        self.teammates = teammates

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (the canonical serialized observation)."""
        data = {name: getattr(self, name) for name in _OBSERVATION_FIELDS}
        data["events"] = [event.to_dict() for event in self.events]
        return data

    def seen_cards(self) -> set[int]:
        """Every card this seat has seen: its hand, visible hands, table, tricks, events."""
        seen = set(self.hand) | set(self.table)
        seen.update(card for _, card in self.trick)
        for _, cards in self.visible_hands:
            seen.update(cards)
        for event in self.events:
            seen.update(event.cards)
        for card in (self.trump_card, self.called_card):
            seen.add(card)
        seen.discard(HIDDEN)
        return seen


_OBSERVATION_FIELDS: Final = tuple(field.name for field in fields(Observation))

LogEntry = tuple[EventKind, int, tuple[int, ...], tuple[int, ...], int]
EventEntry = tuple[EventKind, int, tuple[int, ...], tuple[int, ...]]
"""An unmasked event as a plain tuple: kind, seat, cards, values."""
DealInput = Sequence[int] | Sequence[Sequence[int]] | None


_CLASS_VALUES = ("deck", "points_total", "card_points", "trick_strength", "rank_strength",
                 "capture_value", "perfect_information", "dead_hand")
"""Game attributes that a game class may give as class attributes."""


@mypyc_attr(allow_interpreted_subclasses=True)
class Game(ABC):
    """A game id with its seat count and validated parameters."""

    deck: Deck
    points_total: int | None = None
    """Card points of a complete hand, when the game counts card points."""
    card_points: tuple[int, ...] | None = None
    """Card points per card id, when the game counts card points."""
    trick_strength: tuple[int, ...] | None = None
    """Trick strength per card id (within a suit the higher takes the trick), in trick games."""
    rank_strength: tuple[int, ...] | None = None
    """Strength per card id of its rank, whatever the suit, where sets of a rank climb."""
    capture_value: tuple[int, ...] | None = None
    """Capture value per card id, in fishing games."""
    perfect_information: bool = False
    """True when this configuration hides nothing from any seat (Vecchia with two seats)."""
    dead_hand: bool = False
    """True when a hand plays without a seat (il morto): HAND_END then has one more value."""

    def __init__(self, spec: GameSpec, num_players: int, params: dict[str, ParamValue]) -> None:
        """Keep the spec, seat count and validated parameters."""
        self.spec = spec
        self.num_players = num_players
        self.params = dict(params)
        self.meanings: dict[int, ActionMeaning] = {}
        """Action meanings the game keeps for its states to share, under a key each game module
        defines from the action and what else its meaning depends on: the protocol's encoder
        finds a kept meaning's wire entry by its identity, where a new one costs building and
        hashing a key of its fields."""
        self._adopt_class_values()

    def _adopt_class_values(self) -> None:
        """Store ``deck`` and the other values that a game class written in Python (a plugin)
        gives as class attributes where the compiled engine reads them: in the instance's own
        fields. Interpreted, the class attributes are read directly and nothing is done."""
        for name in _CLASS_VALUES:
            field: Any = vars(Game).get(name)
            if not hasattr(field, "__set__"):
                continue
            for cls in type(self).__mro__:
                if cls is Game:
                    break
                value = cls.__dict__.get(name)
                if value is not None and not hasattr(value, "__get__"):
                    field.__set__(self, value)
                    break

    @property
    def id(self) -> str:
        """The game id."""
        return self.spec.id

    def teams(self) -> tuple[tuple[int, ...], ...] | None:
        """Fixed public partnerships, or None when there are none or they are hidden."""
        return None

    @abstractmethod
    def new_initial_state(self, seed: int, deal: DealInput = None) -> State[Any]:
        """A new match; ``deal`` injects the card order of the first hand (or of several)."""

    def injected_deals(self, deal: DealInput) -> list[tuple[int, ...]]:
        """Validate an injected deal (one card order or a list of them)."""
        if deal is None:
            return []
        items: list[Any] = list(deal)
        orders = [items] if not items or isinstance(items[0], int) else items
        for order in orders:
            if not all(isinstance(card, int) and not isinstance(card, bool) for card in order):
                raise InvalidDealError(f"{self.id}: an injected deal must list card ids (ints)")
        checked = []
        for index, order in enumerate(orders):
            cards = tuple(order)
            if sorted(cards) != list(range(self.deck.size)):
                missing = sorted(set(range(self.deck.size)) - set(cards))
                extra = sorted(c for c in set(cards) if not 0 <= c < self.deck.size)
                dupes = sorted({c for c in cards if cards.count(c) > 1})
                raise InvalidDealError(
                    f"{self.id}: injected deal {index} is not a permutation of the "
                    f"{self.deck.size} cards of the {self.deck.name} deck "
                    f"(length {len(cards)}, missing {missing[:8]}, duplicated {dupes[:8]}, "
                    f"out of range {extra[:8]})"
                )
            checked.append(cards)
        return checked

    def __repr__(self) -> str:
        """The game id, seats and non-default parameters."""
        changed = {k: v for k, v in self.params.items() if self.spec.defaults().get(k) != v}
        return f"{self.id}(players={self.num_players}, {changed})"


GameT = TypeVar("GameT", bound=Game)
"""The game class of a state."""


@mypyc_attr(allow_interpreted_subclasses=True)
class State(ABC, Generic[GameT]):
    """A position in a match: whose turn, the legal actions, and how to move on."""

    __slots__ = ("_actions", "_aside", "_audience", "_current", "_deal_count", "_deals",
                 "_injected", "_legal", "_log", "_returns", "_rng", "_seed", "_views",
                 "_views_upto", "game")

    def __init__(self, game: GameT, seed: int, deal: DealInput, *, blank: bool = False) -> None:
        """Common bookkeeping (seed, injected deals, action history, event log), then the game's
        ``_start``; a ``blank`` state (for ``clone``) skips ``_start``."""
        self.game = game
        self._seed = seed
        self._injected: Sequence[tuple[int, ...]] = (
            game.injected_deals(deal) if deal is not None else ())
        self._deals: list[Sequence[int]] = []
        """Each deal's card order: a tuple, or the list a game dealt from and never changes."""
        self._aside: tuple[int, ...] = ()
        """The cards set aside before each shuffle; ``deals()`` lists them after the others."""
        self._deal_count = 0
        self._actions: list[int] = []
        self._log: list[LogEntry] = []
        self._views: dict[int, list[Event]] | None = None
        """Per seat, its masked events so far; made at the first observation."""
        self._views_upto: dict[int, int] | None = None
        self._audience: list[int] | None = None
        """Games where some seats must not even know an event happened keep, per log entry, a
        bit mask of the seats that see it at all; None means every seat sees every entry."""
        self._legal: list[int] | None = None
        self._returns = [0.0] * game.num_players
        self._current = TERMINAL
        self._rng: Rng | None = None
        if not blank:
            self._start()

    @property
    def rng(self) -> Rng:
        """The state's own seeded generator, made from the seed when first used."""
        rng = self._rng
        if rng is None:
            rng = self._rng = Rng(self._seed)
        return rng

    def _start(self) -> None:
        """Deal the first hand (each game does; a game with its own ``__init__`` may not)."""

    # --- the public API -------------------------------------------------------------------

    def current_player(self) -> int:
        """The seat to act, or ``TERMINAL``."""
        return self._current

    def is_terminal(self) -> bool:
        """True once the match is over."""
        return self._current == TERMINAL

    def legal_actions(self) -> list[int]:
        """The legal actions of the player to act, sorted."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal[:]

    def apply_action(self, action: int) -> None:
        """Play an action; an illegal one raises and leaves the state unchanged."""
        legal = self._legal
        if legal is None:
            legal = self._compute_legal()
        if not _holds(legal, action):
            raise IllegalActionError(self._illegal_message(action, legal))
        self._legal = None
        self._actions.append(action)
        self._apply(action)

    def returns(self) -> list[float]:
        """Game points per seat so far (final once terminal)."""
        return list(self._returns)

    def history(self) -> list[int]:
        """Every action applied so far, in order."""
        return list(self._actions)

    def seed(self) -> int:
        """The seed of the match (never shown to a bot)."""
        return self._seed

    def deals(self) -> list[tuple[int, ...]]:
        """The card order of every deal so far (never shown to a bot)."""
        size, aside = self.game.deck.size, self._aside
        return [tuple(order) + aside if len(order) < size else tuple(order)
                for order in self._deals]

    @abstractmethod
    def action_to_string(self, action: int) -> str:
        """A short human-readable name for an action."""

    @abstractmethod
    def observation(self, seat: int) -> Observation:
        """Exactly what ``seat`` may know now."""

    def action_meaning(self, action: int) -> ActionMeaning:
        """What ``action`` does now: a card id plays that card; games override the rest."""
        if 0 <= action < self.game.deck.size:
            return play_meanings(self.game.deck)[action]
        return ActionMeaning(ActionKind.OTHER, label=self.action_to_string(action))

    def events_since(self, seat: int, start: int) -> tuple[Event, ...]:
        """The log from entry ``start`` as ``seat`` sees it, leaving out entries it may not see."""
        view = self._events_for(seat)
        if self._audience is None:
            return view[start:]
        bit = 1 << seat
        return view[sum(1 for mask in self._audience[:start] if mask & bit):]

    def clone(self) -> Self:
        """An independent copy."""
        kind = type(self)
        if "__mypyc_attrs__" in vars(kind):
            # A compiled class runs __init__ from __new__: make a blank state instead.
            twin = kind(self.game, self._seed, None, blank=True)
        else:
            twin = kind.__new__(kind)
        for name in attribute_names(kind):
            if hasattr(self, name):
                value = getattr(self, name)
                if name in _FLAT_LISTS and value is not None:
                    value = list(value)
                elif name == "_views" and value is not None:
                    value = {seat: list(view) for seat, view in value.items()}
                else:
                    value = _copy_value(value)
                setattr(twin, name, value)
        return twin

    def __str__(self) -> str:
        """The history as action names."""
        return " ".join(str(a) for a in self._actions)

    # --- for the games ----------------------------------------------------------------------

    @abstractmethod
    def _compute_legal(self) -> list[int]:
        """The legal actions, sorted (dispatches on the phase)."""

    @abstractmethod
    def _apply(self, action: int) -> None:
        """Apply a legal action (dispatches on the phase)."""

    def _next_deal(self, set_aside: tuple[int, ...] = (), *, frozen: bool = False) -> list[int]:
        """The card order of the next deal, without the cards ``set_aside``: injected if given
        (the cards set aside are taken out of it), else from the seed (shuffled without
        them; the deal's record lists them last). ``frozen``: the caller never changes the
        list, so the record keeps it rather than a copy."""
        index = self._deal_count
        self._deal_count += 1
        if index < len(self._injected):
            order = list(self._injected[index])
            self._deals.append(tuple(order))
            for card in set_aside:
                order.remove(card)
            return order
        order = shuffled_deck(self.game.deck.size, self._seed, index, 0, set_aside)
        self._aside = set_aside
        self._deals.append(order if frozen else tuple(order))
        return order

    def _illegal_message(self, action: int, legal: list[int]) -> str:
        """Name the illegal action and the legal set."""
        if self.is_terminal():
            return f"{self.game.id}: action {action} is illegal: the match is over"
        try:
            name = self.action_to_string(action)
        except (IndexError, ValueError, KeyError):
            name = "not an action of this game"
        choices = ", ".join(f"{a} ({self.action_to_string(a)})" for a in legal)
        return (f"{self.game.id}: action {action} ({name}) is illegal for seat "
                f"{self.current_player()}; legal actions: {choices}")

    def _event(self, kind: EventKind, seat: int, cards: tuple[int, ...] = (),
               values: tuple[int, ...] = (), viewers: int = ALL_SEATS) -> None:
        """Log an event; ``viewers`` is a bit mask of the seats that see its content."""
        self._log.append((kind, seat, cards, values, viewers))

    def full_events(self, start: int = 0) -> tuple[Event, ...]:
        """The event log unmasked from entry ``start``: for tests, and replays after the end."""
        return tuple(Event(kind, who, cards, values)
                     for kind, who, cards, values, _ in self._log[start:])

    def event_entries(self, start: int = 0) -> list[EventEntry]:
        """The event log unmasked from entry ``start`` as plain ``(kind, seat, cards, values)``
        tuples: ``full_events`` without making an ``Event`` of each (for encoders)."""
        return [(kind, who, cards, values) for kind, who, cards, values, _ in self._log[start:]]

    def event_count(self) -> int:
        """How many events have been logged so far."""
        return len(self._log)

    def _events_for(self, seat: int) -> tuple[Event, ...]:
        """The event log as ``seat`` sees it; each entry is masked once (the log only grows)."""
        views, upto = self._views, self._views_upto
        if views is None or upto is None:
            views = self._views = {}
            upto = self._views_upto = {}
        view = views.get(seat)
        if view is None:
            view = views[seat] = []
        log = self._log
        start = upto.get(seat, 0)
        if start < len(log):
            bit = 1 << seat
            audience = self._audience
            for index in range(start, len(log)):
                kind, who, cards, values, viewers = log[index]
                if audience is not None and not audience[index] & bit:
                    continue
                if viewers == ALL_SEATS or viewers & bit:
                    view.append(Event(kind, who, cards, values))
                else:
                    view.append(Event(kind, who, (HIDDEN,) * len(cards), ()))
            upto[seat] = len(log)
        return tuple(view)


def _holds(actions: list[int], action: int) -> bool:
    """``action in actions`` as a compiled loop over ints (``in`` compares Python objects)."""
    return any(legal == action for legal in actions)


@cache
def attribute_names(kind: type) -> tuple[str, ...]:
    """The instance attributes of a class along its MRO: compiled classes list them in
    ``__mypyc_attrs__``, interpreted ones in ``__slots__``."""
    names: list[str] = []
    for cls in kind.__mro__:
        declared = cls.__dict__.get("__mypyc_attrs__") or cls.__dict__.get("__slots__") or ()
        names.extend(name for name in declared if name not in names and name != "__dict__")
    return tuple(names)


@cache
def play_meanings(deck: Deck) -> tuple[ActionMeaning, ...]:
    """The PLAY meaning of each card of ``deck``, labelled ``7D``, built once per deck."""
    return tuple(ActionMeaning(ActionKind.PLAY, cards=(card,), label=deck.short(card))
                 for card in deck.cards)


def play_entries(kind: EventKind, num_seats: int, num_cards: int,
                 private: bool = False) -> tuple[tuple[LogEntry, ...], ...]:
    """Prebuilt log entries ``[seat][card]`` for one-card events on a hot path."""
    return tuple(
        tuple((kind, seat, (card,), (), (1 << seat) if private else ALL_SEATS)
              for card in range(num_cards))
        for seat in range(num_seats)
    )


_FLAT_LISTS: Final = frozenset({"_actions", "_audience", "_deals", "_injected", "_log"})
"""State lists whose items are never changed in place (ints, tuples, the dealt orders a game
keeps without a copy): a clone copies them flat."""


def _copy_value(value: Any) -> Any:
    """Copy mutable containers (recursively) and generators; share everything else."""
    if isinstance(value, list):
        return [_copy_value(item) for item in value]
    if isinstance(value, dict):
        return {key: _copy_value(item) for key, item in value.items()}
    if isinstance(value, set):
        return set(value)
    if isinstance(value, Rng):
        return value.clone()
    return value
