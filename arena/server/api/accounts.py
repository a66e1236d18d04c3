"""Accounts on the service: registration (open, by invitation or closed), a user's API tokens
(made, listed, revoked, rotated), and the admins' calls (disabling, invitations, the audit log).

Every change is written to the audit log in the transaction that makes it.
"""

from __future__ import annotations

from datetime import datetime

import grpc

from arena.protocol.schema import platform as pb
from arena.server.api.auth import Caller, require_admin
from arena.server.api.bots import find_bot
from arena.server.api.errors import ApiError, invalid
from arena.store import Store, User
from arena.store.accounts import issue_token, register_user
from arena.store.admin import set_bot_disabled, set_user_disabled, user_named
from arena.store.audit import audit, audit_entries
from arena.store.invitations import DEFAULT_DAYS as INVITATION_DAYS
from arena.store.invitations import BadInvitation, create_invitation, redeem_invitation
from arena.store.models import ApiToken
from arena.store.registration import AccountPolicy, Registration
from arena.store.tokens import expiry, revoke_token, rotate_token, user_tokens


def stamp(when: datetime | None) -> str:
    """A time as RFC 3339 in UTC, or empty."""
    return "" if when is None else when.isoformat(timespec="seconds")


def token_info(row: ApiToken, current: int | None = None) -> pb.TokenInfo:
    """A token as listed: never its text."""
    return pb.TokenInfo(id=row.id, prefix=row.prefix or "", created_at=stamp(row.created_at),
                        last_used=stamp(row.last_used), expires_at=stamp(row.expires_at),
                        revoked_at=stamp(row.revoked_at), current=row.id == current)


class AccountDesk:
    """Answers the account, token and admin calls."""

    def __init__(self, store: Store, policy: AccountPolicy | None = None) -> None:
        """Keep the store and the account settings."""
        self.store = store
        self.policy = policy or AccountPolicy()

    def _expiry(self, days: int, never: bool = False) -> datetime | None:
        """When a token made now expires: ``days`` if given, else the service's default."""
        if never:
            return None
        days = days or self.policy.token_days
        return expiry(days) if days else None

    def register(self, name: str, invitation: str) -> pb.RegisterUserResponse:
        """A new user and its first token, if the registration mode lets them in."""
        mode = self.policy.registration
        if mode is Registration.CLOSED:
            raise ApiError(grpc.StatusCode.PERMISSION_DENIED,
                           "registration is closed on this service; ask its operator for an "
                           "account")
        with self.store.session() as session:
            user, token = register_user(session, name, self._expiry(0))
            detail = ""
            if mode is Registration.INVITE:
                try:
                    used = redeem_invitation(session, invitation, user.id)
                except BadInvitation as error:
                    session.rollback()
                    raise ApiError(grpc.StatusCode.PERMISSION_DENIED, str(error)) from None
                detail = f"invitation:{used.id}"
            audit(session, name, "user.registered", f"user:{name}", detail)
            session.commit()
            return pb.RegisterUserResponse(name=user.name, token=token)

    def create_token(self, caller: Caller, days: int, never: bool) -> pb.CreateTokenResponse:
        """A new token of the caller."""
        with self.store.session() as session:
            user = session.get(User, caller.id)
            assert user is not None
            text, row = issue_token(session, user, self._expiry(days, never))
            audit(session, caller.name, "token.created", f"token:{row.id}",
                  f"expires {stamp(row.expires_at) or 'never'}")
            session.commit()
            return pb.CreateTokenResponse(token=text, info=token_info(row, caller.token_id))

    def list_tokens(self, caller: Caller, every: bool) -> pb.ListTokensResponse:
        """The caller's tokens."""
        with self.store.session() as session:
            return pb.ListTokensResponse(tokens=[
                token_info(row, caller.token_id)
                for row in user_tokens(session, caller.id, every)])

    def revoke_token(self, caller: Caller, token_id: int) -> pb.RevokeTokenResponse:
        """Revoke one of the caller's tokens."""
        if not token_id:
            raise invalid("name the token to revoke by its id (arena remote token list)")
        with self.store.session() as session:
            row = revoke_token(session, caller.id, token_id)
            audit(session, caller.name, "token.revoked", f"token:{row.id}")
            session.commit()
            return pb.RevokeTokenResponse(info=token_info(row, caller.token_id))

    def rotate_token(self, caller: Caller, token_id: int, days: int) -> pb.RotateTokenResponse:
        """A new token in place of one of the caller's (the call's by default)."""
        with self.store.session() as session:
            user = session.get(User, caller.id)
            assert user is not None
            text, row, old = rotate_token(session, user, token_id or caller.token_id or 0,
                                          self._expiry(days))
            audit(session, caller.name, "token.rotated", f"token:{old.id}",
                  f"replaced by token:{row.id}")
            session.commit()
            return pb.RotateTokenResponse(token=text, info=token_info(row, caller.token_id),
                                          revoked_id=old.id)

    def disable(self, caller: Caller, kind: int, name: str,
                enable: bool) -> pb.DisableAccountResponse:
        """Disable (or enable again) a user or a bot: admins only."""
        require_admin(caller)
        with self.store.session() as session:
            if kind == pb.ACCOUNT_KIND_USER:
                user = user_named(session, name)
                if user.id == caller.id and not enable:
                    raise invalid("an admin cannot disable itself")
                set_user_disabled(session, user, not enable, caller.name)
            elif kind == pb.ACCOUNT_KIND_BOT:
                set_bot_disabled(session, find_bot(session, name), not enable, caller.name)
            else:
                raise invalid("say whether a user or a bot is to be disabled")
            session.commit()
        return pb.DisableAccountResponse(disabled=not enable)

    def invite(self, caller: Caller, days: int) -> pb.CreateInvitationResponse:
        """A new invitation code: admins only."""
        require_admin(caller)
        with self.store.session() as session:
            code, row = create_invitation(session, caller.id, days or INVITATION_DAYS)
            audit(session, caller.name, "invitation.created", f"invitation:{row.id}",
                  f"expires {stamp(row.expires_at)}")
            session.commit()
            return pb.CreateInvitationResponse(code=code, expires_at=stamp(row.expires_at))

    def audit_log(self, caller: Caller, limit: int) -> pb.GetAuditLogResponse:
        """The newest audit entries: admins only."""
        require_admin(caller)
        with self.store.session() as session:
            return pb.GetAuditLogResponse(entries=[
                pb.AuditEntry(at=stamp(entry.at), actor=entry.actor, action=entry.action,
                              target=entry.target, detail=entry.detail)
                for entry in audit_entries(session, limit)])
