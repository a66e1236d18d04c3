"""Schedules: balanced tables for every (bots, seats), duplicate rotations, stable seeds."""

import hashlib
import hmac
import secrets
from collections import Counter
from itertools import combinations
from math import comb

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.league.schedule import (
    ScheduledMatch,
    ScheduleError,
    block_design,
    deal_seed,
    is_balanced,
    rotation_period,
    schedule_game,
    seed_key,
    tables,
)

PAIRS = ((0, 2), (1, 3))


def seat_counts(matches: list[ScheduledMatch[str]]) -> Counter[tuple[str, int]]:
    """How often each bot sits in each seat over every rotation of every match."""
    counts: Counter[tuple[str, int]] = Counter()
    for match in matches:
        for rotation in range(match.rotations):
            for seat, bot in enumerate(match.seats_in_rotation(rotation)):
                counts[bot, seat] += 1
    return counts


def shared_tables(family: list[tuple[str, ...]], bots: list[str]) -> Counter[tuple[str, str]]:
    """How many tables each pair of bots shares."""
    counts: Counter[tuple[str, str]] = Counter(dict.fromkeys(combinations(bots, 2), 0))
    for table in family:
        for pair in combinations(sorted(set(table), key=bots.index), 2):
            counts[pair] += 1
    return counts


def names(n: int) -> list[str]:
    """Bot ids b0, b1, ..."""
    return [f"b{i}" for i in range(n)]


@given(st.integers(2, 11), st.integers(2, 10))
def test_every_pair_shares_tables_equally_and_every_bot_sits_everywhere_equally(
        n: int, k: int) -> None:
    bots = names(n)
    matches = schedule_game("g", bots, k, deals=2, rounds=2, seed=5)
    pairs = shared_tables([match.seats for match in matches], bots)
    assert len(set(pairs.values())) == 1 and min(pairs.values()) > 0
    counts = seat_counts(matches)
    assert {bot for bot, _ in counts} == set(bots)
    assert len({counts[bot, seat] for bot in bots for seat in range(k)}) == 1


@given(st.integers(2, 9))
def test_partnership_games_balance_partners_opponents_and_seats(n: int) -> None:
    bots = names(n)
    matches = schedule_game("g", bots, 4, deals=1, rounds=2, seed=1, teams=PAIRS)
    partners: Counter[frozenset[str]] = Counter()
    opponents: Counter[frozenset[str]] = Counter()
    for match in matches:
        seats = match.seats
        assert not set(seats[0::2]) & set(seats[1::2]), "a bot never plays against itself"
        for a, b in combinations(range(4), 2):
            if seats[a] != seats[b]:
                (partners if a % 2 == b % 2 else opponents)[frozenset((seats[a], seats[b]))] += 1
    every_pair = {frozenset(pair) for pair in combinations(bots, 2)}
    assert set(opponents) == every_pair and len(set(opponents.values())) == 1
    if n >= 4:
        assert set(partners) == every_pair and len(set(partners.values())) == 1
    counts = seat_counts(matches)
    assert len({counts[bot, seat] for bot in bots for seat in range(4)}) == 1


@pytest.mark.parametrize(("n", "k", "blocks"), [(7, 3, 7), (9, 3, 24), (13, 4, 13), (6, 3, 10),
                                                (5, 2, 10), (4, 3, 4)])
def test_known_small_designs_are_found(n: int, k: int, blocks: int) -> None:
    design = block_design(n, k)
    assert len(design) == blocks
    assert is_balanced(design, n)


@pytest.mark.parametrize(("n", "k"), [(14, 3), (12, 5), (16, 7)])
def test_searched_designs_are_balanced_and_smaller_than_all_subsets(n: int, k: int) -> None:
    design = block_design(n, k)
    assert is_balanced(design, n)
    assert len(design) < comb(n, k)
    assert all(len(set(block)) == k for block in design)


def test_k_equal_n_is_one_table_and_more_seats_than_bots_copies_bots_evenly() -> None:
    assert tables(["x", "y", "z"], 3) == [("x", "y", "z")]
    assert tables(["x", "y"], 4) == [("x", "y", "x", "y")]
    assert tables(["x", "y"], 5) == [("x", "y", "x", "y", "x"), ("y", "x", "y", "x", "y")]
    assert tables(["x", "y"], 4, PAIRS) == [("x", "y", "x", "y")]


def test_rotations_seat_every_entrant_in_every_seat_once() -> None:
    match = schedule_game("briscola", ["a", "b", "c"], 3, 1, 1, 0)[0]
    assert match.rotations == 3
    seen = [match.seats_in_rotation(r) for r in range(3)]
    assert seen == [("a", "b", "c"), ("c", "a", "b"), ("b", "c", "a")]


