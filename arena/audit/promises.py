"""The sandbox's promises, each checked against this machine's Docker engine.

- every limit of a bot's container is in force (one probe container reads them back), and
  this arena can give each seat a size-capped socket folder;
- the socket folder: a bot that tries every way to store data through it (the shipped
  ``socket_abuse`` bot) is refused each time, and the free space of the folder's file system,
  sampled every millisecond, drops by at most ``DISK_BOUND``;
- buffer bounds: a bot that floods the arena (the shipped ``flood`` bot, in each mode) is
  stopped with its fault, and this process's peak memory rises by less than
  ``MEMORY_BOUND``; a flood of output is kept to its last ``OUTPUT_CAP`` bytes.

The hostile bots run as the base image with a command (``arena.sandbox.audit``), against the
random policy at 2-seat briscola.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from arena.agents.output import OUTPUT_CAP
from arena.agents.seats import DockerSeat, PolicySeat
from arena.agents.stream import UNSOLICITED_LIMIT
from arena.audit.measure import MIB, FreeSpace, peak_rss
from arena.games import load_game
from arena.match.results import DealResult
from arena.match.runner import run_deal
from arena.match.safetext import safe_text
from arena.match.timecontrol import TimeControl
from arena.sandbox import audit, capfs
from arena.sandbox.errors import ImageNotFound
from arena.sandbox.images import BASE_IMAGE, BotImage, inspect_bot_image
from arena.sandbox.limits import SandboxLimits
from arena.sandbox.probe import observe, probe_image, run_probe
from arena.sandbox.socketdir import default_root

DISK_BOUND = 128 * MIB
"""The most the socket folder's file system may lose while the bot attacks it (other
programs write to a shared disk too)."""

MEMORY_BOUND = 100 * MIB
"""The most this process's peak memory may rise while a bot floods it."""

CONTROL = TimeControl(decision_ms=1000, bank_ms=3000, startup_ms=60_000, ready_ms=10_000)
SEED = 7
PROBE_LINE = re.compile(r"^probe (?P<name>[^:\n]+): (?P<outcome>\w+) \((?P<detail>[^\n]*)\)$",
                        re.MULTILINE)
SOCKET_ATTEMPTS = 12
"""The socket abuse bot's attempts that must all be reported (it may make more)."""

METADATA = "header or trailer metadata larger than"
FLOODS: dict[str, tuple[str, str]] = {
    "unsolicited": ("flood", f"more than {UNSOLICITED_LIMIT} responses it was not asked for"),
    "metadata": ("oversized", METADATA),
    "trailers": ("oversized", METADATA),
    "details": ("oversized", METADATA),
    "compressed": ("oversized", "a message larger than"),
}
"""Each flood mode, the fault kind that stops it and a text of its detail."""


@dataclass(frozen=True)
class Promise:
    """One promise checked: its name, whether it held, and what was measured."""

    name: str
    passed: bool
    measured: str

    def line(self) -> str:
        """``PASS name: measured`` or ``FAIL name: measured`` (what a bot wrote escaped)."""
        return f"{'PASS' if self.passed else 'FAIL'} {self.name}: {safe_text(self.measured)}"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"name": self.name, "passed": self.passed, "measured": self.measured}


def limit_promises(image: BotImage, limits: SandboxLimits) -> Iterator[Promise]:
    """One promise per limit, read back by one probe container, and the socket folder's cap."""
    result = run_probe(probe_image(image.image_id), limits=limits)
    for name, (enforced, seen) in observe(result, limits).items():
        yield Promise(f"limit {name}", enforced, seen)
    reason = capfs.unavailable()
    yield Promise("limit socket_folder", not reason, reason or (
        f"each seat's socket folder is a tmpfs of {capfs.cap_bytes()} bytes and "
        f"{capfs.CAP_INODES} inodes"))


def _deal(image: BotImage, command: tuple[str, ...], limits: SandboxLimits,
          allow: frozenset[str]) -> DealResult:
    """One deal of the hostile command at seat 1 against the random policy."""
    hostile = DockerSeat(image, limits, allow_unenforced=allow, command=command)
    return run_deal(load_game("briscola"), SEED, [PolicySeat("random"), hostile], CONTROL)


def _seat(deal: DealResult) -> tuple[str, str, str]:
    """The hostile seat's reason, detail and captured output (or the void's reason)."""
    if deal.record is None or deal.record.conduct is None:
        return "VOID_INFRA", deal.void or "the deal is void", ""
    report = deal.record.conduct.seats[1]
    return report.reason, report.detail, report.stderr


