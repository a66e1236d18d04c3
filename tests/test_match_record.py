"""Match records: local play, the JSON form, replays that verify, and the generic display."""

from __future__ import annotations

import dataclasses
import json
from enum import IntEnum
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.cli.render import EventPrinter, match_lines
from arena.games import Event, EventKind, all_configurations, load_game
from arena.games.cards import ITALIAN_40
from arena.games.rng import MAX_SEED
from arena.match import (
    FORMAT_VERSION,
    MatchError,
    MatchRecord,
    RecordError,
    ReplayError,
    Step,
    play_local,
    replay,
    seat_policies,
)


def briscola_record(seats: int = 2, seed: int = 7, **params: int | str | bool) -> MatchRecord:
    """A finished Briscola match between a heuristic and a random policy."""
    return play_local(load_game("briscola", seats, params), seed, ["heuristic", "random"])


def tampered(record: MatchRecord, **changes: object) -> MatchRecord:
    """A copy of a record with some fields replaced."""
    return dataclasses.replace(record, **changes)  # type: ignore[arg-type]


# --- local play ----------------------------------------------------------------------------


def test_play_local_records_a_finished_match() -> None:
    record = briscola_record(seats=4, hands=2)
    state = replay(record)
    assert state.is_terminal()
    assert record.game == "briscola"
    assert record.players == 4
    assert record.params["hands"] == 2
    assert record.policies == ("heuristic", "random", "heuristic", "random")
    assert list(record.returns) == state.returns()
    assert list(record.actions) == state.history()
    assert len(record.actions) == 80
    assert sum(record.returns) == 0


def test_play_local_is_deterministic_and_seeded() -> None:
    assert briscola_record(seed=11) == briscola_record(seed=11)
    assert briscola_record(seed=11).actions != briscola_record(seed=12).actions


def test_seat_policies_repeat_cyclically() -> None:
    assert seat_policies([], 3) == ("heuristic",) * 3
    assert seat_policies(["random"], 2) == ("random", "random")
    assert seat_policies(["random", "heuristic"], 5) == (
        "random", "heuristic", "random", "heuristic", "random")
    with pytest.raises(MatchError, match="3 policies given for 2 seats"):
        seat_policies(["random"] * 3, 2)


@pytest.mark.parametrize("seed", [-1, MAX_SEED + 1])
def test_play_local_rejects_a_seed_out_of_range(seed: int) -> None:
    with pytest.raises(MatchError, match="invalid seed"):
        play_local(load_game("briscola"), seed, ["random"])


def test_play_local_stops_a_runaway_match() -> None:
    with pytest.raises(MatchError, match="stopped after 5 actions"):
        play_local(load_game("briscola"), 1, ["random"], max_actions=5)


@pytest.mark.parametrize(("game_id", "seats", "params"), all_configurations())
def test_every_configuration_plays_replays_and_renders(
        game_id: str, seats: int, params: dict[str, int | str | bool]) -> None:
    game = load_game(game_id, seats, params)
    record = play_local(game, 3, ["random"])
    again = MatchRecord.from_json(record.to_json())
    assert again == record
    state = replay(again)
    events = state.full_events()
    lines = [line.plain for line in match_lines(record, game)]
    tricks = [line for line in lines if line.startswith("  trick ")]
    hands = [line for line in lines if line.startswith("Hand ")]
    assert len(tricks) == sum(event.kind == EventKind.TRICK for event in events)
    assert len(hands) == sum(event.kind == EventKind.HAND_START for event in events)
    assert all("?" not in line.split("→")[0] for line in tricks)


# --- the JSON form -------------------------------------------------------------------------


def test_json_round_trip_and_fields() -> None:
    record = briscola_record(seats=3)
    data = json.loads(record.to_json())
    assert data["format"] == "card-arena.match"
    assert data["format_version"] == FORMAT_VERSION
    assert data["game"] == "briscola"
    assert data["players"] == 3
    assert data["seed"] == 7
    assert data["actions"] == list(record.actions)
    assert data["policies"] == ["heuristic", "random", "heuristic"]
    assert data["rules_version"] == load_game("briscola").spec.rules_version == "3"
    assert data["arena_version"]
    assert MatchRecord.from_json(record.to_json()) == record


