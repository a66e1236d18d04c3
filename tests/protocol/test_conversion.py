"""Engine <-> protobuf conversion is exact, and the fast encoder agrees with the simple path.

For every configuration: at random states of random playouts, the seats' observations (one
seat per state, in turn) go to bytes and back unchanged, and the legal actions' wire ids map
back to exactly the legal set; over whole playouts, every DecisionRequest the fast
``RequestEncoder`` builds is, byte for byte, the one the reference ``MessageEncoder`` builds
from the plain conversion functions (both are a ``RequestEncoding``). Hypothesis also builds
arbitrary observations and action meanings, to reach values no game produces.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.games import ActionKind, ActionMeaning, Event, EventKind, Observation, State
from arena.games.testing import pick_stops, states_at
from arena.protocol import (
    MessageEncoder,
    ProtocolError,
    RequestEncoder,
    RequestEncoding,
    engine_action,
    event_from_message,
    event_to_message,
    legal_action_message,
    legal_actions_message,
    observation_from_message,
    observation_from_request,
    observation_to_message,
)
from arena.protocol.serialize import event_bytes, legal_action_bytes, observation_bytes
from arena.protocol.v1 import agent_pb2 as pb
from tests.conformance.harness import CONFIG_IDS, CONFIGS, Config, make_game, playout

STOPS_PER_PLAYOUT = 3
DECISION_MS, BANK_MS = 1000, 60_000

SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
each_config = pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)


def where(state: State, seat: int) -> str:
    """A locator for failure messages."""
    return f"{state.game!r} seed {state.seed()} after {len(state.history())} actions, seat {seat}"


def expected_request(state: State, seat: int, request_id: int) -> pb.DecisionRequest:
    """The DecisionRequest of ``seat`` built by the plain conversion functions."""
    return MessageEncoder(state, seat).decision_request(request_id, DECISION_MS, BANK_MS)


def check_round_trip(state: State, seat: int) -> None:
    """The seat's observation survives message and bytes unchanged."""
    observation = state.observation(seat)
    data = observation_to_message(observation).SerializeToString()
    back = observation_from_message(pb.Observation.FromString(data), observation.legal_actions)
    assert back == observation, where(state, seat)
    assert all(type(score) is float for score in back.scores)


def check_legal_actions(state: State) -> None:
    """Wire ids are the legal actions + 1, in order, each with its meaning's fields."""
    messages = legal_actions_message(state)
    legal = state.legal_actions()
    assert [engine_action(m.id) for m in messages] == legal, where(state, -1)
    for action, message in zip(legal, messages, strict=True):
        meaning = state.action_meaning(action)
        assert ActionKind(message.kind) == meaning.kind
        assert (tuple(message.cards), tuple(message.captured)) == (meaning.cards,
                                                                   meaning.captured)
        value = message.value if message.HasField("value") else None
        assert (value, message.suit, message.rank, message.table, message.label) == (
            meaning.value, meaning.suit, meaning.rank, meaning.table, meaning.label)


@each_config
@given(seed=SEEDS)
def test_conversion_is_exact_at_random_states(config: Config, seed: int) -> None:
    """Observations round-trip (one seat per state, by turns); legal ids map back exactly.

    At the last state with a decision, the DecisionRequest gives back the acting seat's
    observation, legal actions included.
    """
    game = make_game(config)
    actions = playout(game, seed).history()
    stops = [*pick_stops(random.Random(seed), len(actions), STOPS_PER_PLAYOUT), len(actions)]
    acting: pb.DecisionRequest | None = None
    for index, state in enumerate(states_at(game, seed, actions, stops)):
        check_round_trip(state, (seed + index) % game.num_players)
        check_legal_actions(state)
        if not state.is_terminal():
            seat = state.current_player()
            acting = expected_request(state, seat, index)
            observation = state.observation(seat)
    if acting is not None:
        assert observation_from_request(acting) == observation


@pytest.mark.parametrize("index", range(len(CONFIGS)), ids=CONFIG_IDS)
def test_encoder_matches_the_plain_conversion(index: int) -> None:
    """At every decision of a whole playout, the fast encoder's request is the reference
    one, byte for byte as protobuf serializes it.

    The playout's seed alternates over the configurations: uniformly random moves (even)
    or moves mixed with the heuristic policy (odd).
    """
    game = make_game(CONFIGS[index])
    seed = index % 2
    state = game.new_initial_state(seed)
    encoders = [RequestEncoder(state, seat) for seat in range(game.num_players)]
    fast: list[RequestEncoding] = list(encoders)
    reference: list[RequestEncoding] = [MessageEncoder(state, seat)
                                        for seat in range(game.num_players)]
    rng = random.Random(seed)
    for request_id, action in enumerate(playout(game, seed).history(), start=1):
        seat = state.current_player()
        data = fast[seat].request_bytes(request_id, DECISION_MS, BANK_MS)
        sent = pb.PlayRequest.FromString(data)
        expected = expected_request(state, seat, request_id)
        assert sent.WhichOneof("message") == "decision_request"
        assert sent.decision_request == expected, where(state, seat)
        assert data == reference[seat].request_bytes(request_id, DECISION_MS, BANK_MS), (
            where(state, seat))
        if rng.random() < 0.05:
            other = rng.randrange(game.num_players)
            observation = pb.Observation.FromString(encoders[other].observation_bytes())
            assert observation == observation_to_message(state.observation(other)), (
                where(state, other))
        state.apply_action(action)


