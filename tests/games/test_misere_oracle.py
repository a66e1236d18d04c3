"""Misère deals 1-4 against OpenSpiel's ``oh_hell`` on the same deals (docs/games/misere.md).

Both engines get the same 12-card hands (``hand_size=12``: oh_hell cannot deal 13 cards to four
players and still turn up a trump card) and the same trump suit, through a turned-up card of
that suit chosen among the 4 undealt cards. One seeded policy, uniform over our sorted legal
set, drives both. At every decision the player to act and the legal sets must agree; per trick
the winner; per deal the tricks taken and the scores, once oh_hell's scoring
(``off_bid_penalty``, 10 per trick) is corrected for Misère's (no +10 bonus on a made bid,
+50 for a made bid of 0).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from arena.games import load_game
from arena.games.api import Event, EventKind
from arena.games.cards import FRENCH_52
from arena.games.misere import BID_BASE, SUIT, TRUMPS, MisereState
from arena.games.tricks import NO_TRUMP

pyspiel = pytest.importorskip("pyspiel")

HAND_SIZE = 12
TRUMP_DEALS = 4
OS_SUIT = (0, 1, 3, 2)
"""Our suit (clubs, diamonds, hearts, spades) -> oh_hell's (clubs, diamonds, spades, hearts)."""
RANKS = tuple(range(13))
"""Ranks 2..A are numbered alike in both engines."""
OS_BID_BASE = 52
OS_PARAMS = {"players": 4, "num_tricks_fixed": HAND_SIZE, "off_bid_penalty": True,
             "points_per_trick": 10}
NORMAL_DEALS = 2_000
SLOW_DEALS = 10_000
NT_DEALS = 4
"""No-trump deals per match (deals 5-8)."""
NORMAL_NT_DEALS = 1_000
SLOW_NT_DEALS = 5_000


def card_maps(suit_map: Sequence[int], rank_map: Sequence[int] = RANKS
              ) -> tuple[tuple[int, ...], dict[int, int]]:
    """Our card id -> oh_hell's (rank * 4 + suit), and back."""
    to_os = tuple(rank_map[FRENCH_52.rank(card)] * 4 + suit_map[FRENCH_52.suit(card)]
                  for card in range(52))
    return to_os, {os_card: card for card, os_card in enumerate(to_os)}


def deal_order(rng: random.Random, trump: int) -> list[int]:
    """A shuffled deck whose last card (never dealt with 12-card hands) is of the trump suit."""
    order = list(range(52))
    rng.shuffle(order)
    last = max(index for index, card in enumerate(order) if SUIT[card] == trump)
    order[last], order[-1] = order[-1], order[last]
    return order


def expected_score(os_points: float, bid: int, tricks: int) -> int:
    """Misère's points from oh_hell's: no +10 bonus for a made bid, 50 for a made bid of 0."""
    if tricks != bid:
        return int(os_points)
    return 50 if bid == 0 else int(os_points) - 10


def os_tricks_won(os_state: Any) -> list[int]:
    """Tricks per player from a finished oh_hell state's text form."""
    match = re.search(r"Tricks Won:\s*([\d ]+)", str(os_state))
    assert match is not None, str(os_state)
    return [int(value) for value in match.group(1).split()]


@dataclass
class Tally:
    """What an oracle run compared, and every disagreement found."""

    deals: int = 0
    decisions: int = 0
    tricks: int = 0
    problems: list[str] = field(default_factory=list)


