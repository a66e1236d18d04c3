"""``arena bot check``: run a bot folder through the conformance checks, one line per check.

The checks, in order: the manifest (``bot.toml``), start-up (the process starts and listens
within the start-up deadline), the handshake (Ready with the arena's protocol version), legal
play in one deal of every game the bot claims (its default seat count and parameters, the bot
at seat 0 and the random policy elsewhere), deadlines (no timeout over those deals) and a clean
shutdown (the bot exits on SIGTERM within the grace period and removes its socket). The bot
process starts once for all of them, each game's deal with a seed of its own (so the one
instance is never shown a deal twice), and is stopped whatever happens (a SIGTERM to the arena
first stops the bot, then ends the arena as SIGTERM would). A check that cannot run after an
earlier failure is skipped.

A Docker bot (``image:NAME``, or a folder with ``sandbox="docker"``) is checked the same way in
one hardened container: the manifest line reads the image's labels (a folder's ``bot.toml``
first, then an ``image`` line for its build), and the clean shutdown is the container's stop.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from arena.agents import AgentFailure, PolicySeat, SeatSpec
from arena.agents.sources import PROCESS, image_name, is_docker, require_limits
from arena.botkit.agents import Borrowed, BorrowedSeat, ObservedAgent, ObservedProcessAgent
from arena.botkit.report import FAIL, PASS, SKIP, WARN, CheckLine, CheckReport, last_output
from arena.bots import MANIFEST, BotConfigError, BotManifest, ensure_built
from arena.games import GameError, game_ids, load_game
from arena.games.params import did_you_mean
from arena.games.rng import derive_seed
from arena.match.faults import Fault, FaultKind
from arena.match.results import DealResult
from arena.match.runner import _SigtermGuard, run_duplicate_async
from arena.match.timecontrol import TimeControl
from arena.protocol import PROTOCOL_VERSION
from arena.reasons import Reason
from arena.sandbox.errors import BuildError

if TYPE_CHECKING:
    from arena.sandbox.images import BotImage

BOT_SEAT = 0
"""The seat the bot plays in every checked deal."""


class Claims(Protocol):
    """What a bot says it plays: a folder's manifest or an image's labels."""

    @property
    def name(self) -> str:
        """The bot's name."""
        ...

    @property
    def games(self) -> tuple[str, ...]:
        """The game ids it claims (``*`` for all)."""
        ...

    def plays(self, game_id: str) -> bool:
        """True when it claims the game."""
        ...

    def check_game(self, game_id: str) -> None:
        """Raise ``BotConfigError`` when it does not claim the game."""
        ...


def unknown_games(manifest: Claims) -> list[str]:
    """The game ids the manifest lists that this arena does not know (plugins not installed)."""
    known = set(game_ids())
    return [game_id for game_id in manifest.games if game_id != "*" and game_id not in known]


def claimed_games(manifest: Claims, wanted: Sequence[str] = ()) -> list[str]:
    """The game ids to check: ``wanted`` (each one the bot must claim), else all it claims."""
    known = game_ids()
    for game_id in wanted:
        if game_id not in known:
            raise GameError(f"unknown game {game_id!r}{did_you_mean(game_id, known)}; "
                            f"known games: {', '.join(known)}")
        manifest.check_game(game_id)
    if wanted:
        return list(dict.fromkeys(wanted))
    return [game_id for game_id in known if manifest.plays(game_id)]


@dataclass
class _Run:
    """A check in progress: the report, and where each line goes as soon as it is known."""

    report: CheckReport
    emit: Callable[[CheckLine], None]

    def add(self, check: str, status: str, detail: str = "",
            seconds: float | None = None) -> CheckLine:
        """Record a line and pass it on."""
        line = CheckLine(check, status, " ".join(detail.split()), seconds)
        self.report.lines.append(line)
        self.emit(line)
        return line


def _bot_faults(deal: DealResult, timeouts: bool) -> list[Fault]:
    """The bot's timeouts, or its other faults, in the deal."""
    return [fault for fault in deal.faults
            if fault.seat == BOT_SEAT and (fault.kind == FaultKind.TIMEOUT) == timeouts]


