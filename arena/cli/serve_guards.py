"""``arena serve``'s TLS and limit options, and their reading into what the service takes."""

from __future__ import annotations

from pathlib import Path

import typer

from arena.cli.remote import RemoteCommandError
from arena.server.limit_settings import (
    FIELDS,
    LimitSettingError,
    ServiceLimits,
    describe_limits,
    parse_limit_options,
)
from arena.server.tls import TlsError, TlsFiles, load_tls

TLS_CERT_OPTION = typer.Option(
    "--tls-cert", metavar="PATH",
    help="Serve the gRPC API and the web pages over TLS with this PEM certificate (chain); "
         "needs --tls-key.")
TLS_KEY_OPTION = typer.Option(
    "--tls-key", metavar="PATH",
    help="The PEM private key of --tls-cert.")
LIMIT_OPTION = typer.Option(
    "--limit", metavar="KEY=VALUE",
    help=f"Set a quota or rate limit (repeatable; VALUE 'off' turns it off). Keys: "
         f"{', '.join(FIELDS)}. Defaults: {describe_limits(ServiceLimits())}.")


def service_tls(cert: Path | None, key: Path | None) -> TlsFiles | None:
    """The checked certificate and key, or None without either; one ``error:`` line (exit 2)
    when only one is given, or a file is missing, unreadable or does not match."""
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        raise RemoteCommandError("TLS needs both --tls-cert PATH and --tls-key PATH")
    try:
        return load_tls(cert, key)
    except TlsError as error:
        raise RemoteCommandError(str(error)) from None


def service_limits(values: list[str] | None) -> ServiceLimits:
    """The quotas and rate limits of the ``--limit`` options over the defaults; one ``error:``
    line (exit 2) for a bad one."""
    try:
        return parse_limit_options(values or [])
    except LimitSettingError as error:
        raise RemoteCommandError(str(error)) from None
