"""A worker's pool of bots kept running between matches, processes and containers alike: each
instance is shown a deal at most once.

The match runner plays each rotation of a duplicate set with agents of its own and shuts them
down at the end. A league worker plays many sets with the same bots, so ``AgentPool`` keeps
them running: ``lend`` turns every ``BotSeat`` (a process) and ``DockerSeat`` (a container) of
a match into a seat whose agents (one per rotation) are launched instances of that bot, each
taken from the pool's idle instances of the bot only if its deal ledger
(``arena.agents.ledger``) has not seen the match's deal and it still runs, else started afresh.
``give_back`` keeps each instance that played its deal cleanly (at most ``max_idle`` of a bot)
and stops every other one (it crashed, timed out, broke a rule, or its set was void or did not
finish), and retires the kept ones past the pool's limits (``arena.agents.warm.PoolLimits``:
matches, minutes, memory growth); ``close`` stops them all. A warm instance so plays one
rotation of many matches, each of another deal, and never one deal twice. A kept container's
output of a match is read back from Docker's log by time (``DockerAgent.end_window``).

The pool owns one event loop, on which every match of the worker runs (``run``): processes,
pipes and gRPC channels belong to the loop that made them. ``kill_now`` stops every bot
without the loop, for a signal handler; ``install_sigterm`` makes SIGTERM do that and then end
the process as SIGTERM would. A worker killed outright (SIGKILL) cannot stop anything, so the
pool tells a small watchdog process of its own session each process bot it starts and stops;
when the worker's end closes the watchdog's pipe, the watchdog stops the bots still listed.
Containers are the arena's reaper's and janitor's (``arena.sandbox.lifeline``,
``arena.sandbox.janitor``), as every container is.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Collection, Coroutine, Hashable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, TypeVar

from arena.agents.base import Agent, AgentExit, DealEnd, DealSetup, Reply, Turn
from arena.agents.container import DockerAgent
from arena.agents.errors import AgentFailure
from arena.agents.process import STOP_GRACE_S, LocalProcessAgent
from arena.agents.seats import BotSeat, DockerSeat, SeatSpec
from arena.agents.warm import PoolLimits
from arena.games import Game

T = TypeVar("T")

KEPT = "kept running for the next match"
"""The exit detail of a bot handed back to the pool alive."""

POLL_S = 0.01
"""How often ``kill_now`` looks whether the stopped bots are gone."""

WATCHDOG = """
import os, shutil, signal, sys, time
bots = {}
for line in sys.stdin:
    sign, pid, folder = line.rstrip("\\n").split(" ", 2)
    if sign == "+":
        bots[int(pid)] = folder
    else:
        bots.pop(int(pid), None)

def alive(pid):
    try:
        os.killpg(pid, 0)
    except OSError:
        return False
    return True

for pid in bots:
    if alive(pid):
        os.killpg(pid, signal.SIGTERM)
deadline = time.monotonic() + float(sys.argv[1])
while any(alive(pid) for pid in bots) and time.monotonic() < deadline:
    time.sleep(0.02)
for pid, folder in bots.items():
    if alive(pid):
        os.killpg(pid, signal.SIGKILL)
    shutil.rmtree(folder, ignore_errors=True)
