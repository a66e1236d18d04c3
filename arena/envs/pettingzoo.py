"""Every game as a PettingZoo AEC environment: ``env(game, players=None, **params)``.

Agents are ``player_0`` ... ``player_{n-1}``, one per seat. An agent's observation is a dict:
``observation``, the fixed-shape float32 vector of ``arena.bridges.tensors`` made from the seat's
``state.observation(seat)`` only, and ``action_mask``, an int8 vector over the game's flat
action space (``arena.bridges.actions.num_actions``) with a 1 at each legal action of the seat
(all zero when it is not the seat's turn). The action space is ``Discrete(num_actions)``.

An episode is one match. ``reset(seed=s)`` starts the match of engine seed ``s`` (the same
match as ``load_game(...).new_initial_state(s)``); ``reset()`` without a seed draws one from
the generator the last seed made (from the system's entropy before any seed). The reward of a
step is how much each seat's ``state.returns()`` moved: nothing during a hand, the hand's
game points when it is scored, the outcome when the match ends, so the rewards of an episode
add up to the match's returns. All agents terminate when the match ends; nothing truncates.
An illegal action raises ``IllegalActionError`` (a ``ValueError``) naming the legal ones and
changes nothing.

``render_mode`` ``"ansi"`` returns, and ``"human"`` prints after every step, the match so far
as ``arena play`` shows it (a spectator's view, every card shown).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from arena.bridges.actions import num_actions
from arena.bridges.tensors import HandEvents, Layout, Vector, encode, layout
from arena.games import Game, Observation, State, load_game
from arena.games.params import ParamValue
from arena.games.rng import MAX_SEED

RENDER_MODES: Final = ("ansi", "human")

Mask = npt.NDArray[np.int8]
AgentObservation = dict[str, Vector | Mask]


def agent_name(seat: int) -> str:
    """The agent of a seat."""
    return f"player_{seat}"


class raw_env(AECEnv):  # type: ignore[misc]  # PettingZoo's name for it
    """One game configuration as an AEC environment, without PettingZoo's order checks."""

    def __init__(self, game: str, players: int | None = None, *,
                 render_mode: str | None = None, **params: ParamValue) -> None:
        """Load the game (an unknown id, seat count or parameter raises a ``GameError``)."""
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode {render_mode!r} is not one of "
                             f"{', '.join(map(repr, RENDER_MODES))} (or None)")
        self.game: Game = load_game(game, players, params)
        self.render_mode = render_mode
        self.layout: Layout = layout(self.game)
        self.num_actions = num_actions(self.game)
        self.metadata = {"render_modes": list(RENDER_MODES), "is_parallelizable": False,
                         "name": f"cardarena_{self.game.id.replace('-', '_')}_v0"}
        self.possible_agents = [agent_name(seat) for seat in range(self.game.num_players)]
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        low, high = self.layout.bounds()
        self.observation_spaces = {agent: spaces.Dict({
            "observation": spaces.Box(low, high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (self.num_actions,), dtype=np.int8),
        }) for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(self.num_actions)
                              for agent in self.possible_agents}
        self._rng: np.random.Generator | None = None
        self._state: State[Any] | None = None
        self._returns: list[float] = []

    # --- the spaces --------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of an agent (the same object every time)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of an agent (the same object every time)."""
        return self.action_spaces[agent]

    # --- the episode -------------------------------------------------------------------------

    @property
    def state_now(self) -> State[Any]:
        """The engine state of the match being played (after ``reset``)."""
        if self._state is None:
            raise RuntimeError("call reset() before using the environment")
        return self._state

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a match: of engine seed ``seed`` if given, else of the next drawn seed."""
        if seed is not None or self._rng is None:
            self._rng, _ = seeding.np_random(seed)
        match_seed = seed if seed is not None else int(
            self._rng.integers(0, MAX_SEED, dtype=np.uint64, endpoint=True))
        self._state = self.game.new_initial_state(match_seed)
        self._returns = self._state.returns()
        self._memos = {agent: HandEvents(self.layout) for agent in self.possible_agents}
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._select()

    def observe(self, agent: str) -> AgentObservation:
        """The agent's vector and action mask, from its seat's observation only."""
        return self.encode(self.state_now.observation(self._seats[agent]), self._memos[agent])

    def encode(self, observation: Observation, memo: HandEvents | None = None
               ) -> AgentObservation:
        """The observation dict of one seat's engine observation (``memo``: see ``encode``)."""
        mask: Mask = np.zeros(self.num_actions, np.int8)
        legal = observation.legal_actions
        if legal and legal[-1] >= self.num_actions:
            raise ValueError(f"{self.game.id}: action {legal[-1]} is beyond the action space "
                             f"of {self.num_actions} ids (set num_distinct_actions on the game)")
        mask[list(legal)] = 1
        return {"observation": encode(observation, self.layout, memo), "action_mask": mask}

    def step(self, action: int | None) -> None:
        """Play the selected agent's action (None once the agent is done)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: None is the action of a finished agent only")
        state = self.state_now
        state.apply_action(int(action))
        self._cumulative_rewards[agent] = 0.0
        returns = state.returns()
        self.rewards = {name: returns[seat] - self._returns[seat]
                        for name, seat in self._seats.items() if name in self.rewards}
        self._returns = returns
        if state.is_terminal():
            self.terminations = dict.fromkeys(self.agents, True)
        self._select()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _select(self) -> None:
        """Select the seat to act (the last selection stays once the match is over)."""
        seat = self.state_now.current_player()
        if 0 <= seat < self.game.num_players:
            self.agent_selection = agent_name(seat)
        elif not hasattr(self, "agent_selection") or self.agent_selection not in self.agents:
            self.agent_selection = self.agents[0]

    # --- display -----------------------------------------------------------------------------

    def render(self) -> str | None:
        """``ansi``: the match so far as text; ``human``: that text printed."""
        if self.render_mode is None:
            return None
        from arena.envs.display import match_text

        text = match_text(self.state_now, self.possible_agents, colour=True)
        if self.render_mode == "ansi":
            return text
        print(text, end="")
        return None

    def close(self) -> None:
        """Nothing to release."""


def env(game: str, players: int | None = None, *, render_mode: str | None = None,
        **params: ParamValue) -> Any:
    """The AEC environment of a game id, seat count (None: the game's default) and parameters,
    wrapped in PettingZoo's order checks."""
    return wrappers.OrderEnforcingWrapper(
        raw_env(game, players, render_mode=render_mode, **params))
