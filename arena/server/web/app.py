"""The web application of ``arena serve``: pages rendered on the server with Jinja2.

Every page reads the store through ``Queries``; a missing bot, league, match or game is a 404
page, bad query parameters a 400 page, and anything unexpected a 500 page without a trace.
Each page knows who is signed in (``signin``): a match's replay is read for that user.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from arena.league.report_page import TEMPLATES
from arena.server.tables import Tables
from arena.server.web.live import router as live_router
from arena.server.web.pages import router
from arena.server.web.play import router as play_router
from arena.server.web.queries import NotFound, Queries
from arena.server.web.rendering import HERE, BadRequest, error_page, make_templates
from arena.server.web.signin import router as sign_in_router
from arena.server.web.signin import signed_in
from arena.store import open_store

log = logging.getLogger(__name__)

FAVICON = TEMPLATES / "favicon.svg"
"""The site's icon, the one the report file embeds: a card on the header's green."""


async def on_http_error(request: Request, error: Exception) -> Response:
    """An HTTP error (404 for an unknown page, 405...) as an error page."""
    status = error.status_code if isinstance(error, HTTPException) else 500
    detail = error.detail if isinstance(error, HTTPException) else ""
    if status == 404 and detail in ("", "Not Found"):
        detail = f"there is no page at {request.url.path}"
    return error_page(request, status, str(detail))


async def on_not_found(request: Request, error: Exception) -> Response:
    """A bot, league, match or game missing from the store: a 404 page."""
    return error_page(request, 404, str(error))


async def on_bad_request(request: Request, error: Exception) -> Response:
    """Query parameters that do not parse: a 400 page naming the first problem."""
    problems: Sequence[Any] = error.errors() if isinstance(error, RequestValidationError) \
        else ()
    if problems:
        where = ".".join(str(part) for part in problems[0].get("loc", ())[1:])
        message = f"{where}: {problems[0].get('msg', 'invalid')}".strip(": ")
    else:
        message = str(error)
    return error_page(request, 400, message)


async def on_server_error(request: Request, error: Exception) -> Response:
    """Anything unexpected: logged, and a 500 page without a trace."""
    log.exception("error while serving %s", request.url.path, exc_info=error)
    return error_page(request, 500, "something went wrong while making this page")


async def favicon() -> Response:
    """The site's icon, which pages link, and where browsers look for it first."""
    return FileResponse(FAVICON, media_type="image/svg+xml")


def create_app(store_url: str, rate_humans: bool = False) -> FastAPI:
    """The web app reading the store at ``store_url`` (a URL or a SQLite path); people's
    tables count on the leaderboards only with ``rate_humans``."""
    store = open_store(store_url)
    tables = Tables(store)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        """Stop the tables in play and close the store's connections when the server stops."""
        yield
        await tables.stop()
        store.close()

    app = FastAPI(title="Card Arena", docs_url=None, redoc_url=None, openapi_url=None,
                  lifespan=lifespan)
    app.state.queries = Queries(store, rate_humans)
    app.state.tables = tables
    app.state.templates = make_templates()
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    app.add_api_route("/favicon.svg", favicon, include_in_schema=False, name="favicon")
    app.add_api_route("/favicon.ico", favicon, include_in_schema=False)
    app.include_router(live_router, dependencies=[Depends(signed_in)])
    app.include_router(router, dependencies=[Depends(signed_in)])
    app.include_router(sign_in_router, dependencies=[Depends(signed_in)])
    app.include_router(play_router, dependencies=[Depends(signed_in)])
    app.add_exception_handler(HTTPException, on_http_error)
    app.add_exception_handler(NotFound, on_not_found)
    app.add_exception_handler(RequestValidationError, on_bad_request)
    app.add_exception_handler(BadRequest, on_bad_request)
    app.add_exception_handler(Exception, on_server_error)
    return app

