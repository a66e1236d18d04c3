"""Watching a running match: spectators get the public view, a bot's owner its seat's view,
and everyone the full deals once it is over. The runner's feed of deals in play too."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from datetime import timedelta

import grpc
import pytest
from sqlalchemy import select, update

from arena.games import load_game
from arena.league.live import LiveFeed
from arena.protocol.v1 import arena_pb2 as pb
from arena.server.remote import RemoteArena
from arena.store import Bot, BotVersion, League, Match, MatchStatus
from arena.store.models import LiveDeal, utc_now
from tests.server.api.conftest import Service

DEADLINE_S = 20.0


class Stream:
    """A watch stream read in a thread, its updates handed over through a queue."""

    def __init__(self, client: RemoteArena, match_id: str, as_bot: str = "") -> None:
        """Start reading."""
        self.updates: queue.Queue[pb.WatchMatchResponse | None] = queue.Queue()
        self.calls = client.stub.WatchMatch(pb.WatchMatchRequest(match_id=match_id,
                                                                 as_bot=as_bot),
                                            metadata=client.metadata())
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        """Queue every update, then None."""
        try:
            for update in self.calls:
                self.updates.put(update)
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                raise
        finally:
            self.updates.put(None)

    def until(self, wanted: int) -> list[pb.WatchMatchResponse]:
        """Updates until ``wanted`` events came (fail at the deadline)."""
        got: list[pb.WatchMatchResponse] = []
        deadline = time.monotonic() + DEADLINE_S
        while sum(update.WhichOneof("update") == "event" for update in got) < wanted:
            update = self.updates.get(timeout=max(0.01, deadline - time.monotonic()))
            assert update is not None, "the stream ended early"
            got.append(update)
        return got

    def rest(self) -> list[pb.WatchMatchResponse]:
        """Every update until the stream ends."""
        got = []
        while (update := self.updates.get(timeout=DEADLINE_S)) is not None:
            got.append(update)
        self.thread.join(DEADLINE_S)
        return got


def played_actions(seed: int, count: int) -> list[int]:
    """The first ``count`` actions of a briscola deal played with the lowest legal action."""
    state = load_game("briscola", 2).new_initial_state(seed)
    for _ in range(count):
        state.apply_action(state.legal_actions()[0])
    return state.history()


@pytest.fixture
def running(service: Service) -> Iterator[tuple[Service, RemoteArena, RemoteArena, Match]]:
    """A league between alice's bot and a policy, its match marked as running."""
    alice, bob = service.register("alice"), service.register("bob")
    alice.call("SubmitBot", pb.SubmitBotRequest(name="alpha", archive=b"a"))
    alice.call("CreateLeague", pb.CreateLeagueRequest(name="l", bots=["alpha", "random"],
                                                      games=["briscola"]))
    with service.store.session() as session:
        match = session.scalars(select(Match)).one()
        session.execute(update(Match).values(status=MatchStatus.LEASED, lease_owner="test",
                                             lease_expires=utc_now() + timedelta(hours=1)))
        session.commit()
    yield service, alice, bob, match
    alice.close()
    bob.close()


def feed(service: Service, match: Match, deal: int, actions: list[int]) -> None:
    """Write a deal's actions so far as the runner's feed does."""
    with service.store.session() as session:
        session.merge(LiveDeal(match_id=match.id, deal=deal, actions=actions))
        session.commit()


def test_a_spectator_sees_only_public_information(
        running: tuple[Service, RemoteArena, RemoteArena, Match]) -> None:
    """Nobody's dealt cards show while the deal runs; the plays do, and new ones follow."""
    service, _, bob, match = running
    feed(service, match, 0, played_actions(match.seed, 2))
    stream = Stream(bob, match.id)
    first = stream.until(3)
    assert first[0].match.state == pb.MATCH_STATE_RUNNING
    events = [update.event for update in first if update.WhichOneof("update") == "event"]
    assert all(event.view == pb.WATCH_VIEW_PUBLIC for event in events)
    deals = [event for event in events if event.kind == "DEAL"]
    assert deals and all(set(event.cards) == {-1} for event in deals)
    feed(service, match, 0, played_actions(match.seed, 4))
    more = [update.event for update in stream.until(1)]
    assert more[0].index > max(event.index for event in events)
    stream.calls.cancel()


def test_the_owner_sees_the_seat_of_its_bot(
        running: tuple[Service, RemoteArena, RemoteArena, Match]) -> None:
    """With as_bot, the bot's own cards show and the other seat's stay hidden."""
    service, alice, _, match = running
    feed(service, match, 0, played_actions(match.seed, 1))
    with service.store.session() as session:
        alpha = session.scalars(select(BotVersion.id).join(Bot).where(Bot.name == "alpha")).one()
    alpha_seat = match.entrants.index(alpha)
    stream = Stream(alice, match.id, as_bot="alpha")
    events = [update.event for update in stream.until(4)
              if update.WhichOneof("update") == "event"]
    stream.calls.cancel()
    assert all(event.view == pb.WATCH_VIEW_SEAT for event in events)
    deals = {event.seat: list(event.cards) for event in events if event.kind == "DEAL"}
    assert -1 not in deals[alpha_seat]
    assert set(deals[1 - alpha_seat]) == {-1}


