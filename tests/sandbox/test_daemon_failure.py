"""The Docker daemon failing while a bot's container is made, injected for real: a proxy in
front of the daemon's socket (``faultproxy``, through ``DOCKER_HOST``) answers 500 to a bot
container's create or start, either without passing it on (``refuse``) or after the daemon
did it (``lose``: the container exists but the arena never heard so).

A deal whose container could not be made is VOID_INFRA, with no verdict against any bot, and
nothing is left: no container (not even one the arena never heard of), no socket folder, no
process. In a league the attempt is handed back and the match played again (or made void at
the attempt cap, with no result against anyone), one result row per seat in the end.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from arena.agents.seats import DockerSeat
from arena.games import load_game
from arena.league.create import LeagueSettings, create_league
from arena.league.local import run_league
from arena.match.runner import run_deal
from arena.match.timecontrol import TimeControl
from arena.sandbox.engine import docker_client
from arena.sandbox.images import BotImage
from arena.sandbox.limits import SandboxLimits
from arena.store import Match, MatchRecordRow, MatchStatus, SeatResult, open_store

from .conftest import require_docker
from .faultproxy import INJECTED, Fault, FaultProxy

SAMPLE_RANDOM = Path(__file__).resolve().parents[2] / "sample_bots" / "python" / "random"
BRISCOLA = load_game("briscola")
SEED = 5
CONTROL = TimeControl(decision_ms=2000, bank_ms=5000, startup_ms=30_000, ready_ms=5000)

ProxyFactory = Callable[[Fault], FaultProxy]


@pytest.fixture
def random_image(bot_image: Callable[[Path], BotImage]) -> BotImage:
    """The random sample bot's image, built (if need be) before any fault is injected."""
    return bot_image(SAMPLE_RANDOM)


@pytest.fixture
def failing_daemon() -> Iterator[ProxyFactory]:
    """Start a fault proxy and point this process (and the processes it starts) at it; the
    real daemon again afterwards."""
    require_docker()
    folder = Path(tempfile.mkdtemp(prefix="cat-px-", dir="/tmp"))
    previous = os.environ.get("DOCKER_HOST")
    proxies: list[FaultProxy] = []

    def start(fault: Fault) -> FaultProxy:
        """The proxy, serving from now on."""
        proxy = FaultProxy(folder, fault).start()
        proxies.append(proxy)
        os.environ["DOCKER_HOST"] = proxy.url
        docker_client.cache_clear()
        return proxy

    try:
        yield start
    finally:
        if previous is None:
            os.environ.pop("DOCKER_HOST", None)
        else:
            os.environ["DOCKER_HOST"] = previous
        docker_client.cache_clear()
        for proxy in proxies:
            proxy.stop()
        shutil.rmtree(folder, ignore_errors=True)


def existing(names: list[str]) -> list[str]:
    """The containers of these names that the real daemon still has."""
    client = docker_client()
    present = {container.name for container in client.containers.list(all=True,
                                                                     ignore_removed=True)}
    return [name for name in names if name in present]


FAULTS = [Fault("create", 1, "refuse"), Fault("create", 2, "refuse"), Fault("create", 1, "lose"),
          Fault("start", 1, "refuse"), Fault("start", 2, "lose")]


@pytest.mark.docker
@pytest.mark.parametrize("fault", FAULTS,
                         ids=[f"{fault.call}{fault.nth}-{fault.mode}" for fault in FAULTS])
def test_a_daemon_failing_at_a_container_voids_the_deal_and_leaves_nothing(
        fault: Fault, random_image: BotImage, failing_daemon: ProxyFactory,
        leftovers: Path) -> None:
    """Two Docker seats; the daemon fails one container's create or start: the deal is
    VOID_INFRA for both seats (no forfeit, no fault, no record), and every container the
    arena asked for is gone, including one the daemon made though the arena heard a 500."""
    proxy = failing_daemon(fault)
    seats = [DockerSeat(random_image, SandboxLimits(), leftovers) for _ in range(2)]
    deal = run_deal(BRISCOLA, SEED, seats, CONTROL)
    assert [call for call in proxy.calls if call.failed], proxy.calls
    assert deal.void and INJECTED in deal.void, deal.void
    assert deal.reason_names == ("VOID_INFRA", "VOID_INFRA")
    assert not any(deal.forfeited) and not deal.faults and deal.record is None
    assert proxy.bot_names and existing(proxy.bot_names) == []


def new_league(db: str, image: BotImage, deals: int) -> int:
    """The image against the random policy at briscola."""
    with open_store(db) as store:
        return create_league(store, "daemon", [f"image:{image.ref}", "random"],
                             games=["briscola"], deals=deals,
                             settings=LeagueSettings(CONTROL))


def stored(db: str, league_id: int) -> tuple[list[Any], dict[str, int], dict[str, int]]:
    """The league's matches, and result rows and record rows per match."""
    with open_store(db) as store, store.session() as session:
        matches = list(session.scalars(select(Match).where(Match.league_id == league_id)
                                       .order_by(Match.id)))
        results = dict(session.execute(select(SeatResult.match_id, func.count())
                                       .group_by(SeatResult.match_id)).all())
        records = dict(session.execute(select(MatchRecordRow.match_id, func.count())
                                       .group_by(MatchRecordRow.match_id)).all())
    return matches, results, records


@pytest.mark.docker
def test_a_league_match_whose_container_failed_is_played_again(
        random_image: BotImage, failing_daemon: ProxyFactory, league_root: Path) -> None:
    """The first bot container's create fails in a league on the local pool: that attempt is
    handed back and the match played again; every match is done once, one result row per
    seat and one record per rotation, and nothing is left."""
    db = f"sqlite:///{league_root / 'arena.db'}"
    league_id = new_league(db, random_image, deals=2)
    proxy = failing_daemon(Fault("create", 1, "refuse"))
    summary = run_league(db, "daemon", workers=1)
    assert summary.status is not None and summary.status.finished
    matches, results, records = stored(db, league_id)
    assert [match.status for match in matches] == [MatchStatus.DONE] * len(matches)
    assert sorted(match.attempts for match in matches) == [1] * (len(matches) - 1) + [2]
    for match in matches:
        assert results[match.id] == match.seats and records[match.id] == len(match.rotations)
    assert existing(proxy.bot_names) == []
    assert list((league_root / "tmp").iterdir()) == []


@pytest.mark.docker
def test_a_league_match_whose_containers_always_fail_is_void_without_a_verdict(
        random_image: BotImage, failing_daemon: ProxyFactory, league_root: Path) -> None:
    """Every bot container's create fails: the match is void at the attempt cap, with the
    daemon's error noted and no result row against any bot; nothing is left."""
    db = f"sqlite:///{league_root / 'arena.db'}"
    league_id = new_league(db, random_image, deals=1)
    proxy = failing_daemon(Fault("create", 1, "refuse", every=True))
    summary = run_league(db, "daemon", workers=1)
    assert summary.status is not None and summary.status.finished
    (match,), results, records = stored(db, league_id)
    assert match.status is MatchStatus.VOID and match.attempts == 3
    assert "VOID_INFRA" in (match.last_error or "") and INJECTED in (match.last_error or "")
    assert match.id not in results and match.id not in records
    assert len(proxy.bot_names) >= 3 and existing(proxy.bot_names) == []
    assert list((league_root / "tmp").iterdir()) == []
