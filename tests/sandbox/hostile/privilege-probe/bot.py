"""Tries to gain privileges before it serves: its ids and capabilities, setuid(0), mount,
unshare, ptrace, a setuid-root copy of ``id`` made in its image, and the host's /proc files;
reports each outcome, then plays."""

from __future__ import annotations

import ctypes
import errno
import os
import subprocess
import sys
from pathlib import Path

from cardarena_sdk import Bot, Request, serve

SETUID_ID = Path(__file__).resolve().parent / "suid-id"
CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
PTRACE_ATTACH = 16
PTRACE_DETACH = 17
WALL = 0x40000000
OUTSIDE_PIDS = 1000
LIBC = ctypes.CDLL(None, use_errno=True)


def report(probe: str, outcome: str, detail: str) -> None:
    """One line on stderr: the probe, its outcome and what happened."""
    print(f"probe {probe}: {outcome} ({detail})", file=sys.stderr, flush=True)


def error_text(error: OSError) -> str:
    """``EPERM: Operation not permitted``."""
    return f"{errno.errorcode.get(error.errno or 0, '?')}: {error.strerror}"


def failed_call(result: int) -> str:
    """``EPERM: Operation not permitted`` for a failed libc call, else an empty text."""
    if result == 0:
        return ""
    number = ctypes.get_errno()
    return f"{errno.errorcode.get(number, number)}: {os.strerror(number)}"


def ids() -> None:
    """Not root, in any of its ids."""
    real, effective, saved = os.getresuid()
    groups = [*os.getresgid(), *os.getgroups()]
    outcome = "ESCAPED" if 0 in (real, effective, saved, *groups) else "contained"
    report("ids", outcome, f"uids {real},{effective},{saved}; gids {','.join(map(str, groups))}")


def capabilities() -> None:
    """No capability in any set; no new privileges; a seccomp filter."""
    status = dict(line.split(":\t", 1) for line in
                  Path("/proc/self/status").read_text().splitlines() if ":\t" in line)
    sets = {name: int(status[name], 16) for name in ("CapInh", "CapPrm", "CapEff", "CapBnd",
                                                     "CapAmb")}
    outcome = "ESCAPED" if any(sets.values()) else "contained"
    report("capabilities", outcome, ", ".join(f"{name} {value:x}" for name, value in sets.items()))
    flags = f"NoNewPrivs {status['NoNewPrivs'].strip()}, Seccomp {status['Seccomp'].strip()}"
    outcome = "contained" if flags == "NoNewPrivs 1, Seccomp 2" else "ESCAPED"
    report("no-new-privileges", outcome, flags)


def set_root() -> None:
    """setuid(0)."""
    try:
        os.setuid(0)
    except OSError as error:
        report("setuid-call", "blocked", error_text(error))
    else:
        report("setuid-call", "ESCAPED", "setuid(0) succeeded")


def mount() -> None:
    """Mount a tmpfs."""
    problem = failed_call(LIBC.mount(b"none", b"/tmp", b"tmpfs", 0, None))
    report("mount", "blocked" if problem else "ESCAPED", problem or "mounted a tmpfs")


def unshare() -> None:
    """Enter new user and mount namespaces."""
    for name, flags in (("user", CLONE_NEWUSER), ("mount", CLONE_NEWNS)):
        problem = failed_call(LIBC.unshare(flags))
        report(f"unshare {name}", "blocked" if problem else "ESCAPED",
               problem or "entered a new namespace")


def ptrace() -> None:
    """Attach to processes: its own init may be traced (same uid, same container, nothing to
    gain); no process outside its pid namespace can even be named."""
    problem = failed_call(LIBC.ptrace(PTRACE_ATTACH, 1, None, None))
    if problem:
        report("ptrace init", "blocked", problem)
    else:
        os.waitpid(1, WALL)
        LIBC.ptrace(PTRACE_DETACH, 1, None, None)
        report("ptrace init", "contained", "attached to its own init, pid 1, of the same uid")
    own = {int(name) for name in os.listdir("/proc") if name.isdigit()}
    outside = [pid for pid in range(2, OUTSIDE_PIDS) if pid not in own]
    problems = {failed_call(LIBC.ptrace(PTRACE_ATTACH, pid, None, None)) for pid in outside}
    outcome = "ESCAPED" if "" in problems else "blocked"
    report("ptrace outside", outcome, f"pids 2..{OUTSIDE_PIDS - 1} not its own: "
           f"{' / '.join(sorted(problems)) or 'attached'}")


def setuid_binary() -> None:
    """Run the setuid-root copy of ``id``: the effective uid must not change."""
    mode = SETUID_ID.stat()
    kind = f"mode {mode.st_mode & 0o7777:o}, owner {mode.st_uid}"
    try:
        effective = subprocess.run([str(SETUID_ID), "-u"], capture_output=True, text=True,
                                   check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as error:
        report("setuid-binary", "blocked", f"{kind}: {error}")
        return
    outcome = "ESCAPED" if effective == "0" else "contained"
    report("setuid-binary", outcome, f"{kind}: euid {effective}")


def host_files() -> None:
    """Write to the kernel's and the image's sensitive files."""
    for path in ("/proc/sysrq-trigger", "/proc/sys/kernel/hostname", "/etc/passwd"):
        try:
            with open(path, "a") as target:
                target.write("")
        except OSError as error:
            report(f"write {path}", "blocked", error_text(error))
        else:
            report(f"write {path}", "ESCAPED", "opened for writing")


class FirstLegal(Bot):
    """The first legal action."""

    name = "privilege-probe"

    def act(self, request: Request) -> int:
        """The first legal action."""
        return request.legal_ids[0]


if __name__ == "__main__":
    ids()
    capabilities()
    set_root()
    mount()
    unshare()
    ptrace()
    setuid_binary()
    host_files()
    serve(FirstLegal)
