"""Creating a league: its entrants as bot versions and every match of its schedule, at once.

An entrant is named as on the command line: a bot folder (run as a local process), a Docker
image (``image:NAME``), or a reference policy (``random``, ``heuristic``) played in the worker
itself. Each becomes a bot version in the store (``ensure_bot_version``): a folder is told apart
by a hash of its files, an image by its id, and a policy is the bot ``policy:NAME`` with no
path. An image is pinned by digest when it is (``image:REPOSITORY@sha256:HEX``), when it was
pushed to or pulled from its repository's registry, or, with ``CARDARENA_REGISTRY`` set, by
pushing it there (``arena.sandbox.registry``): the league's workers pull it by that digest.
For every game the league plays, ``schedule_game`` gives the duplicate sets; each becomes
a match row with a random id (``new_match_id``) and its place in the schedule in columns of
its own. The league, its entrants and its matches are written in one transaction: bad input
leaves nothing behind.

Deal seeds: a league made without a seed draws a secret of ``SECRET_BYTES`` from the OS's
CSPRNG, kept in the store only, and every deal seed is derived from it (``deal_seed``); its
matches are ``secret``. A league made with a seed is reproducible: the same seed gives the same
deals, and anyone who knows it can work them out, so its matches say ``given``.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.exc import IntegrityError

from arena.bots import BotManifest
from arena.games import Game, game_ids, get_spec, load_game
from arena.games.rng import MAX_SEED
from arena.league.forfeits import DEFAULT_POLICY, ForfeitPolicy, forfeit_policy
from arena.league.schedule import ScheduleError, schedule_game
from arena.match.faults import DEFAULT_STRIKES
from arena.match.timecontrol import TimeControl
from arena.policies import policy_names
from arena.sandbox.registry import is_pinned
from arena.store import (
    BotKind,
    League,
    SeedSource,
    Store,
    ensure_bot_version,
)
from arena.store.leagues import add_entrants, add_league, add_matches, delete_league, league_named

POLICY_PREFIX = "policy:"
"""The bot name of a reference policy entrant: ``policy:random``."""

POLICY_VERSION = "builtin"
"""The version string of a reference policy entrant."""

IMAGE_PREFIX = "image:"
"""An entrant named ``image:NAME`` is the Docker image NAME."""

ALL_GAMES = "all"

SECRET_BYTES = 32
"""The length of a league's seed secret."""

MATCH_ID_BYTES = 8
"""Random bytes in a match id (shown as hex)."""

MAX_DEALS = 10_000
"""The most deals (or rounds) a league may ask for per table."""

SKIPPED_FILES = frozenset({"__pycache__", ".git", ".venv", "node_modules", "target", "build"})
"""Folders left out of a bot folder's fingerprint."""


class LeagueError(ValueError):
    """Bad input for a league, or a league that does not exist: one line saying which."""


@dataclass(frozen=True)
class EntrantSpec:
    """A bot version as the store keeps it, read from an entrant named on the command line."""

    name: str
    version: str
    kind: BotKind
    path: str | None = None
    image_ref: str | None = None
    image_id: str | None = None
    fingerprint: str = ""
    games: tuple[str, ...] = ("*",)
    policy: str | None = None
    """The reference policy, for a policy entrant."""
    language: str = ""
    """The bot's language (``python`` for the reference policies, which run in the arena)."""

    def plays(self, game_id: str) -> bool:
        """True when the entrant says it plays the game."""
        return "*" in self.games or game_id in self.games


@dataclass(frozen=True)
class LeagueSettings:
    """How a league's matches are played: the clock and the strikes that forfeit a seat."""

    time_control: TimeControl = field(default_factory=TimeControl)
    strikes: int = DEFAULT_STRIKES
    live: bool = False
    """Deals in play write their actions so far to the store, for watchers
    (``arena.league.live``)."""
    forfeit_policy: ForfeitPolicy = DEFAULT_POLICY
    """How a forfeit scores: ``loss`` (below every seat that did not forfeit, the worst return
    the game allows) or ``stand`` (the substitute's returns stand); see
    ``arena.league.forfeits``."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form kept in ``leagues.settings``."""
        data: dict[str, Any] = {"time_control": self.time_control.to_dict(),
                                "strikes": self.strikes,
                                "forfeit_policy": self.forfeit_policy.value}
        if self.live:
            data["live"] = True
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LeagueSettings:
        """Read the settings back (missing keys at their defaults)."""
        control = data.get("time_control") or {}
        return cls(TimeControl(**control), int(data.get("strikes", DEFAULT_STRIKES)),
                   live=bool(data.get("live", False)),
                   forfeit_policy=league_policy(data))


