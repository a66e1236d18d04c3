"""Quotas and rate limits through the real API on 127.0.0.1: under a burst, exactly the limit
passes and every call past it is RESOURCE_EXHAUSTED naming the limit."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc
import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from arena.cli import app
from arena.protocol.v1 import arena_pb2 as pb
from arena.server.api.errors import ApiError
from arena.server.api.limits import LimitGuard
from arena.server.api.server import start_api
from arena.server.limit_settings import (
    LimitSettingError,
    ServiceLimits,
    parse_limit_options,
    wait_text,
)
from arena.server.remote import RemoteArena, RemoteError
from arena.store import League, User, open_store
from arena.store.models import UploadAttempt
from tests.server.api.conftest import FAILED_BUILD, FAKE_UPLOADS, Service

BURST = 8
"""Calls sent at once in a burst."""

Outcome = tuple[str, Any]
"""``("ok", reply)`` or ``(status code name, message)``."""


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[Callable[..., Service]]:
    """Start services on 127.0.0.1 with only the limits given (the stand-in builder)."""
    started: list[Service] = []

    def make(**settings: Any) -> Service:
        """A service on a free TCP port of 127.0.0.1 over a fresh store."""
        url = f"sqlite:///{tmp_path / f'limits{len(started)}.db'}"
        store = open_store(url)
        limits = ServiceLimits(**{**vars(ServiceLimits.unlimited()), **settings})
        data = tmp_path / f"data{len(started)}"
        api = start_api(store, url, data, "127.0.0.1:0", workers=1, uploads=FAKE_UPLOADS,
                        limits=limits)
        service = Service(api=api, store=store, address=f"127.0.0.1:{api.port}", data=data)
        started.append(service)
        return service

    yield make
    for service in started:
        service.api.servicer.leagues.wait_all(60)
        service.api.stop(0)
        service.store.close()
        shutil.rmtree(service.data, ignore_errors=True)


def outcome(call: Callable[[], Any]) -> Outcome:
    """What a call gave: its reply, or its status code's name and message."""
    try:
        return "ok", call()
    except RemoteError as error:
        assert error.code is not None
        return error.code.name, str(error)


def burst(calls: list[Callable[[], Any]]) -> list[Outcome]:
    """Make the calls all at once, each on a thread of its own."""
    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(outcome, calls))


def refusals(outcomes: list[Outcome]) -> list[str]:
    """The messages of the RESOURCE_EXHAUSTED outcomes (any other refusal fails the test)."""
    assert {code for code, _ in outcomes} <= {"ok", "RESOURCE_EXHAUSTED"}, outcomes
    return [message for code, message in outcomes if code != "ok"]


def register(service: Service, name: str) -> RemoteArena:
    """A client of a newly registered user."""
    return service.register(name)


def submit(client: RemoteArena, name: str, body: bytes = b"bot") -> Callable[[], Any]:
    """A SubmitBot call to make."""
    return lambda: client.call("SubmitBot", pb.SubmitBotRequest(name=name, archive=body))


def test_registrations_per_address_hold_under_a_burst(
        limited: Callable[..., Service]) -> None:
    """Three registrations an hour from one address: three of a burst pass, the rest are
    refused with the limit and the wait."""
    service = limited(registrations="3/hour")
    with service.client() as anonymous:
        outcomes = burst([lambda n=n: anonymous.call(
            "RegisterUser", pb.RegisterUserRequest(name=f"user{n}")) for n in range(BURST)])
    refused = refusals(outcomes)
    assert len(refused) == BURST - 3
    for message in refused:
        assert re.fullmatch(r"registration limit reached: 3 registrations an hour from one "
                            r"address \(try again in (1 h|59 min)\) \(RESOURCE_EXHAUSTED\)",
                            message), message


