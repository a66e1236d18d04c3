"""Builds are never silent: commands that build show each build as it runs (plain lines when
stderr is not a terminal, a spinner with the last line of output when it is)."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner, Result

from arena.bots import BotManifest, ensure_built, forget_builds
from arena.cli import app
from arena.cli.bench.output import status
from arena.cli.building import BuildDisplay, show_builds
from arena.sandbox import build as docker_build
from arena.sandbox.buildwatch import building, watching

ROOT = Path(__file__).resolve().parents[1]
RANDOM_BOT = ROOT / "sample_bots" / "python" / "random"

runner = CliRunner()


def run(*args: str) -> Result:
    """Invoke the command line in-process (its stderr is not a terminal)."""
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


class Recorder:
    """A build watcher that keeps what it is told."""

    def __init__(self) -> None:
        """Nothing told yet."""
        self.events: list[tuple[str, ...]] = []

    def started(self, what: str, tells_work: bool) -> None:
        """Keep a start."""
        self.events.append(("started", what, *(["tells work"] if tells_work else [])))

    def working(self) -> None:
        """Keep the start of real work."""
        self.events.append(("working",))

    def output(self, line: str) -> None:
        """Keep a line."""
        self.events.append(("output", line))

    def ended(self, what: str, seconds: float, failed: bool, up_to_date: bool) -> None:
        """Keep an end."""
        self.events.append(("ended", what, "failed" if failed else
                            "up to date" if up_to_date else "ok"))


def built_bot(folder: Path, script: str, writes: bool = True) -> Path:
    """The random sample bot with a host build running ``script`` (then writing a new file in
    the folder, so that the build is not up to date, unless ``writes`` is false)."""
    folder.mkdir()
    shutil.copy(RANDOM_BOT / "bot.py", folder / "bot.py")
    (folder / "bot.toml").write_text(
        'name = "slowbuild"\nversion = "1.0.0"\nlanguage = "python"\n'
        'build = ["sh", "build.sh"]\ncommand = ["python", "bot.py"]\ngames = ["*"]\n',
        encoding="utf-8")
    (folder / "build.sh").write_text(script + ('\n: > "out-$$"\n' if writes else ""),
                                     encoding="utf-8")
    return folder


@pytest.fixture(autouse=True)
def fresh_builds() -> Any:
    """Every test builds its bot again."""
    forget_builds()
    yield
    forget_builds()


def test_a_host_build_streams_its_lines_as_they_come(tmp_path: Path) -> None:
    """The build waits for a file that the watcher makes when it sees the first line: it only
    ends because that line was passed on while the build was still running."""
    gate = tmp_path / "gate"
    folder = built_bot(tmp_path / "bot", f"echo first\nwhile [ ! -e {gate} ]; do sleep 0.05; "
                                         "done\necho second\n")
    seen = Recorder()

    class Opener(Recorder):
        """Opens the gate on the first line."""

        def output(self, line: str) -> None:
            """Keep the line; open the gate on ``first``."""
            seen.output(line)
            if line == "first":
                gate.touch()

    with watching(Opener()):
        ensure_built(BotManifest.load(folder), timeout_s=30)
    assert seen.events == [("output", "first"), ("output", "second")]


def test_bot_check_shows_the_build(tmp_path: Path) -> None:
    """``arena bot check`` of a bot with a host build prints its start, its output lines and
    how long it took, on stderr."""
    folder = built_bot(tmp_path / "bot", "echo compiling the bot\necho linking\n")
    result = run("bot", "check", str(folder), "--game", "briscola")
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    start = lines.index("building bot slowbuild")
    assert lines[start + 1:start + 3] == ["  compiling the bot", "  linking"]
    assert lines[start + 3].startswith("built bot slowbuild in ")


def test_play_shows_the_build_of_a_bot_folder(tmp_path: Path) -> None:
    """``arena play --bot FOLDER`` shows the build before the match."""
    folder = built_bot(tmp_path / "bot", "echo compiling the bot\n")
    result = run("play", "briscola", "--bot", str(folder), "--policy", "random")
    assert result.exit_code == 0, result.output
    assert "building bot slowbuild\n  compiling the bot\nbuilt bot slowbuild in " in result.stderr


def test_league_run_builds_its_bots_first(tmp_path: Path) -> None:
    """``arena league run`` builds a compiled entrant in the foreground, shown, before the
    workers start."""
    folder = built_bot(tmp_path / "bot", "echo compiling the bot\n")
    db = str(tmp_path / "arena.db")
    created = run("league", "create", "l", "--bot", str(folder), "--bot", "random",
                  "--games", "briscola", "--seed", "1", "--db", db)
    assert created.exit_code == 0, created.output
    result = run("league", "run", "l", "--workers", "1", "--db", db)
    assert result.exit_code == 0, result.output
    assert "building bot slowbuild\n  compiling the bot\nbuilt bot slowbuild in " in result.stderr


def test_a_failed_build_says_so(tmp_path: Path) -> None:
    """A build that fails ends with a line saying so, then the error."""
    folder = built_bot(tmp_path / "bot", "echo no compiler here\nexit 3\n")
    result = run("play", "briscola", "--bot", str(folder))
    assert result.exit_code == 2
    assert "build of bot slowbuild failed after " in result.stderr
    assert "error: bot slowbuild: build command `sh build.sh` failed" in result.stderr


def test_docker_builds_are_told_to_the_watchers(monkeypatch: pytest.MonkeyPatch) -> None:
    """An image build tells the watchers its lines (when the caller shows none itself)."""
    def fake(_context: Path, **options: Any) -> str:
        """Report one builder line, start working and succeed."""
        options["progress"]("Step 1/2 : FROM base")
        options["on_work"]()
        return "sha256:1"

    monkeypatch.setattr(docker_build, "_run_build", fake)
    recorder = Recorder()
    with watching(recorder):
        docker_build.run_build(Path("."), tag="t", what="bot x", timeout_s=1)
    assert recorder.events == [("started", "bot x", "tells work"),
                               ("output", "Step 1/2 : FROM base"), ("working",),
                               ("ended", "bot x", "ok")]


CACHED_BUILD = ["Step 1/3 : FROM base", " ---> 0123456789ab", "Step 2/3 : COPY bot.py /bot/",
                " ---> Using cache", " ---> 123456789abc", "Step 3/3 : CMD [\"python\"]",
                " ---> Using cache", " ---> 23456789abcd", "Successfully built 23456789abcd"]
"""What Docker's classic builder says of a build whose every step is in its cache."""


