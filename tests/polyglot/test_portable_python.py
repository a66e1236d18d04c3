"""The Python port of the portable heuristic (sample_bots/python/portable): each rule of
docs/portable-heuristic.md on hand-made wire requests, legal play of every game as a real bot
process at every seat, and a clear win over the random policy in duplicate briscola, scopa and
tressette-non-prendere."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import math
import statistics
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from arena.agents import BotSeat, PolicySeat, SeatSpec
from arena.bench.launched import launched_bots
from arena.bots import BotManifest
from arena.games import Game, load_game
from arena.games.registry import game_ids
from arena.match.runner import run_duplicate, run_duplicate_async
from arena.protocol import card_values_message
from arena.protocol.v1 import agent_pb2 as pb
from tests.agents.botkit import short_temp_root
from tests.polyglot.portable_play import MOVES_FILE, digests

ROOT = Path(__file__).resolve().parents[2]
PORTABLE = ROOT / "sample_bots" / "python" / "portable"


def load_strategy() -> ModuleType:
    """The bot's strategy module, imported from its folder under a name of its own."""
    spec = importlib.util.spec_from_file_location("portable_strategy", PORTABLE / "strategy.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


strategy = load_strategy()

HIDDEN = -1
ACE, TWO, THREE, FOUR, FIVE, SIX, SEVEN, JACK, KNIGHT, KING = range(10)
CUPS, COINS, CLUBS, SWORDS = range(4)


def card(rank: int, suit: int) -> int:
    """The id of a card in the hand-made decks: ten ranks per suit."""
    return 10 * suit + rank


def deck(name: str = "italian-40", ranks: int = 10) -> pb.Deck:
    """A hand-made deck of four suits, ``ranks`` cards each, numbered suit by suit."""
    return pb.Deck(name=name, cards=[pb.Card(id=ranks * suit + rank, suit=suit, rank=rank)
                                     for suit in range(4) for rank in range(ranks)])


def figures(game: str, deck_name: str = "italian-40") -> Any:
    """The strategy's figures of a MatchStart for ``game`` with a hand-made deck and the card
    values the arena sends for the game."""
    values = card_values_message(load_game(game))
    return strategy.Figures.from_match_start(
        pb.MatchStart(game=game, deck=deck(deck_name), card_values=values))


def action(action_id: int, kind: pb.ActionKind, cards: Sequence[int] = (),
           captured: Sequence[int] = (), value: int | None = None, rank: int = -1,
           suit: int = -1) -> pb.LegalAction:
    """A legal action as the wire gives it."""
    message = pb.LegalAction(id=action_id, kind=kind, cards=cards, captured=captured,
                             rank=rank, suit=suit)
    if value is not None:
        message.value = value
    return message


def play(action_id: int, *cards: int) -> pb.LegalAction:
    """A PLAY of ``cards``."""
    return action(action_id, pb.ACTION_KIND_PLAY, cards)


def request(*actions: pb.LegalAction, seat: int = 0, trick: Sequence[tuple[int, int]] = (),
            trump: int = -1, teammates: Sequence[int] = (), table: Sequence[int] = (),
            points: Sequence[int] = ()) -> pb.DecisionRequest:
    """A DecisionRequest with the observation fields the strategy reads."""
    observation = pb.Observation(
        seat=seat, trump_suit=trump, teammates=teammates, table=table, points=points,
        trick=[pb.TrickPlay(seat=player, card=played) for player, played in trick])
    return pb.DecisionRequest(request_id=1, observation=observation, legal_actions=actions)


def choose(game: str, message: pb.DecisionRequest, deck_name: str = "italian-40") -> int:
    """The id the strategy answers."""
    return strategy.choose(figures(game, deck_name), message)


def score(game: str, message: pb.DecisionRequest, deck_name: str = "italian-40") -> int:
    """The score of the request's first legal action."""
    return strategy.score(figures(game, deck_name), message.observation,
                          message.legal_actions[0])


# Card figures.

@pytest.mark.parametrize(("game", "rank", "value"), [
    ("briscola", ACE, 16 * 11 + 9), ("briscola", THREE, 16 * 10 + 8),
    ("briscola", KING, 16 * 4 + 7),
    ("briscola", JACK, 16 * 2 + 5), ("briscola", TWO, 0), ("briscola", SEVEN, 4),
    ("briscola-chiamata-due-mazzi", KNIGHT, 16 * 3 + 6), ("madrasso", ACE, 16 * 11 + 9),
    ("tressette", THREE, 16 + 9), ("tressette", TWO, 16 + 8), ("tressette", ACE, 16 * 3 + 7),
    ("tressette-toro", KING, 16 + 6), ("tressette-pozzo", FOUR, 0), ("tressette", SEVEN, 3),
    ("scopa", ACE, 0), ("scopa", KING, 9), ("presidente", SEVEN, 6), ("high-card", THREE, 2),
])
def test_the_value_of_a_card_follows_its_family(game: str, rank: int, value: int) -> None:
    for suit in range(4):
        assert figures(game).value(card(rank, suit)) == value


@pytest.mark.parametrize("game", ["briscola", "tressette", "scopa"])
def test_a_hidden_card_is_worth_nothing(game: str) -> None:
    assert figures(game).value(HIDDEN) == 0
    assert figures(game).values([HIDDEN, card(KING, CUPS)]) == figures(game).value(card(KING, CUPS))


def test_families_b_and_t_take_strength_and_points_from_the_card_values() -> None:
    """No tables of its own: made-up card values change the figures."""
    values = pb.CardValues(points=[card % 7 for card in range(40)],
                           trick_strength=[39 - card for card in range(40)])
    for game in ("briscola", "tressette"):
        made_up = strategy.Figures.from_match_start(
            pb.MatchStart(game=game, deck=deck(), card_values=values))
        assert [made_up.value(held) for held in range(40)] == \
            [16 * (held % 7) + 39 - held for held in range(40)]


def test_without_card_values_a_card_is_worth_its_rank_index() -> None:
    """A MatchStart of an arena that sends no card values: strength is the rank, no points."""
    bare = strategy.Figures.from_match_start(pb.MatchStart(game="briscola", deck=deck()))
    assert [bare.value(card(rank, CLUBS)) for rank in range(10)] == list(range(10))


def test_family_n_ignores_the_card_values() -> None:
    """High Card sends briscola points and tressette has none here: family N keeps the rank."""
    values = card_values_message(load_game("briscola"))
    for game in ("high-card", "misere", "scopa"):
        other = strategy.Figures.from_match_start(
            pb.MatchStart(game=game, deck=deck(), card_values=values))
        assert [other.value(held) for held in range(40)] == [held % 10 for held in range(40)]


def test_the_moves_of_every_configuration_are_unchanged() -> None:
    """Every configuration, strategy against random, plays the very actions it played when the
    strategy still had tables of its own (``python -m tests.polyglot.portable_play`` rewrites
    the file after a deliberate change)."""
    assert digests(strategy) == json.loads(MOVES_FILE.read_text())


def test_family_n_reads_the_rank_index_of_any_deck() -> None:
    french = strategy.Figures.from_match_start(
        pb.MatchStart(game="misere", deck=deck("french-52", ranks=13)))
    assert [french.value(13 * CLUBS + rank) for rank in range(13)] == list(range(13))


# The order of the kinds.

KIND_SCORES = [
    (action(1, pb.ACTION_KIND_SWAP, [card(SEVEN, SWORDS)]), 5000),
    (action(1, pb.ACTION_KIND_DECLARE, value=31), 4000),
    (action(1, pb.ACTION_KIND_KEEP), 1000),
    (action(1, pb.ACTION_KIND_DONE), 1000),
    (action(1, pb.ACTION_KIND_DRAW, value=2), 1000),
    (action(1, pb.ACTION_KIND_PASS), 600),
    (action(1, pb.ACTION_KIND_BID, value=3), 897),
    (action(1, pb.ACTION_KIND_BID), 900),
    (action(1, pb.ACTION_KIND_REDEAL), 0),
    (action(1, pb.ACTION_KIND_OTHER), 0),
    (action(1, pb.ACTION_KIND_GIVE, [card(ACE, CUPS)]), 1000 - 185),
    (action(1, pb.ACTION_KIND_DISCARD, [card(ACE, CUPS), card(THREE, CUPS)]), 1000 - 185 - 168),
    (action(1, pb.ACTION_KIND_PLAY_FACE_DOWN, [card(KING, CUPS)]), 2000 - 71),
    (play(1, card(KING, CUPS)), 2000 - 71),
]


@pytest.mark.parametrize(("legal", "expected"), KIND_SCORES,
                         ids=[f"{pb.ActionKind.Name(legal.kind)}-{i}"
                              for i, (legal, _) in enumerate(KIND_SCORES)])
def test_each_kind_scores_as_the_table_says(legal: pb.LegalAction, expected: int) -> None:
    assert score("briscola", request(legal)) == expected


def test_swap_goes_before_declare_and_declare_before_play() -> None:
    swap = action(9, pb.ACTION_KIND_SWAP, [card(SEVEN, SWORDS)])
    declare = action(5, pb.ACTION_KIND_DECLARE, value=31)
    plays = [play(i + 1, card(rank, CUPS)) for i, rank in enumerate((TWO, FOUR))]
    assert choose("briscola", request(*plays, declare, swap, trump=SWORDS)) == 9
    assert choose("briscola", request(*plays, declare, trump=SWORDS)) == 5
    assert choose("briscola", request(*plays, trump=SWORDS)) == 1


# DECLARE in briscola-31.

@pytest.mark.parametrize(("seat", "points", "teammates", "declares"), [
    (0, [30, 0], [], False),
    (0, [31, 0], [], True),
    (1, [40, 12], [], False),
    (1, [0, 45], [], True),
    (0, [20, 0, 11, 0], [2], True),
    (0, [20, 0, 10, 0], [2], False),
    (0, [20, 11, 0, 0], [2], False),
    (3, [0, 16, 0, 15], [1], True),
    (0, [20, 0, 11, 0], [], False),
])
def test_briscola_31_declares_only_when_the_own_side_reaches_31(
        seat: int, points: list[int], teammates: list[int], declares: bool) -> None:
    message = request(play(1, card(TWO, CUPS)), action(41, pb.ACTION_KIND_DECLARE, value=31),
                      seat=seat, points=points, teammates=teammates)
    assert choose("briscola-31", message) == (41 if declares else 1)
    assert choose("briscola", message) == 41


# CAPTURE.

@pytest.mark.parametrize(("played", "captured", "table", "expected"), [
    (card(FIVE, CUPS), [card(FIVE, SWORDS)], [card(FIVE, SWORDS), card(TWO, CLUBS)], 3010),
    (card(FIVE, CUPS), [card(TWO, CLUBS), card(THREE, SWORDS)],
     [card(TWO, CLUBS), card(THREE, SWORDS), card(KING, CUPS)], 3020),
    (card(FIVE, COINS), [card(FIVE, CUPS)], [card(FIVE, CUPS), card(KING, CUPS)], 3015),
    (card(FIVE, COINS), [card(TWO, COINS), card(THREE, COINS)],
     [card(TWO, COINS), card(THREE, COINS), card(KING, CUPS)], 3000 + 20 + 15),
    (card(SEVEN, CUPS), [card(SEVEN, SWORDS)], [card(SEVEN, SWORDS), card(KING, CUPS)], 3016),
    (card(SEVEN, CUPS), [card(SEVEN, COINS)], [card(SEVEN, COINS), card(KING, CUPS)],
     3000 + 10 + 5 + 3 * 2 + 20),
    (card(SEVEN, COINS), [card(SEVEN, CUPS)], [card(SEVEN, CUPS), card(KING, CUPS)],
     3000 + 10 + 5 + 3 * 2 + 20),
    (card(FIVE, CUPS), [card(FIVE, SWORDS)], [card(FIVE, SWORDS)], 3110),
    (card(KING, CUPS), [card(SEVEN, COINS), card(THREE, COINS)],
     [card(SEVEN, COINS), card(THREE, COINS)], 3000 + 20 + 10 + 3 + 20 + 100),
])
def test_capture_scores_cards_coins_sevens_settebello_and_sweep(
        played: int, captured: list[int], table: list[int], expected: int) -> None:
    message = request(action(1, pb.ACTION_KIND_CAPTURE, [played], captured), table=table)
    assert score("scopa", message) == expected
    assert score("scopone", message) == expected


def test_capture_in_a_deck_that_is_not_italian_counts_no_coins_or_sevens() -> None:
    table = [card(SEVEN, COINS), card(KING, CUPS)]
    message = request(action(1, pb.ACTION_KIND_CAPTURE, [card(SEVEN, CUPS)], [card(SEVEN, COINS)]),
                      table=table)
    assert score("scopa", message, deck_name="french-52") == 3010


def test_the_best_capture_is_chosen_over_any_play() -> None:
    table = [card(SEVEN, COINS), card(FIVE, SWORDS), card(TWO, CLUBS)]
    five_and_two = [card(FIVE, SWORDS), card(TWO, CLUBS)]
    message = request(
        play(1, card(ACE, CUPS)),
        action(2, pb.ACTION_KIND_CAPTURE, [card(SEVEN, CUPS)], five_and_two),
        action(3, pb.ACTION_KIND_CAPTURE, [card(SEVEN, CUPS)], [card(SEVEN, COINS)]),
        table=table)
    assert choose("scopa", message) == 3
    sweep = request(
        action(4, pb.ACTION_KIND_CAPTURE, [card(SEVEN, CUPS)], five_and_two),
        action(5, pb.ACTION_KIND_CAPTURE, [card(SEVEN, CUPS)], [card(SEVEN, COINS)]),
        table=five_and_two)
    assert choose("scopa", sweep) == 4


# PLAY and the winning card.

WINNING = [
    # (game, trick, trump, teammates, played, winning)
    ("briscola", [], SWORDS, [], card(ACE, CUPS), False),
    ("briscola", [(1, card(ACE, CUPS))], SWORDS, [], card(TWO, SWORDS), True),
    ("briscola", [(1, card(ACE, CUPS))], SWORDS, [], card(THREE, CUPS), False),
    ("briscola", [(1, card(KING, CUPS))], SWORDS, [], card(ACE, CUPS), True),
    ("briscola", [(1, card(KING, CUPS))], SWORDS, [], card(THREE, CUPS), True),
    ("briscola", [(1, card(KING, CUPS))], SWORDS, [], card(ACE, CLUBS), False),
    ("briscola", [(1, card(FOUR, CUPS))], SWORDS, [], card(FIVE, CUPS), False),
    ("briscola", [(1, card(FOUR, CUPS))], SWORDS, [], card(THREE, CUPS), True),
    ("briscola", [(1, card(THREE, CUPS))], SWORDS, [], card(TWO, SWORDS), True),
    ("briscola", [(1, card(KING, CUPS)), (2, card(KNIGHT, CUPS)), (3, card(JACK, CUPS))],
     SWORDS, [], card(TWO, SWORDS), False),
    ("briscola", [(1, card(KING, CUPS)), (2, card(KNIGHT, CUPS)), (3, card(JACK, CUPS))],
     SWORDS, [], card(KNIGHT, SWORDS), True),
    ("briscola", [(1, card(ACE, CUPS)), (2, card(THREE, SWORDS))], SWORDS, [],
     card(TWO, SWORDS), False),
    ("briscola", [(1, card(ACE, CUPS)), (2, card(THREE, SWORDS))], SWORDS, [],
     card(ACE, SWORDS), True),
    ("briscola", [(1, card(ACE, CUPS))], -1, [], card(TWO, SWORDS), False),
    ("briscola", [(1, card(ACE, CUPS))], SWORDS, [1], card(TWO, SWORDS), False),
    ("briscola", [(1, card(ACE, CUPS)), (2, card(FOUR, SWORDS))], SWORDS, [1],
     card(FIVE, SWORDS), True),
    ("briscola", [(1, card(FOUR, SWORDS)), (2, card(ACE, CUPS))], SWORDS, [1],
     card(FIVE, SWORDS), False),
    ("briscola", [(1, HIDDEN), (2, card(ACE, CUPS))], SWORDS, [], card(TWO, SWORDS), True),
    ("briscola", [(1, HIDDEN), (2, card(FOUR, CUPS))], SWORDS, [], card(FIVE, CUPS), False),
    ("briscola", [(1, card(KING, CUPS)), (2, HIDDEN)], SWORDS, [2], card(ACE, CUPS), True),
    ("madrasso", [(1, card(THREE, CLUBS))], COINS, [], card(ACE, CLUBS), True),
    ("tressette", [(1, card(KING, CUPS))], -1, [], card(THREE, CUPS), False),
    ("tressette", [(1, card(KING, CUPS)), (2, card(KNIGHT, CUPS))], -1, [],
     card(THREE, CUPS), True),
    ("tressette", [(1, card(ACE, CUPS))], -1, [], card(TWO, CUPS), True),
    ("tressette", [(1, card(ACE, CUPS))], -1, [], card(KING, CUPS), False),
    ("tressette", [(1, card(ACE, CUPS))], -1, [], card(THREE, CLUBS), False),
    ("tressette", [(1, card(ACE, CUPS))], -1, [1], card(TWO, CUPS), False),
    ("high-card", [(1, card(ACE, CUPS))], -1, [], card(KING, CUPS), False),
    ("scopa", [(1, card(ACE, CUPS))], CUPS, [], card(KING, CUPS), False),
]


@pytest.mark.parametrize(("game", "trick", "trump", "teammates", "played", "winning"), WINNING)
def test_a_winning_card_scores_1000_more(game: str, trick: list[tuple[int, int]], trump: int,
                                         teammates: list[int], played: int,
                                         winning: bool) -> None:
    message = request(play(1, played), seat=3, trick=trick, trump=trump, teammates=teammates)
    value = figures(game).value(played)
    assert score(game, message) == (3000 if winning else 2000) - value


def test_only_a_play_of_one_card_can_win() -> None:
    trick = [(1, card(ACE, CUPS))]
    face_down = request(action(1, pb.ACTION_KIND_PLAY_FACE_DOWN, [card(TWO, SWORDS)]),
                        trick=trick, trump=SWORDS)
    assert score("briscola", face_down) == 2000
    pair = request(play(1, card(TWO, SWORDS), card(FOUR, SWORDS)), trick=trick, trump=SWORDS)
    assert score("briscola", pair) == 2000 - 1


def test_play_takes_a_trick_worth_it_and_otherwise_throws_the_cheapest_card() -> None:
    hand = [card(ACE, CUPS), card(FOUR, CUPS), card(FIVE, SWORDS)]
    plays = [play(i + 1, held) for i, held in enumerate(hand)]
    cases = [([(1, card(THREE, CUPS))], [], 3), ([(1, card(KING, CUPS))], [], 1),
             ([(1, card(FIVE, CUPS))], [], 1), ([(1, card(JACK, CLUBS))], [], 2), ([], [], 2),
             ([(1, card(THREE, CUPS))], [1], 2)]
    for trick, teammates, chosen in cases:
        message = request(*plays, trick=trick, trump=SWORDS, teammates=teammates)
        assert choose("briscola", message) == chosen, (trick, teammates)


# The avoid game (tressette-non-prendere): one point, then none.

AVOID = "tressette-non-prendere"


def avoid_request(*actions: pb.LegalAction, trick: Sequence[tuple[int, int]] = (),
                  thirds: int = 0) -> pb.DecisionRequest:
    """A request of the avoid game to seat 0, which holds ``thirds`` of its own."""
    return request(*actions, trick=trick, points=[thirds, 4, 5])


@pytest.mark.parametrize(("trick", "played", "thirds", "expected"), [
    # Under one point (3 thirds), a card taking a trick worth any third is a winning card.
    ([(1, card(FOUR, CUPS))], card(TWO, CUPS), 2, 3000 - (16 + 8)),
    ([(1, card(SEVEN, CUPS))], card(JACK, CUPS), 0, 3000 - (16 + 4)),
    ([(1, card(FOUR, CUPS)), (2, card(FIVE, CUPS))], card(SIX, CUPS), 2, 1000 - 2),
    # With a point, a card taking the lead is the last resort.
    ([(1, card(FOUR, CUPS))], card(TWO, CUPS), 3, 1000 - (16 + 8)),
    ([(1, card(SEVEN, CUPS))], card(JACK, CUPS), 7, 1000 - (16 + 4)),
    # A card that loses the trick (lower, or of another suit) is shed dearest first.
    ([(1, card(TWO, CUPS))], card(ACE, CUPS), 0, 2000 + 16 * 3 + 7),
    ([(1, card(TWO, CUPS))], card(KING, CUPS), 5, 2000 + 16 + 6),
    ([(1, card(FOUR, CUPS))], card(THREE, SWORDS), 2, 2000 + 16 + 9),
    # Leading: the strongest card while under one point, else the cheapest.
    ([], card(THREE, SWORDS), 2, 2000 + 9),
    ([], card(ACE, SWORDS), 0, 2000 + 7),
    ([], card(THREE, SWORDS), 3, 2000 - (16 + 9)),
    ([], card(FOUR, SWORDS), 9, 2000),
])
def test_the_avoid_game_scores_each_play_by_its_rule(trick: list[tuple[int, int]], played: int,
                                                     thirds: int, expected: int) -> None:
    assert score(AVOID, avoid_request(play(1, played), trick=trick, thirds=thirds)) == expected


def test_the_avoid_game_takes_a_point_then_ducks_under_the_trick() -> None:
    hand = [card(THREE, CUPS), card(KING, CUPS), card(FIVE, CUPS)]
    plays = [play(i + 1, held) for i, held in enumerate(hand)]
    trick = [(1, card(JACK, CUPS))]
    assert choose(AVOID, avoid_request(*plays, trick=trick, thirds=0)) == 2
    assert choose(AVOID, avoid_request(*plays, trick=trick, thirds=3)) == 3
    assert choose(AVOID, avoid_request(*plays[:2], trick=trick, thirds=3)) == 2
    assert choose("tressette", request(*plays, trick=trick)) == 3


def test_the_avoid_game_sheds_its_dearest_card_when_void() -> None:
    hand = [card(ACE, SWORDS), card(KING, CLUBS), card(FOUR, COINS)]
    plays = [play(i + 1, held) for i, held in enumerate(hand)]
    assert choose(AVOID, avoid_request(*plays, trick=[(1, card(FIVE, CUPS))], thirds=4)) == 1


def test_the_avoid_game_leads_its_strongest_card_only_under_one_point() -> None:
    hand = [card(ACE, CUPS), card(THREE, SWORDS), card(KING, CLUBS), card(FOUR, COINS)]
    plays = [play(i + 1, held) for i, held in enumerate(hand)]
    assert choose(AVOID, avoid_request(*plays, thirds=2)) == 2
    assert choose(AVOID, avoid_request(*plays, thirds=3)) == 4


@pytest.mark.parametrize("kind", [pb.ACTION_KIND_GIVE, pb.ACTION_KIND_DISCARD])
def test_the_avoid_game_passes_and_sets_aside_its_dearest_card(kind: pb.ActionKind) -> None:
    hand = [card(FOUR, CUPS), card(ACE, SWORDS), card(KING, CLUBS)]
    actions = [action(i + 1, kind, [held]) for i, held in enumerate(hand)]
    assert score(AVOID, avoid_request(*actions[1:])) == 1000 + 16 * 3 + 7
    assert choose(AVOID, avoid_request(*actions)) == 2
    assert choose("tressette", request(*actions)) == 1


# Bids, passes and calls.

@pytest.mark.parametrize(("actions", "chosen"), [
    ([action(1, pb.ACTION_KIND_BID, value=1), action(2, pb.ACTION_KIND_PASS)], 1),
    ([action(2, pb.ACTION_KIND_BID), action(1, pb.ACTION_KIND_PASS)], 2),
    ([action(1, pb.ACTION_KIND_BID, value=120), action(2, pb.ACTION_KIND_PASS)], 1),
    ([action(1, pb.ACTION_KIND_BID, value=3), action(2, pb.ACTION_KIND_BID, value=1),
      action(3, pb.ACTION_KIND_BID, value=2)], 2),
    ([action(1, pb.ACTION_KIND_BID, value=1), action(2, pb.ACTION_KIND_BID)], 2),
    ([action(4, pb.ACTION_KIND_BID, value=85, rank=KING),
      action(3, pb.ACTION_KIND_BID, value=81, rank=TWO)], 3),
    ([action(1, pb.ACTION_KIND_BID, value=-200), action(2, pb.ACTION_KIND_PASS)], 1),
    ([action(1, pb.ACTION_KIND_BID, value=0), action(2, pb.ACTION_KIND_BID, value=0)], 1),
])
def test_a_bid_comes_before_a_pass_and_the_lowest_bid_before_the_others(
        actions: list[pb.LegalAction], chosen: int) -> None:
    assert choose("briscola-chiamata", request(*actions)) == chosen


@pytest.mark.parametrize(("actions", "chosen"), [
    ([action(1, pb.ACTION_KIND_CALL, [card(THREE, CUPS)], rank=THREE, suit=CUPS),
      action(2, pb.ACTION_KIND_CALL, [card(ACE, CLUBS)], rank=ACE, suit=CLUBS),
      action(3, pb.ACTION_KIND_CALL, [card(KING, SWORDS)], rank=KING, suit=SWORDS)], 2),
    ([action(1, pb.ACTION_KIND_CALL, rank=TWO), action(2, pb.ACTION_KIND_CALL, rank=KING),
      action(3, pb.ACTION_KIND_CALL, rank=FIVE)], 2),
    ([action(1, pb.ACTION_KIND_CALL, suit=CUPS), action(2, pb.ACTION_KIND_CALL, suit=COINS)], 1),
    ([action(1, pb.ACTION_KIND_CALL, suit=CUPS), action(2, pb.ACTION_KIND_CALL, rank=TWO)], 2),
    ([action(1, pb.ACTION_KIND_CALL, rank=KING),
      action(2, pb.ACTION_KIND_CALL, [card(JACK, CUPS)], rank=JACK, suit=CUPS)], 2),
])
def test_a_call_names_the_most_valuable_card_else_the_highest_rank(
        actions: list[pb.LegalAction], chosen: int) -> None:
    assert choose("briscola-chiamata", request(*actions)) == chosen


def test_a_call_scores_its_card_value_its_rank_or_nothing() -> None:
    named = request(action(1, pb.ACTION_KIND_CALL, [card(KING, CUPS)], rank=KING, suit=CUPS))
    assert score("briscola-chiamata", named) == 1000 + 71
    assert score("tressette-pozzo", named) == 1000 + 16 + 6
    assert score("briscola", request(action(1, pb.ACTION_KIND_CALL, rank=SEVEN))) == 1006
    assert score("briscola", request(action(1, pb.ACTION_KIND_CALL, suit=COINS))) == 1000


# Other kinds, and ties.

@pytest.mark.parametrize(("actions", "chosen"), [
    ([action(1, pb.ACTION_KIND_REDEAL), action(2, pb.ACTION_KIND_KEEP)], 2),
    ([action(1, pb.ACTION_KIND_GIVE, [card(ACE, CUPS)]),
      action(2, pb.ACTION_KIND_GIVE, [card(FOUR, CUPS)]),
      action(3, pb.ACTION_KIND_GIVE, [card(KING, CUPS)])], 2),
    ([action(1, pb.ACTION_KIND_DISCARD, [card(KING, CUPS), card(KING, COINS)], rank=KING),
      action(2, pb.ACTION_KIND_DONE)], 2),
    ([action(1, pb.ACTION_KIND_DISCARD, [HIDDEN]), action(2, pb.ACTION_KIND_DONE)], 1),
])
def test_keep_done_draw_give_discard_and_redeal(actions: list[pb.LegalAction],
                                                chosen: int) -> None:
    assert choose("briscola", request(*actions)) == chosen


@pytest.mark.parametrize(("game", "actions", "chosen"), [
    ("vecchia", [action(i, pb.ACTION_KIND_DRAW, value=i - 1) for i in (6, 2, 4)], 2),
    ("briscola", [play(7, card(TWO, CUPS)), play(3, card(TWO, COINS)), play(5, card(TWO, CLUBS))],
     3),
    ("scopa", [play(9, card(FIVE, CUPS)), play(8, card(FIVE, COINS))], 8),
    ("briscola-chiamata", [action(12, pb.ACTION_KIND_PASS), action(11, pb.ACTION_KIND_PASS)], 11),
    ("tressette", [action(30, pb.ACTION_KIND_REDEAL), action(29, pb.ACTION_KIND_OTHER)], 29),
])
def test_ties_go_to_the_lowest_action_id(game: str, actions: list[pb.LegalAction],
                                         chosen: int) -> None:
    assert choose(game, request(*actions)) == chosen


# Real bot processes.

@pytest.fixture
def temp_root() -> Iterator[Path]:
    """Where the bot's private temporary folders go (a short path, removed afterwards)."""
    with short_temp_root() as root:
        yield root


@pytest.mark.parametrize("game_id", game_ids())
def test_the_bot_plays_every_game_legally_at_every_seat(game_id: str, temp_root: Path) -> None:
    game = load_game(game_id)
    seats: list[SeatSpec] = [BotSeat.from_path(PORTABLE, temp_root)]
    seats += [PolicySeat("random")] * (game.num_players - 1)
    result = run_duplicate(game, 7, seats)
    bot = result.entrants[0]
    assert sorted(bot.seats) == list(range(game.num_players))
    assert bot.label == "portable (bot)"
    assert bot.exit.status == 0
    for deal in result.deals:
        assert deal.reason_names == ("OK",) * game.num_players, deal.problems()
        record = deal.record
        assert record is not None and record.conduct is not None
        assert all(report.strikes == 0 for report in record.conduct.seats)
    assert list(temp_root.iterdir()) == []


SETS = 30
"""Duplicate sets per game: each deal played once per rotation of the seats."""
STANDARD_ERRORS = 3.0
"""How far above zero, in standard errors, the mean difference must be: a bot no better than
random gets there in well under 1 % of runs."""
STARTUP_S = 30.0
"""How long the bot may take to listen (the machine may be busy)."""


async def set_differences(game: Game, temp_root: Path) -> list[float]:
    """The bot's returns minus the mean of the random policy's in the other seats, over each
    duplicate set, the bot started once for all of them."""
    differences = []
    players = game.num_players
    manifest = BotManifest.load(PORTABLE)
    async with launched_bots(manifest, temp_root, 1, STARTUP_S, rotations=players) as (bot,):
        for seed in range(1, SETS + 1):
            seats = [bot, *[PolicySeat("random")] * (players - 1)]
            result = await run_duplicate_async(game, seed, seats)
            assert [deal.reason_names for deal in result.deals] == [("OK",) * players] * players
            ours, *theirs = result.entrants
            assert ours.seats == tuple(range(players))
            differences.append(ours.total - statistics.mean(one.total for one in theirs))
    assert all(one.exit is not None and one.exit.status == 0 for one in bot.bots)
    return differences


@pytest.mark.parametrize("game_id", ["briscola", "scopa", "tressette-non-prendere"])
def test_the_bot_beats_random_clearly_over_duplicate_sets(game_id: str, temp_root: Path) -> None:
    differences = asyncio.run(set_differences(load_game(game_id), temp_root))
    mean = statistics.mean(differences)
    error = statistics.stdev(differences) / math.sqrt(SETS)
    assert mean > 0 and mean > STANDARD_ERRORS * error, (mean, error, differences)
    assert list(temp_root.iterdir()) == []
