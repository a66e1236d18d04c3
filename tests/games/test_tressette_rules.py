"""Table-driven rule tests for Tressette with 4 and 2 seats (docs/games/tressette.md)."""

from __future__ import annotations

import pytest

from arena.games import IllegalActionError, InvalidParameterError, load_game
from arena.games.api import Event, EventKind, State
from arena.games.cards import HIDDEN, ITALIAN_40
from arena.games.tressette import ACCUSO_BASE, KEEP, MONTE, SIGNAL_BASE, TressetteState
from arena.games.tressette_core import (
    accuso_cards,
    accuso_points,
    accuso_values,
    card_tables,
    find_accusi,
    hand_thirds,
    qualifies_for_redeal,
)
from arena.games.tricks import trick_winner
from arena.policies import make_policy

C = ITALIAN_40.parse
TABLES = card_tables(ITALIAN_40)

# A deal with no void: seat 0 holds the napoletana of coppe, seat 2 three aces (no coppe) and
# the napoletana of bastoni; seat 0 is void in spades and seat 3 in coppe.
HANDS = [
    "AC 2C 3C 4C 5C 5D 6D 7D FB CB",
    "6C 7C 2D 3D 4B 5B 6B 7S FS CS",
    "FC CC RC AD 4D AB 2B 3B AS 2S",
    "FD CD RD 7B RB 3S 4S 5S 6S RS",
]
# Every seat holds one whole suit: seat 0 (spades) takes every trick.
ONE_SUIT_EACH = [
    "AS 2S 3S 4S 5S 6S 7S FS CS RS",
    "AC 2C 3C 4C 5C 6C 7C FC CC RC",
    "AB 2B 3B 4B 5B 6B 7B FB CB RB",
    "AD 2D 3D 4D 5D 6D 7D FD CD RD",
]


def cards(text: str) -> list[int]:
    """Card ids from names."""
    return [C(name) for name in text.split()]


def deal4(hands: list[str], dealer: int = 3) -> list[int]:
    """A 40-card order giving these hands: 5 cards at a time from the dealer's right."""
    parsed = [cards(hand) for hand in hands]
    order: list[int] = []
    for packet in range(2):
        for offset in range(1, 5):
            order += parsed[(dealer + offset) % 4][packet * 5:packet * 5 + 5]
    return order


def deal2(hands: list[str], stock: str) -> list[int]:
    """A 40-card order for 2 seats: one card at a time to seat 0 then seat 1, then the stock."""
    first, second = cards(hands[0]), cards(hands[1])
    order = [card for pair in zip(first, second, strict=True) for card in pair]
    order += cards(stock)
    order += [card for card in range(40) if card not in order]
    return order


def keep_all(state: State) -> None:
    """Every seat keeps its hand in the mandare a monte round."""
    while state.legal_actions() == [KEEP]:
        state.apply_action(KEEP)


def play(state: State, *names: str) -> None:
    """Apply card plays given by name."""
    for name in names:
        state.apply_action(C(name))


def lowest_card(state: State) -> int:
    """The lowest legal card (never an accuso or a redeal demand)."""
    return min(a for a in state.legal_actions() if a < 40 or a == KEEP)


def finish_hand(state: State) -> None:
    """Play lowest cards until the current hand ends (or the match does)."""
    hand = state.observation(0).hand_number
    while not state.is_terminal() and state.observation(0).hand_number == hand:
        state.apply_action(lowest_card(state))


def events(state: State, kind: EventKind) -> list[Event]:
    """The full log's events of one kind."""
    return [event for event in state.full_events() if event.kind == kind]


