"""Unpacking uploaded archives: good bots come out whole, hostile archives leave nothing behind."""

from __future__ import annotations

import gzip
import io
import re
import stat
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.server.uploads import (
    UploadError,
    UploadLimits,
    UploadTooLarge,
    unpack_bot_archive,
)

from .archives import (
    BLOCKDEV,
    CHARDEV,
    FIFO,
    FOLDER,
    HARDLINK,
    SYMLINK,
    TINY_BOT_TOML,
    Member,
    files,
    gnu_sparse_tar,
    tar_bytes,
    tiny_bot,
    zip_bytes,
    zip_with_lying_sizes,
)

Pack = Callable[[list[Member]], bytes]

PACKERS: dict[str, Pack] = {
    "tar": tar_bytes,
    "tar.gz": lambda members: tar_bytes(members, "gz"),
    "zip": zip_bytes,
}

SMALL = UploadLimits(archive_bytes=2**20, unpacked_bytes=64 * 2**10, files=20)


def refused(tmp_path: Path, data: bytes, limits: UploadLimits | None = None) -> str:
    """Unpack ``data`` into tmp_path/upload, expecting a refusal; check nothing is left."""
    with pytest.raises(UploadError) as raised:
        unpack_bot_archive(data, tmp_path / "upload", limits or UploadLimits())
    message = str(raised.value)
    assert "\n" not in message
    assert list(tmp_path.iterdir()) == [], f"left behind: {list(tmp_path.rglob('*'))}"
    return message


# --- refusals for every archive kind -------------------------------------------------------

REFUSALS: list[tuple[str, list[Member], str]] = [
    ("parent", [*tiny_bot(), Member("../x", b"out")],
     r"^the archive member '\.\./x' points outside the bot's folder \('\.\.' in its path\)$"),
    ("deep parent", [*tiny_bot(), Member("a/../../x", b"out")],
     r"^the archive member 'a/\.\./\.\./x' points outside"),
    ("inner parent", [*tiny_bot(), Member("a/../b", b"x")], r"'a/\.\./b' points outside"),
    ("absolute", [*tiny_bot(), Member("/tmp/evil", b"x")],
     r"^the archive member '/tmp/evil' has an absolute path$"),
    ("symlink", [*tiny_bot(), Member("data", kind=SYMLINK, target="/etc/passwd")],
     r"^the archive member 'data' is a symbolic link; links are not allowed in uploads$"),
    ("symlink inside", [Member("link", kind=SYMLINK, target="."), *tiny_bot()],
     r"'link' is a symbolic link"),
    ("chardev", [*tiny_bot(), Member("null", kind=CHARDEV)],
     r"^the archive member 'null' is a character device; only files and folders are allowed "
     r"in uploads$"),
    ("blockdev", [*tiny_bot(), Member("sda", kind=BLOCKDEV)], r"'sda' is a block device"),
    ("fifo", [*tiny_bot(), Member("pipe", kind=FIFO)], r"'pipe' is a fifo"),
    ("duplicate", [*tiny_bot(), Member("bot.py", b"again")],
     r"^the archive holds 'bot\.py' twice$"),
    ("file then folder", [*tiny_bot(), Member("x", b"1"), Member("x/y", b"2")],
     r"^the archive holds 'x' as both a file and a folder$"),
    ("backslash", [*tiny_bot(), Member("..\\evil", b"x")], r"has a backslash in its name"),
    ("no dockerfile", files({"bot.toml": TINY_BOT_TOML, "bot.py": "pass"}),
     r"^no Dockerfile at the archive's root or in its single top-level folder; "
     r"see docs/sandbox\.md$"),
    ("dockerfile too deep", tiny_bot("a/b/"), r"^no Dockerfile at the archive's root"),
    ("two top folders", [*tiny_bot("a/"), Member("b/readme", b"x")],
     r"^no Dockerfile at the archive's root"),
    ("no bot.toml", files({"Dockerfile": "FROM scratch\n"}),
     r"^no bot\.toml next to the Dockerfile; see docs/bots\.md$"),
    ("bot.toml not toml", tiny_bot(bot_toml="name = \n"),
     r"^the uploaded bot: bot\.toml is not valid TOML: "),
    ("bot.toml without name", tiny_bot(bot_toml=TINY_BOT_TOML.replace('name = "tiny"\n', "")),
     r"^the uploaded bot: bot\.toml has no 'name'$"),
    ("bot.toml with host build", tiny_bot(bot_toml=TINY_BOT_TOML + 'build = ["make"]\n'),
     r"^bot\.toml has a 'build' command: host build commands are not allowed in uploads; "
     r"build inside the Dockerfile$"),
    ("dockerfile fetching an image", tiny_bot(dockerfile="FROM ubuntu\n"),
     r"^the Dockerfile's line 1: FROM 'ubuntu' would fetch an image; "),
    ("too many members", [*tiny_bot(), *files({f"f{n}": "x" for n in range(20)})],
     r"^the archive has more than 20 members, the limit$"),
    ("bomb", [*tiny_bot(), Member("zeros", b"\0" * (SMALL.unpacked_bytes + 1))],
     r"^the archive unpacks to more than 0\.1 MiB, the limit$"),
    ("many small files over the limit",
     [*tiny_bot(), *files({f"f{n}": b"\0" * 8 * 2**10 for n in range(12)})],
     r"^the archive unpacks to more than 0\.1 MiB, the limit$"),
]


