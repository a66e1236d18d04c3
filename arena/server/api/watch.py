"""Watching a match: its state, the deals in play as the viewer may see them, then the full
deals once it is over.

While a match runs (in a league created through the service), its runner writes each deal's
actions so far to ``live_deals`` (``arena.league.live``); the watcher re-simulates them with
the engine and streams the new events: the public view (what every seat may see) for a
spectator, or one seat's view for the owner of the bot in that seat. Once the match is done,
each deal is streamed again from its record with every card shown, then the outcome.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.games import Event, Game, State, load_game
from arena.league.status import bot_names
from arena.match import MatchRecord
from arena.match.spectator import public_events
from arena.match.timeline import match_steps
from arena.protocol.schema import platform as pb
from arena.server.api.convert import match_info
from arena.server.api.errors import not_found
from arena.server.records import match_records
from arena.store import Match, MatchStatus, Store
from arena.store.bots import versions_by_id
from arena.store.live import live_deals
from arena.store.results import seat_results

POLL_S = 0.25
"""How often a watcher looks again at a match that is not over."""

FINISHED = (MatchStatus.DONE, MatchStatus.VOID)


def find_match(store: Store, match_id: str) -> Match:
    """The match of that id, or NOT_FOUND."""
    with store.session() as session:
        match = session.get(Match, match_id)
        if match is None:
            raise not_found(f"no match {match_id!r} (arena remote league status LEAGUE lists "
                            "them)")
        return match


def entrant_names(store: Store, entrants: Sequence[int]) -> dict[int, str]:
    """The display names of a match's bot versions."""
    with store.session() as session:
        return bot_names(versions_by_id(session, entrants).values())


def deal_records(store: Store, match_id: str) -> list[dict[str, Any]]:
    """The stored record of every deal of a match, in deal order, every bot's logs withheld
    (a watcher is sent none)."""
    return match_records(store, match_id, None)


def live_actions(store: Store, match_id: str) -> dict[int, list[int]]:
    """The actions so far of each deal in play, by deal."""
    with store.session() as session:
        return live_deals(session, match_id)


def plain_record(data: dict[str, Any]) -> MatchRecord:
    """A stored deal record as a match record (the league's own keys left out)."""
    return MatchRecord.from_dict({key: value for key, value in data.items()
                                  if key not in ("rotation", "entrants")})


@dataclass
class LiveDealView:
    """One deal in play as a viewer follows it: the re-simulated state and what was sent."""

    game: Game
    seed: int
    seat: int | None
    """The viewer's seat, or None for the public view."""
    names: list[str] = field(default_factory=list)
    sent: int = 0
    state: State | None = None

    def advance(self, actions: Sequence[int]) -> list[Event]:
        """Apply the new actions; the events the viewer has not been sent yet. Actions that
        do not extend the ones applied (the match started again) start the deal afresh."""
        history = self.state.history() if self.state is not None else []
        if self.state is None or list(actions[:len(history)]) != history:
            self.state = self.game.new_initial_state(self.seed)
            self.sent = 0
            history = []
        for action in actions[len(history):]:
            self.state.apply_action(int(action))
        events = (public_events(self.state) if self.seat is None
                  else list(self.state.events_since(self.seat, 0)))
        fresh = events[self.sent:]
        self.sent = len(events)
        return fresh


@dataclass
class Watcher:
    """What one watcher sees of a match: the viewer's entrants, the names, the deals in play."""

    store: Store
    match: Match
    names: dict[int, str]
    mine: frozenset[int] = frozenset()
    """The entrant indexes (places in the match's entrants) whose view the viewer has."""
    deals: dict[int, LiveDealView] = field(default_factory=dict)

    def game(self) -> Game:
        """The match's game."""
        return load_game(self.match.game_id, self.match.seats, self.match.params)

    def seat_names(self, rotation: int) -> list[str]:
        """The display name at each seat of a deal (entrant ``e`` sits at ``e + rotation``)."""
        players = self.match.seats
        return [self.names.get(self.match.entrants[(seat - rotation) % players], "")
                for seat in range(players)]

    def live(self) -> Iterator[pb.WatchMatchResponse]:
        """The events of the deals in play the viewer has not been sent."""
        for deal, actions in sorted(live_actions(self.store, self.match.id).items()):
            view = self.deals.get(deal)
            if view is None:
                seat = (min(self.mine) + deal) % self.match.seats if self.mine else None
                view = self.deals[deal] = LiveDealView(self.game(), self.match.seed, seat,
                                                       names=self.seat_names(deal))
            kind = pb.WATCH_VIEW_PUBLIC if view.seat is None else pb.WATCH_VIEW_SEAT
            fresh = view.advance(actions)
            start = view.sent - len(fresh)
            for offset, event in enumerate(fresh):
                yield pb.WatchMatchResponse(event=event_message(
                    deal, start + offset, event, view.names, "", kind))

    def full(self) -> Iterator[pb.WatchMatchResponse]:
        """Every event of every deal of the finished match, all cards shown."""
        for deal, data in enumerate(deal_records(self.store, self.match.id)):
            record = plain_record(data)
            names = self.seat_names(int(data.get("rotation", deal)))
            steps = match_steps(record.make_game(), record.seed, record.actions)
            for index, step in enumerate(steps):
                yield pb.WatchMatchResponse(event=event_message(
                    deal, index, step.event, names, step.label or "", pb.WATCH_VIEW_FULL))

    def outcome(self) -> pb.MatchOutcome:
        """How the finished (or void) match ended."""
        match = self.match
        with self.store.session() as session:
            results = seat_results(session, match.id)
        done = match.status is MatchStatus.DONE
        return pb.MatchOutcome(
            state=pb.MATCH_STATE_DONE if done else pb.MATCH_STATE_VOID,
            entrants=[self.names.get(entrant, str(entrant)) for entrant in match.entrants],
            total_returns=[result.total_return for result in results],
            reason="" if done else match.last_error or "")


def event_message(deal: int, index: int, event: Event, names: Sequence[str], action: str,
                  view: pb.WatchView) -> pb.MatchEvent:
    """One event as the API sends it."""
    player = names[event.seat] if 0 <= event.seat < len(names) else ""
    return pb.MatchEvent(deal=deal, index=index, kind=event.kind.name, seat=event.seat,
                         cards=list(event.cards), values=list(event.values), action=action,
                         player=player, view=view)


def watch_match(store: Store, match_id: str, mine: frozenset[int], stopping: threading.Event,
                is_active: Callable[[], bool]) -> Iterator[pb.WatchMatchResponse]:
    """The stream of one match: its state on every change and the deals in play (seen as the
    entrants ``mine`` see them, or publicly), then the full deals and the outcome. It stops
    early when ``is_active()`` turns false (the watcher left) or ``stopping`` is set."""
    match = find_match(store, match_id)
    watcher = Watcher(store, match, entrant_names(store, match.entrants), mine)
    seen: MatchStatus | None = None
    while True:
        match = watcher.match = find_match(store, match_id)
        if match.status != seen:
            seen = match.status
            yield pb.WatchMatchResponse(match=match_info(match, watcher.names))
        if match.status in FINISHED:
            break
        if match.status is MatchStatus.LEASED:
            yield from watcher.live()
        if stopping.wait(POLL_S) or not is_active():
            return
    if match.status is MatchStatus.DONE:
        yield from watcher.full()
    yield pb.WatchMatchResponse(outcome=watcher.outcome())
