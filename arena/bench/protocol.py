"""``arena bench protocol``: a decision's round trip to a bot process against raw gRPC.

Four measurements, interleaved round by round so that the shared machine's load falls on all
of them alike:

- arena side: the runner plays a duplicate set against scripted agents that answer at once
  (``overhead``); the thread's CPU time per decision is the arena's own work, without any
  wait for a bot: the observation, its encoding, reading and checking the answer, applying
  it and recording it, and each deal's MatchStart, MatchEnd and record spread over its
  decisions (moving the bytes over gRPC is left to the round trips). A round measures
  ``ARENA_SIDE_SETS`` such sets, one before each of the three kinds of round trip, each of
  another deal, so that the median spans the round's moments;
- raw: the messages of that set, as serialized bytes, sent in lock step in the order of play to
  bare gRPC server processes that answer each with the same Decision, one process per
  entrant as in the match (``pingpong``): each deal's MatchStarts, then every request on its
  entrant's stream;
- bot alone: the same messages, sent by the same lock-step client to processes of the bot
  (started for this alone: the arena never shows a bot instance one deal twice), so that the
  gap between raw and arena splits into the bots' share (their SDK and their choice) and the
  arena's share;
- arena: the runner plays the same deal as a duplicate set with the random sample bot (real
  processes, over Unix sockets, one per seat and rotation) at every seat; the round trip of a
  decision is the time the runner waits for the agent's answer (from asking it to having the
  answer), and the charged time the time its clock charges the bot (the time the runner
  records for it: from writing the request to when the answer could first be read, the event
  loop's lag left out; ``arena.agents.loopclock``).

The figures are the medians (p50) and 99th percentiles of all round trips, and the ratio of
the arena's p50 to the raw p50 (the arena side: the median of all its sets). Then, with the same
bot, decisions per second with 1 and with 8 duplicate sets played at once in one event loop
(each set with bot processes of its own, or, for a bot whose manifest says
``matches_at_once``, sets sharing one set's processes up to that many, each deal on a stream
of its own: ``launched_lanes``; started beforehand). Start-up of processes is never
timed.

Last, the fair clock under load: ``CLOCK_MATCHES`` matches of ``CLOCK_GAME`` (5-seat
briscola chiamata) at once in one event loop, every seat the bot, each match playing single
deals of new seeds on processes of its own; the p50 and p99 of the charged time beside those
of the round trip, the goal being a charged p99 of at most ``GOAL_CHARGED_P99_US`` whatever
the round trip.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import platform
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import grpc

from arena.agents.heap import settle_heap
from arena.agents.transport import transport
from arena.bench.launched import LaunchedSeat, launched_bots, launched_lanes
from arena.bench.overhead import check_clean, measure_overhead
from arena.bench.pingpong import LockStepClient, PingPongServers
from arena.bench.stats import percentile
from arena.bots import BotConfigError, BotManifest
from arena.games import Game, load_game
from arena.match.runner import run_duplicate_async

GOAL_RATIO = 1.3
"""The arena's p50 round trip should be at most this many raw p50 round trips."""

GOAL_ARENA_US = 30.0
"""The arena's own work per decision should take at most this many microseconds."""

ARENA_SIDE_SETS = 3
"""Scripted duplicate sets per round that measure the arena side, each of its own deal."""

EXTRA_SEED_BASE = 1_000_000
"""The arena side's extra sets play deals from here on, apart from the rounds' deals."""

DEFAULT_GAME = "briscola"
DEFAULT_ROUNDS = 10
DEFAULT_CONCURRENCY = (1, 8)
DEFAULT_THROUGHPUT_S = 3.0
"""Seconds each throughput measurement keeps starting new duplicate sets."""

CLOCK_GAME = "briscola-chiamata"
"""The game of the clock measurement under load (five seats)."""

CLOCK_MATCHES = 16
"""Matches at once in the clock measurement under load."""

GOAL_CHARGED_P99_US = 10_000.0
"""Under load, the 99th percentile of the time charged to an instant bot should be at most
this many microseconds."""

STARTUP_S = 30.0
"""How long a bot process or the raw server may take to listen (the machine may be busy)."""

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_RANDOM = ROOT / "sample_bots" / "python" / "random"
"""The random sample bot of a source checkout."""

Progress = Callable[[str], None]


def short_temp_root() -> Path:
    """A fresh temporary folder with a short path (Unix socket paths are limited to 107 bytes)."""
    base = tempfile.gettempdir()
    if len(base) > 40 and Path("/tmp").is_dir():
        base = "/tmp"
    return Path(tempfile.mkdtemp(prefix="cab-", dir=base))


