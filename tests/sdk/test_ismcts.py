"""cardarena_sdk.ismcts: legal in every game, deterministic under a seed and an iteration
budget, bounded by its deadline, and blind to everything but the seat's observation."""

from __future__ import annotations

import math
import random

import pytest
from cardarena_sdk.determinize import Determinizer
from cardarena_sdk.ismcts import ISMCTS, MOVER_SLOTS, Node, Rollout
from cardarena_sdk.search import Sampler, SamplingError

from arena.games import Game, State, game_ids, load_game
from arena.games.testing import states_at
from arena.policies import make_policy
from tests.conformance.harness import playout
from tests.sdk.test_search import may_fail
from tests.sdk.test_search_mc import SteppingClock

ITERATIONS = 6
"""Iterations per decision in the legality sweep (the checks are about rules, not strength)."""


def decision_state(game: Game, seed: int, skip: int) -> State:
    """A state of a seeded random playout at a decision with more than one legal action,
    ``skip`` or more actions in."""
    actions = playout(game, seed).history()
    for stop in range(skip, len(actions)):
        (state,) = states_at(game, seed, actions, [stop])
        if len(state.legal_actions()) > 1:
            return state.clone()
    raise AssertionError(f"{game!r} seed {seed}: no decision with a choice after {skip}")


@pytest.mark.parametrize("game_id", game_ids())
def test_a_match_with_ismcts_in_a_seat_is_legal_to_the_end(game_id: str) -> None:
    """ISMCTS answers every decision of seat 0 with a legal action, random play elsewhere;
    only the games whose sampling may fail (``tests.sdk.test_search.MAY_FAIL``) may raise
    ``SamplingError``, for which a bot plays its fallback."""
    game = load_game(game_id)
    excused = may_fail((game_id, game.num_players, game.params))
    state = game.new_initial_state(11)
    rng = random.Random(11)
    search = ISMCTS(game, 0, random.Random(5), rollout="random")
    searched = 0
    while not state.is_terminal():
        seat = state.current_player()
        legal = state.legal_actions()
        if seat != 0 or len(legal) == 1:
            state.apply_action(rng.choice(legal))
            continue
        try:
            result = search.search(state.observation(0), iterations=ITERATIONS)
        except SamplingError:
            assert excused, f"{game!r}: no state could be sampled"
            state.apply_action(rng.choice(legal))
            continue
        assert result.action in legal
        assert sum(result.visits.values()) == result.iterations == ITERATIONS
        state.apply_action(result.action)
        searched += 1
    assert searched > 0


@pytest.mark.parametrize("game_id", ["briscola", "scopa", "tressette", "briscola-chiamata"])
@pytest.mark.parametrize("rollout", ["random", "heuristic"])
def test_the_same_seed_and_iterations_give_the_same_search(game_id: str, rollout: str) -> None:
    game = load_game(game_id)
    state = decision_state(game, 3, 6)
    observation = state.observation(state.current_player())
    results = [ISMCTS(game, observation.seat, random.Random(9), rollout=rollout)
               .search(observation, iterations=40) for _ in range(2)]
    assert results[0].visits == results[1].visits
    assert results[0].means == results[1].means
    assert results[0].action == results[1].action
    other = ISMCTS(game, observation.seat, random.Random(10), rollout=rollout).search(
        observation, iterations=40)
    assert other.iterations == 40 and sum(other.visits.values()) == 40


def test_a_search_stops_at_its_deadline() -> None:
    """The clock is read before each iteration (and by the sampler while it repairs): with a
    clock that moves 1 a reading, a deadline of 20 ends the search once a reading passes 20,
    within one iteration's readings; a deadline already passed leaves no time to draw even
    the first state; an iteration budget ends it sooner."""
    game = load_game("briscola")
    state = decision_state(game, 1, 4)
    observation = state.observation(state.current_player())
    search = ISMCTS(game, observation.seat, random.Random(1))
    clock = SteppingClock(1.0)
    result = search.search(observation, deadline=20.0, clock=clock)
    assert 1 <= result.iterations < 20
    assert 20 < clock.now <= 20 + 3
    with pytest.raises(SamplingError, match="before the deadline"):
        search.search(observation, deadline=-1.0, clock=SteppingClock(1.0))
    capped = search.search(observation, iterations=3, deadline=1e9, clock=SteppingClock(1.0))
    assert capped.iterations == 3


def test_a_search_needs_a_budget_and_its_own_seat() -> None:
    game = load_game("briscola")
    state = decision_state(game, 1, 4)
    seat = state.current_player()
    search = ISMCTS(game, seat, random.Random(1))
    with pytest.raises(ValueError, match="number of iterations, a deadline"):
        search.search(state.observation(seat))
    with pytest.raises(ValueError, match=f"for seat {seat}, not {1 - seat}"):
        search.search(state.observation(1 - seat), iterations=1)
    with pytest.raises(ValueError, match="unknown rollout policy 'greedy'"):
        Rollout(game, "greedy", random.Random(0))


