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
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from arena.bench.engine_floor import FloorGame
from arena.bench.stats import goal_mark
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

PIPE_WIDTH = 120
"""Table width when stdout is not a terminal (rich would otherwise assume 80 columns)."""

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


def render_table(report: dict[str, Any]) -> Table:
    """The report as a rich table, one row per game configuration."""
    base = report["baseline"]
    goal = report["goal_ratio"]
    params = ", ".join(f"{key}={value}" for key, value in base["params"].items())
    table = Table(
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        title=f"Engine speed ({report['engine']} engine): random playouts, decisions per second",
        caption=(f"baseline: {base['library']} {base['game']}({params}) from a Python loop, "
                 f"{base['decisions_per_s']:,.0f} decisions/s\nmedians of {report['repeats']} "
                 f"rounds of {report['seconds']} s each for the game and the baseline, taken "
                 f"in alternate slices of {report['slice_seconds']} s; rates per second of "
                 f"{report['clock']}; goal: ratio >= {goal}\nAPI floor (a game with no rules "
                 f"through the same State API and loop): "
                 f"{report['api_floor']['decisions_per_s']:,.0f} decisions/s, ratio "
                 f"{report['api_floor']['ratio']:.2f}"
                 + ("" if report["engine"] == "compiled" else
                    "\nthe interpreted engine: arena engine build compiles it (about 2 minutes)")),
    )
    table.add_column("game", no_wrap=True)
    table.add_column("seats", justify="right")
    table.add_column("playouts/s", justify="right")
    table.add_column("decisions/s", justify="right")
    table.add_column("dec/playout", justify="right")
    table.add_column("baseline/s", justify="right")
    table.add_column("ratio", justify="right")
    table.add_column("goal")
    for row in report["results"]:
        mark = goal_mark(row["meets_goal"])
        table.add_row(
            row["game"],
            str(row["players"]),
            f"{row['playouts_per_s']:,.0f}",
            f"{row['decisions_per_s']:,.0f}",
            f"{row['decisions_per_playout']:.1f}",
            f"{row['baseline_decisions_per_s']:,.0f}",
            f"{row['ratio']:.2f}",
            mark,
        )
    return table


@contextmanager
def _status(console: Console) -> Iterator[Progress]:
    """A transient status line on stderr, updated through the yielded callback."""
    with console.status("measuring") as status:
        yield lambda text: status.update(f"measuring {text}")


def bench_engine_command(game_id: str | None = None, as_json: bool = False,
                         seconds: float = DEFAULT_SECONDS,
                         repeats: int = DEFAULT_REPEATS) -> None:
    """Run the benchmark and print a table (or JSON on stdout); one error line if it cannot."""
    if seconds <= 0:
        raise typer.BadParameter(f"must be positive, got {seconds}", param_hint="--seconds")
    if repeats < 1:
        raise typer.BadParameter(f"must be at least 1, got {repeats}", param_hint="--repeats")
    errors = Console(stderr=True)
    try:
        with _status(errors) as progress:
            report = run_engine_bench(game_id, seconds, repeats, progress)
    except BenchDependencyError as error:
        errors.print(f"[red]error:[/red] {escape(str(error))}", highlight=False, soft_wrap=True)
        raise typer.Exit(code=1) from None
    if as_json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:
        console = Console()
        if not console.is_terminal:
            console.width = max(console.width, PIPE_WIDTH)
        console.print(render_table(report))