"""
"""The watchdog: reads ``+ PID FOLDER`` and ``- PID FOLDER`` lines, and at the end of its input
stops the process groups still listed and removes their folders."""

BotKey = Hashable
"""A pooled bot: what makes its instances alike (``pool_key``)."""

WarmBot = LocalProcessAgent | DockerAgent
"""A bot instance a pool keeps: a local process or a container."""

PooledSpec = BotSeat | DockerSeat
"""The seats whose bots a pool keeps: bot folders run as processes, and bot images."""

MAX_IDLE = 32
"""Idle instances a pool keeps per bot by default: a match needs one per seat the bot fills
and rotation (four for a bot in one seat of a 4-seat game); beyond it they are stopped."""


class PooledAgent(Agent):
    """A pooled bot instance as one rotation of a match sees it: launched once, faults noted,
    kept at shutdown."""

    remote = True

    def __init__(self, pool: AgentPool, spec: PooledSpec, deal: int) -> None:
        """An instance of the seat's bot for one rotation of the deal of seed ``deal`` (taken
        from the pool when the match launches)."""
        self.pool = pool
        self.spec = spec
        self.key = pool_key(spec)
        self.deal = deal
        self.bot: WarmBot | None = None
        self.faulted = False
        """True once the bot failed, timed out or could not start in this match."""
        self.stopped: AgentExit | None = None

    def _bot(self) -> WarmBot:
        """The bot taken at launch."""
        if self.bot is None:
            raise RuntimeError(f"bot {self.label}: used before launch")
        return self.bot

    @property
    def label(self) -> str:
        """The bot's name."""
        if self.bot is not None:
            return self.bot.label
        return self.spec.manifest.name if isinstance(self.spec, BotSeat) else self.spec.image.name

    def describe(self) -> dict[str, Any]:
        """The bot's description (its manifest or image, and what it said in Ready)."""
        return self.spec.create_agent().describe() if self.bot is None else self.bot.describe()

    async def launch(self, startup_s: float) -> None:
        """Take an instance that has not seen the deal from the pool (a new one if it has
        none), start its output afresh, and launch it if it has not started yet."""
        bot = self.bot = await self.pool.take(self.spec, self.deal)
        bot.begin_window()
        if not bot.started:
            try:
                await bot.launch(startup_s)
            except AgentFailure:
                self.faulted = True
                raise

    async def open(self, setup: DealSetup, ready_s: float) -> None:
        """Open the deal's Play stream with the bot."""
        try:
            await self._bot().open(setup, ready_s)
        except AgentFailure:
            self.faulted = True
            raise

    async def decide(self, turn: Turn, timeout_s: float) -> Reply | None:
        """The bot's answer; a failure or no answer in time marks the bot as faulted."""
        try:
            reply = await self._bot().decide(turn, timeout_s)
        except AgentFailure:
            self.faulted = True
            raise
        if reply is None:
            self.faulted = True
        return reply

    async def close(self, end: DealEnd) -> None:
        """Tell the bot how the deal ended and close the stream."""
        await self._bot().close(end)

    async def shutdown(self) -> AgentExit:
        """Stop a faulted bot now; keep any other one for ``AgentPool.give_back``, with its
        output of the match gathered."""
        if self.stopped is not None:
            return self.stopped
        bot = self.bot
        if bot is None:
            return AgentExit(None, KEPT)
        if self.faulted or not bot.started or not bot.running():
            self.stopped = await self.pool.stop(bot)
            return self.stopped
        await bot.end_window()
        return AgentExit(None, KEPT)

    def output_windows(self) -> list[str]:
        """The bot's output during this match."""
        return [] if self.bot is None else self.bot.output_windows()


@dataclass(frozen=True, eq=False)
class PooledSeat:
    """A bot folder's or image's seat whose agents (one per rotation) come from the pool."""

    spec: PooledSpec
    pool: AgentPool
    deal: int
    agents: list[PooledAgent] = field(default_factory=list)
    """The agent made for each rotation, in rotation order."""

    @property
    def label(self) -> str:
        """``name (bot)`` or ``name (docker)``, as the seat's own."""
        return self.spec.label

    def check(self, game: Game) -> None:
        """Check the seat as its own ``check`` does."""
        self.spec.check(game)

    def create_agent(self) -> PooledAgent:
        """A pooled instance for the next rotation of the match."""
        agent = PooledAgent(self.pool, self.spec, self.deal)
        self.agents.append(agent)
        return agent


