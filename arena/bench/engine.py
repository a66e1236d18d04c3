"""``arena bench engine``: random-playout speed of every game against OpenSpiel's ``oh_hell``.

A playout starts a match with ``new_initial_state(seed)`` (seeds increasing) and applies a
uniformly random legal action until the match is over; every applied action is a decision.
The baseline, OpenSpiel's ``oh_hell`` with 4 players and 12 tricks, is driven from the same
kind of Python loop, its chance nodes sampled from ``chance_outcomes()`` with the same kind of
generator; only its non-chance actions count as decisions.

The machines are shared and noisy, and their speed drifts in phases of a second or two, so
each game measurement is paired with a baseline measurement taken in the same moments: the
two alternate in slices of ``SLICE_S`` seconds until each has had its budget, and the pair
gives one ratio (the game's decisions/s over the baseline's). The whole round is repeated;
the figures are medians: of the game's rates, of the paired baseline rates, and of the
rounds' ratios. Rates count the measuring thread's CPU time, so time the scheduler gives to
other processes does not lower them.
"""

from __future__ import annotations

import importlib
import platform
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from arena.bench.engine_floor import FloorGame
from arena.games import ENGINE, Game, all_configurations, get_spec, load_game

GOAL_RATIO = 2.0
"""A game should make at least this many decisions per second per baseline decision."""

DEFAULT_SECONDS = 0.5
"""Time budget of one measurement."""

DEFAULT_REPEATS = 5
"""Rounds of interleaved measurements; the report gives medians."""

SLICE_S = 0.05
"""A paired measurement alternates the baseline and the game in slices this long."""

BASELINE_GAME = "oh_hell"
BASELINE_PARAMS: dict[str, int] = {"players": 4, "num_tricks_fixed": 12}
INSTALL_HINT = ("the engine benchmark needs OpenSpiel (module pyspiel), which is not installed: "
                "run pip install -e '.[bench]'")

CPU_CLOCK: Callable[[], float] = (
    time.thread_time if time.get_clock_info("thread_time").resolution <= 1e-6
    else time.perf_counter)
"""The clock of the rates: the thread's CPU time, or wall time where that clock is coarse."""
CPU_CLOCK_NAME = "thread CPU time" if CPU_CLOCK is time.thread_time else "wall time"
CPU_RESOLUTION = 1e-9
"""The smallest CPU time a sample may report (a guard against dividing by zero)."""

Runner = Callable[[float], "Sample"]
"""Runs playouts for at least the given number of seconds (and at least one playout)."""


class BenchDependencyError(RuntimeError):
    """The baseline's library (OpenSpiel) is not installed."""


@dataclass(frozen=True, slots=True)
class Sample:
    """One measurement: whole playouts and decisions, and the CPU ``seconds`` they took."""

    playouts: int
    decisions: int
    seconds: float

    def __add__(self, other: Sample) -> Sample:
        """Both samples' playouts, decisions and time together."""
        return Sample(self.playouts + other.playouts, self.decisions + other.decisions,
                      self.seconds + other.seconds)

    @property
    def decisions_per_s(self) -> float:
        """Decisions per second."""
        return self.decisions / self.seconds

    @property
    def playouts_per_s(self) -> float:
        """Playouts per second."""
        return self.playouts / self.seconds


class ArenaRunner:
    """Random playouts of one arena game configuration; seeds keep increasing across calls."""

    def __init__(self, game: Game, seed: int = 0) -> None:
        """Seed the action choices; match seeds start at 0."""
        self.game = game
        self.next_seed = 0
        self.rand = random.Random(seed).random

    def __call__(self, seconds: float) -> Sample:
        """Play whole matches until ``seconds`` have passed."""
        new_state = self.game.new_initial_state
        rand = self.rand
        wall, cpu = time.perf_counter, CPU_CLOCK
        seed = self.next_seed
        playouts = decisions = 0
        start, cpu_start = wall(), cpu()
        while True:
            state = new_state(seed)
            seed += 1
            while not state.is_terminal():
                actions = state.legal_actions()
                state.apply_action(actions[int(rand() * len(actions))])
                decisions += 1
            playouts += 1
            if wall() - start >= seconds:
                self.next_seed = seed
                return Sample(playouts, decisions, max(cpu() - cpu_start, CPU_RESOLUTION))


