"""Unpacking an uploaded archive (tar, tar.gz or zip) safely: every member is checked first.

Only regular files and folders are written, under the target folder, with modes 0644 or 0755.
Links of any kind, devices, fifos, absolute paths and ``..`` are refused, and the unpacked bytes
and members are counted while streaming, so neither lying headers nor compression bombs get past
the limits. The caller empties the target folder when an ``UploadError`` is raised.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Protocol

CHUNK = 64 * 2**10
"""How many bytes are copied at a time."""

TAR_OVERHEAD_PER_MEMBER = 8 * 2**10
"""Tar stream bytes allowed per member beyond its data (headers, long names, padding)."""

TAR_OVERHEAD = 2**20
"""Tar stream bytes allowed beyond the members (end blocks and record padding)."""

NAME_CHARS = 80
"""How much of a member's name a message quotes."""

GZIP_MAGIC = b"\x1f\x8b"
BZIP2_MAGIC = b"BZh"
XZ_MAGIC = b"\xfd7zXZ\x00"
ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")

ARCHIVE_KINDS = "a tar, tar.gz or zip archive"


class Readable(Protocol):
    """Anything bytes are read from in chunks."""

    def read(self, size: int = -1, /) -> bytes:
        """At most ``size`` bytes; empty at the end."""
        ...


class UploadError(ValueError):
    """A refused upload; str(error) is one line a user can act on."""

    def __init__(self, message: str, log: str = "") -> None:
        """Keep the message and, for a failed build, the last lines of its log."""
        super().__init__(message)
        self.log = log


class UploadTooLarge(UploadError):
    """An upload over one of the size or count limits (archive, unpacked bytes, members, image)."""


class UploadTimedOut(UploadError):
    """An uploaded bot whose build ran past its time limit."""


@dataclass(frozen=True, slots=True)
class UploadLimits:
    """How large an upload may be, unpacked and built."""

    archive_bytes: int = 20 * 2**20
    unpacked_bytes: int = 200 * 2**20
    files: int = 5_000
    build_timeout_s: float = 600.0
    image_bytes: int = 2 * 2**30


def mebibytes(size: int) -> str:
    """A byte count for messages, in MiB."""
    return f"{size / 2**20:.1f} MiB"


def quoted(name: str) -> str:
    """A member name for a one-line message: escaped, and shortened when long."""
    if len(name) > NAME_CHARS:
        name = name[:NAME_CHARS - 3] + "..."
    return repr(name)


def unpack_archive(data: bytes, into: Path, limits: UploadLimits) -> None:
    """Unpack the archive in ``data`` (its kind found from its bytes) into the folder ``into``."""
    if not data:
        raise UploadError(f"the upload is empty: send {ARCHIVE_KINDS} of your bot's folder")
    if len(data) > limits.archive_bytes:
        raise UploadTooLarge(f"the archive is {mebibytes(len(data))}, over the limit of "
                             f"{mebibytes(limits.archive_bytes)}")
    writer = FolderWriter(into, limits)
    if data.startswith(ZIP_MAGICS):
        _unpack_zip(data, writer)
    else:
        _unpack_tar(data, writer)


