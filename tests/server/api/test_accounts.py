"""Registration, tokens kept hashed, and calls refused without a good token."""

from __future__ import annotations

import hashlib

import grpc
import pytest
from sqlalchemy import select

from arena.protocol.v1 import arena_pb2 as pb
from arena.store import User
from arena.store.models import ApiToken
from tests.server.api.conftest import Service, status_of


def test_registration_gives_a_token_stored_only_as_its_hash(service: Service) -> None:
    """The token works, and the database holds its SHA-256, never its text."""
    with service.client() as anonymous:
        reply = anonymous.call("RegisterUser", pb.RegisterUserRequest(name="alice"))
    assert reply.name == "alice" and len(reply.token) >= 40
    with service.store.session() as session:
        rows = session.scalars(select(ApiToken)).all()
        assert [row.token_sha256 for row in rows] == [
            hashlib.sha256(reply.token.encode()).hexdigest()]
        assert rows[0].last_used is None
    with service.client(reply.token) as alice:
        assert list(alice.call("ListBots", pb.ListBotsRequest()).bots) == []
    with service.store.session() as session:
        assert session.scalars(select(ApiToken)).one().last_used is not None


def test_a_taken_name_is_already_exists(service: Service) -> None:
    """Registering a name twice is refused, and no second user appears."""
    service.register("alice").close()
    with service.client() as anonymous:
        code, message = status_of(lambda: anonymous.call(
            "RegisterUser", pb.RegisterUserRequest(name="alice")))
    assert code == grpc.StatusCode.ALREADY_EXISTS
    assert "'alice' is taken" in message
    with service.store.session() as session:
        assert session.scalars(select(User.name)).all() == ["alice"]


@pytest.mark.parametrize("name", ["", "Alice", "1abc", "a b", "x" * 41, "policy:random"])
def test_a_bad_user_name_is_invalid_argument(service: Service, name: str) -> None:
    """Names outside the rule are refused, saying the rule."""
    with service.client() as anonymous:
        code, message = status_of(lambda: anonymous.call(
            "RegisterUser", pb.RegisterUserRequest(name=name)))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "lowercase letters" in message


@pytest.mark.parametrize("token", [None, "not-a-token", ""])
def test_a_missing_or_unknown_token_is_unauthenticated(service: Service,
                                                       token: str | None) -> None:
    """Every call but registration needs a known token."""
    service.register("alice").close()
    with service.client(token) as stranger:
        calls = [
            ("ListBots", pb.ListBotsRequest()),
            ("SubmitBot", pb.SubmitBotRequest(name="bot", archive=b"x")),
            ("DeleteBot", pb.DeleteBotRequest(name="bot")),
            ("CreateLeague", pb.CreateLeagueRequest(name="l", bots=["random", "heuristic"])),
            ("RunLeague", pb.RunLeagueRequest(name="l")),
            ("GetLeagueStatus", pb.GetLeagueStatusRequest(name="l")),
            ("GetLeaderboard", pb.GetLeaderboardRequest()),
            ("GetReplay", pb.GetReplayRequest(match_id="m")),
            ("GetBotLogs", pb.GetBotLogsRequest(bot="bot")),
        ]
        for method, request in calls:
            code, message = status_of(lambda m=method, r=request: stranger.call(m, r))
            assert code == grpc.StatusCode.UNAUTHENTICATED, method
            assert "token" in message
        code, _ = status_of(lambda: list(stranger.watch("m")))
        assert code == grpc.StatusCode.UNAUTHENTICATED


def test_a_malformed_authorization_header_is_unauthenticated(service: Service) -> None:
    """A token not sent as ``Bearer <token>`` does not count."""
    alice = service.register("alice")
    token = alice.token
    alice.close()
    with service.client() as client, pytest.raises(grpc.RpcError) as caught:
        client.stub.ListBots(pb.ListBotsRequest(), metadata=[("authorization", token or "")])
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
