"""Request, MatchInfo and the card and action helpers, on requests built from real states."""

from __future__ import annotations

import itertools
import random

import pytest
from cardarena_sdk import MatchInfo, Request, card_name, rank_of, suit_of
from cardarena_sdk.actions import action_kind, playable_cards
from cardarena_sdk.cards import DeckInfo
from cardarena_sdk.decode import ObservationDecoder
from cardarena_sdk.match import params_from_message

from arena.games import ActionKind, State, load_game
from arena.games.cards import HIDDEN
from arena.policies import make_policy
from arena.protocol import RequestEncoder, match_start_message
from arena.protocol.v1 import agent_pb2 as pb


def request_for(game_id: str, players: int, seed: int = 1, moves: int = 0,
                params: dict[str, object] | None = None) -> tuple[State, Request]:
    """A state after ``moves`` random actions and the Request of the seat to act."""
    game = load_game(game_id, players=players, params=params)
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    for _ in range(moves):
        state.apply_action(rng.choice(state.legal_actions()))
    seat = state.current_player()
    match = MatchInfo(match_start_message(game, seat, "m-7", 500, 5000))
    message = RequestEncoder(state, seat).request(9, 400, 4500).decision_request
    return state, Request(message, match)


def test_observation_is_the_engine_observation() -> None:
    """The request's observation equals the engine's, legal actions included."""
    for game_id, players, moves in [("briscola", 4, 9), ("briscola-chiamata", 5, 3),
                                    ("scopa", 2, 5), ("misere", 4, 6)]:
        state, request = request_for(game_id, players, moves=moves)
        assert request.observation == state.observation(state.current_player())
        assert request.legal_ids == [a + 1 for a in state.legal_actions()]


def test_request_fields() -> None:
    """Request id, time left and the action lookup by id."""
    state, request = request_for("briscola", 2)
    assert (request.request_id, request.decision_ms, request.bank_ms) == (9, 400, 4500)
    first = state.legal_actions()[0]
    assert request.action(first + 1).label == state.action_to_string(first)
    with pytest.raises(ValueError, match="action id 999 is not legal"):
        request.action(999)
    assert "seat=" in repr(request)


def test_action_for_card_plays_that_card() -> None:
    """Each card in hand maps to the legal action whose meaning plays it."""
    for game_id, players, moves in [("briscola", 3, 4), ("scopa", 2, 3), ("tressette", 4, 2)]:
        state, request = request_for(game_id, players, moves=moves)
        seat = state.current_player()
        for action in state.legal_actions():
            meaning = state.action_meaning(action)
            if len(meaning.cards) != 1:
                continue
            wire = request.action_for_card(meaning.cards[0])
            assert state.action_meaning(wire - 1).cards == meaning.cards
        unplayable = next(c for c in range(state.game.deck.size)
                          if c not in state.observation(seat).hand)
        with pytest.raises(ValueError, match=f"no legal action for card {unplayable}"):
            request.action_for_card(unplayable)


def test_actions_of_kind_and_card() -> None:
    """Kinds given as enum, number or name select the same actions."""
    _, request = request_for("briscola-chiamata", 5)
    bids = request.actions_of_kind(ActionKind.BID)
    assert bids and all(a.kind == pb.ACTION_KIND_BID for a in bids)
    assert request.actions_of_kind("bid") == bids == request.actions_of_kind(4)
    assert request.actions_of_kind("ACTION_KIND_BID") == bids
    assert [a.label for a in request.actions_of_kind("PASS")] == ["pass"]
    assert request.actions_of_kind("PLAY") == []
    assert request.playable_cards() == []
    with pytest.raises(ValueError, match="unknown action kind 'fold'"):
        request.actions_of_kind("fold")
    with pytest.raises(ValueError, match="not a known ActionKind"):
        action_kind(99)


def test_captures_by_card() -> None:
    """In scopa every capture of a card is found, and playable cards cover the hand."""
    for seed in range(1, 6):
        state, request = request_for("scopa", 2, seed=seed, moves=2)
        captures = request.actions_of_kind("CAPTURE")
        for capture in captures:
            card = capture.cards[0]
            assert capture in request.actions_for_card(card)
            assert capture in request.actions_for_card(card, "capture")
            assert request.actions_for_card(card, "DRAW") == []
        hand = state.observation(state.current_player()).hand
        assert sorted(request.playable_cards()) == sorted(hand)
        assert playable_cards(request.legal_actions) == request.playable_cards()