class OpenSpielRunner:
    """Random playouts of an OpenSpiel game; chance outcomes sampled with the same generator."""

    def __init__(self, game: Any, seed: int = 0) -> None:
        """Keep a loaded ``pyspiel`` game and seed the generator."""
        self.game = game
        self.rand = random.Random(seed).random

    def __call__(self, seconds: float) -> Sample:
        """Play whole games until ``seconds`` have passed; chance actions are not decisions."""
        new_state = self.game.new_initial_state
        rand = self.rand
        wall, cpu = time.perf_counter, CPU_CLOCK
        playouts = decisions = 0
        start, cpu_start = wall(), cpu()
        while True:
            state = new_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    chosen = outcomes[-1][0]
                    left = rand()
                    for action, probability in outcomes:
                        left -= probability
                        if left < 0.0:
                            chosen = action
                            break
                    state.apply_action(chosen)
                else:
                    actions = state.legal_actions()
                    state.apply_action(actions[int(rand() * len(actions))])
                    decisions += 1
            playouts += 1
            if wall() - start >= seconds:
                return Sample(playouts, decisions, max(cpu() - cpu_start, CPU_RESOLUTION))


def load_baseline() -> Any:
    """OpenSpiel's ``oh_hell`` game, or ``BenchDependencyError`` when OpenSpiel is missing."""
    try:
        pyspiel = importlib.import_module("pyspiel")
    except ImportError:
        raise BenchDependencyError(INSTALL_HINT) from None
    return pyspiel.load_game(BASELINE_GAME, dict(BASELINE_PARAMS))


def baseline_version() -> str:
    """The installed OpenSpiel version, or ``unknown``."""
    try:
        return metadata.version("open_spiel")
    except metadata.PackageNotFoundError:
        return "unknown"


def configurations(game_id: str | None) -> list[tuple[str, int]]:
    """(game id, seats) with default parameters: every game, or every seat count of one."""
    if game_id is not None:
        get_spec(game_id)
    return [(gid, seats) for gid, seats, params in all_configurations()
            if not params and (game_id is None or gid == game_id)]


def summarize(samples: list[Sample]) -> dict[str, Any]:
    """Median rates of some samples, the mean decisions per playout, and the raw rates."""
    playouts = sum(sample.playouts for sample in samples)
    decisions = sum(sample.decisions for sample in samples)
    return {
        "playouts_per_s": round(statistics.median(s.playouts_per_s for s in samples), 1),
        "decisions_per_s": round(statistics.median(s.decisions_per_s for s in samples), 1),
        "decisions_per_playout": round(decisions / playouts, 2),
        "decisions_per_s_samples": [round(s.decisions_per_s, 1) for s in samples],
    }


def paired(baseline: Runner, runner: Runner, seconds: float) -> tuple[Sample, Sample]:
    """The baseline and a game measured in alternate slices of about ``SLICE_S`` seconds
    until each has run ``seconds``: (baseline, game)."""
    slices = max(1, round(seconds / SLICE_S))
    base, game = baseline(seconds / slices), runner(seconds / slices)
    for _ in range(slices - 1):
        base += baseline(seconds / slices)
        game += runner(seconds / slices)
    return base, game


def ratio_of(base: Sample, game: Sample) -> float:
    """The game's decisions per second over the baseline's."""
    return game.decisions_per_s / base.decisions_per_s


Progress = Callable[[str], None]


