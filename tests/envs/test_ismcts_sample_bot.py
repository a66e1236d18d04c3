"""The sample bot that serves OpenSpiel's ISMCTS through the agent protocol: it passes
``arena bot check`` in every game (a real bot process), and plays a duplicate set like any
other bot folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.agents import BotSeat, PolicySeat
from arena.botkit.check import check_bot
from arena.games import load_game
from arena.match.runner import run_duplicate
from arena.reasons import Reason

BOT = Path(__file__).resolve().parents[2] / "sample_bots" / "python" / "openspiel-ismcts"


@pytest.fixture(autouse=True)
def small_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A short search per decision: the checks are about the protocol, not its strength."""
    monkeypatch.setenv("ISMCTS_BUDGET_MS", "10")


def test_the_ismcts_bot_passes_arena_bot_check_in_every_game() -> None:
    report = check_bot(BOT)
    failed = [line for line in report.lines if line.failed]
    assert report.passed and not failed, report.summary()
    played = [line for line in report.lines if line.check.startswith("legal play ")]
    assert len(played) >= 17


def test_the_ismcts_bot_plays_a_duplicate_set_as_a_bot_folder() -> None:
    game = load_game("briscola", 2)
    result = run_duplicate(game, 7, [BotSeat.from_path(BOT), PolicySeat("heuristic")])
    assert all(reason == Reason.OK for deal in result.deals for reason in deal.reasons)
    assert "ismcts simulations=" in "".join(
        str(record.to_dict()) for record in result.records)
