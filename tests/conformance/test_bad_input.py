"""Bad input to ``load_game`` and injected deals raises the right GameError, naming the choices."""

from __future__ import annotations

from typing import Any

import pytest

from arena.games import (
    InvalidDealError,
    InvalidParameterError,
    Param,
    UnknownGameError,
    game_ids,
    get_spec,
    load_game,
)
from arena.games.params import ParamValue

from .harness import CONFIG_IDS, CONFIGS, Config, make_game

each_config = pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
each_game = pytest.mark.parametrize("game_id", game_ids())


def bad_values(param: Param) -> list[ParamValue]:
    """Values a parameter must refuse."""
    if param.kind == "bool":
        return ["maybe", 2]
    if param.kind == "int":
        values: list[ParamValue] = ["many", True]
        if param.minimum is not None:
            values.append(param.minimum - 1)
        if param.maximum is not None:
            values.append(param.maximum + 1)
        return values
    return ["no-such-choice", ""]


def valid_words(param: Param) -> list[str]:
    """What an error about a parameter must name as valid."""
    if param.kind == "bool":
        return ["true", "false"]
    if param.kind == "int":
        return [str(bound) for bound in (param.minimum, param.maximum) if bound is not None]
    return list(param.choices)


def test_unknown_game_names_the_valid_games() -> None:
    """An unknown game id raises UnknownGameError listing it and every valid id."""
    with pytest.raises(UnknownGameError) as error:
        load_game("no-such-game")
    message = str(error.value)
    assert "no-such-game" in message
    assert all(game_id in message for game_id in game_ids()), message


@each_game
def test_unknown_parameter_names_the_valid_parameters(game_id: str) -> None:
    """An unknown parameter raises InvalidParameterError naming it and the valid parameters."""
    with pytest.raises(InvalidParameterError) as error:
        load_game(game_id, params={"no_such_parameter": 1})
    message = str(error.value)
    assert "no_such_parameter" in message
    assert all(param.name in message for param in get_spec(game_id).params), message


@each_game
def test_bad_parameter_values_name_the_valid_values(game_id: str) -> None:
    """Every parameter refuses bad values, naming the value and what is valid."""
    for param in get_spec(game_id).params:
        for value in bad_values(param):
            with pytest.raises(InvalidParameterError) as error:
                load_game(game_id, params={param.name: value})
            message = str(error.value)
            assert param.name in message and repr(value) in message, message
            missing = [word for word in valid_words(param) if word not in message]
            assert not missing, f"{message!r} does not name {missing}"


@each_game
def test_bad_seat_counts_name_the_valid_counts(game_id: str) -> None:
    """Seat counts the game does not allow raise InvalidParameterError naming the valid ones."""
    seats = get_spec(game_id).seats
    for count in sorted({0, 1, min(seats) - 1, max(seats) + 1} - set(seats)):
        with pytest.raises(InvalidParameterError) as error:
            load_game(game_id, count)
        message = str(error.value)
        assert str(count) in message, message
        assert all(str(allowed) in message for allowed in seats), message


@each_config
def test_invalid_deals_are_refused(config: Config) -> None:
    """Injected deals that are not a permutation of the deck raise InvalidDealError."""
    game = make_game(config)
    cards = list(game.deck.cards)
    bad_deals: list[list[Any]] = [
        cards[:-1],
        [*cards[:-1], cards[0]],
        [*cards[:-1], game.deck.size],
        [*cards[:-1], -1],
        [str(card) for card in cards],
        [True, *cards[1:]],
        [cards, cards[:-1]],
    ]
    for deal in bad_deals:
        with pytest.raises(InvalidDealError):
            game.new_initial_state(0, deal=deal)
