"""Creating leagues: the rows match the schedule, and bad input leaves nothing behind.

Every test runs on SQLite and on a private PostgreSQL (the fixtures of ``tests/store``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from sqlalchemy import func, select
from store import conftest as store_fixtures
from typer.testing import CliRunner

from arena.bots import BotConfigError
from arena.cli import ArenaGroup
from arena.cli.league import league_app
from arena.games import GameError, load_game
from arena.league.create import (
    LeagueError,
    LeagueSettings,
    create_league,
    folder_fingerprint,
)
from arena.league.schedule import deal_seed, schedule_game, seed_key
from arena.league.status import league_languages
from arena.match.timecontrol import TimeControl
from arena.store import (
    BotKind,
    BotVersion,
    League,
    LeagueEntrant,
    Match,
    MatchStatus,
    SeedSource,
    Store,
)

pg_cluster = store_fixtures.pg_cluster
store_url = store_fixtures.store_url
store = store_fixtures.store

SAMPLE_RANDOM = Path(__file__).resolve().parents[2] / "sample_bots" / "python" / "random"


def table_counts(store: Store) -> dict[str, int]:
    """How many rows each league table holds."""
    with store.session() as session:
        counts = {model.__tablename__: session.scalar(select(func.count()).select_from(model))
                  for model in (League, LeagueEntrant, Match, BotVersion)}
        session.commit()
    return counts


def test_rows_match_the_schedule(store: Store) -> None:
    """Every scheduled set is one pending match with its seed, entrants and rotations."""
    settings = LeagueSettings(TimeControl(decision_ms=500, bank_ms=2000), strikes=2)
    league_id = create_league(store, "cup", ["heuristic", "random", str(SAMPLE_RANDOM)],
                              ["briscola", "tressette", "briscola-chiamata"], deals=2,
                              rounds=2, seed=7, settings=settings)
    with store.session() as session:
        league = session.get_one(League, league_id)
        assert league.games == ["briscola", "tressette", "briscola-chiamata"]
        assert (league.deals, league.rounds, league.settings["seed"]) == (2, 2, 7)
        assert LeagueSettings.from_dict(league.settings) == settings
        versions = [entrant.bot_version for entrant in league.entrants]
        assert [version.bot.name for version in versions] == [
            "policy:heuristic", "policy:random", "random"]
        assert versions[2].kind is BotKind.PROCESS
        assert versions[2].path == str(SAMPLE_RANDOM)
        assert versions[2].fingerprint == folder_fingerprint(SAMPLE_RANDOM)
        assert [version.language for version in versions] == ["python"] * 3
        assert league_languages(session, league) == {
            "heuristic (policy)": "python", "random (policy)": "python", "random": "python"}
        ids = [version.id for version in versions]
        rows = list(session.scalars(select(Match).where(Match.league_id == league_id)
                                    .order_by(Match.position)))
        assert [row.position for row in rows] == list(range(len(rows)))
        expected = 0
        for game_id in league.games:
            game = load_game(game_id)
            for scheduled in schedule_game(game_id, ids, game.num_players, 2, 2, 7,
                                           teams=game.teams() or None):
                row = rows[expected]
                assert (row.round_index, row.table_index, row.deal_index) == (
                    scheduled.round, scheduled.table, scheduled.deal)
                assert row.seed_source is SeedSource.GIVEN
                assert row.game_id == game_id
                assert row.seats == game.num_players
                assert row.seed == scheduled.seed
                assert row.entrants == list(scheduled.seats)
                assert row.rotations == list(range(scheduled.rotations))
                assert row.params == dict(game.params)
                assert (row.status, row.attempts) == (MatchStatus.PENDING, 0)
                expected += 1
        assert len(rows) == expected


def test_all_games_are_those_every_bot_plays(store: Store, tmp_path: Path) -> None:
    """``all`` leaves out the games a bot does not declare."""
    picky = tmp_path / "picky"
    picky.mkdir()
    (picky / "bot.toml").write_text(
        'name = "picky"\nversion = "1"\nlanguage = "python"\ncommand = ["python", "bot.py"]\n'
        'games = ["scopa", "briscola"]\n', encoding="utf-8")
    league_id = create_league(store, "two", ["random", str(picky)], "all")
    with store.session() as session:
        assert session.get_one(League, league_id).games == ["briscola", "scopa"]


@pytest.mark.parametrize(("bots", "games", "error", "text"), [
    (["random", "/no/such/bot"], "all", BotConfigError, "no such file"),
    (["random", "nosuchpolicy"], "all", LeagueError, "unknown bot"),
    (["random", "heuristic"], ["briscola", "nosuchgame"], GameError, "unknown game"),
    (["random", "random"], ["briscola"], LeagueError, "named twice"),
    (["random"], ["briscola"], LeagueError, "at least 2 bots"),
])
def test_bad_input_leaves_nothing(store: Store, bots: list[str], games: object,
                                  error: type[Exception], text: str) -> None:
    """Each bad input raises one clear error and writes no row."""
    before = table_counts(store)
    with pytest.raises(error, match=text):
        create_league(store, "bad", bots, games)  # type: ignore[arg-type]
    assert table_counts(store) == before


def test_a_taken_name_leaves_the_first_league_alone(store: Store) -> None:
    """A second league of one name is refused, the first untouched, no version added."""
    create_league(store, "cup", ["random", "heuristic"], ["briscola"])
    before = table_counts(store)
    with pytest.raises(LeagueError, match="already exists"):
        create_league(store, "cup", ["random", str(SAMPLE_RANDOM)], ["scopa"])
    assert table_counts(store) == before


def test_cli_create_and_bad_input(store_url: str) -> None:
    """``league create`` prints the match count; bad input is one line and exit code 2."""
    app = typer.Typer(cls=ArenaGroup)
    app.add_typer(league_app, name="league")
    runner = CliRunner()
    made = runner.invoke(app, ["league", "create", "cup", "--bot", "random", "--bot",
                               "heuristic", "--games", "briscola,scopa", "--db", store_url])
    assert made.exit_code == 0, made.output
    assert "2 games, 2 matches, secret deals" in made.output
    given = runner.invoke(app, ["league", "create", "open", "--bot", "random", "--bot",
                                "heuristic", "--games", "briscola", "--seed", "5",
                                "--db", store_url])
    assert given.exit_code == 0, given.output
    assert "deals from seed 5 (reproducible, not secret)" in given.output
    taken = runner.invoke(app, ["league", "create", "cup", "--bot", "random", "--bot",
                                "heuristic", "--db", store_url])
    assert taken.exit_code == 2
    assert "already exists" in taken.output


def test_replace_deletes_the_old_league_and_its_results(store: Store, store_url: str) -> None:
    """``replace`` drops the old league with its matches and results, in the one transaction."""
    from arena.league.run_match import DONE, run_match
    from arena.store import SeatResult

    old_id = create_league(store, "cup", ["random", "heuristic"], ["briscola"])
    with store.session() as session:
        old_match = session.scalars(select(Match.id).where(Match.league_id == old_id)).one()
        session.commit()
    assert run_match(old_match, store_url=store_url) == DONE
    new_id = create_league(store, "cup", ["random", "heuristic"], ["scopa"], replace=True)
    with store.session() as session:
        assert session.scalars(select(League.id)).all() == [new_id]
        assert session.scalars(select(Match.game_id)).all() == ["scopa"]
        assert session.scalar(select(func.count()).select_from(SeatResult)) == 0
        session.commit()


def _matches(store: Store, league_id: int) -> list[Match]:
    """A league's match rows in schedule order."""
    with store.session() as session:
        rows = list(session.scalars(select(Match).where(Match.league_id == league_id)
                                    .order_by(Match.position)))
        session.commit()
    return rows


