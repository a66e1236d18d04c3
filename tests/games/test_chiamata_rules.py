"""Rule tests for the Briscola chiamata family (docs/games/chiamata.md), with injected deals."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from arena.games.api import TERMINAL, EventKind, State
from arena.games.cards import HIDDEN, ITALIAN_40, ITALIAN_80
from arena.games.chiamata import FACE_DOWN, NAME_CARD, NAME_SUIT, ChiamataGame, ChiamataState
from arena.games.chiamata_scoring import bid_multiplier, score_hand, target_made
from arena.games.params import IllegalActionError, InvalidParameterError
from arena.games.registry import all_configurations, load_game
from arena.policies.base import make_policy

MARCHIGIANO = "briscola-chiamata"
CARTA = "briscola-chiamata-carta"
PUNTI = "briscola-chiamata-punti"
MORTO = "briscola-chiamata-morto"
DUE_MAZZI = "briscola-chiamata-due-mazzi"
CHIAMATA_IDS = (MARCHIGIANO, CARTA, PUNTI, MORTO, DUE_MAZZI)

PASS = 80
RANK_BID = {letter: 81 + index for index, letter in enumerate("A234567FCR")}
OBBLIGATO = 91
SUITS = "CDBS"


def points(x: int) -> int:
    """The action of a point bid X."""
    return 100 + x


def suit(letter: str) -> int:
    """The action naming a suit by its letter."""
    return NAME_SUIT + SUITS.index(letter)


def cards(text: str, deck: str = "40") -> list[int]:
    """Card ids from compact names separated by spaces (``7Db`` for two decks)."""
    parse = ITALIAN_80.parse if deck == "80" else ITALIAN_40.parse
    return [parse(name) for name in text.split()]


def game_of(game_id: str, seats: int, **params: str | bool | int) -> ChiamataGame:
    """A loaded Briscola chiamata game."""
    game = load_game(game_id, seats, params)
    assert isinstance(game, ChiamataGame)
    return game


def deal_for(game: ChiamataGame, hands: dict[int, Sequence[int]], dealer: int | None = None
             ) -> list[int]:
    """An injected card order that gives each table position (dead hand: n) the listed cards.

    Positions not listed, and the rest of listed hands, get the unused cards in id order.
    """
    n, m, size = game.num_players, game.num_hands, game.hand_size
    first = ((n - 1 if dealer is None else dealer) + 1) % n
    used = {card for hand in hands.values() for card in hand}
    pool = [c for c in game.deck.cards if c not in used and c not in game.removed]
    order = [0] * (size * m)
    for position in range(m):
        hand = list(hands.get(position, ()))
        while len(hand) < size:
            hand.append(pool.pop(0))
        for k, card in enumerate(hand):
            order[(position - first) % m + k * m] = card
    return order + list(game.removed)


def start(game: ChiamataGame, hands: dict[int, Sequence[int]], actions: Sequence[int] = (),
          seed: int = 7) -> ChiamataState:
    """A state from an injected deal after some actions."""
    state = game.new_initial_state(seed, deal=deal_for(game, hands))
    for action in actions:
        state.apply_action(action)
    return state


def finish(state: State) -> None:
    """Play to the end with the lowest legal action."""
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])


def events_of(state: State, kind: EventKind) -> list[tuple[int, tuple[int, ...], tuple[int, ...]]]:
    """(seat, cards, values) of every event of a kind, unmasked."""
    return [(e.seat, e.cards, e.values) for e in state.full_events() if e.kind == kind]


def last_score(state: State) -> tuple[int, ...]:
    """The values of the last SCORE event."""
    return events_of(state, EventKind.SCORE)[-1][2]


def expected_scores(n: int, caller: int, partners: Sequence[int], made: bool, factor: int
                    ) -> tuple[int, ...]:
    """The [D] table written out independently: defenders -1, partners +1, caller D-P."""
    sign = factor if made else -factor
    defenders = n - 1 - len(partners)
    return tuple(sign * (defenders - len(partners)) if s == caller else
                 sign if s in partners else -sign for s in range(n))


# --- trick winners ---------------------------------------------------------------------------

TRICKS = [
    # trump, cards of seats 0..4 in play order (seat 0 leads), winning seat
    ("S", "7C RC 3C AD 2C", 2),   # no trump played: the led suit's highest; an off-suit ace loses
    ("S", "7C RC 2S AC 3C", 2),   # the only trump, even a 2, beats the led ace
    ("S", "7C 4S AS AC 3S", 2),   # the highest trump wins
    ("D", "2C 4B 5S 6D 3C", 3),   # a low trump over a higher led card
    ("B", "2D AD 3D RD CD", 1),   # no trump: the ace of the led suit
    ("C", "FB RB 7B CB AC", 4),   # the trump ace played last
    ("C", "4S 2S 5S AD 6S", 4),   # led suit only: the 6 over the 4, 5 and 2
]


@pytest.mark.parametrize(("trump", "played", "winner"), TRICKS)
def test_trick_winner(trump: str, played: str, winner: int) -> None:
    """Seat 0 calls, names the trump suit and leads; the TRICK event names the winner."""
    game = game_of(MARCHIGIANO, 5)
    trick = cards(played)
    state = start(game, {seat: [card] for seat, card in enumerate(trick)},
                  [RANK_BID["7"], PASS, PASS, PASS, PASS, suit(trump)])
    assert state.observation(0).trump_suit == SUITS.index(trump)
    for card in trick:
        state.apply_action(card)
    seat, shown, values = events_of(state, EventKind.TRICK)[0]
    assert (seat, list(shown)) == (winner, trick)
    assert values == (sum(game.card_points[c] for c in trick),)
    assert state.current_player() == winner


TWO_DECK_TRICKS = [
    # trump S; seats 0..7; identical cards: the later one wins
    ("RCa RCb 2Ca 4Ca 5Ca 6Ca 7Ca FCa", 1),
    ("3Sa 7Ca 2Ca 4Ca 5Ca 3Sb 7Cb FCa", 5),
    ("ACa 3Ca RCa ACb 5Ca 6Ca 7Ca FCa", 3),
]


@pytest.mark.parametrize(("played", "winner"), TWO_DECK_TRICKS)
def test_two_decks_later_identical_card_wins(played: str, winner: int) -> None:
    """With two decks the later of two identical cards takes the trick."""
    game = game_of(DUE_MAZZI, 8, auction="marchigiano")
    trick = cards(played, "80")
    state = start(game, {seat: [card] for seat, card in enumerate(trick)},
                  [RANK_BID["7"], *[PASS] * 7, suit("S")])
    for card in trick:
        state.apply_action(card)
    assert events_of(state, EventKind.TRICK)[0][0] == winner


# --- auctions ----------------------------------------------------------------------------------

def rank_bids(letters: str) -> list[int]:
    """Rank bid actions, sorted."""
    return sorted(RANK_BID[letter] for letter in letters)


NO_TWO = {0: cards("AC 3C RC CC FC 7C 6C 5C"), 1: cards("AD 3D RD CD FD 7D 6D 5D"),
          2: cards("AB 3B RB CB FB 7B 6B 5B")}
"""Seats 0-2 hold no 2; the filled-in seat 3 gets all four."""
TWO_AT_1 = {0: cards("AC 3C RC CC FC 7C 6C 5C"), 1: cards("2D 2S AD 3D RD CD FD 7D")}
LADDER_62 = [PASS, *range(points(62), points(120) + 1)]

AUCTIONS = [
    # game, seats, params, hands, actions so far, seat to act, legal actions
    (MARCHIGIANO, 5, {}, NO_TWO, [], 0, [PASS, *rank_bids("A234567FCR")]),
    (MARCHIGIANO, 5, {}, NO_TWO, [RANK_BID["A"]], 1, [PASS, *rank_bids("234567FCR")]),
    (MARCHIGIANO, 5, {}, NO_TWO, [RANK_BID["R"]], 1, [PASS, *rank_bids("24567FC")]),
    (MARCHIGIANO, 5, {}, NO_TWO, [RANK_BID["5"], PASS], 2, [PASS, *rank_bids("24")]),
    (MARCHIGIANO, 5, {}, NO_TWO, [RANK_BID["A"], PASS, RANK_BID["2"]], 3, LADDER_62),
    (MARCHIGIANO, 5, {}, NO_TWO, [RANK_BID["A"], PASS, RANK_BID["2"], points(70)], 4,
     [PASS, *range(points(71), points(120) + 1)]),
    (MARCHIGIANO, 5, {}, NO_TWO, [RANK_BID["2"], points(119)], 2, [PASS, points(120)]),
    (MARCHIGIANO, 5, {}, NO_TWO, [RANK_BID["2"], points(120)], 2, [PASS]),
    # pass is final: seat 1 passed, so after seat 4 the turn goes to seat 0, then seat 2
    (MARCHIGIANO, 5, {}, NO_TWO, [RANK_BID["A"], PASS, RANK_BID["3"], PASS, PASS], 0,
     [PASS, *rank_bids("24567FCR")]),
    (MARCHIGIANO, 5, {}, NO_TWO, [RANK_BID["A"], PASS, RANK_BID["3"], PASS, PASS,
                                  RANK_BID["R"]], 2, [PASS, *rank_bids("24567FC")]),
    # 6 seats: no 2s, the ladder continues at the 4
    (MARCHIGIANO, 6, {}, {}, [], 0, [PASS, *rank_bids("A34567FCR")]),
    (MARCHIGIANO, 6, {}, {}, [RANK_BID["4"]], 1, LADDER_62),
    # 4 obbligato: only where a plain 2 is legal, only to a holder of a 2
    (MARCHIGIANO, 5, {}, TWO_AT_1, [RANK_BID["A"]], 1,
     [PASS, *rank_bids("234567FCR"), OBBLIGATO]),
    (MARCHIGIANO, 5, {}, TWO_AT_1, [RANK_BID["2"]], 1, LADDER_62),
    (MARCHIGIANO, 5, {"allow_4_obbligato": False}, TWO_AT_1, [RANK_BID["A"]], 1,
     [PASS, *rank_bids("234567FCR")]),
    (MARCHIGIANO, 5, {}, TWO_AT_1, [RANK_BID["A"], OBBLIGATO], 2, LADDER_62),
    # forced_dealer: the dealer (seat 4) may not pass when all others have
    (MARCHIGIANO, 5, {"all_pass": "forced_dealer"}, NO_TWO, [PASS] * 4, 4,
     rank_bids("A234567FCR")),
    (MARCHIGIANO, 5, {"all_pass": "forced_dealer"}, NO_TWO, [PASS] * 3, 3,
     [PASS, *rank_bids("A234567FCR"), OBBLIGATO]),
    # two decks: the ladder runs from 122 to 240
    (DUE_MAZZI, 8, {"auction": "marchigiano"}, {}, [RANK_BID["2"]], 1,
     [PASS, *range(points(122), points(240) + 1)]),
    # Povo a carta: the opener must bid
    (CARTA, 5, {}, NO_TWO, [], 0, rank_bids("A234567FCR")),
    (CARTA, 5, {}, NO_TWO, [RANK_BID["C"]], 1, [PASS, *rank_bids("24567F")]),
    (CARTA, 6, {}, {}, [RANK_BID["4"]], 1, LADDER_62),
    # Povo a punti: the opener bids 61 or more, then each bid raises, up to 120 (240)
    (PUNTI, 5, {}, NO_TWO, [], 0, list(range(points(61), points(120) + 1))),
    (PUNTI, 5, {}, NO_TWO, [points(75)], 1, [PASS, *range(points(76), points(120) + 1)]),
    (PUNTI, 5, {}, NO_TWO, [points(75), PASS, PASS, points(119)], 4, [PASS, points(120)]),
    (DUE_MAZZI, 10, {"auction": "punti"}, {}, [], 0, list(range(points(121), points(240) + 1))),
]


@pytest.mark.parametrize(("game_id", "seats", "params", "hands", "actions", "seat", "legal"),
                         AUCTIONS)
def test_auction_legal_actions(game_id: str, seats: int, params: dict[str, str | bool],
                               hands: dict[int, list[int]], actions: list[int], seat: int,
                               legal: list[int]) -> None:
    """The legal set at each step of each auction variant."""
    state = start(game_of(game_id, seats, **params), hands, actions)
    assert state.current_player() == seat
    assert state.legal_actions() == legal
    assert state.observation(seat).legal_actions == tuple(legal)


def test_illegal_bid_is_rejected_and_state_unchanged() -> None:
    """A bid not lower than the last one raises, naming the action and the legal set."""
    state = start(game_of(MARCHIGIANO, 5), NO_TWO, [RANK_BID["R"]])
    before = state.observation(1)
    with pytest.raises(IllegalActionError, match=r"81 \(bid A\).*80 \(pass\)"):
        state.apply_action(RANK_BID["A"])
    assert state.observation(1) == before
    assert state.history() == [RANK_BID["R"]]


def test_auction_ends_when_all_others_passed() -> None:
    """The last bidder left wins and names the suit; trump and called card are public."""
    game = game_of(MARCHIGIANO, 5)
    state = start(game, NO_TWO, [RANK_BID["A"], PASS, RANK_BID["3"], PASS, PASS, PASS])
    assert state.current_player() == 2
    assert state.observation(2).phase == "name_suit"
    assert state.legal_actions() == [suit(s) for s in SUITS]
    state.apply_action(suit("D"))
    called = ITALIAN_40.parse("3D")
    assert state.caller() == 2 and state.partners() == (1,)
    for seat in range(5):
        observation = state.observation(seat)
        assert (observation.called_card, observation.trump_suit) == (called, 1)
    assert state.current_player() == 0, "the dealer's right leads whoever called"
    assert events_of(state, EventKind.CALL) == [(2, (called,), (1,))]


def test_four_obbligato_names_a_suit_of_a_held_two() -> None:
    """After winning with 4 obbligato the caller may only name suits whose 2 they hold."""
    state = start(game_of(MARCHIGIANO, 5), TWO_AT_1, [PASS, OBBLIGATO, PASS, PASS, PASS])
    assert state.current_player() == 1
    assert state.legal_actions() == [suit("D"), suit("S")]
    state.apply_action(suit("S"))
    assert state.observation(1).called_card == ITALIAN_40.parse("4S")


def test_all_pass_redeals_by_the_next_dealer() -> None:
    """All pass: REDEAL, a thrown-in HAND_END, a fresh deal by seat 0, seat 1 opens."""
    game = game_of(MARCHIGIANO, 5)
    state = start(game, NO_TWO, [PASS] * 5)
    assert events_of(state, EventKind.REDEAL) == [(4, (), ())]
    assert events_of(state, EventKind.HAND_END) == [(4, tuple(range(40)), (0,) * 5)]
    starts = events_of(state, EventKind.HAND_START)
    assert [(seat, values) for seat, _, values in starts] == [(4, (0,)), (0, (0,))]
    assert len(state.deals()) == 2 and state.deals()[0] != state.deals()[1]
    assert state.current_player() == 1
    observation = state.observation(1)
    assert (observation.dealer, observation.hand_number, observation.phase) == (0, 0, "auction")
    assert state.returns() == [0.0] * 5


@pytest.mark.parametrize("max_redeals", [0, 1, 3])
def test_after_max_redeals_throw_ins_the_last_bidder_must_bid(max_redeals: int) -> None:
    """Seats that always pass: after ``max_redeals`` throw-ins the last bidder may not pass."""
    game = game_of(MARCHIGIANO, 5, max_redeals=max_redeals)
    state = game.new_initial_state(11)
    for _ in range(max_redeals):
        for _ in range(5):
            state.apply_action(PASS)
    assert len(events_of(state, EventKind.REDEAL)) == max_redeals
    for _ in range(4):
        assert PASS in state.legal_actions()
        state.apply_action(PASS)
    assert PASS not in state.legal_actions()
    finish(state)
    assert len(events_of(state, EventKind.REDEAL)) == max_redeals


def test_the_redeal_count_starts_again_each_hand() -> None:
    """A hand that is played resets the count: the next hand's auction may all pass again."""
    game = game_of(MARCHIGIANO, 5, max_redeals=1, hands=2)
    state = game.new_initial_state(5)
    for _ in range(5):
        state.apply_action(PASS)
    while len(events_of(state, EventKind.HAND_START)) < 3:
        legal = state.legal_actions()
        state.apply_action(PASS if PASS in legal else legal[0])
    for _ in range(5):
        state.apply_action(PASS)
    assert len(events_of(state, EventKind.REDEAL)) == 2


