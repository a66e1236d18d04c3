"""``arena play`` and ``arena replay``: a match between bots and reference policies, shown hand
by hand, and a saved match re-simulated."""

from __future__ import annotations

import os
import tempfile
import webbrowser
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.text import Text
from typer.core import TyperCommand

from arena.agents import PolicySeat, SeatSpec
from arena.agents.seats import pin_to_cores
from arena.agents.sources import PROCESS, bot_seat, check_sandbox
from arena.cli.building import show_builds
from arena.cli.console import safe_console
from arena.cli.errors import SEAT_FAULT, CliError
from arena.cli.options import (
    ALLOW_UNENFORCED_OPTION,
    SANDBOX_OPTION,
    BankMsOption,
    DecisionMsOption,
    StartupMsOption,
    StrikesOption,
    seed_option,
)
from arena.cli.render import output_tail, render_duplicate, render_match
from arena.cli.seats import parse_allowed
from arena.games import load_game
from arena.match import DEFAULT_POLICY, MatchError, replay
from arena.match.faults import DEFAULT_STRIKES
from arena.match.record import MatchRecord
from arena.match.results import DealResult, read_records
from arena.match.runner import run_duplicate
from arena.match.safetext import safe_text
from arena.match.timecontrol import (
    DEFAULT_BANK_MS,
    DEFAULT_DECISION_MS,
    DEFAULT_STARTUP_MS,
    TimeControl,
)
from arena.policies import policy_names


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



HTML_OPTION = typer.Option(
    "--html", metavar="OUT.html", dir_okay=False,
    help="Write the replay as one self-contained HTML page (no server, no network): the web "
         "replay's frames in the full view and each seat's.")
OPEN_OPTION = typer.Option(
    "--open", help="Open the replay page in the browser (written to a temporary file when "
                   "--html is not given).")


def play_command(
    ctx: typer.Context,
    game_id: Annotated[str, typer.Argument(metavar="GAME",
                                           help="A game id (see `arena games`).")],
    players: Annotated[int | None, typer.Option(
        "--players", "-n", help="Seat count (default: the game's first).")] = None,
    param: Annotated[list[str] | None, typer.Option(
        "--param", "-p", metavar="KEY=VALUE", help="A game parameter; repeat for more.")] = None,
    seed: Annotated[int, seed_option("--seed", "-s", help="The match seed.")] = 1,
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
    html: Annotated[Path | None, HTML_OPTION] = None,
    open_page: Annotated[bool, OPEN_OPTION] = False,
) -> None:
    """Play a match between bots and reference policies and show it hand by hand.

    A bot that starts but fails (exits, never listens, answers MatchStart wrongly) forfeits
    with INIT_ERROR and the match is played out; a line on stderr names it, and the exit code
    is 1 whenever a seat did not end OK. A bot path that is not a bot folder is bad input.
    """
    if duplicate and (html is not None or open_page):
        raise CliError("--html and --open write one deal's replay, not a --duplicate set: save "
                       "the set with --save, then write a deal's page with `arena replay FILE "
                       "--deal N --html OUT.html`")
    game = load_game(game_id, players, parse_params(param or []))
    order = ctx.meta.get(SEAT_ORDER, [])
    control = TimeControl(decision_ms=decision_ms, bank_ms=bank_ms, startup_ms=startup_ms)
    with show_builds():
        specs = pin_to_cores(seat_specs(order, bot or [], policy or [], game.num_players,
                                        sandbox, parse_allowed(allow_unenforced or [])))
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
    if record is not None and (html is not None or open_page):
        write_html(record, html, open_page)
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


def write_html(record: MatchRecord, path: Path | None, open_page: bool) -> Path:
    """Write a deal's replay page (to a temporary file when ``path`` is None), say where on
    stderr, and open it in the browser when asked."""
    try:
        from arena.server.web.standalone import write_replay_page
    except ImportError as error:
        raise CliError(f"the HTML replay needs the web pages' packages ({error.name}): "
                       "pip install 'card-arena[server]'") from None
    if path is None:
        handle, name = tempfile.mkstemp(prefix=f"replay-{record.game}-", suffix=".html")
        os.close(handle)
        path = Path(name)
    try:
        written = write_replay_page(record, path)
    except ValueError as error:
        raise CliError(str(error)) from None
    typer.echo(f"replay page written to {safe_text(str(written))}", err=True)
    if open_page and not webbrowser.open(written.resolve().as_uri()):
        raise CliError(f"no browser could be opened; the page is {written}")
    return written


def replay_command(
    file: Annotated[Path, typer.Argument(metavar="FILE",
                                         help="A match record saved by `arena play --save`.")],
    html: Annotated[Path | None, HTML_OPTION] = None,
    open_page: Annotated[bool, OPEN_OPTION] = False,
    deal: Annotated[int | None, typer.Option(
        "--deal", min=1, metavar="N",
        help="With --html or --open, the deal of a set whose page is written (default 1).")
    ] = None,
) -> None:
    """Re-simulate a saved match (or each deal of a set), check its returns, and show it."""
    records = read_records(file)
    if deal is not None and deal > len(records):
        raise CliError(f"--deal {deal}: {file} holds {len(records)} deal"
                       f"{'s' if len(records) != 1 else ''}")
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
    if html is not None or open_page:
        write_html(records[(deal or 1) - 1], html, open_page)
