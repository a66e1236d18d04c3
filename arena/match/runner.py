"""The match runner: agents play deals under a clock and the fault policy; duplicate sets.

The runner deals in engine states and actions only. For each decision it asks the seat's agent
for a decision in the deal's state and waits up to the decision's limit plus the seat's bank
(``timecontrol``); the agent's reply is an engine action, or the fault its bot's answer was
(an agent that talks to a bot owns the wire form). The runner applies the action, or counts
the fault (``faults``) and plays a seeded random legal action instead. gRPC channels exist
only while a run is going on (agents open them in ``launch``), never at import time, so forked
workers stay safe.

``run_deal`` and ``run_duplicate`` are the synchronous entry points (they run an event loop);
``run_duplicate_async`` is the same for callers inside one. In the main thread, a SIGTERM during
a run first stops every bot and removes their folders, then ends the process as SIGTERM would.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from arena.agents import (
    Agent,
    AgentExit,
    AgentFailure,
    DealEnd,
    DealSetup,
    Reply,
    SeatSpec,
    Turn,
    yield_cpu_to_bots,
)
from arena.games import Game, State
from arena.games.rng import Rng, derive_seed
from arena.match.conduct import DEBUG_CAP, Conduct, DebugNote, SeatReport, cap_text
from arena.match.errors import MatchError
from arena.match.faults import DEFAULT_STRIKES, Fault, FaultKind, strike_reason
from arena.match.local import MAX_ACTIONS, check_seed
from arena.match.record import MatchRecord
from arena.match.results import (
    DealResult,
    DuplicateResult,
    EntrantResult,
    entrant_seats,
    first_unclean,
)
from arena.match.timecontrol import SeatClock, TimeControl
from arena.reasons import Reason

Clock = Callable[[], int]
"""A monotonic clock in nanoseconds (``time.perf_counter_ns``; tests may pass a fake)."""

ActionHook = Callable[[int, State], None]
"""Told after every action of a deal: the deal's rotation and its state (read it, never
change it). Watchers of a running match are fed this way."""

OK = Reason.OK
VOID = Reason.VOID_INFRA


class VoidDeal(Exception):
    """The arena itself failed in a deal: no verdict against any bot."""


@dataclass
class _Seat:
    """One seat in one deal: its agent, clock, strikes and how it ended."""

    seat: int
    agent: Agent
    clock: SeatClock
    rng: Rng
    connected: bool = False
    strikes: int = 0
    reason: Reason = OK
    detail: str = ""

    @property
    def forfeited(self) -> bool:
        """True once the seat is out of the deal."""
        return self.reason != OK

    def forfeit(self, reason: Reason, detail: str) -> None:
        """Put the seat out of the deal (the first reason stands)."""
        if not self.forfeited:
            self.reason = reason
            self.detail = detail

    def substitute(self, state: State) -> int:
        """A seeded random legal action, played for a fault or a forfeited seat."""
        return self.rng.choice(state.legal_actions())


@dataclass
class _Deal:
    """A deal being played: its state, seats and log (turned into a result at the end)."""

    game: Game
    seed: int
    match_id: str
    control: TimeControl
    strikes: int
    state: State
    seats: list[_Seat]
    decision_us: list[int | None] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    debug: list[DebugNote] = field(default_factory=list)
    void: str = ""
    descriptions: list[dict[str, object]] = field(default_factory=list)
    on_action: Callable[[State], None] | None = None


async def _open(deal: _Deal, seat: _Seat) -> None:
    """Start the deal for one seat; a failure to start forfeits it."""
    game, control = deal.game, deal.control
    setup = DealSetup(game=game, seat=seat.seat, seed=deal.seed, match_id=deal.match_id,
                      decision_ms=control.decision_ms, bank_ms=control.bank_ms,
                      state=deal.state)
    try:
        await seat.agent.open(setup, control.ready_ms / 1000)
    except AgentFailure as failure:
        if failure.reason == VOID:
            raise VoidDeal(failure.detail) from None
        seat.forfeit(failure.reason, failure.detail)
        deal.faults.append(Fault(seat.seat, FaultKind(failure.kind), failure.detail))
        return
    seat.connected = True


async def _ask(deal: _Deal, seat: _Seat, index: int, clock: Clock) -> tuple[int, int]:
    """Ask a seat for decision ``index``: the engine action to apply and the time taken (µs)."""
    seat_clock = seat.clock
    turn = Turn(index + 1, seat.seat, deal.state, *seat_clock.time_left_ms())
    agent = seat.agent
    allowance_us = seat_clock.allowance_us()
    start = clock()
    try:
        reply = await agent.decide(turn, allowance_us / 1e6)
    except AgentFailure as failure:
        return _failed(deal, seat, index, failure), (clock() - start) // 1000
    elapsed = (clock() - start) // 1000
    if reply is not None and reply.took_us is not None:
        elapsed = reply.took_us  # the bot's time alone, without the arena's own waits
    if reply is None:
        seat_clock.expire()
        kind = FaultKind.TIMEOUT
        detail = f"no answer within {allowance_us // 1000} ms (decision and bank)"
    elif agent.timed and not seat_clock.charge(elapsed):
        kind = FaultKind.TIMEOUT
        detail = (f"answered after {elapsed // 1000} ms; {allowance_us // 1000} ms were left "
                  "(decision and bank)")
    elif reply.fault or reply.debug:
        return _judged(deal, seat, index, reply), elapsed
    else:
        return reply.action, elapsed
    return _struck(deal, seat, index, kind, detail), elapsed


def _failed(deal: _Deal, seat: _Seat, index: int, failure: AgentFailure) -> int:
    """A seat whose agent failed at decision ``index`` forfeits; the substitute's action."""
    if failure.reason == VOID:
        raise VoidDeal(failure.detail) from None
    seat.connected = False
    action = seat.substitute(deal.state)
    seat.forfeit(failure.reason, failure.detail)
    deal.faults.append(Fault(seat.seat, FaultKind(failure.kind), failure.detail, index,
                             action=action))
    return action


