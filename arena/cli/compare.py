"""The ``arena compare A B`` command: a live bar of the test, then its decision.

Ctrl-C stops it between sets: the first one is noted (a SIGINT handler sets a flag that
``run_comparison`` checks before each set), the set being played ends, and the result so far
is printed as an inconclusive, interrupted one, exit code 130. A second Ctrl-C stops at once,
leaving the set being played out of the result.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn
from rich.table import Table
from rich.text import Text

from arena.agents.sources import PROCESS, check_sandbox
from arena.cli.building import show_builds
from arena.cli.console import PIPE_WIDTH, safe_console
from arena.cli.options import (
    BankMsOption,
    DecisionMsOption,
    ForfeitPolicyOption,
    StartupMsOption,
    StrikesOption,
    seed_option,
)
from arena.cli.seats import parse_allowed
from arena.league.compare import Interval
from arena.league.comparing import (
    DEFAULT_MAX_SETS,
    CompareError,
    Comparison,
    compare_games,
    contender,
    game_tests,
    run_comparison,
)
from arena.league.forfeits import DEFAULT_POLICY, ForfeitPolicy, forfeit_policy
from arena.league.interrupt import ctrl_c_noted
from arena.league.numbers import estimate, rate, signed
from arena.league.sprt import DEFAULT_ALPHA, DEFAULT_BETA, MIN_SETS, Decision
from arena.match.faults import DEFAULT_STRIKES
from arena.match.safetext import safe_text
from arena.match.timecontrol import (
    DEFAULT_BANK_MS,
    DEFAULT_DECISION_MS,
    DEFAULT_STARTUP_MS,
    TimeControl,
)

BAR_STEPS = 1000
"""Steps of the live bar between the two bounds."""

INTERRUPTED_EXIT = 130
"""The exit code of a comparison stopped by Ctrl-C (128 + SIGINT, as a shell reports it)."""

STOPPING_NOTE = ("interrupted: stopping after the set being played (Ctrl-C again to stop at "
                 "once)")
"""What the first Ctrl-C says on stderr."""


class CompareUsage(typer.TyperException):
    """Bad input of the compare command: printed as one ``error:`` line, exit code 2."""

    exit_code = 2


def _interval(low: float | None, high: float | None) -> Interval | None:
    """An interval for the shared formatter (None: not enough data)."""
    return None if low is None or high is None else Interval(low, high)


def _bar_fields(comparison: Comparison) -> tuple[float, str]:
    """The bar's position (0 at H0's bound, ``BAR_STEPS`` at H1's) and its caption."""
    sprt, llr = comparison.sprt, comparison.llr
    share = (llr - sprt.lower_bound) / (sprt.upper_bound - sprt.lower_bound)
    mean = comparison.summary()["mean_difference"] if comparison.sets else None
    caption = (f"LLR {llr:+.2f} of [{sprt.lower_bound:.2f}, {sprt.upper_bound:.2f}]  "
               f"sets {comparison.sets}/{comparison.max_sets}  "
               f"mean {'–' if mean is None else signed(mean)}")
    return min(1.0, max(0.0, share)) * BAR_STEPS, caption


@contextmanager
def live_bar(comparison: Comparison, show: bool) -> Iterator[Progress | None]:
    """A bar of the LLR between H0's bound (left) and H1's (right) on stderr, on a terminal."""
    console = Console(stderr=True)
    if not show or not console.is_terminal:
        yield None
        return
    progress = Progress(TextColumn("H0"), BarColumn(bar_width=40), TextColumn("H1"),
                        TextColumn("{task.description}"), console=console, transient=True)
    with progress:
        yield progress


def _update(progress: Progress | None, task: TaskID | None, comparison: Comparison) -> None:
    """Move the bar to the comparison's LLR."""
    if progress is None or task is None:
        return
    completed, caption = _bar_fields(comparison)
    progress.update(task, completed=completed, description=caption)