# --- cards and tricks --------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("trick", "winner"),
    [
        (["4C", "5C"], 1),  # 5 beats 4
        (["RC", "AC"], 1),  # the ace beats the figures
        (["AC", "2C"], 1),  # the 2 beats the ace
        (["2C", "3C"], 1),  # the 3 is highest
        (["3C", "AD"], 0),  # no trumps: another suit never wins
        (["7B", "FB", "CB", "RB"], 3),
        (["4S", "3C", "2D", "AB"], 0),  # only the led suit counts
        (["5D", "2D", "6D", "3D"], 3),
    ],
)
def test_trick_winner(trick: list[str], winner: int) -> None:
    """The highest card of the led suit wins, in the order 3 2 A R C F 7 6 5 4."""
    assert trick_winner(cards(" ".join(trick)), TABLES.suit, TABLES.strength) == winner


@pytest.mark.parametrize(
    ("card", "thirds"),
    [("AC", 3), ("3D", 1), ("2B", 1), ("RS", 1), ("CC", 1), ("FD", 1), ("7B", 0), ("4S", 0)],
)
def test_card_points_in_thirds(card: str, thirds: int) -> None:
    """An ace is a point, a 3, 2 or figure a third, the others nothing; a deck is 32 thirds."""
    assert hand_thirds([C(card)]) == thirds
    assert hand_thirds(list(range(40))) == 32


# --- dealing, monte and following suit ---------------------------------------------------------

def test_deal_five_at_a_time_and_every_seat_is_asked_to_keep() -> None:
    """Seat 0 (the dealer's right) gets the first five cards; all four seats keep in turn."""
    state = load_game("tressette").new_initial_state(0, deal=deal4(HANDS))
    for seat in range(4):
        assert state.observation(seat).hand == tuple(sorted(cards(HANDS[seat])))
    obs = state.observation(0)
    assert (obs.dealer, obs.phase, obs.hand_sizes) == (3, "monte", (10, 10, 10, 10))
    for seat in range(4):
        assert state.current_player() == seat
        assert state.legal_actions() == [KEEP]
        state.apply_action(KEEP)
    assert state.current_player() == 0
    assert state.observation(0).phase == "play"
    assert [e.seat for e in events(state, EventKind.PASS)] == [0, 1, 2, 3]


@pytest.mark.parametrize(
    ("lead", "seat", "expected"),
    [
        ("4C", 1, "6C 7C"),
        ("4C", 2, "FC CC RC"),
        ("5D", 1, "2D 3D"),
        ("FB", 1, "4B 5B 6B"),
        ("FB", 3, "7B RB"),
    ],
)
def test_must_follow_suit(lead: str, seat: int, expected: str) -> None:
    """A player holding the led suit must play it (plus any accuso still to declare)."""
    state = load_game("tressette", params={"redeal_rule": "none"}).new_initial_state(
        0, deal=deal4(HANDS))
    play(state, lead)
    for _ in range(1, seat):
        state.apply_action(min(a for a in state.legal_actions() if a < 40))
    legal = state.legal_actions()
    assert [a for a in legal if a < 40] == sorted(cards(expected))
    pending = [ACCUSO_BASE + code for code in find_accusi(cards(HANDS[seat]))]
    assert [a for a in legal if a >= 40] == pending


def test_a_void_player_may_play_any_card() -> None:
    """Seat 3 holds no coppe: after a coppe lead it may play any card."""
    state = load_game("tressette", params={"redeal_rule": "none"}).new_initial_state(
        0, deal=deal4(HANDS))
    play(state, "4C", "6C", "FC")
    assert state.legal_actions() == sorted(cards(HANDS[3]))


# --- accusi --------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("hand", "codes", "points"),
    [
        ("AC AD AB 4C 5C 6C 7C 4D 5D 6D", (3,), 3),  # three aces, no spade
        ("AC AD AB AS 4C 5C 6C 7C 4D 5D", (12,), 4),  # four aces
        ("3C 3D 3B 3S 4C 5C 6C 7C 4D 5D", (14,), 4),  # four threes
        ("2C 2B 2S 4C 5C 6C 7C 4D 5D 6D", (5,), 3),  # three twos, no denari
        ("AD 2D 3D 4C 5C 6C 7C 4B 5B 6B", (16,), 3),  # napoletana of denari
        ("AC 2C 3C 3D 3B 4C 5C 6C 7C 4D", (11, 15), 6),  # napoletana + two other threes
        ("AC 2C 3C AD 2D 3D 4C 5C 6C 7C", (15, 16), 6),  # two napoletane
        ("AC 2C 3D 4C 5C 6C 7C FC CC RC", (), 0),
    ],
)
def test_accusi_found_in_a_hand(hand: str, codes: tuple[int, ...], points: int) -> None:
    """Three or four aces, twos or threes, and napoletane, combinable."""
    assert find_accusi(cards(hand)) == codes
    assert sum(accuso_points(code) for code in codes) == points
    for code in codes:
        assert set(accuso_cards(code)) <= set(cards(hand))


