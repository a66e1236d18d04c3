"""The sample bots as real processes: serve over a Unix socket or TCP, stop on signals."""

from __future__ import annotations

import importlib.util
import signal
import subprocess
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
from cardarena_sdk import MatchInfo, Request

from arena.games import load_game
from arena.protocol import RequestEncoder, match_start_message

from .harness import SAMPLE_BOTS, connect, play_match, start_bot, stop_process, wait_listening

Start = Callable[..., subprocess.Popen[str]]
RANDOM_BOT = SAMPLE_BOTS / "random" / "bot.py"
HEURISTIC_BOT = SAMPLE_BOTS / "heuristic" / "bot.py"


@pytest.fixture
def bot_process() -> Iterator[Start]:
    """Start bot processes; every one still running is killed at the end."""
    processes: list[subprocess.Popen[str]] = []

    def start(script: Path, address: str | None, args: Sequence[str] = ()) -> subprocess.Popen[str]:
        """Start one bot process."""
        processes.append(start_bot(script, address, args))
        return processes[-1]

    try:
        yield start
    finally:
        for process in processes:
            stop_process(process)


def stop(process: subprocess.Popen[str], signum: int) -> tuple[int, str]:
    """Send a signal and return the exit code and the rest of stderr."""
    process.send_signal(signum)
    code = process.wait(timeout=20)
    assert process.stderr is not None
    return code, process.stderr.read()


def test_random_bot_over_a_unix_socket(bot_process: Start, tmp_path: Path) -> None:
    """The bot plays legal moves in several matches at once, then stops on SIGTERM."""
    socket_path = tmp_path / "bot.sock"
    process = bot_process(RANDOM_BOT, f"unix:{socket_path}")
    assert wait_listening(process) == f"unix:{socket_path}"
    channel = connect(f"unix:{socket_path}")
    try:
        _, decisions = play_match(channel, "briscola", 2, seed=3, bot_seats=[0])
        assert decisions == 20
        state, _ = play_match(channel, "briscola-chiamata", 5, seed=4, bot_seats=range(5))
        assert state.is_terminal()
    finally:
        channel.close()
    code, err = stop(process, signal.SIGTERM)
    assert code == 0, err
    assert "bot random stopped" in err
    assert not socket_path.exists()


def test_tcp_address_from_the_command_line(bot_process: Start) -> None:
    """--address host:port works (port 0 picks a free port); SIGINT stops the bot too."""
    process = bot_process(RANDOM_BOT, None, ["--address", "127.0.0.1:0"])
    target = wait_listening(process)
    assert target.startswith("127.0.0.1:") and not target.endswith(":0")
    channel = connect(target)
    try:
        play_match(channel, "scopa", 2, seed=5, bot_seats=[1])
    finally:
        channel.close()
    code, err = stop(process, signal.SIGINT)
    assert code == 0, err
    assert "Traceback" not in err


def test_heuristic_bot_plays_every_seat(bot_process: Start, tmp_path: Path) -> None:
    """The heuristic sample bot answers legally in auctions, calls, tricks and captures."""
    socket_path = tmp_path / "h.sock"
    process = bot_process(HEURISTIC_BOT, f"unix:{socket_path}")
    wait_listening(process)
    channel = connect(f"unix:{socket_path}")
    try:
        for game_id, players in [("briscola-chiamata", 5), ("scopa", 2), ("tressette", 4)]:
            state, decisions = play_match(channel, game_id, players, seed=6,
                                          bot_seats=range(players))
            assert decisions == len(state.history())
    finally:
        channel.close()
    code, err = stop(process, signal.SIGTERM)
    assert code == 0, err


@pytest.mark.parametrize("address, message", [
    (None, "error: no address to listen on"),
    ("unix:/nonexistent-dir/bot.sock", "error: socket directory '/nonexistent-dir' does not exist"),
    ("localhost:port", "error: address 'localhost:port': port 'port' is not a number"),
])
def test_a_missing_or_bad_address_exits_with_an_error(bot_process: Start, address: str | None,
                                                      message: str) -> None:
    """The bot prints one clear error line and exits with status 2."""
    process = bot_process(RANDOM_BOT, address)
    code = process.wait(timeout=30)
    assert process.stderr is not None
    err = process.stderr.read()
    assert code == 2, err
    assert message in err and "Traceback" not in err


def test_heuristic_bot_falls_back_to_random_without_a_heuristic(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With no heuristic for the game the sample bot still answers legal ids."""
    spec = importlib.util.spec_from_file_location("heuristic_sample_bot", HEURISTIC_BOT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    game = load_game("misere", players=4)
    matches = [MatchInfo(match_start_message(game, seat, "m", 1, 1)) for seat in range(4)]
    assert module.reference_policy(matches[0], "heuristic") is not None
    monkeypatch.setattr(module, "reference_policy", lambda match, name: None)
    bots = [module.HeuristicBot() for _ in range(4)]
    for bot, match in zip(bots, matches, strict=True):
        bot.on_match_start(match)
        assert bot.policy is None
    state = game.new_initial_state(2)
    encoders = [RequestEncoder(state, seat) for seat in range(4)]
    while not state.is_terminal():
        seat = state.current_player()
        request = Request(encoders[seat].request(1, 1, 1).decision_request, matches[seat])
        answer = bots[seat].act(request)
        assert answer in request.legal_ids
        state.apply_action(answer - 1)