def _judged(deal: _Deal, seat: _Seat, index: int, reply: Reply) -> int:
    """The action of a reply that is not plainly an action to play (it may carry debug text,
    or be a fault)."""
    if reply.debug:
        deal.debug.append(DebugNote(index, seat.seat, cap_text(reply.debug, DEBUG_CAP)))
    if not reply.fault:
        return reply.action
    return _struck(deal, seat, index, FaultKind(reply.fault), reply.detail)


def _struck(deal: _Deal, seat: _Seat, index: int, kind: FaultKind, detail: str) -> int:
    """A fault at decision ``index``: a strike (the seat forfeits at the limit); the
    substitute's action."""
    action = seat.substitute(deal.state)
    seat.strikes += 1
    deal.faults.append(Fault(seat.seat, kind, detail, index, seat.strikes, action))
    if seat.strikes >= deal.strikes:
        seat.forfeit(strike_reason(kind), f"{seat.strikes} strikes; the last: {kind}: {detail}")
    return action


async def _play(deal: _Deal, clock: Clock, max_actions: int) -> None:
    """Play the deal to its end; a forfeited seat's decisions go to its substitute."""
    state, seats, times, on_action = deal.state, deal.seats, deal.decision_us, deal.on_action
    await asyncio.gather(*(_open(deal, seat) for seat in seats))
    while not state.is_terminal():
        index = len(times)
        if index == max_actions:
            raise VoidDeal(f"{deal.game.id}: the match was stopped after {max_actions} actions "
                           "without ending")
        seat = seats[state.current_player()]
        if seat.forfeited:
            action, elapsed = seat.substitute(state), None
        else:
            action, elapsed = await _ask(deal, seat, index, clock)
        state.apply_action(action)
        times.append(elapsed)
        if on_action is not None:
            on_action(state)


