"""A bot's answer as bytes: the same bytes protobuf writes, read back by the arena."""

from __future__ import annotations

import enum
import itertools
import operator
import random

import pytest
from cardarena_sdk.answer import (
    MAX_DEBUG_BYTES,
    action_id_of,
    debug_bytes,
    decision_bytes,
    serialize_response,
    varint,
)

from arena.protocol.replies import decision_fields
from arena.protocol.v1 import agent_pb2 as pb

REQUEST_IDS = [0, 1, 2, 127, 128, 255, 300, 16383, 16384, 2**21 - 1, 2**21, 2**28,
               2**31 - 1, 2**32, 2**35 + 5, 2**63, 2**64 - 1]
ACTION_IDS = [0, 1, 5, 127, 128, 129, 999, 16383, 16384, 2**28 - 1, 2**31 - 1, 2**32 - 1]
DEBUG_TEXTS = ["", "a", "best card 3", "x" * 125, "x" * 126, "x" * 127, "x" * 128,
               "é", "7♦ — sette di denari", "日本語", "🂡" * 3, "x" * 1024, "x" * 1025,
               "é" * 511 + "x", "é" * 512, "é" * 600, "x" + "é" * 600, "🂡" * 300,
               "x" * 5000]


def old_cap(text: str) -> str:
    """The debug text as the server capped it before it wrote bytes itself."""
    data = text.encode()
    if len(data) <= MAX_DEBUG_BYTES:
        return text
    return data[:MAX_DEBUG_BYTES].decode(errors="ignore")


def protobuf_bytes(request_id: int, action_id: int, debug: str = "") -> bytes:
    """What protobuf serializes for the Decision."""
    decision = pb.Decision(request_id=request_id, action_id=action_id, debug=old_cap(debug))
    return pb.PlayResponse(decision=decision).SerializeToString()


def test_decision_bytes_are_protobufs_bytes() -> None:
    """Every id size, and empty, ASCII, non-ASCII and capped debug text."""
    for request_id, action_id, text in itertools.product(REQUEST_IDS, ACTION_IDS, DEBUG_TEXTS):
        expected = protobuf_bytes(request_id, action_id, text)
        assert decision_bytes(request_id, action_id, debug_bytes(text)) == expected, (
            request_id, action_id, text[:20])
        response = pb.PlayResponse.FromString(expected)
        assert response.decision.debug == old_cap(text)


def test_random_decisions_are_protobufs_bytes() -> None:
    """Random ids of every magnitude and random text."""
    rng = random.Random(7)
    alphabet = "abc é♦日🂡\n\x00"
    for _ in range(3000):
        request_id = rng.getrandbits(rng.randrange(1, 65))
        action_id = rng.getrandbits(rng.randrange(1, 33))
        text = "".join(rng.choice(alphabet) for _ in range(rng.choice([0, 1, 5, 300, 700])))
        assert decision_bytes(request_id, action_id, debug_bytes(text)) == protobuf_bytes(
            request_id, action_id, text)


def test_the_arena_reads_plain_decisions() -> None:
    """The arena's fast reader gives back what was written (it leaves the rest to protobuf)."""
    for request_id, action_id, text in itertools.product(
            [1, 2, 127, 128, 300, 16384, 2**28 - 1], [1, 127, 128, 999], ["", "ok", "x" * 100]):
        data = decision_bytes(request_id, action_id, debug_bytes(text))
        assert decision_fields(data) == (request_id, action_id, text)


def test_out_of_range_action_ids_raise_protobufs_error() -> None:
    """A negative id or one beyond uint32 raises the ValueError protobuf raises."""
    for action_id in [-1, -128, 2**32, 2**40, 2**64]:
        with pytest.raises(ValueError) as expected:
            pb.Decision(action_id=action_id)
        with pytest.raises(ValueError) as error:
            decision_bytes(1, action_id)
        assert str(error.value) == str(expected.value)


def test_debug_bytes_of_any_object() -> None:
    """Non-strings are written as ``str`` gives them; unencodable text raises as protobuf's."""
    assert debug_bytes(42) == b"42" and debug_bytes(None) == b"None"
    with pytest.raises(UnicodeEncodeError):
        debug_bytes("\ud800")


class Action(enum.IntEnum):
    """An int enum a bot might answer with."""

    FIRST = 1


class Index:
    """An object that stands for an int, as numpy integers do."""

    def __index__(self) -> int:
        """Three."""
        return 3


def test_action_id_of_answers() -> None:
    """Ints and int-like answers give ints; bools and non-integers raise TypeError."""
    assert action_id_of(Action.FIRST) == 1 and type(action_id_of(Action.FIRST)) is int
    assert action_id_of(Index()) == 3
    with pytest.raises(TypeError, match="a bool is not an action id"):
        action_id_of(True)
    for answer in ["1", None, 1.0]:
        with pytest.raises(TypeError) as expected:
            operator.index(answer)  # type: ignore[arg-type]
        with pytest.raises(TypeError) as error:
            action_id_of(answer)
        assert str(error.value) == str(expected.value)


def test_varints() -> None:
    """Varints of every length, as protobuf writes a uint64."""
    assert varint(0) == b"\x00"
    for value in [1, 127, 128, 16383, 16384, 2**21, 2**35, 2**63, 2**64 - 1]:
        assert varint(value) == pb.Decision(request_id=value).SerializeToString()[1:]


def test_serialize_response() -> None:
    """Bytes pass through; a Ready (or any PlayResponse) is serialized by protobuf."""
    data = decision_bytes(3, 4)
    assert serialize_response(data) is data
    ready = pb.PlayResponse(ready=pb.Ready(protocol_version="cardarena.v1", bot_name="b"))
    assert serialize_response(ready) == ready.SerializeToString()
