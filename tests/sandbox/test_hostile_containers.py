"""Hostile bot images in hardened containers, against the random sample bot in a container of
its own, at 2-seat briscola.

Each folder under ``hostile/`` is a tiny image that misbehaves in one way: inside a decision
(bombs, hangs, floods, bad replies), at start-up (probes of the network, the file systems,
privileges, other seats and the host), or between decisions (burning CPU). Every test checks
the hostile seat's reason code and detail, that the opponent ended OK with its returns recorded
in a replayable record, and that no container, socket folder or process is left behind. The
probing bots print one ``probe NAME: OUTCOME (DETAIL)`` line per attempt and then play
legally; the tests read those lines from the record and require every attempt to be
``blocked`` (it failed) or ``contained`` (it worked, but inside the container only), never
``ESCAPED``. These bots are dangerous outside a container and are only ever run in one.

The clock is short (300 ms a decision, a 1 s bank); each misbehaviour is far outside it, so
the verdicts do not depend on the machine's load.
"""

from __future__ import annotations

import os
import re
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from arena.agents.output import OUTPUT_CAP
from arena.agents.seats import DockerSeat
from arena.games import load_game
from arena.match import replay
from arena.match.faults import FaultKind
from arena.match.record import MatchRecord
from arena.match.results import DealResult
from arena.match.runner import run_deal
from arena.match.timecontrol import TimeControl
from arena.sandbox.engine import docker_client
from arena.sandbox.images import BotImage
from arena.sandbox.limits import SandboxLimits
from arena.sandbox.probe import missing_limits

from .kept import KeptDockerSeat

HOSTILE = Path(__file__).parent / "hostile"
SAMPLE_RANDOM = Path(__file__).resolve().parents[2] / "sample_bots" / "python" / "random"
BRISCOLA = load_game("briscola")
SEED = 11
CONTROL = TimeControl(decision_ms=300, bank_ms=1000, startup_ms=30_000, ready_ms=5000)
SLOW_CONTROL = TimeControl(decision_ms=10_000, bank_ms=10_000, startup_ms=30_000, ready_ms=5000)
"""For a bot whose fault takes time to happen (filling 512 MiB under a loaded machine), so that
the fault and not a timeout decides the verdict."""
LIMITS = SandboxLimits()

TIMEOUT, CRASH, INIT = FaultKind.TIMEOUT, FaultKind.CRASH, FaultKind.INIT_ERROR
MALFORMED, OVERSIZED = FaultKind.MALFORMED, FaultKind.OVERSIZED
FORK_BOMB = (rf"the bot reached its limit of {LIMITS.pids} processes and threads \(a fork "
             r"bomb\?\); it is stopped|the bot exited on signal 6 \(SIGABRT\)")
"""A fork bomb's crash: found at its limit when it misses its deadline, or its runtime aborted
first, unable to start a thread. It may instead hang below its limit, its children stuck on
locks the fork copied mid-use: then it times out (the case's ``also``)."""
HUNG = r"3 strikes; the last: timeout: no answer within 300 ms \(decision and bank\)"

PROBE_LINE = re.compile(r"^probe (?P<name>[^\n]+?): (?P<outcome>\w+) \((?P<detail>.*)\)$",
                        re.MULTILINE)
SAFE_OUTCOMES = ("blocked", "contained")

ARENA_VARIABLES = frozenset({"CARDARENA_ADDRESS", "HOME", "HOSTNAME", "LC_CTYPE",
                             "GRPC_ENABLE_FORK_SUPPORT"})
"""What a bot may find in its environment besides its image's own variables: the address the
arena passes, what Docker sets for every container, what Python sets for itself when it
coerces the C locale, and what the rules engine's package sets in the bot's own process when
the SDK imports it (gRPC's fork support off)."""

HOST_SECRET = ("CARDARENA_TEST_HOST_SECRET", "the-arena-host-secret-4242")
"""A variable set in the arena's process during a test; no bot may see it."""


Check = Callable[[str, BotImage], None]
"""A further check of a hostile seat's captured output (with its image)."""


