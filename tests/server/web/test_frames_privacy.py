"""No seat's replay shows a card that seat could not know, in any game."""

from __future__ import annotations

import pytest

from arena.games import game_ids, load_game
from arena.match.local import play_local
from arena.match.record import apply_recorded
from arena.server.web.frames import match_frames


@pytest.mark.parametrize("game_id", game_ids())
def test_seat_frames_show_only_cards_the_seat_has_seen(game_id: str) -> None:
    """Every face-up card of every frame of a seat's view is among the cards its observation
    has seen at that step (its hand, the table, visible hands, its events)."""
    game = load_game(game_id)
    record = play_local(game, 7, ["heuristic", "random"])
    deck = game.deck
    for seat in range(game.num_players):
        frames = match_frames(record, seat)
        state = game.new_initial_state(record.seed)
        total = len(record.actions)
        for index, frame in enumerate(frames):
            if index:
                apply_recorded(state, index - 1, record.actions[index - 1], total)
            seen = {deck.short(card) for card in state.observation(seat).seen_cards()}
            shown = {card.code for card in frame.shown_cards()}
            assert shown <= seen, (seat, index, shown - seen)