@pytest.mark.parametrize("kind", sorted(PACKERS))
@pytest.mark.parametrize(("members", "expected"),
                         [(members, expected) for _, members, expected in REFUSALS],
                         ids=[name for name, _, _ in REFUSALS])
def test_hostile_archive_is_refused_and_leaves_nothing(
        tmp_path: Path, kind: str, members: list[Member], expected: str) -> None:
    """Each hostile archive, as tar, tar.gz and zip, gets its one-line refusal; nothing stays."""
    message = refused(tmp_path, PACKERS[kind](members), SMALL)
    assert re.search(expected, message), message


def test_tar_only_refusals(tmp_path: Path) -> None:
    """Hard links and sparse files exist only in tar archives; both are refused."""
    hard = [*tiny_bot(), Member("copy", kind=HARDLINK, target="bot.py")]
    assert refused(tmp_path, tar_bytes(hard)) == (
        "the archive member 'copy' is a hard link; links are not allowed in uploads")
    assert refused(tmp_path, gnu_sparse_tar()) == (
        "the archive member 'holes.bin' is a sparse file; archive it as a plain file")


def test_refusal_in_an_existing_folder_empties_it(tmp_path: Path) -> None:
    """An existing empty target folder stays, emptied, after a refusal half-way through."""
    into = tmp_path / "upload"
    into.mkdir()
    data = tar_bytes([*tiny_bot(), Member("sub/x", b"x"), Member("../escape", b"x")])
    with pytest.raises(UploadError, match="points outside"):
        unpack_bot_archive(data, into)
    assert [path.name for path in tmp_path.iterdir()] == ["upload"]
    assert list(into.iterdir()) == []


# --- archives that are not what they say ---------------------------------------------------


def test_empty_upload(tmp_path: Path) -> None:
    """No bytes at all."""
    assert refused(tmp_path, b"") == (
        "the upload is empty: send a tar, tar.gz or zip archive of your bot's folder")


@pytest.mark.parametrize("data", [b"hello, this is not an archive\n" * 40, b"\x01" * 100,
                                  b"#!/bin/sh\nrm -rf /\n"], ids=["text", "binary", "short"])
def test_not_an_archive(tmp_path: Path, data: bytes) -> None:
    """Bytes that are neither tar, compressed tar nor zip."""
    assert refused(tmp_path, data) == "the upload is not a tar, tar.gz or zip archive"


def test_compressed_file_that_is_not_a_tar(tmp_path: Path) -> None:
    """A gzip file of something other than a tar archive."""
    data = gzip.compress(b"just some text, not a tar archive\n" * 50)
    assert refused(tmp_path, data) == "the upload is compressed but holds no tar archive"