def test_punti_winner_names_any_card() -> None:
    """"A punti": the winner names a full card, possibly their own (6 seats: no 2s)."""
    game = game_of(PUNTI, 6)
    state = start(game, {2: cards("AS 3S RS CS FS 7S")}, [points(61), *[PASS] * 5])
    assert state.current_player() == 0
    legal = state.legal_actions()
    assert len(legal) == 36 and NAME_CARD + ITALIAN_40.parse("2C") not in legal
    state.apply_action(NAME_CARD + ITALIAN_40.parse("AS"))
    assert state.partners() == (2,)
    assert state.observation(3).trump_suit == 3


# --- target and scoring ------------------------------------------------------------------------

@pytest.mark.parametrize(("side", "target", "strict", "made"), [
    (61, 61, False, True), (60, 61, False, False), (61, 61, True, False), (62, 61, True, True),
    (75, 75, False, True), (75, 75, True, False), (74, 75, False, False), (121, 121, False, True),
])
def test_target_made(side: int, target: int, strict: bool, made: bool) -> None:
    """">= X" by default, "> X" with bid_threshold=gt."""
    assert target_made(side, target, strict) is made


@pytest.mark.parametrize(("target", "two_decks", "factor"), [
    (61, False, 1), (70, False, 1), (71, False, 2), (80, False, 2), (81, False, 3),
    (95, False, 4), (101, False, 5), (120, False, 5), (121, True, 1), (131, True, 2),
    (175, True, 5),
])
def test_bid_multiplier_table(target: int, two_decks: bool, factor: int) -> None:
    """61-70 x1 ... 101+ x5, on the target minus 60 with two decks."""
    assert bid_multiplier(target, two_decks) == factor


