"""The ``arena remote`` commands against a running service, and ``arena serve`` itself."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner, Result

from arena.cli import app
from tests.interrupts import default_sigint
from tests.server.api.conftest import Service

runner = CliRunner()


def run(service: Service, *args: str, token: str | None = None) -> Result:
    """Run ``arena remote ...`` against the service."""
    env = {"COLUMNS": "200", "ARENA_SERVER": service.address}
    if token is not None:
        env["ARENA_TOKEN"] = token
    return runner.invoke(app, ["remote", *args], env=env)


def register(service: Service, name: str) -> str:
    """Register through the command line; the token it prints."""
    result = run(service, "register", name)
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


def test_register_prints_the_token_once_and_it_works(service: Service) -> None:
    """The token is the only line on stdout, and the other commands take it from ARENA_TOKEN."""
    token = register(service, "alice")
    assert len(token) >= 40 and "\n" not in token
    listed = run(service, "bots", "--json", token=token)
    assert listed.exit_code == 0, listed.output
    assert json.loads(listed.stdout) == {"bots": []}


def test_a_missing_or_bad_token_is_one_error_line(service: Service) -> None:
    """Exit code 2, one line naming the problem, no traceback."""
    missing = run(service, "bots")
    assert missing.exit_code == 2
    assert missing.output.strip().splitlines() == [
        "error: no API token: pass --token or set ARENA_TOKEN (arena remote register NAME "
        "gives one)"]
    bad = run(service, "bots", token="wrong")
    assert bad.exit_code == 2
    [line] = bad.output.strip().splitlines()
    assert line.startswith("error: unknown API token") and "(UNAUTHENTICATED)" in line


def test_submit_a_folder_and_see_it_listed(service: Service, tmp_path: Path) -> None:
    """A folder is packed and uploaded; the bots table shows it with its owner."""
    folder = tmp_path / "mybot"
    folder.mkdir()
    (folder / "Dockerfile").write_text("FROM scratch\n")
    token = register(service, "alice")
    submitted = run(service, "submit", str(folder), token=token)
    assert submitted.exit_code == 0, submitted.output
    assert "bot mybot version 1 built: cardarena-bot/alice-mybot:1" in submitted.stdout
    # the wait for the service's build is shown on stderr (plain lines off a terminal)
    assert "building bot mybot on the service" in submitted.stderr
    assert "built bot mybot on the service in " in submitted.stderr
    listed = run(service, "bots", "--json", token=token)
    [bot] = json.loads(listed.stdout)["bots"]
    assert (bot["name"], bot["owner"]) == ("mybot", "alice")
    other = register(service, "bob")
    refused = run(service, "submit", str(folder), token=other)
    assert refused.exit_code == 2
    assert "belongs to another user" in refused.output and "PERMISSION_DENIED" in refused.output


def test_a_folder_without_a_dockerfile_is_refused_before_upload(service: Service,
                                                                tmp_path: Path) -> None:
    """Nothing is sent; the line says what is missing."""
    token = register(service, "alice")
    result = run(service, "submit", str(tmp_path), token=token)
    assert result.exit_code == 2
    assert "has no Dockerfile" in result.output


def test_a_league_from_creation_to_leaderboard(service: Service, tmp_path: Path) -> None:
    """Create, run, status, watch, replay and leaderboard through the commands."""
    token = register(service, "alice")
    created = run(service, "league", "create", "cli", "--bot", "random", "--bot", "heuristic",
                  "--games", "briscola", token=token)
    assert created.exit_code == 0, created.output
    assert "1 game, 1 match;" in created.stdout
    started = run(service, "league", "run", "cli", token=token)
    assert started.exit_code == 0 and "started" in started.stdout
    assert service.api.servicer.leagues.wait("cli", 120)
    status = json.loads(run(service, "league", "status", "cli", "--json", token=token).stdout)
    assert status["status"]["done"] == 1
    match_id = status["matches"][0]["id"]
    watched = run(service, "watch", match_id, token=token)
    assert watched.exit_code == 0, watched.output
    lines = watched.stdout.strip().splitlines()
    assert lines[0] == f"match {match_id} (briscola): done"
    assert lines[-1].startswith("final: ")
    replayed = run(service, "replay", match_id, "--out", str(tmp_path / "records"), token=token)
    assert replayed.exit_code == 0, replayed.output
    assert sorted(path.name for path in (tmp_path / "records").iterdir()) == [
        "deal-0.json", "deal-1.json"]
    checked = runner.invoke(app, ["replay", str(tmp_path / "records" / "deal-0.json")])
    assert checked.exit_code == 0, checked.output
    board = json.loads(run(service, "leaderboard", "--json", token=token).stdout)
    assert len(board["overall"]) == 2
    assert [(row["faults"], row["forfeits"]) for row in board["overall"]] == [({}, 0)] * 2
    assert [row["sets"] for row in board["overall"]] == [1, 1]
    assert status["status"]["sets"] == {"heuristic (policy)": 1, "random (policy)": 1}
    assert board["overall_note"] == "forfeits scored as loss; no deal left out"
    assert status["status"]["forfeit_policy"] == "loss"
    assert sorted((entry["bot"], entry["forfeits"]) for entry in status["status"]["forfeits"]
                  ) == [("heuristic (policy)", 0), ("random (policy)", 0)]
    table = run(service, "leaderboard", token=token).stdout
    assert "forfeits" in table and "no deal left out" in table


def test_remote_league_create_makes_secret_deals_unless_given_a_seed(service: Service) -> None:
    """Without --seed the service's league is secret; --seed 0 makes it given (field present)."""
    token = register(service, "alice")
    for name, extra, seeds in (("dark", (), "secret"), ("open", ("--seed", "0"), "given")):
        created = run(service, "league", "create", name, "--bot", "random", "--bot",
                      "heuristic", "--games", "briscola", *extra, token=token)
        assert created.exit_code == 0, created.output
        status = json.loads(run(service, "league", "status", name, "--json",
                                token=token).stdout)
        assert status["status"]["seeds"] == seeds
        [match] = status["matches"]
        assert len(match["id"]) == 16 and int(match["id"], 16) >= 0


