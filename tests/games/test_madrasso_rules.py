"""Table-driven rule tests for Madrasso (docs/games/madrasso.md), with injected deals."""

from __future__ import annotations

import pytest

from arena.games import IllegalActionError, InvalidParameterError, UnknownGameError, load_game
from arena.games.api import TERMINAL, EventKind, State
from arena.games.cards import HIDDEN, ITALIAN_40
from arena.games.madrasso import SWAP_SEVEN, MadrassoGame, match_winner
from arena.games.params import ParamValue

C = ITALIAN_40.parse

# Dealer 3, trump coppe from the face-up 2C. Seat 0 holds nine trumps and leads them, then AD:
# nobody else holds a trump but the dealer's face-up card, so pair 0+2 takes all ten tricks.
CAPPOTTO = (["AC 3C RC CC FC 7C 6C 5C 4C AD",
             "3D RD CD FD 7D 6D 5D 4D 2D AB",
             "3B RB CB FB 7B 6B 5B 4B 2B AS",
             "3S RS CS FS 7S 6S 5S 4S 2S"], "2C")
CAPPOTTO_LEADS = "AC 3C RC CC FC 7C 6C 5C 4C AD"

# Dealer 3 holds AD AB AS: he wins the first three tricks without a trump being played.
RELEASE = (["2D 3D RD 2B 3B RB 2S 3S RS 4C",
            "CD FD 7D CB FB 7B CS FS 7S 6C",
            "6D 5D 4D 6B 5B 4B 6S 5S 4S 5C",
            "AD AB AS 7C AC 3C RC CC FC"], "2C")

# Face-up RC; seat 0 (an opponent of dealer 3) holds the 7 of trump; seat 3 is void in spade.
SWAP = (["7C 6D 5D 4D 2D AS 3S RS CS FS",
         "AD 3D RD CD FD AB 3B RB CB FB",
         "7B 6B 5B 4B 2B 7S 6S 5S 4S 2S",
         "AC 3C CC FC 6C 5C 4C 2C 7D"], "RC")


def deal_order(hands: list[str], faceup: str, dealer: int = 3) -> list[int]:
    """The 40-card deal order giving these hands (seat order; the dealer's has 9 cards)."""
    cards = [[C(text) for text in hand.split()] for hand in hands]
    order = [-1] * 40
    for offset in range(4):
        hand = cards[(dealer + 1 + offset) % 4]
        order[5 * offset:5 * offset + 5] = hand[:5]
        order[21 + 5 * offset:21 + 5 * offset + len(hand) - 5] = hand[5:]
    order[20] = C(faceup)
    assert sorted(order) == list(range(40)), "the hands and face-up card must be the deck"
    return order


def new_state(setup: tuple[list[str], str], **params: ParamValue) -> State:
    """A match whose first hand is the given deal."""
    hands, faceup = setup
    return load_game("madrasso", 4, params).new_initial_state(0, deal=deal_order(hands, faceup))


def play(state: State, cards: str) -> None:
    """Apply card plays given by name."""
    for text in cards.split():
        state.apply_action(C(text))


def names(actions: list[int] | tuple[int, ...]) -> set[str]:
    """Card names of actions (``swap`` for the seven swap)."""
    return {"swap" if a == SWAP_SEVEN else ITALIAN_40.short(a) for a in actions}


def lowest_card(state: State) -> int:
    """The lowest legal card (never the swap)."""
    return min(a for a in state.legal_actions() if a != SWAP_SEVEN)


def play_cappotto_hand(state: State) -> None:
    """Seat 0 leads its cards in order, every other seat plays its lowest legal card."""
    leads = CAPPOTTO_LEADS.split()
    for _ in range(40):
        if state.current_player() == 0:
            state.apply_action(C(leads.pop(0)))
        else:
            state.apply_action(lowest_card(state))


