"""Signing in to the web pages with an API token, so a bot's owner sees its logs in replays.

The sign-in form posts the token (never in a URL); it is checked as the gRPC API checks it
(``arena.store.accounts.user_for_token``), and a session cookie is set: a random value kept in
the store only as its SHA-256 (``arena.store.web_sessions``), HttpOnly, SameSite=Strict,
Path=/, Secure over https. Every POST must come from a page of this site: its ``Origin``
header (or, without one, its ``Referer``) must be the request's own origin.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from arena.server.records import Viewer
from arena.server.records import viewer_of as records_viewer
from arena.server.web.rendering import error_page, page
from arena.store import Store
from arena.store.accounts import user_for_token
from arena.store.web_sessions import (
    SESSION_DAYS,
    end_web_session,
    start_web_session,
    web_session_user,
)

SESSION_COOKIE = "arena_session"
"""The cookie holding a sign-in's random value."""

FORM_BYTES = 4096
"""The largest sign-in or sign-out form body read."""

CROSS_SITE = "cross-site request refused: sign in and out from the pages of this site"
"""The one line of a POST that did not come from a page of this site."""

NO_TOKEN = "no API token: paste the token 'arena remote register NAME' gave you"
"""The form's line for an empty token."""

UNKNOWN_TOKEN = "unknown API token: check it, or register for a new one"
"""The form's line for a token the store does not know (the API's own words)."""

router = APIRouter()


@dataclass(frozen=True, slots=True)
class SignedIn:
    """The user a browser is signed in as."""

    id: int
    name: str
    is_admin: bool = False

    def reader(self) -> Viewer:
        """Whom the match records are read for: the admin role, else this user."""
        return records_viewer(self.id, self.is_admin)


def store_of(request: Request) -> Store:
    """The app's store."""
    store: Store = request.app.state.queries.store
    return store


def signed_in(request: Request) -> SignedIn | None:
    """The user the request's session cookie signs in (kept on ``request.state``), if any."""
    value = request.cookies.get(SESSION_COOKIE)
    viewer = None
    if value:
        with store_of(request).session() as session:
            user = web_session_user(session, value)
            viewer = (SignedIn(id=user.id, name=user.name, is_admin=user.is_admin)
                      if user is not None else None)
    request.state.viewer = viewer
    return viewer


def viewer_of(request: Request) -> SignedIn | None:
    """The signed-in user ``signed_in`` found for this request."""
    viewer: SignedIn | None = getattr(request.state, "viewer", None)
    return viewer


def same_origin(request: Request) -> bool:
    """Whether the request's ``Origin`` (else ``Referer``) is this site's own origin."""
    source = request.headers.get("origin") or request.headers.get("referer")
    if not source:
        return False
    parts = urlsplit(source)
    return (parts.scheme, parts.netloc) == (request.url.scheme, request.url.netloc)


def local_path(target: str) -> str:
    """A path of this site to go back to after signing in (``/`` for anything else)."""
    if target.startswith("/") and not target.startswith(("//", "/\\")) \
            and target.isprintable():
        return target
    return "/"


async def form_fields(request: Request) -> dict[str, str] | None:
    """The fields of a urlencoded form body (first value each), or None when too large."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > FORM_BYTES:
            return None
    fields = parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)
    return {key: values[0] for key, values in fields.items()}


def sign_in_form(request: Request, target: str, message: str = "",
                 status: int = 200) -> HTMLResponse:
    """The sign-in page, with one line saying what went wrong if anything did."""
    response = page(request, "signin.html", target=local_path(target), message=message)
    response.status_code = status
    response.headers["Cache-Control"] = "no-store"
    return response


@router.get("/sign-in", response_class=HTMLResponse)
def sign_in_page(request: Request, target: str = Query("/", alias="next")) -> Response:
    """The sign-in form (or who is signed in, with sign-out); ``next``: where to go after."""
    return sign_in_form(request, target)


@router.post("/sign-in")
async def sign_in(request: Request) -> Response:
    """Check the posted token and set a new session cookie (ending the session it replaces);
    the form again when the token is wrong."""
    if not same_origin(request):
        return error_page(request, 403, CROSS_SITE)
    fields = await form_fields(request)
    if fields is None:
        return error_page(request, 400, f"the form is larger than {FORM_BYTES} bytes")
    target = fields.get("next", "/")
    token = fields.get("token", "").strip()
    if not token:
        return sign_in_form(request, target, NO_TOKEN, 400)
    value = await run_in_threadpool(_start, store_of(request), token)
    if value is None:
        return sign_in_form(request, target, UNKNOWN_TOKEN, 401)
    previous = request.cookies.get(SESSION_COOKIE)
    if previous:
        await run_in_threadpool(_end, store_of(request), previous)
    response = RedirectResponse(local_path(target), status_code=303)
    response.set_cookie(SESSION_COOKIE, value, max_age=SESSION_DAYS * 24 * 3600, path="/",
                        secure=request.url.scheme == "https", httponly=True, samesite="strict")
    return response


@router.post("/sign-out")
async def sign_out(request: Request) -> Response:
    """End the session of the cookie and clear it."""
    if not same_origin(request):
        return error_page(request, 403, CROSS_SITE)
    value = request.cookies.get(SESSION_COOKIE)
    if value:
        await run_in_threadpool(_end, store_of(request), value)
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/", secure=request.url.scheme == "https",
                           httponly=True, samesite="strict")
    return response


def _start(store: Store, token: str) -> str | None:
    """A new session's cookie value for the token's user, or None for an unknown token."""
    with store.session() as session:
        user = user_for_token(session, token)
        return None if user is None else start_web_session(session, user.id)


def _end(store: Store, value: str) -> None:
    """Drop the session of that cookie value."""
    with store.session() as session:
        end_web_session(session, value)
