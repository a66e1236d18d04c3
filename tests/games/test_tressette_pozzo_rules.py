"""Table-driven rule tests for Tressette con il pozzo (docs/games/tressette_pozzo.md)."""

from __future__ import annotations

import pytest

from arena.games import (
    IllegalActionError,
    InvalidParameterError,
    UnknownGameError,
    load_game,
)
from arena.games.api import Event, EventKind, State
from arena.games.cards import HIDDEN, ITALIAN_40
from arena.games.tressette_pozzo import (
    CHIAMO,
    PASS,
    POINTS_TOTAL,
    REMOVED_FOUR,
    SOLISSIMO,
    SOLO,
    STRENGTH,
    SUIT,
    THIRDS,
    contract_score,
)
from arena.games.tricks import trick_winner

C = ITALIAN_40.parse
GAME = "tressette-pozzo"


def cards(text: str) -> list[int]:
    """Card ids from compact names separated by spaces."""
    return [C(name) for name in text.split()]


def suited(ranks: str, suits: str = "CDBS") -> str:
    """Compact names of the given ranks in every given suit, e.g. ``suited("32A")``."""
    return " ".join(rank + suit for suit in suits for rank in ranks)


def calabresella_order(hands: list[str], monte: str) -> list[int]:
    """A deal order giving these 12-card hands (seats 0, 1, 2) and monte; seat 2 deals."""
    parsed = [cards(hand) for hand in hands]
    assert all(len(hand) == 12 for hand in parsed)
    order = [card for packet in range(3) for seat in range(3)
             for card in parsed[seat][4 * packet:4 * packet + 4]]
    return order + cards(monte)


def draw_pool_order(hands: list[str], stock: str) -> list[int]:
    """A deal order giving these 10-card hands (seats 0, 1, 2) and stock (drawn in order)."""
    parsed = [cards(hand) for hand in hands]
    order = [card for packet in range(2) for seat in range(3)
             for card in parsed[seat][5 * packet:5 * packet + 5]]
    return [*order, *cards(stock), REMOVED_FOUR]


STRONG = suited("32A")
"""The 3, 2 and ace of every suit: every trick it leads from the top is won."""
MIDDLE = suited("RCF")
WEAK = suited("456")
SEVENS = suited("7")


def events_of(state: State, kind: EventKind) -> list[Event]:
    """The unmasked events of one kind so far."""
    return [event for event in state.full_events() if event.kind == kind]


def play_lowest(state: State) -> None:
    """Apply the lowest legal action until the current hand (or the match) ends."""
    hands = len(events_of(state, EventKind.HAND_END))
    while not state.is_terminal() and len(events_of(state, EventKind.HAND_END)) == hands:
        state.apply_action(state.legal_actions()[0])


# --- card order and trick winners -------------------------------------------------------------

@pytest.mark.parametrize(
    ("trick", "winner"),
    [
        ("4C 3C AC", 1),  # the 3 is the highest card
        ("AC 2C 3C", 2),
        ("RC AC FC", 1),  # the ace beats the king
        ("7B FB 4B", 1),  # the jack beats the 7
        ("AC 3D 2D", 0),  # another suit never wins: no trumps
        ("5S 4S 6S", 2),
        ("2D 3D RD", 1),
    ],
)
def test_trick_winner(trick: str, winner: int) -> None:
    """Tressette order 3 2 A R C F 7 6 5 4; the highest card of the led suit wins."""
    assert trick_winner(cards(trick), SUIT, STRENGTH) == winner


@pytest.mark.parametrize(
    ("card", "thirds"),
    [("AC", 3), ("3D", 1), ("2B", 1), ("RS", 1), ("CC", 1), ("FD", 1), ("7B", 0), ("4S", 0)],
)
def test_card_points_in_thirds(card: str, thirds: int) -> None:
    """An ace is a point, a 3, 2 or figure a third, others none; 35 thirds with the last trick."""
    assert THIRDS[C(card)] == thirds
    assert POINTS_TOTAL == 35