def test_deal_order_five_five_around_the_face_up_card() -> None:
    """5 each from the dealer's right, the 21st card face up, then 5, 5, 5 and 4 to the dealer."""
    state = load_game("madrasso").new_initial_state(0, deal=list(range(40)))
    expected = {0: [*range(0, 5), *range(21, 26)], 1: [*range(5, 10), *range(26, 31)],
                2: [*range(10, 15), *range(31, 36)], 3: [*range(15, 20), *range(36, 40)]}
    for seat, cards in expected.items():
        assert list(state.observation(seat).hand) == cards
    obs = state.observation(3)
    assert obs.dealer == 3 and state.current_player() == 0
    assert obs.trump_card == 20 and obs.trump_suit == ITALIAN_40.suit(20)
    assert obs.table == (20,) and obs.hand_sizes == (10, 10, 10, 9)
    assert obs.teammates == (1,) and state.observation(0).teammates == (2,)


def test_second_hand_dealer_moves_right() -> None:
    """After a hand the dealer is seat 0 and seat 1 leads."""
    state = new_state(CAPPOTTO)
    play_cappotto_hand(state)
    obs = state.observation(1)
    assert (obs.hand_number, obs.dealer, state.current_player()) == (1, 0, 1)
    assert obs.hand_sizes == (9, 10, 10, 10)


@pytest.mark.parametrize(
    ("setup", "plays", "winner", "points"),
    [
        (RELEASE, "2D CD 6D AD", 3, 14),  # the highest of the led suit
        (RELEASE, "4C 6C 5C FC", 3, 2),  # trump led: the highest trump
        (SWAP, "AS AD 7S 2C", 3, 22),  # a void seat trumps the aces
        (SWAP, "AS AD 2S 7D", 0, 22),  # void seats discard: the led suit wins
        (CAPPOTTO, "AC 2D 2B 2C", 0, 11),  # the dealer follows with the face-up trump
    ],
)
def test_trick_winner_and_points(setup: tuple[list[str], str], plays: str, winner: int,
                                 points: int) -> None:
    """The highest trump wins, else the highest card of the led suit; briscola points."""
    state = new_state(setup)
    play(state, plays)
    trick = state.full_events()[-1]
    assert trick.kind == EventKind.TRICK
    assert (trick.seat, trick.values) == (winner, (points,))
    assert state.current_player() == winner
    assert state.observation(0).points[winner] == points


@pytest.mark.parametrize(
    ("setup", "params", "plays", "legal"),
    [
        # must follow suit
        (RELEASE, {}, "2D", "CD FD 7D"),
        # void: any card
        (SWAP, {}, "AS", "AD 3D RD CD FD AB 3B RB CB FB"),
        # the dealer may play the face-up card whenever following allows (seed default)
        (SWAP, {}, "AS AD 7S", "AC 3C CC FC 6C 5C 4C 2C 7D RC"),
        # must trump if void: the dealer's trumps, the face-up card included
        (SWAP, {"must_trump_if_void": True}, "AS AD 7S", "AC 3C CC FC 6C 5C 4C 2C RC"),
        # must trump, but a void seat without trumps plays anything
        (SWAP, {"must_trump_if_void": True}, "AS", "AD 3D RD CD FD AB 3B RB CB FB"),
        # the face-up trump is the dealer's only trump: trump led, he must play it
        (CAPPOTTO, {}, "AC 2D 2B", "2C"),
        (CAPPOTTO, {"faceup_release": "after_3_tricks_or_trump"}, "AC 2D 2B", "2C"),
        # not yet released: void, no trump in hand, so any card but the face-up one
        (CAPPOTTO, {"faceup_release": "after_3_tricks_or_trump", "must_trump_if_void": True},
         "AD 2D 2B", "3S RS CS FS 7S 6S 5S 4S 2S"),
        (CAPPOTTO, {"must_trump_if_void": True}, "AD 2D 2B", "2C"),
    ],
)
def test_legal_cards(setup: tuple[list[str], str], params: dict[str, ParamValue], plays: str,
                     legal: str) -> None:
    """Follow suit; a void seat plays anything (or must trump); the face-up card's release."""
    state = new_state(setup, **params)
    play(state, plays)
    assert names(state.legal_actions()) == set(legal.split())


