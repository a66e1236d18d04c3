"""The direct reading of a bot's Decision agrees with protobuf's parsing, or steps aside; any
other response is read as protobuf reads it, or named for what it is."""

from __future__ import annotations

from google.protobuf.message import DecodeError
from hypothesis import given
from hypothesis import strategies as st

from arena.protocol import Answer, ReadyAnswer, decision_fields, read_answer, read_ready
from arena.protocol.v1 import agent_pb2 as pb

UINT64 = st.integers(min_value=0, max_value=2**64 - 1)
UINT32 = st.integers(min_value=0, max_value=2**32 - 1)
TEXT = st.text(max_size=40)
SMALL = st.integers(min_value=0, max_value=2**28 - 1)
ASCII = st.text(st.characters(max_codepoint=0x7F), max_size=60)


def protobuf_fields(raw: bytes) -> tuple[int, int, str] | None:
    """What protobuf reads: a Decision's fields, or None for anything else (or bad bytes)."""
    try:
        response = pb.PlayResponse.FromString(raw)
    except DecodeError:
        return None
    if response.WhichOneof("message") != "decision":
        return None
    decision = response.decision
    return decision.request_id, decision.action_id, decision.debug


def encoded(request_id: int, action_id: int, debug: str) -> bytes:
    """A Decision as protobuf serializes it."""
    return pb.PlayResponse(decision=pb.Decision(request_id=request_id, action_id=action_id,
                                                debug=debug)).SerializeToString()


@given(request_id=SMALL, action_id=SMALL, debug=ASCII)
def test_plain_decisions_are_read_directly(request_id: int, action_id: int, debug: str) -> None:
    """Ids below 2**28 and a short ASCII debug text: read directly, as protobuf reads them."""
    raw = encoded(request_id, action_id, debug)
    assert decision_fields(raw) == (request_id, action_id, debug) == protobuf_fields(raw)


@given(request_id=UINT64, action_id=UINT32, debug=TEXT)
def test_any_decision_is_read_right_or_left_to_protobuf(request_id: int, action_id: int,
                                                        debug: str) -> None:
    """Large ids, long or non-ASCII texts may be left to protobuf, never read wrongly."""
    raw = encoded(request_id, action_id, debug)
    assert decision_fields(raw) in (None, protobuf_fields(raw))


@given(data=st.binary(max_size=140))
def test_arbitrary_bytes_are_never_misread(data: bytes) -> None:
    """Whatever the bytes, a direct reading is exactly protobuf's."""
    fields = decision_fields(data)
    if fields is not None:
        assert fields == protobuf_fields(data)


@given(request_id=SMALL, action_id=SMALL, debug=ASCII, position=st.integers(min_value=0),
       byte=st.integers(min_value=0, max_value=255), cut=st.booleans())
def test_damaged_decisions_are_never_misread(request_id: int, action_id: int, debug: str,
                                             position: int, byte: int, cut: bool) -> None:
    """A plain Decision with one byte changed, or cut short: read as protobuf reads it, or
    left to protobuf."""
    raw = bytearray(encoded(request_id, action_id, debug))
    at = position % len(raw)
    if cut:
        del raw[at:]
    else:
        raw[at] = byte
    fields = decision_fields(bytes(raw))
    if fields is not None:
        assert fields == protobuf_fields(bytes(raw))


def test_other_shapes_are_left_to_protobuf() -> None:
    """Ready, an empty response, repeated or reordered fields, overlong varints."""
    decision = encoded(5, 3, "")
    assert decision_fields(decision) == (5, 3, "")
    assert decision_fields(b"") is None
    assert decision_fields(pb.PlayResponse(ready=pb.Ready()).SerializeToString()) is None
    assert decision_fields(b"\x12\x04\x10\x03\x08\x05") is None
    assert decision_fields(b"\x12\x04\x08\x05\x08\x06") is None
    assert decision_fields(b"\x12\x03\x08\x85\x00") is None
    assert decision_fields(decision + decision) is None
    assert decision_fields(b"\x12\x00") == (0, 0, "") == protobuf_fields(b"\x12\x00")


def test_answers_and_ready_are_read_or_named() -> None:
    """A Decision in any shape gives its fields; anything else says what it was."""
    assert read_answer(encoded(5, 3, "")) == Answer(5, 3)
    assert read_answer(b"\x12\x04\x10\x03\x08\x05") == Answer(5, 3)
    assert read_answer(encoded(2**40, 3, "é")) == Answer(2**40, 3, "é")
    ready = pb.PlayResponse(ready=pb.Ready()).SerializeToString()
    assert read_answer(ready).malformed == "a ready message where a Decision was due"
    assert read_answer(b"").malformed == "an empty PlayResponse where a Decision was due"
    assert read_answer(b"\xff").malformed.startswith("not a PlayResponse message (")
    said = pb.Ready(protocol_version="cardarena.v1", bot_name="b", bot_version="1")
    assert read_ready(pb.PlayResponse(ready=said).SerializeToString()) == ReadyAnswer(
        "cardarena.v1", "b", "1")
    assert read_ready(encoded(1, 1, "")).problem == "a decision message, not Ready"
    assert read_ready(b"\xff").problem.startswith("a malformed message (")


def test_the_keys_read_are_the_fields_of_the_schema() -> None:
    from arena.protocol.replies import ACTION_ID_KEY, DEBUG_KEY, DECISION_KEY, REQUEST_ID_KEY
    from arena.protocol.wire import LENGTH, VARINT, tag

    decision = pb.Decision.DESCRIPTOR.fields_by_name
    assert tag(decision["request_id"].number, VARINT) == bytes([REQUEST_ID_KEY])
    assert tag(decision["action_id"].number, VARINT) == bytes([ACTION_ID_KEY])
    assert tag(decision["debug"].number, LENGTH) == bytes([DEBUG_KEY])
    response = pb.PlayResponse.DESCRIPTOR.fields_by_name
    assert tag(response["decision"].number, LENGTH) == bytes([DECISION_KEY])
