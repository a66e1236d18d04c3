"""The janitor: which labelled containers are leftovers, and a real collection that removes
the container of a dead arena with its socket folder and keeps a live arena's."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from arena.sandbox import labels
from arena.sandbox.gc import (
    arena_alive,
    collect,
    is_leftover,
    removal_in_progress,
    socket_dir_of,
)
from arena.sandbox.images import BASE_IMAGE
from arena.sandbox.limits import SandboxLimits
from arena.sandbox.socketdir import SocketDir

HOST = "arena-host"
LIVE, DEAD = 100, 200


STARTED = "4242"


def alive(pid: int, started: str) -> bool:
    """Only ``LIVE`` runs, started at ``STARTED``."""
    return pid == LIVE and started in ("", STARTED)


def made(pid: object = LIVE, host: str = HOST, **extra: str) -> dict[str, str]:
    """The labels of a container an arena made."""
    found = {labels.SANDBOX: "1", labels.ARENA_HOST: host, labels.ARENA_PID: str(pid)}
    found.update(extra)
    return found


@pytest.mark.parametrize(("container_labels", "everything", "leftover"), [
    (made(DEAD), False, True),
    (made(LIVE), False, False),
    (made(LIVE, **{labels.ARENA_STARTED: STARTED}), False, False),
    (made(LIVE, **{labels.ARENA_STARTED: "17"}), False, True),
    (made(LIVE), True, True),
    (made(DEAD, host="other-host"), False, False),
    (made(DEAD, host="other-host"), True, True),
    ({labels.SANDBOX: "1"}, False, False),
    ({labels.SANDBOX: "1"}, True, True),
    (made("not-a-pid"), False, False),
    ({labels.ARENA_HOST: HOST, labels.ARENA_PID: str(DEAD)}, True, False),
    ({**made(DEAD), labels.SANDBOX: "0"}, True, False),
])
def test_leftovers_are_containers_of_an_arena_gone_from_this_host(
        container_labels: dict[str, str], everything: bool, leftover: bool) -> None:
    assert is_leftover(container_labels, HOST, alive, everything) is leftover


def test_only_socket_folders_the_sandbox_made_are_removed(short_root: Path) -> None:
    folder = SocketDir.create(10001, 10001, short_root)
    assert socket_dir_of({labels.SOCKET_DIR: str(folder.outer)}) == folder.outer
    assert socket_dir_of({}) is None
    assert socket_dir_of({labels.SOCKET_DIR: "relative/cat-x"}) is None
    assert socket_dir_of({labels.SOCKET_DIR: str(short_root)}) is None
    (folder.outer / "other").write_text("", encoding="utf-8")
    assert socket_dir_of({labels.SOCKET_DIR: str(folder.outer)}) is None
    link = short_root / "cat-link"
    link.symlink_to(folder.outer)
    assert socket_dir_of({labels.SOCKET_DIR: str(link)}) is None
    folder.remove()


def test_a_pid_taken_by_another_process_is_not_the_arena() -> None:
    """The real check: this process is alive as itself, not under another start time; a
    finished process is not alive."""
    own = labels.arena_labels()
    assert own[labels.ARENA_PID] == str(os.getpid()) and own[labels.ARENA_STARTED].isdigit()
    assert arena_alive(os.getpid(), own[labels.ARENA_STARTED])
    assert not arena_alive(os.getpid(), str(int(own[labels.ARENA_STARTED]) + 1))
    assert not arena_alive(dead_pid(), "")


def dead_pid() -> int:
    """The pid of a process that has exited."""
    process = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                             check=True, capture_output=True, text=True)
    return int(process.stdout)


@pytest.fixture
def run_label(docker_required: Any) -> Iterator[dict[str, str]]:
    """A label unique to this test, so the collection touches nothing else; its containers
    are removed afterwards whatever happened."""
    label = {"cardarena.test.run": uuid.uuid4().hex}
    yield label
    client = docker_required
    for container in client.containers.list(all=True, ignore_removed=True, filters={"label": [
            f"cardarena.test.run={label['cardarena.test.run']}"]}):
        container.remove(force=True)


def started_of(pid: int) -> dict[str, str]:
    """The start-time label of a running process, none for one that has exited."""
    started = labels.process_started(pid)
    return {} if started is None else {labels.ARENA_STARTED: started}


def leftover_container(client: Any, pid: int, folder: SocketDir,
                       run: dict[str, str]) -> Any:
    """A container labelled as an arena with ``pid`` would label it (created, not started)."""
    limits = SandboxLimits()
    return client.containers.create(
        BASE_IMAGE, ["sleep", "600"], user=limits.user, network_mode="none",
        labels={**made(pid, socket.gethostname(), **started_of(pid)),
                labels.SOCKET_DIR: str(folder.outer), **run},
        volumes={str(folder.path): {"bind": "/run/cardarena", "mode": "rw"}})


def test_a_collection_removes_a_dead_arenas_container_and_socket_folder(
        docker_required: Any, base_image: str, short_root: Path,
        run_label: dict[str, str]) -> None:
    client = docker_required
    dead_folder = SocketDir.create(10001, 10001, short_root)
    live_folder = SocketDir.create(10001, 10001, short_root)
    dead = leftover_container(client, dead_pid(), dead_folder, run_label)
    live = leftover_container(client, os.getpid(), live_folder, run_label)
    dead.start()
    report = collect(match=run_label)
    assert report.removed == [dead.name] and report.kept == [live.name]
    assert report.socket_dirs == [str(dead_folder.outer)] and report.errors == []
    assert not dead_folder.outer.exists() and live_folder.outer.exists()
    run = f"cardarena.test.run={run_label['cardarena.test.run']}"
    names = [c.name for c in client.containers.list(all=True, ignore_removed=True,
                                                    filters={"label": [run]})]
    assert names == [live.name]
    everything = collect(everything=True, match=run_label)
    assert everything.removed == [live.name] and not live_folder.outer.exists()
    assert everything.to_dict()["socket_dirs"] == [str(live_folder.outer)]


def test_collections_racing_over_the_same_leftovers_report_no_error(
        docker_required: Any, base_image: str, short_root: Path,
        run_label: dict[str, str]) -> None:
    """Two collections at once (a worker's janitor and an operator's ``arena sandbox gc``)
    over the same dead arena's containers: each container goes, and neither collection calls
    the other's removal in progress an error."""
    client = docker_required
    pid = dead_pid()
    folders = [SocketDir.create(10001, 10001, short_root) for _ in range(6)]
    containers = [leftover_container(client, pid, folder, run_label) for folder in folders]
    with ThreadPoolExecutor(max_workers=2) as pool:
        reports = list(pool.map(lambda _: collect(match=run_label), range(2)))
    assert [report.errors for report in reports] == [[], []]
    removed = {name for report in reports for name in report.removed}
    assert removed == {container.name for container in containers}
    run = f"cardarena.test.run={run_label['cardarena.test.run']}"
    assert client.containers.list(all=True, ignore_removed=True, filters={"label": [run]}) == []
    assert not any(folder.outer.exists() for folder in folders)


def test_only_a_removal_in_progress_is_taken_for_done() -> None:
    """Docker's 409 for a removal already under way counts as removed; any other refusal,
    a 409 of another kind included, stays an error."""
    from docker.errors import APIError
    from requests.models import Response

    def refusal(status: int, text: str) -> APIError:
        """An APIError as docker-py raises it for a response with ``status``."""
        response = Response()
        response.status_code, response.reason = status, "Conflict"
        response.url = "http+docker://localhost/v1.41/containers/6c28?force=True"
        return APIError("refused", response, explanation=text)

    assert removal_in_progress(refusal(409, "removal of container 6c28 is already in progress"))
    assert not removal_in_progress(refusal(409, "You cannot remove a running container"))
    assert not removal_in_progress(refusal(500, "removal of container 6c28 is already in "
                                                "progress"))
