"""Help pages a new user can read: commands grouped, no Python types beside flags, examples
that parse, one name for the lease length."""

from __future__ import annotations

import re
import shlex

import pytest
import typer
import typer.main
from typer.core import TyperGroup
from typer.testing import CliRunner, Result

from arena.cli import app
from arena.cli import worker as worker_cli
from arena.cli.helptext import EXAMPLES, tidy

runner = CliRunner()


def run(*args: str) -> Result:
    """Invoke the command line in-process, as on a wide terminal."""
    return runner.invoke(app, list(args), env={"COLUMNS": "120"})


def panels(text: str) -> dict[str, list[str]]:
    """The commands listed under each titled box of a help page."""
    found: dict[str, list[str]] = {}
    title = ""
    for line in text.splitlines():
        head = re.match(r"^╭─ (.+?) ─", line)
        if head:
            title = head.group(1)
            found[title] = []
        elif title and (row := re.match(r"^│ ([a-z-]+) {2,}", line)):
            found[title].append(row.group(1))
    return found


def test_the_commands_are_grouped_by_purpose() -> None:
    """``arena --help`` lists the commands in four panels, the everyday ones first."""
    result = run("--help")
    assert result.exit_code == 0
    listed = panels(result.stdout)
    assert listed["Play and bots"] == ["games", "play", "replay", "bot", "images"]
    assert listed["Leagues"] == ["league", "leaderboard", "report", "compare", "worker"]
    assert listed["Service"] == ["serve", "remote", "admin"]
    assert listed["Tools"] == ["sandbox", "bench", "engine"]
    assert "Commands" not in listed


@pytest.mark.parametrize("command", [["--help"], ["play", "--help"], ["bot", "check", "--help"],
                                     ["league", "run", "--help"], ["worker", "--help"]])
def test_help_shows_no_python_types(command: list[str]) -> None:
    """Flags have no value column, values have plain names, and paragraphs are not broken
    where the source's lines were."""
    result = run(*command)
    assert result.exit_code == 0, result.output
    assert not re.search(r"<(bool|int|str|float|file|path|int range|float range)>",
                         result.stdout)
    assert re.search(r"│ +--help +Show this message and exit", result.stdout)
    assert "{GAME}" not in result.stdout


def test_play_help_has_examples() -> None:
    """``arena play --help`` ends with command lines to copy."""
    text = run("play", "--help").stdout
    examples = text[text.index("Examples:"):]
    assert "arena play briscola --bot sample_bots/python/random --policy heuristic" in examples


@pytest.mark.parametrize("path", sorted(EXAMPLES))
def test_every_example_parses(path: str) -> None:
    """Each example names real commands and options with valid values, and shows on its
    command's help page."""
    assert run(*path.split(), "--help").stdout.count("Examples:") == 1
    for example in EXAMPLES[path]:
        words = shlex.split(example)
        assert words[0] == "arena"
        args = words[1:]
        if args[0] == "worker":
            worker_app = typer.Typer()
            worker_app.command()(worker_cli.worker_command)
            command = typer.main.get_command(worker_app)
            args = args[1:]
        else:
            command = typer.main.get_command(app)
            while isinstance(command, TyperGroup):
                command = command.commands[args.pop(0)]
        tidy(command)
        with command.make_context("arena", list(args)) as ctx:
            assert ctx.params


def test_the_lease_has_one_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """``arena worker`` takes --lease-s as ``arena league run`` does; its former --lease is
    hidden but still read."""
    assert "--lease-s" in run("league", "run", "--help").stdout
    shown = run("worker", "--help").stdout
    assert "--lease-s" in shown and not re.search(r"--lease\b(?!-)", shown)
    seen: list[float] = []

    def start(_broker: str, _db: str | None, _concurrency: int, lease: float,
              *_rest: object) -> int:
        """Record the lease instead of starting workers."""
        seen.append(lease)
        return 0

    monkeypatch.setattr(worker_cli, "start_workers", start)
    worker_cli.main(["--broker", "redis://h:6379/0", "--lease-s", "7"])
    worker_cli.main(["--broker", "redis://h:6379/0", "--lease", "9"])
    assert seen == [7.0, 9.0]


SEEDED = [["play"], ["bot", "check"], ["league", "create"], ["compare"], ["bench", "rollouts"],
          ["bench", "evaluation"], ["remote", "league", "create"]]


@pytest.mark.parametrize("command", SEEDED)
def test_the_seed_shows_no_range(command: list[str]) -> None:
    """``--seed`` is shown as a plain INTEGER, without its twenty-digit upper bound."""
    text = run(*command, "--help").stdout
    seed = next(line for line in text.splitlines() if "--seed" in line)
    assert re.search(r"--seed .*INTEGER +[A-Z]", seed), seed
    assert "18446744073709551615" not in text and "<=x" not in text


@pytest.mark.parametrize("seed", ["-1", "18446744073709551616"])
def test_a_seed_out_of_range_is_one_line_naming_the_bounds(seed: str) -> None:
    """A seed below 0 or above 2**64 - 1 is refused before anything runs."""
    result = run("play", "briscola", "--seed", seed)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"error: Invalid value for '--seed' / '-s': {seed} is not a seed: a seed is an integer "
        "from 0 to 2**64 - 1 (18446744073709551615)"]
    assert result.stdout == ""


def test_worker_help_names_values_as_the_league_commands_do() -> None:
    """``arena worker --help`` calls the broker a URL and the database PATH|URL, with the
    league commands' default; the main help lists it without a pointer to --help."""
    shown = run("worker", "--help").stdout
    assert re.search(r"--broker +URL ", shown) and re.search(r"--db +PATH\|URL ", shown)
    assert "arena.db under the user's data directory" in " ".join(shown.replace("│", "").split())
    assert " TEXT " not in shown
    listing = next(line for line in run("--help").stdout.splitlines() if "│ worker " in line)
    assert "--help for the options" not in listing


def test_the_two_leases_say_why_they_differ() -> None:
    """Each --lease-s help names the other command, and ``league run --broker`` refuses a
    --lease-s it would not use, in one line."""
    local = " ".join(run("league", "run", "--help").stdout.replace("│", "").split())
    remote = " ".join(run("worker", "--help").stdout.replace("│", "").split())
    assert "longer default than `arena worker`'s" in local
    assert "each `arena worker` takes its own --lease-s" in local
    assert "shorter default than a local `arena league run`'s" in remote
    refused = run("league", "run", "x", "--broker", "redis://h:6379/0", "--lease-s", "30")
    assert refused.exit_code == 2
    assert refused.stderr.splitlines() == [
        "error: --lease-s is for local runs; with --broker each `arena worker` takes its own "
        "--lease-s"]
