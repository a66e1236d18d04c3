"""One Docker build, watched: log streamed, stopped past a time or size limit, one-line errors.

The build runs without network (``network_mode="none"``) with the classic builder, whose layer
cache makes a second build of an unchanged folder give the same image id. A bot's build is
*guarded* (``guard.py``): the Dockerfile sent is the arena's rendering of the one that was read,
every step Docker announces must be the rendering's next line (or the build stops and its log
says nothing more), each RUN step's files are capped in size (``ulimit fsize``), its writes are
measured while it runs and before its layer is committed, and every committed layer counts
against the limit (``buildsize.py``).
"""

from __future__ import annotations

import functools
import json
import logging
import queue
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.sandbox.buildsize import DiskLedger, StepProbe, image_bytes, step_bytes
from arena.sandbox.buildwatch import building
from arena.sandbox.dockerfile import Dockerfile, DockerfileError, quote
from arena.sandbox.engine import docker_client
from arena.sandbox.errors import BuildError
from arena.sandbox.guard import MARKER, GuardedDockerfile, ensure_guard_image, guard_dockerfile
from arena.telemetry.metrics import observe_build

log = logging.getLogger(__name__)

Progress = Callable[[str], None]

LOG_LINES = 20
"""How many of the build log's last lines a ``BuildError`` carries."""

INSTRUCTION_CHARS = 120
"""How much of a step's instruction an error message quotes."""

POLL_S = 0.05
SIZE_POLL_S = 0.1
"""The least time between two measurements of a running build step's size."""
SIZE_SHARE = 0.5
"""Measurements run in the background and take at most this share of the time (a step with
many files takes longer to walk)."""
GRACE_S = 30.0
"""How long a stopped build may take to wind down before it is left to the daemon."""
READER_S = 5.0
"""How long a stopped build's cleanup waits for the stream's last chunk before going on in the
background."""
BUILT_DOCKERFILE = ".cardarena.Dockerfile"
"""The name of the rendered Dockerfile in a guarded build's context (removed by the daemon)."""

STEP = re.compile(r"^Step (?P<number>\d+)/(?P<total>\d+) : (?P<instruction>.*)$")
RUNNING = re.compile(r"^ ---> Running in (?P<container>[0-9a-f]{12,64})$")
COMMITTED = re.compile(r"^ ---> (?P<image>[0-9a-f]{12,64})$")
USING_CACHE = " ---> Using cache"
REMOVING = re.compile(r"^Removing intermediate container [0-9a-f]{12,64}$")
BUILDER_LINES = (STEP, RUNNING, COMMITTED, REMOVING, re.compile(f"^{re.escape(USING_CACHE)}$"))
"""The builder's own lines that move a build on."""
NONZERO = re.compile(r"^The command .* returned a non-zero code: (?P<code>\d+)$", re.DOTALL)


def mebibytes(size: int) -> str:
    """A byte count for messages, in MiB."""
    return f"{size / 2**20:.1f} MiB"


