"""MatchStart's CardValues: present for every game configuration, card points as the game counts
them, and trick strength, rank strength and capture values that agree with the engine's play."""

from __future__ import annotations

import pytest

from arena.games import ActionKind, EventKind, Game, State, load_game
from arena.games.registry import game_ids
from arena.games.tricks import trick_winner
from arena.protocol import ProtocolError, card_figures, match_start_message, match_start_payload
from arena.protocol import messages as messages_module
from arena.protocol.v1 import agent_pb2 as pb
from tests.conformance.harness import CONFIGS, Config, config_id, make_game, playout
from tests.tricks import played_tricks

TRICK_GAMES = {"misere", "madrasso", "tressette", "tressette-pozzo", "tressette-non-prendere",
               "tressette-toro", "high-card"} | {game for game in game_ids()
                                                  if game.startswith("briscola")}
"""Games played in tricks."""


def card_values(game: Game, seat: int = 0) -> pb.CardValues:
    """The CardValues of ``seat``'s MatchStart, as a bot reads it."""
    start = pb.PlayRequest.FromString(match_start_payload(game, seat, "m", 1000, 0)).match_start
    assert start.HasField("card_values")
    return start.card_values


@pytest.mark.parametrize("config", CONFIGS, ids=[config_id(config) for config in CONFIGS])
def test_every_configuration_sends_its_card_values(config: Config) -> None:
    game = make_game(config)
    values = card_values(game)
    assert tuple(values.points) == tuple(game.card_points or ())
    assert values.points_total == (game.points_total or 0)
    if game.card_points:
        assert len(values.points) == game.deck.size
    tables = {"trick_strength": values.trick_strength, "rank_strength": values.rank_strength,
              "capture_value": values.capture_value}
    for name, table in tables.items():
        assert len(table) in (0, game.deck.size), name
    expected = {"trick_strength"} if game.id in TRICK_GAMES - {"high-card"} else set()
    if game.id == "presidente":
        expected = {"rank_strength"}
    if game.id in ("scopa", "scopone"):
        expected = {"capture_value"}
    assert {name for name, table in tables.items() if table} == expected


def test_the_figures_of_a_few_cards() -> None:
    briscola = card_values(load_game("briscola"))
    ace, two, three, king = 0, 1, 2, 9
    assert [briscola.points[card] for card in (ace, two, three, king)] == [11, 0, 10, 4]
    assert briscola.trick_strength[ace] > briscola.trick_strength[three] > \
        briscola.trick_strength[king] > briscola.trick_strength[two]
    tressette = card_values(load_game("tressette"))
    assert [tressette.points[card] for card in (ace, two, three, 4)] == [3, 1, 1, 0]
    assert tressette.trick_strength[three] > tressette.trick_strength[two] > \
        tressette.trick_strength[ace] > tressette.trick_strength[king]
    assert list(card_values(load_game("scopa")).capture_value[:10]) == list(range(1, 11))
    assert card_values(load_game("vecchia")) == pb.CardValues()


def test_misere_and_presidente_follow_their_rank_order_parameter() -> None:
    """French ranks run 2 .. ace; the briscola order puts the ace, then the three, on top."""
    bridge = card_values(load_game("misere", 4, {"rank_order": "bridge"})).trick_strength
    briscola = card_values(load_game("misere", 4, {"rank_order": "briscola"})).trick_strength
    assert list(bridge[:13]) == list(range(13))
    assert briscola[12] > briscola[1] > briscola[11] > briscola[0]
    pagat = card_values(load_game("presidente", 4, {"rank_order": "pagat"})).rank_strength
    italian = card_values(load_game("presidente", 4, {"rank_order": "briscola"})).rank_strength
    assert max(range(10), key=lambda card: pagat[card]) == 1
    assert max(range(10), key=lambda card: italian[card]) == 0