@pytest.mark.parametrize("kind", sorted(PACKERS))
def test_truncated_archive(tmp_path: Path, kind: str) -> None:
    """An archive cut short is refused as damaged (or, cut before its first member, unknown)."""
    members = [*tiny_bot(), Member("noise", bytes(range(256)) * 200)]
    whole = PACKERS[kind](members)
    message = refused(tmp_path, whole[:len(whole) * 2 // 3])
    assert message.startswith("the archive is damaged or incomplete: "), message


def test_corrupted_zip_member(tmp_path: Path) -> None:
    """A zip member whose bytes were changed fails its CRC check."""
    data = bytearray(zip_bytes([*tiny_bot(), Member("data", b"a" * 1000)],
                               compression=zipfile.ZIP_STORED))
    spot = data.index(b"a" * 1000)
    data[spot + 10] = ord("b")
    assert refused(tmp_path, bytes(data)) == (
        "the archive is damaged or incomplete: Bad CRC-32 for file 'data'")


def test_oversize_archive(tmp_path: Path) -> None:
    """An archive over archive_bytes is refused before it is read."""
    limits = UploadLimits(archive_bytes=10_000)
    with pytest.raises(UploadTooLarge, match=r"^the archive is 0\.0 MiB, over the limit of "):
        unpack_bot_archive(b"\0" * 10_001, tmp_path / "upload", limits)
    assert list(tmp_path.iterdir()) == []


def test_compressed_bomb_is_counted_while_streaming(tmp_path: Path) -> None:
    """A tar.gz of 50 MiB of zeros (a few KiB compressed) stops at the unpacked limit."""
    data = tar_bytes([*tiny_bot(), Member("zeros", b"\0" * 50 * 2**20)], "gz")
    assert len(data) < 2**20
    assert refused(tmp_path, data, SMALL) == (
        "the archive unpacks to more than 0.1 MiB, the limit")


def test_zip_whose_sizes_lie_is_refused(tmp_path: Path) -> None:
    """A zip member declaring fewer bytes than it holds never writes more than it declared."""
    data = zip_with_lying_sizes("zeros", b"\0" * 2**20, declared=100)
    message = refused(tmp_path, data, SMALL)
    assert message == "the archive is damaged or incomplete: Bad CRC-32 for file 'zeros'"


def test_zip_declaring_too_much_is_refused_before_unpacking(tmp_path: Path) -> None:
    """Sizes a zip declares past the limit are refused at once."""
    data = zip_with_lying_sizes("zeros", b"\0" * 100, declared=2**30)
    assert refused(tmp_path, data, SMALL) == (
        "the archive unpacks to more than 0.1 MiB, the limit")


def test_encrypted_zip_member(tmp_path: Path) -> None:
    """A password-protected zip member is refused without asking for a password."""
    data = bytearray(zip_bytes([*tiny_bot(), Member("secret", b"x")]))
    central = data.rindex(b"PK\x01\x02")
    data[central + 8] |= 1
    assert refused(tmp_path, bytes(data)) == (
        "the archive member 'secret' is encrypted; upload it without a password")


# --- good archives -------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [*sorted(PACKERS), "tar.bz2", "tar.xz"])
def test_bot_at_the_root(tmp_path: Path, kind: str) -> None:
    """A bot at the archive's root unpacks into the target folder itself."""
    pack = PACKERS.get(kind) or (lambda members: tar_bytes(members, kind.split(".")[1]))
    into = tmp_path / "upload"
    folder = unpack_bot_archive(pack(tiny_bot()), into)
    assert folder == into
    assert sorted(path.name for path in into.iterdir()) == ["Dockerfile", "bot.py", "bot.toml"]
    assert (into / "bot.toml").read_text() == TINY_BOT_TOML


@pytest.mark.parametrize("kind", sorted(PACKERS))
def test_bot_in_a_single_top_folder(tmp_path: Path, kind: str) -> None:
    """A bot in one top-level folder (as `tar czf bot.tgz mybot` makes) unpacks there."""
    members = [Member("mybot", kind=FOLDER), *tiny_bot("mybot/"),
               Member("mybot/lib/helper.py", b"X = 1\n"), Member("__MACOSX/._bot.py", b"junk")]
    into = tmp_path / "upload"
    folder = unpack_bot_archive(PACKERS[kind](members), into)
    assert folder == into / "mybot"
    assert (folder / "lib" / "helper.py").read_bytes() == b"X = 1\n"


def test_dot_slash_names(tmp_path: Path) -> None:
    """Names as `tar -C mybot -c .` writes them (./Dockerfile) land at the root."""
    members = [Member(".", kind=FOLDER), *tiny_bot("./")]
    into = tmp_path / "upload"
    assert unpack_bot_archive(tar_bytes(members, "gz"), into) == into
    assert (into / "Dockerfile").is_file()


@pytest.mark.parametrize("kind", sorted(PACKERS))
def test_modes_are_0644_or_0755(tmp_path: Path, kind: str) -> None:
    """Executable files become 0755, others 0644, folders 0755; setuid and friends are dropped."""
    members = [*tiny_bot(), Member("run.sh", b"#!/bin/sh\n", mode=0o4777),
               Member("secret", b"x", mode=0o600), Member("sticky", kind=FOLDER, mode=0o1777),
               Member("sticky/open", b"x", mode=0o666)]
    into = tmp_path / "upload"
    unpack_bot_archive(PACKERS[kind](members), into)
    modes = {path.relative_to(into).as_posix(): stat.S_IMODE(path.stat().st_mode)
             for path in into.rglob("*")}
    assert modes == {"Dockerfile": 0o644, "bot.py": 0o644, "bot.toml": 0o644, "run.sh": 0o755,
                     "secret": 0o644, "sticky": 0o755, "sticky/open": 0o644}


def test_target_must_be_empty(tmp_path: Path) -> None:
    """A target folder that already holds something is a caller's mistake, left untouched."""
    into = tmp_path / "upload"
    into.mkdir()
    (into / "keep").write_text("mine")
    with pytest.raises(ValueError, match="is not empty"):
        unpack_bot_archive(tar_bytes(tiny_bot()), into)
    assert (into / "keep").read_text() == "mine"


def test_huge_tar_header_is_stopped_at_the_stream_cap(tmp_path: Path) -> None:
    """A pax header of several MiB (read before any member data) is stopped by the stream cap."""
    info = tarfile.TarInfo("bot.toml")
    info.pax_headers = {"comment": "x" * 4 * 2**20}
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as archive:
        archive.addfile(info, io.BytesIO(b""))
    assert refused(tmp_path, buffer.getvalue(), SMALL) == (
        "the archive unpacks to more than 0.1 MiB, the limit")


def test_name_too_long_for_the_file_system(tmp_path: Path) -> None:
    """A member name the file system cannot hold is refused, naming the member."""
    message = refused(tmp_path, tar_bytes([*tiny_bot(), Member("n" * 300, b"x")]))
    assert message == f"the archive member '{'n' * 77}...' cannot be unpacked: File name too long"