@contextmanager
def temp_root() -> Iterator[Path]:
    """A short temporary folder for sockets and bots' folders, removed afterwards."""
    root = short_temp_root()
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def load_bot(path: Path, game: Game, sample: Path | None = None) -> BotManifest:
    """The bot folder's manifest, checked against the game (``BotConfigError`` if not);
    ``sample``: the default folder, whose absence gets a hint."""
    if sample is not None and Path(path) == sample and not sample.exists():
        raise BotConfigError(f"the sample bot {sample.name} is not at {sample} (it comes with "
                             "a source checkout of the arena): pass --bot PATH")
    manifest = BotManifest.load(path)
    manifest.check_game(game.id)
    return manifest


def _times(records: Sequence[Any]) -> list[int]:
    """The recorded time of every decision of some match records (µs)."""
    return [us for record in records for us in record.conduct.decision_us if us is not None]


def _round_trips(values: Sequence[float], prefix: str = "") -> dict[str, float]:
    """p50 and p99 of some round trips, rounded to 0.1 µs (keys after ``prefix``)."""
    return {f"{prefix}p50_us": round(percentile(values, 50), 1),
            f"{prefix}p99_us": round(percentile(values, 99), 1)}


def _timed(seats: Sequence[LaunchedSeat], trips: list[int]) -> list[LaunchedSeat]:
    """The seats with their round trips kept in ``trips``."""
    return [LaunchedSeat(seat.bots, trips, seat.shared) for seat in seats]


class _Latency:
    """The samples of the interleaved rounds."""

    def __init__(self) -> None:
        """No samples yet."""
        self.arena_us: list[int] = []
        self.charged_us: list[int] = []
        self.raw_us: list[int] = []
        self.bot_us: list[int] = []
        self.overhead_us: list[float] = []
        self.request_bytes: list[int] = []
        self.arena_medians: list[float] = []
        self.raw_medians: list[float] = []
        self.bot_medians: list[float] = []


async def _round(game: Game, seed: int, seats: list[LaunchedSeat], raw: PingPongServers,
                 direct: LockStepClient, latency: _Latency | None) -> None:
    """One round on deal ``seed``: arena side, raw, bot alone and arena; kept unless a
    warm-up."""
    overhead = await measure_overhead(game, seed)
    raw_us = await raw.client.play(overhead.deals)
    extra = [await measure_overhead(game, EXTRA_SEED_BASE + seed * ARENA_SIDE_SETS + 1)]
    bot_us = await direct.play(overhead.deals)
    extra.append(await measure_overhead(game, EXTRA_SEED_BASE + seed * ARENA_SIDE_SETS + 2))
    arena_us: list[int] = []
    result = await run_duplicate_async(game, seed, _timed(seats, arena_us))
    check_clean(result, "a duplicate set with the bot")
    if latency is None:
        return
    latency.overhead_us += [sample.us_per_decision for sample in [overhead, *extra]]
    latency.raw_us += raw_us
    latency.bot_us += bot_us
    latency.arena_us += arena_us
    latency.charged_us += _times(result.records)
    latency.request_bytes += overhead.request_sizes
    latency.raw_medians.append(statistics.median(raw_us))
    latency.bot_medians.append(statistics.median(bot_us))
    latency.arena_medians.append(statistics.median(arena_us))


async def _lane(game: Game, seats: list[LaunchedSeat], seeds: Iterator[int], deadline: float,
                times: list[int], trips: list[int], rotations: int | None = None) -> int:
    """Play duplicate sets (or ``rotations`` deals of each) until ``deadline`` (at least one);
    the decisions played. Charged times go to ``times``, round trips to ``trips``."""
    loop = asyncio.get_running_loop()
    decisions = 0
    timed = _timed(seats, trips)
    while True:
        result = await run_duplicate_async(game, next(seeds), timed, rotations=rotations)
        check_clean(result, "a duplicate set with the bot")
        decisions += sum(len(record.actions) for record in result.records)
        times += _times(result.records)
        if loop.time() >= deadline:
            return decisions


def _bot_pids(lanes: Sequence[Sequence[LaunchedSeat]]) -> list[int]:
    """The process ids of the launched bots of some lanes (each once, however many lanes
    share it)."""
    return sorted({bot.process.pid for seats in lanes for seat in seats for bot in seat.bots
                   if bot.process is not None})


