"""A bot's responses read from their bytes: Ready after MatchStart, a Decision after a request.

Neither reader raises: a response that is not the message due comes back with what was wrong
with it, for the agent to turn into a fault. A plainly encoded Decision is read straight from
its bytes (``decision_fields``); anything else goes through protobuf, which then decides what
the bytes mean.
"""

from __future__ import annotations

from typing import NamedTuple

from google.protobuf.message import DecodeError

from arena.protocol.replies import decision_fields
from arena.protocol.v1 import agent_pb2 as pb


class Answer(NamedTuple):
    """A response to a DecisionRequest as read: the Decision's fields, wire ids as sent."""

    request_id: int
    action_id: int
    debug: str = ""
    malformed: str = ""
    """Non-empty when the response was not a Decision: what was wrong with it."""


class ReadyAnswer(NamedTuple):
    """A response to MatchStart as read: what the bot said in Ready, or what came instead."""

    protocol_version: str = ""
    bot_name: str = ""
    bot_version: str = ""
    problem: str = ""
    """Non-empty when the response was not a Ready: what it was instead."""
    keeps_stream: bool = False
    """The bot waits on the stream after MatchEnd for its next match (``Ready.keeps_stream``)."""


def _what(which: str | None) -> str:
    """``an empty PlayResponse`` or ``a NAME message``."""
    return "an empty PlayResponse" if which is None else f"a {which} message"


def read_answer(raw: bytes) -> Answer:
    """A serialized PlayResponse answering a DecisionRequest; anything but a Decision is
    marked malformed."""
    fields = decision_fields(raw)
    if fields is not None:
        return Answer(*fields)
    try:
        response = pb.PlayResponse.FromString(raw)
    except DecodeError as error:
        return Answer(0, 0, "", f"not a PlayResponse message ({error})")
    which = response.WhichOneof("message")
    if which != "decision":
        return Answer(0, 0, "", f"{_what(which)} where a Decision was due")
    decision = response.decision
    return Answer(decision.request_id, decision.action_id, decision.debug)


def read_ready(raw: bytes) -> ReadyAnswer:
    """A serialized PlayResponse answering MatchStart: its Ready, or the problem with it."""
    try:
        response = pb.PlayResponse.FromString(raw)
    except DecodeError as error:
        return ReadyAnswer(problem=f"a malformed message ({error})")
    which = response.WhichOneof("message")
    if which != "ready":
        return ReadyAnswer(problem=f"{_what(which)}, not Ready")
    ready = response.ready
    return ReadyAnswer(ready.protocol_version, ready.bot_name, ready.bot_version,
                       keeps_stream=ready.keeps_stream)
