"""``arena remote token|invite|audit|disable``: a user's API tokens, and the admins' calls."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from arena.cli.remote import (
    DEFAULT_SERVER,
    JSON_OPTION,
    SERVER_OPTION,
    TOKEN_OPTION,
    RemoteCommandError,
    cells,
    connected,
    console,
    print_json,
)
from arena.match.safetext import safe_text
from arena.protocol.platform import api_request

token_app = typer.Typer(name="token", no_args_is_help=True, add_completion=False,
                        help="Your API tokens: make, list, revoke, rotate.")


def _token_rows(tokens: Any) -> Table:
    """A table of tokens as listed."""
    table = Table("id", "prefix", "created", "last used", "expires", "revoked", "")
    for token in tokens:
        table.add_row(*cells(token.id, token.prefix or "–", token.created_at,
                             token.last_used or "never", token.expires_at or "never",
                             token.revoked_at or "–", "this one" if token.current else ""))
    return table


def _print_new_token(token: str, info: Any, note: str) -> None:
    """The new token on stdout (shown once), what it is on stderr."""
    typer.echo(safe_text(token))
    typer.echo(f"token {info.id} {note}; expires {safe_text(info.expires_at or 'never')}; it "
               "is not shown again", err=True)


@token_app.command("create")
def token_create_command(
    days: Annotated[int, typer.Option("--days", min=0, help="Days it lasts (0: the "
                                      "service's default).")] = 0,
    never: Annotated[bool, typer.Option("--never", help="A token that never expires.")
                     ] = False,
    server: Annotated[str, SERVER_OPTION] = DEFAULT_SERVER,
    token: Annotated[str | None, TOKEN_OPTION] = None,
) -> None:
    """Make a new API token (printed once)."""
    with connected(server, token) as arena:
        reply = arena.call("CreateToken", api_request("CreateToken", days=days, never=never))
    _print_new_token(reply.token, reply.info, "made")


@token_app.command("list")
def token_list_command(
    every: Annotated[bool, typer.Option("--all", help="Revoked and expired ones too.")
                     ] = False,
    as_json: Annotated[bool, JSON_OPTION] = False,
    server: Annotated[str, SERVER_OPTION] = DEFAULT_SERVER,
    token: Annotated[str | None, TOKEN_OPTION] = None,
) -> None:
    """List your API tokens (never their text)."""
    with connected(server, token) as arena:
        reply = arena.call("ListTokens", api_request("ListTokens", all=every))
    if as_json:
        print_json(reply)
    else:
        console().print(_token_rows(reply.tokens))


@token_app.command("revoke")
def token_revoke_command(
    token_id: Annotated[int, typer.Argument(metavar="ID", min=1, help="The token's id.")],
    server: Annotated[str, SERVER_OPTION] = DEFAULT_SERVER,
    token: Annotated[str | None, TOKEN_OPTION] = None,
) -> None:
    """Revoke one of your tokens: it is refused from now on."""
    with connected(server, token) as arena:
        reply = arena.call("RevokeToken", api_request("RevokeToken", id=token_id))
    typer.echo(f"token {reply.info.id} revoked")


@token_app.command("rotate")
def token_rotate_command(
    token_id: Annotated[int, typer.Argument(metavar="[ID]", min=0, help="The token to "
                                            "replace (default: the one you call with).")] = 0,
    days: Annotated[int, typer.Option("--days", min=0, help="Days the new one lasts (0: the "
                                      "service's default).")] = 0,
    server: Annotated[str, SERVER_OPTION] = DEFAULT_SERVER,
    token: Annotated[str | None, TOKEN_OPTION] = None,
) -> None:
    """Replace a token by a new one (printed once); the old one is revoked."""
    with connected(server, token) as arena:
        reply = arena.call("RotateToken", api_request("RotateToken", id=token_id, days=days))
    _print_new_token(reply.token, reply.info, f"made in place of token {reply.revoked_id}, "
                                              "now revoked")


def invite_command(
    days: Annotated[int, typer.Option("--days", min=0, help="Days the code stays valid "
                                      "(0: 7).")] = 0,
    server: Annotated[str, SERVER_OPTION] = DEFAULT_SERVER,
    token: Annotated[str | None, TOKEN_OPTION] = None,
) -> None:
    """Admins: make an invitation code that registers one user (printed once)."""
    with connected(server, token) as arena:
        reply = arena.call("CreateInvitation", api_request("CreateInvitation", days=days))
    typer.echo(safe_text(reply.code))
    typer.echo(f"invitation valid until {safe_text(reply.expires_at)}: arena remote register "
               "NAME --invite CODE", err=True)


def audit_command(
    limit: Annotated[int, typer.Option("--limit", min=0, help="At most this many entries "
                                       "(0: 100).")] = 0,
    as_json: Annotated[bool, JSON_OPTION] = False,
    server: Annotated[str, SERVER_OPTION] = DEFAULT_SERVER,
    token: Annotated[str | None, TOKEN_OPTION] = None,
) -> None:
    """Admins: the audit log of account and bot changes, newest first."""
    with connected(server, token) as arena:
        reply = arena.call("GetAuditLog", api_request("GetAuditLog", limit=limit))
    if as_json:
        print_json(reply)
        return
    table = Table("when", "who", "what", "target", "detail")
    for entry in reply.entries:
        table.add_row(*cells(entry.at, entry.actor, entry.action, entry.target, entry.detail))
    console().print(table)


def _disable(kind: str, name: str, enable: bool, server: str, token: str | None) -> None:
    """Disable or enable a user or a bot."""
    code = f"ACCOUNT_KIND_{kind.upper()}"
    with connected(server, token) as arena:
        arena.call("DisableAccount", api_request("DisableAccount", kind=code, name=name,
                                                 enable=enable))
    typer.echo(f"{kind} {safe_text(name)} {'enabled' if enable else 'disabled'}")


def disable_command(
    kind: Annotated[str, typer.Argument(metavar="user|bot", help="What to disable.")],
    name: Annotated[str, typer.Argument(metavar="NAME", help="Its name.")],
    enable: Annotated[bool, typer.Option("--enable", help="Enable it again instead.")
                      ] = False,
    server: Annotated[str, SERVER_OPTION] = DEFAULT_SERVER,
    token: Annotated[str | None, TOKEN_OPTION] = None,
) -> None:
    """Admins: disable a user (its tokens are refused) or a bot (it joins no new league)."""
    if kind not in ("user", "bot"):
        raise RemoteCommandError(f"disable a 'user' or a 'bot', not {kind!r}")
    _disable(kind, name, enable, server, token)


def add_account_commands(remote: typer.Typer) -> None:
    """Add ``token``, ``invite``, ``audit`` and ``disable`` to ``arena remote``."""
    remote.add_typer(token_app, name="token")
    remote.command("invite")(invite_command)
    remote.command("audit")(audit_command)
    remote.command("disable")(disable_command)
