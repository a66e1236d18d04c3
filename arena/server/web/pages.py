"""The pages: leaderboards, games, bots, leagues, a league's report, and match replays."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from markupsafe import Markup

from arena.games import game_ids
from arena.league.plots import ratings_figure
from arena.league.ratings import Rating
from arena.league.report import OVERALL_IMAGE, bot_name, image_names, sections
from arena.league.report_page import PAGE as REPORT_PAGE
from arena.league.report_page import page_context
from arena.match.record import MatchRecord
from arena.match.safetext import safe_text
from arena.server.web.frames import Frame, View, match_frames
from arena.server.web.history import history_svg, rating_history
from arena.server.web.live import live_match, marks_of
from arena.server.web.queries import MatchPage, NotFound, Queries, game_names
from arena.server.web.rendering import BadRequest, page, url_part
from arena.server.web.signin import viewer_of

router = APIRouter()

FRAME_CACHE = 64
"""How many replays (a deal in one view) are kept ready."""


def queries(request: Request) -> Queries:
    """The app's store reads."""
    result: Queries = request.app.state.queries
    return result


@router.get("/", response_class=HTMLResponse)
def home(request: Request) -> Response:
    """The overall leaderboard and a link to every game's."""
    live = site_live(request)
    boards = queries(request).boards()
    return page(request, "index.html", boards=boards,
                games=game_names(boards, game_ids()), **live)


@router.get("/games/{game}", response_class=HTMLResponse)
def game_page(request: Request, game: str) -> Response:
    """One game's leaderboard."""
    live = site_live(request)
    boards = queries(request).boards()
    if game not in boards.per_game and game not in game_ids():
        raise NotFound(f"no game {game!r}")
    return page(request, "game.html", game=game, boards=boards,
                ratings=boards.per_game.get(game, []), **live)


@router.get("/bots/{name:path}", response_class=HTMLResponse)
def bot_page(request: Request, name: str) -> Response:
    """A bot: its rating history, results by game and head to head."""
    live = site_live(request)
    reads = queries(request)
    bot = reads.bot(name)
    boards = reads.boards()
    history = rating_history(boards.played, bot.display, boards.policies)
    shown = ", ".join(bot.display) or name
    plot = Markup(history_svg(history, safe_text(f"{shown}: overall rating")))
    return page(request, "bot.html", bot=bot, plot=plot, sets=len(history),
                boards=reads.boards(), **live)


@router.get("/leagues", response_class=HTMLResponse)
def leagues_page(request: Request) -> Response:
    """Every league with its progress."""
    live = site_live(request)
    return page(request, "leagues.html", leagues=queries(request).leagues(), **live)


@router.get("/leagues/{name}", response_class=HTMLResponse)
def league_page(request: Request, name: str) -> Response:
    """A league's progress: done out of total per game, status, matches."""
    live = site_live(request)
    return page(request, "league.html", league=queries(request).league(name), **live)


@router.get("/leagues/{name}/report", response_class=HTMLResponse)
def report_page(request: Request, name: str) -> Response:
    """A league's comparison report, from the template of ``arena report``'s page."""
    report = queries(request).report(name)
    league = f"/leagues/{url_part(name)}"
    return page(request, REPORT_PAGE, **page_context(
        bot_name(report.name), sections(report), "base.html", f"{league}/report/plots/",
        league))


@router.get("/leagues/{name}/report/plots/{image}")
def report_plot(request: Request, name: str, image: str) -> Response:
    """One ratings plot of a league's report, as PNG."""
    report = queries(request).report(name)
    plots: dict[str, tuple[Sequence[Rating[Any]], str]] = {
        OVERALL_IMAGE: (report.overall, f"{report.name}: overall")}
    for game, file_name in zip(report.games, image_names(report), strict=True):
        plots[file_name] = (game.ratings, game.game)
    if image not in plots:
        raise NotFound(f"no plot {image!r} in the report of {name!r}")
    ratings, title = plots[image]
    buffer = io.BytesIO()
    ratings_figure(ratings, title).savefig(buffer, format="png")
    return Response(buffer.getvalue(), media_type="image/png")


