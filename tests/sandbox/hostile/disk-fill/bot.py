"""Fills every place it can write before it serves: its image (read-only), /tmp with one
large file and then with many small ones, and /dev/shm; reports each refusal, then plays.

It refuses to start outside the arena's container.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

from cardarena_sdk import Bot, Request, serve

SANDBOX_ADDRESS = "unix:/run/cardarena/agent.sock"
CHUNK = b"\x01" * (1 << 20)
MOST_BYTES = 4 << 30
MOST_FILES = 1_000_000


def require_sandbox() -> None:
    """Exit unless this runs in a container at the sandbox's socket address."""
    if not os.path.exists("/.dockerenv") or os.environ.get("CARDARENA_ADDRESS") != SANDBOX_ADDRESS:
        sys.exit("disk-fill: refusing to run outside the Card Arena sandbox")


def report(probe: str, escaped: bool, detail: str) -> None:
    """One line on stderr: the probe, ``blocked`` or ``ESCAPED``, and what happened."""
    verdict = "ESCAPED" if escaped else "blocked"
    print(f"probe {probe}: {verdict} ({detail})", file=sys.stderr, flush=True)


def error_text(error: OSError) -> str:
    """``EROFS: Read-only file system``."""
    name = errno.errorcode.get(error.errno or 0, type(error).__name__)
    return f"{name}: {error.strerror}"


def write_root() -> None:
    """Try to write into the image's folders."""
    for path in (Path("/bot/fill"), Path("/fill"), Path("/etc/fill")):
        try:
            path.write_bytes(CHUNK)
        except OSError as error:
            report(f"disk-root {path}", False, error_text(error))
        else:
            report(f"disk-root {path}", True, "wrote 1 MiB")


def fill_one(folder: Path) -> None:
    """Write one file in ``folder`` until the file system refuses."""
    written = 0
    path = folder / "big"
    try:
        with path.open("wb", buffering=0) as out:
            while written < MOST_BYTES:
                out.write(CHUNK)
                written += len(CHUNK)
    except OSError as error:
        report(f"disk-big {folder}", False, f"{error_text(error)} after {written >> 20} MiB")
    else:
        report(f"disk-big {folder}", True, f"wrote {written >> 20} MiB")
    finally:
        path.unlink(missing_ok=True)


def fill_many(folder: Path) -> None:
    """Create one-byte files in ``folder`` until the file system refuses."""
    many = folder / "many"
    count = 0
    try:
        many.mkdir()
        while count < MOST_FILES:
            (many / str(count)).write_bytes(b"x")
            count += 1
    except OSError as error:
        report(f"disk-files {folder}", False, f"{error_text(error)} after {count} files")
    else:
        report(f"disk-files {folder}", True, f"created {count} files")
    finally:
        shutil.rmtree(many, ignore_errors=True)


def run_from_tmp() -> None:
    """Copy a program into /tmp and try to run it there."""
    program = Path("/tmp/true")
    shutil.copy("/bin/true", program)
    program.chmod(0o755)
    try:
        subprocess.run([str(program)], check=True)
    except OSError as error:
        report("disk-exec /tmp", False, error_text(error))
    else:
        report("disk-exec /tmp", True, "ran a program copied into /tmp")
    finally:
        program.unlink()


class FirstLegal(Bot):
    """The first legal action."""

    name = "disk-fill"

    def act(self, request: Request) -> int:
        """The first legal action."""
        return request.legal_ids[0]


if __name__ == "__main__":
    require_sandbox()
    write_root()
    fill_one(Path("/tmp"))
    fill_many(Path("/tmp"))
    run_from_tmp()
    if Path("/dev/shm").is_dir():
        fill_one(Path("/dev/shm"))
    else:
        report("disk-big /dev/shm", False, "absent")
    serve(FirstLegal)
