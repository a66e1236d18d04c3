"""``arena bench sandbox``: a Docker bot's cold start, taken apart, and its round trip.

Figures for the random sample bot, built into its image (cached) and run in the hardened
container of every untrusted bot:

- cold start: from the creation of the container to the first Decision the arena receives
  from it, over several starts (each a deal against the random policy, in a new container);
  the figure is the median (p50), also from the container's start and from the agent's launch;
  its parts (``arena.bench.coldstart``), and the floor measured in the same run: a bare
  ``docker run`` of the same image running ``true`` under the same hardened options;
- round trip: the bot in containers at every seat of duplicate sets, against the same bot
  folder run as local processes, the two played in alternate sets so that the shared
  machine's load falls on both alike; the round trip of a decision is the time the runner
  waits for its answer (not what the clock charges: the clock gives a fast bot the benefit of
  the event loop's doubt and may charge it nothing, which says nothing of the transport). The
  containers and
  processes (one per seat and rotation: no instance is shown a deal twice) start once, before
  the sets; their start-up is not part of this figure.

The engine's limits are checked once (a probe container) before anything is timed.
"""

from __future__ import annotations

import asyncio
import contextlib
import platform
import statistics
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc

from arena.agents import (
    Agent,
    AgentExit,
    AgentFailure,
    BotSeat,
    DealEnd,
    DealSetup,
    DockerSeat,
    PolicySeat,
    Reply,
    SeatSpec,
    Turn,
)
from arena.agents.sources import docker_seat, require_limits
from arena.bench.coldstart import (
    ColdStarts,
    StartTimes,
    TimedDockerAgent,
    TimedDockerSeat,
    floor_run,
    image_command,
    stamped_command,
    start_times,
)
from arena.bench.errors import BenchError
from arena.bench.launched import LentAgent
from arena.bench.overhead import check_clean
from arena.bench.protocol import (
    SAMPLE_RANDOM,
    Progress,
    load_bot,
    temp_root,
)
from arena.bench.stats import percentile
from arena.bots import BotManifest
from arena.games import Game, load_game
from arena.match.runner import run_duplicate_async
from arena.sandbox.errors import BuildError

GOAL_COLD_START_S = 0.3
"""A container should give its first decision at most this many seconds after its creation."""

GOAL_RATIO = 1.2
"""A decision's p50 round trip in a container should be at most this many process p50s."""

DEFAULT_GAME = "briscola"
DEFAULT_STARTS = 5
DEFAULT_DECISIONS = 800
"""Round trips of each backend at least (a 2-seat briscola duplicate set has 80)."""

STARTUP_S = 60.0
"""How long a container or a process may take to listen (the machine may be busy)."""


class LentSeat:
    """A seat spec for launched agents of one spec, lent in turn to any number of runs (one
    per rotation: every rotation of a set gets an instance of its own)."""

    def __init__(self, spec: SeatSpec, agents: Sequence[Agent]) -> None:
        """Seat ``agents`` (already launched; one per rotation of a set), made by ``spec``."""
        self.spec = spec
        self.agents = list(agents)
        self.trips: list[int] = []
        """The round trips (µs) of every decision of the lent agents, in order."""
        self._lent = 0

    @property
    def label(self) -> str:
        """The label of the spec that made the agent."""
        return self.spec.label

    def check(self, game: Game) -> None:
        """As the spec that made the agent checks."""
        self.spec.check(game)

    def create_agent(self) -> LentAgent:
        """The next launched agent, lent to one rotation of a run."""
        agent = self.agents[self._lent % len(self.agents)]
        self._lent += 1
        return LentAgent(agent, self.trips)