@dataclass
class BuildLog:
    """What a build stream said so far: its last lines, current step and running container.

    With a ``plan`` (a guarded build), every step Docker announces is checked against it: the
    first that differs seals the log (``betrayed``), and nothing after it is kept or reported."""

    what: str
    progress: Progress
    plan: GuardedDockerfile | None = None
    labelled: int = 0
    """How many labels the build request adds (the classic builder adds a LABEL step each)."""
    lines: deque[str] = field(default_factory=lambda: deque(maxlen=200))
    step: str = ""
    keyword: str = ""
    container: str = ""
    error: str = ""
    partial: str = ""
    betrayed: str = ""
    running: Callable[[str], bool] | None = None
    """Whether a step's container still runs (asked before a line is taken for the builder's)."""
    in_output: bool = False
    """Between a RUN step's ``Running in`` and the end of its container: lines are its output."""
    number: int = 0
    """The last step number Docker announced."""
    _runs_now: bool | None = None
    """Whether the step's container ran when this chunk came (asked once a chunk: the
    builder's own lines never share a chunk with a container's output)."""
    settle: bool = False
    """The guard said the running step's command ended: the host measures, then lets it go."""
    fresh: list[str] = field(default_factory=list)
    """The images this build made (not found in the cache), oldest first."""
    cached: bool = False
    reached: set[str] = field(default_factory=set)
    """With a base image given: the (short) ids a stage may start from, the base's and each
    image this build reached; empty when any base goes."""
    events: list[tuple[str, str]] = field(default_factory=list)
    """In order: ("stage", "") at each FROM, ("base", image id) for a stage's starting image,
    ("layer", image id) for each step's result."""
    on_work: Callable[[], None] | None = None
    """Called when the build does real work: a step's container runs, a step makes a layer
    not found in the cache, or the build fails."""

    def _worked(self) -> None:
        """Say that the build does real work."""
        if self.on_work is not None:
            self.on_work()

    def take(self, chunk: dict[str, Any]) -> None:
        """Record one decoded chunk of the build stream."""
        self._runs_now = None
        if "error" in chunk:
            self.error = str(chunk["error"]).strip()
            self._worked()
            self._line(self.error)
            return
        text = chunk.get("stream")
        if not isinstance(text, str):
            status = chunk.get("status")
            if isinstance(status, str):
                self._line(status)
            return
        pieces = (self.partial + text).split("\n")
        self.partial = pieces.pop()
        for piece in pieces:
            self._line(piece.rstrip("\r"))

    def _line(self, line: str) -> None:
        """Keep one line, follow steps and containers, and report it."""
        if self.betrayed or not line.strip():
            return
        if self.plan is not None and line == MARKER:
            self.settle = True
            return
        if self.plan is not None and self._output(line):
            self.lines.append(line)
            self.progress(line)
            return
        if step := STEP.match(line):
            number, total = int(step["number"]), int(step["total"])
            instruction = step["instruction"].strip()
            if self.plan is not None:
                self.betrayed = self._differs(number, total, step["instruction"])
                if self.betrayed:
                    return
            self.keyword = instruction.partition(" ")[0].upper()
            self.step = self._describe(number, total, instruction)
            self.container = ""
            self.cached = False
            if self.keyword == "FROM":
                self.events.append(("stage", ""))
        elif running := RUNNING.match(line):
            self.container = running["container"]
            self.in_output = self.plan is not None
            self._worked()
        elif line == USING_CACHE:
            self.cached = True
        elif committed := COMMITTED.match(line):
            if self.reached and self.keyword == "FROM" and committed["image"] not in self.reached:
                self.betrayed = (f"{self.what}: the Docker engine started a stage from image "
                                 f"{committed['image']}, not the base image; the build was "
                                 f"stopped")
                return
            if self.reached:
                self.reached.add(committed["image"])
            self.container = ""
            self.events.append(("base" if self.keyword == "FROM" else "layer",
                                committed["image"]))
            if self.keyword != "FROM" and not self.cached:
                self.fresh.append(committed["image"])
                self._worked()
        self.lines.append(line)
        self.progress(line)

    def _output(self, line: str) -> bool:
        """True for a line a step's container wrote: anything while it runs, even a line that
        looks like one of the builder's own (so a step cannot fake the build's progress)."""
        if not self.in_output:
            return False
        if not any(pattern.match(line) for pattern in BUILDER_LINES):
            return True
        if self._runs_now is None:
            self._runs_now = self.running is not None and self.running(self.container)
        if self._runs_now:
            return True
        self.in_output = False
        return False

    def _differs(self, number: int, total: int, text: str) -> str:
        """Why Docker's step ``number`` is not the plan's next, or "" when it is."""
        assert self.plan is not None
        steps = self.plan.steps
        expected = len(steps) + self.labelled
        follows, self.number = number == self.number + 1, number
        if follows and total == expected and number <= len(steps) and text == steps[number - 1]:
            return ""
        if (follows and total == expected and len(steps) < number <= expected
                and text.startswith("LABEL ")):
            return ""
        return (f"{self.what}: the Docker engine read the Dockerfile differently from the "
                f"arena's check (step {number}/{total}: {quote(text)}); the build was stopped")

    def _describe(self, number: int, total: int, instruction: str) -> str:
        """The step for messages: the Dockerfile's line when there is a plan."""
        if self.plan is None:
            return f"step {number}/{total} ({_shorten(instruction)})"
        source = next((item for item in self.plan.sources[number - 1:] if item is not None),
                      None)
        if source is None:
            return "the image's labels"
        return f"{source.where} ({_shorten(source.original)})"

    def excerpt(self) -> str:
        """The last lines of the log, for ``BuildError.log``."""
        lines = [*self.lines, *([self.partial] if self.partial.strip() and not self.betrayed
                                else [])]
        return "\n".join(lines[-LOG_LINES:])

    def where(self) -> str:
        """`` at step 3/5 (RUN ...)`` when a step has started, else nothing."""
        return f" at {self.step}" if self.step else ""


