"""Leagues never show a bot instance one deal twice, though their workers keep bots warm.

Two spy bots (``tests/agents/bots/spy``, real processes) play leagues run by the local pool;
each stream's reported hand is matched to its match's deal. A warm instance plays many
matches (one rotation of each), and none twice the same deal, even when two matches of the
league are given the same seed (the pool's deal ledger then starts another instance). Every
test runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path

from agents.spy import deals_per_instance, shown_twice, spy_folder, streams
from sqlalchemy import select, update
from store import conftest as store_fixtures

from arena.league.create import create_league
from arena.league.local import run_league
from arena.store import BotVersion, LeagueEntrant, Match, Store

from .test_kept_bots import bot_processes

pg_cluster = store_fixtures.pg_cluster
store_url = store_fixtures.store_url
store = store_fixtures.store


def spy_league(store: Store, tmp_path: Path, name: str, deals: int) -> tuple[int, Path, Path]:
    """A briscola league of two spies and the random policy; its id, a spy folder and the
    spies' log."""
    log = tmp_path / "spy.log"
    first = spy_folder(tmp_path / "spy-a", log, "spy-a")
    second = spy_folder(tmp_path / "spy-b", log, "spy-b")
    league_id = create_league(store, name, [str(first), str(second), "random"], ["briscola"],
                              deals=deals)
    return league_id, first, log


def league_deals(store: Store, league_id: int) -> tuple[list[int], int]:
    """Each match's seed, and how many streams the spies play in all (a spy's seat in each
    rotation of each of its matches)."""
    with store.session() as session:
        spies = set(session.scalars(select(BotVersion.id).join(LeagueEntrant).where(
            LeagueEntrant.league_id == league_id, BotVersion.path.is_not(None))))
        matches = session.scalars(select(Match).where(Match.league_id == league_id)).all()
        session.commit()
    return [match.seed for match in matches], sum(
        len(match.rotations) * sum(entrant in spies for entrant in match.entrants)
        for match in matches)


def test_a_league_on_the_local_pool_shows_no_instance_a_deal_twice(
        store: Store, store_url: str, tmp_path: Path) -> None:
    league_id, folder, log = spy_league(store, tmp_path, "spies", deals=3)
    summary = run_league(store_url, "spies", workers=2)
    assert summary.status is not None and summary.status.finished
    seeds, spied = league_deals(store, league_id)
    found = streams(log.read_text())
    assert len(found) == spied
    deals = deals_per_instance(found, seeds)
    assert shown_twice(deals) == {}
    assert max(len(shown) for shown in deals.values()) > 1, "warm instances play on"
    assert bot_processes(folder) == []


def test_a_warm_pool_never_lends_an_instance_a_deal_it_has_played(
        store: Store, store_url: str, tmp_path: Path) -> None:
    """One worker plays every match, and each deal is dealt at two tables (their seeds made
    equal): the pool must start other instances for the second table of a deal."""
    league_id, folder, log = spy_league(store, tmp_path, "twice", deals=4)
    with store.session() as session:
        ids = sorted(session.scalars(select(Match.id).where(Match.league_id == league_id)))
        for first, second in zip(ids[::2], ids[1::2], strict=False):
            seed = session.scalar(select(Match.seed).where(Match.id == first))
            session.execute(update(Match).where(Match.id == second).values(seed=seed))
        session.commit()
    summary = run_league(store_url, "twice", workers=1)
    assert summary.status is not None and summary.status.finished
    seeds, spied = league_deals(store, league_id)
    assert len(set(seeds)) == len(seeds) // 2
    found = streams(log.read_text())
    assert len(found) == spied
    deals = deals_per_instance(found, seeds)
    assert shown_twice(deals) == {}
    assert max(len(shown) for shown in deals.values()) > 2, "warm instances play on"
    assert bot_processes(folder) == []
