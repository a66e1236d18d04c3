"""A Docker bot's cold start taken apart: where the time goes from ``docker create`` to the
first Decision, and the floor Docker itself sets on this machine.

Every start is one deal with the bot in a new container at seat 0. The arena's side is timed
on the host (``TimedDockerAgent``: the create and start calls, the socket seen, the channel
ready, Ready, the first answer). The bot's side is timed inside the container by a *stamped*
start: the image's own ``python SCRIPT`` command run through a short ``python -c`` wrapper that
notes when the interpreter runs its first line, when the SDK is imported and when the bot's
server listens, and writes the three times on its standard error. The host and the container
read the same clock (``CLOCK_MONOTONIC``: Docker gives containers no time namespace), so the
times line up. The headline figures come from plain starts (the image's own command); the
stamped starts, run alternately with them, give the parts.

The floor is a bare ``docker run`` of the same image running ``true`` under the same hardened
options (socket folder included): create, start, and wait for its exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.agents import DockerAgent, DockerSeat
from arena.bench.errors import BenchError
from arena.sandbox import capfs, labels
from arena.sandbox.limits import SandboxLimits, container_options
from arena.sandbox.socketdir import SocketDir

STAMP_MARK = "cardarena-bench-stamps"
"""The first word of the line a stamped start writes on its standard error."""

STAMP_WRAPPER = f"""\
import time
up = time.perf_counter_ns(), time.process_time_ns()
import sys
import cardarena_sdk.server as server
sdk = time.perf_counter_ns(), time.process_time_ns()
listen = server.BotServer.start
def stamped_start(self):
    bound = listen(self)
    now = time.perf_counter_ns(), time.process_time_ns()
    print("{STAMP_MARK}", *up, *sdk, *now, file=sys.stderr, flush=True)
    return bound
server.BotServer.start = stamped_start
import os
import runpy
sys.argv = sys.argv[1:]
sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[0]))
runpy.run_path(sys.argv[0], run_name="__main__")
"""
"""Runs a Python bot's script as ``python SCRIPT`` would, noting three times on the way, each
with the CPU time the bot's process had used by then (which a loaded machine does not
stretch as it does the wall clock)."""

PYTHONS = frozenset({"python", "python3", "/opt/venv/bin/python", "/opt/venv/bin/python3"})
"""The interpreters a stamped start knows how to wrap."""


def stamped_command(command: Sequence[str]) -> tuple[str, ...]:
    """The wrapper's command for an image command ``python SCRIPT ARGS...``; a BenchError for
    any other."""
    if len(command) < 2 or command[0] not in PYTHONS or command[1].startswith("-"):
        raise BenchError(f"the cold start's parts need a Python bot run as `python SCRIPT`; "
                         f"the image runs {list(command)!r}")
    return (command[0], "-c", STAMP_WRAPPER, *command[1:])


def image_command(image_id: str) -> tuple[str, ...]:
    """The command an image runs (its entrypoint and CMD)."""
    from arena.sandbox.engine import docker_client

    config = docker_client().api.inspect_image(image_id).get("Config") or {}
    return (*(config.get("Entrypoint") or ()), *(config.get("Cmd") or ()))


class _TimedContainer:
    """A docker-py container whose ``start`` call is timed."""

    def __init__(self, container: Any, stamps: dict[str, int]) -> None:
        """Wrap ``container``; times go to ``stamps``."""
        self._container = container
        self._stamps = stamps

    def start(self, **kwargs: Any) -> Any:
        """Start the container, noting when the call returned."""
        result = self._container.start(**kwargs)
        self._stamps["started"] = time.perf_counter_ns()
        return result

    def __getattr__(self, name: str) -> Any:
        """Everything else is the container's."""
        return getattr(self._container, name)


class _TimedContainers:
    """docker-py's container collection, its ``create`` call timed."""

    def __init__(self, containers: Any, stamps: dict[str, int]) -> None:
        """Wrap ``containers``; times go to ``stamps``."""
        self._containers = containers
        self._stamps = stamps

    def create(self, **options: Any) -> _TimedContainer:
        """Create the container, noting when the call began and returned."""
        self._stamps["create"] = time.perf_counter_ns()
        container = self._containers.create(**options)
        self._stamps["created"] = time.perf_counter_ns()
        return _TimedContainer(container, self._stamps)


class _TimedClient:
    """A docker-py client whose container creation and start are timed."""

    def __init__(self, client: Any, stamps: dict[str, int]) -> None:
        """Wrap ``client``."""
        self.containers = _TimedContainers(client.containers, stamps)


