"""Registration open, by invitation, or closed: each refusal one line."""

from __future__ import annotations

from datetime import timedelta

import grpc
from sqlalchemy import select, update
from typer.testing import CliRunner

from arena.cli import app
from arena.protocol.v1 import arena_pb2 as pb
from arena.store import User
from arena.store.accounts import new_token
from arena.store.admin import set_admin
from arena.store.audit import OPERATOR
from arena.store.models import Invitation, utc_now
from arena.store.registration import AccountPolicy, Registration
from tests.server.api.conftest import Service, ServiceFactory, status_of


def register(service: Service, name: str, invitation: str = "") -> pb.RegisterUserResponse:
    """Register anonymously."""
    with service.client() as anonymous:
        return anonymous.call("RegisterUser", pb.RegisterUserRequest(name=name,
                                                                     invitation=invitation))


def refused(service: Service, name: str, invitation: str = "") -> tuple[grpc.StatusCode, str]:
    """How registering is refused."""
    return status_of(lambda: register(service, name, invitation))


def users(service: Service) -> list[str]:
    """The registered user names."""
    with service.store.session() as session:
        return list(session.scalars(select(User.name).order_by(User.id)))


def admin_of(service: Service) -> pb.RegisterUserResponse:
    """An admin made on the database (the first user of a service that is not open)."""
    with service.store.session() as session:
        session.add(User(name="root"))
        session.flush()
        set_admin(session, "root", True, OPERATOR)
        session.commit()
    with service.store.session() as session:
        token = new_token(session, session.scalars(select(User).where(
            User.name == "root")).one())
        session.commit()
    return pb.RegisterUserResponse(name="root", token=token)


def test_open_registration_lets_anyone_in(service: Service) -> None:
    """The default: a name is all it takes; an invitation code is not looked at."""
    assert register(service, "alice", "whatever").token
    assert users(service) == ["alice"]


def test_closed_registration_refuses_everyone(make_service: ServiceFactory) -> None:
    """PERMISSION_DENIED, saying to ask the operator; nobody is added; the operator adds a
    user on the database (``arena admin add-user``), whose token works."""
    service = make_service(accounts=AccountPolicy(registration=Registration.CLOSED))
    code, message = refused(service, "alice")
    assert code == grpc.StatusCode.PERMISSION_DENIED
    assert message.startswith(
        "registration is closed on this service; ask its operator for an account")
    assert users(service) == []
    db = str(service.store.engine.url)
    added = CliRunner().invoke(app, ["admin", "add-user", "alice", "--days", "3", "--db", db])
    assert added.exit_code == 0, added.output
    with service.client(added.stdout.strip()) as alice:
        assert not list(alice.call("ListBots", pb.ListBotsRequest()).bots)
    again = CliRunner().invoke(app, ["admin", "add-user", "alice", "--db", db])
    assert again.exit_code == 2 and "'alice' is taken" in again.output


def test_registration_by_invitation_takes_one_valid_code_once(
        make_service: ServiceFactory) -> None:
    """Without a code, with an unknown, a used or an expired one: PERMISSION_DENIED naming
    the problem; with an admin's code, one user gets in."""
    service = make_service(accounts=AccountPolicy(registration=Registration.INVITE))
    root = admin_of(service)
    with service.client(root.token) as admin:
        code = admin.call("CreateInvitation", pb.CreateInvitationRequest(days=2)).code
        stale = admin.call("CreateInvitation", pb.CreateInvitationRequest()).code
    for invitation, problem in (("", "registration on this service is by invitation"),
                                ("nope", "unknown invitation code")):
        status, message = refused(service, "alice", invitation)
        assert status == grpc.StatusCode.PERMISSION_DENIED and message.startswith(problem)
    assert register(service, "alice", code).name == "alice"
    status, message = refused(service, "bob", code)
    assert status == grpc.StatusCode.PERMISSION_DENIED and "already used" in message
    with service.store.session() as session:
        session.execute(update(Invitation).where(Invitation.used_at.is_(None))
                        .values(expires_at=utc_now() - timedelta(minutes=1)))
        session.commit()
    status, message = refused(service, "bob", stale)
    assert status == grpc.StatusCode.PERMISSION_DENIED and "has expired" in message
    assert users(service) == ["root", "alice"]


def test_a_refused_invitation_spends_no_name(make_service: ServiceFactory) -> None:
    """A user refused for a bad code is not created: the name stays free."""
    service = make_service(accounts=AccountPolicy(registration=Registration.INVITE))
    root = admin_of(service)
    refused(service, "alice", "bad")
    with service.client(root.token) as admin:
        code = admin.call("CreateInvitation", pb.CreateInvitationRequest()).code
    assert register(service, "alice", code).name == "alice"
