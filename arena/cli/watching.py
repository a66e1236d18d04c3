"""``arena remote watch`` as ``arena play`` shows a match: the updates of a watched match
turned into the same lines (cards with their suit symbols, tricks with their winners, hands
and scores), a deal at a time.

While the match runs, each play is shown as soon as it comes (its trick follows when it is
taken); the full deals after the end read exactly as ``arena play`` prints them.
"""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text

from arena.cli.render import CAPTURE_NOTES, EventPrinter
from arena.games import Event, EventKind, Game, load_game
from arena.match.safetext import safe_text
from arena.match.timeline import Step
from arena.protocol.platform import match_state_name
from arena.protocol.schema import platform as pb

VIEW_NAMES = {pb.WATCH_VIEW_PUBLIC: "public view", pb.WATCH_VIEW_SEAT: "your bot's seat",
              pb.WATCH_VIEW_FULL: "every hand"}
"""How each view of a deal is named in its heading."""


def match_params(params_json: str) -> dict[str, Any]:
    """A match's parameters from ``MatchInfo.params_json`` (anything but a JSON object: none)."""
    try:
        params = json.loads(params_json or "{}")
    except ValueError:
        return {}
    return params if isinstance(params, dict) else {}


def watched_game(game_id: str, players: int | None, params_json: str) -> Game | None:
    """The match's game with its parameters; with the game's defaults when this client does
    not know a parameter (cards are named alike); None for a game it does not know."""
    for params in (match_params(params_json), {}):
        try:
            return load_game(game_id, players, params)
        except ValueError:
            continue
    return None


class WatchPrinter:
    """Turns the updates of ``WatchMatch`` into display lines."""

    def __init__(self) -> None:
        """Nothing seen yet."""
        self.game: Game | None = None
        self.printer: EventPrinter | None = None
        self.deal: tuple[int, int] | None = None
        """The deal and view the printer follows."""
        self.last_index = -1

    def lines(self, update: Any) -> list[Text]:
        """The lines one update adds."""
        kind = update.WhichOneof("update")
        if kind == "match":
            return self._match(update.match)
        if kind == "event":
            return self._event(update.event)
        return [*self._finish(), self._outcome(update.outcome)]

    def _match(self, info: Any) -> list[Text]:
        """A line for the match's state; the game it plays (with its parameters), for naming
        cards."""
        if self.game is None:
            self.game = watched_game(info.game, len(info.entrants) or None, info.params_json)
        return [Text(safe_text(f"match {info.id} ({info.game}): "
                               f"{match_state_name(info.state)}"))]

    def _event(self, event: Any) -> list[Text]:
        """The lines of one event, under a heading when a deal (or its view) starts."""
        lines: list[Text] = []
        key = (event.deal, event.view)
        if self.printer is None or key != self.deal or event.index <= self.last_index:
            lines += self._finish()
            lines += [Text(), Text(f"Deal {event.deal + 1} · {VIEW_NAMES.get(event.view, '')}",
                               style="bold underline")]
            self.printer = self._new_printer()
            self.deal = key
        self.last_index = event.index
        if self.printer is None:
            raw = f"  {event.kind} seat {event.seat} {list(event.cards)}"
            return [*lines, Text(safe_text(raw))]
        kind = EventKind[event.kind] if event.kind in EventKind.__members__ else None
        if kind is None:
            return [*lines, Text(safe_text(f"  {event.kind}"))]
        step = Step(Event(kind, event.seat, tuple(event.cards), tuple(event.values)),
                    actor=event.seat if event.action else None, label=event.action or None)
        lines += self.printer.feed(step)
        if event.view != pb.WATCH_VIEW_FULL:
            lines += self.printer.finish()
        return lines

    def _new_printer(self) -> EventPrinter | None:
        """A printer for the match's game, or None when the game is unknown here."""
        if self.game is None:
            return None
        return EventPrinter(self.game.deck, self.game.teams(), CAPTURE_NOTES.get(self.game.id))

    def _finish(self) -> list[Text]:
        """Lines the current deal still holds back."""
        if self.printer is None:
            return []
        lines = self.printer.finish()
        self.printer = None
        self.deal = None
        self.last_index = -1
        return lines

    def _outcome(self, outcome: Any) -> Text:
        """The last line: each entrant's total, or why the match is void."""
        if outcome.state == pb.MATCH_STATE_VOID:
            return Text(safe_text(f"void: {outcome.reason}"), style="bold")
        scores = safe_text(" · ".join(f"{name} {value:+g}" for name, value in
                            zip(outcome.entrants, outcome.total_returns, strict=False)))
        return Text(f"final: {scores}", style="bold")