async def _close(deal: _Deal) -> None:
    """Tell every seat still connected how the deal ended."""
    reasons = tuple(VOID if deal.void else seat.reason for seat in deal.seats)
    end = DealEnd(deal.state, reasons)
    await asyncio.gather(*(seat.agent.close(end) for seat in deal.seats if seat.connected),
                         return_exceptions=True)


async def _play_deal(game: Game, seed: int, agents: Sequence[Agent], match_id: str,
                          time_control: TimeControl, strikes: int = DEFAULT_STRIKES,
                          clock: Clock = time.perf_counter_ns,
                          max_actions: int = MAX_ACTIONS,
                          on_action: Callable[[State], None] | None = None) -> _Deal:
    """Play one deal with launched agents (one per seat); the raw outcome, never raising
    for a bot's misbehaviour (an arena failure makes the deal void)."""
    deal = _Deal(game=game, seed=seed, match_id=match_id, control=time_control,
                 strikes=strikes, state=game.new_initial_state(seed),
                 seats=[_Seat(seat, agent, SeatClock(time_control),
                              Rng(derive_seed(seed, "substitute", seat)))
                        for seat, agent in enumerate(agents)], on_action=on_action)
    try:
        await _play(deal, clock, max_actions)
    except VoidDeal as error:
        deal.void = str(error)
    except Exception as error:  # an arena failure: no verdict against any bot
        deal.void = f"arena failure: {type(error).__name__}: {error}"
    finally:
        await _close(deal)
    deal.descriptions = [seat.agent.describe() for seat in deal.seats]
    return deal


def _deal_result(deal: _Deal, rotation: int, entrants: tuple[int, ...], labels: Sequence[str],
                 stderr: Sequence[str]) -> DealResult:
    """The result and record of a played deal, with each seat's captured output."""
    seats = deal.seats
    reasons = tuple(VOID if deal.void else seat.reason for seat in seats)
    details = tuple(deal.void if deal.void else seat.detail for seat in seats)
    record = None
    if not deal.void:
        reports = tuple(SeatReport(agent=dict(deal.descriptions[seat.seat]),
                                   reason=seat.reason.name, detail=seat.detail,
                                   forfeited=seat.forfeited, strikes=seat.strikes,
                                   bank_ms=seat.clock.bank_ms, stderr=stderr[seat.seat])
                        for seat in seats)
        conduct = Conduct(match_id=deal.match_id,
                          time_control={**deal.control.to_dict(), "strikes": deal.strikes},
                          seats=reports, decision_us=tuple(deal.decision_us),
                          faults=tuple(deal.faults), debug=tuple(deal.debug))
        record = MatchRecord.from_state(deal.state, [labels[e] for e in entrants], conduct)
    returns = tuple(float(value) for value in deal.state.returns()) if not deal.void else (
        (0.0,) * len(seats))
    forfeited = tuple(seat.forfeited and not deal.void for seat in seats)  # void: no verdict
    return DealResult(rotation=rotation, entrants=entrants,
                      labels=tuple(labels[e] for e in entrants), returns=returns, reasons=reasons,
                      details=details, forfeited=forfeited,
                      faults=() if deal.void else tuple(deal.faults), record=record,
                      void=deal.void)


class _SigtermGuard:
    """While a run goes on in the main thread, SIGTERM cancels it (so its cleanup runs) and is
    delivered again once the bots are stopped.

    The handler is Python's own (``signal.signal``), as ``asyncio.run`` does for Ctrl-C: it
    notes the signal and wakes the loop to cancel the run. (``loop.add_signal_handler`` would
    do the same, at the price of listing every valid signal on each install and removal.)
    """

    def __init__(self) -> None:
        """Take over SIGTERM if nobody else handles it."""
        self.received = False
        self.stopping = False
        self._task = asyncio.current_task()
        self._loop = asyncio.get_running_loop()
        self.installed = False
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL):
            with contextlib.suppress(OSError, ValueError):
                signal.signal(signal.SIGTERM, self._on_signal)
                self.installed = True

    def _on_signal(self, signum: int, frame: object) -> None:
        """Note the signal and have the loop cancel the run (waking it if it waits)."""
        self.received = True
        self._loop.call_soon_threadsafe(self._on_sigterm)

    def _on_sigterm(self) -> None:
        """Cancel the run, unless it is already stopping its bots."""
        self.received = True
        if not self.stopping and self._task is not None:
            self._task.cancel()

    def release(self) -> None:
        """Give SIGTERM back; end the process with it if it came during the run."""
        if self.installed:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if self.received:
            os.kill(os.getpid(), signal.SIGTERM)


