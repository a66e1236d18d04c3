"""The errors of agents: an agent that cannot play on, and the faults that make one."""

from __future__ import annotations

from arena.reasons import Reason


class AgentFailure(Exception):
    """An agent that cannot play on: it did not start, broke its stream or broke the protocol.

    ``reason`` is the seat's reason code and ``kind`` the fault kind the match log records
    (``init_error``, ``crash``, ``oversized``, ``flood`` or ``timeout``).
    """

    def __init__(self, reason: Reason, kind: str, detail: str) -> None:
        """Keep the reason code, the fault kind and the text naming what happened."""
        super().__init__(detail)
        self.reason = reason
        self.kind = kind
        self.detail = detail


def init_error(detail: str) -> AgentFailure:
    """A bot that did not start, listen or answer MatchStart correctly."""
    return AgentFailure(Reason.INIT_ERROR, "init_error", detail)


def crash(detail: str) -> AgentFailure:
    """A bot that exited or broke its stream."""
    return AgentFailure(Reason.CRASH, "crash", detail)


def oversized(detail: str) -> AgentFailure:
    """A bot that sent a message over the arena's size limit (the stream cannot go on)."""
    return AgentFailure(Reason.INVALID, "oversized", detail)


def flooded(detail: str) -> AgentFailure:
    """A bot that sent more messages than it was asked for (its stream was stopped)."""
    return AgentFailure(Reason.INVALID, "flood", detail)


def stalled(detail: str) -> AgentFailure:
    """A bot that did not take a request within its whole time (its stream was stopped)."""
    return AgentFailure(Reason.TIMEOUT, "timeout", detail)
