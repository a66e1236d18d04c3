"""A bot's logs reach only its owner, over the wire of a real service with the real Docker
builder: ben's bot writes a unique marker (and terminal escapes) to stderr, to its debug notes
and to the gRPC status it ends its stream with; ann fetches every API call and web page that
can show a match, a replay, a log or a report, and the marker never comes; ben gets it. The
``arena remote`` commands run on a pseudo-terminal show it escaped."""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import httpx
import pytest
from docker.errors import ImageNotFound
from google.protobuf.message import Message
from sqlalchemy import select

from arena.match import MatchRecord, replay
from arena.protocol.v1 import arena_pb2 as pb
from arena.server.api.server import ApiServer, start_api
from arena.server.remote import RemoteArena, pack_folder
from arena.store import MatchRecordRow, Store, open_store
from tests.hostile.textbot import (
    ESCAPED,
    HOSTILE,
    assert_escaped_shown,
    assert_terminal_safe,
    run_in_terminal,
    write_text_bot,
)
from tests.sandbox.conftest import SAMPLE_RANDOM, base_image, require_docker
from tests.server.api.conftest import status_of
from tests.server.api.test_leagues import wait_for_league
from tests.server.web.serving import web_server

__all__ = ["base_image"]

MARKER = f"SECRET-LOG-{uuid.uuid4().hex}"
"""What ben's bot writes everywhere it can; nobody but ben may read it."""

LEAGUE = "logs"

IMAGES = ("cardarena-bot/ann-alpha:1", "cardarena-bot/ben-beta:1")
"""The images the test builds (removed afterwards)."""


@dataclass
class Arena:
    """The running service, its web pages, the two users and the match they played."""

    api: ApiServer
    store: Store
    address: str
    web: str
    ann: RemoteArena
    ben: RemoteArena
    match_id: str


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory, base_image: str) -> Iterator[Arena]:
    """A service where ann's random bot and ben's marker-writing bot played one match."""
    from arena.server.api.bots import sandbox_uploads

    client = require_docker()
    folder = tmp_path_factory.mktemp("privacy")
    beta = write_text_bot(folder / "beta", MARKER, name="beta", ready="beta")
    url = f"sqlite:///{folder / 'arena.db'}"
    store = open_store(url)
    sockets = tempfile.mkdtemp(prefix="arena-api-", dir="/tmp")
    address = f"unix:{sockets}/api.sock"
    api = start_api(store, url, folder / "data", address, workers=1, uploads=sandbox_uploads())
    try:
        with RemoteArena(address) as anonymous:
            tokens = {name: anonymous.call("RegisterUser", pb.RegisterUserRequest(name=name)).token
                      for name in ("ann", "ben")}
        with RemoteArena(address, tokens["ann"]) as ann, \
                RemoteArena(address, tokens["ben"]) as ben, web_server(url) as web:
            ann.call("SubmitBot", pb.SubmitBotRequest(name="alpha",
                                                      archive=pack_folder(SAMPLE_RANDOM)))
            ben.call("SubmitBot", pb.SubmitBotRequest(name="beta", archive=pack_folder(beta)))
            ann.call("CreateLeague", pb.CreateLeagueRequest(
                name=LEAGUE, bots=["alpha", "beta"], games=["briscola"], deals=1))
            ann.call("RunLeague", pb.RunLeagueRequest(name=LEAGUE))
            status = wait_for_league(ann, LEAGUE)
            assert (status.status.done, status.status.void) == (1, 0)
            yield Arena(api=api, store=store, address=address, web=web, ann=ann, ben=ben,
                        match_id=status.matches[0].id)
    finally:
        api.servicer.leagues.wait_all(120)
        api.stop(0)
        store.close()
        shutil.rmtree(sockets, ignore_errors=True)
        for ref in IMAGES:
            with contextlib.suppress(ImageNotFound):
                client.images.remove(ref, force=True)


def wire(messages: list[Message]) -> bytes:
    """The messages as they crossed the wire."""
    return b"".join(message.SerializeToString() for message in messages)


def test_the_database_holds_the_marker_in_every_kind_of_log(arena: Arena) -> None:
    """The operator (reading the database) has it: the test below is not vacuous."""
    with arena.store.session() as session:
        records = [row.record for row in session.scalars(select(MatchRecordRow).where(
            MatchRecordRow.match_id == arena.match_id))]
    assert len(records) == 2
    for record in records:
        beta = record["entrants"].index(1)
        assert MARKER in record["seats"][beta]["stderr"]
        assert MARKER in record["seats"][beta]["detail"]
        assert any(MARKER in fault["detail"] for fault in record["faults"]
                   if fault["seat"] == beta)
        assert {note["text"] for note in record["debug"] if note["seat"] == beta} \
            == {HOSTILE + MARKER}