@dataclass(frozen=True)
class Case:
    """A hostile bot and its expected verdict."""

    bot: str
    reason: str
    faults: tuple[FaultKind, ...] = ()
    detail: str = ""
    """A pattern the start of the seat's detail must match (empty: the seat ended OK)."""
    strikes: int = 0
    stderr: str = ""
    """A pattern the bot's captured output must contain."""
    probes: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Every probe line the bot must print: name -> (outcome, a pattern for its detail)."""
    check: Check | None = None
    control: TimeControl = CONTROL
    also: tuple[Case, ...] = ()
    """Other verdicts the bot may get, chance deciding which (each checked in full)."""


FORK_BOMB_OUTPUT = r"fork-bomb: forking|pthread_create failed: Resource temporarily unavailable"
"""What the fork bomb's output shows: its own line, or its children's failed thread starts."""

def assert_thread_bomb_stopped(stderr: str, image: BotImage) -> None:
    """The pids limit refused a thread before the bomb reached it."""
    found = re.search(r"thread-bomb: thread refused after (\d+) threads \(RuntimeError", stderr)
    assert found, stderr[-2000:]
    assert int(found[1]) < LIMITS.pids


def assert_output_capped(stderr: str, image: BotImage) -> None:
    """Only the last 64 KiB of the flood are kept, with the number of bytes dropped."""
    header, _, rest = stderr.partition("\n")
    dropped = re.fullmatch(r"\[(\d+) earlier bytes dropped\]", header)
    assert dropped and int(dropped[1]) > 0, header
    assert len(rest.encode()) <= OUTPUT_CAP


def assert_environment_clean(stderr: str, image: BotImage) -> None:
    """The bot sees the image's variables and the arena's, nothing of the host's."""
    names = set(probes_of(stderr)["environment"][1].removeprefix("names: ").split(","))
    config = docker_client().images.get(image.image_id).attrs["Config"]
    image_names = {entry.partition("=")[0] for entry in config.get("Env") or []}
    assert "CARDARENA_ADDRESS" in names
    assert names <= ARENA_VARIABLES | image_names, names - ARENA_VARIABLES - image_names
    assert HOST_SECRET[0] not in stderr and HOST_SECRET[1] not in stderr


IN_DECISION = [
    # the record keeps the tail of a bot's output: the bomb's own line, or the thread errors its
    # children print when they hit the limit, which can push that line out of the tail
    Case("fork-bomb", "CRASH", (CRASH,), FORK_BOMB, stderr=FORK_BOMB_OUTPUT,
         also=(Case("fork-bomb", "TIMEOUT", (TIMEOUT,) * 3, HUNG, strikes=3,
                    stderr=FORK_BOMB_OUTPUT),)),
    Case("memory-bomb", "OOM", (CRASH,), r"the bot was killed: out of memory \(limit 512 MiB\)",
         stderr=r"memory-bomb: allocating", control=SLOW_CONTROL),
    Case("thread-bomb", "OK", check=assert_thread_bomb_stopped),
    Case("busy-loop", "TIMEOUT", (TIMEOUT,) * 3, HUNG, strikes=3, stderr=r"busy-loop: spinning"),
    Case("sleeps", "TIMEOUT", (TIMEOUT,) * 3, HUNG, strikes=3, stderr=r"sleeps: sleeping"),
    Case("pauses", "TIMEOUT", (TIMEOUT,) * 3, HUNG, strikes=3, stderr=r"pauses: pausing"),
    Case("stops-itself", "TIMEOUT", (TIMEOUT,) * 3, HUNG, strikes=3,
         stderr=r"stops-itself: stopping"),
    Case("fd-exhaustion", "OK", probes={
        "fd-open": ("blocked", r"EMFILE after \d+ more files"),
        "fd-raise": ("blocked", rf"limit {LIMITS.nofile}/{LIMITS.nofile}: ValueError: .*")}),
    Case("output-flood", "OK", check=assert_output_capped),
    Case("garbage", "INVALID", (MALFORMED,) * 3,
         r"3 strikes; the last: malformed: not a PlayResponse message", strikes=3),
    Case("oversized", "INVALID", (OVERSIZED,),
         r"the bot sent a message larger than the 65536 byte limit"),
]

UNREACHABLE = ("1.1.1.1:53", "8.8.8.8:443", "172.17.0.1:2375", "10.0.0.1:80")
ENGINE_SOCKETS = ("/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock",
                  "/var/run/containerd/containerd.sock")

