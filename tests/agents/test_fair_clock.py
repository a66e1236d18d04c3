"""The fair clock: a bot is charged from the request's write to when its answer could be read,
never for the event loop's own lag."""

from __future__ import annotations

import asyncio
import selectors
import statistics
import time
from pathlib import Path
from typing import Any

from arena.agents import Agent, LocalProcessAgent, PolicySeat, Reply, Turn
from arena.agents.loopclock import LoopClock, _TimedSelector, loop_clock
from arena.bots import BotManifest
from arena.games import Game, load_game
from arena.match.runner import run_deal
from arena.match.timecontrol import TimeControl

from .botkit import make_bot

LAG_S = 0.2
"""How long the loop is blocked while a lagged decision is out."""
PAST_DEADLINE_LIMIT_MS = 400
"""The decision limit of the test whose loop is blocked past it (roomy, for a loaded machine)."""
PAST_DEADLINE_LAG_S = 1.0
"""How long that test blocks the loop: well past the limit."""


class _FakeSelector(selectors.BaseSelector):
    """A selector whose events are scripted: each select returns the next list (one that is
    None: nothing ready at once, events after a wait)."""

    def __init__(self, script: list[list[Any] | None]) -> None:
        """Keep the script."""
        self.script = script
        self.calls: list[float | None] = []

    def select(self, timeout: float | None = None) -> list[Any]:
        """The next scripted answer; a None entry is empty when looked at without waiting and
        an event when waited for."""
        self.calls.append(timeout)
        if timeout == 0 and self.script and self.script[0] is None:
            return []
        item = self.script.pop(0)
        return ["event"] if item is None else item

    def register(self, fileobj: Any, events: int, data: Any = None) -> Any:
        """Not used."""
        raise NotImplementedError

    def unregister(self, fileobj: Any) -> Any:
        """Not used."""
        raise NotImplementedError

    def get_map(self) -> Any:
        """Not used."""
        return {}


def test_an_answer_met_by_a_waiting_loop_is_timed_when_the_loop_woke() -> None:
    selector = _TimedSelector(_FakeSelector([["ready"], None, ["ready"]]))
    clock = LoopClock(selector)
    selector.select(0)
    selector.select(1.0)  # nothing was ready: the loop waited, woke for the answer
    woke = selector.last
    selector.select(0)  # the iteration where the stream's reader runs
    assert selector.before_blocked
    assert clock.arrival_ns() == woke


def test_an_answer_found_by_a_busy_loop_is_timed_at_the_start_of_its_stretch() -> None:
    selector = _TimedSelector(_FakeSelector([["ready"], ["ready"], ["ready"]]))
    clock = LoopClock(selector)
    selector.select(0)
    start = selector.last
    time.sleep(0.05)  # a callback that blocks the loop while the answer comes
    selector.select(1.0)  # events at once: the loop did not wait
    selector.select(0)
    assert not selector.before_blocked
    assert clock.arrival_ns() == start
    assert selector.before - clock.arrival_ns() >= 50_000_000


def test_a_selector_loop_gets_its_selector_watched_once() -> None:
    async def clocks() -> tuple[LoopClock, LoopClock]:
        return loop_clock(), loop_clock()

    first, second = asyncio.run(clocks())
    assert first is second
    assert first.measured