def verdict(comparison: Comparison) -> str:
    """The decision in words."""
    a, b = comparison.a.label, comparison.b.label
    single = comparison.single
    why = ("neither bound was reached" if comparison.sets >= MIN_SETS
           else f"the test decides only from {MIN_SETS} sets on")
    if comparison.interrupted:
        return (f"inconclusive: interrupted (Ctrl-C) after {comparison.sets} sets "
                f"(--max-sets {comparison.max_sets}): {why}")
    if comparison.decision is Decision.INCONCLUSIVE:
        return (f"inconclusive after {comparison.sets} sets (--max-sets {comparison.max_sets}): "
                f"{why}")
    if single is None:
        chosen, other = (("--delta1", "--delta0") if comparison.decision is Decision.H1
                         else ("--delta0", "--delta1"))
        means = f"each game's {chosen} rather than its {other}"
    else:
        pair = (single.delta1, single.delta0)
        chosen_value, other_value = pair if comparison.decision is Decision.H1 else pair[::-1]
        means = (f"a mean difference of {chosen_value:g} {single.game.id} return per deal "
                 f"rather than {other_value:g}")
    if comparison.decision is Decision.H1:
        return f"H1 accepted: {a} is better than {b} ({means})"
    margin = f"by {single.delta1:g}" if single else "by the margin"
    return f"H0 accepted: {a} is not better than {b} {margin} ({means})"


def report_lines(comparison: Comparison) -> list[str]:
    """The closing lines: decision, sets, LLR, mean with its interval, win rate, faults."""
    summary = comparison.summary()
    share, interval = comparison.win_rate()
    single = comparison.single
    unit = (f"{single.game.id} return per deal" if single
            else "each game's margin (0 at --delta0, 1 at --delta1)")
    lines = [verdict(comparison),
             f"sets {comparison.sets}, LLR {summary['llr']:+.3f} (bounds "
             f"{summary['lower_bound']:+.3f}, {summary['upper_bound']:+.3f})"]
    if summary["mean_difference"] is None:
        lines.append("mean difference: no set counted")
    else:
        mean = estimate(summary["mean_difference"],
                        _interval(summary["ci_low"], summary["ci_high"]))
        lines.append(f"mean difference {mean} in {unit}, 95% interval")
    if comparison.sets:
        lines.append(f"win rate of {comparison.a.label} over the sets "
                     f"{rate(share, None if interval is None else Interval(*interval))}, "
                     "ties half, 95% interval")
    if comparison.void:
        lines.append(f"{comparison.void} void sets (VOID_INFRA) left out of the test")
    scored = ("scored as losses: the worst return the game allows"
              if comparison.policy is ForfeitPolicy.LOSS
              else "their returns, as the random substitute finished them, stand")
    for bot, count in zip((comparison.a, comparison.b), comparison.forfeits, strict=True):
        if count:
            lines.append(f"{bot.label} forfeited {count} deals ({scored})")
    return lines


def games_table(comparison: Comparison) -> Table:
    """Each game's margins, sets and mean difference with its interval."""
    table = Table(title="By game", title_justify="left")
    for name in ("game", "delta0", "delta1", "sets", "void", "mean difference (95% interval)"):
        table.add_column(name, justify="left" if name == "game" else "right")
    for tally in comparison.tallies.values():
        data = tally.to_dict()
        mean = (estimate(data["mean_difference"], _interval(data["ci_low"], data["ci_high"]))
                if data["sets"] else "–")
        table.add_row(tally.game, f"{tally.delta0:g}", f"{tally.delta1:g}", str(data["sets"]),
                      str(tally.void), mean)
    return table


