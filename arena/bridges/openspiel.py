"""Every game as an OpenSpiel game: importing this module registers them with ``pyspiel``.

Game id ``briscola-chiamata`` is ``cardarena_briscola_chiamata``; its parameters are the
seat count as ``players`` and the game's own parameters (``arena.games.params``), each with
the game's default: ``pyspiel.load_game("cardarena_scopa", {"players": 3, "target": 16})``.

Chance is explicit: a state starts with ``SEED_BYTES`` chance nodes, each drawing one byte
(256 equally likely outcomes) of the engine's 64-bit seed, most significant first; the
match is then the engine's ``new_initial_state(seed)``, so ``seed_actions(s)`` followed by
the same decisions plays the PettingZoo episode ``reset(seed=s)`` plays. Decision actions are
the game's flat action ids (``arena.bridges.actions``). Rewards come at the end (OpenSpiel's
terminal reward model): ``returns()`` is zero until the match is over, then the engine's
zero-sum returns.

Observation and information-state strings and tensors are those of
``arena.bridges.openspiel_observer`` (the shared fixed-shape vector of ``arena.bridges.tensors``).
``resample_from_infostate(player, sampler)`` returns a state the player cannot tell from this
one (``arena.bridges.resample``), for ISMCTS and other search over information sets; such a
state's history is its new seed's bytes and the same decisions, with the resampled deal
carried alongside.
"""

from __future__ import annotations

import random
from typing import Any, Final

import pyspiel  # type: ignore[import-not-found]

from arena.bridges.actions import num_actions
from arena.bridges.openspiel_observer import CardObserver
from arena.bridges.resample import resample_world
from arena.bridges.tensors import BIG, HandEvents, Layout, layout
from arena.games import Game, State, load_game
from arena.games.params import ParamValue
from arena.games.registry import game_ids, get_spec

__all__ = ["GAME_NAMES", "PREFIX", "SEED_BYTES", "CardGame", "CardState", "EngineHolder",
           "game_type", "register_all", "replay_engine", "seed_actions", "short_name",
           "state_of"]

SEED_BYTES: Final = 8
"""Chance nodes at the start of a state: one per byte of the 64-bit engine seed."""

PREFIX: Final = "cardarena_"


def short_name(game_id: str) -> str:
    """The OpenSpiel name of a game id."""
    return PREFIX + game_id.replace("-", "_")


def seed_actions(seed: int) -> list[int]:
    """The chance actions that draw ``seed``."""
    return [(seed >> (8 * (SEED_BYTES - 1 - index))) & 0xFF for index in range(SEED_BYTES)]


def game_type(game_id: str) -> Any:
    """The ``pyspiel.GameType`` of a game id: its seat range and parameters with defaults."""
    spec = get_spec(game_id)
    parameters: dict[str, ParamValue] = {"players": spec.default_seats, **spec.defaults()}
    return pyspiel.GameType(
        short_name=short_name(game_id),
        long_name=f"Card Arena {spec.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(spec.seats),
        min_num_players=min(spec.seats),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters,
    )


class CardGame(pyspiel.Game):  # type: ignore[misc]
    """One configuration of a card arena game, as OpenSpiel loads it."""

    game_id: str = ""
    """Set by each registered subclass."""

    MAX_GAME_LENGTH: Final = 1_000_000
    """A bound on a match's actions (the arena stops a match there too)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        """Load the engine game of ``params`` (an invalid one raises a ``GameError``)."""
        values = {name: value for name, value in (params or {}).items() if name != "players"}
        players = (params or {}).get("players")
        self.engine: Game = load_game(self.game_id, players, values)
        self.layout = layout(self.engine)
        info = pyspiel.GameInfo(
            num_distinct_actions=num_actions(self.engine),
            max_chance_outcomes=256,
            num_players=self.engine.num_players,
            min_utility=-BIG,
            max_utility=BIG,
            utility_sum=0.0,
            max_game_length=self.MAX_GAME_LENGTH)
        super().__init__(game_type(self.game_id), info, params or {})

    def new_initial_state(self) -> CardState:
        """A state before the seed is drawn."""
        return CardState(self)

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: dict[str, Any] | None = None) -> CardObserver:
        """The observer of a seat: perfect recall strings unless asked otherwise."""
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        perfect = iig_obs_type is None or bool(iig_obs_type.perfect_recall)
        return CardObserver(self.layout, perfect)


class EngineHolder:
    """Holds an engine state; a deep copy is the engine's own clone (OpenSpiel clones a
    Python state by deep-copying it) and a pickle is the match's record (game, seed, deals,
    actions), replayed when loaded (OpenSpiel serializes a Python state by pickling it)."""

    def __init__(self, state: State[Any]) -> None:
        """Hold ``state``."""
        self.state = state
        self.memos: dict[int, HandEvents] = {}
        """Each seat's events read for its tensor (a copy starts afresh)."""

    def __deepcopy__(self, memo: dict[int, Any]) -> EngineHolder:
        """An independent copy."""
        return EngineHolder(self.state.clone())

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Rebuilt by ``replay_engine`` from the match's record."""
        state = self.state
        game = state.game
        return replay_engine, (game.id, game.num_players, dict(game.params), state.seed(),
                               state.deals(), state.history())