LAUNCHES_AT_ONCE = 2 * (os.cpu_count() or 1)
"""How many of a set's bot instances start at the same time (each start's limit runs from its
own beginning), so that a set of many rotations does not start every container at once."""


async def _launch_all(agents: Sequence[Agent], startup_s: float) -> None:
    """Launch every agent, at most ``LAUNCHES_AT_ONCE`` at a time; with a bot among them,
    this process yields the CPU to bots from now on (``arena.agents.priority``)."""
    if any(agent.remote for agent in agents):
        yield_cpu_to_bots()
    gate = asyncio.Semaphore(LAUNCHES_AT_ONCE)

    async def launch(agent: Agent) -> None:
        async with gate:
            await _launch(agent, startup_s)

    await asyncio.gather(*(launch(agent) for agent in agents))


async def _launch(agent: Agent, startup_s: float) -> None:
    """Launch an agent; a failure is kept by the agent and met again when a deal opens."""
    with contextlib.suppress(AgentFailure):
        await agent.launch(startup_s)


def check_seats(game: Game, seats: Sequence[SeatSpec]) -> None:
    """One seat spec per seat, each able to play the game (else a clear error)."""
    if len(seats) != game.num_players:
        raise MatchError(f"{len(seats)} players given for the {game.num_players} seats of "
                         f"{game.id}")
    for spec in seats:
        spec.check(game)


async def run_duplicate_async(game: Game, seed: int, seats: Sequence[SeatSpec],
                              time_control: TimeControl | None = None, *,
                              strikes: int = DEFAULT_STRIKES, rotations: int | None = None,
                              match_id: str | None = None, clock: Clock = time.perf_counter_ns,
                              max_actions: int = MAX_ACTIONS,
                              on_action: ActionHook | None = None) -> DuplicateResult:
    """Play the same deal once per rotation (all seats by default), entrants rotated one seat
    each time; every agent is shut down and every process stopped before this returns.
    ``on_action`` hears of every action of every deal.

    Each rotation is played by agents of its own: every seat spec makes one agent per rotation
    (``create_agent``, called in rotation order), all launched together before the first deal,
    so that no bot instance is shown the deal twice. The rotations are played one after the
    other, and the agents of a rotation are stopped as soon as it has ended.
    """
    check_seed(seed)
    check_seats(game, seats)
    control = time_control or TimeControl()
    players = game.num_players
    count = players if rotations is None else rotations
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= players:
        raise MatchError(f"rotations must be 1..{players} for {players} seats, got {count!r}")
    if isinstance(strikes, bool) or not isinstance(strikes, int) or strikes < 1:
        raise MatchError(f"strikes must be a positive integer, got {strikes!r}")
    base_id = match_id or uuid.uuid4().hex
    lineups = [[spec.create_agent() for spec in seats] for _ in range(count)]
    _check_distinct(seats, lineups)
    deals: list[tuple[int, tuple[int, ...], _Deal]] = []
    stops: list[asyncio.Future[list[AgentExit]]] = []
    guard = _SigtermGuard()
    try:
        await _launch_all([agent for lineup in lineups for agent in lineup],
                          control.startup_ms / 1000)
        for rotation, lineup in enumerate(lineups):
            entrants = tuple((seat - rotation) % players for seat in range(players))
            deal = await _play_deal(game, seed, [lineup[e] for e in entrants],
                                    f"{base_id}-{rotation}", control, strikes, clock,
                                    max_actions, None if on_action is None
                                    else partial(on_action, rotation))
            deals.append((rotation, entrants, deal))
            stops.append(asyncio.ensure_future(_shutdown(lineup)))
    finally:
        guard.stopping = True
        stops += [asyncio.ensure_future(_shutdown(lineup)) for lineup in lineups[len(stops):]]
        exits = await asyncio.gather(*stops)
        guard.release()
    labels = [spec.label for spec in seats]
    results = [_deal_result(deal, rotation, entrants, labels,
                            ["".join(lineups[rotation][e].output_windows()) for e in entrants])
               for rotation, entrants, deal in deals]
    counted = [deal for deal in results if not deal.void]
    entrant_results = tuple(
        EntrantResult(
            index=index, label=labels[index],
            agent=_description([lineup[index] for lineup in lineups]),
            seats=entrant_seats(index, [deal.rotation for deal in counted], players),
            returns=tuple(deal.returns[deal.entrants.index(index)] for deal in counted),
            reasons=tuple(deal.reasons[deal.entrants.index(index)] for deal in counted),
            exit=first_unclean([stopped[index] for stopped in exits]),
            exits=tuple(stopped[index] for stopped in exits))
        for index in range(players))
    return DuplicateResult(game=game.id, players=players, params=dict(game.params), seed=seed,
                           deals=tuple(results), entrants=entrant_results)


