"""Table-driven rule tests for Misère (docs/games/misere.md), with injected deals."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from arena.games import IllegalActionError, InvalidParameterError, load_game
from arena.games.api import EventKind, State
from arena.games.cards import FRENCH_52, HIDDEN
from arena.games.misere import (
    BID_BASE,
    BRIDGE_STRENGTH,
    BRISCOLA_STRENGTH,
    SUIT,
    DealKind,
    MisereState,
    deal_score,
    hook_bid,
    match_outcome,
)
from arena.games.params import ParamValue
from arena.games.tricks import NO_TRUMP, trick_winner

C = FRENCH_52.parse
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)


def cards(text: str) -> list[int]:
    """Card ids from names such as ``AH TS 2C``."""
    return [C(name) for name in text.split()]


def order_for(hands: Sequence[str], dealer: int = 3) -> list[int]:
    """A 52-card deal order giving each seat (listed from seat 0) its hand when ``dealer`` deals."""
    parsed = [cards(hand) for hand in hands]
    first = (dealer + 1) % 4
    head = [parsed[(first + i) % 4][k] for k in range(len(parsed[0])) for i in range(4)]
    return head + [card for card in range(52) if card not in head]


def new_state(params: dict[str, ParamValue] | None = None,
              deal: Sequence[Sequence[int]] | Sequence[int] | None = None,
              seed: int = 0) -> MisereState:
    """A Misère match with some parameters and injected deals."""
    state = load_game("misere", 4, params).new_initial_state(seed, deal=deal)
    assert isinstance(state, MisereState)
    return state


def bid(state: State, *bids: int) -> None:
    """Apply bids in turn."""
    for value in bids:
        state.apply_action(BID_BASE + value)


def play(state: State, *names: str) -> None:
    """Apply card plays given by name."""
    for name in names:
        state.apply_action(C(name))


def advance(state: MisereState, deal_number: int) -> None:
    """Play the lowest legal action until the given deal (0-based) starts."""
    while state.observation(0).hand_number < deal_number:
        state.apply_action(state.legal_actions()[0])


def events(state: State, kind: EventKind) -> list[tuple[int, tuple[int, ...], tuple[int, ...]]]:
    """(seat, cards, values) of every event of a kind, unmasked."""
    return [(e.seat, e.cards, e.values) for e in state.full_events() if e.kind == kind]


# --- trick winners ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("played", "trump", "order", "winner"),
    [
        ("2C 3C", NO_TRUMP, "bridge", 1),  # higher card of the led suit
        ("AC KC QC JC", NO_TRUMP, "bridge", 0),  # the ace is highest
        ("KD AS 2D 3D", NO_TRUMP, "bridge", 0),  # another suit never wins without trumps
        ("AD 2H 3D 4D", HEARTS, "bridge", 1),  # the lowest trump beats the led ace
        ("AD 2H 3H KD", HEARTS, "bridge", 2),  # the highest trump wins
        ("5S 4S 2C TS", CLUBS, "bridge", 2),  # a ruff wins
        ("2H 3H AD KH", HEARTS, "bridge", 3),  # trump led: highest trump
        ("KC 3C QC JC", NO_TRUMP, "briscola", 1),  # briscola order: 3 beats the king
        ("3C AC KC 2C", NO_TRUMP, "briscola", 1),  # the ace beats the 3
        ("2C 4C 5C 6C", NO_TRUMP, "briscola", 3),  # the 2 is the lowest
        ("TD 9D 3S 2D", SPADES, "briscola", 2),  # a trump 3 ruffs
    ],
)
def test_trick_winner(played: str, trump: int, order: str, winner: int) -> None:
    """The highest trump wins, else the highest card of the led suit, in either rank order."""
    strength = BRIDGE_STRENGTH if order == "bridge" else BRISCOLA_STRENGTH
    assert trick_winner(cards(played), SUIT, strength, trump) == winner


@pytest.mark.parametrize(
    ("order", "hands", "lead", "winner"),
    [
        ("bridge", ["KS 2C", "AS 2D", "QS 3C", "JS 3D"], ["KS", "AS", "QS", "JS"], 1),
        ("briscola", ["KS 2C", "3S 2D", "AS 3C", "JS 3D"], ["KS", "3S", "AS", "JS"], 2),
        ("briscola", ["KS 2C", "3S 2D", "QS 3C", "JS 3D"], ["KS", "3S", "QS", "JS"], 1),
        ("bridge", ["KS 2C", "2H 2D", "QS 3C", "JS 3D"], ["KS", "2H", "QS", "JS"], 1),
    ],
)
def test_engine_gives_the_trick_to_the_winner(order: str, hands: list[str], lead: list[str],
                                              winner: int) -> None:
    """In deal 1 (hearts trump) the engine's TRICK event names the winner, who leads next."""
    state = new_state({"hand_size": 2, "rank_order": order}, order_for(hands))
    bid(state, 0, 0, 0, 0)
    play(state, *lead)
    assert events(state, EventKind.TRICK)[-1] == (winner, tuple(cards(" ".join(lead))), (1,))
    assert state.current_player() == winner
    assert state.observation(2).points == tuple(int(s == winner) for s in range(4))


