"""No replay view shows a card its viewer could not know, in any game: a seat's view only what
that seat has seen, the public view only what every seat has seen."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from arena.games import Game, State, game_ids, load_game
from arena.match import MatchRecord
from arena.match.local import play_local
from arena.match.record import apply_recorded
from arena.server.web.frames import PUBLIC, Frame, View, match_frames


def frames_and_states(game: Game, record: MatchRecord,
                      view: View) -> Iterator[tuple[Frame, State]]:
    """Each frame of the view with the engine's state at its step."""
    state = game.new_initial_state(record.seed)
    total = len(record.actions)
    for index, frame in enumerate(match_frames(record, view)):
        if index:
            apply_recorded(state, index - 1, record.actions[index - 1], total)
        yield frame, state


@pytest.mark.parametrize("game_id", game_ids())
def test_seat_frames_show_only_cards_the_seat_has_seen(game_id: str) -> None:
    """Every face-up card of every frame of a seat's view is among the cards its observation
    has seen at that step (its hand, the table, visible hands, its events)."""
    game = load_game(game_id)
    record = play_local(game, 7, ["heuristic", "random"])
    deck = game.deck
    for seat in range(game.num_players):
        for frame, state in frames_and_states(game, record, seat):
            seen = {deck.short(card) for card in state.observation(seat).seen_cards()}
            shown = {card.code for card in frame.shown_cards()}
            assert shown <= seen, (seat, frame.index, shown - seen)


@pytest.mark.parametrize("game_id", game_ids())
def test_public_frames_show_only_what_every_seat_has_seen(game_id: str) -> None:
    """Every face-up card of every frame of the public view, and every card its labels, notes
    and auction name, is one every seat's observation has seen at that step."""
    game = load_game(game_id)
    record = play_local(game, 11, ["heuristic", "random"])
    deck = game.deck
    for frame, state in frames_and_states(game, record, PUBLIC):
        everyone = {deck.short(card) for card in set.intersection(
            *(state.observation(seat).seen_cards() for seat in range(game.num_players)))}
        shown = {card.code for card in frame.shown_cards()}
        assert shown <= everyone, (frame.index, shown - everyone)
        words = set(re.split(r"[\s,:;()]+", " ".join(
            [frame.label, *frame.notes, *(name for _, name in frame.auction)])))
        named = {deck.short(card) for card in range(len(deck.cards))
                 if {deck.short(card), deck.short(card, symbols=True)} & words}
        assert named <= everyone, (frame.index, named - everyone)
