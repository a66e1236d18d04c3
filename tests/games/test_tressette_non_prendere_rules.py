"""Table-driven rule tests for Tressette a non prendere (docs/games/tressette_non_prendere.md)."""

from __future__ import annotations

import pytest

from arena.games import IllegalActionError, InvalidParameterError, load_game
from arena.games.api import TERMINAL, EventKind, State
from arena.games.cards import HIDDEN, ITALIAN_40
from arena.games.params import ParamValue
from arena.games.tressette_non_prendere import THIRDS, hand_losers, hand_points

C = ITALIAN_40.parse

# Dealer 2. Seat 0 keeps all ten denari and the 3 of the other suits after passing 4C: leading
# the threes, then the denari, it takes all 13 tricks.
CAPPOTTO = ["AD 2D 3D 4D 5D 6D 7D FD CD RD 3C 3B 3S 4C",
            "AC 2C 5C 6C 7C FC CC RC AB 2B 4B 5B 6B",
            "7B FB CB RB AS 2S 4S 5S 6S 7S FS CS RS"]
CAPPOTTO_EXCHANGE = "4C 4B 7B"
CAPPOTTO_LEADS = "3C 3B 3S AD 2D 3D 4D 5D 6D 7D FD CD RD"


def deal_order(hands: list[str], dealer: int = 2) -> list[int]:
    """The 40-card deal order giving these hands (seat order; dealer+1 holds 14 cards)."""
    cards = [[C(text) for text in hand.split()] for hand in hands]
    first = cards[(dealer + 1) % 3]
    order = [-1] * 40
    for offset in range(3):
        order[offset:39:3] = cards[(dealer + 1 + offset) % 3][:13]
    order[39] = first[13]
    assert sorted(order) == list(range(40)), "the hands must be the deck"
    return order


def new_state(hands: list[str] | None = None, **params: ParamValue) -> State:
    """A match whose first hand is the given deal (or the identity order)."""
    order = list(range(40)) if hands is None else deal_order(hands)
    return load_game("tressette-non-prendere", 3, params).new_initial_state(0, deal=order)


def play(state: State, cards: str) -> None:
    """Apply card actions given by name."""
    for text in cards.split():
        state.apply_action(C(text))


def names(actions: list[int] | tuple[int, ...]) -> set[str]:
    """Card names of actions."""
    return {ITALIAN_40.short(a) for a in actions}


def play_cappotto_hand(state: State) -> None:
    """Pass, set aside, then seat 0 leads its cards in order; others play their lowest card."""
    play(state, CAPPOTTO_EXCHANGE)
    leads = CAPPOTTO_LEADS.split()
    for _ in range(39):
        if state.current_player() == 0:
            state.apply_action(C(leads.pop(0)))
        else:
            state.apply_action(state.legal_actions()[0])


def test_deal_one_at_a_time_fourteen_to_the_first_player() -> None:
    """One card at a time from the dealer's right; the 40th card to that first player."""
    state = new_state()
    assert list(state.observation(0).hand) == [*range(0, 39, 3), 39]
    assert list(state.observation(1).hand) == list(range(1, 39, 3))
    assert list(state.observation(2).hand) == list(range(2, 39, 3))
    obs = state.observation(0)
    assert (obs.dealer, obs.phase, state.current_player()) == (2, "pass", 0)
    assert obs.hand_sizes == (14, 13, 13) and obs.teammates == () and obs.trump_suit == -1
    assert state.legal_actions() == list(obs.hand)


def test_passing_and_setting_aside() -> None:
    """Seat 0 passes to seat 1, seat 1 to the dealer, who sets one card aside face down."""
    state = new_state(CAPPOTTO)
    play(state, "4C")
    assert C("4C") in state.observation(1).hand and C("4C") not in state.observation(0).hand
    assert (state.observation(1).phase, state.current_player()) == ("pass", 1)
    play(state, "4B")
    assert C("4B") in state.observation(2).hand
    assert (state.observation(2).phase, state.current_player()) == ("discard", 2)
    assert len(state.legal_actions()) == 14
    play(state, "7B")
    obs = [state.observation(seat) for seat in range(3)]
    assert (obs[0].phase, state.current_player()) == ("play", 0)
    assert obs[0].hand_sizes == (13, 13, 13)
    assert obs[2].table == (C("7B"),) and obs[0].table == obs[1].table == (HIDDEN,)
    assert C("7B") not in obs[2].hand