# --- dealing, dealers, trumps, deal kinds -------------------------------------------------


def test_cards_are_dealt_one_at_a_time_from_the_dealers_right() -> None:
    """Seat dealer+1 gets cards 1, 5, 9, ... of the order; the dealer gets 4, 8, ..."""
    deals = [list(range(52)), list(range(51, -1, -1))]
    state = new_state(deal=deals)
    for seat in range(4):
        assert state.observation(seat).hand == tuple(range(seat, 52, 4))
    advance(state, 1)  # the dealer is now seat 0: seat 1 gets the first card (51)
    for seat in range(4):
        expected = sorted(list(range(51, -1, -1))[(seat - 1) % 4::4])
        assert list(state.observation(seat).hand) == expected


def test_short_hands_leave_the_rest_of_the_deck_out() -> None:
    """With hand_size 5 the first 20 cards are dealt; the other 32 are in HAND_END."""
    state = new_state({"hand_size": 5}, list(range(52)))
    assert state.observation(0).hand == (0, 4, 8, 12, 16)
    assert state.observation(0).hand_sizes == (5, 5, 5, 5)
    advance(state, 1)
    seat, left_out, tricks = events(state, EventKind.HAND_END)[0]
    assert left_out == tuple(range(20, 52)) and sum(tricks) == 5 and seat == 3


def test_dealers_trumps_and_deal_kinds_over_a_match() -> None:
    """Dealers 3, 0, 1, 2, ...; trumps H D C S then none; bids in deals 1-6 only."""
    state = new_state({"hand_size": 2}, seed=4)
    first_actors: list[tuple[int, int, str, int]] = []
    while not state.is_terminal():
        obs = state.observation(0)
        if len(first_actors) == obs.hand_number:
            first_actors.append((obs.dealer, state.current_player(), obs.phase, obs.trump_suit))
        state.apply_action(state.legal_actions()[-1])
    assert first_actors == [
        (3, 0, "bid", HEARTS), (0, 1, "bid", DIAMONDS), (1, 2, "bid", CLUBS),
        (2, 3, "bid", SPADES), (3, 0, "bid", NO_TRUMP), (0, 1, "bid", NO_TRUMP),
        (1, 2, "play", NO_TRUMP), (2, 3, "play", NO_TRUMP),
    ]
    assert [s for s, _, _ in events(state, EventKind.HAND_START)] == [3, 0, 1, 2, 3, 0, 1, 2]
    assert [v for _, _, v in events(state, EventKind.TRUMP)] == [
        (HEARTS,), (DIAMONDS,), (CLUBS,), (SPADES,), (NO_TRUMP,), (NO_TRUMP,), (NO_TRUMP,),
        (NO_TRUMP,)]
    bidders = [s for s, _, _ in events(state, EventKind.BID)]
    assert bidders == [(d + 1 + i) % 4 for d in (3, 0, 1, 2, 3, 0) for i in range(4)]
    assert len(events(state, EventKind.TRICK)) == 16