class FirstDecisionAgent(Agent):
    """An agent that notes when its launch began and when its first answer arrived."""

    def __init__(self, agent: Agent) -> None:
        """Watch ``agent`` (not yet launched)."""
        self.agent = agent
        self.remote = agent.remote
        self.timed = agent.timed
        self.launch_ns: int | None = None
        self.listening_ns: int | None = None
        self.ready_ns: int | None = None
        self.first_answer_ns: int | None = None

    @property
    def label(self) -> str:
        """The agent's name."""
        return self.agent.label

    def describe(self) -> dict[str, Any]:
        """The agent's description."""
        return self.agent.describe()

    async def launch(self, startup_s: float) -> None:
        """Note the time, then launch (a container: create, start, wait for its socket)."""
        self.launch_ns = time.perf_counter_ns()
        await self.agent.launch(startup_s)
        self.listening_ns = time.perf_counter_ns()

    async def open(self, setup: DealSetup, ready_s: float) -> None:
        """Open the deal (the time of the bot's Ready is noted)."""
        await self.agent.open(setup, ready_s)
        self.ready_ns = self.ready_ns or time.perf_counter_ns()

    async def decide(self, turn: Turn, timeout_s: float) -> Reply | None:
        """The agent's answer; the time of the first one is noted."""
        reply = await self.agent.decide(turn, timeout_s)
        if reply is not None and self.first_answer_ns is None:
            self.first_answer_ns = time.perf_counter_ns()
        return reply

    async def close(self, end: DealEnd) -> None:
        """Close the deal."""
        await self.agent.close(end)

    async def shutdown(self) -> AgentExit:
        """Stop the agent."""
        return await self.agent.shutdown()

    def mark_output(self) -> None:
        """A new output window."""
        self.agent.mark_output()

    def output_windows(self) -> list[str]:
        """The agent's output."""
        return self.agent.output_windows()

    def start_times(self) -> StartTimes:
        """The times of the agent's cold start (a ``TimedDockerAgent``'s)."""
        agent = self.agent
        if (self.launch_ns is None or self.listening_ns is None or self.ready_ns is None
                or self.first_answer_ns is None):
            raise BenchError(f"the bot {self.label} gave no decision")
        if not isinstance(agent, TimedDockerAgent):
            raise BenchError(f"the bot {self.label} is not a timed Docker agent")
        return start_times(self.launch_ns, self.listening_ns, self.ready_ns,
                           self.first_answer_ns, agent, "".join(agent.output_windows()))


class FirstDecisionSeat:
    """A seat spec whose agents note their cold start."""

    def __init__(self, spec: SeatSpec) -> None:
        """Wrap ``spec``."""
        self.spec = spec
        self.agents: list[FirstDecisionAgent] = []

    @property
    def label(self) -> str:
        """The wrapped spec's label."""
        return self.spec.label

    def check(self, game: Game) -> None:
        """As the wrapped spec checks."""
        self.spec.check(game)

    def create_agent(self) -> FirstDecisionAgent:
        """The wrapped spec's agent, watched."""
        agent = FirstDecisionAgent(self.spec.create_agent())
        self.agents.append(agent)
        return agent


async def _cold_start(game: Game, spec: SeatSpec, seed: int) -> StartTimes:
    """One deal with the bot in a new container at seat 0: the times of its start."""
    watched = FirstDecisionSeat(spec)
    seats: list[SeatSpec] = [watched] + [PolicySeat("random")] * (game.num_players - 1)
    result = await run_duplicate_async(game, seed, seats, rotations=1,
                                       match_id=f"bench-sandbox-start-{seed}")
    check_clean(result, "a deal with the bot in a container")
    return watched.agents[0].start_times()


async def _cold_starts(game: Game, image: Any, docker: DockerSeat, starts: int,
                       progress: Progress) -> ColdStarts:
    """``starts`` rounds of a floor run, a plain start and a stamped start, in turn."""
    plain = TimedDockerSeat(image, docker.limits, docker.temp_root, docker.allow_unenforced)
    stamped = replace(plain, command=stamped_command(image_command(image.image_id)))
    found = ColdStarts()
    for index in range(starts):
        progress(f"cold start {index + 1} of {starts}")
        found.floor.append(await floor_run(image.image_id, docker.limits, docker.temp_root))
        found.plain.append(await _cold_start(game, plain, 2 * index))
        found.stamped.append(await _cold_start(game, stamped, 2 * index + 1))
    return found


