"""gRPC's status codes, as the SDK ends a stream with them, without importing grpc (which a bot
served by the compiled transport never needs: its import is a good part of a bot's start)."""

from __future__ import annotations

from enum import IntEnum


class Code(IntEnum):
    """A gRPC status code (the numbers and names of ``grpc.StatusCode``)."""

    OK = 0
    CANCELLED = 1
    UNKNOWN = 2
    INVALID_ARGUMENT = 3
    DEADLINE_EXCEEDED = 4
    NOT_FOUND = 5
    ALREADY_EXISTS = 6
    PERMISSION_DENIED = 7
    RESOURCE_EXHAUSTED = 8
    FAILED_PRECONDITION = 9
    ABORTED = 10
    OUT_OF_RANGE = 11
    UNIMPLEMENTED = 12
    INTERNAL = 13
    UNAVAILABLE = 14
    DATA_LOSS = 15
    UNAUTHENTICATED = 16
