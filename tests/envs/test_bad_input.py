"""Bad input to an environment gets one clear error naming the problem, and changes nothing."""

from __future__ import annotations

import numpy as np
import pytest

from arena.envs.pettingzoo import env, raw_env
from arena.games import IllegalActionError, InvalidParameterError, UnknownGameError


def test_an_unknown_game_lists_the_valid_ids() -> None:
    """The game id is checked when the environment is made."""
    with pytest.raises(UnknownGameError, match=r"unknown game 'brisk' \(did you mean "
                                               r"'briscola'.*\); valid games: misere"):
        env("brisk")


def test_a_bad_parameter_or_render_mode_is_named() -> None:
    """Parameters go through the game's validation; render modes are listed."""
    with pytest.raises(InvalidParameterError, match="hands"):
        env("briscola", 2, hands=0)
    with pytest.raises(ValueError, match="render_mode 'rgb_array' is not one of 'ansi', 'human'"):
        env("briscola", render_mode="rgb_array")


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    """The engine's error names the legal actions; the same agent is still to act."""
    aec = raw_env("briscola", 2)
    aec.reset(seed=5)
    agent = aec.agent_selection
    before = aec.observe(agent)
    illegal = int(np.flatnonzero(before["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match="legal actions: "):
        aec.step(illegal)
    assert aec.agent_selection == agent
    assert np.array_equal(aec.observe(agent)["observation"], before["observation"])
    with pytest.raises(ValueError, match=f"{agent} is to act: None is the action of a "
                                         "finished agent only"):
        aec.step(None)