def test_the_dealers_right_leads_the_first_trick() -> None:
    """After the bids, seat dealer+1 leads, whatever the bids."""
    state = new_state({"hand_size": 3}, seed=2)
    bid(state, 3, 0, 0, 1)
    assert state.current_player() == 0 and state.observation(0).phase == "play"


# --- bidding and the hook -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("bids", "hand_size", "forbidden"),
    [
        ([4, 3, 3], 13, 3),
        ([0, 0, 0], 13, 13),
        ([13, 0, 0], 13, 0),
        ([10, 3, 1], 13, None),  # already over: every bid is allowed
        ([5, 5, 5], 13, None),
        ([1, 0, 0], 2, 1),
        ([0, 0, 0], 1, 1),
    ],
)
def test_hook_bid(bids: list[int], hand_size: int, forbidden: int | None) -> None:
    """The dealer may not make the four bids sum to the number of tricks."""
    assert hook_bid(bids, hand_size) == forbidden


@pytest.mark.parametrize(
    ("hand_size", "first_bids", "dealer_legal"),
    [
        (13, [4, 3, 3], [0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]),
        (13, [0, 0, 0], list(range(13))),
        (13, [9, 9, 9], list(range(14))),
        (3, [1, 1, 0], [0, 2, 3]),
        (1, [0, 0, 0], [0]),
        (1, [1, 0, 0], [1]),
    ],
)
def test_dealer_hook_in_the_engine(hand_size: int, first_bids: list[int],
                                   dealer_legal: list[int]) -> None:
    """Every seat but the dealer may bid 0..hand_size; the dealer loses the hook bid."""
    state = new_state({"hand_size": hand_size}, seed=1)
    for value in first_bids:
        assert state.legal_actions() == [BID_BASE + n for n in range(hand_size + 1)]
        bid(state, value)
    assert state.current_player() == 3
    assert state.legal_actions() == [BID_BASE + n for n in dealer_legal]


def test_bids_are_public_and_no_card_is_legal_while_bidding() -> None:
    """BID events are seen by everyone; a card is illegal during the bidding, a bid during play."""
    state = new_state({"hand_size": 4}, seed=3)
    bid(state, 2)
    for seat in range(4):
        assert [e.values for e in state.observation(seat).events
                if e.kind == EventKind.BID] == [(2,)]
    card = state.observation(1).hand[0]
    with pytest.raises(IllegalActionError):
        state.apply_action(card)
    bid(state, 0, 1, 0)
    with pytest.raises(IllegalActionError):
        bid(state, 1)


def test_blind_deal_hides_every_hand_until_all_have_bid() -> None:
    """Deal 6: no hand and no deal event is visible during the bidding; the hook applies."""
    state = new_state({"hand_size": 3}, seed=5)
    advance(state, 5)
    assert state.observation(0).dealer == 0 and state.current_player() == 1
    for seat in range(4):
        obs = state.observation(seat)
        assert obs.hand == () and obs.hand_sizes == (3, 3, 3, 3) and obs.phase == "bid"
    deal_events = len(events(state, EventKind.DEAL))
    assert deal_events == 5 * 4
    bid(state, 1, 1, 0)
    assert state.legal_actions() == [BID_BASE + n for n in (0, 2, 3)]
    bid(state, 0)
    assert len(events(state, EventKind.DEAL)) == 6 * 4
    for seat in range(4):
        obs = state.observation(seat)
        assert len(obs.hand) == 3
        dealt = [e.cards for e in obs.events if e.kind == EventKind.DEAL][-4:]
        assert dealt[seat] == obs.hand
        assert all(c == (HIDDEN,) * 3 for s, c in enumerate(dealt) if s != seat)


