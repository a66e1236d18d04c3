"""The models: a round trip of every table, and the constraints behind "nothing run twice"."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import delete, func, insert, select
from sqlalchemy.exc import IntegrityError

from arena.store import (
    Bot,
    BotKind,
    BotVersion,
    League,
    Match,
    MatchRecordRow,
    MatchStatus,
    SeatResult,
    SeedSource,
    Store,
    User,
    claim_match,
    complete_match,
)

from .factory import add_league, outcomes, records

BIG_SEED = 2**64 - 1


def test_every_table_round_trips(store: Store) -> None:
    """What is written comes back with the same values and types."""
    with store.session() as session:
        owner = User(name="ada")
        bot = Bot(name="tressettista", owner=owner)
        session.add(BotVersion(bot=bot, version="2.1", kind=BotKind.DOCKER,
                               image_ref="cardarena-bot/tressettista:2.1",
                               image_id="sha256:" + "ab" * 32, fingerprint="sha256:" + "ab" * 32,
                               games=["tressette", "briscola"]))
        fixture = add_league(session, "autumn")
        match = session.get(Match, fixture.matches[0])
        assert match is not None
        match.seed = BIG_SEED
        match.params = {"target": 21, "variant": "a_chiamata", "fast": True}
        session.commit()
        assert claim_match(session, match.id, "worker-1", lease_s=60)
        assert complete_match(session, match.id, "worker-1", outcomes(fixture), records())

    with store.session() as session:
        version = session.scalars(select(BotVersion).where(BotVersion.version == "2.1")).one()
        assert version.kind is BotKind.DOCKER
        assert version.bot.owner is not None and version.bot.owner.name == "ada"
        assert version.games == ["tressette", "briscola"]
        assert version.describe()["image_id"] == "sha256:" + "ab" * 32
        league = session.scalars(select(League).where(League.name == "autumn")).one()
        assert league.settings == {"seed": 7}
        assert [entrant.bot_version.bot.name for entrant in league.entrants] == [
            "autumn-alpha", "autumn-beta"]
        assert league.created_at.tzinfo is not None
        assert abs((datetime.now(UTC) - league.created_at).total_seconds()) < 3600
        match = session.get(Match, fixture.matches[0])
        assert match is not None
        assert match.seed == BIG_SEED
        assert match.params == {"target": 21, "variant": "a_chiamata", "fast": True}
        assert match.status is MatchStatus.DONE
        assert match.entrants == list(fixture.versions)
        assert match.rotations == [0, 1]
        assert match.attempts == 1 and match.lease_owner == "worker-1"
        assert match.finished_at is not None and match.finished_at.tzinfo is not None
        assert [(row.seat, row.total_return, row.returns, row.reason, row.forfeited)
                for row in match.results] == [(0, 2.0, [1.0, 1.0], "OK", False),
                                              (1, -2.0, [-1.0, -1.0], "TIMEOUT", True)]
        assert match.results[0].decision_us_p95 == 300
        assert [row.record for row in match.records] == [
            {**record, "seed_source": "given"} for record in records()]


def test_records_say_whether_the_match_s_seed_was_secret(store: Store) -> None:
    """The store, not the runner, stamps each record with the match's seed source, so a record
    cannot claim a secret deal that was not (nor the other way round); a league's secret and
    the match's place come back as written."""
    with store.session() as session:
        fixture = add_league(session, matches=2)
        league = session.get_one(League, fixture.league_id)
        league.seed_secret = bytes(range(32))
        secret, given = (session.get_one(Match, match_id) for match_id in fixture.matches)
        secret.seed_source = SeedSource.SECRET
        secret.position, secret.round_index, secret.table_index, secret.deal_index = 5, 1, 2, 3
        session.commit()
        claimed = [{**record, "seed_source": "given"} for record in records()]
        for match_id, stored in ((secret.id, claimed), (given.id, [
                {**record, "seed_source": "secret"} for record in records()])):
            assert claim_match(session, match_id, "w", lease_s=60)
            assert complete_match(session, match_id, "w", outcomes(fixture), stored)
    with store.session() as session:
        assert session.get_one(League, fixture.league_id).seed_secret == bytes(range(32))
        secret, given = (session.get_one(Match, match_id) for match_id in fixture.matches)
        assert (secret.position, secret.round_index, secret.table_index,
                secret.deal_index) == (5, 1, 2, 3)
        assert {row.record["seed_source"] for row in secret.records} == {"secret"}
        assert {row.record["seed_source"] for row in given.records} == {"given"}
        assert given.seed_source is SeedSource.GIVEN


def test_match_ids_are_unique(store: Store) -> None:
    """A second match with the same id is refused."""
    with store.session() as session:
        fixture = add_league(session)
        session.add(Match(id=fixture.matches[0], league_id=fixture.league_id,
                          game_id="briscola", seats=2, seed=1, entrants=list(fixture.versions),
                          rotations=[0]))
        with pytest.raises(IntegrityError):
            session.commit()


def test_one_result_row_per_match_and_seat(store: Store) -> None:
    """A second row for the same seat of the same match is refused by the database."""
    with store.session() as session:
        fixture = add_league(session)
        row = outcomes(fixture)[0].row(fixture.matches[0])
        session.execute(insert(SeatResult), [row])
        session.commit()
        with pytest.raises(IntegrityError):
            session.execute(insert(SeatResult), [row])
        session.rollback()
        record = {"match_id": fixture.matches[0], "deal": 0, "record": {}}
        session.execute(insert(MatchRecordRow), [record])
        session.commit()
        with pytest.raises(IntegrityError):
            session.execute(insert(MatchRecordRow), [record])


def test_league_names_are_unique(store: Store) -> None:
    """A second league of the same name is refused."""
    with store.session() as session:
        add_league(session, "summer")
        session.add(League(name="summer", games=[], deals=1, rounds=1))
        with pytest.raises(IntegrityError):
            session.commit()


def test_foreign_keys_are_enforced(store: Store) -> None:
    """A result for a match that does not exist is refused (on SQLite too)."""
    with store.session() as session:
        fixture = add_league(session)
        with pytest.raises(IntegrityError):
            session.execute(insert(SeatResult), [outcomes(fixture)[0].row("no/such/match")])


def test_deleting_a_league_deletes_its_matches_and_results(store: Store) -> None:
    """Matches, results and records go with their league."""
    with store.session() as session:
        fixture = add_league(session, matches=2)
        assert claim_match(session, fixture.matches[0], "w", lease_s=60)
        assert complete_match(session, fixture.matches[0], "w", outcomes(fixture), records())
        session.execute(delete(League).where(League.id == fixture.league_id))
        session.commit()
        for table in (Match, SeatResult, MatchRecordRow):
            assert session.scalar(select(func.count()).select_from(table)) == 0
        assert session.scalar(select(func.count()).select_from(BotVersion)) == 2


def test_seeds_must_fit_in_64_bits(store: Store) -> None:
    """A seed out of range is refused before it reaches the database."""
    with store.session() as session:
        fixture = add_league(session)
        match = session.get(Match, fixture.matches[0])
        assert match is not None
        match.seed = 2**64
        with pytest.raises(Exception, match="unsigned 64-bit"):
            session.commit()
