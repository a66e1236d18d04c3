"""Captured bot output: the last bytes of each window are kept, and the cut is noted."""

from __future__ import annotations

from arena.agents import OutputLog


def test_windows_keep_their_own_output() -> None:
    log = OutputLog(cap=100)
    log.append(b"starting\n")
    log.mark()
    log.append(b"deal one\n")
    log.mark()
    assert log.texts() == ["starting\n", "deal one\n", ""]


def test_each_window_keeps_its_last_bytes() -> None:
    log = OutputLog(cap=10)
    log.append(b"0123456789")
    log.append(b"abcde")
    log.mark()
    log.append(b"xyz")
    first, second = log.texts()
    assert first == "[5 earlier bytes dropped]\n56789abcde"
    assert second == "xyz"


def test_bad_utf8_is_replaced() -> None:
    log = OutputLog()
    log.append("è".encode()[:1] + b"ok")
    assert log.texts() == ["\ufffdok"]
