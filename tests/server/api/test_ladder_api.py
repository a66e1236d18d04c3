"""The ladder through the real API and ``arena remote ladder``: anyone reads where it stands;
an owner withdraws a bot (it is not entered again nor scheduled) and brings it back; another
user may not; a service with no ladder says so in one line."""

from __future__ import annotations

import json

import grpc

from arena.league.ladder import join_uploads, open_ladder, top_up
from arena.protocol.v1 import arena_pb2 as pb
from arena.server.api.ladder import NO_LADDER
from arena.server.remote import RemoteArena
from arena.store import Match
from tests.server.api.conftest import ServiceFactory, status_of
from tests.server.api.test_cli import run


def ladder_bots(client: RemoteArena) -> list[str]:
    """The active bots the ladder lists."""
    reply = client.call("GetLadder", pb.GetLadderRequest())
    return [entry.bot for entry in reply.entries]


def test_an_owner_withdraws_a_bot_and_brings_it_back(make_service: ServiceFactory) -> None:
    """No ladder is one line; with one, every user reads it, only the owner withdraws, and a
    withdrawn bot is neither entered again nor seated until brought back."""
    service = make_service()
    with service.register("alice") as alice, service.register("ben") as ben:
        alice.call("SubmitBot", pb.SubmitBotRequest(name="alpha", archive=b"alpha"))
        code, message = status_of(lambda: alice.call("GetLadder", pb.GetLadderRequest()))
        assert (code, message) == (grpc.StatusCode.NOT_FOUND, f"{NO_LADDER} (NOT_FOUND)")

        league_id = open_ladder(service.store, games=("briscola",))
        assert join_uploads(service.store, league_id) == ["alpha"]
        reply = ben.call("GetLadder", pb.GetLadderRequest())
        assert list(reply.games) == ["briscola"]
        assert sorted(ladder_bots(ben)) == ["alpha", "heuristic (policy)", "random (policy)"]

        code, message = status_of(lambda: ben.call("SetLadderEntry", pb.SetLadderEntryRequest(
            bot="alpha", active=False)))
        assert code == grpc.StatusCode.PERMISSION_DENIED and "not yours" in message

        alice.call("SetLadderEntry", pb.SetLadderEntryRequest(bot="alpha", active=False))
        assert "alpha" not in ladder_bots(ben)
        assert join_uploads(service.store, league_id) == []
        scheduled = top_up(service.store, league_id, in_flight=6)
        with service.store.session() as session:
            seated = {version for match_id in scheduled
                      for version in session.get_one(Match, match_id).entrants}
        assert len(seated) == 2  # the two policies only

        listed = run(service, "ladder", "join", "alpha", token=alice.token)
        assert listed.exit_code == 0 and "alpha is back on the ladder" in listed.stdout
        shown = json.loads(run(service, "ladder", "--json", token=ben.token).stdout)
        assert [entry["bot"] for entry in shown["entries"]].count("alpha") == 1
        assert shown["in_flight"] == len(scheduled) and shown["done"] == 0