class FolderWriter:
    """Writes checked members under one folder, counting members and bytes against the limits."""

    def __init__(self, root: Path, limits: UploadLimits) -> None:
        """Start with nothing written under ``root``."""
        self.root = root
        self.limits = limits
        self.members = 0
        self.unpacked = 0
        self.files: set[PurePosixPath] = set()
        self.folders: set[PurePosixPath] = {PurePosixPath()}

    def count_member(self) -> None:
        """Count one more member; refuse past the limit."""
        self.members += 1
        if self.members > self.limits.files:
            raise UploadTooLarge(f"the archive has more than {self.limits.files} members, "
                                 f"the limit")

    def folder(self, name: str) -> None:
        """Make the folder a member names (and its parents)."""
        self._make_parents(self.relative(name))

    def file(self, name: str, source: Readable, executable: bool) -> None:
        """Write a regular file's bytes from ``source``, counting them as they come."""
        relative = self.relative(name)
        if relative == PurePosixPath():
            raise UploadError(f"the archive member {quoted(name)} has no file name")
        if relative in self.files or relative in self.folders:
            raise UploadError(f"the archive holds {quoted(name)} twice")
        self._make_parents(relative.parent)
        self.files.add(relative)
        target = self.root.joinpath(*relative.parts)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        try:
            descriptor = os.open(target, flags, 0o600)
        except OSError as error:
            raise cannot_unpack(name, error) from None
        with os.fdopen(descriptor, "wb") as output:
            while chunk := source.read(CHUNK):
                self.unpacked += len(chunk)
                if self.unpacked > self.limits.unpacked_bytes:
                    raise self.too_large()
                try:
                    output.write(chunk)
                except OSError as error:
                    raise cannot_unpack(name, error) from None
            os.fchmod(output.fileno(), 0o755 if executable else 0o644)

    def declare(self, size: int) -> None:
        """Refuse early when sizes the archive declares already pass the unpacked limit."""
        if size > self.limits.unpacked_bytes:
            raise self.too_large()

    def too_large(self) -> UploadTooLarge:
        """The refusal of an archive that unpacks past the limit."""
        return UploadTooLarge(f"the archive unpacks to more than "
                              f"{mebibytes(self.limits.unpacked_bytes)}, the limit")

    def relative(self, name: str) -> PurePosixPath:
        """The member's path inside the folder, or a refusal naming what is wrong with it."""
        if "\x00" in name:
            raise UploadError(f"the archive member {quoted(name)} has a NUL byte in its name")
        if "\\" in name:
            raise UploadError(f"the archive member {quoted(name)} has a backslash in its name; "
                              f"use / between folders")
        if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
            raise UploadError(f"the archive member {quoted(name)} has an absolute path")
        parts = [part for part in name.split("/") if part not in ("", ".")]
        if ".." in parts:
            raise UploadError(f"the archive member {quoted(name)} points outside the bot's "
                              f"folder ('..' in its path)")
        return PurePosixPath(*parts)

    def _make_parents(self, relative: PurePosixPath) -> None:
        """Make ``relative`` and each folder on its way that is not there yet, mode 0755."""
        for folder in [*reversed(relative.parents), relative]:
            if folder in self.folders:
                continue
            if folder in self.files:
                raise UploadError(f"the archive holds {quoted(str(folder))} as both a file and "
                                  f"a folder")
            target = self.root.joinpath(*folder.parts)
            try:
                os.mkdir(target, 0o700)
                os.chmod(target, 0o755)
            except OSError as error:
                raise cannot_unpack(str(folder), error) from None
            self.folders.add(folder)


def cannot_unpack(name: str, error: OSError) -> UploadError:
    """The refusal of a member the file system would not take (a name too long, say)."""
    return UploadError(f"the archive member {quoted(name)} cannot be unpacked: "
                       f"{error.strerror or error}")


class BoundedReader(io.RawIOBase):
    """A readable stream that refuses to give more than ``cap`` bytes in all."""

    def __init__(self, source: Readable, cap: int, refusal: Callable[[], UploadError]) -> None:
        """Read from ``source``; raise ``refusal()`` once more than ``cap`` bytes came."""
        super().__init__()
        self.source = source
        self.cap = cap
        self.refusal = refusal
        self.total = 0

    def readable(self) -> bool:
        """This stream is read, never written."""
        return True

    def read(self, size: int | None = -1) -> bytes:
        """At most one chunk of the source, counted against the cap."""
        wanted = CHUNK if size is None or size < 0 else min(size, CHUNK)
        chunk = self.source.read(wanted)
        self.total += len(chunk)
        if self.total > self.cap:
            raise self.refusal()
        return chunk

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        """Fill ``buffer`` from at most one chunk of the source."""
        chunk = self.read(len(buffer))
        memoryview(buffer)[:len(chunk)] = chunk
        return len(chunk)


def _decompressed(data: bytes) -> io.BufferedIOBase:
    """The bytes of a tar stream: ``data`` itself, or ``data`` decompressed as it is read."""
    raw = io.BytesIO(data)
    if data.startswith(GZIP_MAGIC):
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if data.startswith(BZIP2_MAGIC):
        return bz2.BZ2File(raw)
    if data.startswith(XZ_MAGIC):
        return lzma.LZMAFile(raw)
    return raw


STREAM_ERRORS = (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError, zlib.error,
                 lzma.LZMAError, ValueError)
"""What a damaged or truncated archive raises while it is read."""


def _damaged(error: BaseException) -> UploadError:
    """The refusal of an archive that could not be read to its end."""
    detail = (str(error).strip() or type(error).__name__).splitlines()[0][:200]
    return UploadError(f"the archive is damaged or incomplete: {detail}")


