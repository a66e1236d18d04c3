"""Who is calling: the bearer token of the call's metadata, checked against the store."""

from __future__ import annotations

from dataclasses import dataclass

import grpc

from arena.server.api.errors import ApiError
from arena.store import Store
from arena.store.accounts import user_for_token

AUTHORIZATION = "authorization"
"""The metadata key carrying ``Bearer <token>``."""

BEARER = "bearer "


@dataclass(frozen=True, slots=True)
class Caller:
    """The user a call acts for."""

    id: int
    name: str


def bearer_token(context: grpc.ServicerContext) -> str | None:
    """The token of the call's ``authorization: Bearer <token>`` metadata, if any."""
    for key, value in context.invocation_metadata() or ():
        if key.lower() == AUTHORIZATION and isinstance(value, str):
            if value.lower().startswith(BEARER):
                return value[len(BEARER):].strip() or None
            return None
    return None


def authenticate(store: Store, context: grpc.ServicerContext) -> Caller:
    """The calling user, or UNAUTHENTICATED when the token is missing or unknown."""
    token = bearer_token(context)
    if token is None:
        raise ApiError(grpc.StatusCode.UNAUTHENTICATED,
                       "no API token: send the metadata 'authorization: Bearer <token>' "
                       "(arena remote register NAME gives one)")
    with store.session() as session:
        user = user_for_token(session, token)
        if user is None:
            raise ApiError(grpc.StatusCode.UNAUTHENTICATED,
                           "unknown API token: check it, or register for a new one")
        return Caller(id=user.id, name=user.name)
