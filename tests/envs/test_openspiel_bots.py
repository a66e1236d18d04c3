"""OpenSpiel's own search bots play whole matches of every game id: ISMCTS (which samples
worlds with ``resample_from_infostate`` and checks each against the information state) and
MCTS, with tiny budgets, seats alternating between them."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

from arena.bridges.openspiel import short_name
from arena.games.registry import game_ids

SIMULATIONS = 2
"""Simulations per decision (each a random rollout to the end of the match)."""
UCT_C = 2.0


@pytest.mark.parametrize("game_id", game_ids())
def test_ismcts_and_mcts_play_a_whole_match(game_id: str) -> None:
    """Every decision is legal, the match ends and its returns are zero-sum."""
    game = pyspiel.load_game(short_name(game_id))
    rng = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bots = [ismcts.ISMCTSBot(game, evaluator, UCT_C, max_simulations=SIMULATIONS,
                             random_state=rng),
            mcts.MCTSBot(game, UCT_C, SIMULATIONS, evaluator, random_state=rng)]
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probabilities)))
            continue
        action = bots[state.current_player() % 2].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        decisions += 1
    assert decisions > 0
    assert sum(state.returns()) == 0
