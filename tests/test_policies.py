"""Reference policies: random is seeded, and the heuristic beats random by a clear margin."""

from __future__ import annotations

import pytest

from arena.games import GameError, load_game
from arena.games.registry import all_configurations
from arena.policies import make_policy
from arena.policies.base import has_heuristic

DEALS = 40


def play(game_id: str, players: int, params: dict[str, object], seed: int,
         names: list[str]) -> list[float]:
    """Returns of one match between named policies, in seat order."""
    game = load_game(game_id, players, params)  # type: ignore[arg-type]
    policies = [make_policy(name, game, seat, seed) for seat, name in enumerate(names)]
    state = game.new_initial_state(seed)
    while not state.is_terminal():
        seat = state.current_player()
        state.apply_action(policies[seat].act(state.observation(seat)))
    return state.returns()


CHANCE_ONLY = {"vecchia"}
"""Games where no choice changes the outcome: the heuristic cannot beat random there."""
HEURISTIC_CONFIGURATIONS = [c for c in all_configurations()
                            if has_heuristic(c[0]) and c[0] not in CHANCE_ONLY]


@pytest.mark.parametrize(("game_id", "players", "params"), HEURISTIC_CONFIGURATIONS,
                         ids=[f"{g}-{n}-{len(p)}" for g, n, p in HEURISTIC_CONFIGURATIONS])
def test_heuristic_beats_random_over_duplicate_deals(game_id: str, players: int,
                                                     params: dict[str, object]) -> None:
    """One heuristic seat among random ones, every seat in turn over the same deals."""
    total = 0.0
    for seed in range(DEALS):
        for hero in range(players):
            names = ["heuristic" if seat == hero else "random" for seat in range(players)]
            total += play(game_id, players, params, seed, names)[hero]
    mean = total / (DEALS * players)
    print(f"{game_id} {players} seats {params}: heuristic mean return {mean:+.3f} per match")
    assert mean > 0.15


def test_random_policy_is_seeded() -> None:
    """The same seed gives the same random match; another seed another."""
    a = play("briscola", 2, {}, 3, ["random", "random"])
    b = play("briscola", 2, {}, 3, ["random", "random"])
    assert a == b
    game = load_game("briscola", 2)
    first = make_policy("random", game, 0, 1)
    second = make_policy("random", game, 0, 2)
    obs = game.new_initial_state(0).observation(0)
    picks = {(first.act(obs), second.act(obs)) for _ in range(20)}
    assert len(picks) > 1


def test_unknown_policy_is_a_clear_error() -> None:
    """An unknown policy name lists the valid ones."""
    with pytest.raises(GameError, match="valid policies: random, heuristic"):
        make_policy("genius", load_game("briscola", 2), 0, 1)


def test_a_mistyped_policy_gets_a_suggestion() -> None:
    """A policy name close to a valid one is suggested, before the valid ones are listed."""
    with pytest.raises(GameError, match=r"unknown policy 'heurstic' \(did you mean "
                                        r"'heuristic'\?\); valid policies: random, heuristic"):
        make_policy("heurstic", load_game("briscola", 2), 0, 1)


LEGALITY_SEEDS = 12


@pytest.mark.parametrize(("game_id", "players", "params"), HEURISTIC_CONFIGURATIONS,
                         ids=[f"{g}-{n}-{len(p)}" for g, n, p in HEURISTIC_CONFIGURATIONS])
def test_the_heuristic_answers_legally_wherever_play_leads(game_id: str, players: int,
                                                           params: dict[str, object]) -> None:
    """At every decision of playouts where each seat follows the heuristic, or random play
    with the heuristic asked at each step, the heuristic's action is legal (auctions where
    everyone passes and the last seat must bid included)."""
    game = load_game(game_id, players, params)  # type: ignore[arg-type]
    for seed in range(LEGALITY_SEEDS):
        for mover in ("heuristic", "random"):
            heuristics = [make_policy("heuristic", game, seat, seed) for seat in range(players)]
            movers = [make_policy(mover, game, seat, seed) for seat in range(players)]
            state = game.new_initial_state(seed)
            while not state.is_terminal():
                seat = state.current_player()
                observation = state.observation(seat)
                chosen = heuristics[seat].act(observation)
                assert chosen in observation.legal_actions, (seed, mover, state.history())
                state.apply_action(movers[seat].act(observation) if mover == "random"
                                   else chosen)