def test_a_league_without_a_seed_has_a_secret_and_opaque_ids(store: Store) -> None:
    """Two leagues created alike get different secrets, seeds and ids; no id says where its
    match sits, and every match is marked secret."""
    first = create_league(store, "one", ["random", "heuristic"], ["briscola", "scopa"],
                          deals=3, rounds=2)
    second = create_league(store, "two", ["random", "heuristic"], ["briscola", "scopa"],
                           deals=3, rounds=2)
    with store.session() as session:
        secrets_ = [session.get_one(League, league).seed_secret for league in (first, second)]
        settings = [session.get_one(League, league).settings for league in (first, second)]
        session.commit()
    assert all(secret is not None and len(secret) == 32 for secret in secrets_)
    assert secrets_[0] != secrets_[1]
    assert all("seed" not in setting for setting in settings)
    one, two = _matches(store, first), _matches(store, second)
    assert [(m.game_id, m.round_index, m.table_index, m.deal_index) for m in one] == [
        (m.game_id, m.round_index, m.table_index, m.deal_index) for m in two]
    assert not {m.seed for m in one} & {m.seed for m in two}
    assert len({m.seed for m in one}) == len(one)
    ids = [m.id for m in one + two]
    assert len(set(ids)) == len(ids)
    for match in one + two:
        assert match.seed_source is SeedSource.SECRET
        assert len(match.id) == 16 and int(match.id, 16) >= 0
        assert "/" not in match.id and match.game_id not in match.id
        assert str(match.seed) not in match.id and f"{match.seed:x}" not in match.id
    secret = secrets_[0]
    assert secret is not None
    for match in one:
        assert match.seed == deal_seed(secret, match.game_id, match.round_index,
                                       match.table_index, match.deal_index)


def test_a_given_seed_is_reproducible_and_marked_not_secret(store: Store) -> None:
    """The same seed gives the same deals in two leagues (ids still random), marked given."""
    first = create_league(store, "a", ["random", "heuristic"], ["briscola"], deals=2, seed=0)
    second = create_league(store, "b", ["random", "heuristic"], ["briscola"], deals=2, seed=0)
    one, two = _matches(store, first), _matches(store, second)
    assert [m.seed for m in one] == [m.seed for m in two]
    assert not {m.id for m in one} & {m.id for m in two}
    assert {m.seed_source for m in one + two} == {SeedSource.GIVEN}
    with store.session() as session:
        league = session.get_one(League, first)
        assert (league.seed_secret, league.settings["seed"]) == (None, 0)
        session.commit()
    assert [m.seed for m in one] == [deal_seed(seed_key(0), "briscola", 0, 0, d)
                                     for d in range(2)]


@pytest.mark.parametrize("seed", [-1, 2**64, True, "7"])
def test_a_bad_seed_is_one_clear_error(store: Store, seed: object) -> None:
    before = table_counts(store)
    with pytest.raises(LeagueError, match="the seed must be an integer"):
        create_league(store, "bad", ["random", "heuristic"], ["briscola"],
                      seed=seed)  # type: ignore[arg-type]
    assert table_counts(store) == before
