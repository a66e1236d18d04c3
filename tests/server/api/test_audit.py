"""The audit log: each account and bot change with who made it, what, its target and when;
readable by admins over the API and with ``arena remote audit``; the account commands."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from typer.testing import CliRunner, Result

from arena.cli import app
from arena.protocol.v1 import arena_pb2 as pb
from arena.store.models import utc_now
from tests.server.api.conftest import Service

runner = CliRunner()


def arena(service: Service, *args: str, token: str | None = None) -> Result:
    """Run ``arena ...`` against the service (``ARENA_SERVER``, ``ARENA_TOKEN``)."""
    env = {"COLUMNS": "200", "ARENA_SERVER": service.address, "ARENA_TOKEN": token or ""}
    return runner.invoke(app, list(args), env=env)


def ok(result: Result) -> str:
    """The output of a command that succeeded."""
    assert result.exit_code == 0, result.output
    return result.stdout


def test_every_change_is_logged_with_who_made_it(service: Service) -> None:
    """Registration, tokens, uploads, deletion, the admin role, disabling and invitations each
    leave one entry, newest first, naming the actor and the target."""
    started = utc_now() - timedelta(seconds=1)
    alice = service.register("alice")
    made = alice.call("CreateToken", pb.CreateTokenRequest())
    alice.call("RevokeToken", pb.RevokeTokenRequest(id=made.info.id))
    rotated = alice.call("RotateToken", pb.RotateTokenRequest())
    with service.client(rotated.token) as alice:
        alice.call("SubmitBot", pb.SubmitBotRequest(name="rnd", archive=b"1"))
        alice.call("SubmitBot", pb.SubmitBotRequest(name="old", archive=b"2"))
        alice.call("DeleteBot", pb.DeleteBotRequest(name="old"))
    root = service.register("root")
    ok(arena(service, "admin", "grant", "root", "--db", str(service.store.engine.url)))
    root.call("DisableAccount", pb.DisableAccountRequest(kind=pb.ACCOUNT_KIND_BOT, name="rnd"))
    root.call("DisableAccount", pb.DisableAccountRequest(kind=pb.ACCOUNT_KIND_USER,
                                                         name="alice"))
    root.call("CreateInvitation", pb.CreateInvitationRequest())
    entries = list(root.call("GetAuditLog", pb.GetAuditLogRequest()).entries)
    assert [(entry.actor, entry.action, entry.target) for entry in reversed(entries)] == [
        ("alice", "user.registered", "user:alice"),
        ("alice", "token.created", f"token:{made.info.id}"),
        ("alice", "token.revoked", f"token:{made.info.id}"),
        ("alice", "token.rotated", f"token:{rotated.revoked_id}"),
        ("alice", "bot.uploaded", "bot:rnd"),
        ("alice", "bot.uploaded", "bot:old"),
        ("alice", "bot.deleted", "bot:old"),
        ("root", "user.registered", "user:root"),
        ("operator", "admin.granted", "user:root"),
        ("root", "bot.disabled", "bot:rnd"),
        ("root", "user.disabled", "user:alice"),
        ("root", "invitation.created", "invitation:1"),
    ]
    assert all(started <= datetime.fromisoformat(entry.at) <= utc_now() for entry in entries)
    assert f"token:{rotated.info.id}" in entries[-4].detail
    assert [entry.action for entry in root.call(
        "GetAuditLog", pb.GetAuditLogRequest(limit=2)).entries] == [
        "invitation.created", "user.disabled"]


def test_the_account_commands_work_against_the_service(service: Service) -> None:
    """``arena remote token create|list|rotate|revoke``, ``invite``, ``disable`` and
    ``audit --json`` as a user and an admin would run them."""
    alice = service.register("alice").token
    made = ok(arena(service, "remote", "token", "create", "--days", "5", token=alice)).strip()
    listing = ok(arena(service, "remote", "token", "list", "--json", token=alice))
    tokens = json.loads(listing)["tokens"]
    assert [token["prefix"] for token in tokens] == [alice[:6], made[:6]]
    assert alice not in listing and made not in listing
    fresh = ok(arena(service, "remote", "token", "rotate", token=made)).strip()
    refused = arena(service, "remote", "token", "list", token=made)
    assert refused.exit_code == 2 and "was revoked" in refused.output
    ok(arena(service, "remote", "token", "revoke", str(tokens[0]["id"]), token=fresh))
    denied = arena(service, "remote", "invite", token=fresh)
    assert denied.exit_code == 2 and "not an admin" in denied.output
    root = service.register("root").token
    ok(arena(service, "admin", "grant", "root", "--db", str(service.store.engine.url)))
    assert len(ok(arena(service, "remote", "invite", "--days", "1", token=root)).strip()) > 20
    assert "user alice disabled" in ok(arena(service, "remote", "disable", "user", "alice",
                                             token=root))
    bad = arena(service, "remote", "disable", "team", "x", token=root)
    assert bad.exit_code == 2 and "disable a 'user' or a 'bot'" in bad.output
    audit = json.loads(ok(arena(service, "remote", "audit", "--json", token=root)))
    assert [entry["action"] for entry in audit["entries"]][:3] == [
        "user.disabled", "invitation.created", "admin.granted"]
    table = ok(arena(service, "remote", "audit", "--limit", "1", token=root))
    assert "user.disabled" in table and "user:alice" in table
