"""Bots that flood the arena from a container: each is stopped with a fault, and the arena's
peak memory (the kernel's high-water mark) stays within 100 MiB of where it was.

The flooder is ``arena/sandbox/audit/flood.py`` run by the base image in the sandbox's
container; it sits beside a process bot that thinks 50 ms a decision, so that the arena is
mostly not reading from the flooder while it floods.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from agents.botkit import make_bot
from agents.measure import MIB, peak_rss

from arena.agents.output import OUTPUT_CAP
from arena.agents.seats import BotSeat, DockerSeat
from arena.games import load_game
from arena.match.faults import FaultKind
from arena.match.runner import run_deal
from arena.match.timecontrol import TimeControl
from arena.sandbox import audit
from arena.sandbox.images import BASE_IMAGE, inspect_bot_image
from arena.sandbox.limits import SandboxLimits

BRISCOLA = load_game("briscola")
CONTROL = TimeControl(decision_ms=1000, bank_ms=3000, startup_ms=60_000, ready_ms=10_000)
MEMORY_BOUND = 100 * MIB
METADATA = r"the bot sent header or trailer metadata larger than the 16384 byte limit"
CASES = {
    "unsolicited": ("INVALID", FaultKind.FLOOD,
                    r"the bot sent more than 4 responses it was not asked for; its stream was "
                    r"stopped"),
    "metadata": ("INVALID", FaultKind.OVERSIZED, METADATA + " before Ready"),
    "trailers": ("INVALID", FaultKind.OVERSIZED, METADATA),
    "details": ("INVALID", FaultKind.OVERSIZED, METADATA),
    "compressed": ("INVALID", FaultKind.OVERSIZED,
                   r"the bot sent a message larger than the 65536 byte limit"),
}


@pytest.mark.docker
@pytest.mark.parametrize("mode", [*CASES, "output"])
def test_a_flooding_container_is_stopped_and_the_arena_stays_small(
        mode: str, base_image: str, tmp_path: Path, short_root: Path) -> None:
    flooder = DockerSeat(inspect_bot_image(BASE_IMAGE), SandboxLimits(), short_root,
                         command=audit.command("flood", mode))
    thinker = BotSeat.from_path(make_bot(tmp_path / "thinker", "--sleep-ms", "50",
                                         name="thinker"), short_root)
    with peak_rss() as memory:
        deal = run_deal(BRISCOLA, 3, [thinker, flooder], CONTROL)
    assert memory.growth < MEMORY_BOUND, f"the arena grew by {memory.growth / MIB:.0f} MiB"
    record = deal.record
    assert record is not None and record.conduct is not None
    report = record.conduct.seats[1]
    assert deal.reason_names[0] == "OK"
    if mode == "output":
        assert report.reason == "OK" and not deal.faults
        header, _, kept = report.stderr.partition("\n")
        assert re.fullmatch(r"\[\d+ earlier bytes dropped\]", header), header
        assert "flood: ooo" in kept and len(kept.encode()) <= OUTPUT_CAP
    else:
        reason, kind, detail = CASES[mode]
        assert report.reason == reason
        kinds = [fault.kind for fault in deal.faults]
        assert kinds[-1] == kind, kinds
        # Unsolicited answers read at the flooder's decision before the flood limit was
        # reached are stale strikes: how many depends on how fast it got them out.
        assert set(kinds[:-1]) <= ({FaultKind.STALE} if mode == "unsolicited" else set()), kinds
        assert re.fullmatch(detail, report.detail), report.detail
    assert list(short_root.iterdir()) == []