@pytest.mark.parametrize("game_id", ["briscola", "tressette", "scopone", "misere"])
def test_the_search_sees_only_the_seats_observation(game_id: str) -> None:
    """Two real states that the seat cannot tell apart (the other hands dealt differently)
    give the same search, move for move: nothing but the observation reaches it."""
    game = load_game(game_id)
    truth = decision_state(game, 4, 9)
    seat = truth.current_player()
    observation = truth.observation(seat)
    twin = Sampler(game).sample(observation, random.Random(2))
    others = [other for other in range(game.num_players) if other != seat]
    assert any(twin.observation(other) != truth.observation(other) for other in others)
    results = [ISMCTS(game, seat, random.Random(7)).search(state.observation(seat),
                                                             iterations=30)
               for state in (truth, twin)]
    assert results[0] == results[1]


@pytest.mark.parametrize("game_id", ["briscola", "tressette", "misere", "scopa", "presidente"])
def test_every_drawn_state_matches_the_observation(game_id: str) -> None:
    """Permuted and freshly sampled states alike: the seat's view of each is its own, and the
    hidden cards do move between draws."""
    game = load_game(game_id)
    for skip in (3, 20):
        state = decision_state(game, 8, skip)
        seat = state.current_player()
        observation = state.observation(seat)
        worlds = Determinizer(Sampler(game), observation, random.Random(3))
        drawn = [worlds.draw() for _ in range(12)]
        assert all(world.observation(seat) == observation for world in drawn)
        views = {tuple(world.observation(other).hand for other in range(game.num_players))
                 for world in drawn}
        assert len(views) > 1
        assert worlds.accepted + worlds.sampled >= len(drawn)


def test_availability_counts_the_iterations_a_child_was_legal() -> None:
    """Every root child of a search over one seat's cards was legal in each iteration that
    selected at the root, and visits add up over the tree."""
    game = load_game("briscola")
    state = decision_state(game, 2, 2)
    seat = state.current_player()
    search = ISMCTS(game, seat, random.Random(4))
    root = Node(-1, -1, None)
    worlds = Determinizer(search.sampler, state.observation(seat), random.Random(4))
    for _ in range(50):
        search._iterate(root, worlds.draw())
    children = list(root.children.values())
    assert root.visits == 50 == sum(child.visits for child in children)
    expanding = len(children)
    assert all(child.available == 50 - expanding for child in children)
    assert {child.action * MOVER_SLOTS + child.mover for child in children} == set(root.children)


@pytest.mark.parametrize("game_id", ["briscola", "scopone", "tressette-pozzo"])
def test_a_guide_is_followed_unless_the_search_is_surely_better(game_id: str) -> None:
    """With an endless confidence bar the guide's (the heuristic's) action is always played;
    with none, the search's own most visited action; the guide's action is reported."""
    game = load_game(game_id)
    state = decision_state(game, 6, 5)
    seat = state.current_player()
    observation = state.observation(seat)
    heuristic = make_policy("heuristic", game, seat, 0).act(observation)
    strict = ISMCTS(game, seat, random.Random(3), guide="heuristic", confidence=math.inf)
    result = strict.search(observation, iterations=30)
    assert (result.action, result.guide) == (heuristic, heuristic)
    loose = ISMCTS(game, seat, random.Random(3), guide="heuristic", confidence=-math.inf)
    unguided = ISMCTS(game, seat, random.Random(3)).search(observation, iterations=30)
    assert unguided.guide is None
    guided = loose.search(observation, iterations=30)
    most = max(guided.visits.values())
    assert guided.visits[guided.action] == most


def test_the_guide_is_overruled_only_by_a_clear_gap() -> None:
    """A root child's mean must beat the guide's by the confidence times the standard error of
    the difference of the two means."""
    search = ISMCTS(load_game("briscola"), 0, random.Random(0), confidence=2.0)
    root = Node(-1, -1, None)
    for action, values in ((1, [1.0, 0.8, 1.2, 1.0]), (2, [0.0, 0.2, -0.2, 0.0])):
        child = root.children[action * MOVER_SLOTS] = Node(action, 0, root)
        for value in values:
            child.visits += 1
            child.value_sum += value
            child.value_squares += value * value
    assert search._surely_better(root, 1, 2)
    assert not search._surely_better(root, 2, 1)
    search.confidence = 20.0
    assert not search._surely_better(root, 1, 2)