PROBING = [
    Case("network-probe", "OK", probes={
        **{f"net-name {name}": ("blocked", r"gaierror: .*")
           for name in ("example.com", "host.docker.internal", "pypi.org")},
        **{f"net-{kind} {address}": ("blocked", r"ENETUNREACH: .*")
           for address in UNREACHABLE for kind in ("tcp", "udp")},
        "net-interfaces": ("contained", r"lo"),
        "net-bind 0.0.0.0:8080": ("contained", r"listening; interfaces other than lo: none"),
        "net-raw icmp": ("blocked", r"EPERM: .*"),
        "net-raw packet": ("blocked", r"EPERM: .*")}),
    Case("snooper", "OK", check=assert_environment_clean, probes={
        "other-socket": ("contained", r"sockets: /run/cardarena/agent\.sock"),
        "socket-folder": ("contained", r"entries: agent\.sock"),
        "processes": ("contained", r"1=/sbin/docker-init -- python bot\.py; \d+=python bot\.py"),
        "environment": ("contained", r"names: .*"),
        **{f"engine-socket {path}": ("blocked", "absent") for path in ENGINE_SOCKETS}}),
    Case("privilege-probe", "OK", probes={
        "ids": ("contained", rf"uids {LIMITS.uid},{LIMITS.uid},{LIMITS.uid}; "
                             rf"gids {LIMITS.gid}(,{LIMITS.gid})*"),
        "capabilities": ("contained", r"CapInh 0, CapPrm 0, CapEff 0, CapBnd 0, CapAmb 0"),
        "no-new-privileges": ("contained", r"NoNewPrivs 1, Seccomp 2"),
        "setuid-call": ("blocked", r"EPERM: .*"),
        "mount": ("blocked", r"EPERM: .*"),
        "unshare user": ("blocked", r"EPERM: .*"),
        "unshare mount": ("blocked", r"EPERM: .*"),
        "ptrace init": ("contained", r"attached to its own init, pid 1, of the same uid"),
        "ptrace outside": ("blocked", r"pids 2\.\.999 not its own: ESRCH: .*"),
        "setuid-binary": ("contained", rf"mode 4755, owner 0: euid {LIMITS.uid}"),
        "write /proc/sysrq-trigger": ("blocked", r"(ENOENT|EACCES|EROFS): .*"),
        "write /proc/sys/kernel/hostname": ("blocked", r"(EACCES|EROFS): .*"),
        "write /etc/passwd": ("blocked", r"(EACCES|EROFS): .*")}),
    Case("disk-fill", "OK", probes={
        **{f"disk-root {path}": ("blocked", r"EROFS: .*") for path in ("/bot/fill", "/fill",
                                                                     "/etc/fill")},
        "disk-big /tmp": ("blocked", rf"ENOSPC: .* after {LIMITS.tmpfs_bytes >> 20} MiB"),
        "disk-files /tmp": ("blocked", r"ENOSPC: .* after \d+ files"),
        "disk-exec /tmp": ("blocked", r"EACCES: .*"),
        "disk-big /dev/shm": ("blocked", r"ENOSPC: .* after \d+ MiB|absent")}),
]


@pytest.fixture
def random_image(bot_image: Callable[[Path], BotImage]) -> BotImage:
    """The random sample bot's image (the opponent)."""
    return bot_image(SAMPLE_RANDOM)


def xfail_unless_enforced(image: BotImage) -> None:
    """Record an expected failure naming the limits this engine does not enforce: the sandbox
    refuses untrusted bots there, so the hostile bots cannot be played."""
    missing = missing_limits(image.image_id, LIMITS)
    if missing:
        pytest.xfail("the Docker engine does not enforce: " + ", ".join(
            f"{name} ({seen})" for name, seen in sorted(missing.items())))


def docker_seat(image: BotImage, root: Path, cpuset: str | None = None) -> KeptDockerSeat:
    """A kept Docker seat with the default limits, its socket folder under ``root``."""
    return KeptDockerSeat(DockerSeat(image, LIMITS, root, cpuset=cpuset))


def play(hostile: KeptDockerSeat, opponent: KeptDockerSeat, seat: int,
         control: TimeControl = CONTROL) -> DealResult:
    """One deal with the hostile seat at ``seat`` and the opponent at the other."""
    seats = [hostile, opponent] if seat == 0 else [opponent, hostile]
    return run_deal(BRISCOLA, SEED, seats, control)


def assert_nothing_left(*seats: KeptDockerSeat) -> None:
    """Each agent's container is gone and its socket folder removed."""
    client = docker_client()
    present = {container.id
               for container in client.containers.list(all=True, ignore_removed=True)}
    for kept in seats:
        (agent,) = kept.agents
        assert agent.container_id and agent.container_id not in present
        assert agent.socket_dir is not None and not agent.socket_dir.outer.exists()


