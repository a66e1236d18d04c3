"""The continuous ladder's league: opening it, its members joining, and its sets topped up.

A ladder is a league (``settings["ladder"]``) that keeps growing. Its members are league
entrants: a bot version joins once (credited with the fewest sets of the active members, so
that it is not owed every set played before it), and a newer version of the same bot retires
the older one, whose sets and ratings stay. ``top_up`` appends the sets ``next_sets`` chooses
as pending match rows, each with a deal seed from the ladder's secret at its place in the
schedule (``deal_seed(secret, game, position, 0, 0)``): the same executors then play them under
the same leases as any league's matches, so nothing is lost or played twice.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from sqlalchemy.orm import Session

from arena.games import get_spec, load_game
from arena.league.create import (
    SECRET_BYTES,
    EntrantSpec,
    LeagueError,
    LeagueSettings,
    entrant_spec,
    league_games,
    new_match_id,
)
from arena.league.ladder_schedule import LadderGame, LadderState, Skill, next_sets, team_groups
from arena.league.schedule import deal_seed, rotation_period
from arena.league.status import bot_names
from arena.store import League, SeedSource, Store, ensure_bot_version
from arena.store.admin import disabled_reason, playable
from arena.store.bots import bot_named, uploaded_bots
from arena.store.ladder import counts, done_sets, join, members, next_position
from arena.store.leagues import add_league, add_matches, league_named
from arena.store.models import utc_now

LADDER_NAME = "ladder"
"""The name of the service's ladder league."""

DEFAULT_GAMES = ("briscola",)
"""The games a ladder plays unless told otherwise."""

FOUNDING_BOTS = ("random", "heuristic")
"""The reference policies a new ladder starts with."""


def is_ladder(league: League) -> bool:
    """True for a ladder's league."""
    return bool((league.settings or {}).get("ladder"))


def open_ladder(store: Store, name: str = LADDER_NAME,
                games: Sequence[str] | None = None) -> int:
    """The ladder's league id, made (with the reference policies as members) when missing.

    A league of that name that is not a ladder, or a ladder of other games than ``games``, is
    ``LeagueError``.
    """
    with store.session() as session:
        league = league_named(session, name)
        if league is not None:
            if not is_ladder(league):
                raise LeagueError(f"the league {name!r} is not a ladder; choose another name")
            if games is not None and list(games) != list(league.games):
                raise LeagueError(f"the ladder {name!r} plays {','.join(league.games)}; "
                                  f"it cannot change to {','.join(games)}")
            return league.id
    founders = [entrant_spec(bot) for bot in FOUNDING_BOTS]
    played = league_games(list(games or DEFAULT_GAMES), founders)
    with store.session() as session:
        league = add_league(session, League(
            name=name, games=[game.id for game in played], deals=1, rounds=1,
            settings={**LeagueSettings().to_dict(), "ladder": True},
            seed_secret=secrets.token_bytes(SECRET_BYTES)))
        for spec in founders:
            _join_spec(session, league, spec)
        session.commit()
        return league.id


def join_ladder(store: Store, league_id: int, bot: str | EntrantSpec) -> bool:
    """Enter a bot (a folder, ``image:NAME``, a policy, or a resolved spec); False when that
    version is a member already. A bot that does not play every game of the ladder is
    ``LeagueError``."""
    spec = entrant_spec(bot) if isinstance(bot, str) else bot
    with store.session() as session:
        league = session.get_one(League, league_id)
        league_games(list(league.games), [spec])
        joined = _join_spec(session, league, spec)
        session.commit()
    return joined


def _join_spec(session: Session, league: League, spec: EntrantSpec) -> bool:
    """Enter a resolved bot version (not committed)."""
    version = ensure_bot_version(
        session, spec.name, spec.version, spec.kind, path=spec.path, image_ref=spec.image_ref,
        image_id=spec.image_id, fingerprint=spec.fingerprint, games=spec.games,
        language=spec.language)
    return join(session, league.id, version.id, _base_sets(session, league.id))


def _base_sets(session: Session, league_id: int) -> int:
    """The fewest sets of the active members, counted from their own base."""
    active = members(session, league_id)
    if not active:
        return 0
    found = counts(session, league_id).per_bot
    return min(entrant.base_sets + found[entrant.bot_version_id] for entrant in active)


