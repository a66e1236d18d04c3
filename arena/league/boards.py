"""The leaderboards of one league (or every league): ratings, forfeits and what was left out.

Each set is rated under its own league's forfeit policy (``arena.league.forfeits``), in
schedule order, league by league. Beside every table: each bot's forfeited deals by reason
code, and the sets the table leaves out (void ones, VOID_INFRA: the arena failed).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.games import load_game
from arena.league.create import LeagueError
from arena.league.forfeits import FaultCount, fault_counts
from arena.league.ratings import Rating, leaderboard, overall, rate, set_outcomes
from arena.league.status import LeftOut, ScoredSet, find_league, left_out, scored_sets
from arena.store import League, Store
from arena.store.leagues import all_leagues

HUMAN_SEATS = "human_seats"
"""The league setting that lists the seats people played (``arena.server.tables``)."""


def rated_leagues(leagues: Sequence[League], rate_humans: bool = False) -> list[League]:
    """The leagues the leaderboards rate: those where people played only with ``rate_humans``."""
    return [league for league in leagues
            if rate_humans or not (league.settings or {}).get(HUMAN_SEATS)]


@dataclass
class Leaderboards:
    """Per game and overall: the ratings in leaderboard order, the forfeits, the void sets."""

    per_game: dict[str, list[Rating[str]]]
    overall: list[Rating[str]]
    faults: dict[str, dict[str, FaultCount]] = field(default_factory=dict)
    """Per game, each bot's forfeited deals by reason code."""
    left_out: dict[str, LeftOut] = field(default_factory=dict)
    """Per game, the void sets left out."""
    policies: tuple[str, ...] = ()
    """The forfeit policies of the leagues rated."""
    sets: dict[str, Counter[str]] = field(default_factory=dict)
    """Per game, the duplicate sets each bot's rating rests on."""

    def set_counts(self, game: str | None) -> Counter[str]:
        """The sets each bot played in a game (in every game for None)."""
        if game is not None:
            return self.sets.get(game, Counter())
        total: Counter[str] = Counter()
        for counts in self.sets.values():
            total.update(counts)
        return total

    def overall_faults(self) -> dict[str, FaultCount]:
        """Each bot's forfeited deals over every game."""
        total: dict[str, FaultCount] = {}
        for counts in self.faults.values():
            for bot, count in counts.items():
                total.setdefault(bot, FaultCount(Counter())).faults.update(count.faults)
        return total

    def overall_left_out(self) -> LeftOut:
        """The void sets of every game."""
        return LeftOut(sum(item.sets for item in self.left_out.values()),
                       sum(item.deals for item in self.left_out.values()))

    def fault_count(self, game: str | None, bot: str) -> FaultCount:
        """One bot's forfeits in a game (every game for None)."""
        counts = self.overall_faults() if game is None else self.faults.get(game, {})
        return counts.get(bot) or FaultCount(Counter())

    def rows(self, game: str | None) -> list[dict[str, Any]]:
        """A table's JSON rows: each rating with the ``sets`` it rests on and the bot's
        ``faults`` and ``forfeits``."""
        ratings = self.overall if game is None else self.per_game.get(game, [])
        sets = self.set_counts(game)
        return [{**rating.to_dict(), "sets": sets[rating.bot],
                 **self.fault_count(game, rating.bot).to_dict()} for rating in ratings]

    def note(self, game: str | None) -> str:
        """The caption of a table: how forfeits count and what it leaves out."""
        policies = " and ".join(self.policies) or "loss"
        out = self.overall_left_out() if game is None else self.left_out.get(game, LeftOut())
        return f"forfeits scored as {policies}; {out.text()}"

    def to_dict(self, game: str | None = None) -> dict[str, Any]:
        """The JSON form: per game (and overall without ``game``) the rows and left-out sets."""
        games = [game] if game is not None else list(self.per_game)
        data: dict[str, Any] = {
            "games": {name: self.rows(name) for name in games},
            "left_out": {name: self.left_out.get(name, LeftOut()).to_dict() for name in games},
            "forfeit_policies": list(self.policies)}
        if game is None:
            data["overall"] = self.rows(None)
            data["overall_left_out"] = self.overall_left_out().to_dict()
        return data


def leaderboards(store: Store, league: str | None, game: str | None,
                 rate_humans: bool = False) -> Leaderboards:
    """The leaderboards of one league's (or every league's) finished matches; every league
    leaves out those where people played, unless ``rate_humans``."""
    with store.session() as session:
        leagues: Sequence[League] = ([find_league(session, league)] if league
                                     else rated_leagues(all_leagues(session), rate_humans))
        played, _ = scored_sets(session, leagues, game)
        void = left_out(session, [item.id for item in leagues])
        session.commit()
    by_game: dict[str, list[ScoredSet]] = {}
    for entry in played:
        by_game.setdefault(entry.match.game, []).append(entry)
    tables = {}
    faults = {}
    counts: dict[str, Counter[str]] = {}
    for game_id, sets in by_game.items():
        counts[game_id] = Counter(bot for entry in sets for bot in set(entry.match.seats))
        first = sets[0].result
        rules = load_game(game_id, first.players, first.params)
        bots = list(dict.fromkeys(bot for entry in sets for bot in entry.match.seats))
        tables[game_id] = rate((outcome for entry in sets for outcome in set_outcomes(
            rules, entry.match.seats, entry.result, entry.policy)), bots)
        faults[game_id] = fault_counts((fault for entry in sets for fault in entry.faults()),
                                       bots)
    if game is not None and game not in tables:
        raise LeagueError(f"no finished match of {game} in the database")
    everyone = sorted({bot for table in tables.values() for bot in table})
    policies = tuple(sorted({entry.policy.value for entry in played}))
    return Leaderboards({game_id: leaderboard(table) for game_id, table in tables.items()},
                        leaderboard(overall(tables, everyone)), faults,
                        {name: out for name, out in void.items()
                         if game is None or name == game}, policies, counts)