@pytest.mark.parametrize(
    ("code", "values", "shown"),
    [(3, (1, 0, 3, 3), "AC AD AB"), (14, (2, 2, -1, 4), "3C 3D 3B 3S"),
     (16, (3, -1, 1, 3), "AD 2D 3D"), (5, (1, 1, 1, 3), "2C 2B 2S")],
)
def test_declaration_values_name_the_missing_or_napoletana_suit(
        code: int, values: tuple[int, ...], shown: str) -> None:
    """DECLARE values are (kind, rank, missing or napoletana suit, points)."""
    assert accuso_values(code) == values
    assert accuso_cards(code) == tuple(sorted(cards(shown)))


def test_accusi_are_declared_in_trick_one_public_and_credited_at_the_end() -> None:
    """Declarations come at the declarer's own turn in trick 1 and score with the hand."""
    state = load_game("tressette").new_initial_state(0, deal=deal4(HANDS))
    keep_all(state)
    napoletana_c, three_aces, napoletana_b = ACCUSO_BASE + 15, ACCUSO_BASE + 0, ACCUSO_BASE + 17
    assert napoletana_c in state.legal_actions()
    state.apply_action(napoletana_c)
    assert state.current_player() == 0  # declaring does not end the turn
    assert napoletana_c not in state.legal_actions()
    play(state, "4C", "6C")
    assert {three_aces, napoletana_b} <= set(state.legal_actions())
    state.apply_action(three_aces)
    play(state, "FC", "3S")  # seat 2 did not declare its napoletana: now it is too late
    declared = [e for e in state.observation(1).events if e.kind == EventKind.DECLARE]
    assert [(e.seat, e.cards, e.values) for e in declared] == [
        (0, tuple(sorted(cards("AC 2C 3C"))), (3, -1, 0, 3)),
        (2, tuple(sorted(cards("AD AB AS"))), (1, 0, 0, 3)),
    ]
    while state.current_player() != 2 and not state.is_terminal():
        state.apply_action(lowest_card(state))
    assert all(a < 40 for a in state.legal_actions())
    finish_hand(state)
    end = events(state, EventKind.HAND_END)[0]
    score = events(state, EventKind.SCORE)[0]
    sides = (end.values[0] + end.values[2], end.values[1] + end.values[3])
    assert sum(sides) == 35
    assert score.values == (sides[0] // 3 + 6, sides[1] // 3, sides[0] // 3 + 6, sides[1] // 3)


@pytest.mark.parametrize(("lost", "losers_score"), [(False, 6), (True, 0)])
def test_cappotto_loses_the_accusi_only_with_the_option(lost: bool, losers_score: int) -> None:
    """Seat 0 takes every trick; the other side's two napoletane count unless the option is on."""
    game = load_game("tressette", params={"accuso_lost_on_cappotto": lost})
    state = game.new_initial_state(0, deal=deal4(ONE_SUIT_EACH))
    keep_all(state)
    play(state, "4S")
    state.apply_action(ACCUSO_BASE + 15)  # seat 1: napoletana of coppe
    play(state, "4C", "4B")
    state.apply_action(ACCUSO_BASE + 16)  # seat 3: napoletana of denari
    finish_hand(state)
    tricks = events(state, EventKind.TRICK)[:10]
    assert {e.seat for e in tricks} == {0}
    score = events(state, EventKind.SCORE)[0]
    assert score.values == (11, losers_score, 11, losers_score)


# --- mandare a monte -----------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("hand", "seed", "low_value", "few_figures"),
    [
        ("AC 4C 5C 6C 7C 4D 5D 6D 7D 4B", True, False, False),  # one ace, nine low
        ("2C 4C 5C 6C 7C 4D 5D 6D 7D 4B", True, True, False),  # one two, nine low
        ("FC CC RC 4C 5C 6C 7C 4D 5D 6D", True, False, False),  # three figures, seven low
        ("FC CC 4C 5C 6C 7C 4D 5D 6D 7D", False, True, True),  # two figures
        ("FC CC RC FD 4C 5C 6C 7C 4D 5D", False, False, False),  # four figures
        ("3C FC 4C 5C 6C 7C 4D 5D 6D 7D", False, True, False),  # a three and a figure
        ("AC 2C 3C 4C 5C 6C 7C 4D 5D 6D", False, False, False),
    ],
)
def test_which_hands_may_demand_a_redeal(hand: str, seed: bool, low_value: bool,
                                         few_figures: bool) -> None:
    """The source text's two patterns, and the low-value and few-figures variants."""
    parsed = cards(hand)
    assert qualifies_for_redeal(parsed, "seed") is seed
    assert qualifies_for_redeal(parsed, "low_value") is low_value
    assert qualifies_for_redeal(parsed, "few_figures") is few_figures
    assert qualifies_for_redeal(parsed, "none") is False


