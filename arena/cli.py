"""The ``arena`` command line: the games, matches (policies and bots), replays and benchmarks."""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text
from typer.core import TyperCommand, TyperGroup

from arena import __version__
from arena.agents import BotConfigError, PolicySeat, SeatSpec
from arena.agents.seats import pin_to_cores
from arena.botkit import LANGUAGES, ScaffoldError, check_bot, missing_toolchain, scaffold_bot
from arena.botkit.sources import IMAGE_PREFIX, PROCESS, bot_seat, check_sandbox, parse_allowed
from arena.cli_options import BankMsOption, DecisionMsOption, StartupMsOption, StrikesOption
from arena.engine_cli import engine_app
from arena.games import GameError, GameSpec, Param, game_ids, get_spec, load_game
from arena.games.rng import MAX_SEED
from arena.league.cli import leaderboard_command, league_app, report_command
from arena.league.compare_cli import compare_command
from arena.match import DEFAULT_POLICY, MatchError, replay
from arena.match.faults import DEFAULT_STRIKES
from arena.match.render import output_tail, render_duplicate, render_match
from arena.match.results import DealResult, read_records
from arena.match.runner import run_duplicate
from arena.match.safeconsole import safe_console
from arena.match.safetext import dumps, safe_logging, safe_text
from arena.match.timecontrol import (
    DEFAULT_BANK_MS,
    DEFAULT_DECISION_MS,
    DEFAULT_STARTUP_MS,
    TimeControl,
)
from arena.policies import policy_names
from arena.sandbox.errors import BuildError, SandboxError
from arena.server.api.cli import remote_app, serve_command

USAGE_ERROR = 2
"""The exit code of bad input."""

SEAT_FAULT = 1
"""The exit code of a match played to its end in which a seat did not end OK (or a void one)."""

PIPE_WIDTH = 120
"""The width of tables written to a pipe or file rather than a terminal."""


class CliError(typer.TyperException):
    """Bad input found by the command line itself."""

    exit_code = USAGE_ERROR


def error_line(message: str) -> str:
    """The one line that reports bad input (what it quotes of a bot shown escaped)."""
    return "error: " + safe_text(" ".join(message.split()))


class ArenaGroup(TyperGroup):
    """The command group, reporting bad input as one ``error:`` line and exit code 2."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        """Run a command; turn usage, engine and record errors into one line on stderr (and
        an unexpected error into its traceback, made safe to print)."""
        safe_logging()
        try:
            result = super().main(args, prog_name, complete_var, False, windows_expand_args,
                                  **extra)
            code = result if isinstance(result, int) else 0
        except typer.TyperException as error:
            message = error.format_message()
            # A bare group raises NoArgsIsHelpError after rich has already shown its help.
            if type(error).__name__ != "NoArgsIsHelpError":
                typer.echo(error_line(message), err=True)
            elif message.strip():
                typer.echo(message)
            code = USAGE_ERROR
        except (GameError, MatchError, BotConfigError) as error:
            typer.echo(error_line(str(error)), err=True)
            code = USAGE_ERROR
        except SandboxError as error:
            code = report_sandbox_error(error)
        except typer.Abort:
            typer.echo(error_line("aborted"), err=True)
            code = 1
        except Exception:  # a fault of the arena: its traceback, what it quotes escaped
            typer.echo(safe_text(traceback.format_exc(), multiline=True), err=True, nl=False)
            code = 1
        if standalone_mode:
            sys.exit(code)
        return code


BUILD_LOG_LINES = 30
"""Lines of a failed build's log shown under its error line."""


def report_sandbox_error(error: SandboxError) -> int:
    """Print a sandbox error as one red line (a failed build: then its log's last lines); the
    exit code: 1 for a failed build, 2 when Docker, the image or a limit is missing."""
    console = safe_console(stderr=True, soft_wrap=True)
    console.print(Text("error: ", style="red").append(safe_text(" ".join(str(error).split()))))
    if not isinstance(error, BuildError):
        return USAGE_ERROR
    lines = error.log.rstrip().splitlines()[-BUILD_LOG_LINES:]
    for line in lines:
        console.print(Text("  " + safe_text(line), style="dim"))
    return SEAT_FAULT