def test_wire_id_and_random_action() -> None:
    """Engine actions convert to legal wire ids; an illegal engine action is refused."""
    state, request = request_for("briscola", 2)
    for action in state.legal_actions():
        assert request.wire_id(action) == action + 1
    illegal = next(a for a in range(40) if a not in state.legal_actions())
    with pytest.raises(ValueError, match="not legal"):
        request.wire_id(illegal)
    rng = random.Random(5)
    assert all(request.random_action(rng) in request.legal_ids for _ in range(20))


def test_card_names_suits_and_ranks() -> None:
    """Names, suits and ranks come from the MatchStart deck and match the engine's deck."""
    for game_id, players in [("briscola", 2), ("misere", 4), ("briscola-chiamata-due-mazzi", 8)]:
        state, request = request_for(game_id, players)
        deck = state.game.deck
        info = request.match.deck
        assert info.size == deck.size and info.name == deck.name
        for card in range(deck.size):
            assert request.card_name(card) == deck.short(card)
            assert request.card_name(card, "symbol") == deck.short(card, symbols=True)
            assert request.card_name(card, "name") == deck.long_name(card, "en")
            assert request.card_name(card, "italian") == deck.long_name(card, "it")
            assert request.suit_of(card) == deck.suit(card) == suit_of(info, card)
            assert request.rank_of(card) == deck.rank(card) == rank_of(info, card)
            assert info.copy_of(card) == deck.copy(card)
            assert info.card_id(info.card_name(card)) == card
            assert info.card_id(info.card_name(card, "symbol")) == card
        assert card_name(info, HIDDEN) == "??"
        assert sorted(c for s in range(len(info.suits)) for c in info.cards_of_suit(s)) == list(
            range(deck.size))
        assert info.suit_name(0) and info.rank_name(0)


def test_deck_errors_name_the_problem() -> None:
    """Bad card ids, styles, suits and names raise ValueErrors that say what is wrong."""
    _, request = request_for("briscola", 2)
    deck = request.match.deck
    with pytest.raises(ValueError, match="card 40 is not in the italian-40 deck"):
        deck.card(40)
    with pytest.raises(ValueError, match="hidden"):
        deck.suit_of(HIDDEN)
    with pytest.raises(ValueError, match="unknown card name style 'fancy'"):
        deck.card_name(3, "fancy")
    with pytest.raises(ValueError, match="suit 4 is not a suit"):
        deck.suit_name(4)
    with pytest.raises(ValueError, match="rank 10 is not a rank"):
        deck.rank_name(10)
    with pytest.raises(ValueError, match="no card 'ZZ'"):
        deck.card_id("ZZ")
    shuffled = pb.Deck(name="x", cards=[pb.Card(id=1), pb.Card(id=0)])
    with pytest.raises(ValueError, match="card 0 has id 1"):
        DeckInfo.from_message(shuffled)


def test_a_deck_is_read_once_and_kept_for_the_next_matches() -> None:
    """Two MatchStarts with one deck share its DeckInfo; another deck reads as itself, and a
    deck read card by card is the same."""
    first = match_start_message(load_game("briscola", players=2), 0, "m-1", 1, 1)
    again = match_start_message(load_game("briscola", players=2), 1, "m-2", 1, 1)
    other = match_start_message(load_game("misere"), 0, "m-3", 1, 1)
    deck = MatchInfo(first).deck
    assert MatchInfo(again).deck is deck
    assert deck == DeckInfo._read(first.deck) and deck.size == 40
    assert MatchInfo(other).deck.size == 52 and MatchInfo(other).deck.name != deck.name


def test_match_info() -> None:
    """MatchInfo reads the game, parameters, seats, teams, clock and loads the engine game."""
    game = load_game("briscola", players=4, params={"hands": 2})
    match = MatchInfo(match_start_message(game, 1, "m-9", 700, 9000))
    assert (match.game_id, match.seat, match.num_seats, match.match_id) == ("briscola", 1, 4,
                                                                              "m-9")
    assert match.params == game.params and match.params["hands"] == 2
    assert match.teams == game.teams() and match.team() == (1, 3)
    assert (match.decision_ms, match.bank_ms) == (700, 9000)
    assert match.rules_version == game.spec.rules_version
    assert match.game.params == game.params and match.game is match.game
    assert match.card_name(0) == game.deck.short(0)
    solo = MatchInfo(match_start_message(load_game("briscola", players=3), 0, "m", 1, 1))
    assert solo.teams == () and solo.team() is None


def test_params_from_message_rejects_bad_parameters() -> None:
    """A parameter without a value, or given twice, is a ValueError naming it."""
    with pytest.raises(ValueError, match="'hands' has no value"):
        params_from_message([pb.Parameter(name="hands")])
    twice = [pb.Parameter(name="hands", int_value=1), pb.Parameter(name="hands", int_value=2)]
    with pytest.raises(ValueError, match="'hands' is given twice"):
        params_from_message(twice)


