"""The platform API's messages (``arena.proto``) by name, for the clients of the service."""

from __future__ import annotations

from typing import Any

from arena.protocol.v1 import arena_pb2

MATCH_STATE_VOID: int = arena_pb2.MATCH_STATE_VOID
"""The state of a match that ended void (an infrastructure failure: no verdict)."""


def api_message(name: str, /, **fields: Any) -> Any:
    """A message of the platform API (``RegisterUserRequest``, ``BotVersionInfo``...) with
    these fields."""
    return getattr(arena_pb2, name)(**fields)


def api_request(method: str, /, **fields: Any) -> Any:
    """The request of one of the service's methods (``RegisterUser``...) with these fields."""
    return api_message(f"{method}Request", **fields)


def match_state_name(state: int) -> str:
    """A match state by its short name: ``pending``, ``running``, ``done``, ``void``."""
    return str(arena_pb2.MatchState.Name(state)).removeprefix("MATCH_STATE_").lower()