def test_remote_league_create_takes_a_forfeit_policy(service: Service) -> None:
    """--forfeit-policy stand is kept; an unknown policy is one error line, nothing created."""
    token = register(service, "alice")
    created = run(service, "league", "create", "kept", "--bot", "random", "--bot", "heuristic",
                  "--games", "briscola", "--forfeit-policy", "stand", token=token)
    assert created.exit_code == 0, created.output
    status = json.loads(run(service, "league", "status", "kept", "--json", token=token).stdout)
    assert status["status"]["forfeit_policy"] == "stand"
    bad = run(service, "league", "create", "bad", "--bot", "random", "--bot", "heuristic",
              "--forfeit-policy", "draw", token=token)
    assert bad.exit_code == 2
    assert bad.output.strip().splitlines() == [
        "error: unknown forfeit policy 'draw': choose loss, stand (INVALID_ARGUMENT)"], bad.output
    assert run(service, "league", "status", "bad", token=token).exit_code == 2


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_serve_answers_until_interrupted(tmp_path: Path) -> None:
    """``arena serve`` serves the API on its port and stops cleanly on Ctrl-C."""
    port, web_port = free_port(), free_port()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    server = subprocess.Popen(
        [sys.executable, "-c", "from arena.cli import app; app()", "serve",
         "--db", str(tmp_path / "arena.db"), "--grpc-port", str(port),
         "--web-port", str(web_port)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=default_sigint)
    try:
        deadline = time.monotonic() + 60
        while True:
            result = runner.invoke(app, ["remote", "register", "alice", "--server",
                                         f"127.0.0.1:{port}"])
            if result.exit_code == 0:
                break
            assert server.poll() is None, server.communicate()
            assert time.monotonic() < deadline, result.output
            time.sleep(0.2)
        assert len(result.stdout.strip()) >= 40
    finally:
        server.send_signal(signal.SIGINT)
        _, stderr = server.communicate(timeout=60)
    assert server.returncode == 0, stderr
    assert f"gRPC API on 127.0.0.1:{port}" in stderr
    assert "Traceback" not in stderr


def test_serve_on_a_port_in_use_is_one_error_line(tmp_path: Path) -> None:
    """A taken gRPC port is refused at once, naming the address."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = runner.invoke(app, ["serve", "--db", str(tmp_path / "arena.db"),
                                     "--grpc-port", str(port), "--data", str(tmp_path)])
    assert result.exit_code == 2
    [line] = result.output.strip().splitlines()
    assert line.startswith(f"error: cannot listen on 127.0.0.1:{port}")
