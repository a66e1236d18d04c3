"""API tokens: they expire, can be listed (never shown again), revoked and rotated; a user may
hold several."""

from __future__ import annotations

from datetime import datetime, timedelta

import grpc
from sqlalchemy import update

from arena.protocol.v1 import arena_pb2 as pb
from arena.server.remote import RemoteArena
from arena.store.models import ApiToken, utc_now
from arena.store.registration import AccountPolicy
from tests.server.api.conftest import Service, ServiceFactory, status_of


def refusal(service: Service, token: str | None) -> tuple[grpc.StatusCode, str]:
    """How a call with that token is refused."""
    with service.client(token) as client:
        return status_of(lambda: client.call("ListBots", pb.ListBotsRequest()))


def works(service: Service, token: str | None) -> bool:
    """True when a call with that token is answered."""
    with service.client(token) as client:
        client.call("ListBots", pb.ListBotsRequest())
    return True


def listed(client: RemoteArena, every: bool = False) -> list[pb.TokenInfo]:
    """The caller's tokens as listed."""
    return list(client.call("ListTokens", pb.ListTokensRequest(all=every)).tokens)


def test_a_user_holds_several_tokens_listed_without_their_text(service: Service) -> None:
    """A second token works beside the first; the list shows ids, prefixes and times only."""
    alice = service.register("alice")
    made = alice.call("CreateToken", pb.CreateTokenRequest(days=3))
    assert works(service, made.token) and works(service, alice.token)
    tokens = listed(alice)
    assert [token.id for token in tokens] == [tokens[0].id, made.info.id]
    assert [token.current for token in tokens] == [True, False]
    assert [token.prefix for token in tokens] == [alice.token[:6], made.token[:6]]
    reply = alice.call("ListTokens", pb.ListTokensRequest())
    assert alice.token not in str(reply) and made.token not in str(reply)
    expires = datetime.fromisoformat(made.info.expires_at)
    assert timedelta(days=2, hours=23) < expires - utc_now() <= timedelta(days=3)
    assert tokens[1].created_at and tokens[1].last_used  # it was used above


def test_a_revoked_token_is_refused_at_once(service: Service) -> None:
    """The next call with a revoked token is UNAUTHENTICATED, saying it was revoked."""
    alice = service.register("alice")
    spare = alice.call("CreateToken", pb.CreateTokenRequest())
    alice.call("RevokeToken", pb.RevokeTokenRequest(id=spare.info.id))
    code, message = refusal(service, spare.token)
    assert code == grpc.StatusCode.UNAUTHENTICATED
    assert message.startswith(f"API token {spare.info.id} was revoked")
    assert works(service, alice.token)
    assert [token.id for token in listed(alice)] != [spare.info.id]
    assert spare.info.id in [token.id for token in listed(alice, every=True)]


def test_an_expired_token_is_refused(service: Service) -> None:
    """A token past its expiry is UNAUTHENTICATED, saying it expired."""
    alice = service.register("alice")
    spare = alice.call("CreateToken", pb.CreateTokenRequest(days=1))
    assert works(service, spare.token)
    with service.store.session() as session:
        session.execute(update(ApiToken).where(ApiToken.id == spare.info.id)
                        .values(expires_at=utc_now() - timedelta(seconds=1)))
        session.commit()
    code, message = refusal(service, spare.token)
    assert code == grpc.StatusCode.UNAUTHENTICATED
    assert message.startswith(f"API token {spare.info.id} expired at ")


def test_a_rotated_token_is_replaced_and_the_old_one_refused(service: Service) -> None:
    """Rotating the call's own token gives a new one that works; the old one is refused."""
    alice = service.register("alice")
    old = alice.token
    first = listed(alice)[0].id
    rotated = alice.call("RotateToken", pb.RotateTokenRequest())
    assert rotated.token != old and rotated.revoked_id == first
    assert works(service, rotated.token)
    code, message = refusal(service, old)
    assert code == grpc.StatusCode.UNAUTHENTICATED and "was revoked" in message
    with service.client(rotated.token) as client:
        code, message = status_of(lambda: client.call(
            "RotateToken", pb.RotateTokenRequest(id=rotated.revoked_id)))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "already revoked" in message


def test_another_user_s_token_cannot_be_revoked(service: Service) -> None:
    """Naming a token of someone else is NOT_FOUND, and it keeps working."""
    alice, bob = service.register("alice"), service.register("bob")
    bobs = listed(bob)[0].id
    code, message = status_of(lambda: alice.call("RevokeToken", pb.RevokeTokenRequest(id=bobs)))
    assert code == grpc.StatusCode.NOT_FOUND and f"no API token {bobs}" in message
    assert works(service, bob.token)


def test_tokens_expire_as_the_service_says_unless_asked_otherwise(
        make_service: ServiceFactory) -> None:
    """With a default of 2 days the first token lasts 2 days; ``never`` makes one that does
    not expire; a default of 0 means tokens never expire."""
    service = make_service(accounts=AccountPolicy(token_days=2))
    alice = service.register("alice")
    first = listed(alice)[0]
    assert timedelta(days=1, hours=23) < datetime.fromisoformat(
        first.expires_at) - utc_now() <= timedelta(days=2)
    forever = alice.call("CreateToken", pb.CreateTokenRequest(never=True))
    assert forever.info.expires_at == ""
    lasting = make_service(accounts=AccountPolicy(token_days=0)).register("bob")
    assert listed(lasting)[0].expires_at == ""