# --- dealing ------------------------------------------------------------------------------------

def test_calabresella_deals_packets_of_four_from_the_dealers_right() -> None:
    """Seat 0 (the dealer's right) gets cards 0-3, 12-15, 24-27; the monte is cards 36-39."""
    state = load_game(GAME).new_initial_state(0, deal=list(range(40)))
    assert state.observation(0).hand == (0, 1, 2, 3, 12, 13, 14, 15, 24, 25, 26, 27)
    assert state.observation(1).hand == (4, 5, 6, 7, 16, 17, 18, 19, 28, 29, 30, 31)
    assert state.observation(2).hand == (8, 9, 10, 11, 20, 21, 22, 23, 32, 33, 34, 35)
    obs = state.observation(0)
    assert obs.dealer == 2 and obs.phase == "bid" and state.current_player() == 0
    assert obs.stock_size == 4 and obs.hand_sizes == (12, 12, 12)
    state.apply_action(SOLO)
    state.apply_action(PASS)
    state.apply_action(PASS)
    draw = events_of(state, EventKind.DRAW)[0]
    assert draw.seat == 0 and draw.cards == (36, 37, 38, 39)


def test_draw_pool_deals_ten_in_fives_and_removes_the_four_of_spade() -> None:
    """39 cards: 10 each in packets of 5, 9 in the stock; the 4 of spade is out of play."""
    game = load_game(GAME, params={"variant": "draw_pool"})
    order = [card for card in range(40) if card != REMOVED_FOUR] + [REMOVED_FOUR]
    state = game.new_initial_state(0, deal=order)
    assert state.observation(0).hand == (0, 1, 2, 3, 4, 15, 16, 17, 18, 19)
    assert state.observation(1).hand == (5, 6, 7, 8, 9, 20, 21, 22, 23, 24)
    assert state.observation(2).hand == (10, 11, 12, 13, 14, 25, 26, 27, 28, 29)
    obs = state.observation(1)
    assert obs.phase == "play" and obs.stock_size == 9 and state.current_player() == 0
    assert ITALIAN_40.short(REMOVED_FOUR) == "4S"


# --- the auction --------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("bids", "legal_after", "phase", "soloist", "contract"),
    [
        ([CHIAMO], [PASS, SOLO, SOLISSIMO], "bid", -1, 0),
        ([CHIAMO, SOLO], [PASS, SOLISSIMO], "bid", -1, 0),
        ([PASS, PASS], [PASS, CHIAMO, SOLO, SOLISSIMO], "bid", -1, 0),
        ([CHIAMO, PASS, PASS], None, "call", 0, 1),
        ([CHIAMO, SOLO, PASS], None, "discard", 1, 2),
        ([PASS, PASS, SOLO], None, "discard", 2, 2),
        ([PASS, SOLISSIMO], None, "play", 1, 3),  # nobody speaks after a solissimo
        ([SOLISSIMO], None, "play", 0, 3),
        ([CHIAMO, PASS, SOLISSIMO], None, "play", 2, 3),
    ],
)
def test_single_round_auction(bids: list[int], legal_after: list[int] | None, phase: str,
                              soloist: int, contract: int) -> None:
    """Each bid beats the last; one round; a solissimo ends the auction at once."""
    state = load_game(GAME).new_initial_state(3)
    for bid in bids:
        state.apply_action(bid)
    obs = state.observation(0)
    assert obs.phase == phase
    if legal_after is not None:
        assert state.legal_actions() == legal_after
    if soloist >= 0:
        bid_event = events_of(state, EventKind.BID)[-1]
        assert (bid_event.seat, bid_event.values) == (soloist, (contract,))
        defenders = [seat for seat in range(3) if seat != soloist]
        assert state.observation(soloist).teammates == ()
        assert state.observation(defenders[0]).teammates == (defenders[1],)