@pytest.mark.parametrize(("seats", "caller", "partners", "side", "defending", "scores"), [
    (5, 0, (1,), 70, 50, (2, 1, -1, -1, -1)),
    (5, 0, (1,), 60, 60, (-2, -1, 1, 1, 1)),
    (5, 2, (), 80, 40, (-1, -1, 4, -1, -1)),                 # self-call
    (5, 0, (3,), 120, 0, (4, -2, -2, 2, -2)),                # cappotto doubles
    (5, 0, (3,), 0, 120, (-4, 2, 2, -2, 2)),                 # cappotto against the caller
    (5, 1, (), 0, 120, (2, -8, 2, 2, 2)),                    # self-call, cappotto
    (7, 0, (), 70, 30, (6, -1, -1, -1, -1, -1, -1)),         # dead hand partner: P = 0
    (8, 0, (2, 5), 130, 110, (3, -1, 1, -1, -1, 1, -1, -1)),  # two partners, two decks
])
def test_score_table(seats: int, caller: int, partners: tuple[int, ...], side: int,
                     defending: int, scores: tuple[int, ...]) -> None:
    """The [D] table: defenders -+1, partners +-1, the caller +-(D-P); cappotto doubles."""
    total = 240 if seats == 8 else 120
    target = 121 if seats == 8 else 61
    result = score_hand(seats, caller, partners, side, defending, total, target, False, False,
                        seats == 8)
    assert result.scores == scores
    assert sum(result.scores) == 0


