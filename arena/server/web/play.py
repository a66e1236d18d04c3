"""Playing against the bots: a signed-in person takes a seat at a table (``arena.server.tables``).

``/play`` offers the games and opponents (``arena.server.table_opponents``) and opens a table
(POST, from this site only);
``/play/{table}`` is the person's seat view: the board as the engine lets that seat see it,
the clock, and the legal actions as buttons (keys 1 to 9 with ``play.js``). ``/play/{table}/board``
sends the board again once it has changed (a long poll), and ``/play/{table}/act`` plays an
action: one that is not legal now is refused (400, one line) and the clock runs on. A table is
its user's only: anyone else gets a 404.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response

from arena.games.cards import Deck
from arena.match.record import MatchRecord
from arena.match.timeline import action_label
from arena.server.table_opponents import Opponent, offered
from arena.server.tables import (
    DEFAULT_GAME,
    HUMAN_SEAT,
    TABLE_CLOCK,
    Table,
    TableError,
    Tables,
    table_games,
)
from arena.server.web.cards import CardFace, card_face
from arena.server.web.frames import Frame, match_frames, symbol_label
from arena.server.web.rendering import error_page, page
from arena.server.web.signin import CROSS_SITE, SignedIn, form_fields, same_origin, viewer_of

router = APIRouter()

WAIT_S = 20.0
"""How long a request for the board waits for a change before it answers anyway."""

KEYS = 9
"""Actions beyond the ninth have a button but no key."""

NOT_SIGNED_IN = "sign in to play: the table is kept for your account"
"""The one line for a table asked for without signing in."""


@dataclass(frozen=True)
class Choice:
    """One legal action as a button: its engine action, its label and its key (0: none)."""

    action: int
    label: str
    key: int
    card: CardFace | None = None
    """The card the action plays, when it is one card of the deck."""


@dataclass(frozen=True)
class Board:
    """What the person's seat sees of a table now."""

    table: Table
    frame: Frame | None
    choices: tuple[Choice, ...]
    time_left_ms: int | None


def tables_of(request: Request) -> Tables:
    """The app's tables."""
    tables: Tables = request.app.state.tables
    return tables


def board_of(table: Table) -> Board:
    """The table as its person's seat sees it (only what ``observation(seat)`` shows); called
    on the event loop that plays the table, so the state does not move while it is read."""
    agent, state = table.agent, table.agent.state
    if state is None:
        return Board(table, None, (), None)
    record = MatchRecord.from_state(state, table.labels)
    frame = match_frames(record, HUMAN_SEAT)[-1]
    turn = agent.turn
    choices: tuple[Choice, ...] = ()
    if turn is not None:
        choices = tuple(_choice(state.game.deck, action_label(state, action), action, index)
                        for index, action in enumerate(turn.state.legal_actions()))
    left = agent.time_left_s()
    return Board(table, frame, choices, None if left is None else int(left * 1000))


def _choice(deck: Deck, label: str, action: int, index: int) -> Choice:
    """The button of the ``index``-th legal action: its label as the replay writes it, its key
    and its card, if it names one."""
    try:
        card = deck.parse(label)
    except ValueError:
        card = None
    face = card_face(deck, card) if card is not None and deck.short(card) == label else None
    return Choice(action, symbol_label(deck, label), index + 1 if index < KEYS else 0, face)


def _offered(tables: Tables, user_id: int) -> list[Opponent]:
    """The opponents the user may choose."""
    with tables.store.session() as session:
        return offered(session, user_id)


def _viewer_or_refusal(request: Request) -> SignedIn | Response:
    """The signed-in user, or the page saying to sign in (401)."""
    viewer = viewer_of(request)
    if viewer is None:
        return error_page(request, 401, NOT_SIGNED_IN)
    return viewer


def _table(request: Request, table_id: str) -> Table | Response:
    """The signed-in user's table of that id, or the error page."""
    viewer = _viewer_or_refusal(request)
    if not isinstance(viewer, SignedIn):
        return viewer
    table = tables_of(request).get(table_id, viewer.id)
    if table is None:
        return error_page(request, 404, f"you have no table {table_id!r}: open one at /play")
    return table


@router.get("/play", response_class=HTMLResponse)
async def play_page(request: Request) -> Response:
    """The form that opens a table (or says to sign in first)."""
    viewer = viewer_of(request)
    tables = tables_of(request)
    current = None if viewer is None else tables.of_user(viewer.id)
    opponents = [] if viewer is None else await asyncio.to_thread(
        _offered, tables, viewer.id)
    games = table_games()
    counts = sorted({count for _, seats in games for count in seats})
    return page(request, "play.html", games=games, default_game=DEFAULT_GAME,
                seat_counts=counts, opponents=opponents, clock=TABLE_CLOCK, current=current)


@router.post("/play")
async def open_table(request: Request) -> Response:
    """Open a table for the signed-in user and go to it."""
    if not same_origin(request):
        return error_page(request, 403, CROSS_SITE)
    viewer = _viewer_or_refusal(request)
    if not isinstance(viewer, SignedIn):
        return viewer
    fields = await form_fields(request)
    if fields is None:
        return error_page(request, 400, "the form is too large")
    tables = tables_of(request)
    players = fields.get("players", "").strip()
    if players and not players.isdigit():
        return error_page(request, 400, f"players must be a whole number, got {players!r}")
    try:
        table = await tables.open(viewer.id, viewer.name, fields.get("game", ""),
                                  fields.get("opponent", ""), int(players) if players else None)
    except TableError as error:
        return error_page(request, error.status, str(error))
    return RedirectResponse(f"/play/{table.id}", status_code=303)


@router.get("/play/{table_id}", response_class=HTMLResponse)
async def table_page(request: Request, table_id: str) -> Response:
    """The person's seat view of the table."""
    table = _table(request, table_id)
    if not isinstance(table, Table):
        return table
    return page(request, "play_table.html", board=board_of(table), clock=TABLE_CLOCK)


@router.get("/play/{table_id}/board", response_class=HTMLResponse)
async def table_board(request: Request, table_id: str,
                      after: int = Query(-1, ge=-1)) -> Response:
    """The board, once the table has moved past change ``after`` (or after ``WAIT_S``)."""
    table = _table(request, table_id)
    if not isinstance(table, Table):
        return table
    await table.wait_change(after, WAIT_S)
    return page(request, "play_board.html", board=board_of(table))


@router.post("/play/{table_id}/act")
async def act(request: Request, table_id: str) -> Response:
    """Play the posted action for the person's turn; 400 and one line when it is not legal."""
    if not same_origin(request):
        return error_page(request, 403, CROSS_SITE)
    table = _table(request, table_id)
    if not isinstance(table, Table):
        return table
    fields = await form_fields(request) or {}
    value = fields.get("action", "")
    problem = (f"action must be a whole number, got {value!r}"
               if not value.strip().lstrip("-").isdigit() else table.agent.choose(int(value)))
    plain = "text/plain" in request.headers.get("accept", "")
    if problem:
        return PlainTextResponse(problem, 400) if plain else error_page(request, 400, problem)
    return Response(status_code=204) if plain else RedirectResponse(
        f"/play/{table.id}", status_code=303)
