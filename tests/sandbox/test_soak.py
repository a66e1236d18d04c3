"""A soak of hostile bots beside a well-behaved one, as a real league on the local pool (two
workers, SQLite, every entrant a Docker image), against a quiet league measured in the same
test.

The soak league is a round robin of the random sample bot and four hostile bots (fork bomb,
memory bomb, CPU burner, output flooder) at 2-seat briscola: every pair meets, hostile against
hostile too, two matches at once. The quiet league is the random bot against the random policy.
The test requires, reading everything back from the league's database (``SeatResult.reason``
and the stored records, not the in-memory results):

- each hostile bot's reason code in every match it played, in its result rows and in every
  deal's record (fork bomb ``CRASH`` or ``TIMEOUT``, memory bomb ``OOM``, burner and flooder
  ``OK``, the flooder's stored output capped), and the random bot ``OK`` everywhere;
- the random bot's decision times (p50, p99, from the stored records) beside the hostile bots
  within a generous bound of the quiet league's: p50 <= 3 x quiet p50 + 20 ms, p99 <= 5 x
  quiet p99 + 200 ms. This checks isolation, not speed;
- the host's available memory (``/proc/meminfo`` ``MemAvailable``, sampled every 50 ms) never
  fell by more than the containers' memory limits can account for (plus 1 GiB), and the free
  disk of the Docker root and of the temporary folder by no more than 2 GiB.

The figures are printed (``-s`` shows them) and kept in docs/sandbox.md, "Soak".
"""

from __future__ import annotations

import os
import re
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from arena.agents.output import OUTPUT_CAP
from arena.league.create import LeagueSettings, create_league
from arena.league.local import run_league
from arena.match.conduct import SeatReport
from arena.match.record import MatchRecord, apply_recorded
from arena.match.timecontrol import TimeControl
from arena.sandbox.images import BotImage
from arena.sandbox.limits import SandboxLimits
from arena.sandbox.probe import missing_limits
from arena.store import Bot, BotVersion, Match, MatchRecordRow, SeatResult, open_store

from .conftest import require_docker

HERE = Path(__file__).parent
SAMPLE_RANDOM = HERE.parents[1] / "sample_bots" / "python" / "random"
HOSTILE = {"fork-bomb": {"CRASH", "TIMEOUT"}, "memory-bomb": {"OOM"}, "cpu-burner": {"OK"},
           "output-flood": {"OK"}}
"""Each hostile bot (a folder under ``hostile/``) and the reason codes it may get. A fork bomb's
own runtime cannot start a thread once the process limit is reached: it aborts (``CRASH``), or
hangs and is found at its limit at its first missed deadline (``CRASH``), or hangs below it, its
children stuck on locks a fork copied mid-use (``TIMEOUT``); which is chance, each the bot's
fault."""

CONTROL = TimeControl(decision_ms=2000, bank_ms=12_000, startup_ms=30_000, ready_ms=20_000)
"""A long bank, so that the memory bomb fills its 512 MiB before its third strike (18 s after
it began; it took over 11 s on a machine at load 35): its verdict is then OOM, not TIMEOUT.
The fork bomb is ended at its first missed deadline (at its process limit) or aborts before."""
WORKERS = 2
LIMITS = SandboxLimits()

MAX_CONTAINERS = WORKERS * 2 * 2
"""Containers that may run at once: two matches, two seats, two rotations each."""

MEMORY_SLACK = 1 << 30
"""What the arena's own processes (and the machine's other work) may take meanwhile."""

DISK_BOUND = 2 << 30
"""The bots write nothing to the host but their capped logs (1 MiB a container); the bound
leaves room for the machine's other work on the same disk."""


