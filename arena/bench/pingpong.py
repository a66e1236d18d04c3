"""The raw baseline of ``arena bench protocol``: a bare AgentService and a lock-step client.

The server (``python -m arena.bench.pingpong ADDRESS``, run as a process of its own) is the
stock generated AgentService on a stock gRPC server, as a Python bot's would be, and answers
every message of a Play stream at once with the same small Decision. The client replays the
messages of a duplicate set as the arena sent them: one process per entrant (a server each,
as each bot is a process of its own), each deal's MatchStarts, then every request to its
entrant's stream in the order of play, reading each answer before it writes the next and
timing every round trip. Going from one process to the next costs a round trip far more than
talking to the same one again (the other process must wake up), so the baseline visits the
processes as a match does. It uses the same asyncio gRPC stack and channel options as the
arena, without the arena's queues, deadlines and checks. Pointed at real bots, the same client
times the bots' side alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc

from arena.agents.child import ChildProcess, start_child
from arena.agents.process import MAX_MESSAGE_BYTES, channel_options, listening_or_exited
from arena.agents.stream import PLAY_METHOD
from arena.bench.errors import BenchError
from arena.bench.overhead import DealMessages
from arena.protocol.schema import agent as pb
from arena.protocol.schema import agent_grpc
from arena.sandbox.lifeline import pdeathsig_preexec

REPLY = pb.PlayResponse(decision=pb.Decision(request_id=1, action_id=1))
"""The server's one answer, as large as a Decision of a small bot without debug text."""

STOP_GRACE_S = 2.0
"""Seconds the server gets to exit after SIGTERM before SIGKILL."""


class PingPongServicer(agent_grpc.AgentServiceServicer):
    """Answers every PlayRequest of a stream with ``REPLY``, doing nothing else."""

    def Play(self, request_iterator: Iterator[pb.PlayRequest],
             context: grpc.ServicerContext) -> Iterator[pb.PlayResponse]:
        """One answer per request, until the client half-closes."""
        for _ in request_iterator:
            yield REPLY


def serve(address: str) -> None:
    """Serve the ping-pong service at ``address`` until SIGTERM or SIGINT."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    agent_grpc.add_AgentServiceServicer_to_server(PingPongServicer(), server)
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
    """Replays the messages of duplicate sets in lock step, one channel per entrant, timing each
    round trip."""

    def __init__(self, addresses: Sequence[str]) -> None:
        """Talk to entrant ``i`` at ``addresses[i]`` (``unix:`` targets); nothing connects
        before ``connect``."""
        self.addresses = list(addresses)
        self.channels: list[grpc.aio.Channel] = []

    async def connect(self) -> None:
        """Open the channels and wait until every server listens (no deadline of its own)."""
        self.channels = [grpc.aio.insecure_channel(address,
                                                   options=channel_options(MAX_MESSAGE_BYTES))
                         for address in self.addresses]
        await asyncio.gather(*(channel.channel_ready() for channel in self.channels))

    async def play(self, deals: Sequence[DealMessages]) -> list[int]:
        """Each deal as the arena played it: a Play stream per entrant with its MatchStart
        (untimed), then every request on its entrant's stream, timed; the round trips in µs."""
        if not self.channels:
            raise RuntimeError("lock-step client used before connect")
        methods = [channel.stream_stream(PLAY_METHOD, request_serializer=_identity,
                                         response_deserializer=None)
                   for channel in self.channels]
        times: list[int] = []
        for deal in deals:
            calls = {entrant: methods[entrant]() for entrant in deal.starts}
            try:
                for entrant, start in deal.starts.items():
                    await self._round_trip(calls[entrant], start, entrant)
                clock = time.perf_counter_ns
                for entrant, payload in deal.turns:
                    began = clock()
                    await self._round_trip(calls[entrant], payload, entrant)
                    times.append((clock() - began) // 1000)
                for entrant, call in calls.items():
                    await call.done_writing()
                    code = await call.code()
                    if code != grpc.StatusCode.OK:
                        raise BenchError(f"the server at {self.addresses[entrant]} ended a "
                                         f"stream with {code.name}")
            finally:
                for call in calls.values():
                    call.cancel()
        return times

    async def _round_trip(self, call: Any, payload: bytes, entrant: int) -> None:
        """Write one request and read its answer."""
        await call.write(payload)
        if await call.read() is grpc.aio.EOF:
            raise BenchError(f"the server at {self.addresses[entrant]} ended a stream early")

    async def close(self) -> None:
        """Close the channels."""
        channels, self.channels = self.channels, []
        for channel in channels:
            await channel.close()


async def _listening(address: str) -> None:
    """Return once a server listens at ``address``."""
    async with grpc.aio.insecure_channel(address) as channel:
        await channel.channel_ready()


class PingPongServers:
    """Ping-pong servers as child processes on Unix sockets, one per entrant, with a client
    for them."""

    def __init__(self, folder: Path, count: int) -> None:
        """``count`` servers listening in ``folder`` (a short path: Unix socket paths are
        limited)."""
        self.client = LockStepClient([f"unix:{folder / f'pingpong-{index}.sock'}"
                                      for index in range(count)])
        self.processes: list[ChildProcess] = []

    async def start(self, startup_s: float) -> None:
        """Start the servers and wait until each listens, at most ``startup_s`` seconds."""
        for address in self.client.addresses:
            self.processes.append(await start_child(
                [sys.executable, "-m", "arena.bench.pingpong", address], Path.cwd(),
                os.environ, pdeathsig_preexec()))
        await asyncio.gather(*(self._wait_listening(process, address, startup_s) for
                               process, address in zip(self.processes, self.client.addresses,
                                                       strict=True)))
        await self.client.connect()

    @staticmethod
    async def _wait_listening(process: ChildProcess, address: str,
                              startup_s: float) -> None:
        """Return when the server listens; ``BenchError`` with its output if it does not."""
        outcome = await listening_or_exited(_listening(address), process, startup_s)
        if outcome == "listening":
            return
        error = b""
        if outcome == "exited" and process.stdout is not None:
            error = await process.stdout.read()
        text = " ".join(error.decode(errors="replace").split())
        raise BenchError("the raw gRPC ping-pong server did not listen within "
                         f"{startup_s:g} s" + (f": {text}" if text else ""))

    async def stop(self) -> None:
        """Close the client and stop the servers (SIGTERM, then SIGKILL)."""
        await self.client.close()
        processes, self.processes = self.processes, []
        await asyncio.gather(*(_stop(process) for process in processes))


async def _stop(process: ChildProcess) -> None:
    """Stop a server process: SIGTERM, then SIGKILL after a grace period."""
    if process.returncode is not None:
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
