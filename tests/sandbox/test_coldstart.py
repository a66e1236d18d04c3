"""The cold start's parts: the stamped command, the stamps it writes, and the figures made of
them (no Docker: the bench's own run is tests/test_bench_sandbox.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.bench.coldstart import (
    STAMP_MARK,
    ColdStarts,
    FloorRun,
    StartTimes,
    inside_stamps,
    stamped_command,
)
from arena.bench.errors import BenchError

MS = 1_000_000


def times(offset: int = 0, inside: tuple[int, int, int] | None = None) -> StartTimes:
    """A start whose marks are 10 ms apart (from ``offset`` ms)."""
    marks = [(offset + 10 * step) * MS for step in range(8)]
    return StartTimes(*marks, inside=inside)


def test_a_python_script_command_is_wrapped() -> None:
    command = stamped_command(("python", "bot.py", "--fast"))
    assert command[:2] == ("python", "-c")
    assert command[3:] == ("bot.py", "--fast")
    assert STAMP_MARK in command[2]


@pytest.mark.parametrize("command", [(), ("python",), ("./bot",), ("python", "-m", "bot")])
def test_other_commands_are_refused_in_one_line(command: tuple[str, ...]) -> None:
    with pytest.raises(BenchError, match="need a Python bot run as `python SCRIPT`"):
        stamped_command(command)


def test_the_wrapper_runs_the_script_as_main_and_writes_ordered_stamps(tmp_path: Path) -> None:
    """The wrapper runs a script as ``python SCRIPT ARGS`` would (``__main__``, its folder on
    the path, its arguments), and the stamps it writes come in order."""
    (tmp_path / "helper.py").write_text("VALUE = 7\n")
    (tmp_path / "bot.py").write_text(
        "import sys\nimport helper\nfrom cardarena_sdk.server import BotServer\n"
        "class Never:\n    def act(self, request):\n        return 1\n"
        "if __name__ == '__main__':\n"
        "    server = BotServer(Never, 'unix:' + sys.argv[1])\n"
        "    server.start()\n    server.stop(0)\n    print(helper.VALUE, sys.argv[1:])\n")
    socket = tmp_path / "s.sock"
    command = stamped_command(("python", str(tmp_path / "bot.py"), str(socket)))
    done = subprocess.run([sys.executable, *command[1:]], capture_output=True, text=True,
                          cwd="/", timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"7 [{str(socket)!r}]"
    stamps = inside_stamps(done.stderr)
    assert stamps is not None
    (up, sdk, listening), (up_cpu, sdk_cpu, listening_cpu) = stamps
    assert up <= sdk <= listening
    assert 0 < up_cpu <= sdk_cpu <= listening_cpu


def test_stamps_are_read_only_from_a_whole_stamp_line() -> None:
    assert inside_stamps(f"noise\n{STAMP_MARK} 1 4 2 5 3 6\n") == ((1, 2, 3), (4, 5, 6))
    assert inside_stamps(f"{STAMP_MARK} 1 2 3\n{STAMP_MARK} 1 x 3 4 5 6\n") is None
    assert inside_stamps("") is None


def test_the_parts_of_a_start_add_up_to_its_time_from_launch() -> None:
    plain = times()
    assert sum(plain.parts().values()) == pytest.approx(plain.from_launch())
    assert plain.from_create() == pytest.approx(0.06)
    assert plain.from_start() == pytest.approx(0.05)
    stamped = times(inside=(32 * MS, 40 * MS, 47 * MS))
    stamped.inside_cpu = (20 * MS, 26 * MS, 30 * MS)
    assert stamped.cpu_parts() == pytest.approx({
        "interpreter start (to the first line)": 0.02, "SDK imports": 0.006,
        "bot code to listening (server, socket)": 0.004})
    assert plain.cpu_parts() is None
    parts = stamped.parts()
    assert sum(parts.values()) == pytest.approx(stamped.from_launch())
    assert parts["SDK imports"] == pytest.approx(0.008)
    assert parts["interpreter start (to the first line)"] == pytest.approx(0.002)
    assert "start to channel ready" not in parts


def test_the_report_gives_medians_and_the_ratio_to_the_floor() -> None:
    starts = ColdStarts(plain=[times(), times(), times()],
                        stamped=[times(inside=(32 * MS, 40 * MS, 47 * MS))] * 3,
                        floor=[FloorRun(0.01, 0.015, 0.03, 0.02)] * 3)
    report = starts.report()
    assert report["cold_start_p50_s"] == 0.06
    assert report["floor_p50_s"] == 0.03
    assert report["floor_ratio"] == 2.0
    assert report["floor_ratio_from_start"] == 2.5
    assert report["over_floor_p50_s"] == 0.03
    assert report["stamped_cold_start_p50_s"] == 0.06
    assert report["parts_s"]["SDK imports"] == 0.008
    assert report["floor_parts_s"]["start to exit"] == 0.005


def test_a_report_without_starts_is_refused() -> None:
    with pytest.raises(BenchError, match="no cold start was measured"):
        ColdStarts().report()