def test_hook_in_blind_can_be_switched_off() -> None:
    """With hook_in_blind false the dealer may bid anything in deal 6 (and is hooked elsewhere)."""
    state = new_state({"hand_size": 3, "hook_in_blind": False}, seed=5)
    bid(state, 1, 1, 0)
    assert BID_BASE + 1 not in state.legal_actions()
    advance(state, 5)
    bid(state, 1, 1, 0)
    assert state.legal_actions() == [BID_BASE + n for n in range(4)]


# --- following suit -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("deal_number", "must_trump", "hand", "lead", "legal"),
    [
        (0, False, "2C 3H 4S", "5C", "2C"),  # follow suit
        (0, False, "2D 3H 4S", "5C", "2D 3H 4S"),  # void: anything
        (0, True, "2D 3H 4S", "5C", "3H"),  # void, must trump (hearts)
        (0, True, "2D 3D 4S", "5C", "2D 3D 4S"),  # void and no trump: anything
        (0, True, "2C 3H 4S", "5C", "2C"),  # following comes first
        (1, True, "2C 3H 4S", "5S", "4S"),
        (1, True, "2C 3H 4D", "5S", "4D"),  # deal 2: diamonds are trump
        (4, True, "2C 3H 4D", "5S", "2C 3H 4D"),  # deal 5: no trump, nothing to force
        (4, False, "2S 3S 4D", "5S", "2S 3S"),
    ],
)
def test_follow_suit(deal_number: int, must_trump: bool, hand: str, lead: str,
                     legal: str) -> None:
    """Follow suit if able; when void, any card (or a trump if ``must_trump_if_void``)."""
    dealer = (3 + deal_number) % 4
    leader = (dealer + 1) % 4
    hands = ["6D 7D 8D"] * 4
    fillers = iter(["8C 9C TC", "JC QC KC", "8H 9H TH"])
    hands = [lead + " AC AD" if seat == leader else hand if seat == (leader + 1) % 4
             else next(fillers) for seat in range(4)]
    deals = [order_for(hands, dealer)] * (deal_number + 1)
    state = new_state({"hand_size": 3, "must_trump_if_void": must_trump}, deals)
    advance(state, deal_number)
    if state.observation(0).phase == "bid":
        bid(state, 0, 0, 0, 0)
    play(state, lead)
    assert state.legal_actions() == sorted(cards(legal))


# --- scoring ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "bid_value", "tricks", "minus_50", "points"),
    [
        (DealKind.BID, 3, 3, False, 30),
        (DealKind.BID, 1, 1, False, 10),
        (DealKind.BID, 13, 13, False, 130),
        (DealKind.BID, 3, 5, False, -20),
        (DealKind.BID, 5, 3, False, -20),
        (DealKind.BID, 1, 0, False, -10),
        (DealKind.BID, 0, 0, False, 50),
        (DealKind.BID, 0, 0, True, 50),
        (DealKind.BID, 0, 3, False, -30),
        (DealKind.BID, 0, 3, True, -50),
        (DealKind.BID, 0, 7, True, -50),
        (DealKind.BLIND, 2, 2, False, 20),
        (DealKind.BLIND, 0, 1, False, -10),
        (DealKind.CIAPA_CIAPA, 0, 4, False, 40),
        (DealKind.CIAPA_CIAPA, 0, 0, True, 0),
        (DealKind.MISERE, 0, 4, False, -40),
        (DealKind.MISERE, 0, 0, False, 0),
    ],
)
def test_deal_score(kind: DealKind, bid_value: int, tricks: int, minus_50: bool,
                    points: int) -> None:
    """Made n>=1: +10n; missed: -10|diff|; 0 made: +50; 0 failed: -10/trick or -50."""
    assert deal_score(kind, bid_value, tricks, minus_50) == points