def socket_folder_promise(image: BotImage, limits: SandboxLimits,
                          allow: frozenset[str]) -> Promise:
    """A bot cannot store data on the host through its socket folder."""
    name = "socket folder holds nothing of the bot's"
    reason = capfs.unavailable()
    if reason:
        return Promise(name, False, f"not run: {reason}")
    root = default_root()
    space = FreeSpace(root)
    try:
        deal = _deal(image, audit.command("socket_abuse"), limits, allow)
    finally:
        drop = space.stop()
    verdict, detail, output = _seat(deal)
    probes = [(found["name"], found["outcome"]) for found in PROBE_LINE.finditer(output)]
    escaped = [probe for probe, outcome in probes if outcome != "blocked"]
    passed = (not escaped and drop <= DISK_BOUND and verdict in ("OK", "INIT_ERROR", "CRASH")
              and (len(probes) >= SOCKET_ATTEMPTS or verdict != "OK"))
    measured = (f"{len(probes) - len(escaped)} of {len(probes)} attempts to store data "
                f"blocked, the bot ended {verdict}; the free space of {root} dropped by at "
                f"most {drop / MIB:.1f} MiB (bound {DISK_BOUND / MIB:.0f} MiB)")
    if escaped:
        measured += f"; escaped: {', '.join(escaped)}"
    if verdict not in ("OK", "INIT_ERROR", "CRASH"):
        measured += f"; {detail}"
    return Promise(name, passed, measured)


def flood_promise(mode: str, image: BotImage, limits: SandboxLimits,
                  allow: frozenset[str]) -> Promise:
    """A bot flooding in ``mode`` is stopped with its fault; the arena's memory stays small."""
    kind, text = FLOODS[mode]
    with peak_rss() as memory:
        deal = _deal(image, audit.command("flood", mode), limits, allow)
    verdict, detail, _ = _seat(deal)
    kinds = {str(fault.kind) for fault in deal.faults if fault.seat == 1}
    expected = kind in kinds and text in detail
    if mode == "unsolicited":
        # Read while the arena waits for an answer, unasked messages are stale answers.
        expected = expected or (bool(kinds) and kinds <= {"flood", "stale"})
    passed = verdict == "INVALID" and expected and memory.growth < MEMORY_BOUND
    return Promise(f"flood {mode}", passed,
                   f"the bot ended {verdict} ({', '.join(sorted(kinds)) or 'no fault'}); the "
                   f"arena's peak memory rose {memory.growth / MIB:.1f} MiB (bound "
                   f"{MEMORY_BOUND / MIB:.0f} MiB)")


def output_promise(image: BotImage, limits: SandboxLimits, allow: frozenset[str]) -> Promise:
    """A bot flooding its output plays on; the arena keeps its last bytes only."""
    with peak_rss() as memory:
        deal = _deal(image, audit.command("flood", "output"), limits, allow)
    verdict, _, output = _seat(deal)
    header, _, kept = output.partition("\n")
    capped = bool(re.fullmatch(r"\[\d+ earlier bytes dropped\]", header))
    kept_bytes = len(kept.encode())
    passed = capped and kept_bytes <= OUTPUT_CAP and memory.growth < MEMORY_BOUND
    return Promise("flood output", passed,
                   f"the bot ended {verdict}; {kept_bytes} bytes of its output kept "
                   f"(bound {OUTPUT_CAP}), {header if capped else 'nothing dropped'}; the "
                   f"arena's peak memory rose {memory.growth / MIB:.1f} MiB (bound "
                   f"{MEMORY_BOUND / MIB:.0f} MiB)")


def run_audit(limits: SandboxLimits | None = None,
              report: Callable[[Promise], None] | None = None) -> list[Promise]:
    """Check every promise in turn (``report`` is told each as it is known); the promises."""
    limits = limits or SandboxLimits()
    try:
        image = inspect_bot_image(BASE_IMAGE)
    except ImageNotFound:
        raise ImageNotFound(f"the base image {BASE_IMAGE} is missing; run `arena images "
                            "build-base`") from None
    promises: list[Promise] = []

    def keep(promise: Promise) -> None:
        """Keep a promise and report it."""
        promises.append(promise)
        if report is not None:
            report(promise)

    for promise in limit_promises(image, limits):
        keep(promise)
    allow = frozenset(promise.name.removeprefix("limit ") for promise in promises
                      if not promise.passed)
    keep(socket_folder_promise(image, limits, allow))
    for mode in FLOODS:
        keep(flood_promise(mode, image, limits, allow))
    keep(output_promise(image, limits, allow))
    return promises