@pytest.mark.parametrize(("target", "side", "scale", "caller_score"), [
    (95, 100, True, 8), (95, 120, True, 16), (95, 120, False, 4), (75, 70, True, -4),
])
def test_bid_multiplier_and_cappotto_combine(target: int, side: int, scale: bool,
                                             caller_score: int) -> None:
    """With ``bid_multiplier`` the table scales by the target's band, and cappotto doubles it."""
    result = score_hand(5, 0, (1,), side, 120 - side, 120, target, False, scale, False)
    assert result.scores[0] == caller_score
    assert result.scores[2] == -caller_score // 2


def test_point_bid_threshold_ge_and_gt_end_to_end() -> None:
    """The same deal and plays with "2 a S" made under ge and lost under gt (S = side points)."""
    prefix = [RANK_BID["2"], PASS, PASS, PASS, PASS, suit("C")]
    for seed in range(100):
        state = game_of(MARCHIGIANO, 5).new_initial_state(seed)
        for action in prefix:
            state.apply_action(action)
        finish(state)
        side = _side_points(state)
        if 62 <= side < 120:
            break
    else:
        pytest.fail("no seed gave the caller's side between 62 and 119 points")
    plays = state.history()[len(prefix):]
    auction = [RANK_BID["R"], RANK_BID["2"], PASS, PASS, PASS, points(side), PASS, suit("C")]
    outcomes = {}
    for threshold in ("ge", "gt"):
        replay = game_of(MARCHIGIANO, 5, bid_threshold=threshold).new_initial_state(seed)
        for action in [*auction, *plays]:
            replay.apply_action(action)
        assert replay.is_terminal() and replay.caller() == 0 and _side_points(replay) == side
        outcomes[threshold] = last_score(replay)[0]
    assert outcomes["ge"] > 0 > outcomes["gt"]
    assert outcomes["ge"] == -outcomes["gt"]


