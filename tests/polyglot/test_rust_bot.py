"""The Rust sample bot (sample_bots/rust/heuristic) and the Rust scaffold: built with cargo by
their build.sh, the scoring's own cargo tests, checked as a process and in the Docker sandbox,
matches against random in three games, the same moves as the Python port, and
``arena bot new --lang rust`` as generated."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from arena.bots import BotManifest, ensure_built
from tests.polyglot.cli import check, play, run
from tests.polyglot.conftest import ROOT, SAMPLE_BOTS, require_tools
from tests.polyglot.kept import deals_share_a_stream

RUST_BOT = SAMPLE_BOTS / "rust" / "heuristic"
PYTHON_PORT = SAMPLE_BOTS / "python" / "portable"
TEMPLATE = ROOT / "arena" / "botkit" / "templates" / "rust"
TOOLS = ("cargo", "protoc")
SERVER_FILES = ("src/server.rs", "src/address.rs", ".dockerignore", ".gitignore")
GLIBC_LIBRARIES = ("linux-vdso", "libc.so", "libgcc_s.so", "libm.so", "ld-linux-x86-64")
MATCH_GAMES = ("briscola", "scopa", "tressette")
EQUAL_GAMES = ("briscola-31", "briscola-chiamata-carta", "madrasso", "tressette-pozzo",
               "scopone", "presidente", "tressette-non-prendere")

def build(folder: Path) -> None:
    """Run the folder's build command as the arena does (once per process)."""
    require_tools(*TOOLS)
    ensure_built(BotManifest.load(folder))


@pytest.fixture(scope="session")
def rust_bot() -> Path:
    """The sample bot's folder, built."""
    build(RUST_BOT)
    return RUST_BOT


def test_build_puts_a_binary_needing_only_glibc_in_bin(rust_bot: Path) -> None:
    binary = rust_bot / "bin" / "heuristic"
    assert binary.is_file() and os.access(binary, os.X_OK)
    linked = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=True)
    libraries = [Path(line.split()[0]).name for line in linked.stdout.splitlines() if line.strip()]
    assert libraries, linked.stdout
    assert all(name.startswith(GLIBC_LIBRARIES) for name in libraries), libraries


def test_a_second_build_compiles_nothing(rust_bot: Path) -> None:
    done = subprocess.run(["sh", "build.sh"], cwd=rust_bot, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert "Finished" in done.stderr
    assert "Compiling" not in done.stderr


def test_scoring_unit_tests_pass(rust_bot: Path) -> None:
    done = subprocess.run(["cargo", "test", "--release", "--locked"], cwd=rust_bot,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "test scoring::tests::" in done.stdout
    assert " 0 failed" in done.stdout


def test_bot_check_passes_as_a_process(rust_bot: Path) -> None:
    report = check(str(rust_bot))
    names = [item["check"] for item in report["checks"]]
    assert report["name"] == "heuristic-rust"
    assert "clean shutdown" in names
    assert sum(name.startswith("legal play ") for name in names) >= 10


def test_bot_check_passes_in_the_docker_sandbox(rust_bot: Path, base_image: None) -> None:
    report = check(str(rust_bot), "--sandbox", "docker", "--game", "briscola",
                   "--game", "scopa")
    assert {"image", "start-up", "clean shutdown"} <= {item["check"] for item in report["checks"]}


@pytest.mark.parametrize("game", MATCH_GAMES)
def test_a_match_against_random_ends_ok_at_every_seat(rust_bot: Path, game: str) -> None:
    record = play(game, ["--policy", "random", "--bot", str(rust_bot)], seed=5)
    assert record["reasons"] == ["OK"] * record["players"]
    assert record["faults"] == []
    assert any("heuristic-rust" in policy for policy in record["policies"])


@pytest.mark.parametrize("game", EQUAL_GAMES)
def test_the_same_moves_as_the_python_port(rust_bot: Path, game: str) -> None:
    if not (PYTHON_PORT / "bot.toml").is_file():
        pytest.skip("the Python port of the portable heuristic is not there")
    for seed in (1, 2):
        rust = play(game, ["--bot", str(rust_bot), "--policy", "random"], seed)
        python = play(game, ["--bot", str(PYTHON_PORT), "--policy", "random"], seed)
        assert rust["actions"] == python["actions"], f"{game} seed {seed}"
        assert rust["reasons"] == python["reasons"] == ["OK"] * rust["players"]


def test_its_next_match_comes_on_the_same_stream(rust_bot: Path) -> None:
    """Ready says keeps_stream and the bot reads on after MatchEnd: two deals, one stream."""
    assert deals_share_a_stream(rust_bot)


def test_the_template_serves_with_the_sample_bots_server() -> None:
    """The sample bot's server code is a link to the template's (one copy); its ignore files,
    which git and Docker read only as plain files, are equal copies."""
    for name in SERVER_FILES:
        sample = RUST_BOT / name
        if name.startswith("."):
            assert sample.read_bytes() == (TEMPLATE / name).read_bytes(), name
            continue
        assert sample.is_symlink(), name
        assert sample.resolve() == (TEMPLATE / name).resolve(), name


def test_the_template_pins_the_sample_bots_dependencies() -> None:
    template = (TEMPLATE / "Cargo.lock.tmpl").read_text(encoding="utf-8")
    sample = (RUST_BOT / "Cargo.lock").read_text(encoding="utf-8")
    root = 'name = "{}"\nversion = "{}"\n'
    renamed = template.replace(root.format("$name", "0.1.0"),
                               root.format("heuristic-rust", "1.0.0"))
    assert renamed == sample


def test_a_new_rust_bot_passes_its_checks(tmp_path: Path, rust_bot: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    made = run("bot", "new", "my-rust-bot", "--lang", "rust", "--dir", str(tmp_path))
    if made.exit_code != 0 and "unknown language" in made.output:
        pytest.skip("arena bot new does not know --lang rust yet")
    assert made.exit_code == 0, made.output
    folder = tmp_path / "my-rust-bot"
    assert (folder / "proto" / "cardarena" / "v1" / "agent.proto").is_file()
    assert 'name = "my-rust-bot"' in (folder / "Cargo.toml").read_text(encoding="utf-8")
    # The sample bot's target folder holds every dependency compiled with the same versions
    # and features, so the new bot compiles only its own crate.
    monkeypatch.setenv("CARGO_TARGET_DIR", str(rust_bot / "target"))
    build(folder)
    report = check(str(folder), "--game", "briscola", "--game", "scopa", "--game", "misere")
    assert report["name"] == "my-rust-bot"
    assert (folder / "bin" / "bot").is_file()
    assert not (folder / "target").exists()