@pytest.mark.parametrize(
    ("index", "kind", "seat", "card", "viewers"),
    [
        (-3, EventKind.PASS, 0, "4C", {0, 1}),  # first pass: giver and receiver
        (-2, EventKind.PASS, 1, "4B", {1, 2}),  # second pass: to the dealer
        (-1, EventKind.PLAY_FACE_DOWN, 2, "7B", {2}),  # the set-aside card: the dealer only
    ],
)
def test_exchange_visibility(index: int, kind: EventKind, seat: int, card: str,
                             viewers: set[int]) -> None:
    """Each seat sees exactly the passes and set-aside card the rules show it."""
    state = new_state(CAPPOTTO)
    play(state, CAPPOTTO_EXCHANGE)
    real = state.full_events()[index]
    assert (real.kind, real.seat, real.cards) == (kind, seat, (C(card),))
    for viewer in range(3):
        seen = state.observation(viewer).events[index]
        assert seen.cards == ((C(card),) if viewer in viewers else (HIDDEN,))


@pytest.mark.parametrize(
    ("plays", "winner", "thirds"),
    [
        ("AC 2C 3C", 2, 5),  # 3 beats 2 beats the ace
        ("AC 5C 6C", 0, 3),  # the ace beats the small cards
        ("7C FC CC", 2, 2),  # C beats F beats 7
        ("4C 2C 6C", 1, 1),
        ("3D AD 2D", 0, 5),
    ],
)
def test_trick_winner_and_thirds(plays: str, winner: int, thirds: int) -> None:
    """Tressette order 3 2 A R C F 7 6 5 4; an ace is 3 thirds, 3 2 R C F one third."""
    state = new_state()
    play(state, "RS FS CS")  # identity deal: pass RS, pass FS, set CS aside
    play(state, plays)
    trick = state.full_events()[-1]
    assert (trick.kind, trick.seat, trick.values) == (EventKind.TRICK, winner, (thirds,))
    assert state.current_player() == winner
    assert state.observation(1).points[winner] == thirds


@pytest.mark.parametrize(
    ("plays", "legal"),
    [
        ("3C", "AC 2C 4C 5C 6C 7C FC CC RC"),  # must follow suit
        ("3C AC", "FB CB RB AS 2S 4S 5S 6S 7S FS CS RS 4B"),  # void: any card
        ("3C AC FB 3B", "AB 2B 5B 6B"),
    ],
)
def test_follow_suit(plays: str, legal: str) -> None:
    """A seat must follow the led suit when it can; a void seat may play any card."""
    state = new_state(CAPPOTTO)
    play(state, CAPPOTTO_EXCHANGE)
    play(state, plays)
    assert names(state.legal_actions()) == set(legal.split())


@pytest.mark.parametrize(
    ("thirds", "last", "points"),
    [
        ([10, 12, 13], 2, [3, 4, 4]),
        ([2, 30, 3], 1, [0, 10, 1]),
        ([11, 11, 13], 0, [4, 3, 4]),  # the last-trick taker scores the rounding left over
        ([35, 0, 0], 0, [11, 0, 0]),
        ([3, 3, 29], 2, [1, 1, 9]),
    ],
)
def test_hand_points(thirds: list[int], last: int, points: list[int]) -> None:
    """Others score thirds // 3; the last-trick taker scores 11 minus the others."""
    assert hand_points(thirds, last) == points


@pytest.mark.parametrize(
    ("points", "cappotto", "tie_rule", "cappotto_rule", "losers"),
    [
        ([0, 5, 6], -1, "all_lose", "others_lose", [0]),  # fewer than 1 point loses
        ([0, 0, 11], -1, "all_lose", "others_lose", [0, 1]),
        ([1, 4, 6], -1, "all_lose", "others_lose", [2]),  # all have 1+: the highest loses
        ([1, 1, 9], -1, "all_lose", "others_lose", [2]),  # exactly 1 is safe
        ([1, 5, 5], -1, "all_lose", "others_lose", [1, 2]),  # tied highest: all lose
        ([1, 5, 5], -1, "none_lose", "others_lose", []),
        ([3, 3, 5], -1, "none_lose", "others_lose", [2]),
        ([0, 0, 11], 2, "all_lose", "others_lose", [0, 1]),  # cappotto: both others lose
        ([0, 0, 11], 2, "all_lose", "taker_loses", [2]),
    ],
)
def test_hand_losers(points: list[int], cappotto: int, tie_rule: str, cappotto_rule: str,
                     losers: list[int]) -> None:
    """Who loses a hand (the defaults and options)."""
    assert hand_losers(points, cappotto, tie_rule, cappotto_rule) == losers