@dataclass
class HostSampler:
    """Samples MemAvailable and the free disk of some folders in a thread while it runs."""

    folders: list[Path]
    period_s: float = 0.05
    memory: list[int] = field(default_factory=list)
    disk: dict[str, list[int]] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def sample(self) -> None:
        """Take one sample of each figure."""
        self.memory.append(mem_available())
        for folder in self.folders:
            stat = os.statvfs(folder)
            self.disk.setdefault(str(folder), []).append(stat.f_bavail * stat.f_frsize)

    def __enter__(self) -> HostSampler:
        """Sample once now, then every ``period_s`` until the end of the block."""
        self.sample()

        def loop() -> None:
            """Sample until stopped."""
            while not self._stop.wait(self.period_s):
                self.sample()

        self._thread = threading.Thread(target=loop, name="host sampler", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        """Stop sampling."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def memory_drop(self) -> int:
        """The largest fall of MemAvailable below its first sample, in bytes."""
        return self.memory[0] - min(self.memory)

    def disk_drop(self) -> dict[str, int]:
        """The largest fall of each folder's free disk below its first sample, in bytes."""
        return {folder: values[0] - min(values) for folder, values in self.disk.items()}


def mem_available() -> int:
    """``MemAvailable`` from ``/proc/meminfo``, in bytes."""
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no MemAvailable in /proc/meminfo")


def decision_ms(db: str, league: str, bot: str) -> list[float]:
    """The stored decision times of ``bot`` (by name) in every deal record of the league."""
    times: list[float] = []
    for record in stored_records(db, league):
        seats = [seat for seat, report in enumerate(record.conduct.seats)
                 if report.agent.get("name") == bot] if record.conduct else []
        state = record.make_game().new_initial_state(record.seed)
        for index, action in enumerate(record.actions):
            actor = state.current_player()
            spent = record.conduct.decision_us[index] if record.conduct else None
            if actor in seats and spent is not None:
                times.append(spent / 1000)
            apply_recorded(state, index, action, len(record.actions))
    return times


def stored_records(db: str, league: str) -> list[MatchRecord]:
    """Every deal record the league stored."""
    with open_store(db) as store, store.session() as session:
        rows = session.scalars(select(MatchRecordRow.record).join(Match).where(
            Match.league.has(name=league)))
        return [MatchRecord.from_dict(row) for row in rows]


def stored_reasons(db: str, league: str) -> dict[str, set[str]]:
    """Every bot's reason codes in the league's result rows, by bot name."""
    with open_store(db) as store, store.session() as session:
        rows = session.execute(select(Bot.name, SeatResult.reason)
                               .join(BotVersion, SeatResult.bot_version_id == BotVersion.id)
                               .join(Bot, BotVersion.bot_id == Bot.id)
                               .join(Match, SeatResult.match_id == Match.id)
                               .where(Match.league.has(name=league))).all()
    reasons: dict[str, set[str]] = {}
    for name, reason in rows:
        reasons.setdefault(name, set()).add(reason)
    return reasons


def percentile(values: list[float], fraction: float) -> float:
    """The value below which ``fraction`` of ``values`` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def play(db: str, name: str, entrants: list[str], deals: int) -> Any:
    """Create and run a 2-seat briscola league; its summary."""
    with open_store(db) as store:
        create_league(store, name, entrants, games=["briscola"], deals=deals,
                      settings=LeagueSettings(CONTROL))
    summary = run_league(db, name, workers=WORKERS)
    assert summary.status is not None and summary.status.finished, summary
    assert not summary.status.void, summary.status.void
    return summary


def docker_root() -> Path:
    """The Docker engine's data folder."""
    return Path(require_docker().info().get("DockerRootDir") or "/var/lib/docker")


@pytest.mark.alone
@pytest.mark.docker
@pytest.mark.soak
def test_hostile_bots_beside_a_well_behaved_one(
        bot_image: Callable[[Path], BotImage], league_root: Path) -> None:
    random_image = bot_image(SAMPLE_RANDOM)
    hostile = {folder: bot_image(HERE / "hostile" / folder) for folder in HOSTILE}
    missing = missing_limits(random_image.image_id, LIMITS)
    if missing:
        pytest.xfail(f"the Docker engine does not enforce: {sorted(missing)}")
    db = f"sqlite:///{league_root / 'arena.db'}"

    started = time.monotonic()
    play(db, "quiet", [f"image:{random_image.ref}", "random"], deals=3)
    quiet_s = time.monotonic() - started
    quiet = decision_ms(db, "quiet", random_image.name)

    started = time.monotonic()
    with HostSampler([docker_root(), league_root / "tmp"]) as host:
        play(db, "soak", [f"image:{random_image.ref}",
                          *(f"image:{image.ref}" for image in hostile.values())], deals=1)
    soak_s = time.monotonic() - started
    loaded = decision_ms(db, "soak", random_image.name)

    figures = {
        "quiet_s": round(quiet_s, 1), "soak_s": round(soak_s, 1),
        "quiet_decisions": len(quiet), "soak_decisions": len(loaded),
        "quiet_p50_ms": round(statistics.median(quiet), 2),
        "quiet_p99_ms": round(percentile(quiet, 0.99), 2),
        "soak_p50_ms": round(statistics.median(loaded), 2),
        "soak_p99_ms": round(percentile(loaded, 0.99), 2),
        "memory_drop_mib": round(host.memory_drop() / 2**20),
        "disk_drop_mib": {folder: round(drop / 2**20) for folder, drop in
                          host.disk_drop().items()},
        "samples": len(host.memory)}
    print(f"\nsoak figures: {figures}")

    by_name = {image.name: folder for folder, image in hostile.items()}
    records = stored_records(db, "soak")
    assert len(records) == 10 * 2
    wrong = []
    for record in records:
        assert record.conduct is not None
        for report in record.conduct.seats:
            name = str(report.agent.get("name"))
            expected = HOSTILE[by_name[name]] if name in by_name else {"OK"}
            if report.reason not in expected and not _oom_unmarked(by_name.get(name), report):
                wrong.append((name, report.reason, report.detail, report.stderr[-300:]))
            if by_name.get(name) == "output-flood":
                assert re.match(r"\[\d+ earlier bytes dropped\]\n", report.stderr)
                assert len(report.stderr.encode()) <= OUTPUT_CAP + 64
    assert not wrong, wrong
    reasons = stored_reasons(db, "soak")
    assert reasons[random_image.name] == {"OK"}, reasons
    for folder, image in hostile.items():
        allowed = HOSTILE[folder] | ({"CRASH"} if folder == "memory-bomb" else set())
        assert reasons[image.name] and reasons[image.name] <= allowed, (folder, reasons)

    assert quiet and loaded
    assert figures["soak_p50_ms"] <= 3 * figures["quiet_p50_ms"] + 20, figures
    assert figures["soak_p99_ms"] <= 5 * figures["quiet_p99_ms"] + 200, figures
    assert host.memory_drop() <= MAX_CONTAINERS * LIMITS.memory_bytes + MEMORY_SLACK, figures
    assert all(drop <= DISK_BOUND for drop in host.disk_drop().values()), figures


def _oom_unmarked(folder: str | None, report: SeatReport) -> bool:
    """The memory bomb killed by SIGKILL without Docker's out-of-memory mark: at the load of a
    soak, Docker 20.10 on cgroup v1 sometimes never sets ``OOMKilled`` (the dedicated
    memory-bomb test asserts OOM on its own)."""
    return (folder == "memory-bomb" and report.reason == "CRASH"
            and "SIGKILL" in report.detail)