def test_api_calls_are_counted_per_user(limited: Callable[..., Service]) -> None:
    """Five calls a minute each: a burst of one user passes five times; another user is
    untouched."""
    service = limited(api_calls="5/minute")
    with register(service, "alice") as alice, register(service, "bob") as bob:
        refused = refusals(burst([lambda: alice.call("ListBots", pb.ListBotsRequest())
                                  for _ in range(BURST)]))
        assert len(refused) == BURST - 5
        assert all(message.startswith("call rate limit reached: 5 calls a minute (try "
                                      "again in ") for message in refused), refused
        assert outcome(lambda: bob.call("ListBots", pb.ListBotsRequest()))[0] == "ok"
        code, message = outcome(lambda: list(alice.watch("0123456789abcdef")))
        assert code == "RESOURCE_EXHAUSTED"  # a watch stream is a call too
        assert message.startswith("call rate limit reached: 5 calls a minute")


def test_uploads_a_day_hold_under_a_burst(limited: Callable[..., Service]) -> None:
    """Three uploads a day: three of a burst are built, the next waits a day."""
    service = limited(uploads_per_day=3)
    with register(service, "alice") as alice:
        refused = refusals(burst([submit(alice, "bot") for _ in range(BURST)]))
        assert len(refused) == BURST - 3
        assert all(re.fullmatch(r"upload limit reached: 3 uploads a day \(try again in "
                                r"(24 h|23 h 59 min)\) \(RESOURCE_EXHAUSTED\)", message)
                   for message in refused), refused
        bots = alice.call("ListBots", pb.ListBotsRequest(mine=True)).bots
        assert [len(bot.versions) for bot in bots] == [3]


def test_the_upload_rate_is_per_minute(limited: Callable[..., Service]) -> None:
    """Two uploads a minute: the third is refused naming the rate."""
    service = limited(upload_rate="2/minute")
    with register(service, "alice") as alice:
        results = [outcome(submit(alice, "bot")) for _ in range(3)]
    assert [code for code, _ in results] == ["ok", "ok", "RESOURCE_EXHAUSTED"]
    assert results[2][1].startswith("upload rate limit reached: 2 uploads a minute (try "
                                    "again in ")


def test_bots_per_user_allow_new_versions(limited: Callable[..., Service]) -> None:
    """Two bots a user: a third name is refused, a new version of an owned bot is not, and
    another user has bots of their own."""
    service = limited(bots=2)
    with register(service, "alice") as alice, register(service, "bob") as bob:
        refused = refusals(burst([submit(alice, f"bot{n}") for n in range(BURST)]))
        assert len(refused) == BURST - 2
        assert refused[0] == ("bot limit reached: 2 bots a user; delete one (arena remote "
                              "delete NAME) or upload a new version of one of yours "
                              "(RESOURCE_EXHAUSTED)")
        owned = [bot.name for bot in alice.call("ListBots", pb.ListBotsRequest(
            mine=True)).bots]
        assert len(owned) == 2
        assert outcome(submit(alice, owned[0]))[0] == "ok"
        assert outcome(submit(bob, "bobs"))[0] == "ok"


def test_build_minutes_are_counted_from_the_stored_build_times(
        limited: Callable[..., Service]) -> None:
    """Every upload is noted with the time the service spent on it, a failed build too; once
    a day's uploads reach the quota, uploads wait until the oldest leaves the last 24 hours."""
    service = limited(build_minutes_per_day=1)
    with register(service, "alice") as alice:
        assert outcome(submit(alice, "bot", FAILED_BUILD))[0] == "INVALID_ARGUMENT"
        with service.store.session() as session:
            attempt = session.scalars(select(UploadAttempt)).one()
            assert attempt.outcome == "INVALID_ARGUMENT" and attempt.seconds >= 0
            attempt.seconds = 70.0  # as if the failed build had taken 70 s, 23 hours ago
            attempt.created_at = datetime.now(UTC) - timedelta(hours=23)
            session.commit()
        code, message = outcome(submit(alice, "bot"))
    assert code == "RESOURCE_EXHAUSTED"
    assert re.fullmatch(r"build time limit reached: 1 build minute a day, 1\.2 used in the "
                        r"last 24 h \(try again in (1 h|59 min)\) \(RESOURCE_EXHAUSTED\)",
                        message), message