def test_a_bid_must_beat_the_last_and_a_rejected_one_changes_nothing() -> None:
    """After solo, chiamo is illegal: the error names it and the legal set; the state stays."""
    state = load_game(GAME).new_initial_state(3)
    state.apply_action(SOLO)
    before = (state.history(), state.full_events(), state.legal_actions())
    with pytest.raises(IllegalActionError, match=r"action 41 \(chiamo\) is illegal") as error:
        state.apply_action(CHIAMO)
    assert "40 (pass)" in str(error.value) and "43 (solissimo)" in str(error.value)
    assert (state.history(), state.full_events(), state.legal_actions()) == before


@pytest.mark.parametrize("max_redeals", [0, 2])
def test_after_max_redeals_throw_ins_the_last_speaker_must_bid(max_redeals: int) -> None:
    """Seats that always pass: after ``max_redeals`` throw-ins the third speaker may not pass."""
    state = load_game(GAME, 3, {"max_redeals": max_redeals}).new_initial_state(4)
    for _ in range(3 * max_redeals + 2):
        state.apply_action(PASS)
    assert len(events_of(state, EventKind.REDEAL)) == max_redeals
    assert state.legal_actions() == [CHIAMO, SOLO, SOLISSIMO]


def test_all_pass_throws_the_hand_in_and_the_next_dealer_deals() -> None:
    """Three passes: REDEAL, the deal passes to the right, the new dealer's right bids first."""
    first = calabresella_order([STRONG, MIDDLE, WEAK], SEVENS)
    state = load_game(GAME).new_initial_state(0, deal=[first, list(range(40))])
    for _ in range(3):
        state.apply_action(PASS)
    redeal = events_of(state, EventKind.REDEAL)
    assert len(redeal) == 1 and redeal[0].seat == 0
    obs = state.observation(1)
    assert obs.dealer == 0 and obs.hand_number == 0 and obs.phase == "bid"
    assert state.current_player() == 1
    assert state.observation(1).hand == (0, 1, 2, 3, 12, 13, 14, 15, 24, 25, 26, 27)
    assert not events_of(state, EventKind.HAND_END)
    assert len(state.deals()) == 2


# --- the exchange ---------------------------------------------------------------------------

def test_chiamo_called_card_held_by_a_defender() -> None:
    """The holder hands the card over, gets back the soloist's choice; the monte is public."""
    hands = ["3C 2C AC RC CC FC 7C 6C 5C 4C 3D 2D", "AD RD CD FD 3B 2B AB RB CB FB 7B 6B",
             "7D 6D 5D 4D 5B 4B 3S 2S AS RS CS FS"]
    monte = "7S 6S 5S 4S"
    state = load_game(GAME).new_initial_state(0, deal=calabresella_order(hands, monte))
    state.apply_action(CHIAMO)
    state.apply_action(PASS)
    state.apply_action(PASS)
    hand = set(state.observation(0).hand)
    assert state.legal_actions() == [c for c in range(40) if c not in hand]
    state.apply_action(C("AD"))
    assert state.observation(0).phase == "give"
    assert C("AD") not in state.legal_actions() and len(state.legal_actions()) == 12
    assert state.observation(2).called_card == C("AD")
    handover = events_of(state, EventKind.SWAP)[0]
    assert (handover.seat, handover.cards, handover.values) == (1, (C("AD"),), (0,))
    state.apply_action(C("4C"))
    back = events_of(state, EventKind.SWAP)[1]
    assert (back.seat, back.cards, back.values) == (0, (C("4C"),), (1,))
    assert C("4C") in state.observation(1).hand and C("AD") in state.observation(0).hand
    draw = events_of(state, EventKind.DRAW)[0]
    for seat in range(3):
        assert state.observation(seat).events[-1].cards == draw.cards == tuple(
            sorted(cards(monte)))
    assert len(state.observation(0).hand) == 16 and state.observation(0).phase == "discard"
    for card in cards("5C 6C 7C FC"):
        state.apply_action(card)
    discards = [e for e in state.observation(1).events if e.kind == EventKind.SWAP][2:]
    assert [e.cards for e in discards] == [(HIDDEN,)] * 4
    own = [e for e in state.observation(0).events if e.kind == EventKind.SWAP][2:]
    assert [e.cards[0] for e in own] == cards("5C 6C 7C FC")
    obs = state.observation(0)
    assert obs.phase == "play" and len(obs.hand) == 12 and obs.stock_size == 4
    assert obs.hand_sizes == (12, 12, 12) and state.current_player() == 0


