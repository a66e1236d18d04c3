"""JSON-line logs (``arena.telemetry.logs``) and the options' refusals, each one line."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from arena.cli import app

from .scraping import free_port, json_lines

LOGGING = """
import logging, sys
from arena.telemetry.logs import configure_logging, configure_from_env
configure_logging(sys.argv[1])
logging.getLogger("arena.test").info("match ended", extra={
    "match_id": "3f9c0a71d2b84e65", "league": "friday", "bot": "evil\\x1b]0;title\\x07\\u202e",
    "reason": "CRASH"})
logging.getLogger("arena.test").debug("not shown")
try:
    1 / 0
except ZeroDivisionError:
    logging.getLogger("arena.other").exception("it failed")
"""


def run_logging(format_: str) -> subprocess.CompletedProcess[str]:
    """Log two records in a fresh process in the format named."""
    return subprocess.run([sys.executable, "-c", LOGGING, format_], capture_output=True,
                          text=True, timeout=60)


def test_json_lines_carry_the_fields_and_escape_every_control() -> None:
    """Each record is one JSON line with time, level, logger, message and the extras; a
    bot's name with terminal controls stays in the JSON, escaped, and parses back as written."""
    result = run_logging("json")
    assert result.returncode == 0, result.stderr
    first, second = json_lines(result.stderr)
    assert first["level"] == "INFO" and first["logger"] == "arena.test"
    assert first["message"] == "match ended" and first["time"].endswith("Z")
    assert (first["match_id"], first["league"], first["reason"]) == (
        "3f9c0a71d2b84e65", "friday", "CRASH")
    assert first["bot"] == "evil\x1b]0;title\x07\u202e"
    assert "\x1b" not in result.stderr and "\u202e" not in result.stderr
    assert second["level"] == "ERROR" and "ZeroDivisionError" in second["exc_info"]


def test_text_leaves_logging_alone() -> None:
    """With text (the default) nothing is configured: only warnings and up show, as before."""
    result = run_logging("text")
    assert result.returncode == 0
    assert "match ended" not in result.stderr and "it failed" in result.stderr


def test_an_unknown_log_format_is_one_line(tmp_path: Path) -> None:
    """``--log-format yaml`` names the choices, exit code 2."""
    result = CliRunner().invoke(app, ["serve", "--db", str(tmp_path / "a.db"),
                                      "--log-format", "yaml"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "unknown log format 'yaml': choose text, json" in lines[0]


def test_a_metrics_port_in_use_is_one_line(tmp_path: Path) -> None:
    """The service and the worker each refuse a metrics port in use in one line, exit code 2."""
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        commands = [
            ["-c", "from arena.cli import app; app()", "serve", "--db",
             str(tmp_path / "a.db"), "--grpc-port", str(free_port()), "--metrics-port", port],
            ["-m", "arena.cli.worker", "--broker", "redis://127.0.0.1:9/0", "--db",
             str(tmp_path / "b.db"), "--metrics-port", port]]
        started = [subprocess.Popen([sys.executable, *command], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, text=True, env=env)
                   for command in commands]
        results = [(process.communicate(timeout=60)[1], process.returncode)
                   for process in started]
    for stderr, code in results:
        assert code == 2, stderr
        assert stderr.strip().splitlines() == [
            f"error: cannot serve metrics on 127.0.0.1:{port}: Address already in use"]