@pytest.mark.parametrize(
    ("release", "plays", "faceup_legal"),
    [
        ("anytime", "2D CD 6D AD", True),  # the dealer leads trick 2
        ("after_3_tricks_or_trump", "2D CD 6D AD", False),  # one trick, no trump yet
        ("after_3_tricks_or_trump", "2D CD 6D AD AB 2B CB 6B", False),  # two tricks
        ("after_3_tricks_or_trump", "2D CD 6D AD AB 2B CB 6B AS 2S CS 6S", True),  # three
        ("after_3_tricks_or_trump", "4C 6C 5C", True),  # a trump in the current trick
    ],
)
def test_faceup_release(release: str, plays: str, faceup_legal: bool) -> None:
    """Anytime (the source text), or only after three tricks or once a trump has been played."""
    state = new_state(RELEASE, faceup_release=release)
    play(state, plays)
    assert state.current_player() == 3
    assert (C("2C") in state.legal_actions()) == faceup_legal
    assert state.observation(3).trump_card == C("2C")
    assert C("2C") not in state.observation(3).hand


def test_faceup_release_after_a_trump_in_an_earlier_trick() -> None:
    """Once any trump has been played in the hand, the face-up card is free from then on."""
    state = new_state(RELEASE, faceup_release="after_3_tricks_or_trump")
    play(state, "4C 6C 5C FC")  # seat 3 wins with a trump and leads
    assert C("2C") in state.legal_actions()


def test_playing_the_faceup_card() -> None:
    """The face-up card leaves the table; the dealer keeps his nine real cards in hand."""
    state = new_state(CAPPOTTO)
    play(state, "AC 2D 2B 2C")
    obs = state.observation(1)
    assert obs.trump_card == HIDDEN and obs.table == () and obs.trump_suit == 0
    assert obs.hand_sizes == (9, 9, 9, 9)
    assert state.observation(3).hand == tuple(sorted(C(c) for c in CAPPOTTO[0][3].split()))


def test_seven_swap() -> None:
    """An opponent of the dealer swaps the 7 of trump for the face-up card, publicly."""
    state = new_state(SWAP)
    assert SWAP_SEVEN in state.legal_actions()
    assert state.action_to_string(SWAP_SEVEN) == "swap-seven"
    state.apply_action(SWAP_SEVEN)
    assert state.current_player() == 0
    assert SWAP_SEVEN not in state.legal_actions()
    hand = state.observation(0).hand
    assert C("RC") in hand and C("7C") not in hand
    for seat in range(4):
        obs = state.observation(seat)
        assert obs.trump_card == C("7C") and obs.table == (C("7C"),)
        assert obs.events[-1] == state.full_events()[-1]
    swap = state.full_events()[-1]
    assert (swap.kind, swap.seat, swap.cards) == (EventKind.SWAP, 0, (C("7C"), C("RC")))
    play(state, "RC AD 7S")
    assert C("7C") in state.legal_actions()  # the dealer follows with the new face-up 7


@pytest.mark.parametrize(
    ("first_trick_only", "offered"),
    [(False, True), (True, False)],
)
def test_seven_swap_after_the_first_trick(first_trick_only: bool, offered: bool) -> None:
    """By default the swap stays open; ``swap_first_trick_only`` closes it after trick 1."""
    state = new_state(SWAP, swap_first_trick_only=first_trick_only)
    play(state, "AS AD 2S 7D")  # seat 0 wins and leads again
    assert state.current_player() == 0
    assert (SWAP_SEVEN in state.legal_actions()) == offered