def _shorten(instruction: str) -> str:
    """An instruction cut to INSTRUCTION_CHARS for messages."""
    if len(instruction) > INSTRUCTION_CHARS:
        return instruction[:INSTRUCTION_CHARS - 3] + "..."
    return instruction


def run_build(context: Path, *, tag: str, what: str, timeout_s: float,
              max_bytes: int | None = None, buildargs: dict[str, str] | None = None,
              labels: dict[str, str] | None = None, progress: Progress | None = None,
              dockerfile: Dockerfile | None = None, base_image: str = "") -> str:
    """``_run_build``, told to the build watchers (``arena.sandbox.buildwatch``): its lines go
    to ``progress`` when given, else to the watchers, which hear when the first step not found
    in Docker's cache runs, and that the build had nothing to do when none did."""
    with building(what, tells_work=True) as show:
        def report(line: str) -> None:
            """Log a line of the build and show it to the watchers."""
            log.debug("%s", line)
            show(line)

        started, ok = time.monotonic(), False
        try:
            image = _run_build(context, tag=tag, what=what, timeout_s=timeout_s,
                               max_bytes=max_bytes, buildargs=buildargs, labels=labels,
                               progress=progress or report, dockerfile=dockerfile,
                               base_image=base_image, on_work=show.working)
            ok = True
        finally:
            seconds = time.monotonic() - started
            observe_build(seconds, ok)
            log.info("build ended", extra={"build": what, "result": "ok" if ok else "failed",
                                           "seconds": round(seconds, 3)})
        show.up_to_date = not show.worked
        return image