async def _launch(spec: SeatSpec, what: str) -> Agent:
    """Make and launch one agent of ``spec``; a ``BenchError`` when it does not start."""
    agent = spec.create_agent()
    try:
        await agent.launch(STARTUP_S)
    except AgentFailure as failure:
        await agent.shutdown()
        tail = "".join(agent.output_windows()).strip()[-2000:]
        raise BenchError(f"the bot {spec.label} ({what}) did not start: {failure.detail}"
                         + (f"; its output: {tail}" if tail else "")) from None
    except BaseException:
        await agent.shutdown()
        raise
    return agent


@contextlib.asynccontextmanager
async def launched(spec: SeatSpec, count: int, rotations: int,
                   what: str) -> AsyncIterator[list[LentSeat]]:
    """``count`` seats of ``spec``, each with ``rotations`` agents, all started together, lent
    to runs, stopped at the end."""
    launches = [asyncio.ensure_future(_launch(spec, what)) for _ in range(count * rotations)]
    results = await asyncio.gather(*launches, return_exceptions=True)
    agents = [result for result in results if isinstance(result, Agent)]
    try:
        for result in results:
            if isinstance(result, BaseException):
                raise result
        yield [LentSeat(spec, agents[index * rotations:(index + 1) * rotations])
               for index in range(count)]
    finally:
        await asyncio.gather(*(agent.shutdown() for agent in agents), return_exceptions=True)


class _Samples:
    """The round trips of both backends, and each set's median."""

    def __init__(self) -> None:
        """No samples yet."""
        self.docker_us: list[int] = []
        self.process_us: list[int] = []
        self.docker_medians: list[float] = []
        self.process_medians: list[float] = []


async def _one_set(game: Game, seed: int, seats: list[LentSeat], what: str) -> list[int]:
    """One duplicate set on deal ``seed``: its decisions' round trips."""
    seat_specs: list[SeatSpec] = list(seats)
    for seat in seats:
        seat.trips.clear()
    result = await run_duplicate_async(game, seed, seat_specs,
                                       match_id=f"bench-sandbox-{what}-{seed}")
    check_clean(result, f"a duplicate set with the bot {what}")
    return [us for seat in seats for us in seat.trips]


async def _round_trips(game: Game, docker: SeatSpec, process: SeatSpec, decisions: int,
                       progress: Progress) -> _Samples:
    """Alternate sets in containers and in processes until both have ``decisions`` samples."""
    samples = _Samples()
    players = game.num_players
    progress("starting the containers and the processes")
    async with launched(docker, players, players, "in a container") as in_docker, \
            launched(process, players, players, "as a process") as as_process:
        progress("warming up")
        await _one_set(game, 0, in_docker, "in a container")
        await _one_set(game, 0, as_process, "as a process")
        seed = 1
        while min(len(samples.docker_us), len(samples.process_us)) < decisions:
            progress(f"round trips: {min(len(samples.docker_us), len(samples.process_us))} "
                     f"of {decisions}")
            first, second = (in_docker, as_process) if seed % 2 else (as_process, in_docker)
            for seats in (first, second):
                kind = "in a container" if seats is in_docker else "as a process"
                times = await _one_set(game, seed, seats, kind)
                if seats is in_docker:
                    samples.docker_us += times
                    samples.docker_medians.append(statistics.median(times))
                else:
                    samples.process_us += times
                    samples.process_medians.append(statistics.median(times))
            seed += 1
    return samples


async def _measure(game: Game, image: Any, docker: DockerSeat, process: SeatSpec,
                   starts: int, decisions: int, progress: Progress,
                   ) -> tuple[ColdStarts, _Samples]:
    """Every cold start (and floor run), then the round trips."""
    cold = await _cold_starts(game, image, docker, starts, progress)
    samples = await _round_trips(game, docker, process, decisions, progress)
    return cold, samples


