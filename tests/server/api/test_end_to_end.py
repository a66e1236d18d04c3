"""End to end through the gRPC API with the real Docker builder: two users upload bot archives
(tar.gz and zip), a league between them runs, and the leaderboard, a replay, the watch stream
and the owner's logs come back."""

from __future__ import annotations

import contextlib
import io
import time
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import grpc
import pytest
from docker.errors import ImageNotFound

from arena.match import MatchRecord, replay
from arena.protocol.v1 import arena_pb2 as pb
from arena.server.remote import pack_folder
from tests.sandbox.conftest import SAMPLE_RANDOM, base_image, require_docker
from tests.server.api.conftest import ServiceFactory, status_of
from tests.server.api.test_leagues import wait_for_league

__all__ = ["base_image"]

IMAGES = ("cardarena-bot/alice-alpha:1", "cardarena-bot/bob-beta:1")
"""The images the test builds (removed afterwards)."""


def zip_folder(folder: Path, top: str) -> bytes:
    """A zip of a folder, its files under one top-level folder ``top``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                archive.write(path, f"{top}/{path.relative_to(folder).as_posix()}")
    return buffer.getvalue()


def remove_images(refs: Iterable[str]) -> None:
    """Remove these images (forced); one already gone is skipped."""
    client = require_docker()
    for ref in refs:
        with contextlib.suppress(ImageNotFound):
            client.images.remove(ref, force=True)


@pytest.fixture
def built_images() -> Iterator[tuple[str, ...]]:
    """The images this test builds, removed afterwards."""
    yield IMAGES
    remove_images(IMAGES)


def test_two_users_upload_bots_and_a_league_between_them_comes_back(
        make_service: ServiceFactory, base_image: str, built_images: tuple[str, ...]) -> None:
    """Upload, league, leaderboard, replay, watch and logs, all through the API."""
    from arena.server.api.bots import sandbox_uploads

    service = make_service(uploads=sandbox_uploads())
    with service.register("alice") as alice, service.register("bob") as bob:
        alpha = alice.call("SubmitBot", pb.SubmitBotRequest(
            name="alpha", archive=pack_folder(SAMPLE_RANDOM)))
        beta = bob.call("SubmitBot", pb.SubmitBotRequest(
            name="beta", archive=zip_folder(SAMPLE_RANDOM, "random")))
        assert (alpha.version.image_ref, beta.version.image_ref) == built_images
        assert alpha.version.image_id.startswith("sha256:")
        assert "briscola" in alpha.version.games or "*" in alpha.version.games
        code, _ = status_of(lambda: bob.call("SubmitBot", pb.SubmitBotRequest(
            name="alpha", archive=pack_folder(SAMPLE_RANDOM))))
        assert code == grpc.StatusCode.PERMISSION_DENIED

        created = alice.call("CreateLeague", pb.CreateLeagueRequest(
            name="uploads", bots=["alpha", "beta"], games=["briscola"], deals=1))
        assert list(created.status.bots) == ["alpha", "beta"]
        assert alice.call("RunLeague", pb.RunLeagueRequest(name="uploads")).started
        status = wait_for_league(bob, "uploads")
        assert (status.status.done, status.status.void) == (1, 0)

        board = bob.call("GetLeaderboard", pb.GetLeaderboardRequest(league="uploads"))
        assert sorted(rating.bot for rating in board.overall) == ["alpha", "beta"]
        assert all(rating.contests > 0 for rating in board.overall)
        assert [rating.sets for rating in board.overall] == [1, 1]
        assert dict(status.status.sets) == {"alpha": 1, "beta": 1}

        [match] = status.matches
        records = bob.call("GetReplay", pb.GetReplayRequest(match_id=match.id)).records
        assert len(records) == 2
        for text in records:
            record = MatchRecord.from_json(text)
            assert record.conduct is not None
            assert [seat.reason for seat in record.conduct.seats] == ["OK", "OK"]
            replay(record)

        updates = list(bob.watch(match.id))
        assert updates[-1].outcome.state == pb.MATCH_STATE_DONE
        players = {update.event.player for update in updates
                   if update.WhichOneof("update") == "event"}
        assert {"alpha", "beta"} <= players

        logs = alice.call("GetBotLogs", pb.GetBotLogsRequest(bot="alpha")).entries
        assert [(entry.match_id, entry.reason) for entry in logs] == [(match.id, "OK")] * 2
        assert sorted(entry.seat for entry in logs) == [0, 1]
        code, _ = status_of(lambda: alice.call("GetBotLogs", pb.GetBotLogsRequest(bot="beta")))
        assert code == grpc.StatusCode.PERMISSION_DENIED
    deadline = time.monotonic() + 30
    while service.api.servicer.leagues.running("uploads"):
        assert time.monotonic() < deadline
        time.sleep(0.1)