def _run_build(context: Path, *, tag: str, what: str, timeout_s: float,
               max_bytes: int | None = None, buildargs: dict[str, str] | None = None,
               labels: dict[str, str] | None = None, progress: Progress | None = None,
               dockerfile: Dockerfile | None = None, base_image: str = "",
               on_work: Callable[[], None] | None = None) -> str:
    """Build ``context`` as ``tag`` within the limits; return the image id or raise BuildError
    (``on_work`` is called when a step not found in the cache first runs, or the build fails).

    With ``dockerfile`` (the context's Dockerfile as read and checked) the build is guarded:
    that reading is what is built, and each RUN step runs under the build guard. With
    ``base_image`` (an image id; untrusted builds) the rendering may reach no other image, and
    every stage Docker starts must start from it, from scratch or from this build's images."""
    client = docker_client()
    plan = None
    if dockerfile is not None:
        try:
            plan = guard_dockerfile(dockerfile, ensure_guard_image(client), labels,
                                    strict=bool(base_image))
        except DockerfileError as error:
            raise BuildError(f"{what}: {error}") from None
    build_log = BuildLog(what, progress or log.debug, plan=plan,
                         labelled=0 if plan else len(labels or {}), on_work=on_work)
    if base_image:
        build_log.reached.add(base_image.removeprefix("sha256:")[:12])
    build_log.running = functools.partial(_runs, client)
    params: dict[str, Any] = {"t": tag, "rm": True, "forcerm": True, "networkmode": "none",
                              "buildargs": json.dumps(buildargs or {}),
                              "labels": json.dumps({} if plan else labels or {})}
    if max_bytes is not None:
        params["ulimits"] = json.dumps([{"Name": "fsize", "Soft": max_bytes,
                                         "Hard": max_bytes}])
    request = BuildRequest(client, context, params, plan.text if plan else None,
                           timeout=timeout_s + GRACE_S + 60)
    previous = _image_id(client, tag)
    request.start(name=f"build {tag}")
    stopped = Watch(client, build_log, request, timeout_s, max_bytes).run()
    if stopped:
        _remove_container(client, build_log.container)
        if request.wait(READER_S):
            _remove_late_images(client, request, tag, previous, build_log)
        else:
            threading.Thread(target=_remove_late_images,
                             args=(client, request, tag, previous, build_log),
                             name=f"reap {tag}", daemon=True).start()
        raise BuildError(stopped, log=build_log.excerpt())
    if build_log.error:
        _remove_fresh(client, build_log.fresh)
        raise BuildError(f"{what}: the build failed{build_log.where()}: "
                         f"{_plain_error(build_log.error)}", log=build_log.excerpt())
    image = client.api.inspect_image(tag)
    found = (image.get("Config") or {}).get("Labels") or {}
    if any(found.get(key) != value for key, value in (labels or {}).items()):
        _remove_image(client, tag)
        raise BuildError(f"{what}: the image's labels came out different from those asked "
                         f"for; it was removed", log=build_log.excerpt())
    size = int(image.get("Size") or 0)
    if max_bytes is not None and size > max_bytes:
        _remove_image(client, tag)
        raise BuildError(f"{what}: the image is {mebibytes(size)}, over the limit of "
                         f"{mebibytes(max_bytes)}; it was removed", log=build_log.excerpt())
    return str(image["Id"])