def test_a_redeal_shows_the_hand_and_the_same_dealer_deals_again() -> None:
    """Seat 1 may demand a redeal; the next deal follows within the same hand."""
    weak = ["AC 2C 3C 4B 5B 6B FC CC RC AD",
            "AB 4C 5C 6C 7C 4D 5D 6D 7D 7B",
            "2D 3D 2B 3B 2S 3S AS FD CD RD",
            "FB CB RB 4S 5S 6S 7S FS CS RS"]
    assert sorted(card for hand in weak for card in cards(hand)) == list(range(40))
    second = deal4(HANDS)
    state = load_game("tressette").new_initial_state(0, deal=[deal4(weak), second])
    state.apply_action(KEEP)
    assert state.legal_actions() == [KEEP, MONTE]
    state.apply_action(MONTE)
    redeal = events(state, EventKind.REDEAL)
    assert [(e.seat, e.cards) for e in redeal] == [(1, tuple(sorted(cards(weak[1]))))]
    assert state.observation(3).events[-5].cards == redeal[0].cards  # public
    obs = state.observation(1)
    assert obs.hand == tuple(sorted(cards(HANDS[1])))
    assert (obs.dealer, obs.hand_number, obs.phase, state.current_player()) == (3, 0, "monte", 0)
    assert len(events(state, EventKind.HAND_START)) == 1
    assert state.deals() == [tuple(deal4(weak)), tuple(second)]


def test_no_redeal_decision_with_redeal_rule_none() -> None:
    """With ``redeal_rule=none`` the first decision is the lead."""
    state = load_game("tressette", params={"redeal_rule": "none"}).new_initial_state(
        0, deal=deal4(HANDS))
    assert state.observation(0).phase == "play"
    assert min(state.legal_actions()) < 40


# --- signals and the first lead ------------------------------------------------------------------

@pytest.mark.parametrize(("option", "signals"), [("all", (1, 2, 3)), ("volo", (3,)),
                                                 ("busso", (1,)), ("none", ())])
def test_a_lead_may_carry_a_public_signal(option: str, signals: tuple[int, ...]) -> None:
    """Signalled leads are offered for every card; a follower has none; the signal is public."""
    state = load_game("tressette", params={"signals": option, "redeal_rule": "none"}
                      ).new_initial_state(0, deal=deal4(ONE_SUIT_EACH))
    hand = sorted(cards(ONE_SUIT_EACH[0]))
    napoletana = ACCUSO_BASE + 18
    expected = [*hand, napoletana, *(SIGNAL_BASE + (s - 1) * 40 + c for s in signals
                                     for c in hand)]
    assert state.legal_actions() == expected
    if not signals:
        return
    lead = SIGNAL_BASE + (signals[-1] - 1) * 40 + C("4S")
    assert state.action_to_string(lead).startswith("4S+")
    state.apply_action(lead)
    assert all(a < SIGNAL_BASE for a in state.legal_actions())
    played = [e for e in state.observation(2).events if e.kind == EventKind.PLAY]
    assert [(e.seat, e.cards, e.values) for e in played] == [(0, (C("4S"),), (signals[-1],))]