def test_a_local_record_says_its_seed_was_given_and_a_secret_one_survives_json() -> None:
    """A seed given here is not secret; a record without the key (an older one) reads as
    given; a secret deal's record keeps saying so."""
    record = briscola_record()
    data = json.loads(record.to_json())
    assert (record.seed_source, data["seed_source"]) == ("given", "given")
    del data["seed_source"]
    assert MatchRecord.from_dict(data).seed_source == "given"
    secret = tampered(record, seed_source="secret")
    assert json.loads(secret.to_json())["seed_source"] == "secret"
    assert MatchRecord.from_json(secret.to_json()) == secret


@given(seed=st.integers(min_value=0, max_value=MAX_SEED))
def test_any_seed_survives_json_and_replay(seed: int) -> None:
    record = play_local(load_game("briscola-31", 3), seed, ["random", "heuristic"])
    again = MatchRecord.from_json(record.to_json())
    assert replay(again).returns() == list(record.returns)


def test_save_and_load(tmp_path: Path) -> None:
    record = briscola_record()
    path = tmp_path / "match.json"
    record.save(path)
    assert MatchRecord.load(path) == record


def test_load_names_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match=r"cannot read match record .*missing\.json"):
        MatchRecord.load(tmp_path / "missing.json")


def test_unknown_keys_are_ignored() -> None:
    data = json.loads(briscola_record().to_json())
    data["comment"] = "a later version may add keys"
    assert MatchRecord.from_dict(data) == briscola_record()


@pytest.mark.parametrize(("change", "message"), [
    ({"format": "something-else"}, "not a match record"),
    ({"format_version": 99}, "unsupported match record format_version 99"),
    ({"players": "2"}, "'players' must be an integer"),
    ({"players": True}, "'players' must be an integer"),
    ({"seed": -3}, "'seed' must be an integer 0..18446744073709551615"),
    ({"seed": MAX_SEED + 1}, "'seed' must be an integer"),
    ({"actions": [1, "2"]}, "'actions' must be a list of action ids"),
    ({"actions": [1, True]}, "'actions' must be a list of action ids"),
    ({"actions": [-1]}, "action ids are never negative"),
    ({"policies": ["random"]}, "2 players but 1 policies"),
    ({"returns": [1.0, "x"]}, "'returns' must be a list of numbers"),
    ({"params": {"hands": [1]}}, "'params' must map names"),
    ({"game": ""}, "'game' must be a non-empty string"),
    ({"seed_source": "hidden"}, "'seed_source' must be one of given, secret, got 'hidden'"),
    ({"seed_source": ["secret"]}, "'seed_source' must be one of given, secret"),
])
def test_bad_fields_are_named(change: dict[str, object], message: str) -> None:
    data = json.loads(briscola_record().to_json())
    data.update(change)
    with pytest.raises(RecordError, match=message):
        MatchRecord.from_dict(data)


@pytest.mark.parametrize("key", ["game", "players", "params", "seed", "actions", "policies",
                                 "returns", "rules_version", "arena_version"])
def test_a_missing_key_is_named(key: str) -> None:
    data = json.loads(briscola_record().to_json())
    del data[key]
    with pytest.raises(RecordError, match=f"the key '{key}' is missing"):
        MatchRecord.from_dict(data)


@pytest.mark.parametrize("text", ["", "{", "[1, 2]", "null", "\"record\""])
def test_text_that_is_no_record(text: str) -> None:
    with pytest.raises(RecordError, match="not a match record"):
        MatchRecord.from_json(text)


# --- replays that verify -------------------------------------------------------------------


def test_replay_detects_tampered_returns() -> None:
    record = briscola_record()
    wrong = tampered(record, returns=tuple(-value for value in record.returns))
    with pytest.raises(ReplayError, match="differ from the recorded returns"):
        replay(wrong)


