"""The errors of agents: an agent that cannot play on, and the faults that make one."""

from __future__ import annotations

from arena.protocol.v1 import agent_pb2 as pb


class AgentFailure(Exception):
    """An agent that cannot play on: it did not start, broke its stream or broke the protocol.

    ``reason`` is the seat's ``ReasonCode`` and ``kind`` the fault kind the match log records
    (``init_error``, ``crash``, ``oversized``, ``flood`` or ``timeout``).
    """

    def __init__(self, reason: int, kind: str, detail: str) -> None:
        """Keep the reason code, the fault kind and the text naming what happened."""
        super().__init__(detail)
        self.reason = reason
        self.kind = kind
        self.detail = detail


def init_error(detail: str) -> AgentFailure:
    """A bot that did not start, listen or answer MatchStart correctly."""
    return AgentFailure(pb.REASON_CODE_INIT_ERROR, "init_error", detail)


def crash(detail: str) -> AgentFailure:
    """A bot that exited or broke its stream."""
    return AgentFailure(pb.REASON_CODE_CRASH, "crash", detail)


def oversized(detail: str) -> AgentFailure:
    """A bot that sent a message over the arena's size limit (the stream cannot go on)."""
    return AgentFailure(pb.REASON_CODE_INVALID, "oversized", detail)


def flooded(detail: str) -> AgentFailure:
    """A bot that sent more messages than it was asked for (its stream was stopped)."""
    return AgentFailure(pb.REASON_CODE_INVALID, "flood", detail)


def stalled(detail: str) -> AgentFailure:
    """A bot that did not take a request within its whole time (its stream was stopped)."""
    return AgentFailure(pb.REASON_CODE_TIMEOUT, "timeout", detail)