def league_policy(settings: dict[str, Any]) -> ForfeitPolicy:
    """The forfeit policy kept in a league's settings (``loss``, the default, for a league
    made before leagues had one)."""
    try:
        return forfeit_policy(str(settings.get("forfeit_policy") or DEFAULT_POLICY.value))
    except ValueError:
        return DEFAULT_POLICY


def parse_forfeit_policy(name: str) -> ForfeitPolicy:
    """The forfeit policy a user named, or ``LeagueError`` naming the choices."""
    try:
        return forfeit_policy(name)
    except ValueError as error:
        raise LeagueError(str(error)) from None


def entrant_spec(ref: str) -> EntrantSpec:
    """The bot version an entrant names (a policy name first, then ``image:``, then a folder),
    or ``BotConfigError`` / ``LeagueError`` saying why."""
    if ref in policy_names():
        return EntrantSpec(name=POLICY_PREFIX + ref, version=POLICY_VERSION, kind=BotKind.PROCESS,
                           fingerprint=POLICY_PREFIX + ref, policy=ref, language="python")
    if ref.startswith(IMAGE_PREFIX):
        from arena.agents.sources import pin_image, resolve_image

        image = pin_image(resolve_image(ref))
        return EntrantSpec(name=image.name, version=image.version, kind=BotKind.DOCKER,
                           image_ref=image.pinned or image.ref, image_id=image.image_id,
                           fingerprint=image.image_id, games=image.games,
                           language=image.language)
    if not Path(ref).exists() and os.sep not in ref and "/" not in ref:
        raise LeagueError(f"unknown bot {ref!r}: give a bot folder (with bot.toml), "
                          f"image:NAME, or a policy ({', '.join(policy_names())})")
    manifest = BotManifest.load(ref)
    return EntrantSpec(name=manifest.name, version=manifest.version, kind=BotKind.PROCESS,
                       path=str(manifest.folder), fingerprint=folder_fingerprint(manifest.folder),
                       games=manifest.games, language=manifest.language)


def folder_fingerprint(folder: Path) -> str:
    """A hash of a bot folder's file names and contents (caches and VCS folders left out)."""
    digest = hashlib.blake2b(digest_size=16)
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(name for name in dirs if name not in SKIPPED_FILES)
        for name in sorted(files):
            path = Path(root) / name
            if path.suffix == ".pyc" or not path.is_file():
                continue
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
            digest.update(b"\0")
    return digest.hexdigest()


def league_games(games: str | Sequence[str], entrants: Sequence[EntrantSpec]) -> list[Game]:
    """The games a league plays, at their league seat count and default parameters.

    ``"all"`` is every registered game that every entrant plays; a list names games that every
    entrant must play.
    """
    if isinstance(games, str):
        if games.strip() != ALL_GAMES:
            return league_games([name.strip() for name in games.split(",") if name.strip()],
                                entrants)
        chosen = [game for game in game_ids() if all(entrant.plays(game) for entrant in entrants)
                  and all(_policy_plays(entrant, game) for entrant in entrants)]
        if not chosen:
            raise LeagueError("the bots have no game in common")
        return [_league_game(game) for game in chosen]
    if not games:
        raise LeagueError("a league needs at least one game")
    if len(set(games)) != len(games):
        raise LeagueError("a game is named twice in the league's games")
    loaded = []
    for game_id in games:
        get_spec(game_id)
        for entrant in entrants:
            if not entrant.plays(game_id) or not _policy_plays(entrant, game_id):
                raise LeagueError(f"bot {entrant.name} does not play {game_id}")
        loaded.append(_league_game(game_id))
    return loaded


def _league_game(game_id: str) -> Game:
    """A game at the seat count a league plays, with default parameters."""
    spec = get_spec(game_id)
    return load_game(game_id, spec.default_seats)


def _policy_plays(entrant: EntrantSpec, game_id: str) -> bool:
    """True unless the entrant is a reference policy the game does not have."""
    if entrant.policy is None:
        return True
    from arena.agents import PolicySeat
    from arena.games import GameError

    try:
        PolicySeat(entrant.policy).check(_league_game(game_id))
    except GameError:
        return False
    return True


