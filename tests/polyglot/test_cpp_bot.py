"""The C++ sample bot (sample_bots/cpp/heuristic) and the C++ scaffold: built with Debian's gRPC
by their build.sh, checked as a process and in the Docker sandbox, matches against random in
three games, the same moves as the Python port, and ``arena bot new --lang cpp`` as generated."""

from __future__ import annotations

import signal
import socket
import subprocess
from pathlib import Path

import pytest

from arena.bots import BotManifest, ensure_built
from tests.polyglot.cli import check, play, run
from tests.polyglot.conftest import ROOT, SAMPLE_BOTS, require_tools
from tests.polyglot.kept import deals_share_a_stream

CPP_BOT = SAMPLE_BOTS / "cpp" / "heuristic"
PYTHON_PORT = SAMPLE_BOTS / "python" / "portable"
TEMPLATE = ROOT / "arena" / "botkit" / "templates" / "cpp"
TOOLS = ("g++", "make", "pkg-config", "protoc", "grpc_cpp_plugin")
SERVER_FILES = ("server.h", "server.cc", "address.h", "address.cc")
MATCH_GAMES = ("briscola", "scopa", "tressette")
EQUAL_GAMES = ("briscola-31", "briscola-chiamata-carta", "madrasso", "tressette-pozzo",
               "scopone", "presidente", "tressette-non-prendere")

def build(folder: Path) -> None:
    """Run the folder's build command as the arena does (once per process)."""
    require_tools(*TOOLS)
    ensure_built(BotManifest.load(folder))


@pytest.fixture(scope="session")
def cpp_bot() -> Path:
    """The sample bot's folder, built."""
    build(CPP_BOT)
    return CPP_BOT


def test_build_puts_the_binary_and_its_libraries_in_bin(cpp_bot: Path) -> None:
    binary = cpp_bot / "bin" / "heuristic"
    libraries = {path.name.split(".so")[0] for path in (cpp_bot / "bin" / "lib").iterdir()}
    assert binary.is_file()
    assert {"libgrpc++", "libgrpc", "libprotobuf"} <= libraries
    assert not libraries & {"libc", "libm", "ld-linux-x86-64"}


def test_a_second_build_has_nothing_to_do(cpp_bot: Path) -> None:
    done = subprocess.run(["sh", "build.sh"], cwd=cpp_bot, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert "Nothing to be done" in done.stdout
    assert "g++" not in done.stdout


def test_scoring_unit_tests_pass(cpp_bot: Path) -> None:
    done = subprocess.run(["make", "test"], cwd=cpp_bot, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all checks passed" in done.stdout


def test_it_listens_on_tcp_from_the_command_line_and_stops_on_sigint(cpp_bot: Path) -> None:
    bot = subprocess.Popen([str(cpp_bot / "bin" / "heuristic"), "--address", "127.0.0.1:0"],
                           stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           env={"PATH": "/usr/bin:/bin"})
    try:
        assert bot.stderr is not None
        line = bot.stderr.readline()
        assert "heuristic-cpp 1.0.0 listening on 127.0.0.1:" in line
        port = int(line.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass
        bot.send_signal(signal.SIGINT)
        assert bot.wait(timeout=10) == 0
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()


def test_a_bad_address_exits_with_status_2(cpp_bot: Path) -> None:
    done = subprocess.run([str(cpp_bot / "bin" / "heuristic"), "--address", "nowhere"],
                          capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"},
                          timeout=30, check=False)
    assert done.returncode == 2
    assert "neither unix:/path/bot.sock nor host:port" in done.stderr


def test_bot_check_passes_as_a_process(cpp_bot: Path) -> None:
    report = check(str(cpp_bot))
    names = [item["check"] for item in report["checks"]]
    assert "clean shutdown" in names
    assert sum(name.startswith("legal play ") for name in names) >= 10


def test_bot_check_passes_in_the_docker_sandbox(cpp_bot: Path, base_image: None) -> None:
    report = check(str(cpp_bot), "--sandbox", "docker", "--game", "briscola",
                   "--game", "scopa")
    assert {"image", "start-up", "clean shutdown"} <= {item["check"] for item in report["checks"]}


@pytest.mark.parametrize("game", MATCH_GAMES)
def test_a_match_against_random_ends_ok_at_every_seat(cpp_bot: Path, game: str) -> None:
    record = play(game, ["--policy", "random", "--bot", str(cpp_bot)], seed=5)
    assert record["reasons"] == ["OK"] * record["players"]
    assert record["faults"] == []
    assert any("heuristic-cpp" in policy for policy in record["policies"])


@pytest.mark.parametrize("game", EQUAL_GAMES)
def test_the_same_moves_as_the_python_port(cpp_bot: Path, game: str) -> None:
    if not (PYTHON_PORT / "bot.toml").is_file():
        pytest.skip("the Python port of the portable heuristic is not there")
    for seed in (1, 2):
        cpp = play(game, ["--bot", str(cpp_bot), "--policy", "random"], seed)
        python = play(game, ["--bot", str(PYTHON_PORT), "--policy", "random"], seed)
        assert cpp["actions"] == python["actions"], f"{game} seed {seed}"
        assert cpp["reasons"] == python["reasons"] == ["OK"] * cpp["players"]


def test_its_next_match_comes_on_the_same_stream(cpp_bot: Path) -> None:
    """Ready says keeps_stream and the bot reads on after MatchEnd: two deals, one stream."""
    assert deals_share_a_stream(cpp_bot)


def test_the_template_serves_with_the_sample_bots_server() -> None:
    """The sample bot's server code is a link to the template's (one copy); its ignore files,
    which git and Docker read only as plain files, are equal copies."""
    for name in SERVER_FILES:
        sample = CPP_BOT / "src" / name
        if name.startswith("."):
            assert sample.read_bytes() == (TEMPLATE / name).read_bytes(), name
            continue
        assert sample.is_symlink(), name
        assert sample.resolve() == (TEMPLATE / name).resolve(), name


def test_a_new_cpp_bot_passes_its_checks(tmp_path: Path) -> None:
    require_tools(*TOOLS)
    made = run("bot", "new", "my-cpp-bot", "--lang", "cpp", "--dir", str(tmp_path))
    if made.exit_code != 0 and "unknown language" in made.output:
        pytest.skip("arena bot new does not know --lang cpp yet")
    assert made.exit_code == 0, made.output
    folder = tmp_path / "my-cpp-bot"
    assert (folder / "proto" / "cardarena" / "v1" / "agent.proto").is_file()
    assert 'name = "my-cpp-bot"' in (folder / "bot.toml").read_text(encoding="utf-8")
    report = check(str(folder), "--game", "briscola", "--game", "scopa", "--game", "misere")
    assert report["name"] == "my-cpp-bot"
    assert (folder / "bin" / "bot").is_file()