def test_decoder_over_whole_matches_gives_the_engine_observations() -> None:
    """One decoder per seat, request after request, gives exactly the engine observations."""
    for game_id, players in [("briscola-chiamata-carta", 5), ("scopone", 4), ("presidente", 4),
                             ("tressette-pozzo", 3)]:
        game = load_game(game_id, players=players)
        state = game.new_initial_state(11)
        matches = [MatchInfo(match_start_message(game, s, "m", 1, 1)) for s in range(players)]
        encoders = [RequestEncoder(state, s) for s in range(players)]
        decoders = [ObservationDecoder() for _ in range(players)]
        rng = random.Random(11)
        while not state.is_terminal():
            seat = state.current_player()
            message = encoders[seat].request(1, 1, 1).decision_request
            request = Request(message, matches[seat], decoders[seat])
            assert request.observation == state.observation(seat)
            state.apply_action(rng.choice(state.legal_actions()))


def test_decoder_starts_over_when_the_history_does_not_continue() -> None:
    """A history that is shorter or differs at the last kept event is decoded afresh."""
    later, _ = request_for("briscola", 2, seed=1, moves=8)
    early, _ = request_for("briscola", 2, seed=2, moves=2)
    decoder = ObservationDecoder()
    for state in (later, early, later):
        seat = state.current_player()
        message = RequestEncoder(state, seat).request(1, 1, 1).decision_request.observation
        assert decoder.events(message.events) == state.observation(seat).events
    other, _ = request_for("briscola", 2, seed=3, moves=9)
    seat = other.current_player()
    message = RequestEncoder(other, seat).request(1, 1, 1).decision_request.observation
    assert decoder.events(message.events) == other.observation(seat).events


def test_legal_actions_are_a_list_built_once() -> None:
    """``legal_actions`` is a list of LegalAction messages, the same list on every use."""
    _, request = request_for("briscola-chiamata", 5)
    actions = request.legal_actions
    assert type(actions) is list and all(type(a) is pb.LegalAction for a in actions)
    assert actions == list(request.raw.legal_actions) and request.legal_actions is actions
    assert request.legal_ids == [a.id for a in request.raw.legal_actions]
    request.legal_actions = actions[:2]
    assert request.legal_ids == [a.id for a in actions[:2]]


def test_random_action_draws_as_choice_over_the_list() -> None:
    """The same ids and the same generator state as ``rng.choice(legal_actions)``, whether the
    list is built yet or not."""
    for seed, build in itertools.product(range(30), [False, True]):
        _, request = request_for("briscola-chiamata", 5, seed=seed)
        rng, reference = random.Random(seed), random.Random(seed)
        if build:
            assert request.legal_actions
        legal = list(request.raw.legal_actions)
        drawn = [request.random_action(rng) for _ in range(10)]
        assert drawn == [reference.choice(legal).id for _ in range(10)]
        assert rng.getstate() == reference.getstate()
    _, request = request_for("briscola", 2)
    del request.raw.legal_actions[:]
    with pytest.raises(IndexError, match="Cannot choose from an empty sequence"):
        request.random_action(random.Random(1))


def test_is_legal() -> None:
    """Legal ids, drawn or not, are legal; others are not, also after the list changes."""
    _, request = request_for("briscola", 2, seed=4)
    ids = request.legal_ids
    assert all(request.is_legal(i) for i in ids) and not request.is_legal(999)
    _, request = request_for("briscola", 2, seed=4)
    drawn = request.random_action(random.Random(2))
    assert request.is_legal(drawn) and not request.is_legal(0)
    assert all(request.is_legal(i) for i in ids)
    request.legal_actions.clear()
    assert not request.is_legal(drawn)


def test_a_time_budget_is_capped_by_a_share_of_the_time_left() -> None:
    """The request leaves 400 ms of decision time and 4500 of bank (4900 in all)."""
    _, request = request_for("briscola", 2)
    assert request.budget_s(100) == pytest.approx(0.1)
    assert request.budget_s(3000) == pytest.approx(2.45)
    assert request.budget_s(3000, share=0.1) == pytest.approx(0.49)
    assert request.budget_s(0) == pytest.approx(0.001)


def test_a_policy_action_is_the_policys_or_a_random_legal_one() -> None:
    state, request = request_for("scopa", 2, moves=3)
    policy = make_policy("heuristic", state.game, state.current_player(), 0)
    expected = policy.act(state.observation(state.current_player())) + 1
    assert request.policy_action(policy, random.Random(0)) == expected
    drawn = {request.policy_action(None, random.Random(seed)) for seed in range(20)}
    assert drawn <= set(request.legal_ids) and len(drawn) > 1