app = typer.Typer(
    cls=ArenaGroup,
    name="arena",
    help="Card Arena: traditional card games for bots.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)
bench_app = typer.Typer(
    help="Benchmarks that print figures against a baseline measured in the same run.",
    no_args_is_help=True,
)
app.add_typer(bench_app, name="bench")
bot_app = typer.Typer(
    help="Write bots: a new bot folder from a template, a conformance check, a Docker image.",
    no_args_is_help=True,
)
app.add_typer(bot_app, name="bot")
images_app = typer.Typer(
    help="Docker images for bots: the offline base image.",
    no_args_is_help=True,
)
app.add_typer(images_app, name="images")
sandbox_app = typer.Typer(
    help="The Docker sandbox of untrusted bots: check its promises on this machine, clean up "
         "what a stopped arena left behind.",
    no_args_is_help=True,
)
app.add_typer(sandbox_app, name="sandbox")
app.add_typer(league_app, name="league")
app.command("leaderboard")(leaderboard_command)
app.command("report")(report_command)
app.command("compare")(compare_command)
app.add_typer(remote_app, name="remote")
app.add_typer(engine_app, name="engine")
app.command("serve")(serve_command)


@app.command("worker", add_help_option=False,
             context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def worker(ctx: typer.Context) -> None:
    """Run league matches sent through a broker on this host (--help for the options)."""
    try:
        from arena.league.worker import main as worker_main
    except ImportError as error:
        raise typer.BadParameter(f"the worker needs Celery: pip install 'card-arena[celery]' "
                                 f"({error})") from None
    worker_main(list(ctx.args), prog_name="arena worker")


def _show_version(value: bool) -> None:
    """Print the package version and stop."""
    if value:
        typer.echo(f"arena {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[bool, typer.Option("--version", callback=_show_version, is_eager=True,
                                          help="Show the version and exit.")] = False,
) -> None:
    """Card Arena: traditional card games for bots."""


# --- arena games ------------------------------------------------------------------------------


def param_info(param: Param) -> dict[str, Any]:
    """A parameter as a JSON-ready object."""
    return {
        "name": param.name,
        "kind": param.kind,
        "default": param.default,
        "valid": param.describe(),
        "choices": list(param.choices),
        "minimum": param.minimum,
        "maximum": param.maximum,
        "help": param.help,
    }


def game_info(spec: GameSpec) -> dict[str, Any]:
    """A game id as a JSON-ready object."""
    return {
        "id": spec.id,
        "title": spec.title,
        "seats": list(spec.seats),
        "default_seats": spec.default_seats,
        "section": spec.section,
        "summary": spec.summary,
        "rules_version": spec.rules_version,
        "origin": spec.origin,
        "params": [param_info(param) for param in spec.params],
    }


def games_table(specs: Sequence[GameSpec]) -> Table:
    """Every game id with its title, seats, rules section, summary and parameters."""
    table = Table(title="Games", title_justify="left", show_lines=True)
    table.add_column("game", max_width=32)
    table.add_column("summary, parameters: name=default (valid values)")
    for spec in specs:
        game = Text(spec.id, style="bold")
        seats = ", ".join(map(str, spec.seats[1:]))
        source = f"RULES.md §{spec.section}" if spec.origin == "arena" else f"from {spec.origin}"
        game.append(f"\n{spec.title}\nseats {spec.seats[0]} (default){', ' if seats else ''}"
                    f"{seats}\n{source}")
        lines = [spec.summary] if spec.summary else []
        lines.extend(f"{p.name}={_text(p.default)} ({p.describe()})" for p in spec.params)
        table.add_row(game, "\n".join(lines))
    return table


def _text(value: object) -> str:
    """A parameter value as typed on the command line."""
    return str(value).lower() if isinstance(value, bool) else str(value)