def _side_points(state: ChiamataState) -> int:
    """Card points of the caller's side in the last hand (dead hand included when called)."""
    values = events_of(state, EventKind.HAND_END)[-1][2]
    side = values[state.caller()] + sum(values[p] for p in state.partners())
    return side + (values[-1] if state.morto_is_partner() else 0)


def _defending_points(state: ChiamataState) -> int:
    """Card points of the defending seats in the last hand."""
    values = events_of(state, EventKind.HAND_END)[-1][2]
    team = {state.caller(), *state.partners()}
    return sum(values[s] for s in range(state.game.num_players) if s not in team)


def test_self_call_scoring() -> None:
    """Calling a card one holds: no partner, the caller scores 4 against four defenders."""
    game = game_of(MARCHIGIANO, 5)
    state = start(game, {0: cards("AC 2D 4D 5D 6D 2B 4B 5B")},
                  [RANK_BID["A"], PASS, PASS, PASS, PASS, suit("C")])
    assert state.partners() == () and not state.morto_is_partner()
    assert state.observation(0).teammates == ()
    finish(state)
    side = _side_points(state)
    assert side == events_of(state, EventKind.HAND_END)[-1][2][0]
    factor = 2 if side in (0, 120) else 1
    assert last_score(state) == expected_scores(5, 0, (), side >= 61, factor)
    assert abs(last_score(state)[0]) == 4 * factor


def test_cappotto_doubles_end_to_end() -> None:
    """The top eight trumps led every trick take all 120 points: a self-call cappotto, x2."""
    game = game_of(MARCHIGIANO, 5)
    state = start(game, {0: cards("AC 3C RC CC FC 7C 6C 5C")},
                  [RANK_BID["A"], PASS, PASS, PASS, PASS, suit("C")])
    finish(state)
    assert events_of(state, EventKind.HAND_END)[-1][2] == (120, 0, 0, 0, 0)
    assert last_score(state) == (8, -2, -2, -2, -2)


def test_dead_hand_called_counts_for_the_caller() -> None:
    """The dead hand holds the called card: its points are the caller's, P = 0."""
    game = game_of(MORTO, 7, auction="marchigiano")
    state = start(game, {7: cards("AC 2B 4B 5B 6B")},
                  [RANK_BID["A"], *[PASS] * 6, suit("C")])
    assert state.morto_is_partner() and state.partners() == ()
    assert state.current_player() == 0
    while not state.is_terminal():
        assert 0 <= state.current_player() < 7
        state.apply_action(state.legal_actions()[0])
    values = events_of(state, EventKind.HAND_END)[-1][2]
    assert len(values) == 8 and sum(values) == 120
    side = values[0] + values[7]
    factor = 2 if side in (0, 120) or sum(values[1:7]) == 120 else 1
    assert last_score(state) == expected_scores(7, 0, (), side >= 61, factor)
    plays = [e for e in state.full_events() if e.kind == EventKind.PLAY and e.seat == 7]
    assert len(plays) == 5 and {e.cards[0] for e in plays} == set(cards("AC 2B 4B 5B 6B"))