def test_another_user_gets_no_log_of_the_bot_from_any_call(arena: Arena) -> None:
    ann, match_id = arena.ann, arena.match_id
    replies: list[Message] = [
        ann.call("GetReplay", pb.GetReplayRequest(match_id=match_id)),
        ann.call("GetBotLogs", pb.GetBotLogsRequest(bot="alpha")),
        ann.call("GetBotLogs", pb.GetBotLogsRequest(bot="alpha", league=LEAGUE)),
        ann.call("GetLeagueStatus", pb.GetLeagueStatusRequest(name=LEAGUE)),
        ann.call("GetLeaderboard", pb.GetLeaderboardRequest()),
        ann.call("GetLeaderboard", pb.GetLeaderboardRequest(league=LEAGUE, game="briscola")),
        ann.call("ListBots", pb.ListBotsRequest()),
        *ann.watch(match_id), *ann.watch(match_id, as_bot="alpha"),
    ]
    assert MARKER.encode() not in wire(replies)
    code, message = status_of(lambda: ann.call("GetBotLogs", pb.GetBotLogsRequest(bot="beta")))
    assert code == grpc.StatusCode.PERMISSION_DENIED and MARKER not in message
    code, _ = status_of(lambda: list(ann.watch(match_id, as_bot="beta")))
    assert code == grpc.StatusCode.PERMISSION_DENIED

    records = [MatchRecord.from_json(text) for text in replies[0].records]
    for record in records:
        assert record.conduct is not None
        beta = next(seat for seat, report in enumerate(record.conduct.seats)
                    if report.agent.get("name") == "beta")
        assert record.conduct.seats[beta].reason == "CRASH"  # what happened stays public
        assert record.conduct.seats[beta].stderr == record.conduct.seats[beta].detail == ""
        assert all(note.seat != beta for note in record.conduct.debug)
        replay(record)
    alpha_logs = replies[1].entries
    assert len(alpha_logs) == 2 and all(entry.reason == "OK" for entry in alpha_logs)


def test_the_owner_gets_the_logs_of_the_bot(arena: Arena) -> None:
    ben, match_id = arena.ben, arena.match_id
    records = [MatchRecord.from_json(text) for text in
               ben.call("GetReplay", pb.GetReplayRequest(match_id=match_id)).records]
    for record in records:
        assert record.conduct is not None
        beta = next(seat for seat, report in enumerate(record.conduct.seats)
                    if report.agent.get("name") == "beta")
        assert MARKER in record.conduct.seats[beta].stderr
        assert MARKER in record.conduct.seats[beta].detail
        assert any(MARKER in note.text for note in record.conduct.debug if note.seat == beta)
        assert record.conduct.seats[1 - beta].stderr == ""  # ann's bot's, withheld from ben
    logs = ben.call("GetBotLogs", pb.GetBotLogsRequest(bot="beta")).entries
    assert len(logs) == 2 and all(MARKER in entry.stderr for entry in logs)


def test_no_web_page_shows_the_bot_s_logs(arena: Arena) -> None:
    with httpx.Client(base_url=arena.web, timeout=60) as web:
        pages = ["/", "/games/briscola", "/bots/alpha", "/bots/beta", "/leagues",
                 f"/leagues/{LEAGUE}", f"/leagues/{LEAGUE}/report",
                 f"/leagues/{LEAGUE}/report/plots/ratings.png"]
        for view in ("full", "0", "1"):
            for deal in ("0", "1"):
                pages.append(f"/matches/{arena.match_id}?view={view}&deal={deal}&step=0")
        first = web.get(f"/matches/{arena.match_id}")
        assert first.status_code == 200
        last = int(first.text.split('data-last="')[1].split('"')[0])
        pages += [f"/matches/{arena.match_id}?view=full&deal={deal}&step={step}"
                  for deal in ("0", "1") for step in range(last + 1)]
        for path in pages:
            response = web.get(path)
            assert response.status_code == 200, path
            assert MARKER.encode() not in response.content, path


def remote(arena: Arena, user: RemoteArena, *args: str) -> tuple[int, str]:
    """``arena remote ARGS`` as ``user`` on a terminal: its exit code and the shown text,
    checked safe."""
    code, output = run_in_terminal(["remote", *args, "--server", arena.address],
                                   env={"ARENA_TOKEN": user.token or ""})
    return code, assert_terminal_safe(output, f"arena remote {' '.join(args)}")


def test_remote_commands_show_the_owner_the_logs_escaped_and_others_nothing(
        arena: Arena, tmp_path: Path) -> None:
    code, shown = remote(arena, arena.ben, "logs", "beta")
    assert code == 0 and MARKER in shown
    assert_escaped_shown(shown, "arena remote logs", ESCAPED)
    code, shown = remote(arena, arena.ben, "replay", arena.match_id)
    assert code == 0 and MARKER in shown
    assert "\\u001b]0;pwned-title" in shown and "\\u202eevil\\u202c" in shown
    code, shown = remote(arena, arena.ben, "replay", arena.match_id, "--out", str(tmp_path))
    assert code == 0
    for path in sorted(tmp_path.glob("deal-*.json")):
        text = assert_terminal_safe(path.read_bytes(), path.name)
        assert MARKER in json.dumps(json.loads(text))

    for args in (["logs", "alpha"], ["replay", arena.match_id], ["watch", arena.match_id],
                 ["watch", arena.match_id, "--json"], ["league", "status", LEAGUE],
                 ["leaderboard"], ["bots"]):
        code, shown = remote(arena, arena.ann, *args)
        assert code == 0 and MARKER not in shown, args
    code, shown = remote(arena, arena.ann, "logs", "beta")
    assert code == 2 and "PERMISSION_DENIED" in shown and MARKER not in shown