class _LaggingAgent(LocalProcessAgent):
    """A bot process whose first ``lagged`` decisions find the arena's loop blocked for
    ``LAG_S`` right after the request is written; it keeps each call's round trip."""

    def __init__(self, manifest: BotManifest, temp_root: Path, lagged: int,
                 lag_s: float = LAG_S) -> None:
        """Lag the first ``lagged`` decisions by ``lag_s``."""
        super().__init__(manifest, temp_root=temp_root)
        self.lagged = lagged
        self.lag_s = lag_s
        self.round_trips_us: list[int] = []

    async def decide(self, turn: Turn, timeout_s: float) -> Reply | None:
        """Block the loop for ``lag_s`` in its next turn, then ask the bot."""
        if len(self.round_trips_us) < self.lagged:
            asyncio.get_running_loop().call_soon(time.sleep, self.lag_s)
        start = time.perf_counter_ns()
        reply = await super().decide(turn, timeout_s)
        self.round_trips_us.append((time.perf_counter_ns() - start) // 1000)
        return reply


class _LaggingSeat:
    """A seat spec making ``_LaggingAgent`` instances, kept for the test."""

    label = "lagging (bot)"

    def __init__(self, folder: Path, temp_root: Path, lagged: int,
                 lag_s: float = LAG_S) -> None:
        """The bot folder, how many decisions to lag and by how long."""
        self.manifest = BotManifest.load(folder)
        self.temp_root = temp_root
        self.lagged = lagged
        self.lag_s = lag_s
        self.agents: list[_LaggingAgent] = []

    def check(self, game: Game) -> None:
        """Any game."""

    def create_agent(self) -> Agent:
        """A new lagging agent."""
        agent = _LaggingAgent(self.manifest, self.temp_root, self.lagged, self.lag_s)
        self.agents.append(agent)
        return agent


def _bot_times(seat: int, deal: Any) -> list[int]:
    """The recorded (charged) time of each decision ``seat`` made, in order."""
    game = load_game(deal.record.game, len(deal.returns), deal.record.params)
    state = game.new_initial_state(deal.record.seed)
    times = []
    for action, micros in zip(deal.record.actions, deal.record.conduct.decision_us,
                              strict=True):
        if state.current_player() == seat:
            times.append(micros)
        state.apply_action(action)
    return times


def test_a_blocked_loop_is_not_charged_to_an_instant_bot(tmp_path: Path,
                                                         temp_root: Path) -> None:
    folder = make_bot(tmp_path / "bot")
    seat = _LaggingSeat(folder, temp_root, lagged=3)
    deal = run_deal(load_game("briscola"), 5, [seat, PolicySeat("random")],
                    TimeControl(decision_ms=1000, bank_ms=0))
    assert deal.reason_names == ("OK", "OK")
    trips = seat.agents[0].round_trips_us[:3]
    charged = _bot_times(0, deal)[:3]
    assert all(trip >= LAG_S * 1e6 for trip in trips)
    assert all(micros < LAG_S * 1e6 / 4 for micros in charged), charged


def test_a_quiet_loop_charges_the_bot_its_own_time(tmp_path: Path, temp_root: Path) -> None:
    folder = make_bot(tmp_path / "bot", "--sleep-ms", "50")
    seat = _LaggingSeat(folder, temp_root, lagged=0)
    deal = run_deal(load_game("briscola"), 6, [seat, PolicySeat("random")],
                    TimeControl(decision_ms=1000))
    charged = _bot_times(0, deal)
    trips = seat.agents[0].round_trips_us
    assert statistics.median(charged) >= 50_000, charged
    assert min(charged) >= 25_000, charged
    assert all(micros <= trip for micros, trip in zip(charged, trips, strict=True))


def test_an_answer_in_time_that_found_the_loop_blocked_past_its_deadline_is_no_timeout(
        tmp_path: Path, temp_root: Path) -> None:
    """The loop is blocked past the decision's whole allowance while the bot answers at once:
    the answer is handed over, judged by when it came, and is in time."""
    folder = make_bot(tmp_path / "bot")
    seat = _LaggingSeat(folder, temp_root, lagged=2, lag_s=PAST_DEADLINE_LAG_S)
    deal = run_deal(load_game("briscola"), 7, [seat, PolicySeat("random")],
                    TimeControl(decision_ms=PAST_DEADLINE_LIMIT_MS, bank_ms=0))
    assert all(trip >= PAST_DEADLINE_LAG_S * 1e6
               for trip in seat.agents[0].round_trips_us[:2])
    assert deal.faults == ()
    assert deal.reason_names == ("OK", "OK")