def test_no_swap_for_the_dealers_partner_or_after_the_faceup_is_played() -> None:
    """The dealer's partner may not swap; nobody may once the face-up card has been played."""
    hands = list(SWAP[0])
    hands[0] = hands[0].replace("7C", "FD")
    hands[1] = hands[1].replace("FD", "7C")
    state = new_state((hands, SWAP[1]))
    play(state, "AS")
    assert state.current_player() == 1 and SWAP_SEVEN not in state.legal_actions()
    state = new_state(SWAP)
    play(state, "AS AD 7S RC")  # the dealer trumps with the face-up card
    assert state.current_player() == 3
    play(state, "2C")
    assert SWAP_SEVEN not in state.legal_actions()


def test_hand_scoring_last_trick_ten() -> None:
    """Card points plus 10 for the last trick: 130 a hand; pair totals go to the match score."""
    state = new_state(CAPPOTTO)
    play_cappotto_hand(state)
    events = state.full_events()
    end = next(e for e in events if e.kind == EventKind.HAND_END)
    score = next(e for e in events if e.kind == EventKind.SCORE)
    assert end.values == (130, 0, 0, 0) and end.cards == ()
    assert score.values == (130, 0, 130, 0)
    assert state.observation(1).scores == (130.0, 0.0, 130.0, 0.0)
    assert state.returns() == [0.0, 0.0, 0.0, 0.0]


def test_last_trick_bonus_goes_to_the_last_winner() -> None:
    """HAND_END values are each seat's trick points, plus 10 for the last trick's winner."""
    state = load_game("madrasso").new_initial_state(5)
    while not any(e.kind == EventKind.HAND_END for e in state.full_events()):
        state.apply_action(lowest_card(state))
    events = state.full_events()
    tricks = [e for e in events if e.kind == EventKind.TRICK]
    won = [0] * 4
    for trick in tricks:
        won[trick.seat] += trick.values[0]
    won[tricks[-1].seat] += 10
    end = next(e for e in events if e.kind == EventKind.HAND_END)
    assert len(tricks) == 10 and list(end.values) == won and sum(won) == 130


@pytest.mark.parametrize(
    ("params", "terminal", "returns"),
    [
        ({}, False, [0, 0, 0, 0]),
        ({"cappotto_wins": True}, True, [1, -1, 1, -1]),
        ({"cappotto_wins": True, "min_hands": 10}, True, [1, -1, 1, -1]),
        ({"target": 100}, True, [1, -1, 1, -1]),
        ({"target": 100, "min_hands": 2}, False, [0, 0, 0, 0]),
        ({"target": 131}, False, [0, 0, 0, 0]),
    ],
)
def test_match_end(params: dict[str, ParamValue], terminal: bool, returns: list[int]) -> None:
    """The target (checked after each hand), ``min_hands`` and ``cappotto_wins``."""
    state = new_state(CAPPOTTO, **params)
    play_cappotto_hand(state)
    assert state.is_terminal() == terminal
    assert state.returns() == returns
    if terminal:
        assert state.current_player() == TERMINAL and state.legal_actions() == []
        end = state.full_events()[-1]
        assert (end.kind, end.values) == (EventKind.MATCH_END, tuple(returns))


@pytest.mark.parametrize(
    ("params", "scores", "hands", "tricks", "winner"),
    [
        ({}, (777, 600), 8, (6, 4), 0),
        ({}, (700, 790), 8, (6, 4), 1),
        ({}, (776, 700), 8, (6, 4), None),
        ({}, (800, 780), 9, (5, 5), 0),  # both past the target: the higher wins
        ({}, (780, 780), 9, (5, 5), None),  # level past the target: play on
        ({"min_hands": 10}, (800, 100), 9, (5, 5), None),
        ({"min_hands": 10}, (800, 100), 10, (5, 5), 0),
        ({"cappotto_wins": True}, (130, 0), 1, (10, 0), 0),
        ({"cappotto_wins": True}, (100, 160), 2, (0, 10), 1),
        ({}, (130, 0), 1, (10, 0), None),
    ],
)
def test_match_winner_table(params: dict[str, ParamValue], scores: tuple[int, int], hands: int,
                            tricks: tuple[int, int], winner: int | None) -> None:
    """Which pair wins the match after a hand, if any."""
    game = load_game("madrasso", 4, params)
    assert isinstance(game, MadrassoGame)
    assert match_winner(scores, hands, tricks, game) == winner