def compare_command(
    bot_a: Annotated[str, typer.Argument(
        metavar="A", help="A bot folder, image:NAME, or a policy (random, heuristic).")],
    bot_b: Annotated[str, typer.Argument(metavar="B", help="The bot A is measured against.")],
    game: Annotated[list[str] | None, typer.Option(
        "--game", metavar="ID", help="A game to play; repeat for more.")] = None,
    games: Annotated[str | None, typer.Option(
        "--games", metavar="all", help="all: every game both bots play.")] = None,
    delta0: Annotated[float, typer.Option(
        "--delta0", help="H0's mean difference per deal, in the game's return units.")] = 0.0,
    delta1: Annotated[float | None, typer.Option(
        "--delta1", help="H1's mean difference per deal, in the game's return units "
                         "(default: each game's own, see docs/compare.md).")] = None,
    alpha: Annotated[float, typer.Option(
        "--alpha", help="The chance of accepting H1 when H0 holds.")] = DEFAULT_ALPHA,
    beta: Annotated[float, typer.Option(
        "--beta", help="The chance of accepting H0 when H1 holds.")] = DEFAULT_BETA,
    max_sets: Annotated[int, typer.Option(
        "--max-sets", min=1, help="Duplicate sets at most, then inconclusive.")
    ] = DEFAULT_MAX_SETS,
    seed: Annotated[int | None, seed_option(
        help="Derive the deals from this seed (reproducible); default: a random secret.")
    ] = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print the result as one JSON object instead.")] = False,
    decision_ms: DecisionMsOption = DEFAULT_DECISION_MS,
    bank_ms: BankMsOption = DEFAULT_BANK_MS,
    startup_ms: StartupMsOption = DEFAULT_STARTUP_MS,
    strikes: StrikesOption = DEFAULT_STRIKES,
    forfeits: ForfeitPolicyOption = DEFAULT_POLICY.value,
    sandbox: Annotated[str, typer.Option(
        "--sandbox", metavar="KIND",
        help="How bot folders run: process or docker.")] = PROCESS,
    allow_unenforced: Annotated[list[str] | None, typer.Option(
        "--allow-unenforced", metavar="LIMIT[,LIMIT]",
        help="Run Docker bots even though the engine does not enforce these limits.")
    ] = None,
) -> None:
    """Test whether bot A is better than bot B: duplicate sets until a sequential
    probability ratio test accepts H0 (mean difference --delta0) or H1 (--delta1).

    The seats rotate as in a league. A live bar shows the log-likelihood ratio between its
    bounds; the end gives the decision, the sets played, the mean difference per deal with
    its 95% interval and A's win rate over the sets. Ctrl-C stops it after the set being
    played and gives the result so far (exit code 130).
    """
    if games is not None and games.strip() != "all":
        raise typer.BadParameter(f"expected all, got {games!r}; name single games with --game",
                                 param_hint="--games")
    named = (game or []) + (["all"] if games is not None else [])
    check_sandbox(sandbox)
    allowed = parse_allowed(allow_unenforced or [])
    try:
        policy = forfeit_policy(forfeits)
    except ValueError as error:
        raise CompareUsage(str(error)) from None
    try:
        with show_builds():
            a = contender(bot_a, sandbox, allowed)
            b = contender(bot_b, sandbox, allowed)
        chosen = compare_games(named or ["all"], a, b)
        comparison = Comparison(a, b, game_tests(chosen, delta0, delta1), alpha, beta,
                                max_sets, policy)
    except CompareError as error:
        raise CompareUsage(str(error)) from None
    err = safe_console(stderr=True, soft_wrap=True)
    if comparison.same_bot:
        err.print(f"note: A and B are the same bot ({safe_text(a.identity)}): the test "
                  "measures the arena's noise and should accept H0", highlight=False)
    control = TimeControl(decision_ms=decision_ms, bank_ms=bank_ms, startup_ms=startup_ms)
    with live_bar(comparison, not as_json) as progress:
        task = None if progress is None else progress.add_task("", total=BAR_STEPS)
        _update(progress, task, comparison)
        notes = err if progress is None else progress.console
        with ctrl_c_noted(lambda: notes.print(STOPPING_NOTE, highlight=False),
                          again_raises=True) as stop:
            try:
                run_comparison(comparison, seed=seed, time_control=control, strikes=strikes,
                               on_set=lambda state: _update(progress, task, state),
                               stop=stop.is_set)
            except KeyboardInterrupt:
                comparison.interrupted = not comparison.finished
    print_result(comparison, as_json)
    if comparison.interrupted:
        raise typer.Exit(INTERRUPTED_EXIT)


def print_result(comparison: Comparison, as_json: bool) -> None:
    """The result on stdout: one JSON object, or the games table and the closing lines."""
    if as_json:
        typer.echo(json.dumps(comparison.summary()))
        return
    a, b = comparison.a, comparison.b
    console = safe_console(soft_wrap=True)
    if not console.is_terminal:
        console.width = max(console.width, PIPE_WIDTH)
    console.print(Text(f"A {safe_text(a.label)} against B {safe_text(b.label)}", style="bold"))
    if comparison.single is None:
        console.print(games_table(comparison))
    for line in report_lines(comparison):
        console.print(Text(safe_text(line)))