def _unpack_tar(data: bytes, writer: FolderWriter) -> None:
    """Stream a (possibly compressed) tar archive into the writer, member by member."""
    limits = writer.limits
    cap = limits.unpacked_bytes + limits.files * TAR_OVERHEAD_PER_MEMBER + TAR_OVERHEAD
    stream = BoundedReader(_decompressed(data), cap, writer.too_large)
    seen = 0
    try:
        with tarfile.open(fileobj=stream, mode="r|") as archive:
            for member in archive:
                seen += 1
                writer.count_member()
                _check_tar_member(member, writer)
                if member.isdir():
                    writer.folder(member.name)
                    continue
                writer.declare(writer.unpacked + member.size)
                source = archive.extractfile(member)
                if source is None:
                    raise UploadError(f"the archive member {quoted(member.name)} cannot be read")
                writer.file(member.name, source, executable=bool(member.mode & 0o111))
    except UploadError:
        raise
    except STREAM_ERRORS as error:
        if seen == 0 and not _looks_like_tar(data):
            raise UploadError(f"the upload is not {ARCHIVE_KINDS}") from None
        if seen == 0 and isinstance(error, tarfile.ReadError):
            raise UploadError("the upload is compressed but holds no tar archive") from None
        raise _damaged(error) from None


def _looks_like_tar(data: bytes) -> bool:
    """True when the bytes start as a compressed stream or carry a POSIX tar header's magic."""
    return data.startswith((GZIP_MAGIC, BZIP2_MAGIC, XZ_MAGIC)) or data[257:262] == b"ustar"


def _check_tar_member(member: tarfile.TarInfo, writer: FolderWriter) -> None:
    """Refuse any tar member but a plain file or folder; then apply tarfile's data filter."""
    name = quoted(member.name)
    if member.issym():
        raise UploadError(f"the archive member {name} is a symbolic link; links are not "
                          f"allowed in uploads")
    if member.islnk():
        raise UploadError(f"the archive member {name} is a hard link; links are not allowed "
                          f"in uploads")
    if member.issparse():
        raise UploadError(f"the archive member {name} is a sparse file; archive it as a plain "
                          f"file")
    if not (member.isreg() or member.isdir()):
        raise UploadError(f"the archive member {name} is a {_tar_kind(member)}; only files "
                          f"and folders are allowed in uploads")
    writer.relative(member.name)
    data_filter = getattr(tarfile, "data_filter", None)
    if data_filter is not None and member.name.strip("/") not in ("", "."):
        try:
            data_filter(member, str(writer.root))
        except tarfile.FilterError as error:
            raise UploadError(f"the archive member {name} is refused by the tar data filter "
                              f"({type(error).__name__})") from None


def _tar_kind(member: tarfile.TarInfo) -> str:
    """What a special tar member is, in words."""
    if member.ischr():
        return "character device"
    if member.isblk():
        return "block device"
    if member.isfifo():
        return "fifo"
    return f"special member (type {member.type!r})"


def _unpack_zip(data: bytes, writer: FolderWriter) -> None:
    """Unpack a zip archive into the writer, counting the bytes each member really gives."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except STREAM_ERRORS as error:
        raise _damaged(error) from None
    with archive:
        members = archive.infolist()
        if len(members) > writer.limits.files:
            raise UploadTooLarge(f"the archive has more than {writer.limits.files} members, "
                                 f"the limit")
        writer.declare(sum(member.file_size for member in members))
        for member in members:
            writer.count_member()
            _unpack_zip_member(archive, member, writer)


def _unpack_zip_member(archive: zipfile.ZipFile, member: zipfile.ZipInfo,
                       writer: FolderWriter) -> None:
    """Check one zip member's kind and write it."""
    name = quoted(member.filename)
    mode = member.external_attr >> 16 if member.create_system == 3 else 0
    kind = stat.S_IFMT(mode)
    if kind == stat.S_IFLNK:
        raise UploadError(f"the archive member {name} is a symbolic link; links are not "
                          f"allowed in uploads")
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        raise UploadError(f"the archive member {name} is a {_zip_kind(kind)}; only files and "
                          f"folders are allowed in uploads")
    if member.flag_bits & 0x1:
        raise UploadError(f"the archive member {name} is encrypted; upload it without a "
                          f"password")
    if member.is_dir() or kind == stat.S_IFDIR:
        writer.folder(member.filename)
        return
    try:
        with archive.open(member) as source:
            writer.file(member.filename, source, executable=bool(mode & 0o111))
    except NotImplementedError:
        raise UploadError(f"the archive member {name} uses a compression method that is not "
                          f"supported; use deflate") from None
    except UploadError:
        raise
    except STREAM_ERRORS as error:
        raise _damaged(error) from None


def _zip_kind(kind: int) -> str:
    """What a special zip member is, in words."""
    names = {stat.S_IFCHR: "character device", stat.S_IFBLK: "block device",
             stat.S_IFIFO: "fifo", stat.S_IFSOCK: "socket"}
    return names.get(kind, f"special member (mode {kind:o})")