def test_dead_hand_top_of_pile_plays_in_dealt_order() -> None:
    """``morto_policy=top_of_pile``: the dead hand plays its cards in the order dealt."""
    game = game_of(MORTO, 4, auction="punti", morto_policy="top_of_pile")
    pile = cards("7B 3S AC 2D FC 6S RB 4D")
    state = start(game, {4: pile}, [points(61), PASS, PASS, PASS,
                                    NAME_CARD + ITALIAN_40.parse("AD")])
    finish(state)
    played = [e.cards[0] for e in state.full_events() if e.kind == EventKind.PLAY and e.seat == 4]
    assert played == pile
    assert state.observation(0).hand_sizes == (0,) * 5


@pytest.mark.parametrize(("holders", "partners"), [
    ({2: "ASa", 3: "ASb"}, (2, 3)),
    ({0: "ASa", 3: "ASb"}, (3,)),
    ({0: "ASa ASb"}, ()),
])
def test_two_decks_partners(holders: dict[int, str], partners: tuple[int, ...]) -> None:
    """Every holder of a copy of the called card other than the caller is a partner."""
    game = game_of(DUE_MAZZI, 8, auction="marchigiano")
    state = start(game, {seat: cards(text, "80") for seat, text in holders.items()},
                  [RANK_BID["A"], *[PASS] * 7, suit("S")])
    assert state.partners() == partners
    assert state.observation(0).called_card == ITALIAN_40.parse("AS")
    finish(state)
    side = _side_points(state)
    factor = 2 if side == 240 or _defending_points(state) == 240 else 1
    assert last_score(state) == expected_scores(8, 0, partners, side >= 121, factor)


# --- Povo "a carta": face-down cards in trick 1 ------------------------------------------------

CARTA_HANDS = {0: cards("3D 4C"), 1: cards("RD 4D"), 2: cards("3S 5C"), 3: cards("7D 6C"),
               4: cards("AC 7C")}
CARTA_AUCTION = [RANK_BID["3"], PASS, PASS, PASS, PASS]


def test_face_down_lead_is_resolved_after_the_reveal() -> None:
    """3D led face down (called rank 3, trump spade): hidden to others, wins as led denari."""
    game = game_of(CARTA, 5)
    state = start(game, CARTA_HANDS, [*CARTA_AUCTION, suit("S")])
    three_d, king_d, five_c, seven_d, ace_c = cards("3D RD 5C 7D AC")
    commit = events_of(state, EventKind.COMMIT)
    assert commit == [(0, (ITALIAN_40.parse("3S"),), (3,))]
    assert state.observation(1).events[-1].cards == (HIDDEN,)
    assert state.observation(1).events[-1].values == ()
    assert state.observation(0).called_card == ITALIAN_40.parse("3S")
    assert state.observation(1).called_card == HIDDEN
    assert state.observation(1).trump_suit == HIDDEN
    for card in (three_d, king_d, five_c, seven_d):
        state.apply_action(card)
    assert state.observation(3).trick == ((0, HIDDEN), (1, king_d), (2, five_c), (3, seven_d))
    assert state.observation(0).trick[0] == (0, three_d)
    face_down = events_of(state, EventKind.PLAY_FACE_DOWN)
    assert face_down == [(0, (three_d,), ())]
    assert next(e for e in state.observation(4).events
                if e.kind == EventKind.PLAY_FACE_DOWN).cards == (HIDDEN,)
    assert not events_of(state, EventKind.TRICK)
    state.apply_action(ace_c)
    kinds = [e.kind for e in state.full_events()][-4:]
    assert kinds == [EventKind.REVEAL, EventKind.TRUMP, EventKind.REVEAL, EventKind.TRICK]
    assert events_of(state, EventKind.REVEAL) == [(0, (ITALIAN_40.parse("3S"),), (3,)),
                                                  (0, (three_d,), ())]
    assert events_of(state, EventKind.TRICK) == [(0, (three_d, king_d, five_c, seven_d, ace_c),
                                                  (25,))]
    assert state.observation(3).called_card == ITALIAN_40.parse("3S")
    assert state.observation(3).trump_suit == 3


def test_face_down_trump_wins_and_partners_are_known() -> None:
    """The called card played face down wins once revealed; then everyone knows the sides."""
    game = game_of(CARTA, 5)
    state = start(game, CARTA_HANDS, [*CARTA_AUCTION, suit("S")])
    assert [state.observation(s).teammates for s in range(5)] == [()] * 5
    for card in cards("4C RD 3S 7D AC"):
        state.apply_action(card)
    assert events_of(state, EventKind.TRICK)[0][0] == 2
    assert state.partners() == (2,)
    assert [state.observation(s).teammates for s in range(5)] == [
        (2,), (3, 4), (0,), (1, 4), (1, 3)]