@app.command()
def games(
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list instead.")] = False,
) -> None:
    """List every game id with its seats, rules section, summary and parameters."""
    specs = [get_spec(game_id) for game_id in game_ids()]
    if as_json:
        typer.echo(json.dumps([game_info(spec) for spec in specs], indent=2, ensure_ascii=False))
        return
    console = safe_console()
    if not console.is_terminal:
        console.width = max(console.width, PIPE_WIDTH)
    console.print(games_table(specs))


# --- arena play / replay ----------------------------------------------------------------------


def parse_params(items: Sequence[str]) -> dict[str, str]:
    """``key=value`` texts as a dict (the game validates names and values)."""
    params: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise CliError(f"malformed --param {item!r}: expected key=value, "
                           "such as --param hands=3")
        if key in params:
            raise CliError(f"--param {key} is given twice")
        params[key] = value.strip()
    return params


SEAT_ORDER = "seat_order"
"""Where the play command notes the order of --bot and --policy on its command line."""

SEAT_OPTIONS = {"--bot": "bot", "--policy": "policy"}


def seat_option_order(args: Sequence[str]) -> list[str]:
    """``bot`` / ``policy`` for each --bot and --policy option, in command-line order."""
    order = []
    for arg in args:
        if arg == "--":
            break
        name = arg.split("=", 1)[0]
        if name in SEAT_OPTIONS:
            order.append(SEAT_OPTIONS[name])
    return order


class PlayCommand(TyperCommand):
    """The play command: remembers the order of its --bot and --policy options."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Note the order of the seat options, then parse as usual."""
        ctx.meta[SEAT_ORDER] = seat_option_order(args)
        return super().parse_args(ctx, args)


def seat_specs(order: Sequence[str], bots: Sequence[str], policies: Sequence[str],
               num_seats: int, sandbox: str = PROCESS,
               allow_unenforced: frozenset[str] = frozenset()) -> list[SeatSpec]:
    """The players in command-line order, repeated cyclically over the seats."""
    if order.count("bot") != len(bots) or order.count("policy") != len(policies):
        order = ["bot"] * len(bots) + ["policy"] * len(policies)
    check_sandbox(sandbox)
    bot_specs = iter([bot_seat(ref, sandbox, allow_unenforced) for ref in bots])
    policy_specs = iter(PolicySeat(name) for name in policies)
    chosen: list[SeatSpec] = [next(bot_specs) if kind == "bot" else next(policy_specs)
                              for kind in order] or [PolicySeat(DEFAULT_POLICY)]
    if len(chosen) > num_seats:
        what = "players (--bot and --policy)" if bots else "policies"
        raise MatchError(f"{len(chosen)} {what} given for {num_seats} seats; give at most "
                         f"{num_seats} (they repeat cyclically over the seats)")
    return [chosen[seat % len(chosen)] for seat in range(num_seats)]


SANDBOX_OPTION = typer.Option(
    "--sandbox", metavar="KIND",
    help="How bot folders run: process (a local process) or docker (built into an image, "
         "run in a hardened container).")
ALLOW_UNENFORCED_OPTION = typer.Option(
    "--allow-unenforced", metavar="LIMIT[,LIMIT]",
    help="Run Docker bots even though the engine does not enforce these limits (trusted bots "
         "only); repeatable.")


