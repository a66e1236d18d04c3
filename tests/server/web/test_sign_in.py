"""Signing in to the web pages with an API token: the owner of a bot sees its debug notes in
the replay, escaped; another user, or nobody, sees none.

The store holds a finished league whose two bots belong to ann and ben, who registered
through the real gRPC service; every decision of each bot carries a debug note with its
owner's unique marker. The pages are the real app, over the same store.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from arena.server.web import create_app
from arena.server.web.signin import CROSS_SITE, SESSION_COOKIE, UNKNOWN_TOKEN
from arena.store import open_store
from arena.store.accounts import register_user
from arena.store.admin import set_admin
from arena.store.models import WebSession, utc_now
from arena.store.web_sessions import web_session_user
from tests.server.web.owners import HOSTILE_SHOWN, MARKERS, Arena, owned_arena

SITE = "http://testserver"
"""The origin of the test client's requests."""


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Arena:
    """ann's and ben's bots' finished set, with notes."""
    return owned_arena(tmp_path_factory.mktemp("sign-in"))


@pytest.fixture()
def web(arena: Arena) -> Iterator[TestClient]:
    """A fresh browser on the real web app (its own cookies)."""
    with TestClient(create_app(arena.url), base_url=SITE,
                    raise_server_exceptions=False) as client:
        yield client


def sign_in(web: TestClient, token: str, origin: str = SITE, target: str = "/"
            ) -> httpx.Response:
    """Post the sign-in form as a page of ``origin`` would."""
    return web.post("/sign-in", data={"token": token, "next": target},
                    headers={"Origin": origin}, follow_redirects=False)


def replay_pages(web: TestClient, arena: Arena) -> str:
    """Every frame that carries a note, in the full view and in its seat's view."""
    text = []
    for steps in arena.steps.values():
        for deal, seat, step in steps:
            for view in ("full", str(seat)):
                response = web.get(f"/matches/{arena.match_id}",
                                   params={"view": view, "deal": deal, "step": step})
                assert response.status_code == 200
                text.append(response.text)
    return "".join(text)


def test_every_bot_decided_with_a_note(arena: Arena) -> None:
    """Both bots made decisions in both deals: the checks below are not vacuous."""
    for steps in arena.steps.values():
        assert {deal for deal, _, _ in steps} == {0, 1}


@pytest.mark.parametrize(("user", "other"), [("ann", "ben"), ("ben", "ann")])
def test_the_signed_in_owner_sees_its_bots_notes_and_not_the_others(
        arena: Arena, web: TestClient, user: str, other: str) -> None:
    response = sign_in(web, arena.tokens[user])
    assert response.status_code == 303
    pages = replay_pages(web, arena)
    assert MARKERS[user] in pages and MARKERS[other] not in pages
    assert HOSTILE_SHOWN + MARKERS[user] in pages
    assert "\x1b" not in pages and "<b>" not in pages
    own = web.get(f"/matches/{arena.match_id}", params=dict(zip(
        ("deal", "view", "step"), map(str, arena.steps[user][0]), strict=True)))
    assert 'class="bot-note"' in own.text and MARKERS[user] in own.text
    assert own.headers["cache-control"] == "private, no-store"
    assert f"Signed in as <strong data-signed-in>{user}</strong>" in own.text
    assert 'action="/sign-out"' in own.text


def test_a_signed_in_admin_sees_every_bots_notes(arena: Arena, web: TestClient) -> None:
    """An admin reads every log (docs/service.md): signed in, the replays carry both users'
    notes, escaped; the same user without the role sees neither."""
    with open_store(arena.url) as store, store.session() as session:
        _, token = register_user(session, "root")
        session.commit()
    assert sign_in(web, token).status_code == 303
    assert all(marker not in replay_pages(web, arena) for marker in MARKERS.values())
    with open_store(arena.url) as store, store.session() as session:
        set_admin(session, "root", True, "operator")
        session.commit()
    pages = replay_pages(web, arena)
    assert all(HOSTILE_SHOWN + marker in pages for marker in MARKERS.values())
    assert "\x1b" not in pages and "<b>" not in pages


def test_nobody_signed_in_sees_no_note(arena: Arena, web: TestClient) -> None:
    pages = replay_pages(web, arena)
    assert all(marker not in pages for marker in MARKERS.values())
    assert 'class="bot-note"' not in pages and 'href="/sign-in?next=' in pages