def test_encoder_starts_over_on_another_history() -> None:
    """An encoder given a state whose log does not continue its own re-encodes it all."""
    game = make_game(CONFIGS[0])
    first, second = playout(game, 0, stop=30), playout(game, 1, stop=10)
    encoder = RequestEncoder(first, 0)
    encoder.observation_bytes()
    encoder.state = second
    parsed = pb.Observation.FromString(encoder.observation_bytes())
    assert parsed == observation_to_message(second.observation(0))


def test_event_round_trip_keeps_sentinels_and_empty_fields() -> None:
    """Events with -1 cards, negative values, seat -1 and no cards or values convert exactly."""
    events = [Event(EventKind.PLAY, 3, (-1, -1), ()), Event(EventKind.SCORE, -1, (), (-7, 0, 7)),
              Event(EventKind.HAND_START, 0), Event(EventKind.MATCH_END, 2, (), (-2**31,))]
    for event in events:
        message = pb.Event.FromString(event_to_message(event).SerializeToString())
        assert event_from_message(message) == event
        assert type(event_from_message(message).kind) is EventKind


INT32 = st.integers(min_value=-2**31, max_value=2**31 - 1)
INTS = st.lists(INT32, max_size=6).map(tuple)
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
EVENTS = st.builds(Event, st.sampled_from(EventKind), INT32, INTS, INTS)
OBSERVATIONS = st.builds(
    Observation, game=TEXT, seat=INT32, num_seats=INT32, hand_number=INT32, dealer=INT32,
    phase=TEXT, current_player=INT32, hand=INTS, hand_sizes=INTS, points=INTS,
    scores=st.lists(st.floats(allow_nan=False), max_size=6).map(tuple),
    events=st.lists(EVENTS, max_size=8).map(tuple), legal_actions=INTS,
    visible_hands=st.lists(st.tuples(INT32, INTS), max_size=3).map(tuple),
    trump_suit=INT32, trump_card=INT32, called_card=INT32, table=INTS,
    trick=st.lists(st.tuples(INT32, INT32), max_size=4).map(tuple), stock_size=INT32,
    teammates=INTS)


@given(observation=OBSERVATIONS)
def test_any_observation_converts_exactly(observation: Observation) -> None:
    """Any observation with values in the fields' ranges survives message and bytes, and the
    fast byte encoding parses to the same message."""
    message = observation_to_message(observation)
    parsed = pb.Observation.FromString(message.SerializeToString())
    assert observation_from_message(parsed, observation.legal_actions) == observation
    assert pb.Observation.FromString(observation_bytes(observation)) == message


@given(observation=OBSERVATIONS)
def test_the_encoder_writes_any_observation_as_protobuf_does(observation: Observation) -> None:
    """The encoder's bytes of any observation (its cached fields included) are protobuf's."""
    state = make_game(CONFIGS[0]).new_initial_state(0)
    encoder = RequestEncoder(state, 1)
    mine = replace(observation, game=state.game.id, seat=1, num_seats=state.game.num_players)
    expected = observation_to_message(mine).SerializeToString()
    assert encoder.observation_bytes(mine) == expected
    assert encoder.observation_bytes(mine) == expected


def test_scores_of_zero_and_minus_zero_keep_their_own_bytes() -> None:
    """0.0 and -0.0 are equal as numbers but not as bytes; each is sent as it is."""
    state = make_game(CONFIGS[0]).new_initial_state(0)
    encoder = RequestEncoder(state, 0)
    observation = state.observation(0)
    for scores in ((0.0, -0.0), (-0.0, 0.0), (0.0, 0.0)):
        changed = replace(observation, scores=scores)
        assert encoder.observation_bytes(changed) == (
            observation_to_message(changed).SerializeToString())


MEANINGS = st.builds(ActionMeaning, st.sampled_from(ActionKind), INTS, INTS,
                     st.none() | INT32, INT32, INT32, INT32, TEXT)


@given(action=st.integers(min_value=0, max_value=2**32 - 2), meaning=MEANINGS)
def test_any_legal_action_encodes_like_the_message(action: int, meaning: ActionMeaning) -> None:
    """The fast encoding of a legal action parses to ``legal_action_message`` (value 0 kept)."""
    request = pb.DecisionRequest.FromString(legal_action_bytes(action + 1, meaning))
    assert list(request.legal_actions) == [legal_action_message(action, meaning)]
    assert request.legal_actions[0].HasField("value") == (meaning.value is not None)


@pytest.mark.parametrize("value", [2**31, -2**31 - 1])
def test_fast_encoding_rejects_values_outside_sint32(value: int) -> None:
    """A card or value that does not fit its field is a ProtocolError, as protobuf refuses it."""
    event = Event(EventKind.SCORE, 0, (), (value,))
    with pytest.raises(ProtocolError, match=str(value)):
        event_bytes(event)
    with pytest.raises(ValueError):
        event_to_message(event)


def test_observation_round_trip_keeps_defaults_and_sentinels() -> None:
    """An observation full of zeros, -1 sentinels and empty fields converts exactly."""
    observation = Observation(
        game="x", seat=0, num_seats=2, hand_number=0, dealer=-1, phase="", current_player=-4,
        hand=(), hand_sizes=(0, 0), points=(0, -3), scores=(0.0, -0.5), events=(),
        legal_actions=(), visible_hands=((1, (-1, 0)),), trump_suit=-1, trump_card=-1,
        called_card=0, table=(), trick=((0, -1),), stock_size=0, teammates=())
    message = pb.Observation.FromString(observation_to_message(observation).SerializeToString())
    assert observation_from_message(message) == observation
    assert observation_bytes(observation) == message.SerializeToString()
