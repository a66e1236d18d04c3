"""A raw-gRPC test bot whose misbehaviour is scripted on its command line.

    python scripted_bot.py [--version V] [--ready ready|none|malformed|decision]
        [--exit-at-start CODE] [--no-listen] [--faults 1:late,3:illegal] [--crash-at K]
        [--late-ms MS] [--sleep-ms MS] [--ignore-term] [--say TEXT] [--pid-file PATH]
        [--crash-once PATH] [--note TEXT] [--slow-handshake-ms MS]

Decisions are counted per match (stream) from 1. Fault kinds: late (answer after --late-ms,
while later requests are answered at once), hang (answer nothing from then on), illegal,
unset (action 0), stale (an old request id), malformed (bytes that are no PlayResponse),
empty (an empty PlayResponse), ready (a Ready instead of a Decision), big (a message over
64 KiB), twice (answer twice), raise (end the stream with an error). Without a fault the bot
plays the first legal action. At MatchEnd it prints the reason codes it was sent to stderr.
With ``--crash-once PATH``, ``--crash-at`` holds only for the first instance to get there: it
creates PATH before crashing, and an instance that finds PATH plays on. With
``--slow-handshake-ms``, the bot answers each connection that long late: its server listens
on a socket of its own beside CARDARENA_ADDRESS, and a relay on that address holds back the
server's first bytes on each connection (it prints each connection it accepts).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc

from arena.protocol.v1 import agent_pb2 as pb


def options() -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--version", default="cardarena.v1")
    parser.add_argument("--ready", default="ready")
    parser.add_argument("--exit-at-start", type=int, default=None)
    parser.add_argument("--no-listen", action="store_true")
    parser.add_argument("--faults", default="")
    parser.add_argument("--crash-at", type=int, default=0)
    parser.add_argument("--late-ms", type=int, default=1500)
    parser.add_argument("--sleep-ms", type=int, default=0)
    parser.add_argument("--ignore-term", action="store_true")
    parser.add_argument("--say", default="")
    parser.add_argument("--pid-file", default="")
    parser.add_argument("--crash-once", default="")
    parser.add_argument("--note", default="", help="the debug text of every Decision (else "
                                                   "'decision N')")
    parser.add_argument("--slow-handshake-ms", type=int, default=0)
    return parser.parse_args()


def faults_of(text: str) -> dict[int, str]:
    """``1:late,3:illegal`` as {1: "late", 3: "illegal"}."""
    pairs = (item.split(":") for item in text.split(",") if item)
    return {int(index): kind for index, kind in pairs}


def decision(request_id: int, action_id: int, debug: str = "") -> bytes:
    """A serialized Decision."""
    return pb.PlayResponse(decision=pb.Decision(request_id=request_id, action_id=action_id,
                                                debug=debug)).SerializeToString()


END = object()
"""Marks the end of the bot's answers."""


