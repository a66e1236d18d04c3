"""Table-driven rule tests for Tressette incrociato su un toro (docs/games/tressette_toro.md)."""

from __future__ import annotations

import pytest

from arena.games import InvalidParameterError, load_game
from arena.games.api import Event, EventKind, State
from arena.games.cards import HIDDEN, ITALIAN_120
from arena.games.tressette_toro import (
    EXTRAS_PER_TABLE,
    SIGNAL_BASE,
    TABLE_ACTION_BASE,
    copy_order,
    table_of_action,
    table_seats,
)
from arena.policies import make_policy

C = ITALIAN_120.parse
LEFT, RIGHT, CORNERS = 0, 1, 2
A1, A2, A3, B1, B2, B3 = range(6)

# One 40-card deal per table (local seats in playing order), written without the copy letter.
TABLE_HANDS = [
    "AC 2C 3C 4C 5C 5D 6D 7D FB CB",
    "6C 7C 2D 3D 4B 5B 6B 7S FS CS",
    "FC CC RC AD 4D AB 2B 3B AS 2S",
    "FD CD RD 7B RB 3S 4S 5S 6S RS",
]


def table_cards(text: str, table: int) -> list[int]:
    """Card ids of one table's copy from names without the copy letter."""
    return [C(name + "abc"[table]) for name in text.split()]


def order120(hands: list[str]) -> list[int]:
    """A 120-card order giving every table the same hands (5 at a time from local seat 0)."""
    order: list[int] = []
    for table in range(3):
        for packet in range(2):
            for local in range(4):
                order += table_cards(hands[local], table)[packet * 5:packet * 5 + 5]
    return order


def keep(table: int) -> int:
    """The table's ``keep`` action."""
    return TABLE_ACTION_BASE + table * EXTRAS_PER_TABLE + 19


def events(state: State, kind: EventKind) -> list[Event]:
    """The full log's events of one kind."""
    return [event for event in state.full_events() if event.kind == kind]


def lowest_card(state: State) -> int:
    """The lowest legal card, or ``keep`` in the mandare a monte round."""
    legal = state.legal_actions()
    cards = [a for a in legal if a < TABLE_ACTION_BASE]
    return min(cards) if cards else min(legal)


# --- seating -------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("table", "seats"),
    [(LEFT, (A1, A2, B2, B1)), (RIGHT, (A2, A3, B3, B2)), (CORNERS, (A1, B1, B3, A3))],
)
def test_tables_and_playing_order(table: int, seats: tuple[int, ...]) -> None:
    """Left and Right play counter-clockwise; Corners the other way round, as on a torus."""
    assert table_seats(table, 0) == seats


@pytest.mark.parametrize(
    ("seat", "partners"),
    [(A1, (B2, B3)), (A2, (B1, B3)), (A3, (B1, B2)), (B1, (A2, A3)), (B2, (A1, A3)),
     (B3, (A1, A2))],
)
def test_partners_sit_diagonally(seat: int, partners: tuple[int, ...]) -> None:
    """Each player sits at two tables and has a diagonal partner at each."""
    state = load_game("tressette-toro").new_initial_state(0)
    assert state.observation(seat).teammates == partners
    assert sum(seat in table_seats(t, 0) for t in range(3)) == 2


def test_players_move_one_position_each_round() -> None:
    """Before round r a seat moves to position (seat + r) % 6."""
    assert table_seats(LEFT, 1) == (B3, A1, B1, A3)
    assert [table_seats(t, 6) for t in range(3)] == [table_seats(t, 0) for t in range(3)]


# --- dealing and turns ---------------------------------------------------------------------------

def test_each_table_deals_its_own_copy() -> None:
    """A seat holds its two hands, each from its table's copy, in one sorted ``hand``."""
    state = load_game("tressette-toro").new_initial_state(0, deal=order120(TABLE_HANDS))
    expected = {
        A1: table_cards(TABLE_HANDS[0], LEFT) + table_cards(TABLE_HANDS[0], CORNERS),
        A2: table_cards(TABLE_HANDS[1], LEFT) + table_cards(TABLE_HANDS[0], RIGHT),
        B3: table_cards(TABLE_HANDS[2], RIGHT) + table_cards(TABLE_HANDS[2], CORNERS),
    }
    for seat, hand in expected.items():
        assert state.observation(seat).hand == tuple(sorted(hand))
    assert state.observation(A1).hand_sizes == (20, 10, 10, 20, 10, 10)


