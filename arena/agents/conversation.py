"""One seat's conversation with a bot in one deal, in wire form, for an agent that talks to a bot.

The agent makes a ``Conversation`` when a deal opens: it holds the seat's request encoder,
which follows the deal's state as it goes on, and gives the bytes of the MatchStart and of
each request. A bot's response to a request becomes a ``Reply`` in engine terms: the engine
action of a legal Decision of that request (wire ids are engine actions + 1), or the fault
the answer is, worded in the bot's own ids for the match log:

- ``malformed``: not a Decision at all;
- ``stale``: a Decision of another request;
- ``unset``: action id 0, which is never an action;
- ``illegal``: an action id that is not among the request's legal ones.

A plain legal Decision without debug text, nearly every answer, is read and accepted after a
few comparisons (``plain_reply``); anything else is read in full and judged (``judged_reply``).
The deal's MatchEnd is serialized once for all its seats (``end_bytes``).
"""

from __future__ import annotations

from collections.abc import Collection
from functools import lru_cache

from arena.agents.base import DealEnd, DealSetup, Reply, Turn
from arena.protocol import (
    Answer,
    RequestEncoder,
    decision_fields,
    engine_action,
    match_end_payload,
    match_start_payload,
    serialized_match_end,
    wire_action,
)

IDS_SHOWN = 12
"""Legal ids an ``illegal`` fault's detail lists at most."""


class Conversation:
    """The wire form of one seat's deal: its MatchStart and requests, built for the bot."""

    __slots__ = ("_encoder", "setup")

    def __init__(self, setup: DealSetup) -> None:
        """Follow the deal ``setup`` describes, for its seat."""
        self.setup = setup
        self._encoder = RequestEncoder(setup.state, setup.seat)

    def start_bytes(self) -> bytes:
        """The serialized PlayRequest carrying the seat's MatchStart."""
        setup = self.setup
        return match_start_payload(setup.game, setup.seat, setup.match_id, setup.decision_ms,
                                   setup.bank_ms)

    def request_bytes(self, turn: Turn) -> bytes:
        """The serialized PlayRequest carrying the turn's DecisionRequest."""
        return self._encoder.request_bytes(turn.request_id, turn.decision_ms, turn.bank_ms)


def plain_reply(turn: Turn, raw: bytes, took_us: int | None = None) -> Reply | None:
    """The reply of a plainly encoded Decision of ``turn`` naming a legal action without debug
    text; None for any other response."""
    fields = decision_fields(raw)
    if fields is None:
        return None
    request_id, action_id, debug = fields
    action = action_id - 1  # the engine action of a wire id (``engine_action``), inline
    if request_id != turn.request_id or debug or action not in turn.state.legal_actions():
        return None  # (action id 0 gives -1, never a legal action)
    return Reply(action, took_us)


def _ids(ids: Collection[int], limit: int = IDS_SHOWN) -> str:
    """Some action ids for a message."""
    shown = sorted(ids)
    text = ", ".join(map(str, shown[:limit]))
    return text + (f", ... ({len(shown)} in all)" if len(shown) > limit else "")


def judged_reply(turn: Turn, answer: Answer, took_us: int | None = None) -> Reply:
    """The reply of any answer to ``turn``: its engine action, or the fault it is."""
    if answer.malformed:
        return Reply(-1, took_us, "malformed", answer.malformed)
    debug = answer.debug
    if answer.request_id != turn.request_id:
        return Reply(-1, took_us, "stale", f"answered request {answer.request_id} while "
                                           f"request {turn.request_id} was asked", debug)
    if answer.action_id == 0:
        return Reply(-1, took_us, "unset", "action id 0 (unset) is never an action", debug)
    legal = {wire_action(action) for action in turn.state.legal_actions()}
    if answer.action_id not in legal:
        return Reply(-1, took_us, "illegal", f"action id {answer.action_id} is not legal; "
                                             f"legal ids: {_ids(legal)}", debug)
    return Reply(engine_action(answer.action_id), took_us, "", "", debug)


@lru_cache(maxsize=32)
def end_bytes(end: DealEnd) -> bytes:
    """The serialized PlayRequest carrying the deal's MatchEnd (built once for its seats)."""
    return match_end_payload(serialized_match_end(end.state, end.reasons))