def processes_cpu_s(pids: Sequence[int]) -> float:
    """The CPU time (user and system, all threads) the processes ``pids`` have used, in
    seconds, from ``/proc`` (a process that is gone counts nothing)."""
    ticks = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


async def measure_throughput(game: Game, lanes: list[list[LaunchedSeat]], seconds: float,
                             seeds: Iterator[int], rotations: int | None = None
                             ) -> dict[str, Any]:
    """Decisions per second with one duplicate set at a time in each lane, all lanes at once.

    Each lane is a list of launched seats (``launched_bots``), one per seat of ``game``; every
    lane keeps playing duplicate sets with the next seeds of ``seeds`` until ``seconds`` have
    passed (at least one set each). The figures: ``matches`` (the lanes), ``decisions``,
    ``seconds`` (wall), ``decisions_per_s``, ``arena_cpu_us_per_decision`` (this process's CPU
    time per decision, every thread, gRPC's included), ``bots_cpu_us_per_decision`` (the
    bot processes' CPU time per decision, from ``/proc``, in clock ticks: 0 for a short run
    of a bot that used less than one), the ``p50_us`` and ``p99_us`` of the
    round trips and the ``charged_p50_us`` and ``charged_p99_us`` of the charged (recorded)
    times. With
    ``rotations``, each set plays that many of its deals. Raises ``BenchError`` when a set has
    a fault or a forfeit.
    """
    loop = asyncio.get_running_loop()
    times: list[int] = []
    trips: list[int] = []
    settle_heap()  # as a worker's pool does once it has set up
    pids = _bot_pids(lanes)
    bots_start = processes_cpu_s(pids)
    start, cpu_start = time.perf_counter(), time.process_time()
    deadline = loop.time() + seconds
    counts = await asyncio.gather(*(_lane(game, seats, seeds, deadline, times, trips, rotations)
                                    for seats in lanes))
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    bots_cpu = processes_cpu_s(pids) - bots_start
    decisions = sum(counts)
    return {"matches": len(lanes), "decisions": decisions, "seconds": round(wall, 6),
            "decisions_per_s": round(decisions / wall, 1),
            "arena_cpu_us_per_decision": round(cpu / decisions * 1e6, 1),
            "bots_cpu_us_per_decision": round(bots_cpu / decisions * 1e6, 1),
            "bot_processes": len(pids),
            **_round_trips(trips), **_round_trips(times, "charged_")}


async def _measure(game: Game, manifest: BotManifest, rounds: int,
                   concurrency: Sequence[int], throughput_s: float,
                   progress: Progress, clock: _ClockPlan
                   ) -> tuple[_Latency, list[dict[str, Any]], dict[str, Any] | None]:
    """Run every measurement with bots and the raw server in one temporary folder."""
    players = game.num_players
    latency = _Latency()
    throughput = []
    seeds = itertools.count(rounds + 1)
    with temp_root() as root:
        raw = PingPongServers(root, players)
        try:
            progress("starting the raw server and the bots")
            await raw.start(STARTUP_S)
            async with launched_bots(manifest, root, players, STARTUP_S,
                                     rotations=players) as first, \
                    launched_bots(manifest, root, players, STARTUP_S) as alone:
                direct = LockStepClient([seat.address for seat in alone])
                try:
                    await direct.connect()
                    progress("warming up")
                    await _round(game, rounds, first, raw, direct, None)
                    settle_heap()
                    for index in range(rounds):
                        progress(f"round trips, round {index + 1} of {rounds}")
                        await _round(game, index, first, raw, direct, latency)
                finally:
                    await direct.close()
                await raw.stop()
            for matches in concurrency:
                progress(f"decisions per second with {matches} matches at once")
                async with launched_lanes(manifest, root, players, matches, STARTUP_S,
                                          rotations=players) as lanes:
                    throughput.append(await measure_throughput(game, lanes, throughput_s, seeds))
            under_load = await _measure_clock(manifest, root, clock, throughput_s, seeds,
                                              progress)
        finally:
            await raw.stop()
    return latency, throughput, under_load


class _ClockPlan(NamedTuple):
    """The clock measurement under load: its game and how many matches at once (0: none)."""

    game: Game | None
    matches: int