@pytest.mark.parametrize(
    ("totals", "returns"),
    [
        ([130, 70, 70, 120], [3, -1, -1, -1]),
        ([130, 130, 70, 120], [2, 2, -2, -2]),
        ([-10, -10, -10, -20], [1, 1, 1, -3]),
        ([40, 40, 40, 40], [0, 0, 0, 0]),
    ],
)
def test_match_outcome(totals: list[int], returns: list[int]) -> None:
    """The highest total wins; k tied winners get 4-k each, the others -k."""
    assert match_outcome(totals) == returns
    assert sum(returns) == 0


# One-card deals (hand_size 1): per deal the hands from seat 0, bids from the dealer's right,
# the plays (from the dealer's right) and the expected game points per seat.
ONE_CARD_MATCH = [
    (["2H", "AS", "KS", "3C"], [1, 0, 0, 1], [10, 50, 50, -10]),  # hearts ruff; dealer hooked
    (["2D", "AS", "2S", "KC"], [1, 1, 0, 0], [-10, -10, -10, 50]),  # seat 0 fails its 0
    (["QH", "JH", "AH", "KH"], [0, 0, 0, 0], [50, 50, -10, 50]),  # dealer may not bid 1
    (["3C", "4C", "2S", "2C"], [1, 1, 1, 1], [-10, -10, 10, -10]),  # spades ruff
    (["5D", "AS", "4D", "AD"], [0, 0, 0, 0], [50, 50, 50, -10]),  # no trump: the AS is lost
    (["3H", "9C", "TC", "2C"], [1, 0, 0, 1], [-10, -10, -10, 50]),  # blind; hook applies
    (["2H", "3S", "KH", "AH"], [], [0, 0, 0, 10]),  # ciapa ciapa
    (["5S", "6S", "7S", "4S"], [], [0, 0, -10, 0]),  # misère
]
MINUS_50 = {(1, 0): -50, (2, 2): -50, (4, 3): -50, (5, 2): -50}
"""(deal, seat) -> points that change with misere_fail=minus_50 (a failed 0 costs 50)."""


@pytest.mark.parametrize(("fail", "returns"), [("per_trick", [-1, -1, -1, 3]),
                                              ("minus_50", [-1, 3, -1, -1])])
def test_a_whole_match_of_one_card_deals(fail: str, returns: list[int]) -> None:
    """Scores per deal, running totals in the observation, and the match returns."""
    deals = [order_for(hands, (3 + number) % 4)
             for number, (hands, _, _) in enumerate(ONE_CARD_MATCH)]
    state = new_state({"hand_size": 1, "misere_fail": fail}, deals)
    totals = [0, 0, 0, 0]
    for number, (hands, bids, expected) in enumerate(ONE_CARD_MATCH):
        assert state.returns() == [0.0] * 4
        assert state.observation(1).scores == tuple(float(t) for t in totals)
        first = (3 + number + 1) % 4
        bid(state, *bids)
        for offset in range(4):
            play(state, hands[(first + offset) % 4])
        points = [MINUS_50.get((number, seat), expected[seat]) if fail == "minus_50"
                  else expected[seat] for seat in range(4)]
        assert events(state, EventKind.SCORE)[-1][2] == tuple(points), number
        totals = [t + p for t, p in zip(totals, points, strict=True)]
    assert state.is_terminal()
    assert state.returns() == [float(r) for r in returns]
    assert state.observation(0).scores == tuple(float(t) for t in totals)
    assert events(state, EventKind.MATCH_END) == [(-1, (), tuple(returns))]


