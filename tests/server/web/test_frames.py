"""Replay frames from match records: tricks, captures, draws, auctions, and seat views."""

from __future__ import annotations

import pytest

from arena.games import load_game
from arena.games.cards import HIDDEN
from arena.match.local import play_local
from arena.match.record import MatchRecord
from arena.server.web.cards import card_face
from arena.server.web.frames import match_frames, symbol_label


def local_record(game: str, players: int, seed: int = 3) -> MatchRecord:
    """A match played here between the reference policies."""
    return play_local(load_game(game, players, {}), seed, ["heuristic", "random"])


def test_one_frame_per_action_plus_the_deal() -> None:
    """Frame 0 is the deal and every action adds one."""
    record = local_record("briscola", 2)
    frames = match_frames(record, None)
    assert len(frames) == len(record.actions) + 1
    assert frames[0].label == "The deal"
    assert [frame.index for frame in frames] == list(range(len(frames)))


def test_a_completed_trick_shows_its_cards_seats_and_winner() -> None:
    """The frame of a trick's last card holds the whole trick and who took it."""
    frames = match_frames(local_record("briscola", 2), None)
    done = [frame for frame in frames if frame.trick_winner is not None]
    assert len(done) == 20
    assert all(len(frame.trick) == 2 for frame in done)
    assert all({play.seat for play in frame.trick} == {0, 1} for frame in done)
    following = frames[frames.index(done[0]) + 1]
    assert len(following.trick) == 1


def test_draws_are_hidden_from_the_other_seat() -> None:
    """A draw shows its card to the drawing seat only (the face-up trump to all), the full
    view shows both."""
    record = local_record("briscola", 2)
    full = [frame for frame in match_frames(record, None) if frame.draws]
    seat0 = [frame for frame in match_frames(record, 0) if frame.draws]
    assert len(full) == len(seat0) > 0
    for whole, mine in zip(full, seat0, strict=True):
        for (seat, cards), (same_seat, seen) in zip(whole.draws, mine.draws, strict=True):
            assert seat == same_seat
            assert all(not card.hidden for card in cards)
            trump = whole.trump.code if whole.trump else ""
            if seat == 0:
                assert all(not card.hidden for card in seen)
            else:
                assert all(card.hidden or card.code == trump for card in seen)


def test_captures_and_table_cards_in_scopa() -> None:
    """Scopa frames show the table cards and each capture with its seat."""
    frames = match_frames(local_record("scopa", 2), None)
    assert len(frames[0].table) == 4
    captures = [frame for frame in frames if frame.capture is not None]
    assert captures
    seat, cards = captures[0].capture  # type: ignore[misc]
    assert seat in (0, 1) and len(cards) >= 2


def test_auction_is_listed_in_order() -> None:
    """Misère's bids appear in the auction of later frames, one entry per seat."""
    frames = match_frames(local_record("misere", 4), None)
    after = frames[4]
    assert [seat for seat, _ in after.auction] == [0, 1, 2, 3]
    assert all(text.startswith("bid") for _, text in after.auction)


def test_seat_view_hides_other_hands() -> None:
    """In seat 1's view, seat 0's hand is a count of backs and seat 1's is face up."""
    record = local_record("briscola", 2)
    frame = match_frames(record, 1)[0]
    assert frame.seats[0].cards == () and frame.seats[0].hidden == 3
    assert len(frame.seats[1].cards) == 3 and frame.seats[1].hidden == 0


def test_unknown_seat_is_refused() -> None:
    """A view of a seat the match does not have is a ValueError naming the seats."""
    with pytest.raises(ValueError, match="seats 0 to 1"):
        match_frames(local_record("briscola", 2), 2)


def test_card_faces_and_labels() -> None:
    """Cards get their rank, suit symbol and colour; labels get suit symbols."""
    deck = load_game("briscola", 2, {}).deck
    seven = card_face(deck, deck.parse("7D"))
    assert (seven.code, seven.text, seven.red) == ("7D", "7♦", True)
    assert card_face(deck, HIDDEN).hidden
    assert symbol_label(deck, "RC x 3B+AS") == "R♥ x 3♣+A♠"
    assert symbol_label(deck, "bid 11") == "bid 11"
