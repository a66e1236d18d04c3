"""The socket folder gives a bot nothing on the host to fill.

A hostile bot (``arena/sandbox/audit/socket_abuse.py``, run by the base image in the sandbox's
container) tries every way to write host disk through ``/run/cardarena``: files with no name
(``O_TMPFILE``), files unlinked while open, ``fallocate``, huge sparse files written densely,
hard links, fds and a folder fd kept from before the lock, and new files after it. The
socket folders go under a file system of this test's own (a ``tmpfs``), so that its free
space, sampled every millisecond during the match, moves only with what the bot manages to
store there. Before the fix this bot took hundreds of MiB of it.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.agents.seats import DockerSeat, PolicySeat
from arena.audit.measure import FreeSpace
from arena.games import load_game
from arena.match.runner import run_deal
from arena.match.timecontrol import TimeControl
from arena.sandbox import audit, capfs
from arena.sandbox.errors import LimitsNotEnforced
from arena.sandbox.images import BASE_IMAGE, inspect_bot_image
from arena.sandbox.limits import SandboxLimits

from .capping import require_capping
from .conftest import our_containers, require_docker
from .kept import KeptDockerSeat

BRISCOLA = load_game("briscola")
CONTROL = TimeControl(decision_ms=2000, bank_ms=5000, startup_ms=60_000, ready_ms=30_000)
DROP_BOUND = 1 << 20
"""The most the folder's file system may lose while the bot attacks."""
PROBE = re.compile(r"^probe (?P<name>[^:\n]+): (?P<outcome>\w+) \((?P<detail>[^\n]*)\)$",
                   re.MULTILINE)
EXPECTED = {
    "tmpfile": r"ENOSPC after \d+ bytes", "unlinked-open": r"ENOSPC after 0 bytes",
    "fallocate": r"ENOSPC after 0 bytes", "sparse-dense": r"ENOSPC after \d+ bytes",
    "hard-link-in": r"EXDEV after 0 bytes", "kept-fd": r"ENOENT after 0 bytes",
    "tmpfile-after": r"EACCES after 0 bytes", "named-after": r"EACCES after 0 bytes",
    "openat-kept-folder": r"EACCES after 0 bytes", "hard-link-after": r"E\w+ after 0 bytes",
    "mkdir-after": r"EACCES after 0 bytes", "move-socket": r"EACCES after 0 bytes"}


@pytest.fixture
def own_fs() -> Iterator[Path]:
    """A short folder on a 1 GiB tmpfs of its own, unmounted afterwards."""
    require_capping()
    root = Path(tempfile.mkdtemp(prefix="cat-", dir="/tmp"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1g,mode=0700", "cat-test", str(root)],
                   check=True)
    try:
        yield root
    finally:
        subprocess.run(["umount", "-l", str(root)], check=False)
        root.rmdir()


@pytest.mark.alone
@pytest.mark.docker
def test_a_bot_cannot_store_anything_on_the_host_through_its_socket_folder(
        base_image: str, own_fs: Path) -> None:
    image = inspect_bot_image(BASE_IMAGE)
    hostile = KeptDockerSeat(DockerSeat(image, SandboxLimits(), own_fs,
                                        command=audit.command("socket_abuse")))
    space = FreeSpace(own_fs)
    try:
        deal = run_deal(BRISCOLA, 5, [PolicySeat("random"), hostile], CONTROL)
    finally:
        drop = space.stop()
    assert drop <= DROP_BOUND, f"the host's free space dropped by {drop} bytes"
    record = deal.record
    assert record is not None and record.conduct is not None
    report = record.conduct.seats[1]
    assert deal.reason_names[0] == "OK"
    assert report.reason in ("OK", "INIT_ERROR", "CRASH"), (report.reason, report.detail)
    probes = {found["name"]: (found["outcome"], found["detail"])
              for found in PROBE.finditer(report.stderr)}
    assert "ESCAPED" not in report.stderr, report.stderr
    if report.reason == "OK":
        for name, detail in EXPECTED.items():
            assert name in probes, (name, report.stderr)
            assert probes[name][0] == "blocked" and re.fullmatch(detail, probes[name][1]), (
                name, probes[name])
        assert int(probes["tmpfile"][1].split()[-2]) <= capfs.cap_bytes()
    (agent,) = hostile.agents
    assert agent.socket_dir is not None and agent.socket_dir.capped
    assert not agent.socket_dir.outer.exists() and not capfs.is_capped(agent.socket_dir.path)
    assert list(own_fs.iterdir()) == []
    assert not our_containers(require_docker())


def test_the_socket_folder_is_a_tiny_file_system_of_its_own(short_root: Path) -> None:
    require_capping()
    from arena.sandbox.socketdir import SocketDir
    folder = SocketDir.create(10001, 10001, short_root, capped=True)
    try:
        assert capfs.is_capped(folder.path)
        info = os.statvfs(folder.path)
        assert info.f_blocks * info.f_frsize == capfs.cap_bytes()
        assert info.f_files == capfs.CAP_INODES
        stat = os.lstat(folder.path)
        assert (stat.st_uid, stat.st_gid, stat.st_mode & 0o7777) == (0, 10001, 0o770)
    finally:
        folder.remove()
    assert not capfs.is_capped(folder.path) and not folder.outer.exists()


def test_an_arena_that_cannot_cap_socket_folders_refuses_untrusted_bots(
        monkeypatch: pytest.MonkeyPatch, base_image: str) -> None:
    from arena.sandbox import probe
    monkeypatch.setattr(capfs, "unavailable", lambda: "cannot mount (EPERM)")
    seat = DockerSeat(inspect_bot_image(BASE_IMAGE))
    with pytest.raises(LimitsNotEnforced, match=r"socket_folder \(cannot mount \(EPERM\)\)"):
        seat.check(BRISCOLA)
    probe.require_enforced(frozenset({"socket_folder"}), base_image)
