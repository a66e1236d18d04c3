"""``arena admin``: the operator's commands on a service's database (granting the admin
role, adding a user), and ``arena serve``'s account settings (registration, how long tokens
last)."""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.remote import RemoteCommandError
from arena.cli.store import bad_input, store_url_of
from arena.match.safetext import safe_text
from arena.store.accounts import AccountError
from arena.store.registration import DEFAULT_TOKEN_DAYS, AccountPolicy, Registration

REGISTRATION_OPTION = typer.Option(
    "--registration", help="Who may register: anyone (open), those with an admin's "
                           "invitation code (invite), or nobody (closed).")
TOKEN_DAYS_OPTION = typer.Option(
    "--token-days", min=0, help="Days an API token lasts unless its user asks for another "
                                "term (0: tokens never expire).")
DB_OPTION = typer.Option("--db", metavar="PATH|URL", help="The service's database.")


def account_policy(registration: Registration, token_days: int) -> AccountPolicy:
    """The service's account settings from ``arena serve``'s options."""
    return AccountPolicy(registration=registration, token_days=token_days)


admin_app = typer.Typer(name="admin", no_args_is_help=True, add_completion=False,
                        help="The operator's commands on a service's database: admins, "
                             "users.")


def _set_admin(name: str, db: str | None, admin: bool) -> None:
    """Grant or take away the admin role, on the database, audited as the operator."""
    from arena.store import open_store
    from arena.store.admin import set_admin
    from arena.store.audit import OPERATOR

    with bad_input(), open_store(store_url_of(db)) as store, store.session() as session:
        try:
            set_admin(session, name, admin, OPERATOR)
        except AccountError as error:
            raise RemoteCommandError(f"{error} on the database {store.url}") from None
        session.commit()
    typer.echo(f"{safe_text(name)} is {'now' if admin else 'no longer'} an admin")


@admin_app.command("grant")
def grant_command(
    name: Annotated[str, typer.Argument(metavar="NAME", help="A registered user.")],
    db: Annotated[str | None, DB_OPTION] = None,
) -> None:
    """Make a registered user an admin of the service."""
    _set_admin(name, db, True)


@admin_app.command("revoke")
def revoke_command(
    name: Annotated[str, typer.Argument(metavar="NAME", help="An admin.")],
    db: Annotated[str | None, DB_OPTION] = None,
) -> None:
    """Take the admin role away from a user."""
    _set_admin(name, db, False)


@admin_app.command("add-user")
def add_user_command(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The new user's name.")],
    days: Annotated[int, typer.Option("--days", min=0, help="Days its token lasts (0: "
                                      "never).")] = DEFAULT_TOKEN_DAYS,
    db: Annotated[str | None, DB_OPTION] = None,
) -> None:
    """Register a user on the database, whatever the registration mode, and print its API
    token (shown only this once)."""
    from arena.store import open_store
    from arena.store.accounts import register_user
    from arena.store.audit import OPERATOR, audit
    from arena.store.tokens import expiry

    with bad_input(), open_store(store_url_of(db)) as store, store.session() as session:
        try:
            _, token = register_user(session, name, expiry(days or None))
        except AccountError as error:
            raise RemoteCommandError(str(error)) from None
        audit(session, OPERATOR, "user.registered", f"user:{name}")
        session.commit()
    typer.echo(token)
    typer.echo(f"user {name} registered; keep the token above: it is not shown again",
               err=True)
