"""``arena bench ...``: benchmarks that print figures against a baseline measured in the same
run; one module here per benchmark renders its report (the measuring is in ``arena.bench``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.errors import CliError
from arena.cli.options import ALLOW_UNENFORCED_OPTION, seed_option
from arena.cli.seats import parse_allowed

bench_app = typer.Typer(
    help="Benchmarks that print figures against a baseline measured in the same run.",
    no_args_is_help=True,
)


@bench_app.command("engine")
def bench_engine(
    game: Annotated[str | None, typer.Option(
        "--game", metavar="ID", help="One game id (default: every game).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
    seconds: Annotated[float, typer.Option(
        "--seconds", help="Time per measurement.")] = 0.5,
    repeats: Annotated[int, typer.Option(
        "--repeats", help="Measurements per figure.")] = 5,
    bridges: Annotated[bool, typer.Option(
        "--bridges", help="The engine alone against the PettingZoo and OpenSpiel bridges "
        "(default: each game at its default seat count).")] = False,
) -> None:
    """Measure the rules engine's decisions per second against a baseline."""
    try:
        from arena.cli.bench.engine import bench_engine_command
    except ModuleNotFoundError as error:
        if error.name and error.name.startswith("arena"):
            raise CliError("arena bench engine is not part of this installation "
                           f"(no module {error.name})") from None
        raise CliError(f"arena bench engine needs the module {error.name!r}: "
                       "pip install -e '.[bench]'") from None
    bench_engine_command(game, as_json, seconds, repeats, bridges)


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
    from arena.bench.protocol import DEFAULT_CONCURRENCY, SAMPLE_RANDOM
    from arena.cli.bench.protocol import bench_protocol_command

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
    from arena.bench.mc import SAMPLE_MC
    from arena.cli.bench.mc import bench_mc_command

    bench_mc_command(deals, bot or SAMPLE_MC, as_json)


@bench_app.command("search")
def bench_search(
    game: Annotated[str | None, typer.Option(
        "--game", metavar="ID", help="One game id (default: every game).")] = None,
    positions: Annotated[int, typer.Option(
        "--positions", min=1, help="Positions searched per game.")] = 5,
    seconds: Annotated[float, typer.Option(
        "--seconds", min=0.001, help="CPU time of each search.")] = 0.2,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Measure the SDK's ISMCTS iterations per second against OpenSpiel's ISMCTS."""
    from arena.cli.bench.search import bench_search_command

    bench_search_command(game, positions, seconds, as_json)


@bench_app.command("rollouts")
def bench_rollouts(
    game: Annotated[str | None, typer.Option(
        "--game", metavar="ID", help="One game id (default: every game with a heuristic).")] = None,
    deals: Annotated[int, typer.Option(
        "--deals", min=2, help="Paired deals per game.")] = 20,
    budget_ms: Annotated[int, typer.Option(
        "--budget-ms", min=1, help="CPU time of each decision's search.")] = 100,
    seed: Annotated[int, seed_option(help="The seed the deals derive from.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Measure ISMCTS with random against heuristic playouts, each against the heuristic."""
    from arena.cli.bench.rollouts import bench_rollouts_command

    bench_rollouts_command(game, deals, budget_ms, seed, as_json)


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
    seed: Annotated[int, seed_option(help="The seed the deals derive from.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Measure what duplicate buys: the deals needed to separate a pair, plain and duplicate.

    Heuristic against random and mc against heuristic in every game: the variance of the
    per-deal difference with one seating and with the seats rotated, and the deals each needs
    for a 95% interval that excludes 0 (goal: duplicate at most half).
    """
    from arena.cli.bench.evaluation import bench_evaluation_command

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
    from arena.cli.bench.languages import bench_languages_command

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
    from arena.cli.bench.sandbox import bench_sandbox_command

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
    docker: Annotated[bool, typer.Option(
        "--docker", help="Play the schedule with the bots' Docker images and with their "
                         "folders as processes, in turn, and compare matches per hour.")] = False,
) -> None:
    """Measure a league of process bots against the concurrent gRPC ceiling, and Celery's cost;
    with --docker, the same league with Docker bots against process bots."""
    from arena.cli.bench.league import bench_docker_league_command, bench_league_command

    if docker:
        bench_docker_league_command(matches, workers, as_json, rounds)
        return
    bench_league_command(matches, workers, broker, seconds, as_json, rounds)
