"""Local matches: reference policies play in this process, and the match becomes a record."""

from __future__ import annotations

from collections.abc import Sequence

from arena.games import Game
from arena.games.rng import MAX_SEED
from arena.match.errors import MatchError
from arena.match.record import MatchRecord
from arena.policies import make_policy

DEFAULT_POLICY = "heuristic"
"""The policy of every seat when none is named."""

MAX_ACTIONS = 1_000_000
"""A match that has not ended after this many actions is stopped as a runaway."""


def seat_policies(names: Sequence[str], num_seats: int) -> tuple[str, ...]:
    """One policy name per seat: the names in seat order, repeated cyclically."""
    chosen = list(names) or [DEFAULT_POLICY]
    if len(chosen) > num_seats:
        raise MatchError(f"{len(chosen)} policies given for {num_seats} seats; give at most "
                         f"{num_seats} (they repeat cyclically over the seats)")
    return tuple(chosen[seat % len(chosen)] for seat in range(num_seats))


def check_seed(seed: int) -> int:
    """A seed in 0..2**64-1, or a ``MatchError`` naming the valid range."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise MatchError(f"invalid seed {seed!r}: a seed is an integer from 0 to {MAX_SEED}")
    return seed


def play_local(game: Game, seed: int, policy_names: Sequence[str],
               max_actions: int = MAX_ACTIONS) -> MatchRecord:
    """Play a whole match between named reference policies and return its record."""
    names = seat_policies(policy_names, game.num_players)
    policies = [make_policy(name, game, seat, seed) for seat, name in enumerate(names)]
    state = game.new_initial_state(check_seed(seed))
    played = 0
    while not state.is_terminal():
        if played == max_actions:
            raise MatchError(f"{game.id}: the match was stopped after {max_actions} actions "
                             "without ending")
        seat = state.current_player()
        state.apply_action(policies[seat].act(state.observation(seat)))
        played += 1
    return MatchRecord.from_state(state, names)