def test_chiamo_called_card_in_the_monte_comes_with_it() -> None:
    """A card called from the monte: no handover, no card given back; 16 cards, discard 4."""
    state = load_game(GAME).new_initial_state(0, deal=calabresella_order(
        [STRONG, MIDDLE, WEAK], SEVENS))
    state.apply_action(CHIAMO)
    state.apply_action(PASS)
    state.apply_action(PASS)
    state.apply_action(C("7B"))
    assert not events_of(state, EventKind.SWAP)
    assert events_of(state, EventKind.DRAW)[0].cards == tuple(cards(SEVENS))
    obs = state.observation(0)
    assert obs.phase == "discard" and len(obs.hand) == 16 and C("7B") in obs.hand
    assert state.observation(1).events[-1].cards == tuple(cards(SEVENS))


@pytest.mark.parametrize(("first_lead", "leader"), [("dealer_right", 0), ("soloist", 1)])
def test_solo_monte_and_discards_are_seen_by_the_soloist_only(first_lead: str,
                                                              leader: int) -> None:
    """Solo: the monte is taken unseen by the others; after 4 discards the leader plays."""
    game = load_game(GAME, params={"first_lead": first_lead})
    state = game.new_initial_state(0, deal=calabresella_order([MIDDLE, STRONG, WEAK], SEVENS))
    state.apply_action(PASS)
    state.apply_action(SOLO)
    state.apply_action(PASS)
    assert state.observation(1).events[-1].cards == tuple(cards(SEVENS))
    for seat in (0, 2):
        assert state.observation(seat).events[-1].cards == (HIDDEN,) * 4
    assert state.legal_actions() == sorted(cards(STRONG + " " + SEVENS))
    for card in cards(SEVENS):
        state.apply_action(card)
    assert state.observation(0).events[-1].cards == (HIDDEN,)
    assert state.observation(1).events[-1].cards == (C("7S"),)
    assert state.observation(1).phase == "play" and state.current_player() == leader


# --- play, last trick and scoring -------------------------------------------------------------

@pytest.mark.parametrize(
    ("seat1", "monte", "seat1_legal"),
    [
        (MIDDLE, SEVENS, "RS CS FS"),  # holding the led suit: follow it
        ("RC CC FC RD CD FD RB CB FB 7C 7D 7B", "RS CS FS 7S", None),  # void: anything
    ],
)
def test_follow_suit_is_compulsory(seat1: str, monte: str, seat1_legal: str | None) -> None:
    """A player holding the led suit must play it; a void player may play any card."""
    state = load_game(GAME).new_initial_state(0, deal=calabresella_order(
        [STRONG, seat1, WEAK], monte))
    state.apply_action(SOLISSIMO)
    state.apply_action(C("3S"))
    expected = sorted(cards(seat1_legal)) if seat1_legal else sorted(cards(seat1))
    assert state.current_player() == 1 and state.legal_actions() == expected
    state.apply_action(expected[-1])
    assert state.legal_actions() == sorted(cards("4S 5S 6S"))