def trick_mismatches(state: State, strength: list[int]) -> tuple[int, list[str]]:
    """Tricks in ``state``'s log, and those whose winner the strength table and the trump in
    force (the last TRUMP event of the hand) do not give."""
    suit = state.game.deck.suit_table()
    tricks, wrong = 0, []
    for trick in played_tricks(state):
        tricks += 1
        winner = trick.players[trick_winner(list(trick.cards), suit, strength, trick.trump)]
        if winner != trick.winner:
            wrong.append(f"trick {trick.cards} trump {trick.trump}: seat {trick.winner} won, "
                         f"not {winner}")
    return tricks, wrong


TRICK_CONFIGS = [config for config in CONFIGS if config[0] in TRICK_GAMES - {"high-card"}]


@pytest.mark.parametrize("config", TRICK_CONFIGS, ids=[config_id(c) for c in TRICK_CONFIGS])
def test_trick_strength_picks_every_winner_the_engine_picks(config: Config) -> None:
    game = make_game(config)
    strength = list(card_values(game).trick_strength)
    tricks = 0
    for seed in (1, 2):
        played, wrong = trick_mismatches(playout(game, seed), strength)
        assert wrong == []
        tricks += played
    assert tricks > 0


def test_a_wrong_strength_table_is_caught() -> None:
    """The check above has teeth: the rank index as strength misjudges briscola tricks."""
    game = load_game("briscola")
    rank_index = [game.deck.rank(card) for card in game.deck.cards]
    assert any(trick_mismatches(playout(game, seed), rank_index)[1] for seed in (1, 2, 3))


@pytest.mark.parametrize("game_id", ["scopa", "scopone"])
def test_every_capture_adds_up_to_the_played_cards_value(game_id: str) -> None:
    game = load_game(game_id)
    value = card_values(game).capture_value
    captures = 0

    def check(state: State) -> None:
        nonlocal captures
        for action in state.legal_actions():
            meaning = state.action_meaning(action)
            if meaning.kind == ActionKind.CAPTURE:
                captures += 1
                played, = meaning.cards
                assert sum(value[card] for card in meaning.captured) == value[played]

    for seed in (1, 2):
        playout(game, seed, hook=check)
    assert captures > 0


def test_presidente_rank_strength_is_the_climbing_order() -> None:
    """A set may follow only sets of lower rank strength (equal with allow_equal_rank)."""
    game = load_game("presidente", 4, {"allow_equal_rank": False})
    strength = card_values(game).rank_strength
    checked = 0

    def check(state: State) -> None:
        nonlocal checked
        top = None
        for kind, _, cards, _ in state.event_entries():
            if kind == EventKind.PLAY:
                top = max(strength[card] for card in cards)
            elif kind in (EventKind.TRICK, EventKind.HAND_START):
                top = None
        if top is None or state.is_terminal():
            return
        for action in state.legal_actions():
            meaning = state.action_meaning(action)
            if meaning.kind == ActionKind.PLAY:
                checked += 1
                assert min(strength[card] for card in meaning.cards) > top

    playout(game, 1, stop=120, hook=check)
    assert checked > 0


def test_a_plugin_game_gives_its_figures_as_attributes() -> None:
    game = load_game("high-card")
    assert card_figures(game).trick_strength == ()
    game.trick_strength = tuple(range(game.deck.size))  # type: ignore[attr-defined]
    assert card_figures(game).trick_strength == tuple(range(40))
    game.capture_value = (1, 2, 3)  # type: ignore[attr-defined]
    with pytest.raises(ProtocolError, match="capture_value has 3 entries for the 40 cards"):
        card_figures(game)


def test_card_values_are_built_once_per_game_configuration(
        monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []
    real = messages_module.card_values_message

    def counting(game: Game) -> pb.CardValues:
        built.append(game.id)
        return real(game)

    monkeypatch.setattr(messages_module, "card_values_message", counting)
    monkeypatch.setattr(messages_module, "_start_cache", {})
    game = load_game("briscola", 4)
    for seat in range(4):
        match_start_message(game, seat, f"m-{seat}", 1000, 0)
    match_start_message(load_game("briscola", 4), 0, "m-again", 1000, 0)
    assert built == ["briscola"]
