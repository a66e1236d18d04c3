"""docs/envs.md: its example runs as written, and its table of sizes is the code's."""

from __future__ import annotations

import re
from pathlib import Path

from arena.bridges.actions import num_actions
from arena.bridges.tensors import layout
from arena.games import load_game
from arena.games.registry import all_configurations

DOC = Path(__file__).resolve().parents[2] / "docs" / "envs.md"
SIZE_ROW = re.compile(r"^\| `([a-z0-9-]+)` \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$", re.M)


def python_blocks(text: str) -> list[str]:
    """The fenced ``python`` blocks of a Markdown text."""
    return re.findall(r"```python\n(.*?)```", text, re.S)


def test_the_example_runs_as_written(capsys) -> None:  # type: ignore[no-untyped-def]
    """Every python block of the page runs, and the example prints the match and the totals."""
    blocks = python_blocks(DOC.read_text("utf-8"))
    assert blocks
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), {"__name__": "__doc_example__"})
    printed = capsys.readouterr().out
    assert "Briscola · briscola · 4 seats · seed 7" in printed
    assert "Final scores" in printed
    assert "'player_0'" in printed


def test_the_table_of_sizes_is_the_codes() -> None:
    """Each row (game id, seats, deck, vector length, actions) matches, every configuration
    (parameters too) has its row, and no row is left over."""
    rows = {(game_id, int(seats)): (int(deck), int(length), int(actions))
            for game_id, seats, deck, length, actions in SIZE_ROW.findall(DOC.read_text("utf-8"))}
    covered = set()
    for game_id, seats, params in all_configurations():
        game = load_game(game_id, seats, params)
        assert rows.get((game_id, seats)) == (game.deck.size, layout(game).size,
                                              num_actions(game)), (game_id, seats, params)
        covered.add((game_id, seats))
    assert set(rows) == covered