def test_replay_detects_an_illegal_action() -> None:
    record = briscola_record()
    state = record.make_game().new_initial_state(record.seed)
    foreign = next(card for card in range(40) if card not in state.legal_actions())
    wrong = tampered(record, actions=(foreign, *record.actions[1:]))
    with pytest.raises(ReplayError, match=r"recorded action 1 of 40 cannot be replayed"):
        replay(wrong)


def test_replay_detects_a_truncated_record() -> None:
    record = briscola_record()
    with pytest.raises(ReplayError, match="the match is not over"):
        replay(tampered(record, actions=record.actions[:-1]))


def test_replay_detects_actions_after_the_end() -> None:
    record = briscola_record()
    with pytest.raises(ReplayError, match="the match is over"):
        replay(tampered(record, actions=(*record.actions, record.actions[-1])))


def test_replay_detects_another_seed() -> None:
    record = briscola_record()
    with pytest.raises(ReplayError):
        replay(tampered(record, seed=record.seed + 1))


def test_replay_detects_another_rules_version() -> None:
    with pytest.raises(ReplayError, match="rules version '0'"):
        replay(tampered(briscola_record(), rules_version="0"))


# --- the generic display -------------------------------------------------------------------


class FutureKind(IntEnum):
    """An event kind the display has never heard of."""

    SIDE_BET = 99


def future_event(kind: FutureKind, seat: int, cards: tuple[int, ...], values: tuple[int, ...]
                 ) -> Event:
    """An event of a kind this engine lacks, shaped as an ``Event`` (the compiled engine's
    ``Event`` accepts only its own kinds)."""
    return cast(Event, SimpleNamespace(kind=kind, seat=seat, cards=cards, values=values))


def card(text: str) -> int:
    """An Italian card id from its compact name."""
    return ITALIAN_40.parse(text)


def shown(steps: list[Step]) -> list[str]:
    """The plain lines a printer makes of some steps."""
    printer = EventPrinter(ITALIAN_40, ((0, 2), (1, 3)))
    lines = [line for step in steps for line in printer.feed(step)]
    return [line.plain for line in lines + printer.finish()]


def test_display_of_an_auction_face_down_trick_and_unknown_kinds() -> None:
    ace, three, king, seven = card("AC"), card("3D"), card("RB"), card("7S")
    steps = [
        Step(Event(EventKind.HAND_START, 3, (), (0,))),
        Step(Event(EventKind.BID, 0, (), (2,)), 0, 60, "bid 2"),
        Step(Event(EventKind.PASS, 1), 1, 70, "pass"),
        Step(Event(EventKind.CALL, 0, (ace,)), 0, 71, "call AC"),
        Step(Event(EventKind.COMMIT, 0, (), (1,)), 0, 80, "suit denari"),
        Step(Event(EventKind.PLAY_FACE_DOWN, 0, (ace,))),
        Step(Event(EventKind.PLAY, 1, (three,))),
        Step(Event(EventKind.REVEAL, 0, (ace,))),
        Step(Event(EventKind.TRUMP, -1, (), (1,))),
        Step(Event(EventKind.PLAY, 2, (king,))),
        Step(Event(EventKind.PLAY, 3, (seven,))),
        Step(Event(EventKind.TRICK, 1, (ace, three, king, seven), (25,))),
        Step(Event(EventKind.DRAW, 1, (card("2C"),))),
        Step(Event(EventKind.DRAW, 2, (card("4C"),))),
        Step(future_event(FutureKind.SIDE_BET, 2, (king,), (5,)), 2, 90, "side-bet 5"),
        Step(Event(EventKind.CAPTURE, 3, (card("5S"), card("6S")))),
        Step(Event(EventKind.HAND_END, 3, (card("2B"),), (40, 25, 30, 25))),
        Step(Event(EventKind.SCORE, 3, (), (1, -1, 1, -1))),
        Step(Event(EventKind.REDEAL, 0)),
        Step(Event(EventKind.MATCH_END, -1, (), (1, -1, 1, -1))),
    ]
    assert shown(steps) == [
        "Hand 1 · dealer seat 3",
        "  seat 0 bids 2",
        "  seat 1 passes",
        "  seat 0 calls A♥",
        "  seat 0 commits suit denari",
        "  trump ♦",
        "  trick 1  seat 0 A♥ (face down) · seat 1 3♦ · seat 2 R♣ · seat 3 7♠  → seat 1 takes "
        "25 points",
        "  draws  seat 1 2♥ · seat 2 4♥",
        "  seat 2 side bet R♣ 5 [side-bet 5]",
        "  seat 3 captures 5♠ 6♠",
        "  card points  seat 0 40 · seat 1 25 · seat 2 30 · seat 3 25  (seats 0+2: 70, "
        "seats 1+3: 50)",
        "  not in any trick  2♣",
        "  hand score  seat 0 +1 · seat 1 -1 · seat 2 +1 · seat 3 -1",
        "  redeal: the hand is thrown in and dealt again",
        "  match over",
    ]


