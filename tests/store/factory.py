"""Rows for store tests: a league with bot versions and pending matches."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from arena.store import Bot, BotKind, BotVersion, League, LeagueEntrant, Match, SeatOutcome

SEATS = 2


@dataclass(frozen=True)
class Fixture:
    """What ``add_league`` made: the league's id, its bot version ids and its match ids."""

    league_id: int
    versions: tuple[int, ...]
    matches: tuple[str, ...]


def add_league(session: Session, name: str = "spring", matches: int = 1) -> Fixture:
    """A league of two process bots with ``matches`` pending briscola matches between them."""
    versions = []
    for bot_name in ("alpha", "beta"):
        bot = Bot(name=f"{name}-{bot_name}")
        version = BotVersion(bot=bot, version="1.0", kind=BotKind.PROCESS,
                             path=f"/bots/{bot_name}", games=["*"])
        session.add(version)
        versions.append(version)
    league = League(name=name, games=["briscola"], deals=matches, rounds=1,
                    settings={"seed": 7})
    league.entrants = [LeagueEntrant(bot_version=version, position=index)
                       for index, version in enumerate(versions)]
    session.add(league)
    session.flush()
    ids = tuple(f"{name}/briscola/{index}" for index in range(matches))
    session.add_all(Match(id=match_id, league=league, game_id="briscola", params={},
                          seats=SEATS, seed=1000 + index,
                          entrants=[version.id for version in versions], rotations=[0, 1])
                    for index, match_id in enumerate(ids))
    session.commit()
    return Fixture(league.id, tuple(version.id for version in versions), ids)


def outcomes(fixture: Fixture) -> list[SeatOutcome]:
    """Results of a match of the fixture: seat 0 won both deals."""
    return [SeatOutcome(seat=0, bot_version_id=fixture.versions[0], total_return=2.0,
                        returns=(1.0, 1.0), decisions=40, decision_us_mean=120.5,
                        decision_us_p50=100, decision_us_p95=300, decision_us_max=900),
            SeatOutcome(seat=1, bot_version_id=fixture.versions[1], total_return=-2.0,
                        returns=(-1.0, -1.0), reason="TIMEOUT", forfeited=True, decisions=38)]


def records(count: int = 2) -> list[dict[str, object]]:
    """Stand-in match records, one per deal."""
    return [{"format": "card-arena.match", "game": "briscola", "seed": 1000, "deal": deal,
             "actions": [1, 2, 3]} for deal in range(count)]