def test_solissimo_sweep_takes_the_monte_and_every_point() -> None:
    """The soloist wins every trick: 35 thirds with the monte and last trick; +6, -3, -3."""
    game = load_game(GAME, params={"payment": "stake"})
    state = game.new_initial_state(0, deal=calabresella_order(
        [STRONG, MIDDLE, WEAK], SEVENS))
    state.apply_action(SOLISSIMO)
    while not events_of(state, EventKind.HAND_END):
        legal = state.legal_actions()
        state.apply_action(max(legal, key=lambda c: STRENGTH[c]) if state.current_player() == 0
                           else legal[0])
    tricks = events_of(state, EventKind.TRICK)
    assert len(tricks) == 12 and {t.seat for t in tricks} == {0}
    assert tricks[-1].values[0] == sum(THIRDS[c] for c in tricks[-1].cards) + 3
    capture = events_of(state, EventKind.CAPTURE)[0]
    assert capture.seat == 0 and capture.cards == tuple(cards(SEVENS))
    end = events_of(state, EventKind.HAND_END)[0]
    assert end.values == (35, 0, 0) and end.cards == ()
    assert events_of(state, EventKind.SCORE)[0].values == (6, -3, -3)
    assert state.observation(1).scores == (6.0, -3.0, -3.0)
    assert state.returns() == [0.0, 0.0, 0.0] and not state.is_terminal()


@pytest.mark.parametrize(
    ("contract", "points", "by_difference", "score"),
    [
        (1, 6, False, [2, -1, -1]),
        (1, 5, False, [-2, 1, 1]),
        (2, 11, False, [4, -2, -2]),
        (2, 0, False, [-4, 2, 2]),
        (3, 6, False, [6, -3, -3]),
        (3, 5, False, [-6, 3, 3]),
        (1, 6, True, [2, -1, -1]),  # 6 against 5: a difference of 1
        (1, 8, True, [10, -5, -5]),  # 8 against 3
        (2, 4, True, [-12, 6, 6]),  # 4 against 7
        (3, 11, True, [66, -33, -33]),
    ],
)
def test_contract_score(contract: int, points: int, by_difference: bool,
                        score: list[int]) -> None:
    """6 of 11 makes the contract; stakes 1, 2, 3; each defender pays or receives the stake."""
    assert contract_score(contract, 0, points, by_difference) == score
    rotated = contract_score(contract, 2, points, by_difference)
    assert rotated == [score[1], score[2], score[0]] and sum(rotated) == 0


@pytest.mark.parametrize(
    ("target", "over", "returns"),
    [(3, True, [-2.0, 1.0, 1.0]), (4, False, [0.0, 0.0, 0.0])],
)
def test_defenders_reaching_the_target_together_share_the_win(target: int, over: bool,
                                                              returns: list[float]) -> None:
    """A failed solissimo: both defenders get 3; at target 3 they both win (+1, +1, -2)."""
    game = load_game(GAME, params={"target": target, "payment": "stake"})
    state = game.new_initial_state(0, deal=calabresella_order([WEAK, STRONG, MIDDLE], SEVENS))
    state.apply_action(SOLISSIMO)
    play_lowest(state)
    assert events_of(state, EventKind.HAND_END)[0].values[0] == 0
    assert events_of(state, EventKind.SCORE)[0].values == (-6, 3, 3)
    assert state.is_terminal() == over and state.returns() == returns
    if over:
        assert events_of(state, EventKind.MATCH_END)[0].values == (-2, 1, 1)
        assert state.legal_actions() == []


def test_difference_payment_can_end_the_match_in_one_hand() -> None:
    """A swept solissimo with payment=difference is worth 66 game points: the soloist wins."""
    game = load_game(GAME, params={"payment": "difference"})
    state = game.new_initial_state(0, deal=calabresella_order([STRONG, MIDDLE, WEAK], SEVENS))
    state.apply_action(SOLISSIMO)
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(max(legal, key=lambda c: STRENGTH[c]) if state.current_player() == 0
                           else legal[0])
    assert state.returns() == [2.0, -1.0, -1.0]
    assert events_of(state, EventKind.SCORE)[0].values == (66, -33, -33)