def test_signing_out_ends_the_session(arena: Arena, web: TestClient) -> None:
    sign_in(web, arena.tokens["ann"])
    value = web.cookies[SESSION_COOKIE]
    response = web.post("/sign-out", headers={"Origin": SITE}, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/"
    assert SESSION_COOKIE not in web.cookies
    assert MARKERS["ann"] not in replay_pages(web, arena)
    web.cookies.set(SESSION_COOKIE, value)  # a copy of the old cookie signs in nobody
    assert MARKERS["ann"] not in replay_pages(web, arena)


def test_the_cookie_is_httponly_strict_and_holds_no_token(arena: Arena,
                                                          web: TestClient) -> None:
    response = sign_in(web, arena.tokens["ann"], target=f"/matches/{arena.match_id}")
    assert response.headers["location"] == f"/matches/{arena.match_id}"
    cookie = response.headers["set-cookie"]
    attributes = {part.strip().split("=")[0].lower() for part in cookie.split(";")}
    assert {"httponly", "path", "samesite"} <= attributes and "secure" not in attributes
    assert "samesite=strict" in cookie.lower() and "path=/;" in cookie.lower() + ";"
    value = web.cookies[SESSION_COOKIE]
    assert arena.tokens["ann"] not in cookie and value != arena.tokens["ann"]
    with open_store(arena.url) as store, store.session() as session:
        stored = set(session.scalars(select(WebSession.session_sha256)))
        user = web_session_user(session, value)
        assert user is not None and user.name == "ann"
        assert value not in stored  # kept as its digest only
        assert web_session_user(session, value, utc_now() + timedelta(days=15)) is None


def test_over_https_the_cookie_is_secure(arena: Arena) -> None:
    with TestClient(create_app(arena.url), base_url="https://testserver") as web:
        response = sign_in(web, arena.tokens["ben"], origin="https://testserver")
    assert response.status_code == 303
    assert "secure" in response.headers["set-cookie"].lower()


def test_a_wrong_token_is_told_on_the_form(arena: Arena, web: TestClient) -> None:
    response = sign_in(web, "not-a-token")
    assert response.status_code == 401
    assert UNKNOWN_TOKEN in response.text and 'action="/sign-in"' in response.text
    assert "not-a-token" not in response.text
    assert SESSION_COOKIE not in web.cookies
    empty = sign_in(web, "  ")
    assert empty.status_code == 400 and "no API token" in empty.text


def test_a_cross_site_post_is_refused(arena: Arena, web: TestClient) -> None:
    for headers in ({"Origin": "https://evil.example"}, {"Origin": "null"},
                    {"Referer": "https://evil.example/page"}, {}):
        response = web.post("/sign-in", data={"token": arena.tokens["ann"]}, headers=headers,
                            follow_redirects=False)
        assert response.status_code == 403 and CROSS_SITE in response.text, headers
        assert SESSION_COOKIE not in web.cookies
    sign_in(web, arena.tokens["ann"])
    response = web.post("/sign-out", headers={"Origin": "https://evil.example"},
                        follow_redirects=False)
    assert response.status_code == 403 and SESSION_COOKIE in web.cookies
    assert MARKERS["ann"] in replay_pages(web, arena)  # still signed in


def test_the_token_is_never_taken_from_a_url(arena: Arena, web: TestClient) -> None:
    response = web.get("/sign-in", params={"token": arena.tokens["ann"]})
    assert response.status_code == 200 and SESSION_COOKIE not in web.cookies
    assert arena.tokens["ann"] not in response.text


def test_only_a_path_of_the_site_is_gone_back_to(arena: Arena, web: TestClient) -> None:
    for target in ("//evil.example/", "https://evil.example/", "/\\evil.example"):
        response = sign_in(web, arena.tokens["ann"], target=target)
        assert response.headers["location"] == "/", target


def test_signing_in_again_ends_the_session_it_replaces(arena: Arena, web: TestClient) -> None:
    sign_in(web, arena.tokens["ann"])
    first = web.cookies[SESSION_COOKIE]
    sign_in(web, arena.tokens["ben"])
    assert web.cookies[SESSION_COOKIE] != first
    with open_store(arena.url) as store, store.session() as session:
        assert web_session_user(session, first) is None
    pages = replay_pages(web, arena)
    assert MARKERS["ben"] in pages and MARKERS["ann"] not in pages
