"""Bots that flood the arena, as local processes: every buffer they can fill is bounded.

Each bot folder is written by the test and runs ``arena/sandbox/audit/flood.py`` (a raw gRPC
server) in one mode: messages nobody asked for, oversized header or trailer metadata, a
multi-megabyte status text, a compression bomb, or a torrent of standard error. It sits
beside a bot that thinks 50 ms a decision, so that most of the time the arena is not reading
from the flooder (and an unbounded buffer would grow all that time). Every test checks the
flooder's verdict, that the arena's peak memory (the kernel's high-water mark) rose less than
100 MiB above where it was, and that the thinker ended OK; one test measures a well-behaved
bot's decision times beside each flooder against beside a quiet bot. A last test checks the
silent probe that judges a stream whose status gRPC lost as the arena wrote to it.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from agents.botkit import SAMPLE_RANDOM, KeptBotSeat, make_bot
from agents.measure import MIB, p50_p99, peak_rss, seat_times_us

from arena.agents import LocalProcessAgent
from arena.agents.process import OUTPUT_BURST, OUTPUT_RATE
from arena.agents.remote import MAX_MESSAGE_BYTES, PROBE_S, connect_bot
from arena.agents.stream import StreamEnd
from arena.agents.transport import probe_end
from arena.games import load_game
from arena.match.faults import FaultKind
from arena.match.runner import run_deal
from arena.match.timecontrol import TimeControl
from arena.sandbox import audit

FLOOD = Path(audit.__file__).with_name("flood.py")
BRISCOLA = load_game("briscola")
SEED = 11
CONTROL = TimeControl(decision_ms=500, bank_ms=2000, startup_ms=10_000, ready_ms=10_000)
MEMORY_BOUND = 100 * MIB
FLOOD_FAULT, OVERSIZED = FaultKind.FLOOD, FaultKind.OVERSIZED
METADATA = r"the bot sent header or trailer metadata larger than the 16384 byte limit"


def flood_bot(folder: Path, mode: str) -> Path:
    """A bot folder that runs the flood script in ``mode``."""
    folder.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, str(FLOOD), mode]
    (folder / "bot.toml").write_text(
        f'name = "flood-{mode}"\nversion = "0.1"\nlanguage = "python"\n'
        f'command = {json.dumps(command)}\ngames = ["*"]\n', encoding="utf-8")
    return folder


def thinker(tmp_path: Path, temp_root: Path) -> KeptBotSeat:
    """A well-behaved bot that takes 50 ms a decision."""
    return KeptBotSeat(make_bot(tmp_path / "thinker", "--sleep-ms", "50", name="thinker"),
                       temp_root)


@dataclass(frozen=True)
class Case:
    """A flood mode and its verdict."""

    mode: str
    reason: str
    faults: tuple[FaultKind, ...]
    detail: str


CASES = [
    Case("unsolicited", "INVALID", (FLOOD_FAULT,),
         r"the bot sent more than 4 responses it was not asked for; its stream was stopped"),
    Case("metadata", "INVALID", (OVERSIZED,), METADATA + " before Ready"),
    Case("trailers", "INVALID", (OVERSIZED,), METADATA),
    Case("details", "INVALID", (OVERSIZED,), METADATA),
    Case("compressed", "INVALID", (OVERSIZED,),
         r"the bot sent a message larger than the 65536 byte limit"),
]


@pytest.mark.parametrize("case", CASES, ids=[case.mode for case in CASES])
def test_a_flooding_bot_is_stopped_with_a_fault_and_the_arena_stays_small(
        case: Case, tmp_path: Path, temp_root: Path, transport: str) -> None:
    hostile = KeptBotSeat(flood_bot(tmp_path / case.mode, case.mode), temp_root)
    with peak_rss() as memory:
        deal = run_deal(BRISCOLA, SEED, [thinker(tmp_path, temp_root), hostile], CONTROL)
    assert memory.growth < MEMORY_BOUND, f"the arena grew by {memory.growth / MIB:.0f} MiB"
    record = deal.record
    assert record is not None and record.conduct is not None
    report = record.conduct.seats[1]
    assert deal.reason_names == ("OK", case.reason)
    assert [fault.kind for fault in deal.faults] == list(case.faults)
    assert re.fullmatch(case.detail, report.detail), report.detail
    assert len(report.detail) < 300
    assert list(temp_root.iterdir()) == []


def test_a_flood_of_output_is_read_no_faster_than_the_rate(tmp_path: Path,
                                                           temp_root: Path) -> None:
    hostile = KeptBotSeat(flood_bot(tmp_path / "output", "output"), temp_root)
    started = time.monotonic()
    with peak_rss() as memory:
        deal = run_deal(BRISCOLA, SEED, [thinker(tmp_path, temp_root), hostile], CONTROL)
    elapsed = time.monotonic() - started
    assert memory.growth < MEMORY_BOUND, f"the arena grew by {memory.growth / MIB:.0f} MiB"
    assert deal.reason_names == ("OK", "OK")
    (agent,) = hostile.agents
    assert isinstance(agent, LocalProcessAgent)
    read = sum(dropped + len(text.encode()) for dropped, text in map(split_dropped,
                                                                     agent.output_windows()))
    assert read > 0
    assert read <= OUTPUT_BURST + OUTPUT_RATE * elapsed + MIB, (read, elapsed)


def split_dropped(text: str) -> tuple[int, str]:
    """A window's count of dropped bytes and its kept text."""
    found = re.match(r"\[(\d+) earlier bytes dropped\]\n", text)
    return (int(found[1]), text[found.end():]) if found else (0, text)