@app.command(cls=PlayCommand)
def play(
    ctx: typer.Context,
    game_id: Annotated[str, typer.Argument(metavar="GAME",
                                           help="A game id (see `arena games`).")],
    players: Annotated[int | None, typer.Option(
        "--players", "-n", help="Seat count (default: the game's first).")] = None,
    param: Annotated[list[str] | None, typer.Option(
        "--param", "-p", metavar="KEY=VALUE", help="A game parameter; repeat for more.")] = None,
    seed: Annotated[int, typer.Option(
        "--seed", "-s", min=0, max=MAX_SEED, help="The match seed.")] = 1,
    bot: Annotated[list[str] | None, typer.Option(
        "--bot", metavar="PATH|image:NAME",
        help="A bot for the next seat: a folder (with bot.toml), run as --sandbox says, or "
             "image:NAME, a bot image run in a hardened container.")
    ] = None,
    policy: Annotated[list[str] | None, typer.Option(
        "--policy", metavar="NAME",
        help=f"A reference policy for the next seat ({' or '.join(policy_names())}). "
             "--bot and --policy fill the seats in the order given, repeated cyclically; "
             "the default is heuristic for every seat.")] = None,
    decision_ms: DecisionMsOption = DEFAULT_DECISION_MS,
    bank_ms: BankMsOption = DEFAULT_BANK_MS,
    strikes: StrikesOption = DEFAULT_STRIKES,
    startup_ms: StartupMsOption = DEFAULT_STARTUP_MS,
    duplicate: Annotated[bool, typer.Option(
        "--duplicate", help="Play the deal once per seat, the players rotated one seat each "
                            "time, and pair their results.")] = False,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print the match record (with --duplicate: the set) as JSON instead.")
    ] = False,
    save: Annotated[Path | None, typer.Option(
        "--save", metavar="FILE", dir_okay=False,
        help="Write the match record (with --duplicate: the set) to FILE.")] = None,
    sandbox: Annotated[str, SANDBOX_OPTION] = PROCESS,
    allow_unenforced: Annotated[list[str] | None, ALLOW_UNENFORCED_OPTION] = None,
) -> None:
    """Play a match between bots and reference policies and show it hand by hand.

    A bot that starts but fails (exits, never listens, answers MatchStart wrongly) forfeits
    with INIT_ERROR and the match is played out; a line on stderr names it, and the exit code
    is 1 whenever a seat did not end OK. A bot path that is not a bot folder is bad input.
    """
    game = load_game(game_id, players, parse_params(param or []))
    order = ctx.meta.get(SEAT_ORDER, [])
    specs = pin_to_cores(seat_specs(order, bot or [], policy or [], game.num_players, sandbox,
                                    parse_allowed(allow_unenforced or [])))
    control = TimeControl(decision_ms=decision_ms, bank_ms=bank_ms, startup_ms=startup_ms)
    result = run_duplicate(game, seed, specs, control, strikes=strikes,
                           rotations=None if duplicate else 1)
    record = result.deals[0].record
    if save is not None:
        if duplicate:
            result.save(save)
        elif record is not None:
            record.save(save)
    problems = [f"deal {number}: {line}" if duplicate else line
                for number, deal in enumerate(result.deals, 1) for line in deal.problems()]
    tails = [line for deal in result.deals for line in failed_output(deal)]
    if as_json:
        text = result.to_json() if duplicate else record.to_json() if record else ""
        typer.echo(text, nl=False)
    else:
        console = safe_console()
        if duplicate:
            render_duplicate(result, console)
        elif record is not None:
            render_match(record, console)
        if save is not None:
            console.print(f"record saved to {save}", soft_wrap=True)
    for line in problems:
        typer.echo(safe_text(" ".join(line.split())), err=True)
    for line in tails:
        typer.echo(line, err=True)
    if problems:
        raise typer.Exit(SEAT_FAULT)


def failed_output(deal: DealResult) -> list[str]:
    """For each seat of a deal whose bot did not start or crashed, the last lines of its
    output (what it printed before it died, a SyntaxError say), escaped; none when its fault's
    detail already quotes them (a container's log excerpt)."""
    record = deal.record
    if record is None or record.conduct is None:
        return []
    lines = []
    for seat, report in enumerate(record.conduct.seats):
        if report.reason in ("INIT_ERROR", "CRASH"):
            tail = output_tail(report.stderr)
            if tail and not all(line in report.detail for line in tail):
                lines.append(f"seat {seat} {safe_text(deal.labels[seat])}: its last output:")
                lines += [f"  {line}" for line in tail]
    return lines