@pytest.mark.parametrize(
    ("params", "lost", "terminal", "returns"),
    [
        ({}, (0, 1, 1), False, [0, 0, 0]),
        ({"cappotto_rule": "taker_loses"}, (1, 0, 0), False, [0, 0, 0]),
        ({"losses": 1}, (0, 1, 1), True, [2, -1, -1]),
        ({"losses": 1, "cappotto_rule": "taker_loses"}, (1, 0, 0), True, [-2, 1, 1]),
    ],
)
def test_cappotto_hand(params: dict[str, ParamValue], lost: tuple[int, ...], terminal: bool,
                       returns: list[int]) -> None:
    """Seat 0 takes every trick and the set-aside card: 35 thirds, 11 points, a cappotto."""
    state = new_state(CAPPOTTO, **params)
    play_cappotto_hand(state)
    events = state.full_events()
    end = next(e for e in events if e.kind == EventKind.HAND_END)
    score = next(e for e in events if e.kind == EventKind.SCORE)
    assert end.values == (35 - THIRDS[C("7B")], 0, 0) and end.cards == (C("7B"),)
    assert score.values == lost
    assert state.is_terminal() == terminal and state.returns() == returns
    assert state.observation(0).scores == tuple(float(v) for v in lost)
    if terminal:
        assert state.current_player() == TERMINAL and state.legal_actions() == []
    else:
        assert (state.observation(0).dealer, state.current_player()) == (0, 1)


def test_set_aside_card_goes_with_the_last_trick() -> None:
    """HAND_END shows the set-aside card; its thirds belong to the last-trick taker."""
    game = load_game("tressette-non-prendere")
    for seed in range(6):
        state = game.new_initial_state(seed)
        while not any(e.kind == EventKind.SCORE for e in state.full_events()):
            state.apply_action(state.legal_actions()[-1])
        events = state.full_events()
        discard = next(e for e in events if e.kind == EventKind.PLAY_FACE_DOWN).cards[0]
        tricks = [e for e in events if e.kind == EventKind.TRICK]
        end = next(e for e in events if e.kind == EventKind.HAND_END)
        won = [0, 0, 0]
        for trick in tricks:
            won[trick.seat] += trick.values[0]
        won[tricks[-1].seat] += 3
        assert len(tricks) == 13 and list(end.values) == won and end.cards == (discard,)
        assert sum(end.values) + THIRDS[discard] == 35
        thirds = list(end.values)
        points = hand_points(thirds, tricks[-1].seat)
        assert sum(points) == 11
        lost = next(e for e in events if e.kind == EventKind.SCORE).values
        cappotto = tricks[-1].seat if len({t.seat for t in tricks}) == 1 else -1
        assert [s for s in range(3) if lost[s]] == hand_losers(points, cappotto, "all_lose",
                                                               "others_lose")


def test_whole_match_to_five_losses() -> None:
    """The match ends after the hand in which a seat reaches 5 losses; returns are zero-sum."""
    state = load_game("tressette-non-prendere").new_initial_state(3)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    losses = state.observation(1).scores
    assert max(losses) >= 5
    losers = [seat for seat in range(3) if losses[seat] >= 5]
    k = 3 - len(losers)
    assert state.returns() == [-k if seat in losers else 3 - k for seat in range(3)]
    totals = [0, 0, 0]
    for event in state.full_events():
        if event.kind == EventKind.SCORE:
            totals = [total + value for total, value in zip(totals, event.values, strict=True)]
    assert tuple(float(total) for total in totals) == losses


def test_illegal_actions_are_rejected_without_change() -> None:
    """Passing a card not held, or not following suit, is a one-line error; nothing changes."""
    state = new_state(CAPPOTTO)
    before = (state.history(), state.observation(0), state.full_events())
    with pytest.raises(IllegalActionError, match=r"action 0 \(AC\) is illegal for seat 0"):
        state.apply_action(C("AC"))
    assert (state.history(), state.observation(0), state.full_events()) == before
    play(state, CAPPOTTO_EXCHANGE + " 3C")
    with pytest.raises(IllegalActionError) as error:
        state.apply_action(C("AB"))
    message = str(error.value)
    assert "\n" not in message and all(card in message for card in ("AC", "RC", "4C"))
    with pytest.raises(ValueError, match="not a tressette-non-prendere action"):
        state.action_to_string(40)


@pytest.mark.parametrize(
    ("players", "params", "message"),
    [
        (4, {}, "4 players is not allowed; valid seat counts: 3"),
        (3, {"losses": 0}, "losses=0 is invalid"),
        (3, {"tie_rule": "random"}, "one of all_lose, none_lose"),
        (3, {"cappotto_rule": "double"}, "one of others_lose, taker_loses"),
        (3, {"target": 21}, "unknown parameter 'target'"),
    ],
)
def test_bad_parameters(players: int, params: dict[str, ParamValue], message: str) -> None:
    """Bad seat counts and parameters are one-line errors naming the valid choices."""
    with pytest.raises(InvalidParameterError, match=message):
        load_game("tressette-non-prendere", players, params)
