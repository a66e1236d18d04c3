"""A worker's pool of process bots kept running between matches: each instance is shown a deal
at most once.

The match runner plays each rotation of a duplicate set with agents of its own and shuts them
down at the end. A league worker plays many sets with the same bots, so ``AgentPool`` keeps
their processes: ``lend`` turns every ``BotSeat`` of a match into a seat whose agents (one per
rotation) are launched instances of that bot, each taken from the pool's idle instances of the
bot only if its deal ledger (``arena.agents.ledger``) has not seen the match's deal, else
started afresh. ``give_back`` keeps each instance that played its deal cleanly (at most
``max_idle`` of a bot) and stops every other one (it crashed, timed out, broke a rule, or its
set was void or did not finish); ``close`` stops them all. A warm instance so plays one
rotation of many matches, each of another deal, and never one deal twice.

The pool owns one event loop, on which every match of the worker runs (``run``): processes,
pipes and gRPC channels belong to the loop that made them. ``kill_now`` stops every bot
without the loop, for a signal handler; ``install_sigterm`` makes SIGTERM do that and then end
the process as SIGTERM would. A worker killed outright (SIGKILL) cannot stop anything, so the
pool tells a small watchdog process of its own session each bot it starts and stops; when the
worker's end closes the watchdog's pipe, the watchdog stops the bots still listed.
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
from collections.abc import Collection, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

from arena.agents.base import Agent, AgentExit, DealEnd, DealSetup, Reply, Turn
from arena.agents.errors import AgentFailure
from arena.agents.output import OutputLog
from arena.agents.process import STOP_GRACE_S, LocalProcessAgent
from arena.agents.seats import BotSeat, SeatSpec
from arena.bots import BotManifest
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

BotKey = tuple[BotManifest, Path | None]
"""A pooled bot: its manifest and its temporary root (the instances of one key are alike)."""

MAX_IDLE = 32
"""Idle instances a pool keeps per bot by default: a match needs one per seat the bot fills
and rotation (four for a bot in one seat of a 4-seat game); beyond it they are stopped."""


class PooledAgent(Agent):
    """A pooled bot instance as one rotation of a match sees it: launched once, faults noted,
    kept at shutdown."""

    remote = True

    def __init__(self, pool: AgentPool, key: BotKey, deal: int) -> None:
        """An instance of the bot of ``key`` for one rotation of the deal of seed ``deal``
        (taken from the pool when the match launches)."""
        self.pool = pool
        self.key = key
        self.deal = deal
        self.bot: LocalProcessAgent | None = None
        self.faulted = False
        """True once the bot failed, timed out or could not start in this match."""
        self.stopped: AgentExit | None = None

    def _bot(self) -> LocalProcessAgent:
        """The bot taken at launch."""
        if self.bot is None:
            raise RuntimeError(f"bot {self.label}: used before launch")
        return self.bot

    @property
    def label(self) -> str:
        """The bot's name."""
        return self.key[0].name

    def describe(self) -> dict[str, Any]:
        """The bot's description (its manifest and what it said in Ready)."""
        return self.key[0].describe() if self.bot is None else self.bot.describe()

    async def launch(self, startup_s: float) -> None:
        """Take an instance that has not seen the deal from the pool (a new process if it has
        none), start its output afresh, and launch it if it has not started yet."""
        bot = self.bot = await self.pool.take(self.key, self.deal)
        bot.output = OutputLog(bot.output.cap)
        if bot.process is None:
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
        """Stop a faulted bot now; keep any other one for ``AgentPool.give_back``."""
        if self.stopped is not None:
            return self.stopped
        bot = self.bot
        if bot is None:
            return AgentExit(None, KEPT)
        if self.faulted or bot.process is None or bot.process.returncode is not None:
            self.stopped = await self.pool.stop(bot)
            return self.stopped
        return AgentExit(None, KEPT)

    def output_windows(self) -> list[str]:
        """The bot's output during this match."""
        return [] if self.bot is None else self.bot.output_windows()


@dataclass(frozen=True, eq=False)
class PooledSeat:
    """A bot folder's seat whose agents (one per rotation) come from the pool."""

    spec: BotSeat
    pool: AgentPool
    key: BotKey
    deal: int
    agents: list[PooledAgent] = field(default_factory=list)
    """The agent made for each rotation, in rotation order."""

    @property
    def label(self) -> str:
        """``name (bot)``, as the bot folder's own seat."""
        return self.spec.label

    def check(self, game: Game) -> None:
        """Raise ``BotConfigError`` when the bot's manifest does not list the game."""
        self.spec.check(game)

    def create_agent(self) -> PooledAgent:
        """A pooled instance for the next rotation of the match."""
        agent = PooledAgent(self.pool, self.key, self.deal)
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