@app.command("replay")
def replay_command(
    file: Annotated[Path, typer.Argument(metavar="FILE",
                                         help="A match record saved by `arena play --save`.")],
) -> None:
    """Re-simulate a saved match (or each deal of a set), check its returns, and show it."""
    records = read_records(file)
    for record in records:
        replay(record)
    console = safe_console()
    for number, record in enumerate(records, 1):
        if len(records) > 1:
            console.print(Text(f"Deal {number} of {len(records)}", style="bold"))
        render_match(record, console)
        console.print(f"replay verified: {len(record.actions)} actions, the returns match the "
                      "record", soft_wrap=True)
        if number < len(records):
            console.print()


# --- arena bench ------------------------------------------------------------------------------


@bench_app.command("engine")
def bench_engine(
    game: Annotated[str | None, typer.Option(
        "--game", metavar="ID", help="One game id (default: every game).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
    seconds: Annotated[float, typer.Option(
        "--seconds", help="Time per measurement.")] = 0.5,
    repeats: Annotated[int, typer.Option(
        "--repeats", help="Measurements per figure.")] = 5,
) -> None:
    """Measure the rules engine's decisions per second against a baseline."""
    try:
        from arena.bench.engine import bench_engine_command
    except ModuleNotFoundError as error:
        if error.name and error.name.startswith("arena"):
            raise CliError("arena bench engine is not part of this installation "
                           f"(no module {error.name})") from None
        raise CliError(f"arena bench engine needs the module {error.name!r}: "
                       "pip install -e '.[bench]'") from None
    bench_engine_command(game, as_json, seconds, repeats)


@bench_app.command("protocol")
def bench_protocol(
    game: Annotated[str, typer.Option("--game", metavar="ID", help="The game.")] = "briscola",
    players: Annotated[int | None, typer.Option(
        "--players", help="Seats (default: the game's default).")] = None,
    bot: Annotated[Path | None, typer.Option(
        "--bot", metavar="PATH",
        help="The bot folder (default: the random sample bot).")] = None,
    rounds: Annotated[int, typer.Option(
        "--rounds", help="Interleaved rounds of round trips (a duplicate set each).")] = 10,
    matches: Annotated[list[int] | None, typer.Option(
        "--matches", metavar="N",
        help="Matches at once for decisions/s; repeat for several (default: 1 and 8).")] = None,
    seconds: Annotated[float, typer.Option(
        "--seconds", help="Time per decisions/s measurement.")] = 3.0,
    clock_matches: Annotated[int, typer.Option(
        "--clock-matches", metavar="N",
        help="Matches at once for the charged time under load (0: skip it).")] = 16,
    clock_game: Annotated[str, typer.Option(
        "--clock-game", metavar="ID",
        help="The game of the charged-time measurement under load.")] = "briscola-chiamata",
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Measure a decision's round trip to a bot process against raw gRPC, decisions/s, and the
    time the clock charges a bot, alone and under load."""
    from arena.bench.protocol import DEFAULT_CONCURRENCY, SAMPLE_RANDOM, bench_protocol_command

    bench_protocol_command(game, players, bot or SAMPLE_RANDOM, rounds,
                           tuple(matches or DEFAULT_CONCURRENCY), seconds, as_json,
                           clock_matches, clock_game)


@bench_app.command("mc")
def bench_mc(
    deals: Annotated[int, typer.Option(
        "--deals", help="Duplicate deals (each in both seat orders).")] = 30,
    bot: Annotated[Path | None, typer.Option(
        "--bot", metavar="PATH", help="The bot folder (default: the mc sample bot).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Play the mc sample bot against the heuristic policy at 2-seat briscola, in duplicate."""
    from arena.bench.mc import SAMPLE_MC, bench_mc_command

    bench_mc_command(deals, bot or SAMPLE_MC, as_json)


@bench_app.command("evaluation")
def bench_evaluation(
    game: Annotated[str | None, typer.Option(
        "--game", metavar="ID", help="One game id (default: every game).")] = None,
    deals: Annotated[int, typer.Option(
        "--deals", min=2, help="Deals per game of heuristic against random.")] = 200,
    mc_deals: Annotated[int, typer.Option(
        "--mc-deals", min=0, help="Deals per game of mc against heuristic (0: skip mc).")] = 30,
    mc_budget_ms: Annotated[int, typer.Option(
        "--mc-budget-ms", min=1, help="mc's time per decision, in milliseconds.")] = 10,
    seed: Annotated[int, typer.Option(
        "--seed", min=0, max=MAX_SEED, help="The seed the deals derive from.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Measure what duplicate buys: the deals needed to separate a pair, plain and duplicate.

    Heuristic against random and mc against heuristic in every game: the variance of the
    per-deal difference with one seating and with the seats rotated, and the deals each needs
    for a 95% interval that excludes 0 (goal: duplicate at most half).
    """
    from arena.bench.evaluation import bench_evaluation_command

    bench_evaluation_command(game, deals, mc_deals, mc_budget_ms, seed, as_json)


@bench_app.command("languages")
def bench_languages(
    bot: Annotated[list[Path] | None, typer.Option(
        "--bot", metavar="PATH",
        help="A bot folder; repeat for more, the first is the reference "
             "(default: the portable heuristic's sample bots in every language).")] = None,
    deals: Annotated[int, typer.Option(
        "--deals", min=1, help="Duplicate deals per game (each in both seat orders).")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Compare one strategy's decision times across languages (the same heuristic, ported)."""
    from arena.bench.languages import bench_languages_command

    bench_languages_command(bot, deals, as_json)


@bench_app.command("sandbox")
def bench_sandbox(
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
    starts: Annotated[int, typer.Option(
        "--starts", metavar="N", help="Containers started for the cold-start figure.")] = 5,
    decisions: Annotated[int, typer.Option(
        "--decisions", metavar="N",
        help="Round trips of each backend, at least (whole duplicate sets).")] = 800,
    allow_unenforced: Annotated[list[str] | None, ALLOW_UNENFORCED_OPTION] = None,
) -> None:
    """Measure a Docker bot's cold start, and its round trip against the same bot as a process.

    The random sample bot, built into its image: the time from creating a container to the
    first decision received (p50 over --starts), and a decision's round trip in a container
    and as a local process, in alternate duplicate sets of 2-seat briscola.
    """
    from arena.bench.sandbox import bench_sandbox_command

    bench_sandbox_command(starts, decisions, as_json, parse_allowed(allow_unenforced or []))


@bench_app.command("league")
def bench_league(
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
    matches: Annotated[int, typer.Option(
        "--matches", metavar="N", help="Duplicate sets in each league.")] = 20,
    workers: Annotated[int, typer.Option("--workers", help="Worker processes.")] = 2,
    broker: Annotated[str | None, typer.Option(
        "--broker", metavar="URL", help="Celery's broker (default: a private redis-server).")
    ] = None,
    seconds: Annotated[float, typer.Option(
        "--seconds", help="Time of the ceiling measurement.")] = 3.0,
    rounds: Annotated[int, typer.Option(
        "--rounds", help="Rounds of ceiling, local and Celery leagues; medians are shown.")] = 3,
) -> None:
    """Measure a league of process bots against the concurrent gRPC ceiling, and Celery's cost."""
    from arena.bench.league import bench_league_command

    bench_league_command(matches, workers, broker, seconds, as_json, rounds)


# --- arena bot --------------------------------------------------------------------------------


@bot_app.command("new")
def bot_new(
    name: Annotated[str, typer.Argument(metavar="NAME",
                                        help="The bot's name, also its folder's name.")],
    lang: Annotated[str, typer.Option(
        "--lang", metavar="LANGUAGE", help=f"The bot's language ({', '.join(LANGUAGES)}).")
    ] = "python",
    directory: Annotated[Path | None, typer.Option(
        "--dir", metavar="PATH", file_okay=False,
        help="Where to create the folder NAME (default: the current folder).")] = None,
) -> None:
    """Create a bot folder NAME/ that plays every game with legal moves.

    It holds bot.toml, the bot's sources, a Dockerfile and a README (a compiled language adds
    build.sh and a copy of agent.proto); an existing non-empty folder is never overwritten.
    """
    try:
        folder = scaffold_bot(name, lang, directory)
    except ScaffoldError as error:
        raise CliError(str(error)) from None
    files = ", ".join(sorted(item.name for item in folder.iterdir()))
    typer.echo(f"created {folder}: {files}")
    for warning in missing_toolchain(lang):
        typer.echo(f"warning: {warning}", err=True)
    typer.echo(f"next: arena bot check {folder}")


@bot_app.command("check")
def bot_check(
    path: Annotated[str, typer.Argument(
        metavar="PATH|image:NAME",
        help="A bot folder (with bot.toml), or image:NAME, a bot image run in a container.")],
    game: Annotated[list[str] | None, typer.Option(
        "--game", metavar="ID",
        help="Check this game only; repeat for more (default: every game the bot claims).")
    ] = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print the checks as JSON instead.")] = False,
    decision_ms: Annotated[int, typer.Option(
        "--decision-ms", min=1, help="Time for each decision, in milliseconds.")
    ] = DEFAULT_DECISION_MS,
    bank_ms: Annotated[int, typer.Option(
        "--bank-ms", min=0, help="Time bank per deal, in milliseconds.")] = DEFAULT_BANK_MS,
    startup_ms: Annotated[int, typer.Option(
        "--startup-ms", min=1, help="Time the bot may take to start listening, in milliseconds.")
    ] = DEFAULT_STARTUP_MS,
    seed: Annotated[int, typer.Option(
        "--seed", "-s", min=0, max=MAX_SEED,
        help="The seed the checked deals derive from (each game's deal has one of its own).")
    ] = 1,
    sandbox: Annotated[str, SANDBOX_OPTION] = PROCESS,
    allow_unenforced: Annotated[list[str] | None, ALLOW_UNENFORCED_OPTION] = None,
) -> None:
    """Check a bot: start-up, handshake, legal play, deadlines, clean shutdown.

    One deal of every game the bot claims (or each --game), the bot at seat 0 and the random
    policy elsewhere. One line per check; exit code 0 when all pass, 1 otherwise. A Docker bot
    (image:NAME, or a folder with --sandbox docker) runs in a hardened container; a folder is
    built into its image first.
    """
    check_sandbox(sandbox)
    if not path.startswith(IMAGE_PREFIX) and not Path(path).exists():
        raise CliError(f"bot {path}: no such file or directory")
    allowed = parse_allowed(allow_unenforced or [])
    control = TimeControl(decision_ms=decision_ms, bank_ms=bank_ms, startup_ms=startup_ms)
    emit = None if as_json else (lambda line: typer.echo(line.text()))
    report = check_bot(path, game or [], control, seed, emit=emit, sandbox=sandbox,
                       allow_unenforced=allowed)
    if as_json:
        typer.echo(dumps(report.to_dict(), indent=2))
    else:
        typer.echo(report.summary())
    if not report.passed:
        raise typer.Exit(SEAT_FAULT)


def build_steps(line: str) -> None:
    """Show a build's steps (``Step 2/5 : COPY . /bot``) on stderr as they start."""
    if line.startswith("Step "):
        typer.echo(safe_text(line), err=True)


@bot_app.command("build")
def bot_build(
    path: Annotated[Path, typer.Argument(
        metavar="PATH", help="A bot folder with bot.toml and a Dockerfile.")],
    base: Annotated[str | None, typer.Option(
        "--base", metavar="IMAGE",
        help="The base image (the Dockerfile's ARG BASE; default: the offline Python base).")
    ] = None,
    timeout: Annotated[float | None, typer.Option(
        "--timeout", metavar="S", min=1, help="Stop a build that runs longer, in seconds.")
    ] = None,
) -> None:
    """Build a bot folder's Docker image, tagged cardarena-bot/NAME:VERSION, and print it.

    The build has no network and is cached; a build that fails, runs too long or grows too
    large prints one error line and the end of the build log (exit code 1).
    """
    from arena.sandbox.images import build_bot_image

    options: dict[str, Any] = {"progress": build_steps}
    if base is not None:
        options["base"] = base
    if timeout is not None:
        options["timeout_s"] = timeout
    image = build_bot_image(path, **options)
    typer.echo(f"built {image.ref} {image.image_id}")
    typer.echo(f"next: arena bot check {IMAGE_PREFIX}{image.ref}")


# --- arena images / sandbox -------------------------------------------------------------------


@images_app.command("build-base")
def images_build_base(
    rebuild: Annotated[bool, typer.Option(
        "--rebuild", help="Make the Debian root again (debootstrap) instead of reusing it.")
    ] = False,
) -> None:
    """Build the base image of Python bots offline, from Debian packages and host wheels.

    The image holds Python with card-arena, cardarena-sdk and their dependencies; nothing is
    pulled from a registry. The Debian root is made once and reused; the Python layer is
    built again (quickly, from Docker's cache, when nothing changed).
    """
    from arena.sandbox.images import BASE_IMAGE, build_base

    image_id = build_base(rebuild=rebuild,
                          progress=lambda line: typer.echo(safe_text(line), err=True))
    typer.echo(f"built {BASE_IMAGE} {image_id}")


@sandbox_app.command("gc")
def sandbox_gc(
    everything: Annotated[bool, typer.Option(
        "--all", help="Remove every sandbox container, even those of running arenas.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print what was removed as JSON.")
                       ] = False,
) -> None:
    """Remove the containers and socket folders that stopped arenas left behind.

    Found by their label; a container belongs to a stopped arena when the arena process that
    started it on this host is gone. --all removes every one.
    """
    from arena.sandbox.engine import docker_client
    from arena.sandbox.gc import collect

    docker_client()
    report = collect(everything=everything)
    if as_json:
        typer.echo(dumps(report.to_dict(), indent=2))
    else:
        for line in gc_lines(report.removed, report.socket_dirs, report.kept):
            typer.echo(safe_text(line))
    for error in report.errors:
        typer.echo(error_line(f"cannot remove {error}"), err=True)
    if report.errors:
        raise typer.Exit(SEAT_FAULT)


@sandbox_app.command("audit")
def sandbox_audit(
    as_json: Annotated[bool, typer.Option("--json", help="Print the promises as JSON.")
                       ] = False,
) -> None:
    """Check the sandbox's security promises against this machine's Docker engine.

    One probe container reads back every limit of a bot's container; hostile bots shipped
    with card-arena then try to store data on the host through their socket folder and to
    flood the arena (unasked messages, oversized metadata and status texts, a compression
    bomb, output). Prints one line per promise (PASS or FAIL, and what was measured); exits
    with 1 when one fails.
    """
    from arena.audit import run_audit
    from arena.match.safetext import dumps as safe_dumps
    from arena.sandbox.engine import docker_client

    docker_client()
    show = None if as_json else (lambda promise: typer.echo(promise.line()))
    promises = run_audit(report=show)
    passed = all(promise.passed for promise in promises)
    if as_json:
        typer.echo(safe_dumps({"passed": passed,
                               "promises": [promise.to_dict() for promise in promises]},
                              indent=2))
    if not passed:
        raise typer.Exit(SEAT_FAULT)


def gc_lines(removed: Sequence[str], socket_dirs: Sequence[str],
             kept: Sequence[str]) -> list[str]:
    """What ``arena sandbox gc`` did, in a few lines."""

    def count(items: Sequence[str], what: str) -> str:
        """``1 container`` or ``3 containers``."""
        return f"{len(items)} {what}{'' if len(items) == 1 else 's'}"

    lines = [f"removed {count(removed, 'container')}"
             + (f": {', '.join(removed)}" if removed else ""),
             f"removed {count(socket_dirs, 'socket folder')}"]
    if kept:
        lines.append(f"kept {count(kept, 'container')} of running arenas or other hosts "
                     f"(--all removes them too): {', '.join(kept)}")
    return lines