def test_a_repeating_table_is_played_only_for_its_period() -> None:
    assert rotation_period(("a", "b", "a", "b")) == 2
    assert rotation_period(("a", "b", "a", "b", "a")) == 5
    assert rotation_period(("a", "b", "c", "a", "b", "c")) == 3
    match = schedule_game("briscola", ["a", "b"], 4, 1, 1, 0, teams=PAIRS)[0]
    assert match.rotations == 2
    assert [match.seats_in_rotation(r) for r in range(2)] == [("a", "b", "a", "b"),
                                                               ("b", "a", "b", "a")]


def test_odd_rounds_reverse_the_seat_order() -> None:
    first, second = (m.seats for m in schedule_game("g", ["a", "b", "c"], 3, 1, 2, 0))
    assert second == first[::-1]


def test_seeds_are_stable_distinct_and_depend_on_every_part() -> None:
    key = seed_key(1)
    assert deal_seed(key, "briscola", 0, 0, 0) == deal_seed(key, "briscola", 0, 0, 0)
    variants = {deal_seed(key, "briscola", 0, 0, 0), deal_seed(seed_key(2), "briscola", 0, 0, 0),
                deal_seed(key, "scopa", 0, 0, 0), deal_seed(key, "briscola", 1, 0, 0),
                deal_seed(key, "briscola", 0, 1, 0), deal_seed(key, "briscola", 0, 0, 1),
                deal_seed(key, "briscola", 1, 1, 0), deal_seed(key, "briscola", 11, 0, 0)}
    assert len(variants) == 8
    matches = schedule_game("misere", names(6), 4, deals=3, rounds=2, seed=9)
    assert len({m.seed for m in matches}) == len(matches)
    assert len({m.key for m in matches}) == len(matches)
    assert all(0 <= m.seed < 2**64 for m in matches)
    assert matches == schedule_game("misere", names(6), 4, deals=3, rounds=2, seed=9)


@pytest.mark.parametrize(("bots", "seats", "deals", "rounds", "words"), [
    (["a"], 2, 1, 1, "at least 2 bots"),
    (["a", "a"], 2, 1, 1, "named twice"),
    (["a", "b"], 1, 1, 1, "at least 2 seats"),
    (["a", "b"], 2, 0, 1, "at least 1"),
    (["a", "b"], 2, 1, 0, "at least 1"),
])
def test_bad_input_is_one_clear_error(bots: list[str], seats: int, deals: int, rounds: int,
                                      words: str) -> None:
    with pytest.raises(ScheduleError, match=words):
        schedule_game("g", bots, seats, deals, rounds, 0)


def test_a_deal_seed_is_the_hmac_of_its_place_under_the_league_key() -> None:
    """The documented derivation: HMAC-SHA256(key, domain, game, round, table, deal), 8 bytes."""
    secret = bytes(range(32))
    message = b"card-arena deal seed v1\0briscola\x003\x001\x002"
    expected = int.from_bytes(hmac.digest(secret, message, hashlib.sha256)[:8], "big")
    assert deal_seed(secret, "briscola", 3, 1, 2) == expected
    assert seed_key(7) == (7).to_bytes(8, "big")
    assert seed_key(secret) == secret


def test_a_secret_schedule_differs_from_every_other_and_from_any_small_seed() -> None:
    """Two secrets give unrelated seeds; none of them is what a guessed seed would give."""
    first, second = secrets.token_bytes(32), secrets.token_bytes(32)
    one = schedule_game("briscola", names(3), 2, deals=2, rounds=1, seed=first)
    two = schedule_game("briscola", names(3), 2, deals=2, rounds=1, seed=second)
    assert [m.key for m in one] == [m.key for m in two]
    assert not {m.seed for m in one} & {m.seed for m in two}
    guessed = {m.seed for guess in range(200)
               for m in schedule_game("briscola", names(3), 2, deals=2, rounds=1, seed=guess)}
    assert not {m.seed for m in one} & guessed


@pytest.mark.parametrize(("seed", "words"), [
    (b"short", "at least 16 bytes"), (-1, "an integer 0.."), (2**64, "an integer 0.."),
    (True, "an integer 0.."),
])
def test_a_bad_league_key_is_one_clear_error(seed: int | bytes, words: str) -> None:
    with pytest.raises(ScheduleError, match=words):
        schedule_game("g", ["a", "b"], 2, 1, 1, seed)
