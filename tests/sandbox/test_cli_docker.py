"""The command line with Docker bots: ``arena play`` and ``arena bot check`` with ``image:NAME``
and ``--sandbox docker``, ``arena bot build``, ``arena sandbox gc``, and one clear line for
every Docker problem (no engine, no image, a failed build) while process bots keep working."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from arena.cli import app
from arena.sandbox import labels
from arena.sandbox.engine import docker_client
from arena.sandbox.limits import RUNTIME_ENV, SandboxLimits, container_options
from arena.sandbox.socketdir import SocketDir

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_RANDOM = ROOT / "sample_bots" / "python" / "random"

runner = CliRunner()


def run(*args: str) -> Result:
    """Invoke the command line in-process."""
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


def stderr_lines(result: Result) -> list[str]:
    """The non-empty lines the command wrote on stderr."""
    return [line for line in result.stderr.splitlines() if line.strip()]


@pytest.fixture
def sockets_under(leftovers: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Put every temporary folder (the seats' socket folders) under the checked short root."""
    monkeypatch.setattr(tempfile, "tempdir", str(leftovers))
    yield leftovers


@pytest.fixture
def random_image(bot_image: Any) -> Any:
    """The random sample bot's image."""
    return bot_image(SAMPLE_RANDOM)


def test_play_with_an_image_records_its_id(random_image: Any, sockets_under: Path) -> None:
    played = run("play", "briscola", "--bot", f"image:{random_image.ref}", "--policy", "random",
                 "--seed", "3", "--json")
    assert played.exit_code == 0, played.output
    record = json.loads(played.stdout)
    agent = record["seats"][0]["agent"]
    assert agent["kind"] == "docker"
    assert agent["image"] == random_image.ref
    assert agent["image_id"] == random_image.image_id
    assert agent["ready"]["bot_name"] == "random"
    assert record["reasons"] == ["OK", "OK"]
    assert record["policies"] == ["random (docker)", "random"]


def test_play_a_folder_with_sandbox_docker_runs_its_built_image(
        random_image: Any, sockets_under: Path) -> None:
    played = run("play", "briscola", "--policy", "heuristic", "--bot", str(SAMPLE_RANDOM),
                 "--sandbox", "docker", "--json")
    assert played.exit_code == 0, played.output
    record = json.loads(played.stdout)
    agent = record["seats"][1]["agent"]
    assert (agent["kind"], agent["image"], agent["image_id"]) == (
        "docker", random_image.ref, random_image.image_id)
    assert record["policies"] == ["heuristic", "random (docker)"]


def test_bot_check_of_the_random_bot_as_a_docker_bot(random_image: Any,
                                                     sockets_under: Path) -> None:
    checked = run("bot", "check", f"image:{random_image.ref}", "--game", "briscola",
                  "--game", "scopa", "--json")
    assert checked.exit_code == 0, checked.output
    report = json.loads(checked.stdout)
    assert report["passed"] and report["name"] == "random"
    assert [line["check"] for line in report["checks"]] == [
        "manifest", "start-up", "handshake", "legal play briscola", "legal play scopa",
        "deadlines", "clean shutdown"]
    assert random_image.ref in report["checks"][0]["detail"]


def test_bot_check_of_a_folder_with_sandbox_docker_adds_the_image_line(
        random_image: Any, sockets_under: Path) -> None:
    checked = run("bot", "check", str(SAMPLE_RANDOM), "--sandbox", "docker",
                  "--game", "briscola")
    assert checked.exit_code == 0, checked.output
    lines = checked.stdout.splitlines()
    assert lines[0].startswith("PASS manifest (random 1.0.0, python, 1 game)")
    assert lines[1].startswith(f"PASS image ({random_image.ref} (sha256:")
    assert lines[-1] == "bot random: all 7 checks passed"


@pytest.mark.docker
@pytest.mark.parametrize("command", [("play", "briscola", "--bot"), ("bot", "check")])
def test_an_image_that_does_not_exist_is_one_line(command: tuple[str, ...]) -> None:
    result = run(*command, "image:cardarena-bot/does-not-exist:0")
    assert result.exit_code == 2
    assert stderr_lines(result) == [
        "error: no Docker image cardarena-bot/does-not-exist:0 on this machine; build it "
        "with `arena bot build PATH`"]
    assert result.stdout == ""


@pytest.mark.docker
def test_bot_build_prints_the_tag_and_the_image_id(random_image: Any) -> None:
    built = run("bot", "build", str(SAMPLE_RANDOM))
    assert built.exit_code == 0, built.output
    assert built.stdout.splitlines() == [
        f"built {random_image.ref} {random_image.image_id}",
        f"next: arena bot check image:{random_image.ref}"]
    # built already (the fixture): every step is in Docker's cache, so no build is shown
    assert not [line for line in stderr_lines(built)
                if line.startswith(("building", "  Step", "built bot"))], built.stderr


