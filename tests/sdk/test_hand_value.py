"""cardarena_sdk.hand_value: what a scored hand is worth, learnt from random matches."""

from __future__ import annotations

import random

import pytest
from cardarena_sdk.hand_value import HandWatch, hand_value, point_share, survey

from arena.games import EventKind, State, load_game


def finished(game_id: str, seed: int) -> State:
    """A random match of ``game_id`` played to its end."""
    game = load_game(game_id)
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_points_win_briscola_and_a_hand_score_is_a_penalty_in_tressette_non_prendere() -> None:
    briscola = survey(load_game("briscola"), 1.0)
    assert (briscola.scored, briscola.sign) == (True, 1.0)
    assert briscola.coefficient > 0.5
    avoid = survey(load_game("tressette-non-prendere"), 1.0)
    assert avoid.sign == -1.0
    assert avoid.coefficient < 0
    assert survey(load_game("briscola"), 0.0).coefficient == 0.0


def test_a_survey_is_kept_per_configuration_and_weight() -> None:
    game = load_game("scopa")
    assert hand_value(game) is hand_value(load_game("scopa"))
    assert hand_value(game, 0.5) is not hand_value(game)
    assert hand_value(load_game("scopa", 3)) is not hand_value(game)


def test_a_watch_stops_at_the_first_hand_scored_after_its_start() -> None:
    state = finished("scopa", 4)
    events = state.full_events()
    scores = [index for index, event in enumerate(events) if event.kind == EventKind.SCORE]
    assert len(scores) > 1
    watch = HandWatch(scores[0] + 1)
    assert watch.scored(state)
    assert watch.score == events[scores[1]].values
    ends = [index for index in range(scores[0], scores[1])
            if events[index].kind == EventKind.HAND_END]
    assert watch.points == events[ends[-1]].values


def test_team_values_follow_the_team_and_add_to_nothing_in_a_two_team_game() -> None:
    state = finished("tressette", 2)
    value = hand_value(state.game)
    watch = HandWatch(0)
    assert watch.scored(state) and watch.score is not None
    values = value.values(state, watch.score, watch.points, {0, 1, 2, 3})
    assert values[0] == pytest.approx(values[2])
    assert values[1] == pytest.approx(values[3])
    assert values[0] == pytest.approx(-values[1])


def test_point_share() -> None:
    assert point_share([10, 20, 10], {1}) == 0.0
    assert point_share([30, 0, 10], {0, 2}) == 1.0
    assert point_share([0, 0], {0}) == 0.0
    assert point_share([5, 15], {0}) == -0.5