def test_hand_end_counts_tricks_and_left_out_cards() -> None:
    """HAND_END values are the tricks per seat; its cards are the undealt ones."""
    state = new_state({"hand_size": 13}, seed=8)
    advance(state, 1)
    _, left_out, tricks = events(state, EventKind.HAND_END)[0]
    assert left_out == () and sum(tricks) == 13
    won = [0, 0, 0, 0]
    for winner, trick, values in events(state, EventKind.TRICK):
        assert values == (1,) and len(trick) == 4
        won[winner] += 1
    assert tuple(won) == tricks


# --- observations, errors -----------------------------------------------------------------


def test_observation_shows_own_hand_and_hides_others() -> None:
    """A seat sees its hand and its DEAL event, the other DEAL events masked."""
    state = new_state(seed=11)
    obs = state.observation(2)
    assert len(obs.hand) == 13 and obs.trump_suit == HEARTS and obs.current_player == 0
    assert obs.legal_actions == () and state.observation(0).legal_actions
    dealt = {e.seat: e.cards for e in obs.events if e.kind == EventKind.DEAL}
    assert dealt[2] == obs.hand
    assert all(dealt[s] == (HIDDEN,) * 13 for s in (0, 1, 3))
    assert obs.scores == (0.0,) * 4 and obs.points == (0,) * 4


def test_trick_in_progress_is_public() -> None:
    """The observation lists the cards of the trick with their seats."""
    state = new_state({"hand_size": 2}, order_for(["2C 3C", "4C 5C", "6C 7C", "8C 9C"]))
    bid(state, 0, 0, 0, 0)
    play(state, "2C", "5C")
    assert state.observation(3).trick == ((0, C("2C")), (1, C("5C")))
    assert state.current_player() == 2 and state.legal_actions() == cards("6C 7C")


def test_illegal_action_names_it_and_leaves_state_unchanged() -> None:
    """An illegal action raises with its name and the legal set; nothing changes."""
    state = new_state(seed=1)
    bid(state, 2, 3, 4)
    before = [state.observation(seat) for seat in range(4)]
    with pytest.raises(IllegalActionError) as error:
        bid(state, 4)
    assert "bid 4" in str(error.value) and "legal actions" in str(error.value)
    with pytest.raises(IllegalActionError, match="not an action of this game"):
        state.apply_action(99)
    assert [state.observation(seat) for seat in range(4)] == before
    assert state.history() == [BID_BASE + 2, BID_BASE + 3, BID_BASE + 4]


def test_clone_is_independent() -> None:
    """A clone plays on without touching the original."""
    state = new_state(seed=6)
    bid(state, 1, 2)
    twin = state.clone()
    twin.apply_action(twin.legal_actions()[0])
    assert len(twin.history()) == 3 and len(state.history()) == 2
    assert state.observation(0) != twin.observation(0)


@pytest.mark.parametrize(
    ("action", "name"),
    [(C("TH"), "TH"), (C("2C"), "2C"), (C("AS"), "AS"), (BID_BASE, "bid 0"),
     (BID_BASE + 13, "bid 13")],
)
def test_action_names(action: int, name: str) -> None:
    """Cards by their compact name, bids as ``bid N``."""
    assert new_state().action_to_string(action) == name


@pytest.mark.parametrize(
    ("players", "params", "fragment"),
    [
        (3, {}, "valid seat counts: 4"),
        (4, {"rank_order": "tressette"}, "one of bridge, briscola"),
        (4, {"misere_fail": "-50"}, "one of per_trick, minus_50"),
        (4, {"hand_size": 0}, "hand_size=0"),
        (4, {"hand_size": 14}, "an integer 1..13"),
        (4, {"trumps": "none"}, "unknown parameter 'trumps'"),
        (4, {"hook_in_blind": "maybe"}, "true or false"),
    ],
)
def test_bad_parameters(players: int, params: dict[str, ParamValue], fragment: str) -> None:
    """Bad seat counts and parameters name the problem and the valid choices."""
    with pytest.raises(InvalidParameterError) as error:
        load_game("misere", players, params)
    assert fragment in str(error.value)