def running(pid: int) -> bool:
    """True while the process exists and has not exited: the event loop learns of a bot's
    death only when its child watcher reaps it, which may come after the next match starts."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[:1] not in (["Z"], ["X"])


class AgentPool:
    """Launched process bots of one worker, by bot, kept between matches; an instance is
    handed out only for a deal it has not seen."""

    def __init__(self, max_idle: int = MAX_IDLE) -> None:
        """An empty pool keeping at most ``max_idle`` idle instances of each bot; its event
        loop is made on first use."""
        self.max_idle = max_idle
        self._idle: dict[BotKey, list[LocalProcessAgent]] = {}
        self._live: set[LocalProcessAgent] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._watchdog: subprocess.Popen[bytes] | None = None
        self._task: asyncio.Task[Any] | None = None
        self._terminating = False
        self.launched = 0
        """How many bot agents the pool has made (each is one process once launched)."""

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
        """The seats of a match on the deal of seed ``deal``, each bot folder's seat taken from
        the pool (one instance per seat and rotation); other seats are left as they are."""
        return Loan([PooledSeat(spec, self, (spec.manifest, spec.temp_root), deal)
                     if isinstance(spec, BotSeat) else spec for spec in seats])

    def give_back(self, loan: Loan, clean: Collection[tuple[int, int]] | None) -> None:
        """Keep the instances that played their deal cleanly (``clean``: their (entrant,
        rotation) pairs, as the match results' ``clean_instances`` gives them), stop every
        other one (all of them when the set did not finish: ``clean`` None), and stop the idle
        instances of a bot beyond ``max_idle`` and those whose ledger is full."""
        kept = clean or ()
        stops = []
        for entrant, rotation, agent in loan.agents():
            if agent.bot is None or agent.stopped is not None:
                continue
            bot = agent.bot
            alive = bot.process is not None and bot.process.returncode is None
            if ((entrant, rotation) in kept and not agent.faulted and alive
                    and bot in self._live and not bot.ledger.full):
                self._idle.setdefault(agent.key, []).append(bot)
            else:
                stops.append(self.stop(bot))
        for idle in self._idle.values():
            stops += [self.stop(bot) for bot in idle[self.max_idle:]]
            del idle[self.max_idle:]
        if stops:
            self.run(_gather(stops))

    async def take(self, key: BotKey, deal: int) -> LocalProcessAgent:
        """An instance of the bot of ``key`` that has not seen the deal of seed ``deal``: an
        idle one whose process still runs, else a new one (not launched yet). Idle instances
        of the same folder and temporary root but another manifest, or whose process has
        exited, are stopped."""
        manifest, temp_root = key
        stale = [other for other in self._idle
                 if other != key and other[0].folder == manifest.folder
                 and other[1] == temp_root]
        for other in stale:
            for bot in self._idle.pop(other, []):
                await self.stop(bot)
        idle = self._idle.get(key, [])
        while (bot := next((bot for bot in idle if deal not in bot.ledger), None)) is not None:
            idle.remove(bot)
            await asyncio.sleep(0)
            process = bot.process
            if process is not None and process.returncode is None and running(process.pid):
                return bot
            await self.stop(bot)
        return self.new_bot(key)

    def new_bot(self, key: BotKey) -> LocalProcessAgent:
        """A new bot agent for ``key`` (launched by its first match)."""
        manifest, temp_root = key
        bot = LocalProcessAgent(manifest, temp_root=temp_root)
        bot.on_spawn = self.watch  # the watchdog hears of it before it listens
        self._live.add(bot)
        self.launched += 1
        return bot

    async def stop(self, bot: LocalProcessAgent) -> AgentExit:
        """Stop a bot of the pool (its process group, folder and channel)."""
        self._live.discard(bot)
        for idle in self._idle.values():
            if bot in idle:
                idle.remove(bot)
        try:
            return await bot.shutdown()
        finally:
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
    def bots(self) -> list[LocalProcessAgent]:
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
        """Stop every bot without the event loop (from a signal handler): SIGTERM to each
        process group, SIGKILL to those still there after ``grace_s``, folders removed."""
        bots = [bot for bot in self._live if bot.process is not None]
        for bot in bots:
            _signal_group(bot, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while any(_group_exists(bot) for bot in bots) and time.monotonic() < deadline:
            time.sleep(POLL_S)
        for bot in bots:
            if _group_exists(bot):
                _signal_group(bot, signal.SIGKILL)
        for bot in self._live:
            if bot.workdir is not None:
                shutil.rmtree(bot.workdir, ignore_errors=True)
            self._tell("-", bot)
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