async def _measure_clock(manifest: BotManifest, root: Path, plan: _ClockPlan, seconds: float,
                         seeds: Iterator[int], progress: Progress) -> dict[str, Any] | None:
    """Charged times and round trips with ``plan.matches`` matches at once, each playing
    single deals with the bot at every seat; None when not asked for."""
    game = plan.game
    if game is None or plan.matches == 0:
        return None
    players = game.num_players
    progress(f"the clock with {plan.matches} matches of {game.id} at once")
    # processes of their own per match, whatever the bot's matches_at_once: the row measures
    # the time charged for the arena's lag, not for a bot's queue of its own matches
    async with launched_bots(manifest, root, plan.matches * players, STARTUP_S) as seats:
        lanes = [seats[lane * players:(lane + 1) * players] for lane in range(plan.matches)]
        row = await measure_throughput(game, lanes, seconds, seeds, rotations=1)
    return {"game": game.id, "players": players, **row,
            "goal_charged_p99_us": GOAL_CHARGED_P99_US,
            "meets_charged_goal": row["charged_p99_us"] <= GOAL_CHARGED_P99_US}


def check_options(rounds: int, concurrency: Sequence[int], throughput_s: float,
                   clock_matches: int = 0) -> None:
    """Raise ``ValueError`` for options out of range."""
    if clock_matches < 0:
        raise ValueError(f"clock matches must not be negative, got {clock_matches}")
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    if not concurrency or any(matches < 1 for matches in concurrency):
        raise ValueError(f"concurrent matches must be positive, got {list(concurrency)}")
    if throughput_s < 0:
        raise ValueError(f"throughput seconds must not be negative, got {throughput_s}")


def run_protocol_bench(game_id: str = DEFAULT_GAME, players: int | None = None,
                       bot: Path = SAMPLE_RANDOM, rounds: int = DEFAULT_ROUNDS,
                       concurrency: Sequence[int] = DEFAULT_CONCURRENCY,
                       throughput_s: float = DEFAULT_THROUGHPUT_S,
                       progress: Progress | None = None, clock_matches: int = CLOCK_MATCHES,
                       clock_game: str = CLOCK_GAME) -> dict[str, Any]:
    """Measure round trips, charged times, arena-side work, throughput and the clock under
    load (skipped when the bot does not play ``clock_game`` or ``clock_matches`` is 0); the
    JSON-ready report."""
    check_options(rounds, concurrency, throughput_s, clock_matches)
    game = load_game(game_id, players)
    manifest = load_bot(bot, game, SAMPLE_RANDOM)
    plan = _ClockPlan(load_game(clock_game) if manifest.plays(clock_game) else None,
                      clock_matches)
    latency, throughput, under_load = asyncio.run(_measure(
        game, manifest, rounds, concurrency, throughput_s, progress or (lambda text: None),
        plan))
    charged = _round_trips(latency.charged_us, "charged_")
    arena = _round_trips(latency.arena_us)
    raw = _round_trips(latency.raw_us)
    alone = _round_trips(latency.bot_us)
    ratio = round(arena["p50_us"] / raw["p50_us"], 3)
    arena_us = round(statistics.median(latency.overhead_us), 2)
    sizes = latency.request_bytes
    return {
        "game": game.id,
        "players": game.num_players,
        "bot": {"name": manifest.name, "version": manifest.version, "path": manifest.source},
        "p50_us": arena["p50_us"],
        "p99_us": arena["p99_us"],
        **charged,
        "raw_p50_us": raw["p50_us"],
        "raw_p99_us": raw["p99_us"],
        "bot_p50_us": alone["p50_us"],
        "bot_p99_us": alone["p99_us"],
        "bot_share_us": round(alone["p50_us"] - raw["p50_us"], 1),
        "arena_share_us": round(arena["p50_us"] - alone["p50_us"], 1),
        "ratio": ratio,
        "arena_us_per_decision": arena_us,
        "goal_ratio": GOAL_RATIO,
        "goal_arena_us": GOAL_ARENA_US,
        "meets_ratio_goal": ratio <= GOAL_RATIO,
        "meets_arena_goal": arena_us <= GOAL_ARENA_US,
        "decisions_per_s": {str(row["matches"]): row["decisions_per_s"] for row in throughput},
        "throughput": throughput,
        "clock": under_load,
        "rounds": rounds,
        "transport": transport(),
        "round_trips": {"arena": len(latency.arena_us), "raw": len(latency.raw_us),
                        "bot": len(latency.bot_us)},
        "round_medians_us": {"arena": latency.arena_medians, "raw": latency.raw_medians,
                             "bot": latency.bot_medians,
                             "arena_side": [round(us, 2) for us in latency.overhead_us]},
        "request_bytes": {"mean": round(statistics.fmean(sizes), 1), "max": max(sizes)},
        "throughput_seconds": throughput_s,
        "python": platform.python_version(),
        "grpc": grpc.__version__,
    }