def _describe(fault: Fault) -> str:
    """``kind: detail (decision k)``."""
    where = f" (decision {fault.decision + 1})" if fault.decision is not None else ""
    return f"{fault.kind}: {fault.detail}{where}"


def game_seed(seed: int, game_id: str) -> int:
    """The seed of a game's checked deal: one of its own per game, from the check's seed (the
    bot plays every game in one instance, and an instance is never shown one deal twice)."""
    return derive_seed(seed, "check", game_id)


async def _play_game(game_id: str, agent: ObservedAgent, claims: Claims, control: TimeControl,
                     seed: int) -> tuple[DealResult, Borrowed]:
    """One deal of a game with the bot at seat 0 and random policies elsewhere."""
    game = load_game(game_id)
    loans: list[Borrowed] = []
    seats: list[SeatSpec] = [BorrowedSeat(agent, claims, loans)]
    seats += [PolicySeat("random")] * (game.num_players - 1)
    result = await run_duplicate_async(game, game_seed(seed, game_id), seats, control,
                                       rotations=1,
                                       match_id=f"check-{game_id}")
    return result.deals[0], loans[0]


def _handshake(run: _Run, deal: DealResult, agent: ObservedAgent) -> bool:
    """The handshake line from the first deal; False when it failed."""
    failed = [fault for fault in _bot_faults(deal, timeouts=False)
              if fault.kind == FaultKind.INIT_ERROR]
    if failed or deal.void:
        run.add("handshake", FAIL, failed[0].detail if failed else deal.details[BOT_SEAT])
        return False
    ready = agent.ready
    said = f"{ready.bot_name} {ready.bot_version}, " if ready and ready.bot_name else ""
    run.add("handshake", PASS, f"{said}{PROTOCOL_VERSION}")
    return True


def _legal_play(run: _Run, game_id: str, deal: DealResult, loan: Borrowed) -> None:
    """The legal-play line of one game."""
    check = f"legal play {game_id}"
    if deal.void:
        run.add(check, FAIL, f"the deal is void: {deal.void}")
        return
    faults = _bot_faults(deal, timeouts=False)
    problem = _describe(faults[0]) if faults else ""
    if not problem and deal.forfeited[BOT_SEAT]:
        problem = f"{deal.reason_names[BOT_SEAT]}: {deal.details[BOT_SEAT]}"
    if problem:
        if deal.reasons[BOT_SEAT] in (Reason.CRASH, Reason.INIT_ERROR):
            stderr = deal.record.conduct.seats[BOT_SEAT].stderr if (
                deal.record is not None and deal.record.conduct is not None) else ""
            problem += last_output(stderr)
        run.add(check, FAIL, problem)
        return
    players = len(deal.returns)
    plural = "" if loan.decisions == 1 else "s"
    run.add(check, PASS, f"{players} seats, {loan.decisions} decision{plural}")


def _ms(micros: int) -> str:
    """A time in milliseconds, with a decimal below 10 ms (``1003 ms``, ``2.4 ms``)."""
    return f"{micros / 1000:.1f} ms" if micros < 10_000 else f"{micros // 1000} ms"


def _deadlines(run: _Run, played: list[tuple[str, DealResult, Borrowed]],
               control: TimeControl) -> None:
    """The deadlines line over every deal played: FAIL for a timeout (the bank did not cover
    it), WARN for a decision over its limit that the bank covered, else PASS; a line that is
    not a PASS names the decision and its time."""
    late = [(game_id, fault) for game_id, deal, _ in played
            for fault in _bot_faults(deal, timeouts=True)]
    limit_us = control.decision_ms * 1000
    if late:
        game_id, first = late[0]
        count = f"{len(late)} timeout{'' if len(late) == 1 else 's'}"
        run.add("deadlines", FAIL, f"{count}; the first in {game_id}: {_describe(first)}")
        return
    timed = [(took, game_id, index) for game_id, _, loan in played
             for index, took in loan.times]
    over = [entry for entry in timed if entry[0] > limit_us]
    if over:
        took, game_id, index = max(over)
        count = f"{len(over)} decision{'' if len(over) == 1 else 's'} over the limit"
        run.add("deadlines", WARN, f"{count}, covered by the time bank; the slowest: decision "
                                   f"{index + 1} in {game_id} took {took / 1000:.1f} ms of "
                                   f"{control.decision_ms} ms")
        return
    slowest = max((took for took, _, _ in timed), default=0)
    run.add("deadlines", PASS, f"slowest decision {_ms(slowest)} of "
                               f"{control.decision_ms} ms")


