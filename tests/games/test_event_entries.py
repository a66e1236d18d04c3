"""``State.event_entries``: the unmasked log as plain tuples, the same as ``full_events``."""

from __future__ import annotations

import random

from arena.games import all_configurations, load_game


def test_event_entries_are_the_full_events_as_tuples_in_every_game() -> None:
    """Every configuration, a random playout: the same events, from any start."""
    for game_id, seats, params in all_configurations():
        state = load_game(game_id, seats, params).new_initial_state(11)
        choose = random.Random(11)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[choose.randrange(len(legal))])
        events = state.full_events()
        expected = [(event.kind, event.seat, event.cards, event.values) for event in events]
        assert state.event_entries() == expected, game_id
        middle = len(events) // 2
        assert state.event_entries(middle) == expected[middle:], game_id