def test_the_builder_log_finds_work_only_in_steps_not_cached() -> None:
    """Steps found in the cache are no work; a step that runs or makes a new layer is, and
    so is a failure."""
    def worked(lines: list[str], error: str = "") -> int:
        """How many times the log said the build worked."""
        calls: list[None] = []
        log = docker_build.BuildLog("bot x", lambda _line: None,
                                    on_work=lambda: calls.append(None))
        for line in lines:
            log.take({"stream": line + "\n"})
        if error:
            log.take({"error": error})
        return len(calls)

    assert worked(CACHED_BUILD) == 0
    assert worked([*CACHED_BUILD[:3], " ---> 3456789abcde"]) == 1  # a COPY not in the cache
    assert worked([*CACHED_BUILD[:3], " ---> Running in 456789abcdef", "hello"]) == 1
    assert worked(CACHED_BUILD[:2], error="no such file") == 1


def test_off_a_terminal_an_image_build_all_in_the_cache_shows_nothing() -> None:
    """However long Docker takes to find every step in its cache, nothing is printed; a
    build that starts working past the hold prints what it held at once."""
    stream = io.StringIO()
    display = BuildDisplay(Console(file=stream, width=80), hold_s=60)
    with watching(display), building("bot x", tells_work=True) as show:
        for line in CACHED_BUILD:
            show(line)
        display.release()  # the hold time is over
        show.up_to_date = True
    assert stream.getvalue() == ""
    with watching(display), building("bot y", tells_work=True) as show:
        show("Step 1/2 : FROM base")
        display.release()
        assert stream.getvalue() == ""
        show.working()
        assert stream.getvalue() == "building bot y\n  Step 1/2 : FROM base\n"
        show(" ---> Running in 456789abcdef")
    assert stream.getvalue().splitlines()[-1].startswith("built bot y in ")


def test_on_a_terminal_a_spinner_shows_the_last_line() -> None:
    """The spinner names the build and its last line of output (escaped), and stops when the
    build ends, leaving one line that says how long it took."""
    stream = io.StringIO()
    console = Console(file=stream, force_terminal=True, width=80)
    display = BuildDisplay(console)
    with watching(display), building("bot go") as show:
        show("go: downloading google.golang.org/grpc v1.70.0")
        show("compiling \x1b[31mmain")
        assert display.status is not None
        shown = display.status.renderable.text
        assert "building bot go · compiling \\x1b[31mmain" in str(shown)
    assert display.status is None
    assert "built bot go in " in stream.getvalue()


