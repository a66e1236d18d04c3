"""Submitting, listing and deleting bots, and what another user may not do with them."""

from __future__ import annotations

import grpc
import pytest
from sqlalchemy import select

from arena.protocol.v1 import arena_pb2 as pb
from arena.server.remote import RemoteArena, RemoteError
from arena.store import Bot, BotVersion
from tests.server.api.conftest import FAILED_BUILD, REFUSED, Service, status_of


def submit(client: RemoteArena, name: str, archive: bytes = b"archive") -> pb.SubmitBotResponse:
    """Submit an archive as a bot."""
    result: pb.SubmitBotResponse = client.call(
        "SubmitBot", pb.SubmitBotRequest(name=name, archive=archive))
    return result


def test_resubmitting_adds_a_version_with_a_per_user_tag(service: Service) -> None:
    """Each submission of a bot is a new version, its image tagged with the user's name."""
    with service.register("alice") as alice:
        first = submit(alice, "alpha", b"one")
        second = submit(alice, "alpha", b"two")
        listed = alice.call("ListBots", pb.ListBotsRequest(mine=True)).bots
    assert first.version.image_ref == "cardarena-bot/alice-alpha:1"
    assert second.version.image_ref == "cardarena-bot/alice-alpha:2"
    assert [bot.name for bot in listed] == ["alpha"]
    assert listed[0].owner == "alice"
    assert [version.version for version in listed[0].versions] == ["1", "2"]
    assert (service.data / "uploads" / "alice" / "alpha" / "2" / "archive").read_bytes() == b"two"


def test_another_user_cannot_replace_delete_or_read_the_logs_of_a_bot(service: Service) -> None:
    """PERMISSION_DENIED for each, and alice's bot is left as it was."""
    with service.register("alice") as alice, service.register("bob") as bob:
        submit(alice, "alpha")
        code, message = status_of(lambda: submit(bob, "alpha", b"mine now"))
        assert code == grpc.StatusCode.PERMISSION_DENIED
        assert "belongs to another user" in message
        code, _ = status_of(lambda: bob.call("DeleteBot", pb.DeleteBotRequest(name="alpha")))
        assert code == grpc.StatusCode.PERMISSION_DENIED
        code, _ = status_of(lambda: bob.call("GetBotLogs", pb.GetBotLogsRequest(bot="alpha")))
        assert code == grpc.StatusCode.PERMISSION_DENIED
        assert [bot.name for bot in bob.call("ListBots", pb.ListBotsRequest(mine=True)).bots] == []
        everyone = bob.call("ListBots", pb.ListBotsRequest()).bots
    assert [(bot.name, bot.owner, len(bot.versions)) for bot in everyone] == [
        ("alpha", "alice", 1)]
    assert not (service.data / "uploads" / "bob").exists() or not any(
        (service.data / "uploads" / "bob").rglob("archive"))


def test_a_bot_of_the_local_arena_cannot_be_taken(service: Service) -> None:
    """A name a local league gave a bot (no owner) is not free to upload under."""
    with service.store.session() as session:
        session.add(Bot(name="random"))
        session.commit()
    with service.register("alice") as alice:
        code, _ = status_of(lambda: submit(alice, "random"))
    assert code == grpc.StatusCode.PERMISSION_DENIED


def test_the_owner_deletes_a_bot_and_its_uploads(service: Service) -> None:
    """The bot, its versions and its upload folders go."""
    with service.register("alice") as alice:
        submit(alice, "alpha")
        alice.call("DeleteBot", pb.DeleteBotRequest(name="alpha"))
        assert list(alice.call("ListBots", pb.ListBotsRequest()).bots) == []
        code, message = status_of(lambda: alice.call("DeleteBot",
                                                     pb.DeleteBotRequest(name="alpha")))
    assert code == grpc.StatusCode.NOT_FOUND and "no bot named 'alpha'" in message
    with service.store.session() as session:
        assert session.scalars(select(BotVersion)).all() == []
    assert not (service.data / "uploads" / "alice" / "alpha").exists()


def test_a_bot_in_a_league_cannot_be_deleted(service: Service) -> None:
    """Its results need it: FAILED_PRECONDITION, and it is still there."""
    with service.register("alice") as alice:
        submit(alice, "alpha")
        alice.call("CreateLeague", pb.CreateLeagueRequest(name="l", bots=["alpha", "random"],
                                                          games=["briscola"]))
        code, message = status_of(lambda: alice.call("DeleteBot",
                                                     pb.DeleteBotRequest(name="alpha")))
        assert code == grpc.StatusCode.FAILED_PRECONDITION
        assert "plays in a league" in message
        assert [bot.name for bot in alice.call("ListBots", pb.ListBotsRequest()).bots] == [
            "alpha"]


@pytest.mark.parametrize(("name", "archive", "code", "words"), [
    ("alpha", REFUSED, grpc.StatusCode.INVALID_ARGUMENT, "no Dockerfile"),
    ("alpha", b"", grpc.StatusCode.INVALID_ARGUMENT, "the archive is empty"),
    ("alpha", b"x" * 1001, grpc.StatusCode.RESOURCE_EXHAUSTED, "over the limit of 1000"),
    ("Alpha!", b"x", grpc.StatusCode.INVALID_ARGUMENT, "bad bot name 'Alpha!'"),
])
def test_a_refused_upload_names_the_problem_and_leaves_nothing(
        service: Service, name: str, archive: bytes, code: grpc.StatusCode, words: str) -> None:
    """Each refusal has its code and message; no bot and no upload folder is left."""
    with service.register("alice") as alice:
        got, message = status_of(lambda: submit(alice, name, archive))
        assert list(alice.call("ListBots", pb.ListBotsRequest()).bots) == []
    assert got == code
    assert words in message
    uploads = service.data / "uploads"
    assert not uploads.exists() or not any(path.is_file() for path in uploads.rglob("*"))


def test_unknown_bots_are_not_found(service: Service) -> None:
    """Deleting or reading the logs of a bot nobody has is NOT_FOUND."""
    with service.register("alice") as alice:
        for method, request in [("DeleteBot", pb.DeleteBotRequest(name="ghost")),
                                ("GetBotLogs", pb.GetBotLogsRequest(bot="ghost"))]:
            code, message = status_of(lambda m=method, r=request: alice.call(m, r))
            assert code == grpc.StatusCode.NOT_FOUND
            assert "no bot named 'ghost'" in message


def test_a_failed_build_sends_its_log(service: Service) -> None:
    """The one-line message is the status; the build's last lines come in the trailers."""
    with service.register("alice") as alice, pytest.raises(RemoteError) as caught:
        submit(alice, "alpha", FAILED_BUILD)
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert str(caught.value) == "the build failed at step 2/3: RUN false (INVALID_ARGUMENT)"
    assert caught.value.log.splitlines() == ["Step 1/3 : FROM base", "Step 2/3 : RUN false",
                                             "exit code 1"]