class TimedDockerAgent(DockerAgent):
    """The Docker agent, noting when it creates and starts the container and sees the socket."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """As ``DockerAgent``, with no times yet."""
        super().__init__(*args, **kwargs)
        self.stamps: dict[str, int] = {}

    def _start(self, client: Any, options: dict[str, Any]) -> None:
        """Create and start the container as the agent does, timed."""
        super()._start(_TimedClient(client, self.stamps), options)

    async def _socket_appears(self, socket_dir: SocketDir) -> None:  # type: ignore[override]
        """Wait for the socket as the agent does, noting when it was seen."""
        await DockerAgent._socket_appears(socket_dir)
        self.stamps["noticed"] = time.perf_counter_ns()


@dataclass(frozen=True)
class TimedDockerSeat(DockerSeat):
    """A Docker seat whose agents time their start."""

    def create_agent(self) -> TimedDockerAgent:
        """A timed Docker agent for the image (not yet launched)."""
        return TimedDockerAgent(self.image, self.limits, temp_root=self.temp_root,
                                allow_unenforced=self.allow_unenforced, cpuset=self.cpuset,
                                command=self.command)


@dataclass
class StartTimes:
    """The times (``perf_counter`` ns) of one cold start, host and container."""

    launch: int
    create: int
    created: int
    started: int
    noticed: int
    connected: int
    ready: int
    first: int
    inside: tuple[int, int, int] | None = None
    """In the container: the interpreter's first line, the SDK imported, the server listening
    (stamped starts only)."""
    inside_cpu: tuple[int, int, int] | None = None
    """The CPU time (ns) the bot's process had used at each of those three moments."""

    def from_create(self) -> float:
        """Seconds from the create call to the first decision."""
        return (self.first - self.create) / 1e9

    def from_start(self) -> float:
        """Seconds from the start call (a container created ahead) to the first decision."""
        return (self.first - self.created) / 1e9

    def from_launch(self) -> float:
        """Seconds from the agent's launch to the first decision."""
        return (self.first - self.launch) / 1e9

    def to_listening(self) -> float:
        """Seconds from the create call to the channel being ready (the bot listening)."""
        return (self.connected - self.create) / 1e9

    def parts(self) -> dict[str, float]:
        """Each part's seconds, in order (the bot's own parts only for a stamped start)."""
        found = {"arena before create (slot, checks, socket folder)": self.create - self.launch,
                 "docker create": self.created - self.create,
                 "docker start": self.started - self.created}
        if self.inside is None:
            found["start to channel ready"] = self.connected - self.started
        else:
            up, sdk, listening = self.inside
            found["interpreter start (to the first line)"] = up - self.started
            found["SDK imports"] = sdk - up
            found["bot code to listening (server, socket)"] = listening - sdk
            found["arena sees the socket, channel ready"] = self.connected - listening
        found["MatchStart to Ready"] = self.ready - self.connected
        found["Ready to first decision"] = self.first - self.ready
        return {name: ns / 1e9 for name, ns in found.items()}

    def cpu_parts(self) -> dict[str, float] | None:
        """The CPU seconds of the bot's own parts (stamped starts only)."""
        if self.inside_cpu is None:
            return None
        up, sdk, listening = self.inside_cpu
        return {"interpreter start (to the first line)": up / 1e9,
                "SDK imports": (sdk - up) / 1e9,
                "bot code to listening (server, socket)": (listening - sdk) / 1e9}


def start_times(launch: int, connected: int, ready: int, first: int, agent: TimedDockerAgent,
                output: str) -> StartTimes:
    """The times of one start from its wrapper's marks, the agent's and its output."""
    missing = [name for name in ("create", "created", "started", "noticed")
               if name not in agent.stamps]
    if missing:
        raise BenchError(f"the bot's start was not timed ({', '.join(missing)} missing)")
    stamps = agent.stamps
    inside = inside_stamps(output)
    return StartTimes(launch, stamps["create"], stamps["created"], stamps["started"],
                      stamps["noticed"], connected, ready, first,
                      inside[0] if inside else None, inside[1] if inside else None)


Stamps = tuple[int, int, int]


def inside_stamps(output: str) -> tuple[Stamps, Stamps] | None:
    """The three times a stamped start wrote and the CPU times with them, or None when it
    wrote none."""
    for line in output.splitlines():
        words = line.split()
        if len(words) == 7 and words[0] == STAMP_MARK and all(w.isdigit() for w in words[1:]):
            up, up_cpu, sdk, sdk_cpu, listening, listening_cpu = map(int, words[1:])
            return (up, sdk, listening), (up_cpu, sdk_cpu, listening_cpu)
    return None


