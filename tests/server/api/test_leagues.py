"""Leagues through the API: create, run in the background, watch, replay, leaderboard, logs."""

from __future__ import annotations

import time

import grpc
import pytest
from sqlalchemy import select

from arena.match import MatchRecord, replay
from arena.protocol.v1 import arena_pb2 as pb
from arena.server.remote import RemoteArena
from arena.store import MatchRecordRow
from arena.store.models import LiveDeal
from tests.server.api.conftest import Service, status_of

DEADLINE_S = 180.0
"""How long a small league may take to run."""


def wait_for_league(client: RemoteArena, name: str) -> pb.GetLeagueStatusResponse:
    """Poll the league's status until every match is finished (fail at the deadline)."""
    deadline = time.monotonic() + DEADLINE_S
    while True:
        reply = client.call("GetLeagueStatus", pb.GetLeagueStatusRequest(name=name))
        status = reply.status
        if status.total and status.done + status.void == status.total and not status.running:
            return reply
        assert time.monotonic() < deadline, f"league {name} did not finish: {status}"
        time.sleep(0.2)


@pytest.fixture
def played(service: Service) -> tuple[Service, RemoteArena, pb.GetLeagueStatusResponse]:
    """A finished league of the two reference policies over one briscola deal."""
    client = service.register("alice")
    created = client.call("CreateLeague", pb.CreateLeagueRequest(
        name="policies", bots=["random", "heuristic"], games=["briscola"], deals=1))
    assert created.status.total == 1 and created.status.pending == 1
    started = client.call("RunLeague", pb.RunLeagueRequest(name="policies"))
    assert started.started
    reply = wait_for_league(client, "policies")
    yield service, client, reply
    client.close()


def test_a_league_runs_and_its_results_come_back(
        played: tuple[Service, RemoteArena, pb.GetLeagueStatusResponse]) -> None:
    """Status, leaderboard and replay of a league run by the service."""
    service, client, reply = played
    assert reply.status.done == 1 and reply.status.void == 0
    [match] = reply.matches
    assert match.state == pb.MATCH_STATE_DONE
    assert sorted(match.entrants) == ["heuristic (policy)", "random (policy)"]
    board = client.call("GetLeaderboard", pb.GetLeaderboardRequest(league="policies"))
    assert [game.game for game in board.games] == ["briscola"]
    assert sorted(rating.bot for rating in board.overall) == sorted(match.entrants)
    records = client.call("GetReplay", pb.GetReplayRequest(match_id=match.id)).records
    assert len(records) == match.deals == 2
    for text in records:
        record = MatchRecord.from_json(text)
        assert record.game == "briscola"
        replay(record)
    with service.store.session() as session:
        assert session.scalars(select(LiveDeal)).all() == []


def test_running_again_is_not_started_twice(
        played: tuple[Service, RemoteArena, pb.GetLeagueStatusResponse]) -> None:
    """A finished league run again finds nothing to do and stays done."""
    _, client, _ = played
    again = client.call("RunLeague", pb.RunLeagueRequest(name="policies"))
    reply = wait_for_league(client, "policies")
    assert again.status.done == 1 and reply.status.done == 1


def test_watching_a_finished_match_shows_the_full_deal(
        played: tuple[Service, RemoteArena, pb.GetLeagueStatusResponse]) -> None:
    """The stream gives the state, every event of each deal with all cards, then the outcome."""
    service, client, reply = played
    [match] = reply.matches
    updates = list(client.watch(match.id))
    assert updates[0].WhichOneof("update") == "match"
    assert updates[0].match.state == pb.MATCH_STATE_DONE
    events = [update.event for update in updates if update.WhichOneof("update") == "event"]
    assert {event.deal for event in events} == {0, 1}
    assert all(event.view == pb.WATCH_VIEW_FULL for event in events)
    deals = [event for event in events if event.kind == "DEAL"]
    assert deals and all(-1 not in event.cards for event in deals)
    with service.store.session() as session:
        stored = session.scalars(select(MatchRecordRow).where(
            MatchRecordRow.match_id == match.id, MatchRecordRow.deal == 0)).one().record
    decisions = [event for event in events if event.deal == 0 and event.action]
    assert len(decisions) == len(stored["actions"])
    outcome = updates[-1]
    assert outcome.WhichOneof("update") == "outcome"
    assert outcome.outcome.state == pb.MATCH_STATE_DONE
    assert list(outcome.outcome.entrants) == list(match.entrants)
    assert sum(outcome.outcome.total_returns) == pytest.approx(0.0)