def join_uploads(store: Store, league_id: int) -> list[str]:
    """Enter the latest version of every uploaded bot that plays the ladder's games and is not
    a member yet; the names of those that joined."""
    joined = []
    with store.session() as session:
        league = session.get_one(League, league_id)
        entered = {entrant.bot_version_id for entrant in members(session, league_id,
                                                                 active=False)}
        for bot in uploaded_bots(session):
            if not bot.versions or not playable(bot):
                continue
            latest = bot.versions[-1]
            plays = set(latest.games or ["*"])
            if latest.id in entered or not ("*" in plays or set(league.games) <= plays):
                continue
            join(session, league_id, latest.id, _base_sets(session, league_id))
            joined.append(bot.name)
        session.commit()
    return joined


def ladder_games(league: League) -> list[LadderGame]:
    """The ladder's games with their seat counts and partnerships."""
    found = []
    for game_id in league.games:
        game = load_game(game_id, get_spec(game_id).default_seats)
        found.append(LadderGame(game_id, game.num_players, team_groups(game.teams() or None)))
    return found


def top_up(store: Store, league_id: int, in_flight: int,
           ratings: dict[int, Skill] | None = None, placement: int | None = None) -> list[str]:
    """Append sets until ``in_flight`` are pending or running; the new match ids."""
    with store.session() as session:
        league = session.get_one(League, league_id)
        found = counts(session, league_id)
        wanted = in_flight - found.unfinished
        if wanted <= 0:
            return []
        active = [entrant for entrant in members(session, league_id)
                  if playable(entrant.bot_version.bot)]
        state = LadderState(
            bots=[entrant.bot_version_id for entrant in active], games=ladder_games(league),
            ratings=ratings or {}, sets=found.per_bot, meetings=found.per_pair,
            game_sets=found.per_game,
            base={entrant.bot_version_id: entrant.base_sets for entrant in active})
        if placement is not None:
            state.placement = placement
        chosen = next_sets(state, wanted)
        if not chosen:
            return []
        position = next_position(session, league_id)
        secret = league.seed_secret or secrets.token_bytes(SECRET_BYTES)
        rows = []
        for offset, picked in enumerate(chosen):
            place = position + offset
            game = load_game(picked.game, len(picked.seats))
            rows.append({
                "id": new_match_id(), "league_id": league_id, "game_id": picked.game,
                "params": dict(game.params), "seats": len(picked.seats),
                "seed": deal_seed(secret, picked.game, place, 0, 0),
                "seed_source": SeedSource.SECRET, "position": place, "round_index": place,
                "table_index": 0, "deal_index": 0, "entrants": list(picked.seats),
                "rotations": list(range(rotation_period(picked.seats)))})
        add_matches(session, rows)
        session.commit()
    return [row["id"] for row in rows]


def version_names(store: Store, league_id: int) -> dict[int, str]:
    """Every member's display name (retired ones too), by bot version id."""
    with store.session() as session:
        return bot_names([entrant.bot_version for entrant in members(
            session, league_id, active=False)])


def set_membership(store: Store, league_id: int, bot_name: str, active: bool) -> None:
    """Withdraw a bot from the ladder (its latest version retired, and not entered again
    until a new version is uploaded), or bring its latest version back; ``LeagueError`` when
    the bot has no version, or may not play."""
    with store.session() as session:
        bot = bot_named(session, bot_name, with_versions=True)
        if bot is None or not bot.versions:
            raise LeagueError(f"no bot named {bot_name!r} with a version")
        if active and not playable(bot):
            raise LeagueError(disabled_reason(bot))
        latest = bot.versions[-1]
        entrant = next((entrant for entrant in members(session, league_id, active=False)
                        if entrant.bot_version_id == latest.id), None)
        if entrant is None:
            join(session, league_id, latest.id, _base_sets(session, league_id))
            entrant = next(entrant for entrant in members(session, league_id)
                           if entrant.bot_version_id == latest.id)
        entrant.retired_at = None if active else utc_now()
        session.commit()


def standing(store: Store, league_id: int) -> tuple[list[str], dict[str, int], int, int]:
    """The ladder's games, each active member's done sets by display name, and the sets
    in flight and done."""
    with store.session() as session:
        league = session.get_one(League, league_id)
        active = members(session, league_id)
        names = bot_names([entrant.bot_version for entrant in active])
        done = done_sets(session, league_id)
        found = counts(session, league_id)
        return (list(league.games),
                {names[entrant.bot_version_id]: done[entrant.bot_version_id]
                 for entrant in active}, found.unfinished, found.done)
