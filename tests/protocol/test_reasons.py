"""The domain's reason codes on the wire: each maps to the ReasonCode of its name, and back."""

from __future__ import annotations

import pytest

from arena.protocol import ProtocolError
from arena.protocol.reasons import WIRE_PREFIX, from_wire, to_wire
from arena.protocol.v1 import agent_pb2 as pb
from arena.reasons import Reason


def test_every_reason_is_the_wire_code_of_its_name() -> None:
    for reason in Reason:
        code = to_wire(reason)
        assert pb.ReasonCode.Name(code) == WIRE_PREFIX + reason.name
        assert from_wire(code) is reason


def test_every_set_wire_code_is_a_reason() -> None:
    codes = [code for code in pb.ReasonCode.values() if code != pb.REASON_CODE_UNSPECIFIED]
    assert sorted(to_wire(from_wire(code)) for code in codes) == sorted(codes)
    assert len(codes) == len(Reason)


def test_unspecified_and_unknown_codes_are_refused() -> None:
    with pytest.raises(ProtocolError, match="0 is not a ReasonCode"):
        from_wire(pb.REASON_CODE_UNSPECIFIED)
    with pytest.raises(ProtocolError, match="99 is not a ReasonCode"):
        from_wire(99)
    with pytest.raises(ProtocolError, match="3 is not a reason code"):
        to_wire(3)  # type: ignore[arg-type]


def test_a_reason_is_stored_and_printed_by_its_name() -> None:
    assert [str(reason) for reason in Reason] == ["OK", "TIMEOUT", "INVALID", "CRASH", "OOM",
                                                  "INIT_ERROR", "VOID_INFRA"]
    assert Reason("CRASH") is Reason.CRASH