def _check_distinct(seats: Sequence[SeatSpec], lineups: Sequence[Sequence[Agent]]) -> None:
    """Raise ``MatchError`` when a seat spec made one agent for two seats or rotations of a
    set (checked before anything is launched)."""
    made: set[int] = set()
    for lineup in lineups:
        for spec, agent in zip(seats, lineup, strict=True):
            if id(agent) in made:
                raise MatchError(f"the seat {spec.label} made one agent for two rotations or "
                                 "seats of a set; each needs an agent of its own")
            made.add(id(agent))


async def _shutdown(agents: Sequence[Agent]) -> list[AgentExit]:
    """Shut down some agents at once; each one's exit (one naming the error if it raised)."""
    outcomes = await asyncio.gather(*(agent.shutdown() for agent in agents),
                                    return_exceptions=True)
    return [outcome if isinstance(outcome, AgentExit) else AgentExit(None, f"{outcome!r}")
            for outcome in outcomes]


def _description(agents: Sequence[Agent]) -> dict[str, Any]:
    """An entrant's description: that of its first agent that said Ready (else its last)."""
    descriptions = [agent.describe() for agent in agents]
    return next((description for description in descriptions if "ready" in description),
                descriptions[-1])


def run_duplicate(game: Game, seed: int, seats: Sequence[SeatSpec],
                  time_control: TimeControl | None = None, *, strikes: int = DEFAULT_STRIKES,
                  rotations: int | None = None, match_id: str | None = None,
                  clock: Clock = time.perf_counter_ns,
                  max_actions: int = MAX_ACTIONS,
                  on_action: ActionHook | None = None) -> DuplicateResult:
    """``run_duplicate_async`` in a new event loop."""
    return asyncio.run(run_duplicate_async(game, seed, seats, time_control, strikes=strikes,
                                           rotations=rotations, match_id=match_id, clock=clock,
                                           max_actions=max_actions, on_action=on_action))


def run_deal(game: Game, seed: int, seats: Sequence[SeatSpec],
             time_control: TimeControl | None = None, *, strikes: int = DEFAULT_STRIKES,
             match_id: str | None = None, clock: Clock = time.perf_counter_ns,
             max_actions: int = MAX_ACTIONS) -> DealResult:
    """One deal with the seats in the order given (a single rotation of ``run_duplicate``)."""
    result = run_duplicate(game, seed, seats, time_control, strikes=strikes, rotations=1,
                           match_id=match_id, clock=clock, max_actions=max_actions)
    return result.deals[0]