def test_suit_chosen_after_trick_one() -> None:
    """``suit_choice=after_trick1``: the caller picks the suit once trick 1 is complete."""
    game = game_of(CARTA, 5, suit_choice="after_trick1")
    state = start(game, CARTA_HANDS, CARTA_AUCTION)
    assert state.observation(0).phase == "play" and state.current_player() == 0
    for card in cards("3D RD 3S 7D AC"):
        state.apply_action(card)
    assert state.current_player() == 0
    assert state.observation(0).phase == "choose_suit"
    assert state.legal_actions() == [suit(s) for s in SUITS]
    assert state.observation(0).called_card == HIDDEN
    assert state.observation(2).trick[2] == (2, ITALIAN_40.parse("3S"))
    assert state.observation(0).trick[2] == (2, HIDDEN)
    state.apply_action(suit("D"))
    assert events_of(state, EventKind.CALL) == [(0, (ITALIAN_40.parse("3D"),), (1,))]
    assert state.partners() == ()
    assert events_of(state, EventKind.TRICK)[0][0] == 0


def test_face_down_optional() -> None:
    """``facedown_optional``: a card of the called rank may go face up or face down."""
    game = game_of(CARTA, 5, facedown_optional=True)
    state = start(game, CARTA_HANDS, [*CARTA_AUCTION, suit("S")])
    three_d = ITALIAN_40.parse("3D")
    assert FACE_DOWN + three_d in state.legal_actions()
    assert three_d in state.legal_actions()
    state.apply_action(three_d)
    assert state.observation(3).trick == ((0, three_d),)
    state.apply_action(state.legal_actions()[0])
    three_s = ITALIAN_40.parse("3S")
    assert state.legal_actions()[-1] == FACE_DOWN + three_s
    state.apply_action(FACE_DOWN + three_s)
    assert state.observation(4).trick[2] == (2, HIDDEN)
    assert state.observation(2).trick[2] == (2, three_s)
    assert state.action_to_string(FACE_DOWN + three_s) == "face down 3S"


def test_dead_hand_plays_face_up_in_povo_trick_one() -> None:
    """The dead hand's plays are public PLAY events even for a card of the called rank."""
    game = game_of(MORTO, 4)
    state = start(game, {4: cards("AB 2C 4C 5C 6C 7C FC CC")}, [RANK_BID["A"], PASS, PASS,
                                                                  PASS, suit("B")])
    for _ in range(4):
        state.apply_action(state.legal_actions()[0])
    morto = [(e.kind, e.seat) for e in state.full_events()
             if e.seat == 4 and e.kind in (EventKind.PLAY, EventKind.PLAY_FACE_DOWN)]
    assert morto == [(EventKind.PLAY, 4)]
    assert state.morto_is_partner()


# --- parameters --------------------------------------------------------------------------------

@pytest.mark.parametrize(("game_id", "seats", "params", "message"), [
    (DUE_MAZZI, 9, {}, "9 players need morto=true"),
    (DUE_MAZZI, 8, {"morto": True}, "morto=true needs 9 players"),
    (DUE_MAZZI, 10, {"morto": True}, "morto=true needs 9 players"),
    (MARCHIGIANO, 7, {}, "valid seat counts: 5, 6, 8"),
    (MORTO, 5, {}, "valid seat counts: 4, 7"),
    (CARTA, 5, {"auction": "punti"}, "unknown parameter 'auction'"),
    (MORTO, 7, {"auction": "bridge"}, "one of marchigiano, carta, punti"),
    (MARCHIGIANO, 5, {"bid_threshold": "eq"}, "one of ge, gt"),
    (PUNTI, 5, {"hands": 0}, "hands"),
])
def test_invalid_parameters(game_id: str, seats: int, params: dict[str, str | bool | int],
                            message: str) -> None:
    """Bad seat counts and parameters raise an error naming the problem."""
    with pytest.raises(InvalidParameterError, match=message):
        load_game(game_id, seats, params)


def test_layouts() -> None:
    """Hand sizes, dead hands and decks of every seat count."""
    layouts = {
        (MARCHIGIANO, 5, ()): (8, 5, 40), (MARCHIGIANO, 6, ()): (6, 6, 40),
        (MARCHIGIANO, 8, ()): (5, 8, 40), (MORTO, 7, ()): (5, 8, 40),
        (MORTO, 4, ()): (8, 5, 40), (DUE_MAZZI, 8, ()): (10, 8, 80),
        (DUE_MAZZI, 10, ()): (8, 10, 80), (DUE_MAZZI, 9, (("morto", True),)): (8, 10, 80),
    }
    for (game_id, seats, params), (size, hands, deck) in layouts.items():
        game = game_of(game_id, seats, **dict(params))
        state = game.new_initial_state(3)
        observation = state.observation(0)
        assert observation.hand_sizes == (size,) * hands
        assert game.deck.size == deck and len(observation.hand) == size
    six = game_of(MARCHIGIANO, 6).new_initial_state(1)
    assert events_of(six, EventKind.HAND_START)[0][1] == tuple(cards("2C 2D 2B 2S"))


