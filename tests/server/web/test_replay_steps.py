"""The replay's steps sent at once for the client to step through: every frame of a deal in
one view, each with the stock, the card points, the capture piles and the scope."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from arena.match.record import MatchRecord
from arena.server.web.frames import match_frames
from tests.server.web.conftest import WebStore

FRAME = re.compile(r'<template data-frame="(\d+)">')


def record_of(data: dict[str, object]) -> MatchRecord:
    """A stored deal record as a ``MatchRecord``."""
    return MatchRecord.from_dict({key: value for key, value in data.items()
                                  if key not in ("rotation", "entrants")})


def test_every_step_of_a_deal_comes_in_one_response(client: TestClient,
                                                    web_store: WebStore) -> None:
    """The steps fragment holds one template per frame, in order, each with its stepper."""
    record = record_of(web_store.records["briscola"])
    frames = match_frames(record, None)
    response = client.get(f"/replay-steps/{web_store.matches['briscola']}?view=full&deal=0")
    assert response.status_code == 200
    assert [int(step) for step in FRAME.findall(response.text)] == list(range(len(frames)))
    assert response.text.count('class="stepper"') == len(frames)


def test_the_match_page_names_its_steps_fragment(client: TestClient,
                                                 web_store: WebStore) -> None:
    """The replay section says where its steps are and which step it shows."""
    match_id = web_store.matches["scopa"]
    html = client.get(f"/matches/{match_id}?view=1&step=3").text
    assert f'data-frames-url="/replay-steps/{match_id}?view=1&amp;deal=0"' in html
    assert 'data-step="3"' in html


def test_a_frame_shows_the_stock_and_the_running_points(web_store: WebStore) -> None:
    """Briscola's stock shrinks as the seats draw, and card points grow with the tricks."""
    frames = match_frames(record_of(web_store.records["briscola"]), None)
    assert frames[0].stock == 40 - 2 * 3  # the face-up trump is the last card of the stock
    assert frames[-1].stock == 0
    assert all(seat.points == 0 for seat in frames[0].seats)
    assert sum(seat.points for seat in frames[-2].seats) > 0
    assert not frames[0].fishing


def test_a_fishing_frame_counts_captures_and_scope(web_store: WebStore) -> None:
    """Scopa's capture piles add up every captured card, and each scopa is counted."""
    record = record_of(web_store.records["scopa"])
    frames = match_frames(record, None)
    assert frames[0].fishing
    game = record.make_game()
    state = game.new_initial_state(record.seed)
    for action in record.actions[:-1]:
        state.apply_action(action)
    captured = [0] * record.players
    scope = [0] * record.players
    for event in state.full_events(0):
        if event.kind.name == "HAND_START":
            captured, scope = [0] * record.players, [0] * record.players
        if event.kind.name == "CAPTURE":
            captured[event.seat] += len(event.cards)
            scope[event.seat] += 1 if event.values and event.values[0] else 0
    before_end = frames[len(record.actions) - 1]
    assert [seat.captured for seat in before_end.seats] == captured
    assert [seat.scope for seat in before_end.seats] == scope
    assert sum(captured) > 0


def test_the_page_shows_the_tally(client: TestClient, web_store: WebStore) -> None:
    """The step's table lists the stock, points, captures and scope."""
    html = client.get(f"/matches/{web_store.matches['scopa']}?step=10").text
    assert "in the stock" in html and "data-captured" in html and "data-scope" in html
    html = client.get(f"/matches/{web_store.matches['briscola']}?step=10").text
    assert "in the stock" in html and "data-points" in html and "data-captured" not in html


def test_the_steps_of_a_match_not_done_are_not_found(client: TestClient) -> None:
    """No steps for a match that does not exist; bad views are 400."""
    assert client.get("/replay-steps/nothing-here").status_code == 404