def test_league_errors_have_their_codes(service: Service) -> None:
    """Unknown games and bots, names taken, unknown leagues and matches."""
    with service.register("alice") as alice:
        cases = [
            ("CreateLeague", pb.CreateLeagueRequest(name="l", bots=["random", "heuristic"],
                                                    games=["poker"]),
             grpc.StatusCode.INVALID_ARGUMENT, "poker"),
            ("CreateLeague", pb.CreateLeagueRequest(name="l", bots=["random", "ghost"]),
             grpc.StatusCode.NOT_FOUND, "no bot named 'ghost'"),
            ("CreateLeague", pb.CreateLeagueRequest(name="l", bots=["random"]),
             grpc.StatusCode.INVALID_ARGUMENT, "at least 2 bots"),
            ("CreateLeague", pb.CreateLeagueRequest(name="a/b", bots=["random", "heuristic"]),
             grpc.StatusCode.INVALID_ARGUMENT, "bad league name"),
            ("RunLeague", pb.RunLeagueRequest(name="nope"),
             grpc.StatusCode.NOT_FOUND, "no league named 'nope'"),
            ("GetLeagueStatus", pb.GetLeagueStatusRequest(name="nope"),
             grpc.StatusCode.NOT_FOUND, "no league named 'nope'"),
            ("GetReplay", pb.GetReplayRequest(match_id="1/briscola/r0/t0/d0"),
             grpc.StatusCode.NOT_FOUND, "no match"),
            ("GetLeaderboard", pb.GetLeaderboardRequest(game="poker"),
             grpc.StatusCode.INVALID_ARGUMENT, "poker"),
        ]
        for method, request, code, words in cases:
            got, message = status_of(lambda m=method, r=request: alice.call(m, r))
            assert (got, words in message) == (code, True), (method, message)
        code, message = status_of(lambda: list(alice.watch("no/such/match")))
        assert code == grpc.StatusCode.NOT_FOUND
        alice.call("CreateLeague", pb.CreateLeagueRequest(name="l", bots=["random", "heuristic"],
                                                          games=["briscola"]))
        code, message = status_of(lambda: alice.call("CreateLeague", pb.CreateLeagueRequest(
            name="l", bots=["random", "heuristic"], games=["briscola"])))
        assert code == grpc.StatusCode.ALREADY_EXISTS
        [match] = alice.call("GetLeagueStatus", pb.GetLeagueStatusRequest(name="l")).matches
        code, message = status_of(lambda: alice.call("GetReplay",
                                                     pb.GetReplayRequest(match_id=match.id)))
        assert code == grpc.StatusCode.FAILED_PRECONDITION
        assert "not done" in message


def test_watching_with_a_seat_needs_the_bot_s_owner(service: Service) -> None:
    """``as_bot`` of another user's bot is PERMISSION_DENIED; of a bot not in the match,
    INVALID_ARGUMENT."""
    with service.register("alice") as alice, service.register("bob") as bob:
        alice.call("SubmitBot", pb.SubmitBotRequest(name="alpha", archive=b"a"))
        bob.call("SubmitBot", pb.SubmitBotRequest(name="beta", archive=b"b"))
        alice.call("CreateLeague", pb.CreateLeagueRequest(name="l", bots=["alpha", "random"],
                                                          games=["briscola"]))
        [match] = alice.call("GetLeagueStatus", pb.GetLeagueStatusRequest(name="l")).matches
        code, _ = status_of(lambda: list(bob.watch(match.id, as_bot="alpha")))
        assert code == grpc.StatusCode.PERMISSION_DENIED
        code, message = status_of(lambda: list(bob.watch(match.id, as_bot="beta")))
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert "does not play in match" in message


def test_leagues_made_alike_over_the_api_get_secret_seeds_of_their_own(
        service: Service) -> None:
    """Without a seed, two leagues made alike get different secrets and seeds and no match id
    in common, and say their seeds are secret; with the same seed, the same deals, said given."""
    from arena.store import League, Match

    with service.register("alice") as client:
        made = {name: client.call("CreateLeague", pb.CreateLeagueRequest(
            name=name, bots=["random", "heuristic"], games=["briscola", "scopa"], deals=2,
            **({"seed": 0} if name.startswith("given") else {}))).status
            for name in ("one", "two", "given1", "given2")}
        listed = {name: [match.id for match in client.call(
            "GetLeagueStatus", pb.GetLeagueStatusRequest(name=name)).matches]
            for name in made}
    assert {name: status.seeds for name, status in made.items()} == {
        "one": "secret", "two": "secret", "given1": "given", "given2": "given"}
    ids = [match_id for found in listed.values() for match_id in found]
    assert len(set(ids)) == len(ids) == 16
    assert all(len(match_id) == 16 and int(match_id, 16) >= 0 for match_id in ids)
    with service.store.session() as session:
        seeds = {name: [session.get_one(Match, match_id).seed for match_id in found]
                 for name, found in listed.items()}
        secrets = {league.name: league.seed_secret for league in session.scalars(select(League))}
    assert not set(seeds["one"]) & set(seeds["two"])
    assert seeds["given1"] == seeds["given2"]
    assert secrets["one"] != secrets["two"] and None not in (secrets["one"], secrets["two"])
    assert secrets["given1"] is None
