"""API errors: a gRPC status code and one line a user can act on, and the handler wrapper."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator
from typing import Any, NoReturn, TypeVar

import grpc

from arena.bots import BotConfigError
from arena.games import GameError
from arena.league.create import LeagueError
from arena.league.schedule import ScheduleError
from arena.match import MatchError
from arena.sandbox.errors import SandboxError
from arena.store import StoreError
from arena.store.accounts import AccountError, NameTaken, UnknownAccount

LOG = logging.getLogger("arena.server.api")

R = TypeVar("R")

LOG_METADATA = "arena-log-bin"
"""The trailing metadata key of a refusal's log (UTF-8 bytes), such as a failed build's."""


class ApiError(Exception):
    """A refused call: the status code and the message sent to the client."""

    def __init__(self, code: grpc.StatusCode, message: str, log: str = "") -> None:
        """Keep the code, the one-line message and any log (a failed build's last lines)."""
        super().__init__(message)
        self.code = code
        self.message = " ".join(message.split())
        self.log = log


def invalid(message: str) -> ApiError:
    """Bad input: INVALID_ARGUMENT."""
    return ApiError(grpc.StatusCode.INVALID_ARGUMENT, message)


def not_found(message: str) -> ApiError:
    """Something named that does not exist: NOT_FOUND."""
    return ApiError(grpc.StatusCode.NOT_FOUND, message)


def denied(message: str) -> ApiError:
    """Something of another user's: PERMISSION_DENIED."""
    return ApiError(grpc.StatusCode.PERMISSION_DENIED, message)


def api_error(error: Exception) -> ApiError:
    """The API error of an exception raised by the arena's own modules."""
    if isinstance(error, ApiError):
        return error
    message = " ".join(str(error).split()) or type(error).__name__
    if isinstance(error, UnknownAccount):
        return not_found(message)
    if isinstance(error, NameTaken):
        return ApiError(grpc.StatusCode.ALREADY_EXISTS, message)
    if isinstance(error, LeagueError) and (message.startswith("no league named")):
        return not_found(message)
    if isinstance(error, LeagueError) and "already exists" in message:
        return ApiError(grpc.StatusCode.ALREADY_EXISTS, message)
    if isinstance(error, AccountError | LeagueError | ScheduleError | GameError | BotConfigError
                  | MatchError):
        return invalid(message)
    if isinstance(error, SandboxError):
        return ApiError(grpc.StatusCode.FAILED_PRECONDITION, message)
    if isinstance(error, StoreError):
        return ApiError(grpc.StatusCode.UNAVAILABLE, message)
    LOG.exception("internal error in an API call")
    return ApiError(grpc.StatusCode.INTERNAL, "internal error in the arena service; "
                                              "the service log has the details")


def abort(context: grpc.ServicerContext, error: ApiError) -> NoReturn:
    """End the call with the error's status (raises); a log goes in the trailing metadata
    ``LOG_METADATA``."""
    if error.log:
        context.set_trailing_metadata(((LOG_METADATA, error.log.encode("utf-8")),))
    context.abort(error.code, error.message)
    raise AssertionError("unreachable")  # pragma: no cover


def unary(handler: Callable[..., R]) -> Callable[..., R]:
    """Wrap a unary handler: errors become their status code and one line."""
    @functools.wraps(handler)
    def call(self: Any, request: Any, context: grpc.ServicerContext) -> R:
        """Run the handler, turning errors into statuses."""
        try:
            return handler(self, request, context)
        except Exception as error:
            if _aborted(context):
                raise
            abort(context, api_error(error))
    return call


def streaming(handler: Callable[..., Iterator[R]]) -> Callable[..., Iterator[R]]:
    """Wrap a server-streaming handler: errors become their status code and one line."""
    @functools.wraps(handler)
    def call(self: Any, request: Any, context: grpc.ServicerContext) -> Iterator[R]:
        """Stream the handler's replies, turning errors into statuses."""
        try:
            yield from handler(self, request, context)
        except Exception as error:
            if _aborted(context):
                raise
            abort(context, api_error(error))
    return call


def _aborted(context: grpc.ServicerContext) -> bool:
    """True when the handler already ended the call with ``context.abort``."""
    code = getattr(context, "code", lambda: None)()
    return code is not None and code != grpc.StatusCode.OK