def test_action_names() -> None:
    """Every kind of action has a short name; a gap in the table is rejected."""
    state = game_of(MARCHIGIANO, 6).new_initial_state(0)
    assert [state.action_to_string(a) for a in (0, PASS, RANK_BID["F"], OBBLIGATO, points(63),
                                                suit("B"), NAME_CARD + 39)] == [
        "AC", "pass", "bid F", "bid 4 obbligato", "bid 4 a 63", "suit bastoni", "call RS"]
    assert game_of(PUNTI, 5).new_initial_state(0).action_to_string(points(75)) == "bid 75"
    with pytest.raises(ValueError, match="not a briscola-chiamata action"):
        state.action_to_string(95)


# --- whole matches -----------------------------------------------------------------------------

CONFIGS = [(g, n, p) for g, n, p in all_configurations() if g in CHIAMATA_IDS]


@pytest.mark.parametrize(("game_id", "seats", "params"), CONFIGS)
def test_random_playouts_keep_the_conventions(game_id: str, seats: int,
                                              params: dict[str, str | bool | int]) -> None:
    """Cards, points and scores add up in every hand; the dead hand never acts."""
    game = game_of(game_id, seats, **params)
    for seed in range(12):
        policies = [make_policy("random", game, s, seed) for s in range(seats)]
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            seat = state.current_player()
            assert 0 <= seat < seats
            state.apply_action(policies[seat].act(state.observation(seat)))
        assert state.current_player() == TERMINAL
        assert sum(state.returns()) == 0
        _check_hands(game, state)


def _check_hands(game: ChiamataGame, state: ChiamataState) -> None:
    """Per hand: every card won in a TRICK or listed in HAND_END, points total 120 or 240."""
    won: list[int] = []
    played: list[int] = []
    for event in state.full_events():
        if event.kind == EventKind.HAND_START:
            won, played = [], []
        elif event.kind in (EventKind.PLAY, EventKind.PLAY_FACE_DOWN):
            played.extend(event.cards)
        elif event.kind == EventKind.TRICK:
            won.extend(event.cards)
        elif event.kind == EventKind.HAND_END:
            assert len(played) == len(set(played)) == len(won)
            assert sorted(won + list(event.cards)) == list(range(game.deck.size))
            assert len(event.values) == game.num_hands
            assert sum(event.values) + sum(game.card_points[c] for c in event.cards) == \
                game.total
    side = _side_points(state)
    defending = _defending_points(state)
    bids = [e.values[0] for e in state.full_events() if e.kind == EventKind.BID]
    target = bids[-1] - 100 if bids[-1] >= 100 else game.total // 2 + 1
    made = side > target if game.strict else side >= target
    factor = 2 if game.total in (side, defending) else 1
    if game.scale_with_bid:
        factor *= min(5, max(1, (target - (60 if game.two_decks else 0) - 51) // 10))
    assert last_score(state) == expected_scores(game.num_players, state.caller(),
                                                state.partners(), made, factor)


def test_heuristic_beats_random_over_duplicate_deals() -> None:
    """Each deal twice, sides swapped: the heuristic seats' returns add up to a clear margin."""
    game = game_of(MARCHIGIANO, 5)
    total = 0.0
    deals = 40
    for seed in range(deals):
        for heuristic_parity in (0, 1):
            policies = [make_policy("heuristic" if s % 2 == heuristic_parity else "random",
                                    game, s, seed) for s in range(5)]
            state = game.new_initial_state(seed)
            while not state.is_terminal():
                seat = state.current_player()
                state.apply_action(policies[seat].act(state.observation(seat)))
            total += sum(r for s, r in enumerate(state.returns()) if s % 2 == heuristic_parity)
    assert total / deals > 1.0


@pytest.mark.parametrize("game_id", CHIAMATA_IDS)
def test_heuristic_plays_every_variant(game_id: str) -> None:
    """Four heuristic tables finish and beat random seats on a few duplicate deals."""
    game = load_game(game_id)
    n = game.num_players
    total = 0.0
    for seed in range(6):
        for parity in (0, 1):
            policies = [make_policy("heuristic" if s % 2 == parity else "random", game, s, seed)
                        for s in range(n)]
            state = game.new_initial_state(seed)
            while not state.is_terminal():
                seat = state.current_player()
                state.apply_action(policies[seat].act(state.observation(seat)))
            total += sum(r for s, r in enumerate(state.returns()) if s % 2 == parity)
    assert total > 0
