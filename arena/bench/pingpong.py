"""The raw baseline of ``arena bench protocol``: a bare AgentService and a lock-step client.

The server (``python -m arena.bench.pingpong ADDRESS``, run as a process of its own) is the
stock generated AgentService on a stock gRPC server, as a Python bot's would be, and answers
every message of a Play stream at once with the same small Decision. The client writes
pre-serialized PlayRequests on Play streams and reads each answer before it writes the next,
timing every round trip; it uses the same asyncio gRPC stack and channel options as the arena,
without the arena's queues, deadlines and checks. Pointed at a real bot, the same client
times the bot's side alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent import futures
from pathlib import Path

import grpc

from arena.agents.process import MAX_MESSAGE_BYTES, channel_options, listening_or_exited
from arena.agents.stream import PLAY_METHOD
from arena.bench.errors import BenchError
from arena.protocol.v1 import agent_pb2 as pb
from arena.protocol.v1 import agent_pb2_grpc

REPLY = pb.PlayResponse(decision=pb.Decision(request_id=1, action_id=1))
"""The server's one answer, as large as a Decision of a small bot without debug text."""

SOCKET_NAME = "pingpong.sock"
STOP_GRACE_S = 2.0
"""Seconds the server gets to exit after SIGTERM before SIGKILL."""


class PingPongServicer(agent_pb2_grpc.AgentServiceServicer):
    """Answers every PlayRequest of a stream with ``REPLY``, doing nothing else."""

    def Play(self, request_iterator: Iterator[pb.PlayRequest],
             context: grpc.ServicerContext) -> Iterator[pb.PlayResponse]:
        """One answer per request, until the client half-closes."""
        for _ in request_iterator:
            yield REPLY


def serve(address: str) -> None:
    """Serve the ping-pong service at ``address`` until SIGTERM or SIGINT."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    agent_pb2_grpc.add_AgentServiceServicer_to_server(PingPongServicer(), server)
    if server.add_insecure_port(address) == 0:
        sys.exit(f"error: cannot listen on {address}")
    stopping = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stopping.set())
    server.start()
    stopping.wait()
    server.stop(0).wait()


def _identity(data: bytes) -> bytes:
    """Requests are sent as the bytes given."""
    return data


class LockStepClient:
    """Plays Play streams of pre-serialized requests in lock step, timing each round trip."""

    def __init__(self, address: str) -> None:
        """Talk to ``address`` (a ``unix:`` target); nothing connects before ``connect``."""
        self.address = address
        self.channel: grpc.aio.Channel | None = None

    async def connect(self) -> None:
        """Open the channel and wait until the server listens (no deadline of its own)."""
        self.channel = grpc.aio.insecure_channel(self.address,
                                                 options=channel_options(MAX_MESSAGE_BYTES))
        await self.channel.channel_ready()

    async def play(self, streams: Sequence[Sequence[bytes]]) -> list[int]:
        """One Play stream per item: its first message untimed (a MatchStart), then each
        request and its answer timed; every timed round trip in µs."""
        if self.channel is None:
            raise RuntimeError("lock-step client used before connect")
        method = self.channel.stream_stream(PLAY_METHOD, request_serializer=_identity,
                                            response_deserializer=None)
        clock = time.perf_counter_ns
        times = []
        for messages in streams:
            call = method()
            try:
                for index, payload in enumerate(messages):
                    start = clock()
                    await call.write(payload)
                    reply = await call.read()
                    if index:
                        times.append((clock() - start) // 1000)
                    if reply is grpc.aio.EOF:
                        raise BenchError(f"the server at {self.address} ended a stream early")
                await call.done_writing()
                code = await call.code()
                if code != grpc.StatusCode.OK:
                    raise BenchError(f"the server at {self.address} ended a stream with "
                                     f"{code.name}")
            finally:
                call.cancel()
        return times

    async def close(self) -> None:
        """Close the channel."""
        if self.channel is not None:
            await self.channel.close()
            self.channel = None


class PingPongProcess:
    """The ping-pong server as a child process on a Unix socket, with a client for it."""

    def __init__(self, folder: Path) -> None:
        """Listen in ``folder`` (a short path: Unix socket paths are limited)."""
        self.client = LockStepClient(f"unix:{folder / SOCKET_NAME}")
        self.process: asyncio.subprocess.Process | None = None

    async def start(self, startup_s: float) -> None:
        """Start the server and wait until it listens, at most ``startup_s`` seconds."""
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "arena.bench.pingpong", self.client.address,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE, start_new_session=True)
        outcome = await listening_or_exited(self.client.connect(), self.process, startup_s)
        if outcome == "listening":
            return
        error = b""
        if outcome == "exited" and self.process.stderr is not None:
            error = await self.process.stderr.read()
        text = " ".join(error.decode(errors="replace").split())
        raise BenchError("the raw gRPC ping-pong server did not listen within "
                         f"{startup_s:g} s" + (f": {text}" if text else ""))

    async def stop(self) -> None:
        """Close the client and stop the server (SIGTERM, then SIGKILL)."""
        await self.client.close()
        process = self.process
        if process is None or process.returncode is not None:
            return
        process.terminate()
        try:
            await asyncio.wait_for(process.wait(), STOP_GRACE_S)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m arena.bench.pingpong ADDRESS")
    serve(sys.argv[1])