def test_the_holder_of_the_four_of_denari_leads_the_first_hand() -> None:
    """The holder is shown to all and leads; the next hand the lead moves to its right."""
    game = load_game("tressette", params={"first_lead": "four_of_denari"})
    state = game.new_initial_state(0, deal=deal4(HANDS))
    reveal = events(state, EventKind.REVEAL)
    assert [(e.seat, e.cards) for e in reveal] == [(2, (C("4D"),))]
    assert state.current_player() == 2
    keep_all(state)
    assert state.current_player() == 2
    finish_hand(state)
    if not state.is_terminal():
        obs = state.observation(0)
        assert (obs.dealer, state.current_player()) == (2, 3)
        assert len(events(state, EventKind.REVEAL)) == 1


# --- the match -----------------------------------------------------------------------------------

def side_totals(state: State) -> list[tuple[int, int]]:
    """The running match score of each side after each SCORE event."""
    totals, out = [0, 0], []
    for event in events(state, EventKind.SCORE):
        totals = [totals[0] + event.values[0], totals[1] + event.values[1]]
        out.append((totals[0], totals[1]))
    return out


def random_match(params: dict[str, object], seed: int, players: int = 4) -> State:
    """A complete match between seeded random players."""
    game = load_game("tressette", players, params)  # type: ignore[arg-type]
    policies = [make_policy("random", game, seat, seed) for seat in range(players)]
    state = game.new_initial_state(seed)
    while not state.is_terminal():
        seat = state.current_player()
        state.apply_action(policies[seat].act(state.observation(seat)))
    return state


@pytest.mark.parametrize("target", [21, 31, 41])
def test_the_match_ends_at_the_end_of_the_hand_that_reaches_the_target(target: int) -> None:
    """The first hand after which a side is past the target (and not tied) ends the match."""
    for seed in range(6):
        state = random_match({"target": target}, seed)
        totals = side_totals(state)
        *before, last = totals
        assert all(max(t) < target or t[0] == t[1] for t in before)
        assert max(last) >= target and last[0] != last[1]
        winner = 0 if last[0] > last[1] else 1
        returns = state.returns()
        assert returns == [1.0 if seat % 2 == winner else -1.0 for seat in range(4)]
        assert state.observation(1).scores == (last[0], last[1], last[0], last[1])
        end = events(state, EventKind.MATCH_END)[0]
        assert end.values == tuple(int(r) for r in returns)


def test_stop_immediately_ends_the_match_in_the_middle_of_a_hand() -> None:
    """With ``stop_immediately`` the hand stops after the trick that reaches the target."""
    stopped_early = 0
    for seed in range(10):
        state = random_match({"stop_immediately": True, "target": 31}, seed)
        last = side_totals(state)[-1]
        assert max(last) >= 31
        end = events(state, EventKind.HAND_END)[-1]
        left = sum(TABLES.thirds[card] for card in end.cards)
        assert sum(end.values) + left == 35
        stopped_early += bool(end.cards)
    assert stopped_early > 0


# --- two seats -----------------------------------------------------------------------------------

