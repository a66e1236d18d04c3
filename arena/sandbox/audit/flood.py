"""A hostile bot that floods the arena in one way, named by its first argument:

- ``unsolicited``: Ready, then Decisions that nothing asked for, as fast as it can, each near
  the 64 KiB message limit;
- ``metadata``: initial metadata of many large entries before anything else;
- ``trailers``: Ready, then at its first decision the end of the stream with trailers of many
  large entries;
- ``details``: Ready, then at its first decision the end of the stream with a 4 MiB status text;
- ``compressed``: Ready, then a gzip-compressed answer that inflates to 64 MiB;
- ``output``: plays legally while a thread writes its standard error without pause.

It is a raw gRPC server (``rawserver``: no SDK sends such things) on ``CARDARENA_ADDRESS``,
until SIGTERM.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator

import grpc

from arena.protocol import rawserver
from arena.protocol.schema import agent as pb

MODES = ("unsolicited", "metadata", "trailers", "details", "compressed", "output")
LARGE_ENTRIES = [(f"x-flood-{index}", "v" * 8000) for index in range(256)]
"""Metadata of about 2 MiB."""
DETAILS = "d" * (4 << 20)
INFLATED = 64 << 20
UNASKED = pb.PlayResponse(decision=pb.Decision(request_id=987654321, action_id=1,
                                               debug="f" * 60_000)).SerializeToString()
READY = pb.PlayResponse(ready=pb.Ready(protocol_version="cardarena.v1", bot_name="flood",
                                       bot_version="0.1.0")).SerializeToString()


def answer(request: pb.DecisionRequest) -> bytes:
    """A Decision for the request's first legal action."""
    return pb.PlayResponse(decision=pb.Decision(
        request_id=request.request_id,
        action_id=request.legal_actions[0].id)).SerializeToString()


def play(mode: str, requests: Iterator[pb.PlayRequest],
         context: grpc.ServicerContext) -> Iterator[bytes]:
    """One Play stream, flooding as ``mode`` says."""
    if mode == "metadata":
        context.send_initial_metadata(LARGE_ENTRIES)
    for request in requests:
        which = request.WhichOneof("message")
        if which == "match_start":
            yield READY
            if mode == "unsolicited":
                while context.is_active():
                    yield UNASKED
                return
        elif which == "decision_request":
            if mode == "trailers":
                context.set_trailing_metadata(LARGE_ENTRIES)
                context.abort(grpc.StatusCode.INTERNAL, "trailers")
            if mode == "details":
                context.abort(grpc.StatusCode.INTERNAL, DETAILS)
            if mode == "compressed":
                context.set_compression(grpc.Compression.Gzip)
                yield b"\x00" * INFLATED
                continue
            yield answer(request.decision_request)
        else:
            return


def write_output() -> None:
    """Write standard error without pause (the ``output`` mode)."""
    line = b"flood: " + b"o" * 65_000 + b"\n"
    while True:
        os.write(2, line)


def serve(mode: str) -> None:
    """Listen on ``CARDARENA_ADDRESS`` until SIGTERM."""
    if mode == "output":
        threading.Thread(target=write_output, daemon=True).start()
    rawserver.serve(lambda requests, context: play(mode, requests, context),
                    options=[("grpc.max_send_message_length", -1)])


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in MODES:
        sys.exit(f"usage: flood.py {'|'.join(MODES)}")
    serve(sys.argv[1])
