"""A library agent in the service: the OpenSpiel ISMCTS sample bot, uploaded as an archive,
is built on the OpenSpiel base image its ``bot.toml`` names and plays a league against an
uploaded random bot, every seat OK, its search visible in its owner's logs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.match import MatchRecord
from arena.protocol.v1 import arena_pb2 as pb
from arena.server.remote import pack_folder
from tests.sandbox.conftest import SAMPLE_RANDOM, base_image, require_docker
from tests.server.api.conftest import ServiceFactory
from tests.server.api.test_end_to_end import remove_images
from tests.server.api.test_leagues import wait_for_league

__all__ = ["base_image"]

ISMCTS = Path(__file__).resolve().parents[3] / "sample_bots" / "python" / "openspiel-ismcts"
IMAGES = ("cardarena-bot/carol-ismcts:1", "cardarena-bot/dave-random:1")
"""The images the test builds (removed afterwards)."""


@pytest.fixture(scope="module")
def openspiel_base(base_image: str) -> str:
    """The OpenSpiel base image's id (built when missing, from the cached wheels)."""
    from arena.sandbox.images import build_base
    return build_base(variant="openspiel")


@pytest.fixture
def built_images() -> Iterator[tuple[str, ...]]:
    """The images this test builds, removed afterwards."""
    yield IMAGES
    remove_images(IMAGES)


def test_the_openspiel_bot_uploaded_plays_a_league_in_the_service(
        make_service: ServiceFactory, openspiel_base: str,
        built_images: tuple[str, ...]) -> None:
    from arena.server.api.bots import sandbox_uploads

    service = make_service(uploads=sandbox_uploads())
    with service.register("carol") as carol, service.register("dave") as dave:
        ismcts = carol.call("SubmitBot", pb.SubmitBotRequest(
            name="ismcts", archive=pack_folder(ISMCTS)))
        dave.call("SubmitBot", pb.SubmitBotRequest(name="random",
                                                   archive=pack_folder(SAMPLE_RANDOM)))
        assert ismcts.version.image_ref == IMAGES[0]
        below = layers(openspiel_base)
        assert layers(ismcts.version.image_id)[:len(below)] == below

        carol.call("CreateLeague", pb.CreateLeagueRequest(
            name="library", bots=["ismcts", "random"], games=["briscola"], deals=1))
        assert carol.call("RunLeague", pb.RunLeagueRequest(name="library")).started
        status = wait_for_league(carol, "library")
        assert (status.status.done, status.status.void) == (1, 0)
        [match] = status.matches
        records = carol.call("GetReplay", pb.GetReplayRequest(match_id=match.id)).records
        assert len(records) == 2
        for text in records:
            record = MatchRecord.from_json(text)
            assert record.conduct is not None
            assert [seat.reason for seat in record.conduct.seats] == ["OK", "OK"]
            assert "ismcts simulations=" in text

        logs = carol.call("GetBotLogs", pb.GetBotLogsRequest(bot="ismcts")).entries
        assert [entry.reason for entry in logs] == ["OK", "OK"]


def layers(image_id: str) -> list[str]:
    """The layer digests of an image, from the bottom."""
    return list(require_docker().images.get(image_id).attrs["RootFS"]["Layers"])