def run_engine_bench(game_id: str | None = None, seconds: float = DEFAULT_SECONDS,
                     repeats: int = DEFAULT_REPEATS,
                     progress: Progress | None = None) -> dict[str, Any]:
    """Measure every configuration (or one game's) against the baseline; the JSON-ready report."""
    if seconds <= 0:
        raise ValueError(f"seconds must be positive, got {seconds}")
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    configs = configurations(game_id)
    baseline = OpenSpielRunner(load_baseline())
    runners = [ArenaRunner(load_game(gid, seats)) for gid, seats in configs]
    floor = ArenaRunner(FloorGame())
    warm_up: list[Runner] = [baseline, floor, *runners]
    for runner in warm_up:
        runner(0.0)
    game_samples: list[list[Sample]] = [[] for _ in configs]
    baselines: list[list[Sample]] = [[] for _ in configs]
    floor_samples: list[Sample] = []
    floor_paired: list[Sample] = []
    for repeat in range(repeats):
        base, game = paired(baseline, floor, seconds)
        floor_paired.append(base)
        floor_samples.append(game)
        for index, (gid, seats) in enumerate(configs):
            if progress is not None:
                progress(f"{gid} with {seats} seats, round {repeat + 1} of {repeats}")
            base, game = paired(baseline, runners[index], seconds)
            baselines[index].append(base)
            game_samples[index].append(game)
    results = []
    for index, (gid, seats) in enumerate(configs):
        summary = summarize(game_samples[index])
        base_rate = statistics.median(s.decisions_per_s for s in baselines[index])
        ratios = [ratio_of(base, game)
                  for base, game in zip(baselines[index], game_samples[index], strict=True)]
        ratio = statistics.median(ratios)
        results.append({
            "game": gid,
            "players": seats,
            **summary,
            "baseline_decisions_per_s": round(base_rate, 1),
            "baseline_decisions_per_s_samples": [round(s.decisions_per_s, 1)
                                                 for s in baselines[index]],
            "ratio": round(ratio, 3),
            "ratio_samples": [round(value, 3) for value in ratios],
            "meets_goal": ratio >= GOAL_RATIO,
        })
    every_baseline = [sample for samples in baselines for sample in samples]
    return {
        "baseline": {
            "game": BASELINE_GAME,
            "params": dict(BASELINE_PARAMS),
            "library": f"open_spiel {baseline_version()}",
            "driver": "python loop",
            **summarize(every_baseline),
        },
        "results": results,
        "api_floor": {
            "decisions_per_s": round(statistics.median(s.decisions_per_s for s in floor_samples),
                                     1),
            "ratio": round(statistics.median(
                ratio_of(base, game)
                for base, game in zip(floor_paired, floor_samples, strict=True)), 3),
        },
        "engine": ENGINE,
        "goal_ratio": GOAL_RATIO,
        "repeats": repeats,
        "seconds": seconds,
        "slice_seconds": SLICE_S,
        "clock": CPU_CLOCK_NAME,
        "python": platform.python_version(),
    }


# --- the bridges (arena bench engine --bridges) ----------------------------------------------

BRIDGES = ("pettingzoo", "openspiel")
"""The bridges measured against the engine alone, in the order of the report."""

BRIDGES_HINT = ("the bridges benchmark needs PettingZoo and OpenSpiel: "
                "run pip install -e '.[rl,bench]'")


class LoopRunner:
    """Whole matches of a loop (``arena.envs.speed.Loop``); seeds keep increasing across
    calls, so every loop of a configuration plays the same matches in the same order."""

    def __init__(self, play: Callable[[int], int]) -> None:
        """Keep the loop; match seeds start at 0."""
        self.play = play
        self.next_seed = 0

    def __call__(self, seconds: float) -> Sample:
        """Play whole matches until ``seconds`` have passed (at least one)."""
        wall, cpu = time.perf_counter, CPU_CLOCK
        playouts = decisions = 0
        start, cpu_start = wall(), cpu()
        while True:
            decisions += self.play(self.next_seed)
            self.next_seed += 1
            playouts += 1
            if wall() - start >= seconds:
                return Sample(playouts, decisions, max(cpu() - cpu_start, CPU_RESOLUTION))