@dataclass
class FloorRun:
    """One bare run of the image's ``true``: seconds of the create and start calls, and to its
    exit from the create call and from the start call."""

    create_s: float
    start_s: float
    from_create_s: float
    from_start_s: float


def bare_run(image_id: str, limits: SandboxLimits, root: Any) -> FloorRun:
    """``docker run IMAGE true`` under the bot's hardened options (a socket folder mounted as
    for a bot), timed from the create call to the exit; the container is removed."""
    from arena.agents.container import container_name
    from arena.sandbox.engine import docker_client
    from arena.sandbox.shared_layers import shared_mounts

    client = docker_client()
    socket_dir = SocketDir.create(limits.uid, limits.gid, root, capped=not capfs.unavailable())
    name = container_name("bench-floor")
    try:
        floor_labels = {labels.SANDBOX: "1", **labels.arena_labels(),
                        labels.SOCKET_DIR: str(socket_dir.outer)}
        options = container_options(image_id, limits, socket_dir.path, floor_labels,
                                    mounts=shared_mounts(image_id))
        options.update(name=name, command=["true"])
        create = time.perf_counter_ns()
        container = client.containers.create(**options)
        created = time.perf_counter_ns()
        container.start()
        started = time.perf_counter_ns()
        status = container.wait()
        ended = time.perf_counter_ns()
        if status.get("StatusCode") != 0:
            raise BenchError(f"the floor's `true` exited with {status.get('StatusCode')}")
        return FloorRun((created - create) / 1e9, (started - created) / 1e9,
                        (ended - create) / 1e9, (ended - created) / 1e9)
    finally:
        from docker.errors import NotFound
        with contextlib.suppress(NotFound):
            client.api.remove_container(name, force=True)
        socket_dir.remove()


async def floor_run(image_id: str, limits: SandboxLimits, root: Any) -> FloorRun:
    """``bare_run`` in a worker thread."""
    return await asyncio.to_thread(bare_run, image_id, limits, root)


@dataclass
class ColdStarts:
    """Every plain start, stamped start and floor run of a bench."""

    plain: list[StartTimes] = field(default_factory=list)
    stamped: list[StartTimes] = field(default_factory=list)
    floor: list[FloorRun] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        """The JSON-ready figures: medians, each start, the parts and the ratio to the floor."""
        if not self.plain or not self.floor:
            raise BenchError("no cold start was measured")
        p50 = _median([start.from_create() for start in self.plain])
        floor_p50 = _median([run.from_create_s for run in self.floor])
        floor_start_p50 = _median([run.from_start_s for run in self.floor])
        from_start = _median([start.from_start() for start in self.plain])
        report: dict[str, Any] = {
            "cold_start_p50_s": p50,
            "cold_start_s": [round(start.from_create(), 3) for start in self.plain],
            "cold_start_from_start_p50_s": from_start,
            "cold_start_from_launch_p50_s": _median([s.from_launch() for s in self.plain]),
            "listening_p50_s": _median([start.to_listening() for start in self.plain]),
            "listening_s": [round(start.to_listening(), 3) for start in self.plain],
            "floor_p50_s": floor_p50,
            "floor_s": [round(run.from_create_s, 3) for run in self.floor],
            "floor_from_start_p50_s": floor_start_p50,
            "floor_parts_s": {"docker create": _median([run.create_s for run in self.floor]),
                              "docker start": _median([run.start_s for run in self.floor]),
                              "start to exit": _median([run.from_start_s - run.start_s
                                                        for run in self.floor])},
            "floor_ratio": round(p50 / floor_p50, 2) if floor_p50 else None,
            "floor_ratio_from_start": (round(from_start / floor_start_p50, 2)
                                       if floor_start_p50 else None),
            "over_floor_p50_s": round(p50 - floor_p50, 3),
            "parts_plain_s": _medians([start.parts() for start in self.plain]),
        }
        stamped = [start for start in self.stamped if start.inside is not None]
        if stamped:
            report["stamped_cold_start_p50_s"] = _median([s.from_create() for s in stamped])
            report["parts_s"] = _medians([start.parts() for start in stamped])
            cpu = [found for start in stamped if (found := start.cpu_parts()) is not None]
            if cpu:
                report["parts_cpu_s"] = _medians(cpu)
        return report


def _median(values: Sequence[float]) -> float:
    """The median, rounded to the millisecond."""
    return round(statistics.median(values), 3)


def _medians(parts: Sequence[dict[str, float]]) -> dict[str, float]:
    """Each part's median over the starts, in the parts' order."""
    return {name: _median([found[name] for found in parts]) for name in parts[0]}