def assert_opponent_stands(deal: DealResult, other: int) -> None:
    """The opponent ended OK, its returns recorded, the deal complete and replayable."""
    record = deal.record
    assert record is not None and record.conduct is not None
    assert deal.reason_names[other] == "OK" and not deal.forfeited[other]
    report = record.conduct.seats[other]
    assert report.reason == "OK" and report.strikes == 0
    assert report.agent["kind"] == "docker" and report.agent["name"] == "random"
    final = replay(record)
    assert final.is_terminal()
    assert final.returns() == list(deal.returns) == list(record.returns)
    assert sum(deal.returns) == 0
    assert all(fault.seat != other for fault in deal.faults)


def assert_verdict(deal: DealResult, seat: int, case: Case, image: BotImage) -> str:
    """The hostile seat's reason, faults, strikes and detail are as expected, its image is
    recorded; its captured output is returned."""
    record = deal.record
    assert record is not None and record.conduct is not None
    report = record.conduct.seats[seat]
    case = next((other for other in case.also if other.reason == report.reason), case)
    assert report.agent["kind"] == "docker" and report.agent["image_id"] == image.image_id
    assert deal.reason_names[seat] == report.reason == case.reason, report.detail
    assert deal.forfeited[seat] == report.forfeited == (case.reason != "OK")
    assert [fault.kind for fault in deal.faults] == list(case.faults), deal.faults
    assert report.strikes == case.strikes
    assert re.match(case.detail, report.detail), report.detail
    if case.reason == "OK":
        assert report.detail == ""
    assert re.search(case.stderr, report.stderr), report.stderr[-2000:]
    return report.stderr


def probes_of(stderr: str) -> dict[str, tuple[str, str]]:
    """The probe lines in a bot's output: name -> (outcome, detail)."""
    return {match["name"]: (match["outcome"], match["detail"])
            for match in PROBE_LINE.finditer(stderr)}


def assert_probes(stderr: str, expected: dict[str, tuple[str, str]]) -> None:
    """Every expected probe ran with its outcome, none escaped."""
    found = probes_of(stderr)
    escaped = {name: found[name] for name in found if found[name][0] not in SAFE_OUTCOMES}
    assert not escaped, escaped
    assert "ESCAPED" not in stderr, stderr
    assert set(found) == set(expected), stderr
    for name, (outcome, detail) in expected.items():
        assert found[name][0] == outcome, (name, found[name])
        assert re.fullmatch(detail, found[name][1]), (name, found[name])


def run_case(case: Case, seat: int, bot_image: Callable[[Path], BotImage], random_image: BotImage,
             root: Path) -> None:
    """Play the case's bot against the random bot and check everything."""
    image = bot_image(HOSTILE / case.bot)
    xfail_unless_enforced(image)
    hostile = docker_seat(image, root)
    opponent = docker_seat(random_image, root)
    deal = play(hostile, opponent, seat, case.control)
    assert_nothing_left(hostile, opponent)
    assert_opponent_stands(deal, 1 - seat)
    stderr = assert_verdict(deal, seat, case, image)
    assert_probes(stderr, case.probes)
    if case.check is not None:
        case.check(stderr, image)


@pytest.mark.docker
@pytest.mark.parametrize("seat", [0, 1], ids=["hostile-first", "hostile-second"])
@pytest.mark.parametrize("case", IN_DECISION, ids=[case.bot for case in IN_DECISION])
def test_a_bot_misbehaving_in_a_decision_gets_its_verdict(
        case: Case, seat: int, bot_image: Callable[[Path], BotImage], random_image: BotImage,
        leftovers: Path) -> None:
    run_case(case, seat, bot_image, random_image, leftovers)


