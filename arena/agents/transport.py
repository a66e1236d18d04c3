"""Which transport carries a bot's Play streams: the compiled one (``arena.agents.native``)
or the ``grpc.aio`` reference (``arena.agents.stream``), chosen by ``CARDARENA_TRANSPORT``.

``auto`` (the default) takes the compiled transport when it is built (``pip install
./wire``), ``native`` requires it, ``grpc`` takes the reference. Both give the same streams
(``BotStream``): the same requests and answers, deadlines, stalls, floods, limits and clock.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import grpc

from arena.agents.native import NativeChannel, NativeStream, built
from arena.agents.stream import PlayStream, StreamEnd

TRANSPORT_ENV = "CARDARENA_TRANSPORT"
"""The environment variable that chooses the transport."""

TRANSPORTS = ("auto", "native", "grpc")

BotChannel = grpc.aio.Channel | NativeChannel
"""A connection to one bot."""

BotStream = PlayStream | NativeStream
"""One Play stream to a bot."""


class TransportError(RuntimeError):
    """``CARDARENA_TRANSPORT`` names no transport, or one that is not built."""


def transport() -> str:
    """``native`` or ``grpc``: the transport ``CARDARENA_TRANSPORT`` chooses here."""
    choice = os.environ.get(TRANSPORT_ENV, "auto").strip().lower() or "auto"
    if choice not in TRANSPORTS:
        raise TransportError(f"{TRANSPORT_ENV}={choice!r} is not a transport; choose one of "
                             f"{', '.join(TRANSPORTS)}")
    if choice == "native" and not built():
        raise TransportError(f"{TRANSPORT_ENV}=native, but the compiled transport "
                             "cardarena_wire is not installed (pip install ./wire; needs cargo)")
    if choice == "auto":
        return "native" if built() else "grpc"
    return choice


def bot_channel(target: str, max_message_bytes: int, options: Sequence[tuple[str, Any]],
                max_metadata_bytes: int, backoff_ms: Sequence[int]) -> BotChannel:
    """A channel to the bot at ``target``: the compiled transport's, or a ``grpc.aio`` one
    with ``options`` (both with the same limits)."""
    if transport() == "native":
        return NativeChannel(target, max_message_bytes, max_metadata_bytes, backoff_ms)
    return grpc.aio.insecure_channel(target, options=list(options))


def open_stream(channel: BotChannel) -> BotStream:
    """A new Play stream on ``channel``."""
    if isinstance(channel, NativeChannel):
        return NativeStream(channel)
    return PlayStream(channel)


async def probe_end(channel: BotChannel, wait_s: float) -> StreamEnd | None:
    """How the bot ends a Play stream the arena writes nothing to, within ``wait_s`` seconds:
    None when it waits for a request, as a bot should. With no write to race, gRPC keeps the
    status of a stream the bot ends at once (oversized header metadata, say), which a write
    racing that end can lose (``StreamEnd.lost``)."""
    stream = open_stream(channel)
    try:
        item = await stream.receive(wait_s)
    finally:
        await stream.close(0)
    return item if isinstance(item, StreamEnd) else None
