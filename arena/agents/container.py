"""The Docker agent: a bot image run in a hardened container, reached over a Unix socket in
a fresh per-seat folder mounted into that container only.

``launch`` checks that the engine enforces every limit (``arena.sandbox.probe``), creates and
starts the container, waits for the socket to appear (``lstat``, noticing the container's exit),
checks it without following links and connects to it through ``/proc/self/fd``. A container
plays one rotation of a duplicate set (the runner makes one per seat and rotation). ``shutdown``
stops it (SIGTERM, then SIGKILL after a grace period), keeps its exit status and output, and
removes the container and the socket folder whatever happened. Docker calls run in worker
threads; a Docker API error is the arena's failure (``VOID_INFRA``), never the bot's.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.agents.base import AgentExit, Reply, Turn
from arena.agents.errors import AgentFailure, crash, init_error
from arena.agents.output import OUTPUT_CAP, OutputLog
from arena.agents.remote import (
    EXIT_WAIT_S,
    MAX_MESSAGE_BYTES,
    FailureMaker,
    RemoteAgent,
    connect_bot,
    exit_text,
)
from arena.agents.warm import pid_running
from arena.reasons import Reason
from arena.sandbox import capfs, labels
from arena.sandbox.classify import ContainerEnd, classify, container_end
from arena.sandbox.errors import SandboxError
from arena.sandbox.lifeline import CONTAINER, SOCKET_DIR, lifeline
from arena.sandbox.limits import SandboxLimits, container_options
from arena.sandbox.socketdir import SOCKET_PREFIX, SocketDir, SocketRefused, default_root
from arena.sandbox.startslots import slot_folder, start_slot
from arena.telemetry.metrics import count_container_start

if TYPE_CHECKING:
    from arena.sandbox.images import BotImage

STOP_GRACE_S = 2.0
"""Seconds a container gets to exit after SIGTERM before SIGKILL."""

SOCKET_POLL_S = 0.01
"""How often the socket folder is looked at while the bot starts."""

STATE_POLL_S = 0.1
"""How often the container's state is read while the bot starts or after its stream broke."""

OOM_FLAG_WAIT_S = 5.0
"""How long a bot killed by SIGKILL is watched for Docker's out-of-memory mark, which can come
a moment after the exit itself."""

EXCERPT_LINES = 20
"""Lines of the container's log quoted when the bot fails to start."""

EXCERPT_CHARS = 2000

OUTPUT_READS = 2
"""How many times the container's log is read when Docker breaks a read off."""


def _infra(detail: str) -> AgentFailure:
    """The arena's own failure (Docker itself): no verdict against the bot."""
    return AgentFailure(Reason.VOID_INFRA, "infra", detail)


def _failure(reason: Reason, detail: str, make: FailureMaker = crash) -> AgentFailure:
    """An AgentFailure for a classified end: OOM keeps its code, the rest follow ``make``."""
    if reason == Reason.OOM:
        return AgentFailure(Reason.OOM, "crash", detail)
    if reason == Reason.INIT_ERROR:
        return init_error(detail)
    return make(detail)


def _docker_errors() -> tuple[type[BaseException], ...]:
    """The exceptions a Docker call raises when the engine fails (docker-py's and requests')."""
    from docker.errors import DockerException
    from requests.exceptions import RequestException
    return (DockerException, RequestException)


def container_name(bot_name: str) -> str:
    """``cardarena-<bot>-<8 hex>``, with only the characters Docker allows in names."""
    safe = re.sub(r"[^a-zA-Z0-9_.-]+", "-", bot_name).strip("-.") or "bot"
    return f"cardarena-{safe[:40]}-{uuid.uuid4().hex[:8]}"


def usable_cpuset(cpuset: str | None) -> str | None:
    """The seat's pinned cores, when the machine has at least two (else no pinning)."""
    if cpuset is None or (os.cpu_count() or 1) < 2:
        return None
    return cpuset