async def check_bot_async(path: str | Path, games: Sequence[str] = (),
                          control: TimeControl | None = None, seed: int = 1,
                          temp_root: Path | None = None,
                          emit: Callable[[CheckLine], None] | None = None,
                          sandbox: str = PROCESS,
                          allow_unenforced: frozenset[str] = frozenset()) -> CheckReport:
    """Run every check on a bot folder or image; ``emit`` gets each line as soon as it is known.

    A game the bot does not claim, or an unknown game, in ``games`` raises ``BotConfigError``
    or ``GameError`` before anything starts; so do, for a Docker bot, ``DockerUnavailable``,
    ``ImageNotFound`` and ``LimitsNotEnforced`` (a limit outside ``allow_unenforced``).
    """
    control = control or TimeControl()
    run = _Run(CheckReport(str(path)), emit or (lambda line: None))
    docker = is_docker(str(path), sandbox)
    prepared = await _prepare(run, str(path), games, docker)
    if prepared is None:
        return run.report
    claims, game_list, image = prepared
    if image is not None:
        await asyncio.to_thread(require_limits, image, allow_unenforced)
        agent: ObservedAgent = _docker_agent(image, temp_root, allow_unenforced)
    else:
        assert isinstance(claims, BotManifest)
        agent = ObservedProcessAgent(claims, temp_root=temp_root)
    failure: AgentFailure | None = None
    guard = _SigtermGuard()
    try:
        start = time.monotonic()
        try:
            await agent.launch(control.startup_ms / 1000)
        except AgentFailure as error:
            failure = error
        else:
            run.add("start-up", PASS, seconds=time.monotonic() - start)
            await _play_games(run, agent, claims, game_list, control, seed)
    finally:
        guard.stopping = True
        try:
            await agent.shutdown()
        finally:
            guard.release()
    if failure is not None:
        windows = agent.output_windows()
        run.add("start-up", FAIL, failure.detail + last_output(windows[-1] if windows else ""))
        _skip_games(run, game_list, "the bot did not start", handshake=True)
        run.add("clean shutdown", SKIP, "the bot did not start")
    else:
        _shutdown_line(run, agent)
    return run.report


async def _prepare(run: _Run, path: str, games: Sequence[str], docker: bool,
                   ) -> tuple[Claims, list[str], BotImage | None] | None:
    """The manifest (and for a Docker bot, image) lines; what the bot claims, the games to
    check and its image; None after a failed line."""
    name = image_name(path)
    claims: Claims
    if name is not None:
        image = await asyncio.to_thread(inspect_image, name)
        run.report.name = image.name
        claims = image
    else:
        try:
            claims = BotManifest.load(path)
        except BotConfigError as error:
            run.add("manifest", FAIL, str(error))
            return None
        run.report.name = claims.name
    game_list = claimed_games(claims, games)
    count = len(game_list)
    unknown = unknown_games(claims)
    if not game_list:
        where = MANIFEST if name is None else "image's labels"
        run.add("manifest", FAIL, f"bot {claims.name}: no game of its {where} is known here: "
                                  f"{', '.join(unknown)}")
        return None
    note = f"; not known here: {', '.join(unknown)}" if unknown and not games else ""
    plural = f"{count} game{'' if count == 1 else 's'}{note}"
    if name is not None:
        run.add("manifest", PASS, f"{image.name} {image.version or '(no version)'}, "
                                  f"image {image.ref} ({short_id(image.image_id)}), {plural}")
        return claims, game_list, image
    assert isinstance(claims, BotManifest)
    run.add("manifest", PASS, f"{claims.name} {claims.version}, {claims.language}, {plural}")
    if claims.build:
        start = time.monotonic()
        try:
            await asyncio.to_thread(ensure_built, claims)
        except BotConfigError as error:
            run.add("build", FAIL, str(error))
            return None
        run.add("build", PASS, " ".join(claims.build), seconds=time.monotonic() - start)
    if not docker:
        return claims, game_list, None
    start = time.monotonic()
    try:
        built = await asyncio.to_thread(build_image, Path(path))
    except BotConfigError as error:
        run.add("image", FAIL, str(error))
        return None
    except BuildError as error:
        run.add("image", FAIL, f"{error} (`arena bot build {path}` shows the build log)")
        return None
    run.add("image", PASS, f"{built.ref} ({short_id(built.image_id)})",
            seconds=time.monotonic() - start)
    return claims, game_list, built


