"""Live pages: server-sent events that tell a page its content changed, and the deals in play
of a running match as its viewer may see them.

A page that can change carries a *mark* (``data-live-mark``) and the address of its event
stream (``data-live-source``). The stream polls the store (at most once a second for every
stream together) and sends an event ``change`` with the new mark whenever it differs; the
page's script then fetches the page again and swaps in its ``[data-live-region]``. The site's
mark counts the matches in each state and the leagues, so it moves when a match starts,
finishes or fails and when a league is made; a match's mark adds the actions so far of each
deal in play. No mark holds a card: a running match's mark counts actions.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from fastapi import APIRouter, Request
from fastapi.responses import Response, StreamingResponse
from sqlalchemy import func, select

from arena.games import Event, EventKind, load_game
from arena.games.cards import Deck
from arena.league.status import bot_names
from arena.match import MatchRecord
from arena.server.api.watch import LiveDealView, live_actions
from arena.server.web.cards import CardFace, card_faces
from arena.server.web.frames import PUBLIC, VERBS, Frame, match_frames
from arena.server.web.signin import store_of, viewer_of
from arena.store import Bot, BotVersion, League, Match, MatchStatus, Store
from arena.store.bots import versions_by_id

router = APIRouter()

POLL_S = 1.0
"""How often the store is asked again for a mark (shared by every stream)."""

HEARTBEAT_S = 15.0
"""How often an idle stream sends a comment, so proxies keep it open."""

RETRY_MS = 3000
"""How long a browser waits before it connects again to a stream that ended."""

STREAM_S = 60.0
"""How long one stream lasts; the browser then connects again (after ``RETRY_MS``) and is
sent the current mark, so nothing is missed, and a server that stops waits for no stream
longer than this."""

MAX_MARKS = 1000
"""How many marks are kept; beyond it the cache starts afresh (match ids are the caller's)."""

MAX_STREAMS = 200
"""How many event streams are served at once; one more is refused with 503."""

SEAT_VIEW = "mine"
"""The ``view`` of a running match's page that asks for the signed-in owner's seat."""


def site_mark(store: Store) -> str:
    """What the leaderboards, leagues and bots pages depend on: matches per state, leagues."""
    with store.session() as session:
        counts = dict(session.execute(
            select(Match.status, func.count()).group_by(Match.status)).all())
        leagues = session.scalar(select(func.count()).select_from(League)) or 0
    states = ",".join(f"{status.value}={counts.get(status, 0)}" for status in MatchStatus)
    return f"{states};leagues={leagues}"


def match_mark(store: Store, match_id: str) -> str:
    """What a match's page depends on: its state and the number of actions of each deal in
    play (never a card)."""
    with store.session() as session:
        match = session.get(Match, match_id)
        status = match.status.value if match is not None else "missing"
    if status != MatchStatus.LEASED.value:
        return status
    played = live_actions(store, match_id)
    return status + ";" + ",".join(f"{deal}:{len(actions)}"
                                   for deal, actions in sorted(played.items()))


class Marks:
    """The latest marks, each read from the store at most once per ``POLL_S`` for every
    stream; a bounded number of streams."""

    def __init__(self, store: Store) -> None:
        """No mark read yet, no stream open."""
        self.store = store
        self.lock = threading.Lock()
        self.cache: dict[str, tuple[float, str]] = {}
        self.slots = threading.BoundedSemaphore(MAX_STREAMS)

    def read(self, key: str, reader: Callable[[], str]) -> str:
        """The mark under ``key``, read again once it is older than ``POLL_S``."""
        with self.lock:
            cached = self.cache.get(key)
        now = time.monotonic()
        if cached is not None and now - cached[0] < POLL_S:
            return cached[1]
        mark = reader()
        with self.lock:
            if len(self.cache) >= MAX_MARKS:
                self.cache.clear()
            self.cache[key] = (now, mark)
        return mark

    def site(self) -> str:
        """The site's mark."""
        return self.read("site", lambda: site_mark(self.store))

    def match(self, match_id: str) -> str:
        """A match's mark."""
        return self.read(f"match:{match_id}", lambda: match_mark(self.store, match_id))


def marks_of(request: Request) -> Marks:
    """The app's marks, made on first use."""
    marks: Marks | None = getattr(request.app.state, "live_marks", None)
    if marks is None:
        marks = request.app.state.live_marks = Marks(store_of(request))
    return marks


async def changes(request: Request, mark: Callable[[], str]) -> AsyncIterator[str]:
    """The event stream: the current mark first, then every new one, until the browser
    leaves."""
    yield f"retry: {RETRY_MS}\n\n"
    sent = ""
    quiet_since = started = time.monotonic()
    while time.monotonic() - started < STREAM_S and not await request.is_disconnected():
        current = await asyncio.to_thread(mark)
        if current != sent:
            sent = current
            quiet_since = time.monotonic()
            yield f"event: change\ndata: {current}\n\n"
        elif time.monotonic() - quiet_since > HEARTBEAT_S:
            quiet_since = time.monotonic()
            yield ": still here\n\n"
        await asyncio.sleep(POLL_S)


def stream(request: Request, mark: Callable[[], str]) -> Response:
    """A ``text/event-stream`` response of ``changes``, or 503 when too many are open."""
    marks = marks_of(request)
    if not marks.slots.acquire(blocking=False):
        return Response("too many live pages are open on this server; reload later\n",
                        status_code=503, media_type="text/plain")

    async def guarded() -> AsyncIterator[str]:
        """The changes, giving the slot back when the stream ends."""
        try:
            async for chunk in changes(request, mark):
                yield chunk
        finally:
            marks.slots.release()

    return StreamingResponse(guarded(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@router.get("/live/site")
def site_changes(request: Request) -> Response:
    """Events when a match starts, finishes or fails, or a league is made."""
    marks = marks_of(request)
    return stream(request, marks.site)


@router.get("/live/matches/{match_id:path}")
def match_changes(request: Request, match_id: str) -> Response:
    """Events when a match's state changes or a deal in play has a new action."""
    marks = marks_of(request)
    return stream(request, lambda: marks.match(match_id))


@dataclass(frozen=True)
class LiveLine:
    """One event of a deal in play, as the viewer may see it."""

    seat: int
    player: str
    text: str
    cards: tuple[CardFace, ...]


@dataclass(frozen=True)
class LiveDeal:
    """A deal in play: its number, the seat watched (None: the public view), the board now
    and its events."""

    deal: int
    seat: int | None
    lines: tuple[LiveLine, ...]
    frame: Frame | None = None
    """The board after the latest action, as the view sees it (the replay's frame)."""


@dataclass(frozen=True)
class LiveMatch:
    """What a running match's page shows: its deals in play, whose view, and the owner's
    choice of view."""

    deals: tuple[LiveDeal, ...]
    view: str
    """``public``, or ``mine`` for the seat of the signed-in owner's bot."""
    own_seat: bool
    """Whether the signed-in viewer owns a bot of the match (and may ask for its seat)."""


def own_entrants(store: Store, match: Match, user_id: int | None) -> frozenset[int]:
    """The places in the match's entrants of the bots ``user_id`` owns."""
    if user_id is None:
        return frozenset()
    with store.session() as session:
        versions = set(session.scalars(select(BotVersion.id).join(Bot).where(
            Bot.owner_id == user_id)))
    return frozenset(place for place, entrant in enumerate(match.entrants)
                     if entrant in versions)


def live_match(request: Request, match_id: str, view: str) -> LiveMatch | None:
    """The deals in play of a running match, in the public view or (``view`` ``mine``, for
    the signed-in owner of one of its bots) that bot's seat; None for a match not running."""
    store = store_of(request)
    with store.session() as session:
        match = session.get(Match, match_id)
        if match is None or match.status is not MatchStatus.LEASED:
            return None
        names = bot_names(versions_by_id(session, match.entrants).values())
        session.expunge(match)
    viewer = viewer_of(request)
    mine = own_entrants(store, match, viewer.id if viewer is not None else None)
    shown = SEAT_VIEW if view == SEAT_VIEW and mine else "public"
    game = load_game(match.game_id, match.seats, match.params)
    deals = []
    for deal, actions in sorted(live_actions(store, match.id).items()):
        seat = (min(mine) + deal) % match.seats if shown == SEAT_VIEW else None
        played = LiveDealView(game, match.seed, seat)
        events = played.advance(actions)
        deals.append(LiveDeal(deal, seat, tuple(
            live_line(game.deck, event) for event in events),
            live_frame(played, seat_names(match, names, deal))))
    return LiveMatch(tuple(deals), shown, bool(mine))


def seat_names(match: Match, names: dict[int, str], rotation: int) -> list[str]:
    """The display name at each seat of a deal (entrant ``e`` sits at ``e + rotation``)."""
    players = match.seats
    return [names.get(match.entrants[(seat - rotation) % players], "")
            for seat in range(players)]


def live_frame(played: LiveDealView, players: list[str]) -> Frame | None:
    """The board of a deal in play after its latest action, in the deal's view (a seat's, or
    the public one)."""
    if played.state is None:
        return None
    record = MatchRecord.from_state(played.state, players)
    return match_frames(record, PUBLIC if played.seat is None else played.seat)[-1]


def live_line(deck: Deck, event: Event) -> LiveLine:
    """An event as a line: who did what, and its cards (a hidden one as a card back)."""
    kind = event.kind
    verb = VERBS.get(kind) or kind.name.lower().replace("_", " ")
    if kind == EventKind.DEAL:
        verb = "is dealt"
    elif kind == EventKind.HAND_START:
        verb = f"deals hand {event.values[0] + 1}" if event.values else "deals"
    elif kind == EventKind.TRUMP:
        verb = "turns up the trump"
    elif kind == EventKind.TRICK:
        verb = "wins the trick" + (f" ({event.values[0]} points)" if event.values else "")
    elif kind in (EventKind.SCORE, EventKind.HAND_END, EventKind.MATCH_END):
        verb = f"{kind.name.lower().replace('_', ' ')}: " + ", ".join(
            f"{value:g}" for value in event.values)
    return LiveLine(event.seat, f"Seat {event.seat}" if event.seat >= 0 else "",
                    verb, card_faces(deck, event.cards))