def test_a_bot_beside_a_flooder_decides_as_fast_as_beside_a_quiet_bot(
        tmp_path: Path, temp_root: Path) -> None:
    neighbours = {"quiet": SAMPLE_RANDOM, "unsolicited": flood_bot(tmp_path / "u", "unsolicited"),
                  "output": flood_bot(tmp_path / "o", "output")}
    times: dict[str, list[int]] = {name: [] for name in neighbours}
    for seed in (SEED, SEED + 1, SEED + 2):  # interleaved, so the machine's load hits all alike
        for name, other in neighbours.items():
            deal = run_deal(BRISCOLA, seed, [KeptBotSeat(SAMPLE_RANDOM, temp_root),
                                             KeptBotSeat(other, temp_root)], CONTROL)
            assert deal.reason_names[0] == "OK"
            assert deal.record is not None
            times[name] += seat_times_us(deal.record, BRISCOLA, seed, 0)
    figures = {name: p50_p99(values) for name, values in times.items()}
    quiet_p50, quiet_p99 = figures["quiet"]
    print({name: f"p50 {p50 / 1000:.2f} ms, p99 {p99 / 1000:.2f} ms"
           for name, (p50, p99) in figures.items()})
    for name in ("unsolicited", "output"):
        p50, p99 = figures[name]
        assert p50 <= quiet_p50 * 3 + 20_000, (name, figures)
        assert p99 <= quiet_p99 * 3 + 100_000, (name, figures)


@pytest.mark.parametrize("mode, ends", [("metadata", True), ("trailers", False)])
def test_a_silent_probe_learns_how_a_bot_ends_a_stream_at_once(mode: str, ends: bool,
                                                               temp_root: Path,
                                                               transport: str) -> None:
    """The probe the arena opens when gRPC lost a stream's status (``probe_end``): a bot that
    sends oversized metadata as the stream opens is caught by it, one that waits is not."""
    address = f"unix:{temp_root / 'bot.sock'}"
    env = {**os.environ, "CARDARENA_ADDRESS": address}
    bot = subprocess.Popen([sys.executable, str(FLOOD), mode], env=env)
    try:
        end = asyncio.run(probe(address))
    finally:
        bot.terminate()
        bot.wait(10)
    if ends:
        assert end is not None and end.code == grpc.StatusCode.RESOURCE_EXHAUSTED, end
        assert "metadata size" in end.details and end.oversized_metadata
    else:
        assert end is None


async def probe(address: str) -> StreamEnd | None:
    """``probe_end`` on a channel to ``address`` (the transport chosen), once the bot
    listens."""
    channel = connect_bot(address, MAX_MESSAGE_BYTES)
    try:
        await asyncio.wait_for(channel.channel_ready(), 20)
        return await probe_end(channel, PROBE_S)
    finally:
        await channel.close()
