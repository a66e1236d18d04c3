"""The admin role: granted by the operator on the database; admins disable users and bots and
read every seat's logs; other users cannot."""

from __future__ import annotations

import grpc
import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from arena.cli import app
from arena.protocol.v1 import arena_pb2 as pb
from arena.server.remote import RemoteArena
from arena.store import User
from arena.store.admin import set_admin
from arena.store.audit import OPERATOR
from arena.store.web_sessions import start_web_session, web_session_user
from tests.server.api.conftest import Service, status_of
from tests.server.api.played import played_match


def grant(service: Service, name: str) -> None:
    """Make a user an admin, as the operator does on the database."""
    with service.store.session() as session:
        set_admin(session, name, True, OPERATOR)
        session.commit()


def disable(client: RemoteArena, kind: int, name: str, enable: bool = False) -> None:
    """Disable (or enable) a user or a bot."""
    client.call("DisableAccount", pb.DisableAccountRequest(kind=kind, name=name, enable=enable))


def test_the_operator_grants_the_admin_role_on_the_database(service: Service) -> None:
    """``arena admin grant NAME --db`` makes an admin; an unknown name is one error line."""
    service.register("root").close()
    db = str(service.store.engine.url)
    result = CliRunner().invoke(app, ["admin", "grant", "root", "--db", db])
    assert result.exit_code == 0, result.output
    assert "root is now an admin" in result.output
    unknown = CliRunner().invoke(app, ["admin", "grant", "nobody", "--db", db])
    assert unknown.exit_code == 2
    assert "no user named 'nobody'" in unknown.output
    with service.client() as anonymous:
        token = anonymous.call("RegisterUser", pb.RegisterUserRequest(name="x")).token
    with service.client(token) as x:
        code, _ = status_of(lambda: x.call("GetAuditLog", pb.GetAuditLogRequest()))
    assert code == grpc.StatusCode.PERMISSION_DENIED


@pytest.mark.parametrize("call", [
    ("DisableAccount", pb.DisableAccountRequest(kind=pb.ACCOUNT_KIND_USER, name="ben")),
    ("DisableAccount", pb.DisableAccountRequest(kind=pb.ACCOUNT_KIND_BOT, name="ben-bot")),
    ("CreateInvitation", pb.CreateInvitationRequest()),
    ("GetAuditLog", pb.GetAuditLogRequest()),
])
def test_a_user_who_is_not_an_admin_is_refused(service: Service,
                                               call: tuple[str, object]) -> None:
    """Disabling, inviting and reading the audit log are PERMISSION_DENIED to a user."""
    ann, ben = service.register("ann"), service.register("ben")
    ben.call("SubmitBot", pb.SubmitBotRequest(name="ben-bot", archive=b"b"))
    code, message = status_of(lambda: ann.call(*call))
    assert code == grpc.StatusCode.PERMISSION_DENIED
    assert message.startswith("the user 'ann' is not an admin")
    assert list(ben.call("ListBots", pb.ListBotsRequest()).bots)


def test_a_user_cannot_read_the_logs_of_another_s_bot_and_an_admin_reads_all(
        service: Service) -> None:
    """ann reads only her bot's stderr; an admin reads every seat's, by GetReplay and
    GetBotLogs."""
    ann, ben, root = service.register("ann"), service.register("ben"), service.register("root")
    played = played_match(service, {"ann": ann, "ben": ben})
    replay = lambda client: "".join(client.call(  # noqa: E731
        "GetReplay", pb.GetReplayRequest(match_id=played.match_id)).records)
    assert "ANN-SECRET" in replay(ann) and "BEN-SECRET" not in replay(ann)
    assert "SECRET" not in replay(root)
    code, _ = status_of(lambda: ann.call("GetBotLogs", pb.GetBotLogsRequest(bot="ben-bot")))
    assert code == grpc.StatusCode.PERMISSION_DENIED
    grant(service, "root")
    assert "ANN-SECRET" in replay(root) and "BEN-SECRET" in replay(root)
    logs = root.call("GetBotLogs", pb.GetBotLogsRequest(bot="ben-bot")).entries
    assert [entry.stderr for entry in logs] == ["BEN-SECRET"]
    assert "BEN-SECRET" not in replay(ann)


def test_a_disabled_user_is_refused_at_once_and_enabled_again(service: Service) -> None:
    """Every token of a disabled user is refused with UNAUTHENTICATED; enabled, they work."""
    root, ben = service.register("root"), service.register("ben")
    second = ben.call("CreateToken", pb.CreateTokenRequest()).token
    grant(service, "root")
    disable(root, pb.ACCOUNT_KIND_USER, "ben")
    for token in (ben.token, second):
        with service.client(token) as client:
            code, message = status_of(lambda c=client: c.call("ListBots", pb.ListBotsRequest()))
            assert code == grpc.StatusCode.UNAUTHENTICATED
            assert "'ben' is disabled" in message
    disable(root, pb.ACCOUNT_KIND_USER, "ben", enable=True)
    assert not list(ben.call("ListBots", pb.ListBotsRequest()).bots)


def test_a_disabled_bot_and_the_bots_of_a_disabled_user_join_no_league(
        service: Service) -> None:
    """CreateLeague refuses a disabled bot, and the bot of a disabled user, as entrants."""
    root, ann, ben = (service.register(name) for name in ("root", "ann", "ben"))
    for user, client in (("ann", ann), ("ben", ben)):
        client.call("SubmitBot", pb.SubmitBotRequest(name=f"{user}-bot", archive=b"x"))
    grant(service, "root")
    disable(root, pb.ACCOUNT_KIND_BOT, "ann-bot")
    disable(root, pb.ACCOUNT_KIND_USER, "ben")
    for bot, why in (("ann-bot", "is disabled by an admin"),
                     ("ben-bot", "belongs to a disabled user")):
        code, message = status_of(lambda b=bot: root.call("CreateLeague", pb.CreateLeagueRequest(
            name="l", bots=[b, "random"], games=["briscola"])))
        assert code == grpc.StatusCode.FAILED_PRECONDITION
        assert why in message
    disable(root, pb.ACCOUNT_KIND_BOT, "ann-bot", enable=True)
    created = root.call("CreateLeague", pb.CreateLeagueRequest(
        name="l", bots=["ann-bot", "random"], games=["briscola"]))
    assert created.status.name == "l"


def test_disabling_an_unknown_user_or_bot_is_not_found(service: Service) -> None:
    """An unknown name is NOT_FOUND, in one line."""
    root = service.register("root")
    grant(service, "root")
    for kind in (pb.ACCOUNT_KIND_USER, pb.ACCOUNT_KIND_BOT):
        code, message = status_of(lambda k=kind: disable(root, k, "ghost"))
        assert code == grpc.StatusCode.NOT_FOUND and "'ghost'" in message


def test_an_admin_cannot_disable_itself_and_a_disabled_user_s_web_sign_ins_end(
        service: Service) -> None:
    """Disabling oneself is INVALID_ARGUMENT; a disabled user's web session signs nobody in."""
    root = service.register("root")
    service.register("ben").close()
    grant(service, "root")
    code, message = status_of(lambda: disable(root, pb.ACCOUNT_KIND_USER, "root"))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "cannot disable itself" in message
    with service.store.session() as session:
        ben_id = session.scalars(select(User.id).where(User.name == "ben")).one()
        cookie = start_web_session(session, ben_id)
        assert web_session_user(session, cookie) is not None
    disable(root, pb.ACCOUNT_KIND_USER, "ben")
    with service.store.session() as session:
        assert web_session_user(session, cookie) is None