@router.get("/matches/{match_id:path}", response_class=HTMLResponse)
def match_page(request: Request, match_id: str, view: str = "full", deal: str = "0",
               step: str = "0") -> Response:
    """A match: its entrants and results, and a replay of one deal from one view (with the
    debug notes of the signed-in user's bots); a running match shows its deals in play."""
    viewer = viewer_of(request)
    mark = marks_of(request).match(match_id)
    match = queries(request).match(match_id, viewer.reader() if viewer is not None else None)
    context: dict[str, Any] = {"match": match, "view_name": view}
    if not match.records:
        return page(request, "match.html", frame=None,
                    live=live_match(request, match_id, view), live_mark=mark,
                    live_source=f"/live/matches/{url_part(match.id)}", **context)
    replay = _replay(match, view, deal)
    index = _number("step", step, len(replay.frames) - 1)
    steps_url = f"/replay-steps/{url_part(match.id)}?view={view}&deal={replay.deal}"
    return page(request, "match.html", frame=replay.frames[index], frames=replay.frames,
                step=index, last=len(replay.frames) - 1, deal=replay.deal, seat=replay.seat,
                players=replay.players, policies=replay.record.get("policies", []),
                rotation=replay.record.get("rotation"), frames_url=steps_url, **context)


@router.get("/replay-steps/{match_id:path}", response_class=HTMLResponse)
def replay_steps(request: Request, match_id: str, view: str = "full",
                 deal: str = "0") -> Response:
    """Every step of one deal of a finished match in one view, for the replay script to step
    through on the client (read for the signed-in user, as the match page)."""
    viewer = viewer_of(request)
    match = queries(request).match(match_id, viewer.reader() if viewer is not None else None)
    if not match.records:
        raise NotFound(f"no replay of match {match_id!r}: it is {match.status}")
    replay = _replay(match, view, deal)
    return page(request, "replay_steps.html", frames=replay.frames, last=len(replay.frames) - 1,
                deal=replay.deal, seat=replay.seat, view_name=view)


@dataclass(frozen=True)
class Replay:
    """One deal of a finished match in one view: its record, seat count and frames."""

    deal: int
    record: dict[str, Any]
    players: int
    seat: View
    frames: list[Frame]


def _replay(match: MatchPage, view: str, deal: str) -> Replay:
    """The frames of a deal of a match in a view, from the page's query parameters."""
    deal_index = _number("deal", deal, len(match.records) - 1)
    record = match.records[deal_index]
    players = int(record.get("players", 0))
    seat = _view(view, players)
    frames = replay_frames(json.dumps(record, sort_keys=True), seat)
    return Replay(deal_index, record, players, seat, frames)


def _number(name: str, text: str, highest: int) -> int:
    """A whole number 0..highest from a query parameter, or ``BadRequest``."""
    if not text.strip().isdigit() or not 0 <= int(text) <= highest:
        raise BadRequest(f"{name} must be a whole number from 0 to {highest}, got {text!r}")
    return int(text)


def _view(text: str, players: int) -> View:
    """``full`` or a seat number of the match, or ``BadRequest``."""
    if text == "full":
        return None
    if not text.strip().isdigit() or not 0 <= int(text) < players:
        raise BadRequest(f"view must be full or a seat from 0 to {players - 1}, got {text!r}")
    return int(text)


def site_live(request: Request) -> dict[str, str]:
    """The site's event stream and its mark now, for a page that follows the site's changes
    (read before the page's content, so a change in between is sent)."""
    return {"live_source": "/live/site", "live_mark": marks_of(request).site()}


@lru_cache(maxsize=FRAME_CACHE)
def replay_frames(record_json: str, view: View) -> list[Frame]:
    """The frames of a stored deal record (given as JSON, for the cache) in one view."""
    data = json.loads(record_json)
    record = MatchRecord.from_dict({key: value for key, value in data.items()
                                    if key not in ("rotation", "entrants")})
    return match_frames(record, view)
