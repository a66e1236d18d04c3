"""A league name taken on the service: the message names what the remote command can do."""

from __future__ import annotations

import grpc

from arena.protocol.v1 import arena_pb2 as pb
from tests.server.api.conftest import Service, status_of


def test_a_taken_league_name_suggests_no_missing_option(service: Service) -> None:
    """``arena remote league create`` has no ``--replace``: the message asks for another name
    instead of suggesting it."""
    alice = service.register("alice")
    request = pb.CreateLeagueRequest(name="friday", bots=["random", "heuristic"],
                                     games=["briscola"])
    alice.call("CreateLeague", request)
    code, message = status_of(lambda: alice.call("CreateLeague", request))
    assert code == grpc.StatusCode.ALREADY_EXISTS
    assert "a league named 'friday' already exists on this service" in message
    assert "choose another name" in message
    assert "--replace" not in message
    alice.close()
