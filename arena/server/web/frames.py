"""A finished match record as the replay's frames: what is on the table after each step.

A view is ``None`` (the full view: every hand face up, every event unmasked), a seat number, or
``PUBLIC`` (a spectator's). A seat's view is built only from what the engine lets that seat
know: its ``observation`` (its own hand, the hands the rules show, the table, the scores) and
the event log as ``events_since(seat, ...)`` masks it. The public view shows only what every
seat knows: the events as ``public_events`` gives them, a hand's card only where every seat
sees it, and a score or card points only where every seat's observation agrees on it. The
name of another seat's action is shown only when every event of that action reaches the view
unmasked, so a face-down play or a secret commitment never leaks through its label.

Frame 0 is the deal; every later frame follows one recorded action. A trick stays on the table
in the frame of the action that completed it (with its winner), and is cleared in the next.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from arena.games import Event, EventKind, Game, State
from arena.games.cards import HIDDEN, Deck
from arena.match.record import MatchRecord, apply_recorded
from arena.match.safetext import safe_text
from arena.match.spectator import public_events
from arena.match.timeline import action_label
from arena.server.web.cards import CardFace, card_face, card_faces

CARD_WORD = re.compile(r"(?<![\w♥♦♣♠])[0-9A-Z]{1,2}[A-Z][abc]?(?![\w♥♦♣♠])")
"""A word that may be a card code, such as ``7D``, ``TH`` or ``7Da``."""

View = int | None
"""``None`` for the full view, ``PUBLIC`` for a spectator's, else the seat whose view it is."""

PUBLIC = -1
"""The view of a spectator: what every seat knows."""

AUCTION_KINDS = frozenset({EventKind.BID, EventKind.PASS, EventKind.CALL, EventKind.COMMIT})
"""Events that make up an auction."""

VERBS = {
    EventKind.BID: "bids", EventKind.PASS: "passes", EventKind.CALL: "calls",
    EventKind.COMMIT: "commits", EventKind.PLAY: "plays", EventKind.DECLARE: "declares",
    EventKind.PLAY_FACE_DOWN: "plays a card face down", EventKind.SWAP: "swaps",
    EventKind.DRAW: "draws", EventKind.CAPTURE: "captures", EventKind.REVEAL: "reveals",
}
"""How a seat's event reads when its action's name is not shown."""


@dataclass(frozen=True)
class SeatFrame:
    """One seat in a frame: its player, the cards shown face up and how many are hidden."""

    seat: int
    player: str
    cards: tuple[CardFace, ...]
    hidden: int
    to_act: bool
    score: float
    points: int = 0
    """The card points the seat has taken so far in this hand (the engine's ``points``)."""
    captured: int = 0
    """How many cards the seat has captured so far in this hand (fishing games)."""
    scope: int = 0
    """How many of its captures this hand cleared the table (a *scopa*)."""


@dataclass(frozen=True)
class Play:
    """A card played to the current trick, by whom and whether face down."""

    seat: int
    card: CardFace
    face_down: bool = False
    card_id: int = HIDDEN


@dataclass(frozen=True)
class Frame:
    """What is on the table after one step of a match, as one view sees it."""

    index: int
    label: str
    hand: int
    seats: tuple[SeatFrame, ...]
    trick: tuple[Play, ...] = ()
    trick_winner: int | None = None
    trick_points: int | None = None
    table: tuple[CardFace, ...] = ()
    capture: tuple[int, tuple[CardFace, ...]] | None = None
    draws: tuple[tuple[int, tuple[CardFace, ...]], ...] = ()
    auction: tuple[tuple[int, str], ...] = ()
    trump: CardFace | None = None
    trump_suit: str = ""
    notes: tuple[str, ...] = ()
    bot_note: str = ""
    """The debug note the acting bot sent with this step's decision (control characters
    escaped); shown in the full view and in the acting seat's own view."""
    stock: int | None = None
    """How many cards are left in the stock, for games dealt with one; else None."""
    fishing: bool = False
    """True for the fishing games (capture piles and scope are shown)."""

    def shown_cards(self) -> list[CardFace]:
        """Every face-up card this frame draws, in page order."""
        cards = [card for seat in self.seats for card in seat.cards]
        cards += [play.card for play in self.trick]
        cards += list(self.table)
        if self.capture is not None:
            cards += list(self.capture[1])
        cards += [card for _, drawn in self.draws for card in drawn]
        if self.trump is not None:
            cards.append(self.trump)
        return [card for card in cards if not card.hidden]