def failing_bot(folder: Path) -> Path:
    """A bot folder whose Dockerfile fails at its RUN step, saying why."""
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "broken"\nversion = "0.1"\nlanguage = "python"\n'
                                     'command = ["python", "bot.py"]\n', encoding="utf-8")
    (folder / "Dockerfile").write_text(
        "ARG BASE=cardarena/python-base\nFROM ${BASE}\n"
        "RUN echo 'no such package: cards-galore' && exit 3\n", encoding="utf-8")
    return folder


def error_and_after(lines: list[str]) -> tuple[list[str], list[str]]:
    """The lines before the ``error:`` line (the build's steps), and it with those after."""
    index = next(number for number, line in enumerate(lines) if line.startswith("error: "))
    return lines[:index], lines[index:]


def test_a_failed_build_is_one_line_and_the_log_excerpt(base_image: str,
                                                        tmp_path: Path) -> None:
    folder = failing_bot(tmp_path / "broken")
    built = run("bot", "build", str(folder))
    assert built.exit_code == 1
    steps, excerpt = error_and_after(stderr_lines(built))
    assert steps[0] == "building bot broken" and steps[1].startswith("  Step 1/")
    error = excerpt[0]
    assert error.startswith("error: bot broken: the build failed at the Dockerfile's line ")
    assert "returned a non-zero code: 3" in error
    assert "  no such package: cards-galore" in excerpt[1:]
    played = run("play", "briscola", "--bot", str(folder), "--sandbox", "docker")
    assert played.exit_code == 1
    assert error_and_after(stderr_lines(played))[1][0] == error
    checked = run("bot", "check", str(folder), "--sandbox", "docker")
    assert checked.exit_code == 1
    assert checked.stdout.splitlines()[1].startswith("FAIL image: bot broken: the build failed")


def test_a_folder_without_a_dockerfile_is_bad_input(tmp_path: Path) -> None:
    folder = failing_bot(tmp_path / "broken")
    (folder / "Dockerfile").unlink()
    built = run("bot", "build", str(folder))
    assert built.exit_code == 2
    assert stderr_lines(built) == [f"error: bot broken: no Dockerfile in {folder}; "
                                   "see docs/sandbox.md"]


@pytest.fixture
def no_docker(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A machine without a Docker engine: the client finds no daemon at DOCKER_HOST."""
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    docker_client.cache_clear()
    yield
    docker_client.cache_clear()


def test_without_docker_a_docker_bot_is_one_line_and_process_bots_play(
        no_docker: None) -> None:
    for args in (("play", "briscola", "--bot", "image:cardarena-bot/random:1.0.0"),
                 ("play", "briscola", "--bot", str(SAMPLE_RANDOM), "--sandbox", "docker"),
                 ("bot", "check", "image:cardarena-bot/random:1.0.0"),
                 ("bot", "build", str(SAMPLE_RANDOM)),
                 ("sandbox", "gc"),
                 ("images", "build-base"),
                 ("bench", "sandbox")):
        result = run(*args)
        assert result.exit_code == 2, args
        lines = stderr_lines(result)
        assert len(lines) == 1, lines
        assert lines[0].startswith("error: Docker is not available on this machine: ") or (
            lines[0].startswith("error: Docker bots need the docker package"))
    played = run("play", "briscola", "--bot", str(SAMPLE_RANDOM), "--policy", "random",
                 "--json")
    assert played.exit_code == 0, played.output
    assert json.loads(played.stdout)["seats"][0]["agent"]["kind"] == "bot"


def test_unknown_limit_names_and_sandboxes_are_bad_input() -> None:
    allowed = run("play", "briscola", "--bot", str(SAMPLE_RANDOM), "--allow-unenforced",
                  "memory,wings")
    assert allowed.exit_code == 2
    assert stderr_lines(allowed)[0].startswith("error: --allow-unenforced: unknown limit "
                                               "wings; the limits are network, ")
    sandbox = run("bot", "check", str(SAMPLE_RANDOM), "--sandbox", "vm")
    assert sandbox.exit_code == 2
    assert stderr_lines(sandbox) == ["error: unknown sandbox 'vm'; choose process or docker"]


def dead_pid() -> int:
    """The pid of a process that has exited."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_sandbox_gc_removes_a_container_whose_arena_is_gone(
        docker_required: Any, base_image: str, leftovers: Path) -> None:
    from docker.errors import NotFound

    folder = SocketDir.create(10001, 10001, leftovers)
    container = docker_required.containers.create(
        base_image, command=["true"], name=f"cardarena-gc-test-{uuid.uuid4().hex[:8]}",
        labels={labels.SANDBOX: "1", labels.ARENA_HOST: socket.gethostname(),
                labels.ARENA_PID: str(dead_pid()), labels.SOCKET_DIR: str(folder.outer)})
    try:
        collected = run("sandbox", "gc", "--json")
    finally:
        with contextlib.suppress(NotFound):
            container.remove(force=True)
    assert collected.exit_code == 0, collected.output
    report = json.loads(collected.stdout)
    assert container.name in report["removed"]
    assert str(folder.outer) in report["socket_dirs"]
    assert not folder.outer.exists()
    assert report["errors"] == []
    again = run("sandbox", "gc")
    assert again.exit_code == 0
    assert container.name not in again.stdout


