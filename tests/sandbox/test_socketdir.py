"""The per-seat socket folder: fresh and private, and a socket checked without following links."""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.sandbox.limits import SandboxLimits
from arena.sandbox.socketdir import SocketDir, SocketRefused

LIMITS = SandboxLimits()
AS_ROOT = os.geteuid() == 0


@pytest.fixture
def socket_dir(short_root: Path) -> Iterator[SocketDir]:
    """A fresh socket folder under a short root, removed afterwards."""
    folder = SocketDir.create(LIMITS.uid, LIMITS.gid, short_root)
    try:
        yield folder
    finally:
        folder.remove()


def listen(path: Path) -> socket.socket:
    """A listening Unix socket at ``path``."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)
    return server


def test_the_folder_is_fresh_private_and_the_container_users(socket_dir: SocketDir,
                                                            short_root: Path) -> None:
    assert socket_dir.outer.parent == short_root and socket_dir.outer.name.startswith("cat-")
    outer, inner = os.lstat(socket_dir.outer), os.lstat(socket_dir.path)
    assert stat.S_IMODE(outer.st_mode) == 0o700
    if AS_ROOT:
        assert stat.S_IMODE(inner.st_mode) == 0o770
        assert (inner.st_uid, inner.st_gid) == (0, LIMITS.gid)
    assert len(os.fsencode(socket_dir.socket)) <= 107
    assert not socket_dir.present()


def test_a_link_in_place_of_the_socket_is_refused_and_not_followed(socket_dir: SocketDir,
                                                                  short_root: Path) -> None:
    target = short_root / "host-file"
    target.write_text("host\n", encoding="utf-8")
    socket_dir.socket.symlink_to(target)
    assert socket_dir.present()
    with pytest.raises(SocketRefused, match="replaced its socket with a symbolic link; refused"):
        socket_dir.open_verified(LIMITS.uid)
    assert socket_dir.fd is None
    socket_dir.remove()
    assert target.read_text(encoding="utf-8") == "host\n"
    target.unlink()


def test_a_dangling_link_counts_as_present_and_is_refused(socket_dir: SocketDir) -> None:
    socket_dir.socket.symlink_to("/nonexistent/agent.sock")
    assert socket_dir.present()
    with pytest.raises(SocketRefused, match="symbolic link"):
        socket_dir.open_verified(LIMITS.uid)


def test_a_regular_file_or_folder_is_refused(socket_dir: SocketDir) -> None:
    socket_dir.socket.write_text("", encoding="utf-8")
    with pytest.raises(SocketRefused, match="put a regular file where its socket belongs"):
        socket_dir.open_verified(LIMITS.uid)
    socket_dir.socket.unlink()
    socket_dir.socket.mkdir()
    with pytest.raises(SocketRefused, match="put a directory where its socket belongs"):
        socket_dir.open_verified(LIMITS.uid)


@pytest.mark.skipif(not AS_ROOT, reason="changing a socket's owner needs root")
def test_a_socket_of_another_user_is_refused(socket_dir: SocketDir) -> None:
    server = listen(socket_dir.socket)
    try:
        with pytest.raises(SocketRefused, match="belongs to uid 0, not the bot's uid 10001"):
            socket_dir.open_verified(LIMITS.uid)
    finally:
        server.close()


def test_the_verified_socket_is_reached_through_its_fd(socket_dir: SocketDir) -> None:
    server = listen(socket_dir.socket)
    try:
        if AS_ROOT:
            os.chown(socket_dir.socket, LIMITS.uid, LIMITS.gid)
        target = socket_dir.open_verified(LIMITS.uid if AS_ROOT else os.geteuid())
        assert socket_dir.fd is not None and target == f"unix:/proc/self/fd/{socket_dir.fd}"
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(target.removeprefix("unix:"))
        client.close()
    finally:
        server.close()
    socket_dir.remove()
    assert socket_dir.fd is None and not socket_dir.outer.exists()


def test_the_folder_is_locked_once_the_socket_is_there(socket_dir: SocketDir) -> None:
    server = listen(socket_dir.socket)
    try:
        if AS_ROOT:
            os.chown(socket_dir.socket, LIMITS.uid, LIMITS.gid)
        socket_dir.open_verified(LIMITS.uid if AS_ROOT else os.geteuid())
        inner = os.lstat(socket_dir.path)
        assert stat.S_IMODE(inner.st_mode) == 0o755 and inner.st_uid == os.geteuid()
    finally:
        server.close()


def test_files_beside_the_socket_are_refused(socket_dir: SocketDir) -> None:
    server = listen(socket_dir.socket)
    (socket_dir.path / "filler.bin").write_bytes(b"x" * 1024)
    try:
        with pytest.raises(SocketRefused, match=r"put files in its socket folder "
                           r"\(filler\.bin\), where only its socket belongs; refused"):
            socket_dir.open_verified(LIMITS.uid)
    finally:
        server.close()
    assert socket_dir.fd is None


def test_a_file_beside_the_socket_is_seen_before_the_socket(socket_dir: SocketDir) -> None:
    (socket_dir.path / "filler.bin").write_bytes(b"x")
    with pytest.raises(SocketRefused, match=r"put files in its socket folder \(filler\.bin\)"):
        socket_dir.present()