class DockerAgent(RemoteAgent):
    """A bot image in a hardened container, over gRPC on a socket in a per-seat folder."""

    def __init__(self, image: BotImage, limits: SandboxLimits | None = None,
                 temp_root: Path | None = None, allow_unenforced: frozenset[str] = frozenset(),
                 cpuset: str | None = None, max_message_bytes: int = MAX_MESSAGE_BYTES,
                 output_cap: int = OUTPUT_CAP, stop_grace_s: float = STOP_GRACE_S,
                 command: tuple[str, ...] = ()) -> None:
        """Prepare to run the image (with ``command`` instead of its own, when given);
        nothing starts before ``launch``."""
        super().__init__(max_message_bytes, output_cap)
        self.image = image
        self.limits = limits or SandboxLimits()
        self.temp_root = temp_root
        self.allow_unenforced = frozenset(allow_unenforced)
        self.cpuset = usable_cpuset(cpuset)
        self.stop_grace_s = stop_grace_s
        self.command = tuple(command)
        self.container: Any = None
        self.container_id = ""
        self.docker_name = ""
        """The container's name, chosen before it is created (and told to the reaper)."""
        self.socket_dir: SocketDir | None = None
        self.end: ContainerEnd | None = None
        """How the container ended, once known."""
        self._marks: list[int] = []
        """When each output window after the first began (wall clock, ns)."""
        self._host_pid: int | None = None
        """The container's first process as this host's ``/proc`` shows it, once seen there
        (None where the arena does not share the engine's process view)."""
        self._log_size_read: int | None = None
        """The size of the container's log file at its last read, where this host shows it."""
        self._consumed_ns: int | None = None
        """Docker's timestamp of the last line of output kept in a window (a kept container's
        next window starts after it)."""
        self._since_ns: int | None = None
        """Where the current match's output starts (Docker's timestamps, ns): after the last
        line kept in an earlier match; None: from the container's start."""
        self._starting: asyncio.Future[None] | None = None

    # --- description ---------------------------------------------------------------------

    @property
    def label(self) -> str:
        """The bot's name."""
        return self.image.name

    def describe(self) -> dict[str, Any]:
        """The image (ref, id, name, version), the limits, and what the bot said in Ready."""
        description: dict[str, Any] = dict(self.image.describe())
        description["limits"] = self.limits.to_dict()
        if self.cpuset is not None:
            description["cpuset"] = self.cpuset
        if self.command:
            description["command"] = [arg if len(arg) <= 80 else f"<{len(arg)} characters>"
                                      for arg in self.command]
        if self.ready is not None:
            description["ready"] = self.ready.to_dict()
        return description

    # --- launch --------------------------------------------------------------------------

    async def launch(self, startup_s: float) -> None:
        """Start the container and connect once the bot listens, at most ``startup_s`` s
        after the container started (Docker's own time to create and start it is the
        arena's, never charged to the bot), holding one of the host's start slots meanwhile
        so that the bot starts with a core's worth of time."""
        try:
            folder = await asyncio.to_thread(slot_folder)
        except (SandboxError, OSError) as error:
            raise self._sticky(_infra(str(error))) from None
        async with start_slot(folder):
            await self._launch_in_slot(startup_s)

    async def _launch_in_slot(self, startup_s: float) -> None:
        """Create and start the container, then wait until the bot listens."""
        try:
            await self._create_and_start()
        except AgentFailure as failure:
            raise self._sticky(failure) from None
        deadline = asyncio.get_running_loop().time() + startup_s
        watcher = asyncio.ensure_future(self._until_exit())
        try:
            await self._wait_listening(watcher, deadline, startup_s)
        except AgentFailure as failure:
            raise self._sticky(failure) from None
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError, AgentFailure):
                await watcher

    async def _create_and_start(self) -> None:
        """Check the engine, make the socket folder, create and start the container."""
        from arena.sandbox.engine import check_runtime, docker_client
        from arena.sandbox.probe import require_enforced
        from arena.sandbox.registry import ensure_local
        from arena.sandbox.shared_layers import shared_mounts
        try:
            client = await asyncio.to_thread(docker_client)
            if self.limits.runtime is not None:
                await asyncio.to_thread(check_runtime, self.limits.runtime)
            await asyncio.to_thread(ensure_local, self.image)
            await asyncio.to_thread(require_enforced, self.allow_unenforced, self.image.image_id,
                                    self.limits)
            mounts = await asyncio.to_thread(shared_mounts, self.image.image_id)
        except SandboxError as error:
            raise _infra(str(error)) from None
        try:
            outer = lifeline().new_folder(SOCKET_DIR, SOCKET_PREFIX,
                                          self.temp_root or default_root())
            self.socket_dir = SocketDir.create(self.limits.uid, self.limits.gid,
                                               capped=not capfs.unavailable(), outer=outer)
        except OSError as error:
            raise _infra(f"cannot make the bot's socket folder: {error}") from None
        options = container_options(self.image.image_id, self.limits, self.socket_dir.path,
                                    self._labels(), self.cpuset, mounts)
        self.docker_name = options["name"] = container_name(self.image.name)
        if self.command:
            options["command"] = list(self.command)
        try:
            lifeline().track(CONTAINER, self.docker_name)
        except OSError as error:
            raise _infra(str(error)) from None
        from docker.errors import ImageNotFound
        try:
            await self._start_once(client, options)
        except ImageNotFound:
            await self._pull_again()
            try:
                await self._start_once(client, options)
            except ImageNotFound:
                raise _infra(f"no Docker image {self.image.ref} on this machine; build it "
                             "with `arena bot build PATH`") from None

    async def _start_once(self, client: Any, options: dict[str, Any]) -> None:
        """Create and start the container (``ImageNotFound`` when the image is not here)."""
        self._starting = asyncio.ensure_future(asyncio.to_thread(self._start, client, options))
        try:
            await asyncio.shield(self._starting)
        except _docker_errors() as error:
            from docker.errors import ImageNotFound
            if isinstance(error, ImageNotFound):
                raise
            raise _infra(f"Docker failed to start the bot's container: "
                         f"{_one_line(error)}") from None

    async def _pull_again(self) -> None:
        """After the image was found gone: forget that it was here, pull it again when it is
        pinned, or fail as the arena (an image gone is never the bot's doing)."""
        from arena.sandbox.images import forget_image
        from arena.sandbox.registry import ensure_local, forget_present
        forget_image(self.image.image_id)
        forget_present(self.image)
        if not self.image.pinned:
            raise _infra(f"no Docker image {self.image.ref} on this machine; build it with "
                         "`arena bot build PATH`")
        try:
            await asyncio.to_thread(ensure_local, self.image)
        except SandboxError as error:
            raise _infra(str(error)) from None

    def _start(self, client: Any, options: dict[str, Any]) -> None:
        """Create and start the container (worker thread; the container is known as soon
        as it exists, so ``shutdown`` removes it whatever comes next)."""
        try:
            self.container = client.containers.create(**options)
            self.container_id = self.container.id
            self.container.start()
        except BaseException:
            count_container_start(ok=False)
            raise
        count_container_start(ok=True)

    def _labels(self) -> dict[str, str]:
        """The janitor's labels: ours, the bot's, this arena's host, pid and start, the socket
        folder."""
        assert self.socket_dir is not None
        return {labels.SANDBOX: "1", labels.BOT_NAME: self.image.name,
                labels.BOT_VERSION: self.image.version, **labels.arena_labels(),
                labels.SOCKET_DIR: str(self.socket_dir.outer)}

    async def _wait_listening(self, watcher: asyncio.Future[AgentFailure], deadline: float,
                              startup_s: float) -> None:
        """Wait for the socket, check it, connect, and wait until the bot listens."""
        socket_dir = self.socket_dir
        assert socket_dir is not None
        appeared = asyncio.ensure_future(self._socket_appears(socket_dir))
        try:
            await self._first(appeared, watcher, deadline, startup_s, "create its socket")
            target = socket_dir.open_verified(self.limits.uid)
        except SocketRefused as error:
            raise init_error(str(error)) from None
        finally:
            appeared.cancel()
        self._channel = connect_bot(target, self.max_message_bytes)
        ready = asyncio.ensure_future(self._channel.channel_ready())
        try:
            await self._first(ready, watcher, deadline, startup_s, "listen on its socket")
        finally:
            ready.cancel()

    async def _first(self, step: asyncio.Future[Any], watcher: asyncio.Future[AgentFailure],
                     deadline: float, startup_s: float, what: str) -> None:
        """Wait for ``step``; raise the watcher's failure if the container ends first, or an
        ``INIT_ERROR`` with the log excerpt at the deadline."""
        timeout = max(0.0, deadline - asyncio.get_running_loop().time())
        done, _ = await asyncio.wait({step, watcher}, timeout=timeout,
                                     return_when=asyncio.FIRST_COMPLETED)
        if step in done:
            step.result()
            return
        if watcher in done:
            raise watcher.result()
        excerpt = await self._log_excerpt()
        raise init_error(f"the bot did not {what} within {startup_s:g} s{excerpt}")

    @staticmethod
    async def _socket_appears(socket_dir: SocketDir) -> None:
        """Return once something exists under the socket's name (never following it)."""
        while not socket_dir.present():
            await asyncio.sleep(SOCKET_POLL_S)

    async def _until_exit(self) -> AgentFailure:
        """Return the start-up failure once the container has stopped."""
        while True:
            state = await self._state()
            found = classify(state, self.limits.memory_bytes, starting=True)
            if found is not None:
                self.end = container_end(state, self.limits.memory_bytes)
                reason, detail = found
                return _failure(reason, detail + await self._log_excerpt())
            await asyncio.sleep(STATE_POLL_S)

    async def _state(self) -> dict[str, Any]:
        """The container's current ``State`` (a Docker error is the arena's failure)."""
        try:
            await asyncio.to_thread(self.container.reload)
        except _docker_errors() as error:
            raise _infra(f"Docker failed to report the bot's container: "
                         f"{_one_line(error)}") from None
        state = dict(self.container.attrs.get("State", {}))
        if self._host_pid is None and state.get("Running"):
            self._host_pid = visible_pid(state.get("Pid"), self.container_id)
        return state

    async def _log_excerpt(self) -> str:
        """``; its log ends: ...`` with the container's last lines, or nothing."""
        if self.container is None:
            return ""
        try:
            raw = await asyncio.to_thread(self.container.logs, stdout=True, stderr=True,
                                          tail=EXCERPT_LINES)
        except _docker_errors():
            return ""
        text = bytes(raw).decode("utf-8", errors="replace").strip()
        if not text:
            return "; it wrote nothing"
        return f"; its log ends:\n{text[-EXCERPT_CHARS:]}"

    # --- deadlines -----------------------------------------------------------------------

    async def decide(self, turn: Turn, timeout_s: float) -> Reply | None:
        """As ``RemoteAgent.decide``; a bot that misses its deadline at its process limit (a
        fork bomb) is ended as a crash, whether its runtime then hangs or aborts."""
        try:
            reply = await super().decide(turn, timeout_s)
        except AgentFailure as failure:
            if failure.reason != Reason.TIMEOUT:
                raise
            raise await self._process_limit_failure() or failure from None
        if reply is None:
            at_limit = await self._process_limit_failure()
            if at_limit is not None:
                raise at_limit
        return reply

    async def _process_limit_failure(self) -> AgentFailure | None:
        """A sticky crash when the container is at its process limit, else None."""
        if not self.container_id:
            return None
        from arena.sandbox.engine import docker_client
        from arena.sandbox.processes import container_process_count
        count = await asyncio.to_thread(container_process_count, self.container_id,
                                        docker_client())
        if count is None or not count.at_limit:
            return None
        return self._sticky(crash(f"the bot reached its limit of {count.limit} processes and "
                                  "threads (a fork bomb?); it is stopped"))

    # --- exits ---------------------------------------------------------------------------

    def _exit_now(self) -> AgentFailure | None:
        """A crash (or OOM) when the container is already known to have stopped."""
        end = self.end
        if end is None:
            return None
        return AgentFailure(Reason.OOM, "crash", end.detail) if end.oom else crash(
            end.detail)

    async def _exit_failure(self, make: FailureMaker, suffix: str) -> AgentFailure | None:
        """Wait a moment for the container to stop; the failure its state names, if it did."""
        if self.container is None:
            return None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + EXIT_WAIT_S
        flag_deadline: float | None = None
        while True:
            state = await self._state()
            end = container_end(state, self.limits.memory_bytes)
            if end is not None and end.status == -signal.SIGKILL and not end.oom:
                # Docker may mark an out-of-memory kill a moment after the exit itself.
                flag_deadline = flag_deadline or loop.time() + OOM_FLAG_WAIT_S
                if loop.time() < flag_deadline:
                    await asyncio.sleep(STATE_POLL_S)
                    continue
            if end is not None:
                self.end = end
                if end.oom:
                    return AgentFailure(Reason.OOM, "crash", end.detail + suffix)
                return make(end.detail + suffix)
            if loop.time() >= deadline:
                return None
            await asyncio.sleep(STATE_POLL_S)

    # --- shutdown ------------------------------------------------------------------------

    async def shutdown(self) -> AgentExit:
        """Stop the container, keep its exit and output, remove it and the socket folder
        (idempotent; the removal happens whatever failed before)."""
        if self.exit is not None:
            return self.exit
        status: int | None = None
        detail = ""
        try:
            await self._disconnect()
            starting = self._starting
            if starting is not None and not starting.done():
                await asyncio.wait({starting})
            if self.container is not None:
                end = await asyncio.to_thread(self._stop)
                if end is not None:
                    self.end = self.end or end
                    status, detail = end.status, end.detail.removeprefix("the bot ")
        except _docker_errors() as error:
            detail = f"Docker failed to stop the container: {_one_line(error)}"
        finally:
            await asyncio.to_thread(self._remove)
        if status is not None and not detail:
            detail = f"exited {exit_text(status)}"
        self.exit = AgentExit(status, detail)
        return self.exit

    def _stop(self) -> ContainerEnd | None:
        """SIGTERM, SIGKILL after the grace period; the container's end (worker thread)."""
        container = self.container
        container.reload()
        if container.attrs.get("State", {}).get("Running"):
            container.stop(timeout=max(1, round(self.stop_grace_s)))
            container.reload()
        return container_end(container.attrs.get("State", {}), self.limits.memory_bytes)

    def _remove(self, keep_output: bool = True) -> None:
        """Read the container's output (when ``keep_output``), remove the container (forced)
        and the socket folder."""
        try:
            if keep_output and self.container is not None:
                self._keep_output()
            if self.docker_name:
                self._remove_container()
        finally:
            if self.socket_dir is not None:
                self.socket_dir.remove()
                lifeline().forget(SOCKET_DIR, self.socket_dir.outer)

    def _remove_container(self) -> None:
        """Remove the container by name (forced), also when its create call failed: the daemon
        may have made it all the same. The reaper forgets it once it is known to be gone."""
        from docker.errors import NotFound

        from arena.sandbox.engine import docker_client
        try:
            docker_client().api.remove_container(self.docker_name, force=True)
        except NotFound:
            if self.container is None:
                return  # its create may still be in the daemon: the reaper keeps it listed
        except _docker_errors():
            return
        lifeline().forget(CONTAINER, self.docker_name)

    # --- output --------------------------------------------------------------------------

    def _keep_output(self) -> None:
        """Keep the container's output (worker thread): a read Docker breaks off is tried once
        more, and the longer of the two reads is kept."""
        for _ in range(OUTPUT_READS):
            output, complete, last = self._read_output()
            if output.size() >= self.output.size():
                self.output = output
                if last is not None:
                    self._consumed_ns = max(last, self._consumed_ns or 0)
            if complete:
                return

    def _read_output(self) -> tuple[OutputLog, bool, int | None]:
        """The container's log split into the deal windows by its timestamps (from the
        window's start), whether Docker gave all of it, and the timestamp of its last line."""
        output = OutputLog(self.output.cap)
        last: int | None = None
        marks = iter(self._marks)
        mark = next(marks, None)
        complete = True
        since = self._since_ns
        # Docker takes whole seconds here; the lines of the second before the window are
        # dropped by their own timestamps.
        asked = {} if since is None else {"since": since // 1_000_000_000}
        try:
            for frame in self.container.logs(stream=True, follow=False, stdout=True,
                                             stderr=True, timestamps=True, **asked):
                stamp, _, text = bytes(frame).partition(b" ")
                at = log_time_ns(stamp)
                if since is not None and (at is None or at < since):
                    continue
                while mark is not None and at is not None and at >= mark:
                    output.mark()
                    mark = next(marks, None)
                output.append(text)
                last = at if at is not None else last
        except _docker_errors():
            complete = False
        while mark is not None:
            output.mark()
            mark = next(marks, None)
        return output, complete, last

    def mark_output(self) -> None:
        """Start a new output window (the next deal's): output Docker logged from now on."""
        self._marks.append(time.time_ns())
        self.output.mark()

    # --- kept between matches (arena.agents.warm) ----------------------------------------

    @property
    def started(self) -> bool:
        """True once the container exists."""
        return self.container is not None

    def running(self) -> bool:
        """False once the container is known to have stopped or been stopped, or its first
        process is gone from this host's ``/proc``."""
        if self.container is None or self.end is not None or self.exit is not None:
            return False
        return self._host_pid is None or in_container(self._host_pid, self.container_id)

    async def still_running(self) -> bool:
        """True when the container runs: its first process is still there, where this host
        shows it; else as Docker says."""
        if not self.running():
            return False
        if self._host_pid is not None:
            return True
        try:
            state = await self._state()
        except AgentFailure:
            return False
        return bool(state.get("Running")) and not state.get("Restarting")

    def begin_window(self) -> None:
        """Start a match's output: what the container logs after the last line an earlier
        match kept. Docker stamps a line when it reads it, which on a busy host can be after
        the read at the end of the match it was written in: such a line goes to the next
        match's output, never lost nor kept twice."""
        self._since_ns = None if self._consumed_ns is None else self._consumed_ns + 1
        self._marks = []
        self.output = OutputLog(self.output.cap)

    async def end_window(self) -> None:
        """Read the match's output back from Docker's log, the container still running (not
        when its log file, where this host can see it, has not grown since the last read)."""
        if self.container is None:
            return
        size = self._log_size()
        if size is not None and size == self._log_size_read:
            return
        self._log_size_read = size
        await asyncio.to_thread(self._keep_output)

    def _log_size(self) -> int | None:
        """The size of the container's log file, or None where this host cannot see it."""
        path = self.container.attrs.get("LogPath") if self.container is not None else None
        if not path:
            return None
        try:
            return os.stat(path).st_size
        except OSError:
            return None

    async def memory_bytes(self) -> int | None:
        """The container's memory in use (its cgroup, else Docker's one-shot stats)."""
        if not self.container_id:
            return None
        from arena.sandbox.engine import docker_client
        from arena.sandbox.memory import container_memory_bytes
        return await asyncio.to_thread(container_memory_bytes, self.container_id,
                                       docker_client())

    def kill_now(self) -> None:
        """Remove the container (forced) and its socket folder without the event loop."""
        self._remove(keep_output=False)


def in_container(pid: int, container_id: str) -> bool:
    """True when the process runs (not a zombie) in the container's cgroup (``/proc``)."""
    try:
        cgroups = Path(f"/proc/{pid}/cgroup").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return container_id in cgroups and pid_running(pid)


def visible_pid(pid: object, container_id: str) -> int | None:
    """The container's first process, when this host's ``/proc`` shows it in the container."""
    if not isinstance(pid, int) or pid <= 0 or not container_id:
        return None
    return pid if in_container(pid, container_id) else None


def log_time_ns(stamp: bytes) -> int | None:
    """A Docker log timestamp (``2026-01-02T03:04:05.123456789Z``) in ns since the epoch."""
    text = stamp.decode("ascii", errors="replace").removesuffix("Z")
    whole, _, fraction = text.partition(".")
    try:
        seconds = datetime.fromisoformat(whole).replace(tzinfo=UTC).timestamp()
        nanos = int(fraction[:9].ljust(9, "0")) if fraction else 0
    except ValueError:
        return None
    return int(seconds) * 1_000_000_000 + nanos


def _one_line(error: BaseException) -> str:
    """An error's message on one line."""
    return " ".join(str(error).split()) or type(error).__name__