@dataclass(frozen=True)
class Loan:
    """The seats of one match, with the pooled ones in place of the bot folders."""

    seats: list[SeatSpec]

    def agents(self) -> list[tuple[int, int, PooledAgent]]:
        """Each pooled agent made, with its entrant and rotation."""
        return [(entrant, rotation, agent) for entrant, seat in enumerate(self.seats)
                if isinstance(seat, PooledSeat) for rotation, agent in enumerate(seat.agents)]


def pool_key(spec: PooledSpec) -> BotKey:
    """What makes instances of a seat's bot alike: a folder's manifest and temporary root; an
    image's id with every setting its containers are made with."""
    if isinstance(spec, BotSeat):
        return (spec.manifest, spec.temp_root)
    return ("docker", spec.image.image_id, spec.limits, spec.temp_root, spec.allow_unenforced,
            spec.cpuset, spec.command)


def _family(key: BotKey) -> Hashable:
    """The bot folder and temporary root of a process bot's key (a folder runs one manifest at
    a time: an edited one replaces its idle instances); a container's own key."""
    if isinstance(key, tuple) and key and key[0] != "docker":
        return (key[0].folder, key[1])
    return key


@dataclass
class Tenure:
    """When a pooled instance started, and its memory after its first match."""

    born: float
    baseline: int | None = None


