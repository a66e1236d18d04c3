"""An arena-side test client for bots: start bot processes, connect, play matches in lock step."""

from __future__ import annotations

import os
import queue
import select
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import grpc

from arena.games import Game, State, load_game
from arena.policies import make_policy
from arena.protocol import RequestEncoder, match_end_message, match_start_message
from arena.protocol.v1 import agent_pb2 as pb
from arena.protocol.v1 import agent_pb2_grpc
from arena.reasons import Reason

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_BOTS = ROOT / "sample_bots" / "python"
READY_TIMEOUT_S = 20.0
"""How long a bot process may take to listen (imports on a busy 2-core machine)."""
CALL_TIMEOUT_S = 30.0
"""The deadline of one Play stream in the tests."""

CHANNEL_OPTIONS = [
    ("grpc.default_authority", "localhost"),
    ("grpc.initial_reconnect_backoff_ms", 50),
    ("grpc.min_reconnect_backoff_ms", 50),
    ("grpc.max_reconnect_backoff_ms", 200),
]
"""Retry connecting quickly while a freshly started bot is still importing; ``localhost`` as
the HTTP/2 authority, as the arena sends it (over a Unix socket gRPC would send the socket's
path, which the compiled server, like other HTTP/2 servers, refuses as malformed)."""


def bot_env(address: str | None) -> dict[str, str]:
    """The environment of a bot process, with ``CARDARENA_ADDRESS`` set or removed."""
    env = {k: v for k, v in os.environ.items() if k != "CARDARENA_ADDRESS"}
    if address is not None:
        env["CARDARENA_ADDRESS"] = address
    env["PYTHONUNBUFFERED"] = "1"
    return env


def start_bot(script: Path, address: str | None, args: Sequence[str] = ()) -> subprocess.Popen[str]:
    """Start ``python script`` in its folder, as the arena does."""
    return subprocess.Popen([sys.executable, str(script), *args], cwd=script.parent,
                            env=bot_env(address), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def stop_process(process: subprocess.Popen[str]) -> None:
    """Kill a process if it still runs, and reap it."""
    if process.poll() is None:
        process.kill()
    process.wait(timeout=10)
    if process.stderr is not None:
        process.stderr.close()


def read_line(process: subprocess.Popen[str], timeout: float) -> str:
    """The next stderr line of a process, waiting at most ``timeout`` seconds."""
    assert process.stderr is not None
    ready, _, _ = select.select([process.stderr], [], [], timeout)
    assert ready, f"no stderr line from the bot in {timeout} s"
    return process.stderr.readline()


def wait_listening(process: subprocess.Popen[str]) -> str:
    """Wait for the bot's "listening on ADDRESS" line and return ADDRESS."""
    deadline = time.monotonic() + READY_TIMEOUT_S
    while True:
        line = read_line(process, max(0.0, deadline - time.monotonic()))
        assert line, f"the bot exited before listening (exit code {process.wait(timeout=10)})"
        if " listening on " in line:
            return line.rsplit(" listening on ", 1)[1].strip()


def connect(target: str) -> grpc.Channel:
    """A channel to a bot, once it is ready."""
    channel = grpc.insecure_channel(target, options=CHANNEL_OPTIONS)
    try:
        grpc.channel_ready_future(channel).result(timeout=READY_TIMEOUT_S)
    except grpc.FutureTimeoutError:
        channel.close()
        raise AssertionError(f"the bot at {target} did not become ready") from None
    return channel


class Conversation:
    """One Play stream driven in lock step: send a message, read the answer."""

    def __init__(self, channel: grpc.Channel) -> None:
        """Open the stream."""
        self._outbox: queue.Queue[pb.PlayRequest | None] = queue.Queue()
        stub = agent_pb2_grpc.AgentServiceStub(channel)
        self.responses: Iterator[pb.PlayResponse] = stub.Play(
            iter(self._outbox.get, None), timeout=CALL_TIMEOUT_S)

    def send(self, message: pb.PlayRequest) -> None:
        """Send one message."""
        self._outbox.put(message)

    def ask(self, message: pb.PlayRequest) -> pb.PlayResponse:
        """Send one message and return the bot's answer."""
        self.send(message)
        return next(self.responses)

    def finish(self) -> list[pb.PlayResponse]:
        """Close the arena's side and read what is left of the stream."""
        self._outbox.put(None)
        return list(self.responses)


def start_message(game: Game, seat: int, match_id: str = "m-1") -> pb.PlayRequest:
    """The MatchStart of a seat, as a PlayRequest."""
    return pb.PlayRequest(match_start=match_start_message(game, seat, match_id, 1000, 10000))


def play_match(channel: grpc.Channel, game_id: str, players: int, seed: int,
               bot_seats: Sequence[int], match_id: str = "m-1") -> tuple[State, int]:
    """Play a whole match, ``bot_seats`` answered by the bot and the rest by random policies.

    Every answer must be a legal action of the request it answers; returns the final state and
    the number of decisions the bot made.
    """
    game = load_game(game_id, players=players)
    state = game.new_initial_state(seed)
    streams = {seat: Conversation(channel) for seat in bot_seats}
    for seat, stream in streams.items():
        ready = stream.ask(start_message(game, seat, match_id))
        assert ready.WhichOneof("message") == "ready", ready
    encoders = {seat: RequestEncoder(state, seat) for seat in bot_seats}
    locals_ = {seat: make_policy("random", game, seat, seed) for seat in range(players)
               if seat not in streams}
    request_id = decisions = 0
    while not state.is_terminal():
        seat = state.current_player()
        if seat in streams:
            request_id += 1
            answer = streams[seat].ask(encoders[seat].request(request_id, 1000, 10000))
            assert answer.WhichOneof("message") == "decision", answer
            assert answer.decision.request_id == request_id
            legal = state.legal_actions()
            assert answer.decision.action_id - 1 in legal, (answer, legal)
            state.apply_action(answer.decision.action_id - 1)
            decisions += 1
        else:
            state.apply_action(locals_[seat].act(state.observation(seat)))
    end = pb.PlayRequest(match_end=match_end_message(state, [Reason.OK] * players))
    for stream in streams.values():
        stream.send(end)
        assert stream.finish() == []
    return state, decisions