@dataclass
class _Table:
    """What the builder carries from one step to the next."""

    plays: list[Play] = field(default_factory=list)
    auction: list[tuple[int, str]] = field(default_factory=list)
    hand: int = 0
    trump: CardFace | None = None
    trump_suit: str = ""
    captured: dict[int, int] = field(default_factory=dict)
    scope: dict[int, int] = field(default_factory=dict)


SCOPA_GAMES = frozenset({"scopa", "scopone"})
"""Games whose capture event says, in its first value, whether it cleared the table."""


class FrameBuilder:
    """Replays a record and turns each step into a frame for one view."""

    def __init__(self, record: MatchRecord, view: View) -> None:
        """Check the view against the record's seats and start a fresh state."""
        if view is not None and view != PUBLIC and not 0 <= view < record.players:
            raise ValueError(f"no seat {view}: this match has seats 0 to {record.players - 1}")
        self.record = record
        self.view = view
        self.game: Game = record.make_game()
        self.state: State = self.game.new_initial_state(record.seed)
        self.table = _Table()
        self.has_stock = self.state.observation(0).stock_size > 0
        self.fishing = self.game.id in SCOPA_GAMES

    def frames(self) -> list[Frame]:
        """Every frame of the match: the deal, then one per action."""
        frames = [self._frame(0, "The deal", None, self._events(0), None)]
        total = len(self.record.actions)
        conduct = self.record.conduct
        notes = {note.decision: note for note in (conduct.debug if conduct else ())
                 if self.view is None or note.seat == self.view}
        for index, action in enumerate(self.record.actions):
            actor = self.state.current_player()
            label = action_label(self.state, action)
            start = self.state.event_count()
            apply_recorded(self.state, index, action, total)
            events = self._events(start)
            public = self.view is None or actor == self.view or \
                _decision(events, actor) == _decision(self.state.full_events(start), actor)
            label = symbol_label(self.game.deck, label)
            frame = self._frame(index + 1, self._step_label(actor, label, public, events),
                                actor, events, label if public else None)
            note = notes.get(index)
            if note is not None:
                frame = replace(frame, bot_note=safe_text(note.text))
            frames.append(frame)
        return frames

    def _events(self, start: int) -> tuple[Event, ...]:
        """The events logged since ``start`` as this view sees them."""
        if self.view is None:
            return self.state.full_events(start)
        if self.view == PUBLIC:
            return tuple(public_events(self.state, start))
        return self.state.events_since(self.view, start)

    def _step_label(self, actor: int, label: str, public: bool,
                    events: Sequence[Event]) -> str:
        """``Seat 1: 7♦`` when the action may be named, else what the seat was seen doing."""
        if public:
            return f"Seat {actor}: {label}"
        mine = next((event for event in events if event.seat == actor), None)
        verb = VERBS.get(mine.kind, "acts") if mine is not None else "acts"
        return f"Seat {actor} {verb}"

    def _frame(self, index: int, label: str, actor: int | None, events: Sequence[Event],
               action_name: str | None) -> Frame:
        """Apply the step's events to the table and draw the frame."""
        deck = self.game.deck
        trick: tuple[Play, ...] = ()
        winner: int | None = None
        points: int | None = None
        capture: tuple[int, tuple[CardFace, ...]] | None = None
        draws: list[tuple[int, tuple[CardFace, ...]]] = []
        notes: list[str] = []
        for event in events:
            kind = event.kind
            if kind == EventKind.HAND_START:
                self.table.plays.clear()
                self.table.auction.clear()
                self.table.captured.clear()
                self.table.scope.clear()
                self.table.hand = (event.values[0] if event.values else self.table.hand) + 1
            elif kind in (EventKind.PLAY, EventKind.PLAY_FACE_DOWN):
                card = event.cards[0] if event.cards else HIDDEN
                self.table.plays.append(Play(event.seat, card_face(deck, card),
                                             kind == EventKind.PLAY_FACE_DOWN, card))
            elif kind == EventKind.TRICK:
                trick = self._trick(event)
                winner = event.seat
                points = event.values[0] if event.values else None
                self.table.plays.clear()
            elif kind == EventKind.CAPTURE:
                capture = (event.seat, card_faces(deck, event.cards))
                self.table.plays.clear()
                self._count_capture(event)
            elif kind == EventKind.DRAW:
                draws.append((event.seat, card_faces(deck, event.cards)))
            elif kind == EventKind.TRUMP:
                self.table.trump = card_face(deck, event.cards[0]) if event.cards else None
                suit = event.values[0] if event.values else -1
                self.table.trump_suit = deck.suit_symbols[suit] \
                    if 0 <= suit < len(deck.suit_symbols) else ""
            elif kind in AUCTION_KINDS:
                name = action_name if event.seat == actor and action_name else VERBS[kind]
                self.table.auction.append((event.seat, name))
            else:
                note = self._note(event)
                if note:
                    notes.append(note)
        observation = self.state.observation(0 if self.view in (None, PUBLIC) else self.view)
        table = observation.table
        if self.view == PUBLIC:
            everyone = set.intersection(*(set(self.state.observation(seat).table)
                                          for seat in range(self.game.num_players)))
            table = tuple(card for card in table if card in everyone)
        table_cards = set(table)
        self.table.plays = [play for play in self.table.plays
                            if play.card_id == HIDDEN or play.card_id not in table_cards]
        if not trick:
            trick = tuple(self.table.plays)
        return Frame(index=index, label=label, hand=max(self.table.hand, 1),
                     seats=self._seats(), trick=trick, trick_winner=winner,
                     trick_points=points, table=card_faces(deck, table),
                     capture=capture, draws=tuple(draws), auction=tuple(self.table.auction),
                     trump=self.table.trump, trump_suit=self.table.trump_suit,
                     notes=tuple(notes),
                     stock=observation.stock_size if self.has_stock else None,
                     fishing=self.fishing)

    def _count_capture(self, event: Event) -> None:
        """Add a capture to its seat's pile, and to its scope when it cleared the table."""
        seat = event.seat
        self.table.captured[seat] = self.table.captured.get(seat, 0) + len(event.cards)
        if self.fishing and event.values and event.values[0]:
            self.table.scope[seat] = self.table.scope.get(seat, 0) + 1

    def _trick(self, event: Event) -> tuple[Play, ...]:
        """The completed trick in play order, each card with the seat that played it."""
        deck = self.game.deck
        plays = list(self.table.plays)
        result = []
        for card in event.cards:
            face = card_face(deck, card)
            found = next((play for play in plays if play.card.code == face.code), None)
            if found is None:
                found = next((play for play in plays if play.card.hidden), None)
            if found is not None:
                plays.remove(found)
            result.append(Play(found.seat if found else -1, face,
                               found.face_down if found else False))
        return tuple(result)

    def _note(self, event: Event) -> str:
        """A line for an event that changes no cards on the table."""
        deck = self.game.deck
        if event.kind == EventKind.SCORE:
            return "Hand score: " + ", ".join(f"seat {seat} {value:+g}"
                                              for seat, value in enumerate(event.values))
        if event.kind == EventKind.HAND_END and event.values:
            return "Card points: " + ", ".join(f"seat {seat} {value:g}"
                                               for seat, value in enumerate(event.values))
        if event.kind == EventKind.REDEAL:
            return "The hand is thrown in and dealt again"
        if event.kind == EventKind.MATCH_END:
            return "Match over"
        if event.kind in (EventKind.DECLARE, EventKind.SWAP, EventKind.REVEAL):
            cards = " ".join(face.text for face in card_faces(deck, event.cards))
            return f"Seat {event.seat} {VERBS[event.kind]} {cards}".rstrip()
        return ""

    def _seats(self) -> tuple[SeatFrame, ...]:
        """Every seat's cards as this view may see them."""
        deck = self.game.deck
        current = self.state.current_player()
        players = self.record.policies
        if self.view is None:
            observations = [self.state.observation(seat) for seat in range(self.record.players)]
            return tuple(SeatFrame(seat, _player(players, seat), card_faces(deck, seen.hand),
                                   0, seat == current, seen.scores[seat],
                                   *self._piles(seen.points, seat))
                         for seat, seen in enumerate(observations))
        if self.view == PUBLIC:
            return self._public_seats()
        seen = self.state.observation(self.view)
        visible = dict(seen.visible_hands)
        seats = []
        for seat in range(self.record.players):
            if seat == self.view:
                cards = tuple(card for card in seen.hand if card != HIDDEN)
            else:
                cards = tuple(card for card in visible.get(seat, ()) if card != HIDDEN)
            hidden = max(seen.hand_sizes[seat] - len(cards), 0)
            seats.append(SeatFrame(seat, _player(players, seat), card_faces(deck, cards), hidden,
                                   seat == current, seen.scores[seat],
                                   *self._piles(seen.points, seat)))
        return tuple(seats)

    def _public_seats(self) -> tuple[SeatFrame, ...]:
        """Every seat as a spectator sees it: the cards of its hand every seat sees, and the
        scores and card points every seat's observation agrees on (else 0)."""
        deck = self.game.deck
        current = self.state.current_player()
        players = self.record.policies
        seats = range(self.record.players)
        observations = [self.state.observation(seat) for seat in seats]
        seats_frames = []
        for seat in seats:
            cards = set(observations[seat].hand) - {HIDDEN}
            for viewer, seen in enumerate(observations):
                if viewer != seat:
                    cards &= set(dict(seen.visible_hands).get(seat, ()))
            shown = tuple(card for card in observations[seat].hand if card in cards)
            hidden = max(observations[0].hand_sizes[seat] - len(shown), 0)
            score = _agreed([seen.scores[seat] for seen in observations])
            points = int(_agreed([seen.points[seat] if seat < len(seen.points) else 0
                                  for seen in observations]))
            seats_frames.append(SeatFrame(
                seat, _player(players, seat), card_faces(deck, shown), hidden, seat == current,
                score, points, self.table.captured.get(seat, 0), self.table.scope.get(seat, 0)))
        return tuple(seats_frames)

    def _piles(self, points: Sequence[int], seat: int) -> tuple[int, int, int]:
        """A seat's card points, captured cards and scope so far in the hand."""
        return (points[seat] if seat < len(points) else 0,
                self.table.captured.get(seat, 0), self.table.scope.get(seat, 0))


def _agreed(values: Sequence[float]) -> float:
    """The value every view agrees on, else 0."""
    return values[0] if values and all(value == values[0] for value in values) else 0


def _decision(events: Sequence[Event], actor: int) -> list[Event]:
    """The events of an action that show the actor's decision (its own draws left out)."""
    return [event for event in events if event.seat == actor and event.kind != EventKind.DRAW]


def symbol_label(deck: Deck, label: str) -> str:
    """An action's name with every card code in it (``7D``) written with its suit (``7♦``)."""
    def replace(found: re.Match[str]) -> str:
        """One word: a card's symbol form when it is a card code of the deck."""
        word = found.group(0)
        try:
            card = deck.parse(word)
        except ValueError:
            return word
        return card_face(deck, card).text if deck.short(card) == word else word

    return CARD_WORD.sub(replace, label)


def _player(players: Sequence[str], seat: int) -> str:
    """The player named for a seat in the record, or the seat's number."""
    return players[seat] if seat < len(players) else f"seat {seat}"


def match_frames(record: MatchRecord, view: View) -> list[Frame]:
    """Every frame of a finished match for a view: ``None`` (full) or a seat number."""
    return FrameBuilder(record, view).frames()