def test_bench_languages_shows_the_builds(tmp_path: Path) -> None:
    """``arena bench languages`` shows the host build of a bot it measures, as ``bot check``
    does."""
    folder = built_bot(tmp_path / "bot", "echo compiling the bot\n")
    result = run("bench", "languages", "--bot", str(folder), "--deals", "1", "--json")
    assert result.exit_code == 0, result.output
    assert "building bot slowbuild\n  compiling the bot\nbuilt bot slowbuild in " in result.stderr


def test_a_bench_shows_builds_in_its_own_status_line() -> None:
    """On a terminal a bench's builds show in its status line (a second live display would be
    refused), which says what it said before once they end; the closing line is printed."""
    stream = io.StringIO()
    console = Console(file=stream, force_terminal=True, width=80)
    with console.status("measuring: starting") as line, show_builds(console, line):
        with building("the image of heuristic") as show:
            show("Step 1/3 : FROM base")
            assert line.status.plain == "building the image of heuristic · Step 1/3 : FROM base"
        assert line.status == "measuring: starting"
    with status(console), building("bot go"):
        pass
    assert "built the image of heuristic in " in stream.getvalue()
    assert "built bot go in " in stream.getvalue()


def compiled_bot(folder: Path) -> Path:
    """The random sample bot run as ``./bin/bot``, which its build writes only when it
    changed, as the compiled sample bots' builds do."""
    built_bot(folder, "echo compiling\nmkdir -p bin\nprintf '#!/bin/sh\\nexec python "
                      "bot.py \"$@\"\\n' > bin/new\ncmp -s bin/new bin/bot || "
                      "cp bin/new bin/bot\nrm bin/new\nchmod +x bin/bot\n", writes=False)
    manifest = (folder / "bot.toml").read_text(encoding="utf-8")
    (folder / "bot.toml").write_text(manifest.replace('command = ["python", "bot.py"]',
                                                      'command = ["./bin/bot"]'))
    return folder


def test_a_build_that_leaves_the_program_as_it_was_is_up_to_date(tmp_path: Path) -> None:
    """The first build makes bin/bot; the second, in a new process's turn, leaves it as it
    was: it had nothing to do, though it ran and printed."""
    manifest = BotManifest.load(compiled_bot(tmp_path / "bot"))
    recorder = Recorder()
    with watching(recorder):
        ensure_built(manifest, timeout_s=30)
        forget_builds()
        ensure_built(manifest, timeout_s=30)
    ends = [event for event in recorder.events if event[0] == "ended"]
    assert ends == [("ended", "bot slowbuild", "ok"), ("ended", "bot slowbuild", "up to date")]


def test_a_build_with_nothing_to_do_shows_nothing(tmp_path: Path) -> None:
    """``arena play`` of a bot whose build changes nothing prints no build lines (a build that
    changes something prints them, see above)."""
    folder = built_bot(tmp_path / "bot", "echo nothing to do\n", writes=False)
    result = run("play", "briscola", "--bot", str(folder), "--policy", "random")
    assert result.exit_code == 0, result.output
    assert "building" not in result.stderr and "built" not in result.stderr
    assert "nothing to do" not in result.stderr


def test_on_a_terminal_a_build_with_nothing_to_do_leaves_no_line() -> None:
    """The spinner shows while the build runs; an up-to-date build leaves no closing line."""
    stream = io.StringIO()
    display = BuildDisplay(Console(file=stream, force_terminal=True, width=80))
    with watching(display), building("bot go") as show:
        show("Finished release in 0.05s")
        show.up_to_date = True
    assert display.status is None and "built bot go" not in stream.getvalue()


def test_off_a_terminal_a_long_build_is_shown_even_when_up_to_date() -> None:
    """Lines held back are printed once the hold is over, and the build then gets its
    closing line even if it turns out to have had nothing to do."""
    stream = io.StringIO()
    display = BuildDisplay(Console(file=stream, width=80), hold_s=60)
    with watching(display), building("bot go") as show:
        show("compiling")
        assert stream.getvalue() == ""
        display.release()
        assert stream.getvalue() == "building bot go\n  compiling\n"
        show.up_to_date = True
    assert stream.getvalue().splitlines()[-1].startswith("built bot go in ")