class BuildRequest:
    """One ``POST /build`` of a folder (and maybe a rendered Dockerfile), read in a thread.

    docker-py's ``build`` cannot pass ``ulimits``, so the request is made here, with the same
    context as docker-py makes (``.dockerignore`` followed) and no registry credentials."""

    def __init__(self, client: Any, context: Path, params: dict[str, Any], text: str | None,
                 *, timeout: float) -> None:
        """Prepare the request; ``text`` replaces the context's Dockerfile when given."""
        self.client = client
        self.context = context
        self.params = dict(params, dockerfile=BUILT_DOCKERFILE if text is not None
                           else "Dockerfile")
        self.text = text
        self.timeout = int(timeout)
        self.events: queue.Queue[tuple[str, Any]] = queue.Queue()
        self._response: Any = None
        self._closed = threading.Event()
        self.thread: threading.Thread | None = None

    def start(self, name: str) -> None:
        """Send the request and pass each decoded chunk, then the end, to ``events``."""
        self.thread = threading.Thread(target=self._read, name=name, daemon=True)
        self.thread.start()

    def close(self) -> None:
        """Hang up: the daemon cancels a classic build whose client went away."""
        self._closed.set()
        response = self._response
        if response is not None:
            try:
                # Shut the socket first: the reading thread's recv then returns at once, where
                # a plain close could wait on it for as long as the daemon stays silent.
                sock = self.client.api._get_raw_response_socket(response)
                sock.shutdown(socket.SHUT_RDWR)
            except Exception as error:
                log.debug("shutting the build stream: %s", error)
            try:
                response.close()
            except Exception as error:
                log.debug("closing the build stream: %s", error)

    def join(self) -> None:
        """Wait for the reading thread to end."""
        if self.thread is not None:
            self.thread.join()

    def wait(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the reading thread to end; whether it has."""
        if self.thread is not None:
            self.thread.join(seconds)
        return self.thread is None or not self.thread.is_alive()

    def _read(self) -> None:
        """Run the request; report chunks, then "end" or "failed"."""
        try:
            for chunk in self._chunks():
                if self._closed.is_set():
                    break
                self.events.put(("chunk", chunk))
        except Exception as error:
            self.events.put(("failed", error))
        else:
            self.events.put(("end", None))

    def _chunks(self) -> Iterator[dict[str, Any]]:
        """The decoded chunks of the build's stream."""
        from docker.utils.build import tar

        api = self.client.api
        dockerfile = (BUILT_DOCKERFILE, self.text) if self.text is not None else None
        with tar(str(self.context), exclude=_dockerignore(self.context),
                 dockerfile=dockerfile) as archive:
            response = api._post(api._url("/build"), data=archive, params=self.params,
                                 headers={"Content-Type": "application/tar"}, stream=True,
                                 timeout=self.timeout)
        self._response = response
        if self._closed.is_set():
            response.close()
            return
        api._raise_for_status(response)
        yield from api._stream_helper(response, decode=True)


class Watch:
    """Follows one build until it ends; ``run`` says why it was stopped, or "" when it ran its
    course."""

    def __init__(self, client: Any, build_log: BuildLog, request: BuildRequest,
                 timeout_s: float, max_bytes: int | None) -> None:
        """Nothing seen yet."""
        self.client = client
        self.log = build_log
        self.request = request
        self.timeout_s = timeout_s
        self.max_bytes = max_bytes
        self.ledger = DiskLedger()
        self.probe = StepProbe(client)

    def run(self) -> str:
        """Follow the stream, the clock and the disk; stop the build at the first excess."""
        started = time.monotonic()
        deadline = started + self.timeout_s
        next_size_check = started
        stopped = ""
        killed = ""
        give_up = 0.0
        try:
            while True:
                try:
                    kind, payload = self.request.events.get(timeout=POLL_S)
                except queue.Empty:
                    kind, payload = "", None
                if kind == "chunk":
                    before = self.log.container
                    self.log.take(payload)
                    if stopped and self.log.container and self.log.container != before:
                        _kill(self.client, self.log.container)
                elif kind == "failed":
                    if not stopped and not self.log.error:
                        self.log.error = _first_line(payload)
                    break
                elif kind == "end":
                    break
                now = time.monotonic()
                if stopped:
                    if self.log.container and self.log.container != killed:
                        killed = self.log.container
                        _kill(self.client, killed)
                    if now > give_up:
                        self.request.close()
                        break
                    continue
                if self.log.betrayed:
                    stopped = self.log.betrayed
                elif now >= deadline:
                    stopped = (f"{self.log.what}: the build ran past its time limit of "
                               f"{self.timeout_s:g} s{self.log.where()}; it was stopped")
                else:
                    stopped = self._committed() or self._settle()
                    if not stopped and self.log.container and self.max_bytes is not None:
                        stopped = self._over(self.probe.size_of(self.log.container))
                        if (not stopped and now >= next_size_check
                                and self.probe.start(self.log.container)):
                            next_size_check = now + max(SIZE_POLL_S,
                                                        self.probe.seconds / SIZE_SHARE)
                if stopped:
                    give_up = now + GRACE_S
                    _kill(self.client, self.log.container)
        except BaseException:
            self.request.close()
            _kill(self.client, self.log.container)
            raise
        return stopped

    def _committed(self) -> str:
        """Count the stages and images the build reached; why it must stop, or ""."""
        events, self.log.events = self.log.events, []
        for kind, image in events:
            if kind == "stage":
                self.ledger.new_stage()
            else:
                self.ledger.committed(image_bytes(self.client, image),
                                      starts_stage=kind == "base")
        return self._over(0) if events else ""

    def _settle(self) -> str:
        """The guard waits: once only it is left, measure the step and let it be committed."""
        if not self.log.settle:
            return ""
        container = self.log.container
        if not container or not _only_the_guard(self.client, container):
            return ""  # asked again at the next poll: the guard waits until it is released
        self.log.settle = False
        if self.max_bytes is not None:
            stopped = self._over(step_bytes(self.client, container))
            if stopped:
                return stopped
        try:
            self.client.api.kill(container, signal="SIGUSR1")
        except Exception as error:
            log.debug("releasing %s: %s", container, error)
            self.log.settle = True  # released at the next poll
        return ""

    def _over(self, running: int) -> str:
        """Why the build must stop when its committed layers plus ``running`` bytes exceed the
        limit, or ""."""
        if self.max_bytes is None:
            return ""
        size = self.ledger.charged + running
        if size <= self.max_bytes:
            return ""
        return (f"{self.log.what}: the image grew to {mebibytes(size)}{self.log.where()}, "
                f"over the limit of {mebibytes(self.max_bytes)}; the build was stopped")


def _runs(client: Any, container: str) -> bool:
    """True while a build step's container runs (or cannot be asked)."""
    try:
        return bool(client.api.inspect_container(container)["State"]["Running"])
    except Exception as error:
        return getattr(getattr(error, "response", None), "status_code", None) != 404


def _only_the_guard(client: Any, container: str) -> bool:
    """True when the guard is the one process left in a step's container."""
    try:
        processes = client.api.top(container).get("Processes") or []
    except Exception as error:
        log.debug("top %s: %s", container, error)
        return False
    return len(processes) == 1


def _dockerignore(context: Path) -> list[str]:
    """The patterns of the context's ``.dockerignore``, as docker-py reads them."""
    file = context / ".dockerignore"
    if not file.is_file():
        return []
    lines = [line.strip() for line in file.read_text(errors="replace").splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def _plain_error(error: str) -> str:
    """The daemon's error, with a RUN step's rendered command left out."""
    if nonzero := NONZERO.match(error):
        return f"RUN returned a non-zero code: {nonzero['code']}"
    return error


def _remove_late_images(client: Any, request: BuildRequest, tag: str, previous: str,
                        build_log: BuildLog) -> None:
    """Once a stopped build's stream ends, remove the image the daemon may still have tagged
    and the intermediate images the build made."""
    request.join()
    if _image_id(client, tag) not in ("", previous):
        _remove_image(client, tag)
    _remove_fresh(client, build_log.fresh)


def _remove_fresh(client: Any, images: list[str]) -> None:
    """Remove a failed build's own intermediate images, newest first (an image another one
    was built on stays)."""
    for image in reversed(images):
        _remove_image(client, image)


def _image_id(client: Any, tag: str) -> str:
    """The id of the image a tag names now, or "" when there is none."""
    try:
        return str(client.api.inspect_image(tag)["Id"])
    except Exception:
        return ""


def _kill(client: Any, container: str) -> None:
    """Kill a build step's container, if there is one and it still runs."""
    if not container:
        return
    try:
        client.api.kill(container)
    except Exception as error:
        log.debug("kill %s: %s", container, error)


def _remove_container(client: Any, container: str) -> None:
    """Remove a stopped build's step container if the daemon left it."""
    if not container:
        return
    try:
        client.api.remove_container(container, force=True)
    except Exception as error:
        log.debug("remove %s: %s", container, error)


def _remove_image(client: Any, tag: str) -> None:
    """Remove (or untag) an image a stopped or oversized build produced."""
    try:
        client.api.remove_image(tag)
    except Exception as error:
        log.debug("remove image %s: %s", tag, error)


def _first_line(error: BaseException) -> str:
    """The first line of an exception's message."""
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]