class ScriptedBot:
    """Answers a Play stream as the command line says."""

    def __init__(self, args: argparse.Namespace) -> None:
        """Keep the script."""
        self.args = args
        self.faults = faults_of(args.faults)

    async def play(self, requests: AsyncIterator[pb.PlayRequest],
                   context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
        """One match: requests are handled in order, answers go out through a queue (so a
        late answer does not hold up the next one)."""
        answers: asyncio.Queue[object] = asyncio.Queue()

        async def pump() -> None:
            """Handle every request, then mark the end."""
            state = {"count": 0, "silent": False}
            async for request in requests:
                await self.handle(request, answers, state)
            answers.put_nowait(END)

        task = asyncio.create_task(pump())
        try:
            while (answer := await answers.get()) is not END:
                if isinstance(answer, Exception):
                    raise answer
                assert isinstance(answer, bytes)
                yield answer
        finally:
            task.cancel()

    def crashes(self) -> bool:
        """True when this instance crashes at ``--crash-at`` (with ``--crash-once``: only the
        first instance to get there)."""
        if not self.args.crash_once:
            return True
        try:
            os.close(os.open(self.args.crash_once, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return False
        return True

    async def handle(self, request: pb.PlayRequest, answers: asyncio.Queue[object],
                     state: dict[str, Any]) -> None:
        """Answer one request (or not) as scripted."""
        args = self.args
        which = request.WhichOneof("message")
        if which == "match_start":
            if args.ready == "malformed":
                answers.put_nowait(b"\xff\xff\xff")
            elif args.ready == "decision":
                answers.put_nowait(decision(1, 1))
            elif args.ready != "none":
                answers.put_nowait(pb.PlayResponse(ready=pb.Ready(
                    protocol_version=args.version, bot_name="scripted",
                    bot_version="0.1")).SerializeToString())
        elif which == "decision_request":
            state["count"] += 1
            count = state["count"]
            message = request.decision_request
            legal = [action.id for action in message.legal_actions]
            request_id = message.request_id
            if count == args.crash_at and self.crashes():
                print(f"scripted bot: crashing at decision {count}", file=sys.stderr,
                      flush=True)
                os._exit(3)
            if args.sleep_ms:
                await asyncio.sleep(args.sleep_ms / 1000)
            fault = self.faults.get(count, "")
            if fault == "hang":
                state["silent"] = True
            if state["silent"]:
                return
            if fault == "raise":
                answers.put_nowait(RuntimeError(f"scripted failure at decision {count}"))
                return
            replies = {
                "illegal": [decision(request_id, max(legal) + 1000)],
                "unset": [decision(request_id, 0)],
                "stale": [decision(request_id - 1 if request_id > 1 else 999, legal[0])],
                "malformed": [b"\xff\xff\xff"],
                "empty": [b""],
                "ready": [pb.PlayResponse(ready=pb.Ready()).SerializeToString()],
                "big": [decision(request_id, legal[0], "x" * 100_000)],
                "twice": [decision(request_id, legal[0])] * 2,
            }.get(fault, [decision(request_id, legal[0], args.note or f"decision {count}")])
            for reply in replies:
                if fault == "late":
                    asyncio.get_running_loop().call_later(args.late_ms / 1000,
                                                          answers.put_nowait, reply)
                else:
                    answers.put_nowait(reply)
        elif which == "match_end":
            reasons = [pb.ReasonCode.Name(code) for code in request.match_end.reasons]
            print(f"scripted bot: match end {' '.join(reasons)}", file=sys.stderr, flush=True)


async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                delay_s: float = 0.0) -> None:
    """Copy ``reader`` to ``writer`` until the end, the first bytes ``delay_s`` late."""
    try:
        first = True
        while data := await reader.read(65536):
            if first and delay_s:
                await asyncio.sleep(delay_s)
            first = False
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        writer.close()


async def slow_front(address: str, inner: str, delay_s: float) -> asyncio.Server:
    """Accept connections on ``address`` and relay them to the server on ``inner``, whose
    first answer on each connection is held back ``delay_s`` seconds."""
    accepted = 0

    async def connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Relay one connection both ways."""
        nonlocal accepted
        accepted += 1
        print(f"scripted bot: connection {accepted}", file=sys.stderr, flush=True)
        inner_reader, inner_writer = await asyncio.open_unix_connection(inner)
        relays.update({asyncio.ensure_future(relay(reader, inner_writer)),
                       asyncio.ensure_future(relay(inner_reader, writer, delay_s))})

    relays: set[asyncio.Future[None]] = set()
    return await asyncio.start_unix_server(connect, address.removeprefix("unix:"))


async def serve(args: argparse.Namespace) -> None:
    """Listen on CARDARENA_ADDRESS until SIGTERM."""
    bot = ScriptedBot(args)
    handler = grpc.method_handlers_generic_handler("cardarena.v1.AgentService", {
        "Play": grpc.stream_stream_rpc_method_handler(
            bot.play, request_deserializer=pb.PlayRequest.FromString,
            response_serializer=lambda data: data)})
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((handler,))
    address = os.environ["CARDARENA_ADDRESS"]
    if args.slow_handshake_ms:
        inner = str(Path(address.removeprefix("unix:")).with_name("inner.sock"))
        server.add_insecure_port(f"unix:{inner}")
        await server.start()
        await slow_front(address, inner, args.slow_handshake_ms / 1000)
    else:
        server.add_insecure_port(address)
        await server.start()
    if args.pid_file:
        Path(args.pid_file).write_text(str(os.getpid()), encoding="utf-8")
    stop = asyncio.Event()
    if args.ignore_term:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    else:
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    await server.stop(0.2)


def main() -> None:
    """Start, or fail to start, as scripted."""
    args = options()
    if args.say:
        print(args.say, file=sys.stderr, flush=True)
    if args.exit_at_start is not None:
        print("scripted bot: failing at start", file=sys.stderr, flush=True)
        sys.exit(args.exit_at_start)
    if args.no_listen:
        signal.pause()
    asyncio.run(serve(args))


if __name__ == "__main__":
    main()