def test_whole_match_to_777() -> None:
    """A default match ends when a pair passes 777; returns are +1 / -1 per pair."""
    state = load_game("madrasso").new_initial_state(11)
    while not state.is_terminal():
        state.apply_action(lowest_card(state))
    scores = state.observation(0).scores
    winner = 0 if scores[0] > scores[1] else 1
    assert max(scores) >= 777 and scores[0] != scores[1]
    assert state.returns() == ([1, -1, 1, -1] if winner == 0 else [-1, 1, -1, 1])
    totals = [0, 0]
    for event in state.full_events():
        if event.kind == EventKind.SCORE:
            totals[0] += event.values[0]
            totals[1] += event.values[1]
    assert (float(totals[0]), float(totals[1])) == scores[:2]
    assert sum(e.kind == EventKind.HAND_START for e in state.full_events()) >= 6


def test_observation_hides_other_hands() -> None:
    """A seat sees its own hand, the face-up card and public plays; other deals are masked."""
    state = new_state(SWAP)
    play(state, "AS")
    obs = state.observation(2)
    assert obs.hand == tuple(sorted(C(c) for c in SWAP[0][2].split()))
    deals = [e for e in obs.events if e.kind == EventKind.DEAL]
    assert [e.cards for e in deals if e.seat != 2] == [(HIDDEN,) * 10, (HIDDEN,) * 10,
                                                      (HIDDEN,) * 9]
    assert obs.trick == ((0, C("AS")),) and obs.legal_actions == ()
    assert obs.trump_card == C("RC") and obs.table == (C("RC"),)


def test_illegal_action_is_rejected_without_change() -> None:
    """Not following suit raises a one-line error naming the action and the legal set."""
    state = new_state(RELEASE)
    play(state, "2D")
    before = (state.history(), state.observation(1), state.full_events())
    with pytest.raises(IllegalActionError) as error:
        state.apply_action(C("6C"))
    message = str(error.value)
    assert "\n" not in message and "6C" in message
    for card in ("CD", "FD", "7D"):
        assert card in message
    assert (state.history(), state.observation(1), state.full_events()) == before
    with pytest.raises(IllegalActionError, match="swap-seven"):
        state.apply_action(SWAP_SEVEN)
    with pytest.raises(ValueError, match="not a madrasso action"):
        state.action_to_string(41)


@pytest.mark.parametrize(
    ("players", "params", "message"),
    [
        (3, {}, "3 players is not allowed; valid seat counts: 4"),
        (4, {"target": 0}, "target=0 is invalid"),
        (4, {"faceup_release": "never"}, "one of anytime, after_3_tricks_or_trump"),
        (4, {"trump": "coppe"}, "unknown parameter 'trump'"),
        (4, {"must_trump_if_void": "maybe"}, "true or false"),
    ],
)
def test_bad_parameters(players: int, params: dict[str, ParamValue], message: str) -> None:
    """Bad seat counts and parameters are one-line errors naming the valid choices."""
    with pytest.raises(InvalidParameterError, match=message):
        load_game("madrasso", players, params)


def test_unknown_game_and_bad_seat() -> None:
    """A misspelt game id lists the valid ids; observing a missing seat is an error."""
    with pytest.raises(UnknownGameError, match="madrasso"):
        load_game("madraso")
    with pytest.raises(ValueError, match="seat 4 does not exist"):
        load_game("madrasso").new_initial_state(0).observation(4)
