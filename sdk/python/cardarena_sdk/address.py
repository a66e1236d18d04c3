"""Where a bot listens: from the argument, ``CARDARENA_ADDRESS`` or ``--address``, checked."""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

ENV_VAR = "CARDARENA_ADDRESS"
"""The environment variable the arena sets to the address a bot must listen on."""

UNIX_PATH_MAX = 107
"""The longest Unix socket path in bytes (sun_path holds 108 with the final NUL)."""


class AddressError(ValueError):
    """A missing or unusable listening address; the text says what to fix."""


@dataclass(frozen=True, slots=True)
class Address:
    """A checked address: a gRPC target, and the socket path for a Unix socket."""

    target: str
    unix_path: str | None = None

    @property
    def is_unix(self) -> bool:
        """True for a Unix socket."""
        return self.unix_path is not None


def address_from_argv(argv: Sequence[str]) -> str | None:
    """The value of ``--address X`` or ``--address=X`` in a command line, if any."""
    for index, arg in enumerate(argv):
        if arg == "--address":
            if index + 1 >= len(argv):
                raise AddressError("--address needs a value: unix:/path/bot.sock or host:port")
            return argv[index + 1]
        if arg.startswith("--address="):
            return arg.split("=", 1)[1]
    return None


def resolve_address(address: str | None = None, environ: Mapping[str, str] | None = None,
                    argv: Sequence[str] | None = None) -> str:
    """The address text: the argument, else ``CARDARENA_ADDRESS``, else ``--address``."""
    if address:
        return address
    env = os.environ if environ is None else environ
    if env.get(ENV_VAR):
        return env[ENV_VAR]
    from_argv = address_from_argv(sys.argv[1:] if argv is None else argv)
    if from_argv:
        return from_argv
    raise AddressError(f"no address to listen on: pass serve(bot, address=...), set {ENV_VAR} "
                       "or run with --address, as unix:/path/bot.sock or host:port")


def parse_address(text: str) -> Address:
    """Check an address (``unix:/path.sock``, ``unix:///path.sock`` or ``host:port``)."""
    text = text.strip()
    if text.startswith("unix:"):
        return _unix_address(text)
    host, sep, port = text.rpartition(":")
    if not sep or not host:
        raise AddressError(f"address {text!r} is neither unix:/path/bot.sock nor host:port")
    if not port.isdigit() or int(port) > 65535:
        raise AddressError(f"address {text!r}: port {port!r} is not a number 0 .. 65535")
    return Address(text)


def _unix_address(text: str) -> Address:
    """Check a Unix socket address: its directory exists and nothing live is there."""
    rest = text[len("unix:"):]
    if rest.startswith("//"):
        rest = rest[2:]
        if not rest.startswith("/"):
            raise AddressError(f"address {text!r}: unix:// needs an absolute path "
                               "(unix:///path/bot.sock)")
    if not rest:
        raise AddressError(f"address {text!r} has no socket path")
    path = os.path.abspath(rest)
    if len(os.fsencode(path)) > UNIX_PATH_MAX:
        raise AddressError(f"socket path {path!r} is longer than {UNIX_PATH_MAX} bytes")
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        raise AddressError(f"socket directory {directory!r} does not exist")
    _clear_stale_socket(path)
    return Address(f"unix:{path}", path)


def _clear_stale_socket(path: str) -> None:
    """Remove a socket file nobody listens on; refuse a live socket or any other file."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(mode):
        raise AddressError(f"socket path {path!r} exists and is not a socket")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
    except (ConnectionRefusedError, FileNotFoundError):
        remove_socket(path)
        return
    finally:
        probe.close()
    raise AddressError(f"socket {path!r} is in use by another process")


def remove_socket(path: str) -> None:
    """Remove a Unix socket file if it is still there (never another kind of file); a folder
    the bot may no longer change (the sandbox locks it) leaves it to the arena."""
    try:
        if stat.S_ISSOCK(os.lstat(path).st_mode):
            os.unlink(path)
    except (FileNotFoundError, PermissionError):
        pass


def open_socket(path: str) -> None:
    """Let any local user connect to the socket (an arena that is not root reaches a sandboxed
    bot running under another uid); the socket's folder is what keeps others out."""
    with contextlib.suppress(OSError):
        os.chmod(path, 0o666)