def check_options(starts: int, decisions: int) -> None:
    """Raise ``ValueError`` for options out of range."""
    if starts < 1:
        raise ValueError(f"starts must be at least 1, got {starts}")
    if decisions < 1:
        raise ValueError(f"decisions must be at least 1, got {decisions}")


def _engine_version() -> str:
    """The Docker engine's version, or an empty text."""
    from arena.sandbox.engine import docker_client

    with contextlib.suppress(Exception):
        return str(docker_client().version().get("Version", ""))
    return ""


def _sample_image(bot: Path) -> Any:
    """The bot folder's image, built (or found in the build cache)."""
    from arena.sandbox.images import build_bot_image

    try:
        return build_bot_image(bot)
    except BuildError as error:
        tail = error.log.strip().splitlines()[-5:]
        raise BenchError(f"{error}" + (f"; the build log ends: {' | '.join(tail)}"
                                       if tail else "")) from None


def run_sandbox_bench(starts: int = DEFAULT_STARTS, decisions: int = DEFAULT_DECISIONS,
                      game_id: str = DEFAULT_GAME, bot: Path = SAMPLE_RANDOM,
                      allow_unenforced: frozenset[str] = frozenset(),
                      progress: Progress | None = None) -> dict[str, Any]:
    """Measure cold starts and round trips in containers and processes; the JSON-ready report.

    ``DockerUnavailable``, ``LimitsNotEnforced`` and ``ImageNotFound`` pass through (the
    command line prints them as one line); a build or a deal that fails is a ``BenchError``.
    """
    check_options(starts, decisions)
    say = progress or (lambda text: None)
    game = load_game(game_id)
    manifest = load_bot(bot, game, SAMPLE_RANDOM)
    say("building the bot's image")
    image = _sample_image(bot)
    say("checking the engine's limits")
    require_limits(image, allow_unenforced)
    return _run(game, manifest, image, starts, decisions, allow_unenforced, say)


def _run(game: Game, manifest: BotManifest, image: Any, starts: int, decisions: int,
         allow_unenforced: frozenset[str], progress: Progress) -> dict[str, Any]:
    """Run the measurements in a short temporary folder; the report."""
    with temp_root() as root:
        docker = docker_seat(image, allow_unenforced, root)
        assert isinstance(docker, DockerSeat)
        process = BotSeat(manifest, root)
        cold, samples = asyncio.run(_measure(game, image, docker, process, starts, decisions,
                                             progress))
    in_docker = _percentiles(samples.docker_us)
    as_process = _percentiles(samples.process_us)
    starts_report = cold.report()
    cold_p50 = starts_report["cold_start_p50_s"]
    ratio = round(in_docker["p50_us"] / as_process["p50_us"], 3)
    return {
        "game": game.id,
        "players": game.num_players,
        "bot": {"name": manifest.name, "version": manifest.version, "path": manifest.source},
        "image": {"ref": image.ref, "image_id": image.image_id},
        **starts_report,
        "p50_us": in_docker["p50_us"],
        "p99_us": in_docker["p99_us"],
        "process_p50_us": as_process["p50_us"],
        "process_p99_us": as_process["p99_us"],
        "ratio": ratio,
        "goal_cold_start_s": GOAL_COLD_START_S,
        "goal_ratio": GOAL_RATIO,
        "meets_cold_start_goal": cold_p50 <= GOAL_COLD_START_S,
        "meets_ratio_goal": ratio <= GOAL_RATIO,
        "starts": starts,
        "round_trips": {"docker": len(samples.docker_us), "process": len(samples.process_us)},
        "set_medians_us": {"docker": samples.docker_medians,
                           "process": samples.process_medians},
        "allow_unenforced": sorted(allow_unenforced),
        "docker_version": _engine_version(),
        "python": platform.python_version(),
        "grpc": grpc.__version__,
    }


def _percentiles(values: Sequence[float]) -> dict[str, float]:
    """p50 and p99 of some round trips, rounded to 0.1 µs."""
    return {"p50_us": round(percentile(values, 50), 1), "p99_us": round(percentile(values, 99), 1)}