def short_id(image_id: str) -> str:
    """``sha256:`` and the first 12 hex digits of an image id."""
    algorithm, _, digest = image_id.partition(":")
    return f"{algorithm}:{digest[:12]}" if digest else image_id[:19]


def inspect_image(name: str) -> BotImage:
    """The bot image NAME on this machine (``ImageNotFound`` if none)."""
    from arena.sandbox.images import inspect_bot_image

    return inspect_bot_image(name)


def build_image(folder: Path) -> BotImage:
    """The bot folder's image, built or found in the build cache (``BuildError`` if not)."""
    from arena.sandbox.images import build_bot_image

    return build_bot_image(folder)


def _docker_agent(image: BotImage, temp_root: Path | None,
                  allow_unenforced: frozenset[str]) -> ObservedAgent:
    """The observed container agent of a bot image."""
    from arena.botkit.docker import ObservedDockerAgent

    return ObservedDockerAgent(image, temp_root=temp_root, allow_unenforced=allow_unenforced)


def _skip_games(run: _Run, game_list: Sequence[str], why: str, handshake: bool) -> None:
    """SKIP lines for the checks that need a bot that started (and shook hands)."""
    if handshake:
        run.add("handshake", SKIP, why)
    count = len(game_list)
    what = game_list[0] if count == 1 else f"({count} games)"
    run.add(f"legal play {what}", SKIP, why)
    run.add("deadlines", SKIP, why)


async def _play_games(run: _Run, agent: ObservedAgent, claims: Claims,
                      game_list: Sequence[str], control: TimeControl, seed: int) -> None:
    """The handshake, legal-play and deadlines lines."""
    played: list[tuple[str, DealResult, Borrowed]] = []
    shaken = False
    for game_id in game_list:
        check = f"legal play {game_id}"
        if shaken and agent.exited():
            run.add(check, SKIP, "the bot is no longer running")
            continue
        deal, loan = await _play_game(game_id, agent, claims, control, seed)
        if not shaken:
            shaken = _handshake(run, deal, agent)
            if not shaken:
                _skip_games(run, game_list, "the handshake failed", handshake=False)
                return
        _legal_play(run, game_id, deal, loan)
        played.append((game_id, deal, loan))
    _deadlines(run, played, control)


def _shutdown_line(run: _Run, agent: ObservedAgent) -> None:
    """The clean-shutdown line."""
    note = agent.stop_note
    if note is None:
        run.add("clean shutdown", FAIL, "the bot was not stopped")
        return
    problem = note.problem()
    if problem:
        run.add("clean shutdown", FAIL, problem)
    else:
        run.add("clean shutdown", PASS, seconds=note.seconds)


def check_bot(path: str | Path, games: Sequence[str] = (), control: TimeControl | None = None,
              seed: int = 1, temp_root: Path | None = None,
              emit: Callable[[CheckLine], None] | None = None, sandbox: str = PROCESS,
              allow_unenforced: frozenset[str] = frozenset()) -> CheckReport:
    """``check_bot_async`` in a new event loop."""
    return asyncio.run(check_bot_async(path, games, control, seed, temp_root, emit, sandbox,
                                       allow_unenforced))
