"""The configurations the environment tests run over: every registered game id (plugins too)
with each of its seat counts, at default parameters."""

from __future__ import annotations

import pytest

from arena.games.registry import all_configurations

SEAT_CONFIGS: list[tuple[str, int]] = [
    (game_id, seats) for game_id, seats, params in all_configurations() if not params]
"""Each (game id, seat count) the registry allows, at default parameters."""
SEAT_CONFIG_IDS = [f"{game_id}-{seats}p" for game_id, seats in SEAT_CONFIGS]

each_seat_config = pytest.mark.parametrize(("game_id", "seats"), SEAT_CONFIGS,
                                           ids=SEAT_CONFIG_IDS)
