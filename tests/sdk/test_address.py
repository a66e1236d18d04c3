"""Where a bot listens: precedence of the sources, checks, and stale socket files."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from cardarena_sdk.address import (
    ENV_VAR,
    AddressError,
    address_from_argv,
    parse_address,
    resolve_address,
)


def test_argument_then_environment_then_argv() -> None:
    """The argument wins over the environment, which wins over --address."""
    env = {ENV_VAR: "unix:/run/env.sock"}
    argv = ["--address", "127.0.0.1:9000"]
    assert resolve_address("localhost:1", env, argv) == "localhost:1"
    assert resolve_address(None, env, argv) == "unix:/run/env.sock"
    assert resolve_address(None, {}, argv) == "127.0.0.1:9000"
    assert resolve_address(None, {ENV_VAR: ""}, ["--address=h:2"]) == "h:2"


def test_no_address_is_a_clear_error() -> None:
    """Without any source the error names all three ways to give one."""
    with pytest.raises(AddressError, match=f"no address to listen on.*{ENV_VAR}.*--address"):
        resolve_address(None, {}, ["--verbose"])
    with pytest.raises(AddressError, match="--address needs a value"):
        address_from_argv(["--address"])


def test_tcp_addresses() -> None:
    """host:port is kept as the target; a bad port or a bare word is refused."""
    assert parse_address("127.0.0.1:50051").target == "127.0.0.1:50051"
    assert parse_address("[::1]:0").unix_path is None
    with pytest.raises(AddressError, match="port 'http' is not a number"):
        parse_address("localhost:http")
    with pytest.raises(AddressError, match="port '70000'"):
        parse_address("localhost:70000")
    with pytest.raises(AddressError, match=r"neither unix:/path/bot\.sock nor host:port"):
        parse_address("localhost")


def test_unix_addresses(tmp_path: Path) -> None:
    """Both unix: forms give an absolute path; a missing directory is refused."""
    path = tmp_path / "bot.sock"
    assert parse_address(f"unix:{path}").unix_path == str(path)
    third = parse_address(f"unix://{path}")
    assert third.target == f"unix:{path}" and third.is_unix
    with pytest.raises(AddressError, match="does not exist"):
        parse_address(f"unix:{tmp_path}/missing/bot.sock")
    with pytest.raises(AddressError, match="no socket path"):
        parse_address("unix:")
    with pytest.raises(AddressError, match="needs an absolute path"):
        parse_address("unix://relative.sock")
    with pytest.raises(AddressError, match="longer than 107 bytes"):
        parse_address(f"unix:{tmp_path}/{'x' * 120}.sock")


def test_stale_socket_is_removed_live_one_refused(tmp_path: Path) -> None:
    """A socket nobody listens on is cleared; a live socket or a plain file is left alone."""
    path = tmp_path / "bot.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(str(path))
        listener.listen()
        with pytest.raises(AddressError, match="in use by another process"):
            parse_address(f"unix:{path}")
    finally:
        listener.close()
    assert path.exists()
    parse_address(f"unix:{path}")
    assert not path.exists()
    plain = tmp_path / "notes.txt"
    plain.write_text("keep me")
    with pytest.raises(AddressError, match="exists and is not a socket"):
        parse_address(f"unix:{plain}")
    assert plain.read_text() == "keep me"