def test_the_daily_upload_quota_holds_across_a_restart(
        limited: Callable[..., Service], tmp_path: Path) -> None:
    """Two uploads a day, one built and one refused by its build: a new service over the same
    store refuses the third, since the ledger is in the store."""
    service = limited(uploads_per_day=2)
    with register(service, "alice") as alice:
        token = alice.token
        assert outcome(submit(alice, "bot"))[0] == "ok"
        assert outcome(submit(alice, "bot", FAILED_BUILD))[0] == "INVALID_ARGUMENT"
    service.api.stop(0)
    limits = ServiceLimits(**{**vars(ServiceLimits.unlimited()), "uploads_per_day": 2})
    again = start_api(service.store, str(service.store.url), tmp_path / "again", "127.0.0.1:0",
                      workers=1, uploads=FAKE_UPLOADS, limits=limits)
    try:
        with RemoteArena(f"127.0.0.1:{again.port}", token) as alice:
            code, message = outcome(submit(alice, "bot"))
    finally:
        again.stop(0)
    assert code == "RESOURCE_EXHAUSTED"
    assert message.startswith("upload limit reached: 2 uploads a day (try again in ")


def test_matches_in_flight_count_the_owners_running_leagues(
        limited: Callable[..., Service]) -> None:
    """A league with more matches to play than the quota is not started; one within it is;
    the leagues of the owner that are running count against it."""
    service = limited(matches_in_flight=1)
    with register(service, "alice") as alice:
        for name, deals in (("big", 2), ("small", 1), ("other", 1)):
            alice.call("CreateLeague", pb.CreateLeagueRequest(
                name=name, bots=["random", "heuristic"], games=["briscola"], deals=deals))
        code, message = outcome(lambda: alice.call("RunLeague",
                                                   pb.RunLeagueRequest(name="big")))
        assert code == "RESOURCE_EXHAUSTED"
        assert message.startswith("matches in flight limit reached: 1 matches a user; league "
                                  "'big' has 2 to play and 0 are in flight")
        assert alice.call("RunLeague", pb.RunLeagueRequest(name="small")).started
    with service.store.session() as session:
        owners = {name: owner for name, owner in session.execute(
            select(League.name, League.owner_id))}
        alice_id = session.scalars(select(User.id).where(User.name == "alice")).one()
    assert owners == {"big": alice_id, "small": alice_id, "other": alice_id}
    guard = LimitGuard(service.store, ServiceLimits(matches_in_flight=1),
                       running=lambda league: league == "small")  # as while it runs
    with pytest.raises(ApiError) as caught:
        guard.check_run(alice_id, "other")
    assert caught.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "league 'other' has 1 to play and 1 are in flight" in caught.value.message


def test_limit_options_read_and_refuse() -> None:
    """``--limit KEY=VALUE`` sets one limit over the defaults; ``off`` turns one off; bad
    keys and values are one line naming them."""
    settings = parse_limit_options(["bots=3", "api-calls=off", "registrations=2 per minute",
                                    "build-minutes-per-day=7.5"])
    assert (settings.bots, settings.api_calls, settings.registrations,
            settings.build_minutes_per_day, settings.uploads_per_day) == (
        3, None, "2 per minute", 7.5, ServiceLimits().uploads_per_day)
    for value, start in (("bogus=1", "--limit 'bogus=1': write KEY=VALUE with KEY one of"),
                         ("bots=many", "--limit bots=many: not a number"),
                         ("bots=-1", "--limit bots=-1: must be 0 or more"),
                         ("api-calls=fast", "--limit api-calls=fast: not a rate")):
        with pytest.raises(LimitSettingError) as caught:
            parse_limit_options([value])
        assert str(caught.value).startswith(start), caught.value
    result = CliRunner().invoke(app, ["serve", "--limit", "uploads-per-day=lots"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "error: --limit uploads-per-day=lots: not a number (or off)"]


@pytest.mark.parametrize(("seconds", "text"), [(0.2, "1 s"), (40, "40 s"), (61, "2 min"),
                                               (3600, "1 h"), (3601, "1 h 1 min"),
                                               (11520, "3 h 12 min"), (86400, "24 h")])
def test_waits_read_as_a_person_would_say_them(seconds: float, text: str) -> None:
    """Waits are rounded up to the minute past a minute, in hours past an hour."""
    assert wait_text(seconds) == text
