"""A hostile bot that tries every way to store data on the host through its socket folder
(``/run/cardarena``, the one folder it shares with the host), then plays legally.

Before its socket exists (the folder is writable) it keeps every file it can open there and
writes each as far as it goes: a file made with ``O_TMPFILE`` (no name), a file created and
unlinked while open, ``fallocate`` and a huge sparse file written densely, a hard link from
its own ``/tmp``, and an fd on the folder itself. Then it makes its socket (closing its files
if the socket does not fit beside them). At MatchStart, once the arena has locked the folder,
it writes on through every fd it kept and tries new files, ``O_TMPFILE``, a hard link, a
folder and moving its socket. Each attempt prints ``probe NAME: OUTCOME (DETAIL)`` on standard
error: ``blocked`` (refused within a megabyte) or ``ESCAPED`` (more than a megabyte written).

It refuses to run outside the arena's container: in a bot process's folder it would fill the
host's disk.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import threading
from collections.abc import Callable, Iterator

import grpc

from arena.protocol import rawserver
from arena.protocol.schema import agent as pb

FOLDER = "/run/cardarena"
ADDRESS = f"unix:{FOLDER}/agent.sock"
ATTEMPT = 64 << 20
"""Bytes each attempt tries to write."""
ESCAPE = 1 << 20
"""More than this written through the folder is an escape."""
CHUNK = b"\xa5" * (1 << 20)
READY = pb.PlayResponse(ready=pb.Ready(protocol_version="cardarena.v1",
                                       bot_name="socket-abuse",
                                       bot_version="0.1.0")).SerializeToString()

kept: list[int] = []
"""Files in the folder opened before the lock and kept open."""
folder_fd: list[int] = []


def report(name: str, written: int, error: OSError | None, must_fail: bool = False) -> None:
    """Print the outcome of one attempt: escaped when it wrote more than ``ESCAPE`` bytes, or
    when an attempt that ``must_fail`` worked."""
    escaped = written > ESCAPE or (must_fail and error is None)
    outcome = "ESCAPED" if escaped else "blocked"
    cause = errno.errorcode.get(error.errno or 0, str(error)) if error else "no error"
    print(f"probe {name}: {outcome} ({cause} after {written} bytes)", file=sys.stderr,
          flush=True)


def fill(fd: int, offset: int = 0) -> tuple[int, OSError | None]:
    """Write densely from ``offset`` until ``ATTEMPT`` bytes or an error."""
    written = 0
    try:
        while written < ATTEMPT:
            written += os.pwrite(fd, CHUNK, offset + written)
    except OSError as error:
        return written, error
    return written, None


def attempt(name: str, opener: Callable[[], int]) -> None:
    """Open a file with ``opener``, keep it, fill it and report."""
    try:
        fd = opener()
    except OSError as error:
        report(name, 0, error)
        return
    kept.append(fd)
    report(name, *fill(fd))


def tmpfile() -> int:
    """A file without a name."""
    return os.open(FOLDER, os.O_TMPFILE | os.O_RDWR, 0o600)


def unlinked() -> int:
    """A file created, then unlinked while open."""
    path = os.path.join(FOLDER, ".unlinked")
    fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
    os.unlink(path)
    return fd


def named() -> int:
    """A file with a name."""
    return os.open(os.path.join(FOLDER, "late.bin"), os.O_CREAT | os.O_RDWR, 0o600)


def at_kept_folder() -> int:
    """A file made through the fd on the folder opened before the lock."""
    return os.open("late-at", os.O_CREAT | os.O_RDWR, 0o600, dir_fd=folder_fd[0])


def before_the_lock() -> None:
    """Every attempt while the folder is writable."""
    attempt("tmpfile", tmpfile)
    attempt("unlinked-open", unlinked)
    try:
        fd = os.open(FOLDER, os.O_TMPFILE | os.O_RDWR, 0o600)
        kept.append(fd)
        os.posix_fallocate(fd, 0, ATTEMPT)
        report("fallocate", os.fstat(fd).st_blocks * 512, None)
    except OSError as error:
        report("fallocate", 0, error)
    try:
        fd = os.open(FOLDER, os.O_TMPFILE | os.O_RDWR, 0o600)
        kept.append(fd)
        os.ftruncate(fd, 1 << 40)
        report("sparse-dense", *fill(fd, 1 << 39))
    except OSError as error:
        report("sparse-dense", 0, error)
    outside = "/tmp/outside"
    with open(outside, "wb") as handle:
        handle.write(CHUNK)
    try:
        os.link(outside, os.path.join(FOLDER, ".linked"))
        report("hard-link-in", os.stat(outside).st_size, None, must_fail=True)
    except OSError as error:
        report("hard-link-in", 0, error)
    folder_fd.append(os.open(FOLDER, os.O_RDONLY | os.O_DIRECTORY))


def after_the_lock() -> None:
    """Every attempt once the arena has locked the folder."""
    for index, fd in enumerate(kept):
        report(f"kept-fd-{index}", *fill(fd, os.fstat(fd).st_size))
    if not kept:
        report("kept-fd", 0, OSError(errno.ENOENT, "no file could be kept"))
    attempt("tmpfile-after", tmpfile)
    attempt("named-after", named)
    attempt("openat-kept-folder", at_kept_folder)
    for name, action in (("hard-link-after", lambda: os.link(
            "/tmp/outside", os.path.join(FOLDER, ".linked-late"))),
                         ("mkdir-after", lambda: os.mkdir(os.path.join(FOLDER, "d"))),
                         ("move-socket", lambda: os.rename(os.path.join(FOLDER, "agent.sock"),
                                                           os.path.join(FOLDER, "moved")))):
        try:
            action()
            report(name, 0, None, must_fail=True)
        except OSError as error:
            report(name, 0, error)


locked = threading.Event()


def play(requests: Iterator[pb.PlayRequest], context: grpc.ServicerContext) -> Iterator[bytes]:
    """Ready (after the attempts of the first MatchStart), then the first legal action."""
    for request in requests:
        which = request.WhichOneof("message")
        if which == "match_start":
            if not locked.is_set():
                locked.set()
                after_the_lock()
            yield READY
        elif which == "decision_request":
            message = request.decision_request
            yield pb.PlayResponse(decision=pb.Decision(
                request_id=message.request_id,
                action_id=message.legal_actions[0].id)).SerializeToString()
        else:
            return


def listen(server: grpc.Server) -> None:
    """Make the socket; when it does not fit beside the kept files, close them and retry."""
    try:
        if server.add_insecure_port(ADDRESS):
            return
        failure = "no port"
    except RuntimeError as error:
        failure = " ".join(str(error).split())[:80]
    print(f"probe socket-beside-kept-files: blocked ({failure})", file=sys.stderr, flush=True)
    for fd in kept:
        with contextlib.suppress(OSError):
            os.close(fd)
    kept.clear()
    server.add_insecure_port(ADDRESS)


def main() -> None:
    """Attack, listen, attack again at MatchStart, play until SIGTERM."""
    if not os.path.exists("/.dockerenv") or os.environ.get("CARDARENA_ADDRESS") != ADDRESS:
        sys.exit("socket-abuse: refusing to run outside the Card Arena sandbox")
    before_the_lock()
    rawserver.serve(play, listen=listen)


if __name__ == "__main__":
    main()