class AgentPool:
    """Launched bots of one worker (processes and containers), by bot, kept between matches;
    an instance is handed out only for a deal it has not seen."""

    def __init__(self, max_idle: int = MAX_IDLE, limits: PoolLimits | None = None) -> None:
        """An empty pool keeping at most ``max_idle`` idle instances of each bot, each for as
        long as ``limits`` allow (default: from the environment); its event loop is made on
        first use."""
        self.max_idle = max_idle
        self.limits = limits or PoolLimits.from_env()
        self._idle: dict[BotKey, list[WarmBot]] = {}
        self._live: dict[WarmBot, Tenure] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._watchdog: subprocess.Popen[bytes] | None = None
        self._task: asyncio.Task[Any] | None = None
        self._terminating = False
        self.launched = 0
        """How many bot agents the pool has made (each is one process or container once
        launched)."""
        self.retired: list[str] = []
        """Why each healthy instance was retired (``PoolLimits``), oldest first."""

    # --- matches -------------------------------------------------------------------------

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on the pool's event loop; on any exception (an interrupt, an alarm)
        its task is cancelled and finished before the exception goes on."""
        if self._loop is None or self._loop.is_closed():
            self._loop = asyncio.new_event_loop()
        loop = self._loop
        task = self._task = loop.create_task(coroutine)
        try:
            return loop.run_until_complete(task)
        except BaseException:
            task.cancel()
            with contextlib.suppress(BaseException):
                loop.run_until_complete(task)
            raise
        finally:
            self._task = None
            if self._terminating:
                self._die()

    def lend(self, seats: Sequence[SeatSpec], deal: int) -> Loan:
        """The seats of a match on the deal of seed ``deal``, each bot folder's and image's
        seat taken from the pool (one instance per seat and rotation); other seats are left as
        they are."""
        return Loan([PooledSeat(spec, self, deal) if isinstance(spec, BotSeat | DockerSeat)
                     else spec for spec in seats])

    def give_back(self, loan: Loan, clean: Collection[tuple[int, int]] | None) -> None:
        """Keep the instances that played their deal cleanly (``clean``: their (entrant,
        rotation) pairs, as the match results' ``clean_instances`` gives them) and are within
        the pool's limits; stop every other one (all of them when the set did not finish:
        ``clean`` None), and the idle instances of a bot beyond ``max_idle``."""
        self.run(self._settle(loan, clean or ()))

    async def _settle(self, loan: Loan, kept: Collection[tuple[int, int]]) -> None:
        """``give_back``'s work, on the pool's loop."""
        stops = []
        for entrant, rotation, agent in loan.agents():
            if agent.bot is None or agent.stopped is not None:
                continue
            bot = agent.bot
            if ((entrant, rotation) in kept and not agent.faulted and bot.running()
                    and bot in self._live and await self._fit(bot)):
                self._idle.setdefault(agent.key, []).append(bot)
            else:
                stops.append(self.stop(bot))
        now = time.monotonic()
        for idle in self._idle.values():
            old = [bot for bot in idle[:self.max_idle]
                   if now - self._live[bot].born >= self.limits.max_age_s]
            stops += [self.stop(bot) for bot in idle[self.max_idle:] + old]
            idle[:] = [bot for bot in idle[:self.max_idle] if bot not in old]
        await _gather(stops)

    async def _fit(self, bot: WarmBot) -> bool:
        """True when a bot that played cleanly may play again: its ledger has room and the
        pool's limits allow (its memory after its first match is its baseline)."""
        if bot.ledger.full:
            return False
        tenure = self._live[bot]
        memory = await bot.memory_bytes()
        if tenure.baseline is None:
            tenure.baseline = memory
        reason = self.limits.retire_reason(len(bot.ledger), time.monotonic() - tenure.born,
                                           memory, tenure.baseline)
        if reason is not None:
            self.retired.append(f"{bot.label}: {reason}")
        return reason is None

    async def take(self, spec: PooledSpec, deal: int) -> WarmBot:
        """An instance of the seat's bot that has not seen the deal of seed ``deal``: an idle
        one that still runs, else a new one (not launched yet). Idle instances of the same
        folder and temporary root but another manifest, or that no longer run, are stopped."""
        key = pool_key(spec)
        stale = [other for other in self._idle
                 if other != key and _family(other) == _family(key)]
        for other in stale:
            for replaced in self._idle.pop(other, []):
                await self.stop(replaced)
        idle = self._idle.get(key, [])
        while (bot := next((one for one in idle if deal not in one.ledger), None)) is not None:
            idle.remove(bot)
            await asyncio.sleep(0)
            if bot.running() and await bot.still_running():
                return bot
            await self.stop(bot)
        return self.new_bot(spec)

    def new_bot(self, spec: PooledSpec) -> WarmBot:
        """A new bot agent for the seat (launched by its first match)."""
        bot: WarmBot = spec.create_agent()
        if isinstance(bot, LocalProcessAgent):
            bot.on_spawn = self.watch  # the watchdog hears of it before it listens
        self._live[bot] = Tenure(time.monotonic())
        self.launched += 1
        return bot

    async def stop(self, bot: WarmBot) -> AgentExit:
        """Stop a bot of the pool (its process group or container, folder and channel)."""
        self._live.pop(bot, None)
        for idle in self._idle.values():
            if bot in idle:
                idle.remove(bot)
        try:
            return await bot.shutdown()
        finally:
            if isinstance(bot, LocalProcessAgent):
                self._tell("-", bot)

    def watch(self, bot: LocalProcessAgent) -> None:
        """Tell the watchdog (started now if need be) of a bot whose process has just been
        made: a worker killed while the bot starts up leaves nothing behind."""
        if bot.process is None:
            return
        if self._watchdog is None:
            self._watchdog = subprocess.Popen(
                [sys.executable, "-S", "-c", WATCHDOG, str(STOP_GRACE_S)],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True)
        self._tell("+", bot)

    def _tell(self, sign: str, bot: LocalProcessAgent) -> None:
        """Write one line to the watchdog: a bot started (``+``) or stopped (``-``)."""
        watchdog = self._watchdog
        if watchdog is None or watchdog.stdin is None or bot.process is None:
            return
        with contextlib.suppress(OSError, ValueError):
            watchdog.stdin.write(f"{sign} {bot.process.pid} {bot.workdir}\n".encode())
            watchdog.stdin.flush()

    def _end_watchdog(self) -> None:
        """Close the watchdog's input (every bot is stopped by now) and wait for it."""
        watchdog, self._watchdog = self._watchdog, None
        if watchdog is None:
            return
        with contextlib.suppress(OSError, ValueError):
            if watchdog.stdin is not None:
                watchdog.stdin.close()
        try:
            watchdog.wait(timeout=STOP_GRACE_S * 2)
        except subprocess.TimeoutExpired:
            watchdog.kill()
            watchdog.wait()

    # --- the end of the worker -----------------------------------------------------------

    @property
    def bots(self) -> list[WarmBot]:
        """Every bot of the pool not yet stopped (idle or in a match)."""
        return list(self._live)

    def close(self) -> None:
        """Stop every bot and close the loop (``kill_now`` when called while the loop runs)."""
        loop = self._loop
        if loop is not None and loop.is_running():
            self.kill_now()
            return
        bots = self.bots
        if bots:
            self.run(_gather([self.stop(bot) for bot in bots]))
        self._idle.clear()
        self._end_watchdog()
        if loop is not None and not loop.is_closed():
            loop.close()

    def kill_now(self, grace_s: float = STOP_GRACE_S) -> None:
        """Stop every bot without the event loop (from a signal handler): containers removed
        (forced, all at once), SIGTERM to each process group, SIGKILL to those still there
        after ``grace_s``, folders removed."""
        containers = [bot for bot in self._live if isinstance(bot, DockerAgent)]
        removing = ThreadPoolExecutor(max_workers=8) if containers else None
        if removing is not None:
            for container in containers:
                removing.submit(container.kill_now)
        bots = [bot for bot in self._live
                if isinstance(bot, LocalProcessAgent) and bot.process is not None]
        for bot in bots:
            _signal_group(bot, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while any(_group_exists(bot) for bot in bots) and time.monotonic() < deadline:
            time.sleep(POLL_S)
        for bot in bots:
            if _group_exists(bot):
                _signal_group(bot, signal.SIGKILL)
        for process in self._live:
            if isinstance(process, LocalProcessAgent):
                if process.workdir is not None:
                    shutil.rmtree(process.workdir, ignore_errors=True)
                self._tell("-", process)
        if removing is not None:
            removing.shutdown(wait=True)
        self._live.clear()
        self._idle.clear()
        self._end_watchdog()

    def install_sigterm(self) -> None:
        """Make SIGTERM stop every bot of the pool, then end the process as SIGTERM does (call
        in the main thread of a worker whose matches all run on the pool, and that has no
        other use for SIGTERM). During a match, the match is cancelled first, so that the
        runner stops the agents that are not the pool's (containers) as it always does."""

        def on_sigterm(signum: int, frame: FrameType | None) -> None:
            """Cancel the match in hand, if any (``run`` then ends the process); else stop the
            bots and die of SIGTERM now."""
            if self._terminating:
                return
            self._terminating = True
            task, loop = self._task, self._loop
            if task is not None and loop is not None and loop.is_running() and not task.done():
                loop.call_soon_threadsafe(task.cancel)
                return
            self._die()

        signal.signal(signal.SIGTERM, on_sigterm)

    def _die(self) -> None:
        """Stop every bot, then end the process as SIGTERM does."""
        self.kill_now()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)


async def _gather(stops: Sequence[Coroutine[Any, Any, AgentExit]]) -> None:
    """Wait for some stops, whatever each of them raises."""
    await asyncio.gather(*stops, return_exceptions=True)


def _signal_group(bot: LocalProcessAgent, signum: int) -> None:
    """Send a signal to a bot's process group, if it is still there."""
    if bot.process is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(bot.process.pid, signum)


def _group_exists(bot: LocalProcessAgent) -> bool:
    """True while a process of the bot's group is still there (the leader is reaped first if
    it has exited, as the loop that would reap it may not be running)."""
    if bot.process is None:
        return False
    bot.process.poll()
    try:
        os.killpg(bot.process.pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True
