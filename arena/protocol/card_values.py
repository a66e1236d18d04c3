"""Each card's figures in a game (points, trick strength, rank strength, capture value): the
``CardValues`` of MatchStart, so bots need no card tables of their own.

Every game, built in or added by a plugin, gives its figures as attributes of its ``Game``
(``card_points``, ``points_total``, ``trick_strength``, ``rank_strength``, ``capture_value``:
one int per card id, or None where the game has no such figure); the game module says which
tables its rules use. Each table is checked to cover the whole deck.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.games import Game
from arena.protocol.errors import ProtocolError
from arena.protocol.v1 import agent_pb2 as pb


@dataclass(frozen=True, slots=True)
class CardFigures:
    """A game's figures per card id; an empty tuple where the game has no such figure."""

    points: tuple[int, ...] = ()
    points_total: int = 0
    trick_strength: tuple[int, ...] = ()
    rank_strength: tuple[int, ...] = ()
    capture_value: tuple[int, ...] = ()


PER_CARD_FIELDS = ("trick_strength", "rank_strength", "capture_value")
"""The ``Game`` attributes read as per-card figures besides the card points."""


def _per_card(game: Game, name: str, values: Sequence[int] | None) -> tuple[int, ...]:
    """A per-card table checked against the deck; None is the empty table."""
    if values is None:
        return ()
    table = tuple(int(value) for value in values)
    if len(table) != game.deck.size:
        raise ProtocolError(f"{game.id}: {name} has {len(table)} entries for the "
                            f"{game.deck.size} cards of the {game.deck.name} deck")
    return table


def card_figures(game: Game) -> CardFigures:
    """The figures of every card of ``game``, each table checked to cover the whole deck."""
    return CardFigures(
        points=_per_card(game, "points", game.card_points),
        points_total=game.points_total or 0,
        **{name: _per_card(game, name, getattr(game, name)) for name in PER_CARD_FIELDS},
    )


def card_values_message(game: Game) -> pb.CardValues:
    """The ``CardValues`` of a MatchStart for ``game``."""
    figures = card_figures(game)
    return pb.CardValues(points=figures.points, points_total=figures.points_total,
                         trick_strength=figures.trick_strength,
                         rank_strength=figures.rank_strength,
                         capture_value=figures.capture_value)