def create_league(store: Store, name: str, bots: Sequence[str | EntrantSpec],
                  games: str | Sequence[str] = ALL_GAMES, deals: int = 1, rounds: int = 1,
                  seed: int | None = None, settings: LeagueSettings | None = None,
                  replace: bool = False) -> int:
    """Persist a league, its entrants and every match of its schedule; the league's id.

    Without ``seed`` the deals come from a new random secret (``secret`` matches); with one
    they are reproducible and not secret (``given`` matches).

    ``replace`` first deletes a league of the same name with its matches and results (in the
    same transaction); otherwise a name taken is bad input.

    Raises ``LeagueError``, ``BotConfigError``, ``GameError`` or ``ScheduleError`` (one line)
    for bad input, with nothing written. An entrant may also be given as an ``EntrantSpec``
    already resolved (the service names its uploaded bots that way).
    """
    name = name.strip()
    if not name or "/" in name or len(name) > 100:
        raise LeagueError(f"bad league name {name!r}: 1 to 100 characters, no '/'")
    if not 1 <= deals <= MAX_DEALS or not 1 <= rounds <= MAX_DEALS:
        raise LeagueError(f"deals and rounds must be 1..{MAX_DEALS}, got deals={deals}, "
                          f"rounds={rounds}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)
                             or not 0 <= seed <= MAX_SEED):
        raise LeagueError(f"the seed must be an integer 0..{MAX_SEED}, got {seed!r}")
    if len(bots) < 2:
        raise LeagueError(f"a league needs at least 2 bots, got {len(bots)}")
    entrants = [ref if isinstance(ref, EntrantSpec) else entrant_spec(ref) for ref in bots]
    played = league_games(games, entrants)
    settings = settings or LeagueSettings()
    with store.session() as session:
        try:
            taken = league_named(session, name)
            if taken is not None and not replace:
                raise LeagueError(f"a league named {name!r} already exists (--replace "
                                  "deletes it and its results)")
            if taken is not None:
                delete_league(session, taken.id)
            key: int | bytes = secrets.token_bytes(SECRET_BYTES) if seed is None else seed
            given = {"seed": seed} if seed is not None else {}
            league = League(name=name, games=[game.id for game in played], deals=deals,
                            rounds=rounds, settings={**settings.to_dict(), **given},
                            seed_secret=key if isinstance(key, bytes) else None)
            # Written first, so the transaction is open before ensure_bot_version's savepoint:
            # SQLite's Python driver would otherwise commit when the savepoint is released.
            add_league(session, league)
            versions = [ensure_bot_version(
                session, entrant.name, entrant.version, entrant.kind, path=entrant.path,
                image_ref=entrant.image_ref, image_id=entrant.image_id,
                fingerprint=entrant.fingerprint, games=entrant.games,
                language=entrant.language) for entrant in entrants]
            for entrant, version in zip(entrants, versions, strict=True):
                if is_pinned(entrant.image_ref):
                    version.image_ref = entrant.image_ref  # an image known before, now pinned
            ids = [version.id for version in versions]
            if len(set(ids)) != len(ids):
                raise LeagueError("a bot is named twice in the league's bots")
            add_entrants(session, league.id, ids)
            rows = [row for game in played
                    for row in _match_rows(league.id, game, ids, deals, rounds, key)]
            for position, row in enumerate(rows):
                row["position"] = position
            add_matches(session, rows)
            session.commit()
        except IntegrityError:
            session.rollback()
            raise LeagueError(f"a league named {name!r} already exists") from None
        except BaseException:
            session.rollback()
            raise
        return league.id


def new_match_id() -> str:
    """A random match id: hex, telling nothing of the league, the schedule or the seed."""
    return secrets.token_hex(MATCH_ID_BYTES)


def _match_rows(league_id: int, game: Game, entrants: list[int], deals: int, rounds: int,
                seed: int | bytes) -> list[dict[str, Any]]:
    """The match rows of one game's schedule (a secret or a given seed: see ``seed_key``)."""
    teams = game.teams()
    try:
        schedule = schedule_game(game.id, entrants, game.num_players, deals, rounds, seed,
                                 teams=teams or None)
    except ScheduleError as error:
        raise ScheduleError(f"{game.id}: {error}") from None
    params = dict(game.params)
    source = SeedSource.SECRET if isinstance(seed, bytes) else SeedSource.GIVEN
    return [{"id": new_match_id(), "league_id": league_id, "game_id": game.id,
             "params": params, "seats": game.num_players, "seed": match.seed,
             "seed_source": source, "round_index": match.round, "table_index": match.table,
             "deal_index": match.deal, "entrants": list(match.seats),
             "rotations": list(range(match.rotations))}
            for match in schedule]

