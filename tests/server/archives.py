"""Archives built in memory for the upload tests: good bots and hostile members of every kind."""

from __future__ import annotations

import io
import stat
import struct
import tarfile
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path

FILE = "file"
FOLDER = "folder"
SYMLINK = "symlink"
HARDLINK = "hardlink"
CHARDEV = "chardev"
BLOCKDEV = "blockdev"
FIFO = "fifo"

TINY_BOT_TOML = """\
name = "tiny"
version = "0.1.0"
language = "python"
command = ["python", "bot.py"]
games = ["briscola"]
"""

TINY_DOCKERFILE = """\
ARG BASE=cardarena/python-base
FROM ${BASE}
WORKDIR /bot
COPY . /bot
CMD ["python", "bot.py"]
"""

ROOT = Path(__file__).resolve().parents[2]
TINY_BOT_PY = (ROOT / "sample_bots" / "python" / "random" / "bot.py").read_text(encoding="utf-8")


@dataclass(frozen=True)
class Member:
    """One archive member: its name, kind, bytes, mode and, for links, target."""

    name: str
    data: bytes = b""
    kind: str = FILE
    mode: int = 0o644
    target: str = ""


def files(mapping: dict[str, str | bytes], mode: int = 0o644) -> list[Member]:
    """Plain file members from a name-to-content mapping."""
    return [Member(name, content.encode() if isinstance(content, str) else content, mode=mode)
            for name, content in mapping.items()]


def tiny_bot(prefix: str = "", dockerfile: str = TINY_DOCKERFILE,
             bot_toml: str = TINY_BOT_TOML) -> list[Member]:
    """A small Python bot's members (bot.toml, Dockerfile, bot.py), under ``prefix``."""
    return files({f"{prefix}bot.toml": bot_toml, f"{prefix}Dockerfile": dockerfile,
                  f"{prefix}bot.py": TINY_BOT_PY})


TAR_TYPES = {FILE: tarfile.REGTYPE, FOLDER: tarfile.DIRTYPE, SYMLINK: tarfile.SYMTYPE,
             HARDLINK: tarfile.LNKTYPE, CHARDEV: tarfile.CHRTYPE, BLOCKDEV: tarfile.BLKTYPE,
             FIFO: tarfile.FIFOTYPE}


def tar_bytes(members: list[Member], compression: str = "") -> bytes:
    """A tar archive of the members (``compression`` "", "gz", "bz2" or "xz")."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=f"w:{compression}",
                      format=tarfile.PAX_FORMAT) as archive:
        for member in members:
            info = tarfile.TarInfo(member.name)
            info.type = TAR_TYPES[member.kind]
            info.mode = 0o755 if member.kind == FOLDER else member.mode
            info.linkname = member.target
            if member.kind == FILE:
                info.size = len(member.data)
                archive.addfile(info, io.BytesIO(member.data))
            else:
                archive.addfile(info)
    return buffer.getvalue()


ZIP_KINDS = {FILE: stat.S_IFREG, FOLDER: stat.S_IFDIR, SYMLINK: stat.S_IFLNK,
             CHARDEV: stat.S_IFCHR, BLOCKDEV: stat.S_IFBLK, FIFO: stat.S_IFIFO}


def zip_bytes(members: list[Member], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    """A zip archive of the members; links and devices are marked in the Unix mode bits."""
    buffer = io.BytesIO()
    with (warnings.catch_warnings(),
          zipfile.ZipFile(buffer, "w", compression=compression) as archive):
        warnings.simplefilter("ignore", UserWarning)
        for member in members:
            name = member.name + "/" if member.kind == FOLDER else member.name
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.create_system = 3
            info.compress_type = compression
            mode = 0o755 if member.kind == FOLDER else member.mode
            info.external_attr = (ZIP_KINDS[member.kind] | mode) << 16
            data = member.target.encode() if member.kind == SYMLINK else member.data
            archive.writestr(info, data)
    return buffer.getvalue()


def zip_with_lying_sizes(name: str, data: bytes, declared: int) -> bytes:
    """A zip whose one member says it unpacks to ``declared`` bytes, though it holds ``data``."""
    archive = bytearray(zip_bytes([Member(name, data)]))
    real = struct.pack("<I", len(data))
    fake = struct.pack("<I", declared)
    local = archive.index(b"PK\x03\x04")
    archive[local + 22:local + 26] = fake
    central = archive.index(b"PK\x01\x02")
    assert archive[central + 24:central + 28] == real
    archive[central + 24:central + 28] = fake
    return bytes(archive)


def gnu_sparse_tar() -> bytes:
    """A tar archive whose one member is a GNU sparse file."""
    info = tarfile.TarInfo("holes.bin")
    info.type = tarfile.GNUTYPE_SPARSE
    info.size = 0
    header = bytearray(info.tobuf(format=tarfile.GNU_FORMAT))
    return bytes(header) + b"\0" * 1024
