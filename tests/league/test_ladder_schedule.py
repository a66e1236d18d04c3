"""The ladder's scheduler: placement first, fair exposure, informative pairs, no pair starved."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.league.ladder_schedule import (
    LadderGame,
    LadderSet,
    LadderState,
    Skill,
    next_sets,
    pairs,
)

SEATS = st.sampled_from([2, 3, 4, 5])


def play(state: LadderState, sets: int, batch: int = 3) -> list[LadderSet]:
    """Schedule ``sets`` sets in batches, counting each batch into the state as the loop does."""
    per_bot: Counter[int] = Counter(state.sets)
    meetings: Counter[frozenset[int]] = Counter(state.meetings)
    games: Counter[str] = Counter(state.game_sets)
    played: list[LadderSet] = []
    while len(played) < sets:
        state.sets, state.meetings, state.game_sets = dict(per_bot), dict(meetings), dict(games)
        for chosen in next_sets(state, min(batch, sets - len(played))):
            played.append(chosen)
            per_bot.update(set(chosen.seats))
            meetings.update(pairs(chosen.seats))
            games[chosen.game] += 1
    state.sets, state.meetings, state.game_sets = dict(per_bot), dict(meetings), dict(games)
    return played


@st.composite
def ladders(draw: st.DrawFn, placement: int = 0) -> LadderState:
    """A ladder of 2 to 8 bots with any ratings, over one or two games."""
    bots = list(range(100, 100 + draw(st.integers(2, 8))))
    ratings = {bot: Skill(draw(st.floats(0, 50)), draw(st.floats(0.5, 9))) for bot in bots}
    games = [LadderGame(f"g{seats}", seats)
             for seats in dict.fromkeys(draw(st.lists(SEATS, min_size=1, max_size=2)))]
    return LadderState(bots=bots, games=games, ratings=ratings, placement=placement)


@settings(max_examples=60, deadline=None)
@given(ladders(), st.integers(1, 4))
def test_exposure_stays_within_three_sets(state: LadderState, batch: int) -> None:
    """However ratings lie, the sets per bot never drift apart by more than three."""
    play(state, 25 * len(state.bots), batch)
    counts = [state.sets.get(bot, 0) for bot in state.bots]
    assert max(counts) - min(counts) <= 3


@settings(max_examples=60, deadline=None)
@given(ladders(), st.integers(1, 5))
def test_a_new_bot_plays_its_placement_sets_before_anything_else(state: LadderState,
                                                                 placement: int) -> None:
    """Once the ladder runs, a newcomer is in every set until it has its placement sets, and
    then plays at the others' rate (it is credited with their fewest sets)."""
    play(state, 10 * len(state.bots))
    newcomer = 999
    state.base = {newcomer: min(state.sets.values())}
    state.bots = [*state.bots, newcomer]
    state.placement = placement
    first = play(state, placement)
    assert all(newcomer in chosen.seats for chosen in first)
    play(state, 20 * len(state.bots))
    exposure = [state.sets.get(bot, 0) + state.base.get(bot, 0) for bot in state.bots]
    assert max(exposure) - min(exposure) <= 3 + placement


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 8), SEATS)
def test_no_pair_is_starved_even_far_apart(bots: int, seats: int) -> None:
    """Two camps of ratings far apart: every pair across them still meets."""
    ids = list(range(bots))
    ratings = {bot: Skill(50.0 if bot % 2 else 0.0, 1.0) for bot in ids}
    state = LadderState(bots=ids, games=[LadderGame("g", seats)], ratings=ratings, placement=0)
    play(state, 12 * bots * (bots - 1) // 2)
    assert all(state.meetings.get(frozenset((a, b)), 0) > 0 for a in ids for b in ids if a < b)


def test_close_ratings_meet_more_often_than_far_ones() -> None:
    """Sets go to the informative pairs: those whose ratings are close."""
    ratings = {0: Skill(10, 2), 1: Skill(11, 2), 2: Skill(40, 2), 3: Skill(41, 2)}
    state = LadderState(bots=list(ratings), games=[LadderGame("g", 2)], ratings=ratings,
                        placement=0)
    play(state, 200)
    close = state.meetings[frozenset((0, 1))] + state.meetings[frozenset((2, 3))]
    far = sum(state.meetings[frozenset(pair)] for pair in ((0, 2), (0, 3), (1, 2), (1, 3)))
    assert close > far


def test_rarely_met_pairs_come_first_when_ratings_tie() -> None:
    """With equal ratings, the pair that met least is chosen."""
    state = LadderState(bots=[1, 2, 3], games=[LadderGame("g", 2)], placement=0,
                        sets={1: 10, 2: 10, 3: 10},
                        meetings={frozenset((1, 2)): 6, frozenset((1, 3)): 2,
                                  frozenset((2, 3)): 2})
    assert next_sets(state, 1) == [LadderSet("g", (1, 3))]


@settings(max_examples=30, deadline=None)
@given(ladders(placement=2))
def test_the_same_state_gives_the_same_sets(state: LadderState) -> None:
    """The scheduler is a plain function of its inputs."""
    assert next_sets(state, 7) == next_sets(state, 7)


def test_games_take_turns_and_tables_fill_every_seat() -> None:
    """Each game gets its share; a game with more seats than bots seats copies of them."""
    state = LadderState(bots=[1, 2, 3], games=[LadderGame("two", 2), LadderGame("five", 5)],
                        placement=0)
    chosen = play(state, 10)
    assert Counter(item.game for item in chosen) == {"two": 5, "five": 5}
    assert all(len(item.seats) == (2 if item.game == "two" else 5) for item in chosen)
    assert all(set(item.seats) == {1, 2, 3} for item in chosen if item.game == "five")


def test_fewer_than_two_bots_get_no_sets() -> None:
    """A ladder of one bot waits for a second."""
    assert next_sets(LadderState(bots=[1], games=[LadderGame("g", 2)]), 5) == []
