"""Zero-sum game points from who won: free-for-all with shared ties, and fixed pairs."""

from __future__ import annotations


def side_outcome(winners: list[int], num_seats: int) -> list[int]:
    """Zero-sum game points when the seats in ``winners`` win (each of k: n-k; losers: -k)."""
    k = len(winners)
    if k in (0, num_seats):
        return [0] * num_seats
    return [num_seats - k if seat in winners else -k for seat in range(num_seats)]


def pair_outcome(winning_team: int | None, num_seats: int, team_of: tuple[int, ...]) -> list[int]:
    """+1 to every seat of the winning side, -1 to the others (0 to all on a draw)."""
    if winning_team is None:
        return [0] * num_seats
    return [1 if team_of[seat] == winning_team else -1 for seat in range(num_seats)]