class OracleRun:
    """Plays Misère deals 1-4 in both engines and records any disagreement."""

    def __init__(self, seed: int, suit_map: Sequence[int] = OS_SUIT,
                 rank_map: Sequence[int] = RANKS) -> None:
        """Seed the deals and the policy; the maps translate suits and ranks for oh_hell."""
        self.rng = random.Random(seed)
        self.game = load_game("misere", 4, {"hand_size": HAND_SIZE})
        self.os_game = pyspiel.load_game("oh_hell", OS_PARAMS)
        self.to_os, self.from_os = card_maps(suit_map, rank_map)
        self.tally = Tally()

    def problem(self, where: str, text: str) -> None:
        """Record a disagreement."""
        self.tally.problems.append(f"{where}: {text}")

    def run(self, matches: int) -> Tally:
        """Compare the four trump deals of ``matches`` matches."""
        for match in range(matches):
            deals = [deal_order(self.rng, TRUMPS[number]) for number in range(TRUMP_DEALS)]
            state = self.game.new_initial_state(match, deal=deals)
            assert isinstance(state, MisereState)
            for number in range(TRUMP_DEALS):
                where = f"match {match} deal {number + 1}"
                if not self.compare_deal(state, deals[number][-1], where):
                    break
        return self.tally

    def new_os_state(self, state: MisereState, trump_card: int) -> Any:
        """oh_hell with our dealer, our hands dealt round-robin from player 0, our trump."""
        dealer = state.observation(0).dealer
        hands = [state.observation(seat).hand for seat in range(4)]
        os_state = self.os_game.new_initial_state()
        os_state.apply_action(HAND_SIZE)
        os_state.apply_action(dealer)
        for index in range(4 * HAND_SIZE):
            os_state.apply_action(self.to_os[hands[index % 4][index // 4]])
        os_state.apply_action(self.to_os[trump_card])
        return os_state

    def os_legal(self, os_state: Any) -> list[int]:
        """oh_hell's legal actions in our action ids, sorted."""
        return sorted(BID_BASE + action - OS_BID_BASE if action >= OS_BID_BASE
                      else self.from_os[action] for action in os_state.legal_actions())

    def to_os_action(self, action: int) -> int:
        """Our action id in oh_hell's ids."""
        return OS_BID_BASE + action - BID_BASE if action >= BID_BASE else self.to_os[action]

    def compare_deal(self, state: MisereState, trump_card: int, where: str) -> bool:
        """Play one deal in both engines, comparing as we go; False after a disagreement."""
        os_state = self.new_os_state(state, trump_card)
        start = len(state.observation(0).events)
        bids = [0] * 4
        winners: list[int] = []
        for step in range(4 + 4 * HAND_SIZE):
            player = state.current_player()
            if os_state.current_player() != player:
                self.problem(where, f"player {player} vs oh_hell {os_state.current_player()}")
                return False
            legal = state.legal_actions()
            os_legal = self.os_legal(os_state)
            if legal != os_legal:
                self.problem(where, f"seat {player} legal {legal} vs oh_hell {os_legal}")
                return False
            action = legal[self.rng.randrange(len(legal))]
            if action >= BID_BASE:
                bids[player] = action - BID_BASE
            state.apply_action(action)
            os_state.apply_action(self.to_os_action(action))
            self.tally.decisions += 1
            if step >= 4 and step % 4 == 3 and not os_state.is_terminal():
                winners.append(os_state.current_player())
        return self.check_deal_end(state.observation(0).events[start:], os_state, bids, winners,
                                   where)

    def check_deal_end(self, events: Sequence[Event], os_state: Any, bids: list[int],
                       winners: list[int], where: str) -> bool:
        """Compare trick winners, tricks per seat and scores of a finished deal."""
        if not os_state.is_terminal():
            self.problem(where, "oh_hell has not finished the deal")
            return False
        problems = len(self.tally.problems)
        ours = [e.seat for e in events if e.kind == EventKind.TRICK]
        if ours[:-1] != winners:
            self.problem(where, f"trick winners {ours[:-1]} vs oh_hell {winners}")
        hand_end = next(e for e in events if e.kind == EventKind.HAND_END)
        score = next(e for e in events if e.kind == EventKind.SCORE)
        os_tricks = os_tricks_won(os_state)
        if list(hand_end.values) != os_tricks:
            self.problem(where, f"tricks {hand_end.values} vs oh_hell {os_tricks}")
        os_returns = os_state.returns()
        expected = [expected_score(os_returns[s], bids[s], os_tricks[s]) for s in range(4)]
        if list(score.values) != expected:
            self.problem(where, f"scores {score.values} vs oh_hell corrected {expected}")
        self.tally.deals += 1
        self.tally.tricks += len(ours)
        return len(self.tally.problems) == problems


BRIDGE_SEATS = ("North", "East", "South", "West")
"""OpenSpiel bridge players 0-3 in playing order, as its text form names them."""
BRIDGE_PARAMS = {"use_double_dummy_result": False}


def bridge_card(card: int, rank_map: Sequence[int] = RANKS) -> int:
    """Our card id in OpenSpiel bridge's ids (rank * 4 + suit, suits clubs to spades)."""
    return rank_map[FRENCH_52.rank(card)] * 4 + FRENCH_52.suit(card)


class BridgeRun:
    """Plays whole Misère matches; the no-trump deals 5-8 are replayed in OpenSpiel's bridge.

    Bridge has one no-trump contract, 1NT, declared by our dealer so that our dealer's right
    (the declarer's left) leads. The declarer plays the dummy's cards, so when the dummy is to
    play, on bridge's side the declarer acts: the legal set, drawn from the dummy's hand, still
    shows whose cards are played. Trick winners come from bridge's text form.
    """

    def __init__(self, seed: int, rank_map: Sequence[int] = RANKS) -> None:
        """Seed the policy; load both games; ``rank_map`` translates ranks for bridge."""
        self.rng = random.Random(seed)
        self.game = load_game("misere", 4)
        self.bridge = pyspiel.load_game("bridge", BRIDGE_PARAMS)
        self.to_bridge = tuple(bridge_card(card, rank_map) for card in range(52))
        self.from_bridge = {bridge: card for card, bridge in enumerate(self.to_bridge)}
        self.tally = Tally()

    def run(self, matches: int) -> Tally:
        """Play ``matches`` matches, comparing the no-trump deals."""
        for match in range(matches):
            state = self.game.new_initial_state(1000 + match)
            assert isinstance(state, MisereState)
            for number in range(8):
                if TRUMPS[number] == NO_TRUMP:
                    if not self.compare_deal(state, f"match {match} deal {number + 1}"):
                        break
                else:
                    self.play_deal(state)
        return self.tally

    def choose(self, state: MisereState) -> int:
        """The seeded policy: uniform over our sorted legal set."""
        legal = state.legal_actions()
        return legal[self.rng.randrange(len(legal))]

    def play_deal(self, state: MisereState) -> None:
        """Play a deal with bids (4 bids, 52 cards) in our engine only."""
        for _ in range(4 + 52):
            state.apply_action(self.choose(state))

    def new_bridge_state(self, state: MisereState) -> tuple[Any, int]:
        """Bridge with our hands and a 1NT contract by our dealer; also the declarer."""
        while state.observation(0).phase == "bid":
            state.apply_action(self.choose(state))
        hands = [state.observation(seat).hand for seat in range(4)]
        declarer = state.observation(0).dealer
        bridge_state = self.bridge.new_initial_state()
        for index in range(52):
            bridge_state.apply_action(self.to_bridge[hands[index % 4][index // 4]])
        calls = ["Pass"] * declarer + ["1NT", "Pass", "Pass", "Pass"]
        for call in calls:
            names = {bridge_state.action_to_string(a): a for a in bridge_state.legal_actions()}
            bridge_state.apply_action(names[call])
        return bridge_state, declarer

    def compare_deal(self, state: MisereState, where: str) -> bool:
        """Play a no-trump deal in both engines; False after a disagreement."""
        bridge_state, declarer = self.new_bridge_state(state)
        dummy = (declarer + 2) % 4
        start = len(state.observation(0).events)
        for _ in range(52):
            player = state.current_player()
            acting = declarer if player == dummy else player
            legal = state.legal_actions()
            theirs = sorted(self.from_bridge[a] for a in bridge_state.legal_actions())
            if bridge_state.current_player() != acting or legal != theirs:
                self.problem(where, f"seat {player} legal {legal} vs bridge player "
                                    f"{bridge_state.current_player()} legal {theirs}")
                return False
            action = legal[self.rng.randrange(len(legal))]
            state.apply_action(action)
            bridge_state.apply_action(self.to_bridge[action])
            self.tally.decisions += 1
        events = state.observation(0).events[start:]
        ours = [e.seat for e in events if e.kind == EventKind.TRICK]
        theirs = [BRIDGE_SEATS.index(name)
                  for name in re.findall(r"Won by (\w+)", str(bridge_state))]
        self.tally.deals += 1
        self.tally.tricks += len(ours)
        if ours != theirs:
            self.problem(where, f"trick winners {ours} vs bridge {theirs}")
            return False
        return True

    def problem(self, where: str, text: str) -> None:
        """Record a disagreement."""
        self.tally.problems.append(f"{where}: {text}")


@pytest.mark.parametrize(
    ("os_points", "bid", "tricks", "points"),
    [(40.0, 3, 3, 30), (10.0, 0, 0, 50), (-20.0, 1, 3, -20), (-10.0, 0, 1, -10),
     (130.0, 12, 12, 120)],
)
def test_score_correction(os_points: float, bid: int, tricks: int, points: int) -> None:
    """oh_hell pays 10 per trick + 10 for a made bid; Misère 10 per bid trick, or 50 for 0."""
    assert expected_score(os_points, bid, tricks) == points


def test_card_translation_is_a_bijection_matching_oh_hell_names() -> None:
    """Our 10 of hearts is oh_hell's HT, and so on for every card."""
    to_os, from_os = card_maps(OS_SUIT)
    assert sorted(to_os) == list(range(52)) and len(from_os) == 52
    names = pyspiel.load_game("oh_hell", OS_PARAMS).new_initial_state()
    names.apply_action(HAND_SIZE)
    names.apply_action(0)
    for card in range(52):
        text = FRENCH_52.short(card)
        assert names.action_to_string(to_os[card]) == text[-1] + text[:-1]


def test_trump_deals_agree_with_oh_hell() -> None:
    """2,000 trump deals: same legal sets, trick winners, tricks and corrected scores."""
    tally = OracleRun(seed=2024).run(NORMAL_DEALS // TRUMP_DEALS)
    assert tally.problems == []
    assert tally.deals == NORMAL_DEALS
    assert tally.tricks == NORMAL_DEALS * HAND_SIZE
    assert tally.decisions == NORMAL_DEALS * (4 + 4 * HAND_SIZE)


@pytest.mark.slow
def test_trump_deals_agree_with_oh_hell_many() -> None:
    """10,000 trump deals with other seeds."""
    tally = OracleRun(seed=77).run(SLOW_DEALS // TRUMP_DEALS)
    assert tally.problems == []
    assert tally.deals == SLOW_DEALS


@pytest.mark.parametrize(
    ("suit_map", "rank_map"),
    [((0, 1, 3, 2), tuple(reversed(RANKS))),  # ranks upside down for oh_hell
     ((0, 1, 2, 3), RANKS)],  # hearts and spades swapped: still consistent, so no finding
)
def test_the_oracle_run_catches_a_wrong_translation(suit_map: tuple[int, ...],
                                                    rank_map: tuple[int, ...]) -> None:
    """A translation that changes the game is caught; a mere relabelling of suits is not."""
    tally = OracleRun(seed=5, suit_map=suit_map, rank_map=rank_map).run(10)
    assert bool(tally.problems) == (rank_map != RANKS)


def test_no_trump_deals_agree_with_bridge() -> None:
    """1,000 no-trump deals of 13 cards (deals 5-8): same legal sets and trick winners."""
    tally = BridgeRun(seed=31).run(NORMAL_NT_DEALS // NT_DEALS)
    assert tally.problems == []
    assert tally.deals == NORMAL_NT_DEALS
    assert tally.tricks == NORMAL_NT_DEALS * 13


@pytest.mark.slow
def test_no_trump_deals_agree_with_bridge_many() -> None:
    """5,000 no-trump deals with other seeds."""
    tally = BridgeRun(seed=32).run(SLOW_NT_DEALS // NT_DEALS)
    assert tally.problems == []
    assert tally.deals == SLOW_NT_DEALS


def test_the_bridge_run_catches_a_wrong_translation() -> None:
    """Ranks turned upside down for bridge are caught within a few deals."""
    assert BridgeRun(seed=5, rank_map=tuple(reversed(RANKS))).run(3).problems
