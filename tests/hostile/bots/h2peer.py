"""A bare HTTP/2 peer for hostile test bots that misbehave below gRPC, in flow control.

It listens on ``CARDARENA_ADDRESS``, answers the connection's SETTINGS and PINGs as a live
peer does, and never sends a window update. With ``ready=False`` every stream's window is
shut from the start, so not even MatchStart can be written to it; with ``ready=True`` it takes
the MatchStart of each stream, shuts the windows (a SETTINGS change of the initial window
applies to open streams too) and answers with Ready, so no request gets through.
"""

from __future__ import annotations

import asyncio
import os
import struct

from arena.protocol import PROTOCOL_VERSION
from arena.protocol.v1 import agent_pb2 as pb

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, SETTINGS, PING = 0x0, 0x1, 0x4, 0x6
ACK, END_HEADERS = 0x1, 0x4
INITIAL_WINDOW_SIZE = 0x4
RESPONSE_HEADERS = b"\x88" + b"\x5f\x10application/grpc"
""":status 200 and content-type application/grpc, HPACK-encoded (static table entries 8
and 31)."""


def frame(kind: int, flags: int, payload: bytes = b"", stream: int = 0) -> bytes:
    """An HTTP/2 frame."""
    return (struct.pack(">I", len(payload))[1:] + bytes([kind, flags])
            + struct.pack(">I", stream) + payload)


def shut_windows() -> bytes:
    """SETTINGS making every stream's initial window zero bytes."""
    return frame(SETTINGS, 0, struct.pack(">HI", INITIAL_WINDOW_SIZE, 0))


def ready_message() -> bytes:
    """A length-prefixed gRPC message: the PlayResponse carrying Ready."""
    body = pb.PlayResponse(ready=pb.Ready(protocol_version=PROTOCOL_VERSION,
                                          bot_name="window-shuts",
                                          bot_version="0.1.0")).SerializeToString()
    return b"\x00" + struct.pack(">I", len(body)) + body


async def serve_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                           ready: bool) -> None:
    """One connection: the window policy above; everything else ignored."""
    writer.write(frame(SETTINGS, 0) if ready else shut_windows())
    answered: set[int] = set()
    try:
        await reader.readexactly(len(PREFACE))
        while True:
            header = await reader.readexactly(9)
            length = int.from_bytes(header[:3], "big")
            kind, flags = header[3], header[4]
            stream = int.from_bytes(header[5:9], "big") & 0x7FFFFFFF
            payload = await reader.readexactly(length)
            if kind == SETTINGS and not flags & ACK:
                writer.write(frame(SETTINGS, ACK))
            elif kind == PING and not flags & ACK:
                writer.write(frame(PING, ACK, payload))
            elif kind == DATA and ready and length and stream not in answered:
                # The windows shut first: by the time the arena reads Ready, no request fits.
                answered.add(stream)
                writer.write(shut_windows())
                writer.write(frame(HEADERS, END_HEADERS, RESPONSE_HEADERS, stream))
                writer.write(frame(DATA, 0, ready_message(), stream))
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        writer.close()


async def serve(ready: bool) -> None:
    """Listen on the arena's Unix socket until killed."""
    path = os.environ["CARDARENA_ADDRESS"].removeprefix("unix:")
    server = await asyncio.start_unix_server(
        lambda reader, writer: serve_connection(reader, writer, ready), path)
    async with server:
        await server.serve_forever()