def test_two_seats_draw_from_the_stock_winner_first_and_shown_to_both() -> None:
    """One card at a time from the non-dealer; after a trick the winner draws, then the other."""
    hands = ["AC 2C 3C 4C 5C 6C 7C FC CC RC", "AD 2D 3D 4D 5D 6D 7D FD CD RD"]
    order = deal2(hands, "AB 2B 3B 4B")
    state = load_game("tressette", 2).new_initial_state(0, deal=order)
    obs = state.observation(0)
    assert (obs.hand, obs.stock_size, obs.dealer, obs.teammates) == (
        tuple(sorted(cards(hands[0]))), 20, 1, ())
    assert state.current_player() == 0 and min(state.legal_actions()) < 40  # no monte round
    play(state, "4C")
    assert state.legal_actions() == sorted(cards(hands[1]))  # void in coppe
    play(state, "3D")
    draws = events(state, EventKind.DRAW)
    assert [(e.seat, e.cards) for e in draws] == [(0, (C("AB"),)), (1, (C("2B"),))]
    assert state.observation(1).events[-1].cards == (C("2B"),)
    assert state.observation(1).events[-2].cards == (C("AB"),)  # the other's draw is public
    play(state, "AB")
    assert state.legal_actions() == [C("2B")]  # follow suit while the stock lasts
    play(state, "2B")
    assert [e.seat for e in events(state, EventKind.DRAW)[2:]] == [1, 0]


def test_two_seats_play_twenty_tricks_and_the_last_trick_point() -> None:
    """A hand is 20 tricks; the last trick adds a point; the match is to 21."""
    state = random_match({}, 3, players=2)
    ends = events(state, EventKind.HAND_END)
    tricks = events(state, EventKind.TRICK)
    assert len(tricks) == 20 * len(ends)
    for end in ends:
        assert end.cards == () and sum(end.values) == 35
    assert max(side_totals(state)[-1]) >= 21
    assert sorted(state.returns()) == [-1.0, 1.0]


# --- observations and bad input -------------------------------------------------------------------

def test_observation_hides_the_other_hands_and_shows_partners() -> None:
    """Own hand only; other DEAL events masked; the partner sits opposite."""
    state = load_game("tressette").new_initial_state(0, deal=deal4(HANDS))
    obs = state.observation(1)
    assert obs.teammates == (3,)
    assert obs.legal_actions == ()
    deals = [e for e in obs.events if e.kind == EventKind.DEAL]
    assert [e.cards == (HIDDEN,) * 10 for e in deals] == [True, False, True, True]
    assert state.observation(0).legal_actions == (KEEP,)
    assert state.game.teams() == ((0, 2), (1, 3))


@pytest.mark.parametrize(
    ("players", "params", "message"),
    [
        (3, {}, "3 players is not allowed; valid seat counts: 2, 4"),
        (4, {"target": 0}, "target=0 is invalid"),
        (4, {"signals": "wink"}, "signals='wink' is invalid: expected one of none, busso"),
        (4, {"redeal": "seed"}, "unknown parameter 'redeal'"),
        (2, {"signals": "volo"}, "signals=volo needs 4 seats"),
        (2, {"first_lead": "four_of_denari"}, "first_lead=four_of_denari needs 4 seats"),
        (2, {"redeal_rule": "low_value"}, "redeal_rule=low_value needs 4 seats"),
    ],
)
def test_bad_parameters_are_one_line_errors(players: int, params: dict[str, object],
                                            message: str) -> None:
    """Seat counts and parameters are validated with a message naming the problem."""
    with pytest.raises(InvalidParameterError, match=message.replace("(", r"\(")) as error:
        load_game("tressette", players, params)  # type: ignore[arg-type]
    assert "\n" not in str(error.value)


def test_an_illegal_action_names_the_legal_set_and_changes_nothing() -> None:
    """Playing a card not in hand, or not following suit, is rejected without effect."""
    state = load_game("tressette", params={"redeal_rule": "none"}).new_initial_state(
        0, deal=deal4(HANDS))
    play(state, "4C")
    before = (state.history(), state.full_events(), state.observation(1))
    for action in (C("2D"), C("AS"), MONTE, 999):
        with pytest.raises(IllegalActionError, match=f"action {action} .*legal actions: "):
            state.apply_action(action)
    assert (state.history(), state.full_events(), state.observation(1)) == before
    assert isinstance(state, TressetteState)
