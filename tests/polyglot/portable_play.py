"""The portable strategy played in-process over the wire messages of real matches, for the
regression test that pins its moves (``portable_moves.json``).

Run as a script from the repository root to rewrite that file after a deliberate change of the
strategy: ``python -m tests.polyglot.portable_play``.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from types import ModuleType

from arena.games import Game
from arena.protocol import RequestEncoder, match_start_message
from tests.conformance.harness import CONFIGS, config_id, make_game

MOVES_FILE = Path(__file__).with_name("portable_moves.json")
"""Per configuration and seed, the digest of every action of a match with the strategy."""
SEEDS = (1, 2)
MAX_ACTIONS = 3000
"""A match longer than this stops there (its digest covers the actions so far)."""


def match_actions(strategy: ModuleType, game: Game, seed: int) -> list[int]:
    """Every engine action of a match with the strategy at the even seats and a seeded random
    player at the odd ones, the strategy reading only the MatchStart and DecisionRequests."""
    seats = range(game.num_players)
    figures = [strategy.Figures.from_match_start(match_start_message(game, seat, "m", 1000, 0))
               for seat in seats]
    state = game.new_initial_state(seed)
    encoders = [RequestEncoder(state, seat) for seat in seats]
    rng = random.Random(seed)
    actions: list[int] = []
    while not state.is_terminal() and len(actions) < MAX_ACTIONS:
        seat = state.current_player()
        if seat % 2 == 0:
            message = encoders[seat].request(len(actions) + 1, 1000, 0).decision_request
            action = strategy.choose(figures[seat], message) - 1
        else:
            action = rng.choice(state.legal_actions())
        state.apply_action(action)
        actions.append(action)
    return actions


def digests(strategy: ModuleType) -> dict[str, str]:
    """``config-id/seed`` -> sha256 of the match's actions, for every configuration."""
    found = {}
    for config in CONFIGS:
        game = make_game(config)
        for seed in SEEDS:
            actions = match_actions(strategy, game, seed)
            found[f"{config_id(config)}/{seed}"] = hashlib.sha256(
                json.dumps(actions).encode()).hexdigest()
    return found


if __name__ == "__main__":
    from tests.polyglot.test_portable_python import strategy as portable

    MOVES_FILE.write_text(json.dumps(digests(portable), indent=1, sort_keys=True) + "\n")
    print(f"wrote {MOVES_FILE}")
