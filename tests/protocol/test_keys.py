"""Cache keys: one int for short runs of small ints, never shared by two different values."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from arena.protocol.keys import HIGH, LOW, MAX_DIGITS, event_key, ints_key

small = st.integers(LOW, HIGH)
number = st.one_of(small, st.integers(-1000, 1000))
runs = st.lists(number, max_size=MAX_DIGITS + 2).map(tuple)
events = st.tuples(st.integers(-2, 40), st.integers(-2, 12), runs, runs)


def test_short_runs_of_small_ints_are_one_int_and_others_their_tuple() -> None:
    """The key is an int exactly when the run fits, and below 2**60 (a machine word)."""
    assert ints_key(()) == 0
    assert isinstance(ints_key((LOW, HIGH, 0)), int)
    assert ints_key((HIGH + 1,)) == (HIGH + 1,)
    assert ints_key((LOW - 1, 3)) == (LOW - 1, 3)
    long_run = tuple(range(MAX_DIGITS + 1))
    assert ints_key(long_run) == long_run
    widest = ints_key((HIGH,) * MAX_DIGITS)
    assert isinstance(widest, int) and 0 < widest < 2**60
    assert isinstance(event_key(2, 1, (5, -1), (11,)), int)
    assert event_key(2, 1, (500,), ()) == (2, 1, (500,), ())
    assert event_key(2, 1, tuple(range(6)), ()) == (2, 1, tuple(range(6)), ())


@given(runs, runs)
def test_two_runs_share_a_key_only_when_equal(first: tuple[int, ...],
                                              second: tuple[int, ...]) -> None:
    """Different runs (of any lengths) never get the same key."""
    assert (ints_key(first) == ints_key(second)) == (first == second)


@given(events, events)
def test_two_events_share_a_key_only_when_equal(
        first: tuple[int, int, tuple[int, ...], tuple[int, ...]],
        second: tuple[int, int, tuple[int, ...], tuple[int, ...]]) -> None:
    """Events with different kinds, seats, cards or values (the split between cards and
    values included) never get the same key."""
    assert (event_key(*first) == event_key(*second)) == (first == second)


def test_moving_a_number_between_cards_and_values_changes_the_key() -> None:
    """The number of cards is part of the key."""
    assert event_key(1, 0, (3, 4), ()) != event_key(1, 0, (3,), (4,))
    assert event_key(1, 0, (), (3, 4)) != event_key(1, 0, (3,), (4,))


def test_no_two_short_runs_or_events_share_a_key() -> None:
    """Every run of up to three of some edge values, and every event made of them, gets a key
    of its own."""
    edges = (LOW, 0, 1, HIGH - 1, HIGH)
    short_runs = [()] + [tuple(run) for length in (1, 2, 3)
                         for run in itertools.product(edges, repeat=length)]
    assert len({ints_key(run) for run in short_runs}) == len(short_runs)
    built = [(kind, seat, cards, values) for kind in (0, 1) for seat in (LOW, 0)
             for cards in short_runs for values in short_runs[:6]]
    assert len({event_key(*event) for event in built}) == len(built)