def test_a_limit_the_engine_does_not_enforce_is_refused_unless_allowed(
        random_image: Any, sockets_under: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The probe's finding is replaced by a missing swap limit; the flag names it."""
    from arena.sandbox import probe

    monkeypatch.setattr(probe, "missing_limits",
                        lambda image, limits=None: {"memory_swap": "no swap accounting"})
    refused = run("play", "briscola", "--bot", f"image:{random_image.ref}")
    assert refused.exit_code == 2
    assert stderr_lines(refused) == [
        "error: the Docker engine does not enforce: memory_swap (no swap accounting); "
        "untrusted bots cannot run here (for trusted bots, --allow-unenforced memory_swap "
        "runs them anyway)"]
    allowed = run("play", "briscola", "--bot", f"image:{random_image.ref}",
                  "--allow-unenforced", "memory_swap", "--json")
    assert allowed.exit_code == 0, allowed.output
    assert json.loads(allowed.stdout)["reasons"] == ["OK", "OK"]


@pytest.fixture(scope="module")
def silent_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bot folder whose container says one line and never creates its socket."""
    folder = tmp_path_factory.mktemp("silent") / "silent"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "cli-silent"\nversion = "0.1"\n'
                                     'language = "python"\ncommand = ["python", "bot.py"]\n',
                                     encoding="utf-8")
    (folder / "Dockerfile").write_text(
        "ARG BASE=cardarena/python-base\nFROM ${BASE}\n"
        'CMD ["sh", "-c", "echo thinking about it; exec sleep 60"]\n', encoding="utf-8")
    return folder


def test_a_container_that_never_creates_its_socket_forfeits_with_init_error(
        bot_image: Any, silent_folder: Path, sockets_under: Path) -> None:
    image = bot_image(silent_folder)
    played = run("play", "briscola", "--bot", f"image:{image.ref}", "--policy", "random",
                 "--startup-ms", "1500", "--json")
    assert played.exit_code == 1
    assert json.loads(played.stdout)["reasons"] == ["INIT_ERROR", "OK"]
    line, = stderr_lines(played)
    assert line.startswith("seat 0 cli-silent (docker): INIT_ERROR: the bot did not create "
                           "its socket within 1.5 s; its log ends: ")
    assert "thinking about it" in line
    checked = run("bot", "check", f"image:{image.ref}", "--game", "briscola",
                  "--startup-ms", "1500")
    assert checked.exit_code == 1
    assert "FAIL start-up: the bot did not create its socket within 1.5 s" in checked.stdout
    assert "SKIP clean shutdown: the bot did not start" in checked.stdout


@pytest.mark.docker
def test_a_runtime_the_engine_lacks_is_one_line_naming_the_ones_it_has(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(RUNTIME_ENV, "")  # restored at the end, whatever the command sets
    result = run("--runtime", "no-such-runtime", "play", "briscola", "--policy", "random",
                 "--policy", "random")
    assert result.exit_code == 2
    [line] = stderr_lines(result)
    assert line.startswith("error: Invalid value for '--runtime': the Docker engine has no "
                           "runtime 'no-such-runtime' (it has "), line
    assert "runc" in line and os.environ[RUNTIME_ENV] == ""


def test_the_runtime_reaches_the_container_options_and_the_records(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``CARDARENA_DOCKER_RUNTIME`` (set by ``--runtime``) is every container's runtime and
    is named in the limits a record keeps; unset, neither says anything of a runtime."""
    monkeypatch.setenv(RUNTIME_ENV, "")
    default = SandboxLimits()
    assert "runtime" not in container_options("img", default, tmp_path, {})
    assert "runtime" not in default.to_dict()
    monkeypatch.setenv(RUNTIME_ENV, "runc")
    chosen = SandboxLimits()
    assert container_options("img", chosen, tmp_path, {})["runtime"] == "runc"
    assert chosen.to_dict()["runtime"] == "runc"


def test_play_with_the_runtime_named_runs_and_records_it(
        random_image: Any, sockets_under: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--runtime runc`` (the engine's default runtime, named): the match plays, the probe
    passes with it, and the record names it."""
    monkeypatch.setenv(RUNTIME_ENV, "")  # restored at the end: the command sets it
    played = run("--runtime", "runc", "play", "briscola", "--bot", f"image:{random_image.ref}",
                 "--policy", "random", "--seed", "3", "--json")
    assert played.exit_code == 0, played.output
    record = json.loads(played.stdout)
    assert record["seats"][0]["agent"]["limits"]["runtime"] == "runc"
    assert record["reasons"] == ["OK", "OK"]
