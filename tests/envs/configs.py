"""The configurations the environment tests run over: every registered game id (plugins too)
with each of its seat counts, at default parameters where the seat count allows them (else
the first parameters the game lists for it)."""

from __future__ import annotations

import pytest

from arena.games.params import ParamValue
from arena.games.registry import all_configurations


def seat_configs() -> list[tuple[str, int, dict[str, ParamValue]]]:
    """The first registered configuration of each (game id, seat count)."""
    found: dict[tuple[str, int], dict[str, ParamValue]] = {}
    for game_id, seats, params in all_configurations():
        found.setdefault((game_id, seats), params)
    return [(game_id, seats, params) for (game_id, seats), params in found.items()]


SEAT_CONFIGS = seat_configs()
SEAT_CONFIG_IDS = [f"{game_id}-{seats}p" for game_id, seats, _ in SEAT_CONFIGS]

each_seat_config = pytest.mark.parametrize(("game_id", "seats", "params"), SEAT_CONFIGS,
                                           ids=SEAT_CONFIG_IDS)