def test_the_full_deals_follow_the_end(
        running: tuple[Service, RemoteArena, RemoteArena, Match]) -> None:
    """A void match ends the stream with its reason; the watcher saw the live deal first."""
    service, _, bob, match = running
    feed(service, match, 0, played_actions(match.seed, 2))
    stream = Stream(bob, match.id)
    stream.until(1)
    with service.store.session() as session:
        session.execute(update(Match).values(status=MatchStatus.VOID,
                                             last_error="stopped by the test"))
        session.commit()
    rest = stream.rest()
    assert rest[-1].outcome.state == pb.MATCH_STATE_VOID
    assert rest[-1].outcome.reason == "stopped by the test"
    assert any(update.match.state == pb.MATCH_STATE_VOID for update in rest
               if update.WhichOneof("update") == "match")


def test_the_runner_s_feed_writes_deals_and_clears_them(service: Service) -> None:
    """LiveFeed writes the actions so far (throttled, from a thread) and removes them at the
    end."""
    with service.register("alice") as alice:
        alice.call("CreateLeague", pb.CreateLeagueRequest(name="l", bots=["random", "heuristic"],
                                                          games=["briscola"]))
    with service.store.session() as session:
        match = session.scalars(select(Match)).one()
        assert session.scalars(select(League)).one().settings["live"] is True
    state = load_game("briscola", 2).new_initial_state(match.seed)
    live = LiveFeed(service.store.engine, match.id, flush_s=0.01)
    try:
        for _ in range(3):
            state.apply_action(state.legal_actions()[0])
            live(1, state)
        deadline = time.monotonic() + DEADLINE_S
        while True:
            with service.store.session() as session:
                rows = session.scalars(select(LiveDeal)).all()
            if rows and len(rows[0].actions) == 3:
                break
            assert time.monotonic() < deadline, rows
            time.sleep(0.01)
        assert [(row.match_id, row.deal, row.actions) for row in rows] == [
            (match.id, 1, state.history())]
    finally:
        live.close()
    with service.store.session() as session:
        assert session.scalars(select(LiveDeal)).all() == []


def test_watchers_beyond_the_cap_are_resource_exhausted(
        running: tuple[Service, RemoteArena, RemoteArena, Match]) -> None:
    """Streams past the cap are refused at once; a freed slot serves the next watcher."""
    service, _, bob, match = running
    service.api.servicer.watch_slots = threading.BoundedSemaphore(1)
    first = Stream(bob, match.id)
    opening = first.updates.get(timeout=DEADLINE_S)
    assert opening is not None and opening.match.state == pb.MATCH_STATE_RUNNING
    with pytest.raises(grpc.RpcError) as caught:
        next(iter(bob.stub.WatchMatch(pb.WatchMatchRequest(match_id=match.id),
                                      metadata=bob.metadata())))
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "too many matches are being watched" in caught.value.details()
    first.calls.cancel()
    first.rest()
    deadline = time.monotonic() + DEADLINE_S
    while True:
        calls = bob.stub.WatchMatch(pb.WatchMatchRequest(match_id=match.id),
                                    metadata=bob.metadata())
        try:
            update = next(iter(calls))
            break
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert time.monotonic() < deadline, "the slot was never freed"
            time.sleep(0.05)
    calls.cancel()
    assert update.match.state == pb.MATCH_STATE_RUNNING


def test_a_deal_played_again_starts_afresh_in_the_stream(
        running: tuple[Service, RemoteArena, RemoteArena, Match]) -> None:
    """Actions that do not extend the ones shown restart the deal's events at index 0."""
    service, _, bob, match = running
    feed(service, match, 0, played_actions(match.seed, 2))
    stream = Stream(bob, match.id)
    shown = [update.event for update in stream.until(3) if update.WhichOneof("update") == "event"]
    state = load_game("briscola", 2).new_initial_state(match.seed)
    state.apply_action(state.legal_actions()[-1])
    assert state.history() != played_actions(match.seed, 1)
    feed(service, match, 0, state.history())
    deadline = time.monotonic() + DEADLINE_S
    while True:
        update = stream.updates.get(timeout=DEADLINE_S)
        assert update is not None
        if update.event.index == 0:
            break
        assert time.monotonic() < deadline
    stream.calls.cancel()
    assert shown[0].index == 0 and update.event.kind == shown[0].kind
