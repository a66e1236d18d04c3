"""Who is calling: the bearer token of the call's metadata, checked against the store."""

from __future__ import annotations

from dataclasses import dataclass

import grpc

from arena.server.api.errors import ApiError
from arena.store import Store
from arena.store.accounts import check_token

AUTHORIZATION = "authorization"
"""The metadata key carrying ``Bearer <token>``."""

BEARER = "bearer "


@dataclass(frozen=True, slots=True)
class Caller:
    """The user a call acts for."""

    id: int
    name: str
    is_admin: bool = False
    token_id: int | None = None
    """The id of the token the call was made with."""


def bearer_token(context: grpc.ServicerContext) -> str | None:
    """The token of the call's ``authorization: Bearer <token>`` metadata, if any."""
    for key, value in context.invocation_metadata() or ():
        if key.lower() == AUTHORIZATION and isinstance(value, str):
            if value.lower().startswith(BEARER):
                return value[len(BEARER):].strip() or None
            return None
    return None


def authenticate(store: Store, context: grpc.ServicerContext) -> Caller:
    """The calling user, or UNAUTHENTICATED when the token is missing, unknown, revoked or
    expired, or its user disabled."""
    token = bearer_token(context)
    if token is None:
        raise ApiError(grpc.StatusCode.UNAUTHENTICATED,
                       "no API token: send the metadata 'authorization: Bearer <token>' "
                       "(arena remote register NAME gives one)")
    with store.session() as session:
        checked = check_token(session, token)
        user = checked.user
        if user is None:
            raise ApiError(grpc.StatusCode.UNAUTHENTICATED, checked.refusal)
        return Caller(id=user.id, name=user.name, is_admin=user.is_admin,
                      token_id=checked.token_id)


def require_admin(caller: Caller) -> Caller:
    """The caller when an admin, else PERMISSION_DENIED."""
    if not caller.is_admin:
        raise ApiError(grpc.StatusCode.PERMISSION_DENIED,
                       f"the user {caller.name!r} is not an admin; only admins may do this")
    return caller