def test_seeded_deals_shuffle_each_copy_on_its_own() -> None:
    """A seeded round deals one order: copy a, then copy b, then copy c."""
    order = load_game("tressette-toro").new_initial_state(5).deals()[0]
    assert [card // 40 for card in order] == [0] * 40 + [1] * 40 + [2] * 40
    assert sorted(order) == list(range(120))


def test_tables_take_turns_one_decision_each() -> None:
    """Left, Right, Corners in turn; each table asks its seats in its own playing order."""
    state = load_game("tressette-toro").new_initial_state(0, deal=order120(TABLE_HANDS))
    turns = []
    for _ in range(12):
        (action,) = state.legal_actions()
        turns.append((table_of_action(action), state.current_player()))
        state.apply_action(action)
    assert turns == [(LEFT, A1), (RIGHT, A2), (CORNERS, A1), (LEFT, A2), (RIGHT, A3),
                     (CORNERS, B1), (LEFT, B2), (RIGHT, B3), (CORNERS, B3), (LEFT, B1),
                     (RIGHT, B2), (CORNERS, A3)]
    assert [a for a in state.legal_actions() if a < 120] == sorted(
        table_cards(TABLE_HANDS[0], LEFT))


# --- what a seat sees ----------------------------------------------------------------------------

def test_a_seat_sees_nothing_of_the_third_table() -> None:
    """A2 sits at Left and Right: no Corners card, event or turn reaches its observation."""
    state = load_game("tressette-toro").new_initial_state(0, deal=order120(TABLE_HANDS))
    for _ in range(12):
        state.apply_action(lowest_card(state))
    for _ in range(7):
        state.apply_action(lowest_card(state))
    assert table_of_action(state.legal_actions()[0]) == RIGHT
    state.apply_action(lowest_card(state))
    assert table_of_action(state.legal_actions()[0]) == CORNERS
    mine = state.observation(A2)
    assert mine.current_player == HIDDEN and mine.legal_actions == ()
    assert state.observation(A1).current_player == state.current_player()
    seen = mine.seen_cards()
    assert seen and all(card // 40 in (LEFT, RIGHT) for card in seen)
    assert all(card // 40 in (LEFT, RIGHT) for _, card in mine.trick)
    assert len(mine.trick) == 6
    assert mine.hand_sizes[A1] == 9 and mine.hand_sizes[B3] == 9 and mine.hand_sizes[A2] == 18
    full = state.full_events()
    assert len(mine.events) < len(full)
    assert not any(e.cards and e.cards[0] // 40 == CORNERS for e in mine.events
                   if e.cards and e.cards[0] != HIDDEN)


def test_action_names_say_the_table() -> None:
    """Cards carry their copy letter; other actions their table."""
    state = load_game("tressette-toro").new_initial_state(0)
    assert state.action_to_string(C("3Db")) == "3Db"
    assert state.action_to_string(keep(RIGHT)) == "right:keep"
    assert state.action_to_string(keep(CORNERS) + 1) == "corners:monte"
    assert state.action_to_string(TABLE_ACTION_BASE) == "left:accuso 3A-noC"
    assert state.action_to_string(SIGNAL_BASE + 2 * 120 + C("4Sc")) == "4Sc+volo"
    with pytest.raises(ValueError, match="not a tressette-toro action"):
        state.action_to_string(SIGNAL_BASE + 360)


# --- scoring and the match -----------------------------------------------------------------------

def round_points_from_tricks(state: State, round_events: list[Event],
                             round_number: int) -> list[int]:
    """Each seat's points at its two tables, recomputed from the round's TRICK events."""
    thirds: dict[tuple[int, int], int] = {}
    last: dict[int, int] = {}
    for event in round_events:
        if event.kind == EventKind.TRICK:
            table = event.cards[0] // 40
            thirds[table, event.seat] = thirds.get((table, event.seat), 0) + event.values[0]
            last[table] = event.seat
    points = [0] * 6
    for table in range(3):
        seats = table_seats(table, round_number)
        thirds[table, last[table]] = thirds.get((table, last[table]), 0) + 3
        sides = [sum(thirds.get((table, seats[i]), 0) for i in (side, side + 2))
                 for side in (0, 1)]
        for local, seat in enumerate(seats):
            points[seat] += sides[local % 2] // 3
    return points


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_round_scores_each_player_at_its_two_tables(seed: int) -> None:
    """Round points = the side's points at each of the player's tables; free-for-all returns."""
    state = load_game("tressette-toro", params={"redeal_rule": "none"}).new_initial_state(seed)
    while not state.is_terminal():
        state.apply_action(lowest_card(state))
    full = list(state.full_events())
    (score,) = events(state, EventKind.SCORE)
    assert list(score.values) == round_points_from_tricks(state, full, 0)
    ends = events(state, EventKind.HAND_END)
    assert len(ends) == 3 and all(sum(end.values) == 35 for end in ends)
    best = max(score.values)
    winners = [seat for seat in range(6) if score.values[seat] == best]
    k = len(winners)
    assert state.returns() == [float(6 - k if seat in winners else -k) for seat in range(6)]
    assert state.observation(A3).scores == tuple(float(v) for v in score.values)


def test_rounds_reseat_the_players() -> None:
    """With ``rounds=2`` there are two round scores and partners change in round 2."""
    game = load_game("tressette-toro", params={"rounds": 2, "redeal_rule": "none"})
    state = game.new_initial_state(3)
    while len(events(state, EventKind.SCORE)) < 1:
        state.apply_action(lowest_card(state))
    obs = state.observation(A1)
    assert obs.hand_number == 1
    partners = sorted(table_seats(t, 1)[(table_seats(t, 1).index(A1) + 2) % 4]
                      for t in range(3) if A1 in table_seats(t, 1))
    assert list(obs.teammates) == partners != [B2, B3]
    while not state.is_terminal():
        state.apply_action(lowest_card(state))
    scores = events(state, EventKind.SCORE)
    assert len(scores) == 2
    totals = [a + b for a, b in zip(scores[0].values, scores[1].values, strict=True)]
    assert state.observation(B1).scores == tuple(float(t) for t in totals)


def test_a_target_plays_rounds_until_a_player_reaches_it() -> None:
    """With a target the match ends after the first round that takes a player to it."""
    game = load_game("tressette-toro", params={"target": 25})
    state = game.new_initial_state(1)
    while not state.is_terminal():
        state.apply_action(lowest_card(state))
    totals = [0] * 6
    for number, score in enumerate(events(state, EventKind.SCORE), start=1):
        totals = [t + v for t, v in zip(totals, score.values, strict=True)]
        assert (max(totals) >= 25) == (number == len(events(state, EventKind.SCORE)))


@pytest.mark.parametrize(
    ("players", "params", "message"),
    [(4, {}, "4 players is not allowed; valid seat counts: 6"),
     (6, {"rounds": 3, "target": 30}, "give either rounds or a target"),
     (6, {"rounds": 0}, "rounds=0 is invalid")],
)
def test_bad_parameters(players: int, params: dict[str, object], message: str) -> None:
    """Seat counts and parameters are validated with one-line messages."""
    with pytest.raises(InvalidParameterError, match=message):
        load_game("tressette-toro", players, params)  # type: ignore[arg-type]


def test_a_redeal_at_one_table_leaves_the_others_alone() -> None:
    """A weak hand at Right throws in that table only; it takes its copy of the next deal."""
    weak = ["AC 2C 3C 4B 5B 6B FC CC RC AD",
            "AB 4C 5C 6C 7C 4D 5D 6D 7D 7B",
            "2D 3D 2B 3B 2S 3S AS FD CD RD",
            "FB CB RB 4S 5S 6S 7S FS CS RS"]
    first = order120(TABLE_HANDS)
    first[40:80] = order120(weak)[40:80]
    state = load_game("tressette-toro").new_initial_state(0, deal=[first, order120(TABLE_HANDS)])
    for _ in range(4):
        state.apply_action(lowest_card(state))
    assert state.current_player() == A3  # Right's second seat holds the weak hand
    monte = keep(RIGHT) + 1
    assert monte in state.legal_actions()
    state.apply_action(monte)
    (redeal,) = events(state, EventKind.REDEAL)
    assert redeal.seat == A3 and redeal.cards[0] // 40 == RIGHT
    assert sorted(state.observation(A3).hand) == sorted(
        table_cards(TABLE_HANDS[1], RIGHT) + table_cards(TABLE_HANDS[3], CORNERS))
    assert len(state.deals()) == 2
    assert state.observation(B3).events[-1].kind == EventKind.DEAL


def test_the_heuristic_plays_at_the_table_to_act() -> None:
    """The heuristic answers with an action of the acting table, declaring its accusi first."""
    game = load_game("tressette-toro")
    state = game.new_initial_state(0, deal=order120(TABLE_HANDS))
    policies = [make_policy("heuristic", game, seat, 0) for seat in range(6)]
    for _ in range(12):
        state.apply_action(policies[state.current_player()].act(
            state.observation(state.current_player())))
    seat = state.current_player()
    action = policies[seat].act(state.observation(seat))
    assert action == TABLE_ACTION_BASE + 15  # Left: A1's napoletana of coppe
    for _ in range(200):
        if state.is_terminal():
            break
        seat = state.current_player()
        action = policies[seat].act(state.observation(seat))
        assert action in state.legal_actions()
        state.apply_action(action)
    assert state.is_terminal()


@pytest.mark.parametrize("interleaved", [False, True])
def test_each_table_gets_its_copy_in_deal_order(interleaved: bool) -> None:
    """A table's cards keep their order in the 120-card deal, grouped by copy or not."""
    grouped = [table * 40 + (card * 7) % 40 for table in range(3) for card in range(40)]
    order = sorted(grouped, key=lambda card: (card % 40, card // 40)) if interleaved else grouped
    for table in range(3):
        expected = [card for card in order if card // 40 == table]
        assert copy_order(order, table) == expected
        assert len(expected) == 40
