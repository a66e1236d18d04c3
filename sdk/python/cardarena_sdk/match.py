"""What a bot knows about its match from the MatchStart message."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from cardarena_sdk.card_values import CardValues
from cardarena_sdk.cards import DeckInfo

if TYPE_CHECKING:
    from arena.games import Game
    from arena.protocol.schema import agent as pb

ParamValue = bool | int | str
"""A game parameter's value."""


def params_from_message(parameters: Iterable[pb.Parameter]) -> dict[str, ParamValue]:
    """The parameters of a MatchStart as a dict; a missing value or a repeat is a ValueError."""
    params: dict[str, ParamValue] = {}
    for parameter in parameters:
        which = parameter.WhichOneof("value")
        if which is None:
            raise ValueError(f"parameter {parameter.name!r} has no value")
        if parameter.name in params:
            raise ValueError(f"parameter {parameter.name!r} is given twice")
        params[parameter.name] = getattr(parameter, which)
    return params


class MatchInfo:
    """The game, seat, parameters, teams, deck, card values and clock of one match."""

    __slots__ = (
        "_card_values",
        "_game",
        "bank_ms",
        "decision_ms",
        "deck",
        "game_id",
        "match_id",
        "num_seats",
        "params",
        "protocol_version",
        "raw",
        "rules_version",
        "seat",
        "teams",
    )

    def __init__(self, message: pb.MatchStart) -> None:
        """Read a MatchStart message."""
        self.raw = message
        self.protocol_version = message.protocol_version
        self.match_id = message.match_id
        self.game_id = message.game
        self.params = params_from_message(message.parameters)
        self.rules_version = message.rules_version
        self.seat = message.seat
        self.num_seats = message.num_seats
        self.teams: tuple[tuple[int, ...], ...] = tuple(tuple(team.seats)
                                                        for team in message.teams)
        self.deck = DeckInfo.from_message(message.deck)
        self.decision_ms = message.time_control.decision_ms
        self.bank_ms = message.time_control.bank_ms
        self._game: Game | None = None
        self._card_values: CardValues | None = None

    @property
    def game(self) -> Game:
        """The engine's Game for this match (loaded on first use, then kept)."""
        if self._game is None:
            from arena.protocol import game_from_match_start

            self._game = game_from_match_start(self.raw)
        return self._game

    @property
    def card_values(self) -> CardValues:
        """Each card's points, trick strength, rank strength and capture value in this game,
        from the MatchStart (from the engine when an older arena sent none)."""
        if self._card_values is None:
            message = self.raw.card_values
            if not self.raw.HasField("card_values"):
                from arena.protocol import card_values_message

                message = card_values_message(self.game)
            self._card_values = CardValues.from_message(message, self.game_id, self.deck)
        return self._card_values

    def points(self, card: int) -> int:
        """The card points ``card`` is worth when won; 0 in a game without card points."""
        return self.card_values.points(card)

    def strength(self, card: int) -> int:
        """The trick strength of ``card``; a ValueError in a game without tricks."""
        return self.card_values.strength(card)

    def beats(self, card: int, other: int, trump: int, led: int) -> bool:
        """Whether ``card``, played after ``other`` in a trick led in suit ``led`` with trump
        suit ``trump`` (-1: none), takes the trick from it (see ``CardValues.beats``)."""
        return self.card_values.beats(card, other, trump, led)

    def trick_winner(self, cards: Sequence[int], trump: int) -> int:
        """The index, in play order, of the card that takes a trick of ``cards``."""
        return self.card_values.trick_winner(cards, trump)

    def team(self) -> tuple[int, ...] | None:
        """The seats of this seat's public team, itself included, or None without teams."""
        for team in self.teams:
            if self.seat in team:
                return team
        return None

    def card_name(self, card: int, style: str = "code") -> str:
        """The name of a card of this match's deck; "??" for a hidden card."""
        return self.deck.card_name(card, style)

    def __repr__(self) -> str:
        """The game, seat and match id."""
        return (f"MatchInfo(game={self.game_id!r}, seat={self.seat}/{self.num_seats}, "
                f"match_id={self.match_id!r})")