def test_draw_pool_draws_after_each_trick_winner_first_and_shows_them() -> None:
    """Each drawn card is public; the winner draws first; 13 tricks; own points per seat."""
    hands = ["3C 2C AC RC CC 3D 2D AD RD CD", "FC 7C 6C 5C 4C FD 7D 6D 5D 4D",
             "3B 2B AB RB CB FB 7B 6B 5B 4B"]
    stock = "3S 2S AS RS CS FS 7S 6S 5S"
    state = load_game(GAME, params={"variant": "draw_pool"}).new_initial_state(
        0, deal=draw_pool_order(hands, stock))
    state.apply_action(C("3C"))
    state.apply_action(C("4C"))
    state.apply_action(C("4B"))  # void in coppe: any card
    draws = events_of(state, EventKind.DRAW)
    assert [(d.seat, d.cards) for d in draws] == [(0, (C("3S"),)), (1, (C("2S"),)),
                                                  (2, (C("AS"),))]
    assert all(e.cards != (HIDDEN,) for e in state.observation(2).events
               if e.kind == EventKind.DRAW)
    assert state.current_player() == 0 and state.observation(0).stock_size == 6
    play_lowest(state)
    assert len(events_of(state, EventKind.TRICK)) == 13
    end = events_of(state, EventKind.HAND_END)[0]
    assert end.cards == (REMOVED_FOUR,) and sum(end.values) == POINTS_TOTAL
    score = events_of(state, EventKind.SCORE)[0].values
    assert score == tuple(thirds // 3 for thirds in end.values)
    assert state.observation(0).scores == tuple(float(s) for s in score)


def test_hand_accounting_over_a_match() -> None:
    """Every hand: won and captured cards plus HAND_END cards are the deck; thirds sum to 35."""
    for params in ({}, {"variant": "draw_pool"}):
        state = load_game(GAME, params=params).new_initial_state(7)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[-1] if state.observation(0).phase == "bid" else legal[0])
        events = state.full_events()
        ends = [e for e in events if e.kind == EventKind.HAND_END]
        assert ends and all(sum(e.values) + sum(THIRDS[c] for c in e.cards) == 35 for e in ends)
        scores = [e.values for e in events if e.kind == EventKind.SCORE]
        totals = [sum(values[seat] for values in scores) for seat in range(3)]
        assert max(totals) >= 21
        assert state.observation(0).scores == tuple(float(t) for t in totals)
        assert sum(state.returns()) == 0 and max(state.returns()) > 0


# --- bad input ---------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("players", "params", "message"),
    [
        (4, {}, "4 players is not allowed; valid seat counts: 3"),
        (None, {"variant": "scopa"}, "variant='scopa' is invalid: expected one of calabresella"),
        (None, {"stakes": 2}, "unknown parameter 'stakes'"),
        (None, {"target": 0}, "target=0 is invalid"),
        (None, {"variant": "draw_pool", "payment": "stake"},
         "payment applies to variant=calabresella only"),
        (None, {"variant": "draw_pool", "first_lead": "soloist"},
         "first_lead applies to variant=calabresella only"),
    ],
)
def test_bad_parameters_are_one_line_errors(players: int | None, params: dict[str, object],
                                            message: str) -> None:
    """Unknown parameters, bad values, seat counts and inapplicable options are rejected."""
    with pytest.raises(InvalidParameterError, match=message.replace("(", r"\(")) as error:
        load_game(GAME, players, params)  # type: ignore[arg-type]
    assert "\n" not in str(error.value)


def test_unknown_game_and_out_of_range_actions() -> None:
    """An unknown id lists the games; an action outside the table is named as such."""
    with pytest.raises(UnknownGameError, match="tressette-pozzo"):
        load_game("tressette-pozz")
    state = load_game(GAME).new_initial_state(1)
    for action in (-1, 44, 7):
        with pytest.raises(IllegalActionError, match=rf"action {action} \("):
            state.apply_action(action)
    assert state.history() == []