def replay_engine(game_id: str, players: int, params: dict[str, ParamValue], seed: int,
                  deals: list[tuple[int, ...]], actions: list[int]) -> EngineHolder:
    """The held engine state of a match's record."""
    state = load_game(game_id, players, params).new_initial_state(seed, deal=deals)
    for action in actions:
        state.apply_action(action)
    return EngineHolder(state)


class CardState(pyspiel.State):  # type: ignore[misc]
    """A match: ``SEED_BYTES`` chance nodes, then the engine's decisions."""

    def __init__(self, game: CardGame) -> None:
        """Nothing drawn yet."""
        super().__init__(game)
        self.num_seats: int = game.engine.num_players
        self.seed = 0
        self.seed_bytes = 0
        self.deals: list[tuple[int, ...]] | None = None
        """Deals to inject instead of the seed's (a resampled world)."""
        self.holder: EngineHolder | None = None

    @property
    def engine(self) -> State[Any] | None:
        """The engine state, once the seed is drawn."""
        return None if self.holder is None else self.holder.state

    def hand_events(self, seat: int, shape: Layout) -> HandEvents | None:
        """The seat's memo of the events its tensor has read (None before the deal)."""
        if self.holder is None:
            return None
        memo = self.holder.memos.get(seat)
        if memo is None:
            memo = self.holder.memos[seat] = HandEvents(shape)
        return memo

    def _engine(self) -> State[Any]:
        """The engine state; an error before the seed is drawn."""
        if self.holder is None:
            raise RuntimeError("the seed of the match is still being drawn")
        return self.holder.state

    def current_player(self) -> int:
        """Chance while the seed is drawn, then the seat to act, or TERMINAL."""
        if self.holder is None:
            return int(pyspiel.PlayerId.CHANCE)
        state = self.holder.state
        if state.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        return state.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        """The seat's legal actions (none when it is not its turn)."""
        state = self._engine()
        return state.legal_actions() if state.current_player() == player else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The 256 values of the next seed byte, equally likely."""
        return [(value, 1.0 / 256) for value in range(256)]

    def _apply_action(self, action: int) -> None:
        """Draw a seed byte, or play a decision."""
        if self.holder is None:
            self.seed = (self.seed << 8) | action
            self.seed_bytes += 1
            if self.seed_bytes == SEED_BYTES:
                engine: Game = self.get_game().engine
                self.holder = EngineHolder(engine.new_initial_state(self.seed, deal=self.deals))
            return
        self.holder.state.apply_action(action)

    def _action_to_string(self, player: int, action: int) -> str:
        """A seed byte, or the engine's name of the action."""
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed byte {action}"
        if self.holder is None:
            return str(action)
        return self.holder.state.action_to_string(action)

    def is_terminal(self) -> bool:
        """True once the match is over."""
        return self.holder is not None and self.holder.state.is_terminal()

    def returns(self) -> list[float]:
        """Zero until the end, then the engine's returns."""
        if not self.is_terminal():
            return [0.0] * self.num_seats
        return [float(value) for value in self._engine().returns()]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> CardState:
        """A state ``player_id`` cannot tell from this one: what it has not seen resampled."""
        engine = self.engine
        if engine is None:
            return self.clone()  # type: ignore[no-any-return]
        rng = random.Random(int(probability_sampler() * 2 ** 53))
        return state_of(self.get_game(), resample_world(engine, player_id, rng))

    def __str__(self) -> str:
        """The engine's text of the state (the seed bytes drawn so far before)."""
        if self.holder is None:
            return f"dealing: {self.seed_bytes} of {SEED_BYTES} seed bytes drawn"
        return str(self.holder.state)


def state_of(game: CardGame, engine: State[Any]) -> CardState:
    """The OpenSpiel state of an engine state of the game's configuration (its seed, deals and
    actions replayed): a state a bot sampled, searched with OpenSpiel's algorithms."""
    twin = CardState(game)
    twin.deals = engine.deals()
    for action in seed_actions(engine.seed()) + engine.history():
        twin.apply_action(action)
    return twin


def register_all() -> list[str]:
    """Register every game id not yet registered; the OpenSpiel names of all of them."""
    names = []
    registered = set(pyspiel.registered_names())
    for game_id in game_ids():
        name = short_name(game_id)
        names.append(name)
        if name in registered:
            continue
        class_name = f"CardGame_{name}"
        game_class = type(class_name, (CardGame,), {"game_id": game_id, "__module__": __name__})
        globals()[class_name] = game_class  # found by name when a game is unpickled
        pyspiel.register_game(game_type(game_id), game_class)
    return names


GAME_NAMES: Final = register_all()
"""The OpenSpiel names of the registered games."""