BridgeLoops = Callable[[str, int], list[Callable[[int], int]]]
"""Gives a configuration's loops (the engine alone, then each bridge): each plays the match of a
seed and returns its decisions (``arena.envs.speed.bridge_loops``, handed in by the command
line, which sits above the environments)."""


def bridge_runners(game_id: str, seats: int, loops: BridgeLoops) -> list[Runner]:
    """The engine alone, then each bridge, for one configuration at default parameters."""
    return [LoopRunner(play) for play in loops(game_id, seats)]


def interleaved(runners: list[Runner], seconds: float) -> list[Sample]:
    """The runners measured in turn, in slices of about ``SLICE_S`` seconds, until each has
    run ``seconds``: one sample per runner."""
    slices = max(1, round(seconds / SLICE_S))
    samples = [runner(seconds / slices) for runner in runners]
    for _ in range(slices - 1):
        samples = [sample + runner(seconds / slices)
                   for sample, runner in zip(samples, runners, strict=True)]
    return samples


def bridge_configurations(game_id: str | None) -> list[tuple[str, int]]:
    """Every seat count of one game, or each game at its default seat count."""
    if game_id is not None:
        return configurations(game_id)
    return [(gid, seats) for gid, seats in configurations(None)
            if seats == get_spec(gid).default_seats]


def run_bridge_bench(loops: BridgeLoops, game_id: str | None = None,
                     seconds: float = DEFAULT_SECONDS, repeats: int = DEFAULT_REPEATS,
                     progress: Progress | None = None) -> dict[str, Any]:
    """Decisions per second of the engine alone and through each bridge, in the same run;
    the JSON-ready report (overhead: how many times longer a decision takes through the
    bridge, the median of the rounds' ratios)."""
    if seconds <= 0:
        raise ValueError(f"seconds must be positive, got {seconds}")
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    configs = bridge_configurations(game_id)
    runners = [bridge_runners(gid, seats, loops) for gid, seats in configs]
    for group in runners:
        for runner in group:
            runner(0.0)
    samples: list[list[list[Sample]]] = [[[] for _ in group] for group in runners]
    for repeat in range(repeats):
        for index, (gid, seats) in enumerate(configs):
            if progress is not None:
                progress(f"{gid} with {seats} seats through the bridges, "
                         f"round {repeat + 1} of {repeats}")
            for rows, sample in zip(samples[index], interleaved(runners[index], seconds),
                                    strict=True):
                rows.append(sample)
    results = []
    for index, (gid, seats) in enumerate(configs):
        engine, *bridges = samples[index]
        row: dict[str, Any] = {
            "game": gid,
            "players": seats,
            "engine_decisions_per_s": round(
                statistics.median(s.decisions_per_s for s in engine), 1),
        }
        for name, bridge in zip(BRIDGES, bridges, strict=True):
            ratios = [ratio_of(through, alone)
                      for alone, through in zip(engine, bridge, strict=True)]
            row[f"{name}_decisions_per_s"] = round(
                statistics.median(s.decisions_per_s for s in bridge), 1)
            row[f"{name}_overhead"] = round(statistics.median(ratios), 2)
            row[f"{name}_overhead_samples"] = [round(value, 2) for value in ratios]
        results.append(row)
    return {
        "bridges": list(BRIDGES),
        "measured": ("random matches at default parameters; at every decision the acting "
                     "seat's observation (engine: state.observation; pettingzoo: last(), the "
                     "vector and mask; openspiel: observation_tensor) and a legal action"),
        "results": results,
        "engine": ENGINE,
        "openspiel": f"open_spiel {baseline_version()}",
        "repeats": repeats,
        "seconds": seconds,
        "slice_seconds": SLICE_S,
        "clock": CPU_CLOCK_NAME,
        "python": platform.python_version(),
    }
