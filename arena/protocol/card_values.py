"""Each card's figures in a game (points, trick strength, rank strength, capture value): the
``CardValues`` of MatchStart, so bots need no card tables of their own.

Card points come from the game (``Game.card_points``, ``Game.points_total``). The other figures
are the engine's own tables, by game id: the briscola order in the briscola games and Madrasso,
the tressette order in the tressette games, the chosen rank order in Misère and Presidente, the
capture values in Scopa and Scopone. A game added by a plugin gives them, where it has them, as
attributes of its ``Game`` named like the fields (``trick_strength``, ``rank_strength``,
``capture_value``: one int per card id); without them the lists stay empty.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.games import Game
from arena.games.cards import BRISCOLA_STRENGTH, SCOPA_VALUE, TRESSETTE_STRENGTH
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


def _briscola_order(game: Game) -> CardFigures:
    """Tricks in briscola order: A 3 R C F 7 6 5 4 2."""
    return CardFigures(trick_strength=game.deck.per_card(BRISCOLA_STRENGTH))


def _tressette_order(game: Game) -> CardFigures:
    """Tricks in tressette order: 3 2 A R C F 7 6 5 4."""
    return CardFigures(trick_strength=game.deck.per_card(TRESSETTE_STRENGTH))


def _misere(game: Game) -> CardFigures:
    """Tricks in the rank order the parameter ``rank_order`` chooses."""
    from arena.games.misere import STRENGTHS

    return CardFigures(trick_strength=tuple(STRENGTHS[str(game.params["rank_order"])]))


def _presidente(game: Game) -> CardFigures:
    """No tricks: sets climb by the rank order the parameter ``rank_order`` chooses."""
    from arena.games.presidente import PresidenteGame

    if not isinstance(game, PresidenteGame):
        raise ProtocolError(f"{game.id}: expected a Presidente game, got {type(game).__name__}")
    return CardFigures(rank_strength=game.deck.per_card(game.strength))


def _scopa(game: Game) -> CardFigures:
    """No tricks: cards capture by their value, ace 1 ... king 10."""
    return CardFigures(capture_value=game.deck.per_card(SCOPA_VALUE))


def _nothing(game: Game) -> CardFigures:
    """No tricks, no captures, no ranking (Vecchia)."""
    return CardFigures()


BUILTIN_FIGURES: dict[str, Callable[[Game], CardFigures]] = {
    "briscola": _briscola_order,
    "briscola-31": _briscola_order,
    "briscola-chiamata": _briscola_order,
    "briscola-chiamata-carta": _briscola_order,
    "briscola-chiamata-punti": _briscola_order,
    "briscola-chiamata-morto": _briscola_order,
    "briscola-chiamata-due-mazzi": _briscola_order,
    "madrasso": _briscola_order,
    "tressette": _tressette_order,
    "tressette-pozzo": _tressette_order,
    "tressette-non-prendere": _tressette_order,
    "tressette-toro": _tressette_order,
    "misere": _misere,
    "presidente": _presidente,
    "scopa": _scopa,
    "scopone": _scopa,
    "vecchia": _nothing,
}
"""The figures other than card points of each built-in game, by game id."""

PLUGIN_FIELDS = ("trick_strength", "rank_strength", "capture_value")
"""The ``Game`` attributes a plugin game may set to give these figures."""


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
    builtin = BUILTIN_FIGURES.get(game.id)
    if builtin is not None:
        found = builtin(game)
        tables = {name: getattr(found, name) or None for name in PLUGIN_FIELDS}
    else:
        tables = {name: getattr(game, name, None) for name in PLUGIN_FIELDS}
    return CardFigures(
        points=_per_card(game, "points", game.card_points),
        points_total=game.points_total or 0,
        **{name: _per_card(game, name, values) for name, values in tables.items()},
    )


def card_values_message(game: Game) -> pb.CardValues:
    """The ``CardValues`` of a MatchStart for ``game``."""
    figures = card_figures(game)
    return pb.CardValues(points=figures.points, points_total=figures.points_total,
                         trick_strength=figures.trick_strength,
                         rank_strength=figures.rank_strength,
                         capture_value=figures.capture_value)