@pytest.mark.docker
@pytest.mark.parametrize("case", PROBING, ids=[case.bot for case in PROBING])
def test_a_probing_bot_finds_every_way_out_shut(
        case: Case, bot_image: Callable[[Path], BotImage], random_image: BotImage,
        leftovers: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(*HOST_SECRET)
    run_case(case, 0, bot_image, random_image, leftovers)


@pytest.mark.docker
def test_a_socket_replaced_by_a_link_is_refused(bot_image: Callable[[Path], BotImage],
                                                random_image: BotImage, leftovers: Path) -> None:
    """The bot puts a relative link where its socket belongs, leading on the host to a file
    in the arena's temporary root; the arena refuses it and the file is untouched."""
    witness = leftovers / "witness"
    witness.write_text("untouched\n")
    witness.chmod(0o600)
    before = witness.lstat()
    image = bot_image(HOSTILE / "socket-symlink")
    xfail_unless_enforced(image)
    hostile = docker_seat(image, leftovers)
    opponent = docker_seat(random_image, leftovers)
    try:
        deal = play(hostile, opponent, 0)
        after = witness.lstat()
        content = witness.read_text()
    finally:
        witness.unlink()
    assert_nothing_left(hostile, opponent)
    assert_opponent_stands(deal, 1)
    case = Case("socket-symlink", "INIT_ERROR", (INIT,),
                r"the bot replaced its socket with a symbolic link; refused",
                stderr=r"socket-symlink: /run/cardarena/agent\.sock -> \.\./\.\./witness")
    assert_verdict(deal, 0, case, image)
    (agent,) = hostile.agents
    assert agent.socket_dir is not None
    assert os.path.normpath(agent.socket_dir.path / "../../witness") == str(witness)
    assert content == "untouched\n"
    assert (after.st_mode, after.st_uid, after.st_gid, after.st_size, after.st_mtime_ns) == (
        before.st_mode, before.st_uid, before.st_gid, before.st_size, before.st_mtime_ns)


@pytest.mark.docker
def test_a_socket_folder_used_as_storage_is_refused(
        bot_image: Callable[[Path], BotImage], random_image: BotImage, leftovers: Path) -> None:
    """The bot stores a file in its socket folder (the one folder it shares with the host)
    before it listens; the arena sees it while it waits for the socket, refuses at once
    (whether or not the socket is there yet) and removes the folder with what it holds."""
    case = Case("socket-folder-fill", "INIT_ERROR", (INIT,),
                r"the bot put files in its socket folder \(store\.bin\), where only its "
                r"socket belongs; refused")
    run_case(case, 0, bot_image, random_image, leftovers)


@pytest.mark.docker
def test_cpu_burnt_between_decisions_leaves_the_opponent_its_time(
        bot_image: Callable[[Path], BotImage], random_image: BotImage, leftovers: Path) -> None:
    """A bot that burns CPU from start to end (three processes and a thread) is held to its
    quota: by its own count from /proc, its container uses at most 1.5 CPUs (the limit is 1;
    unchecked, four spinners would take both cores of a 2-core machine). Each seat is pinned
    to a core of its own when there are two. The opponent's median decision time stays within
    p50 <= baseline p50 * 3 + 20 ms, the baseline being the same opponent against a quiet bot
    (the random bot again) measured in this test, so the machine's load weighs on both runs
    alike. This checks isolation, not speed."""
    xfail_unless_enforced(random_image)
    cpusets = ("0", "1") if (os.cpu_count() or 1) >= 2 else (None, None)
    quiet = docker_seat(random_image, leftovers, cpusets[0])
    baseline = run_deal(BRISCOLA, SEED, [quiet, docker_seat(random_image, leftovers, cpusets[1])],
                        CONTROL)
    image = bot_image(HOSTILE / "cpu-burner")
    burner = docker_seat(image, leftovers, cpusets[0])
    opponent = docker_seat(random_image, leftovers, cpusets[1])
    deal = play(burner, opponent, 0)
    assert_nothing_left(burner, opponent)
    assert_opponent_stands(deal, 1)
    stderr = assert_verdict(deal, 0, Case("cpu-burner", "OK", stderr=r"3 processes and a thread"),
                            image)
    used = [float(value) for value in re.findall(r"cpu-burner: ([\d.]+) CPUs used", stderr)]
    assert used and used[-1] <= 1.5 * LIMITS.cpus, used
    quiet_p50 = median_decision_ms(baseline, 1)
    loaded_p50 = median_decision_ms(deal, 1)
    assert loaded_p50 <= quiet_p50 * 3 + 20, (quiet_p50, loaded_p50)


def median_decision_ms(deal: DealResult, seat: int) -> float:
    """The median time of a seat's decisions in a deal, in milliseconds."""
    record = deal.record
    assert record is not None and record.conduct is not None
    times = [time for time, who in zip(record.conduct.decision_us, decision_seats(record),
                                       strict=True) if who == seat and time is not None]
    assert times
    return statistics.median(times) / 1000


def decision_seats(record: MatchRecord) -> list[int]:
    """The seat that made each decision of a briscola record."""
    state = BRISCOLA.new_initial_state(SEED)
    seats = []
    for action in record.actions:
        seats.append(state.current_player())
        state.apply_action(action)
    return seats


def test_every_hostile_folder_is_played() -> None:
    """No bot folder under ``hostile/`` is forgotten by the cases above."""
    cases = {case.bot for case in IN_DECISION + PROBING} | {"socket-symlink", "socket-folder-fill",
                                                             "cpu-burner"}
    assert {folder.name for folder in HOSTILE.iterdir() if folder.is_dir()} == cases
