"""A match so far as text, through the project's match display (what ``arena play`` prints).

It is a spectator's view: every card of the unmasked log, as in a replay, never a seat's
observation. With ``colour`` the display's colours are kept as ANSI escape codes.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from arena.cli.console import safe_console
from arena.cli.render import header, match_lines, render_match
from arena.games import State
from arena.match.record import MatchRecord

WIDTH = 120
"""The width the display lays its tables out for."""


def match_text(state: State[Any], policies: Sequence[str], *, colour: bool) -> str:
    """The header and every event line so far; once the match is over, the final scores and
    the result too, as ``arena play`` shows them."""
    game = state.game
    record = MatchRecord(game=game.id, players=game.num_players, params=dict(game.params),
                         seed=state.seed(), actions=tuple(state.history()),
                         policies=tuple(policies),
                         returns=tuple(float(value) for value in state.returns()),
                         rules_version=game.spec.rules_version)
    buffer = io.StringIO()
    console = safe_console(file=buffer, force_terminal=colour, no_color=not colour,
                           width=WIDTH)
    if state.is_terminal():
        render_match(record, console)
    else:
        for line in header(record, game) + match_lines(record, game):
            console.print(line, soft_wrap=True)
    return buffer.getvalue()
