"""Host builds of compiled bots: ``build`` in bot.toml runs once per process, and failures
name the bot, the command and the end of its output."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import pytest

from arena.bots import BotConfigError, BotManifest, ensure_built, forget_builds


@pytest.fixture(autouse=True)
def _fresh_builds() -> None:
    """Every test starts with no folder built in this process."""
    forget_builds()


def make_bot(folder: Path, build: str, script: str) -> BotManifest:
    """A bot folder whose build command is ``build`` and whose build.sh is ``script``."""
    folder.mkdir()
    (folder / "bot.toml").write_text(textwrap.dedent(f"""\
        name = "compiled"
        version = "1.0.0"
        language = "cpp"
        build = {build}
        command = ["./bin/heuristic"]
        """), encoding="utf-8")
    (folder / "build.sh").write_text(script, encoding="utf-8")
    return BotManifest.load(folder)


def test_build_runs_in_the_folder_once_per_process(tmp_path: Path) -> None:
    """The command runs in the bot's folder; a second use in the same process skips it."""
    manifest = make_bot(tmp_path / "bot", '["sh", "build.sh"]',
                        "mkdir -p bin && echo run >> bin/runs\n")
    assert manifest.build == ("sh", "build.sh")
    ensure_built(manifest)
    ensure_built(manifest)
    assert (tmp_path / "bot" / "bin" / "runs").read_text().splitlines() == ["run"]
    forget_builds()
    ensure_built(manifest)
    assert (tmp_path / "bot" / "bin" / "runs").read_text().splitlines() == ["run", "run"]


def test_a_bot_without_build_is_left_alone(tmp_path: Path) -> None:
    """No ``build`` key: nothing runs."""
    folder = tmp_path / "py"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "p"\nversion = "1"\nlanguage = "python"\n'
                                     'command = ["python", "bot.py"]\n', encoding="utf-8")
    manifest = BotManifest.load(folder)
    assert manifest.build == ()
    ensure_built(manifest)
    assert sorted(path.name for path in folder.iterdir()) == ["bot.toml"]


def test_a_failing_build_names_the_bot_status_and_output(tmp_path: Path) -> None:
    """Exit status and the last lines of the output are in the one-line-headed error."""
    manifest = make_bot(tmp_path / "bot", '["sh", "build.sh"]',
                        "echo compiling\necho 'error: expected ;' >&2\nexit 3\n")
    with pytest.raises(BotConfigError) as caught:
        ensure_built(manifest)
    message = str(caught.value)
    assert message.startswith("bot compiled: build command `sh build.sh` failed with exit "
                              "status 3")
    assert "error: expected ;" in message and "compiling" in message
    with pytest.raises(BotConfigError):
        ensure_built(manifest)


def test_a_missing_toolchain_says_how_to_get_it(tmp_path: Path) -> None:
    """A build program that is not installed is named with a hint, before anything runs."""
    manifest = make_bot(tmp_path / "bot", '["cargo-that-is-not-here", "build"]', "")
    with pytest.raises(BotConfigError, match="needs 'cargo-that-is-not-here', which is not "
                                             "installed"):
        ensure_built(manifest)


def test_a_tool_missing_inside_the_script_gets_a_hint(tmp_path: Path) -> None:
    """A script whose shell reports ``cargo: not found`` gets the Rust hint."""
    manifest = make_bot(tmp_path / "bot", '["sh", "build.sh"]',
                        "echo 'build.sh: 1: cargo: not found' >&2\nexit 127\n")
    with pytest.raises(BotConfigError, match=r"cargo is missing: install Rust with rustup"):
        ensure_built(manifest)


def test_a_build_past_its_time_is_stopped(tmp_path: Path) -> None:
    """The timeout stops the command and says so."""
    manifest = make_bot(tmp_path / "bot", '["sh", "build.sh"]', "exec sleep 30\n")
    with pytest.raises(BotConfigError, match=r"ran past 0.5 s and was stopped"):
        ensure_built(manifest, timeout_s=0.5)


def test_an_empty_build_list_is_a_manifest_error(tmp_path: Path) -> None:
    """``build = []`` is refused when the manifest is read."""
    folder = tmp_path / "bot"
    with pytest.raises(BotConfigError, match="'build' must be a non-empty list"):
        make_bot(folder, "[]", "")


def alive(pid: int) -> bool:
    """True while the process exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def gone_soon(pid: int) -> bool:
    """Wait up to 10 s for the process to end; whether it did."""
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not alive(pid)


STRAGGLER = ("mkdir -p bin\nsleep 300 >/dev/null 2>&1 &\necho $! > bin/straggler\n"
             "echo built\n")
"""A build that leaves a background process running (as a build daemon would)."""


def assert_straggler_stopped(folder: Path) -> None:
    """The process a ``STRAGGLER`` build in ``folder`` left running ends within 10 s (it is
    killed either way)."""
    straggler = int((folder / "bin" / "straggler").read_text())
    try:
        assert gone_soon(straggler)
    finally:
        with contextlib.suppress(OSError):
            os.kill(straggler, signal.SIGKILL)


def test_what_a_build_leaves_running_is_stopped(tmp_path: Path) -> None:
    """A process the build left in the background is killed with the build's group once the
    build has ended (before, it ran on)."""
    manifest = make_bot(tmp_path / "bot", '["sh", "build.sh"]', STRAGGLER)
    ensure_built(manifest)
    assert_straggler_stopped(tmp_path / "bot")


def test_a_build_past_its_time_is_stopped_with_what_it_started(tmp_path: Path) -> None:
    """A build over its time limit is stopped, and so is the process it left running (before,
    only the build's own process was)."""
    manifest = make_bot(tmp_path / "bot", '["sh", "build.sh"]', STRAGGLER + "sleep 300\n")
    with pytest.raises(BotConfigError, match="ran past 1 s and was stopped"):
        ensure_built(manifest, timeout_s=1)
    assert_straggler_stopped(tmp_path / "bot")


def test_a_build_line_of_any_length_is_read_in_capped_pieces(tmp_path: Path) -> None:
    """A build that prints a megabyte without a newline is read in pieces of at most
    ``LINE_CAP`` bytes: its kept tail and every line shown stay small."""
    from arena.bots.hostbuild import LINE_CAP, _build_group

    shown: list[str] = []
    argv = [sys.executable, "-c", "import sys; sys.stdout.write('x' * 1_000_000)"]
    status, kept = _build_group(argv, tmp_path, 60, shown.append)
    assert status == 0
    assert len(shown) >= 1_000_000 // LINE_CAP
    assert max(len(line) for line in shown + kept) <= LINE_CAP