def test_plays_cut_short_by_a_decision_keep_their_order() -> None:
    steps = [
        Step(Event(EventKind.PLAY, 0, (card("AC"),)), 0, 0, "AC"),
        Step(Event(EventKind.DECLARE, 1, (), (33,)), 1, 40, "declare-31"),
        Step(Event(EventKind.HAND_END, 1, (), (11, 33, 0, 0))),
    ]
    assert shown(steps)[:2] == ["  seat 0 plays A♥", "  seat 1 declares 33 [declare-31]"]


def test_plays_shown_early_still_name_their_trick() -> None:
    steps = [
        Step(Event(EventKind.PLAY, 0, (card("AC"),)), 0, 0, "AC"),
        Step(Event(EventKind.DECLARE, 1, (), (2,)), 1, 50, "accuso"),
        Step(Event(EventKind.PLAY, 1, (card("3C"),)), 1, 2, "3C"),
        Step(Event(EventKind.TRICK, 0, (card("AC"), card("3C")), (21,))),
    ]
    assert shown(steps) == [
        "  seat 0 plays A♥",
        "  seat 1 declares 2 [accuso]",
        "  trick 1  seat 0 A♥ · seat 1 3♥  → seat 0 takes 21 points",
    ]


def test_display_of_a_real_match_names_every_trick_winner() -> None:
    record = briscola_record(seats=3)
    state = replay(record)
    winners = [event.seat for event in state.full_events() if event.kind == EventKind.TRICK]
    lines = [line.plain for line in match_lines(record)]
    shown_winners = [int(line.split("→ seat ")[1].split()[0]) for line in lines
                     if line.startswith("  trick ")]
    assert shown_winners == winners
    assert len(winners) == 13
    assert any(line.startswith("  not in any trick  2♣") for line in lines)


def test_a_play_left_over_from_an_earlier_hand_does_not_confuse_a_trick() -> None:
    steps = [
        Step(Event(EventKind.HAND_START, 3, (), (0,))),
        Step(Event(EventKind.PLAY, 0, (card("AC"),)), 0, 0, "AC"),
        Step(Event(EventKind.DECLARE, 1, (), (31,)), 1, 40, "declare-31"),
        Step(Event(EventKind.HAND_END, 3, (), (0, 31, 0, 0))),
        Step(Event(EventKind.HAND_START, 0, (), (1,))),
        Step(Event(EventKind.PLAY, 1, (card("3C"),)), 1, 2, "3C"),
        Step(Event(EventKind.PLAY, 2, (card("AC"),)), 2, 0, "AC"),
        Step(Event(EventKind.TRICK, 2, (card("3C"), card("AC")), (21,))),
    ]
    assert shown(steps)[-1] == "  trick 1  seat 1 3♥ · seat 2 A♥  → seat 2 takes 21 points"


def test_a_hand_without_trump_says_so() -> None:
    assert shown([Step(Event(EventKind.TRUMP, 3)), Step(Event(EventKind.TRUMP, 3, (), (-1,)))]) \
        == ["  no trump", "  no trump"]
