"""A league's schedule for one game: balanced tables, deals in duplicate, deterministic seeds.

Every scheduled match is one duplicate set: a table of ``k`` entrants in seat order and a deal
seed, played ``k`` times with the entrants rotated one seat each time (``run_duplicate``), so
every entrant of a table sits in every seat once per deal. A table that repeats itself, such as
``ABAB`` (two bots in four seats), is played only for its period (two rotations): the further
rotations would repeat the same seating.

Tables, for ``N`` bots and a game of ``k`` seats:

- ``k < N``: the blocks of a balanced incomplete block design on the bots: every table holds
  ``k`` distinct bots and every pair of bots shares the same number of tables. The smallest
  design found is used: for ``k > N/2`` the complements of the design for ``N - k``; then,
  for ``lambda = 1, 2, ...`` while smaller than the best so far, a cyclic difference family
  over Z_N, then a 1-rotational one over Z_(N-1) plus a fixed point, each searched
  exhaustively and then by a seeded hill climb within fixed budgets (so the result is the
  same on every machine); otherwise the complete design, all ``k``-subsets, always balanced.
  A design's bots all sit at the same number of tables, and the rotations seat every entrant
  in every seat, so every bot sits in every seat equally often.
- ``k == N``: one table with every bot.
- ``k > N``: some bots fill several seats (each seat holds its own copy of the bot, a
  separate agent). Table ``j`` seats bot ``(i + j) mod N`` at seat ``i``, for
  ``j = 0, g, 2g, ..., N - g`` with ``g = gcd(N, k)``: any ``k`` consecutive seats hold each
  bot ``floor(k/N)`` or ``ceil(k/N)`` times, and over these ``N/g`` tables every bot fills the
  same number of seats, so with the rotations every bot sits in every seat equally often. Every
  pair of bots shares every table.

Fixed partnerships (``teams``, the game's ``Game.teams()``): with ``k > N`` a team's seats are
all filled by copies of one bot, and the tables are a design over the bots with one block
member per team (a bot never plays against itself); with ``k <= N`` each block is seated once
per way of splitting it into teams, so every pair of bots is partners equally often and
opponents equally often (four seats in pairs: three tables per block).

Odd rounds seat each table in reverse order (unless that would break a partnership), so that
over two rounds who plays after whom is balanced too.

A match's deal seed is the first 8 bytes of HMAC-SHA256 keyed by the league's seed key, over
the game id, the round, the table and the deal (``deal_seed``): stable everywhere, never
Python's ``hash()``. The key is a league's secret (32 random bytes from the OS, kept in the
store), so nobody who lacks it can tell a deal from its place in the schedule; or, for a
reproducible league, the 8 bytes of a seed the user gave, which anyone who knows that seed can
recompute (``seed_key``).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Hashable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass
from functools import cache
from itertools import combinations, permutations
from math import comb, gcd
from typing import Generic, TypeVar

from arena.games.rng import MAX_SEED, Rng, derive_seed

BotId = TypeVar("BotId", bound=Hashable)

SEARCH_BUDGET = 40_000
"""Exhaustive-search nodes spent on smaller designs for one (N, k) before all k-subsets."""

CLIMB_BUDGET = 60_000
"""Hill-climbing moves spent on smaller designs for one (N, k) before all k-subsets."""

MAX_TABLES = 100_000
"""The most tables a round may have when falling back to all k-subsets."""

CLIMB_RESTART = 4_000
"""Moves without improvement after which a climb starts again from new random blocks."""

Block = tuple[int, ...]
Teams = Sequence[Sequence[int]]


class ScheduleError(ValueError):
    """A schedule that cannot be made from the given bots, seats, deals or rounds."""


@dataclass(frozen=True)
class ScheduledMatch(Generic[BotId]):
    """One duplicate set: a table in seat order and a deal seed, played once per rotation."""

    game: str
    round: int
    table: int
    """The table's index in its round."""
    deal: int
    seats: tuple[BotId, ...]
    """The bot at each seat in the first rotation (a bot may fill several seats)."""
    seed: int
    rotations: int
    """How many times the deal is played, entrants rotated one seat each time: the seat count,
    or fewer when the table repeats itself (``rotation_period``)."""

    @property
    def key(self) -> str:
        """A name unique within a league: game, round, table and deal (never shown to a bot:
        the store names a match by an opaque id)."""
        return f"{self.game}/r{self.round}/t{self.table}/d{self.deal}"

    def seats_in_rotation(self, rotation: int) -> tuple[BotId, ...]:
        """The bot at each seat in a rotation (entrant ``e`` at seat ``(e + rotation) % k``)."""
        k = len(self.seats)
        return tuple(self.seats[(seat - rotation) % k] for seat in range(k))


SEED_DOMAIN = b"card-arena deal seed v1"
"""What every deal seed's HMAC message starts with, so the key serves no other purpose."""


def seed_key(seed: int | bytes) -> bytes:
    """The HMAC key of a league: a secret as it is, or a given seed's 8 big-endian bytes."""
    if isinstance(seed, bytes):
        if len(seed) < 16:
            raise ScheduleError(f"a league secret has at least 16 bytes, got {len(seed)}")
        return seed
    if isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise ScheduleError(f"a league seed is an integer 0..{MAX_SEED}, got {seed!r}")
    return seed.to_bytes(8, "big")


def deal_seed(key: bytes, game: str, round_number: int, table: int, deal: int) -> int:
    """The deal seed of a match, in 0..2**64-1: HMAC-SHA256 of where it sits in the league."""
    message = b"\0".join((SEED_DOMAIN, game.encode(), b"%d" % round_number, b"%d" % table,
                          b"%d" % deal))
    return int.from_bytes(hmac.digest(key, message, hashlib.sha256)[:8], "big")


def schedule_game(game: str, bots: Sequence[BotId], seats: int, deals: int, rounds: int,
                  seed: int | bytes, teams: Teams | None = None) -> list[ScheduledMatch[BotId]]:
    """Every match of one game: each round, each table, each deal, in that order.

    ``seed`` is the league's secret (bytes) or a seed the user gave (an int): see ``seed_key``.
    """
    if deals < 1 or rounds < 1:
        raise ScheduleError(f"deals and rounds must be at least 1, got deals={deals}, "
                            f"rounds={rounds}")
    key = seed_key(seed)
    family = tables(bots, seats, teams)
    reverse = not teams or _reversal_keeps_teams(teams, seats)
    matches: list[ScheduledMatch[BotId]] = []
    for round_number in range(rounds):
        for index, table in enumerate(family):
            ordered = table[::-1] if reverse and round_number % 2 else table
            period = rotation_period(ordered)
            matches.extend(
                ScheduledMatch(game=game, round=round_number, table=index, deal=deal,
                               seats=ordered, rotations=period,
                               seed=deal_seed(key, game, round_number, index, deal))
                for deal in range(deals))
    return matches


def _reversal_keeps_teams(teams: Teams, seats: int) -> bool:
    """True when seating a table in reverse order maps each team onto a team."""
    partition = {frozenset(team) for team in teams}
    return all(frozenset(seats - 1 - seat for seat in team) in partition for team in teams)


def rotation_period(seats: Sequence[Hashable]) -> int:
    """How many rotations give distinct seatings: the table's smallest period (``ABAB``: 2).

    Further rotations would seat the same bots in the same seats again, so a duplicate set
    plays only these; every bot still sits in every seat equally often.
    """
    k = len(seats)
    return next(p for p in range(1, k + 1)
                if k % p == 0 and all(seats[i] == seats[(i + p) % k] for i in range(k)))


def tables(bots: Sequence[BotId], seats: int, teams: Teams | None = None
           ) -> list[tuple[BotId, ...]]:
    """The tables of one round, each the bots in seat order (see the module docstring)."""
    _check(bots, seats, teams)
    return [tuple(bots[i] for i in table) for table in index_tables(len(bots), seats, teams)]


def index_tables(n: int, k: int, teams: Teams | None = None) -> list[Block]:
    """The tables of one round over bots ``0..n-1``, each in seat order."""
    if teams and len(teams) > 1:
        return _team_tables(n, k, [tuple(team) for team in teams])
    if k > n:
        return copy_tables(n, k)
    if k == n:
        return [tuple(range(n))]
    return list(block_design(n, k))


def copy_tables(n: int, k: int) -> list[Block]:
    """Tables of ``k > n`` seats: seat ``i`` of table ``j`` holds bot ``(i + j) mod n``."""
    step = gcd(n, k)
    return [tuple((seat + shift) % n for seat in range(k)) for shift in range(0, n, step)]


def _team_tables(n: int, k: int, teams: list[Block]) -> list[Block]:
    """Tables for fixed partnerships: whole teams of copies, or every split of each block."""
    sizes = {len(team) for team in teams}
    if sorted(seat for team in teams for seat in team) != list(range(k)) or len(sizes) != 1:
        raise ScheduleError(f"teams {teams} must split the {k} seats into teams of one size")
    if k > n:
        if n < len(teams):
            return copy_tables(n, k)
        result = []
        for block in _design_or_all(n, len(teams)):
            seat_bots = [0] * k
            for team, bot in zip(teams, block, strict=True):
                for seat in team:
                    seat_bots[seat] = bot
            result.append(tuple(seat_bots))
        return result
    blocks = [tuple(range(n))] if k == n else list(block_design(n, k))
    return [table for block in blocks for table in _splits(block, teams)]


def _design_or_all(n: int, k: int) -> list[Block]:
    """A balanced design of ``k``-blocks on ``n`` bots, or the one block of all of them."""
    return [tuple(range(n))] if k == n else list(block_design(n, k))


def _splits(block: Block, teams: list[Block]) -> Iterator[Block]:
    """The block seated once per way of splitting it into the teams (teams unordered)."""
    size = len(teams[0])
    seen: set[frozenset[frozenset[int]]] = set()
    for order in permutations(block):
        groups = [order[i:i + size] for i in range(0, len(order), size)]
        split = frozenset(frozenset(group) for group in groups)
        if split in seen or any(list(group) != sorted(group) for group in groups):
            continue
        seen.add(split)
        seat_bots = [0] * len(block)
        for team, group in zip(teams, groups, strict=True):
            for seat, bot in zip(team, group, strict=True):
                seat_bots[seat] = bot
        yield tuple(seat_bots)


def _check(bots: Sequence[Hashable], seats: int, teams: Teams | None) -> None:
    """At least two distinct bots and two seats."""
    if len(bots) < 2:
        raise ScheduleError(f"a league needs at least 2 bots, got {len(bots)}")
    if len(set(bots)) != len(bots):
        raise ScheduleError("a bot is named twice in the league's bots")
    if seats < 2:
        raise ScheduleError(f"a game needs at least 2 seats, got {seats}")
    if teams is not None and any(seat >= seats for team in teams for seat in team):
        raise ScheduleError(f"teams {teams} name a seat beyond the {seats} seats")


class Budget:
    """Search steps left, shared by every search for one design."""

    def __init__(self, steps: int) -> None:
        """Start with ``steps`` to spend."""
        self.left = steps


@cache
def block_design(n: int, k: int) -> tuple[Block, ...]:
    """The smallest balanced design of ``k``-blocks on ``0..n-1`` found (``2 <= k < n``)."""
    if not 2 <= k < n:
        raise ScheduleError(f"a block design needs 2 <= k < n, got n={n}, k={k}")
    best: tuple[Block, ...] | None = None
    if 2 * k > n and n - k >= 2:
        with suppress(ScheduleError):
            complement = tuple(tuple(x for x in range(n) if x not in set(block))
                               for block in block_design(n, n - k))
            if len(complement) < comb(n, k) and is_balanced(complement, n):
                best = complement
    limit = len(best) if best is not None else comb(n, k)
    pairs, per_block = n * (n - 1), k * (k - 1)
    exact, climb = Budget(SEARCH_BUDGET), Budget(CLIMB_BUDGET)
    lam = 1
    while lam * pairs // per_block < limit and (exact.left > 0 or climb.left > 0):
        if (lam * pairs) % per_block == 0 and (lam * (n - 1)) % (k - 1) == 0:
            for make in (cyclic_design, one_rotational_design):
                design = make(n, k, lam, exact, climb)
                if design and is_balanced(design, n):
                    return design
        lam += 1
    if best is not None:
        return best
    if limit > MAX_TABLES:
        raise ScheduleError(f"no balanced set of tables of {k} seats for {n} bots was found "
                            f"below all {limit} {k}-subsets; use fewer bots")
    return tuple(combinations(range(n), k))


def cyclic_design(n: int, k: int, lam: int, exact: Budget, climb: Budget
                  ) -> tuple[Block, ...] | None:
    """A design developed from base blocks over Z_n, or None if none is found in budget."""
    blocks_total = lam * n * (n - 1) // (k * (k - 1))
    if blocks_total % n:
        return None
    bases = find_family(n, (k,) * (blocks_total // n), lam, exact, climb)
    if bases is None:
        return None
    return tuple(tuple(sorted((x + t) % n for x in base)) for base in bases for t in range(n))


def one_rotational_design(n: int, k: int, lam: int, exact: Budget, climb: Budget
                          ) -> tuple[Block, ...] | None:
    """A design over Z_(n-1) plus the fixed point ``n - 1``, or None if none is found."""
    m = n - 1
    blocks_total = lam * n * (n - 1) // (k * (k - 1))
    if blocks_total % m or lam % (k - 1):
        return None
    with_fixed = lam // (k - 1)
    count = blocks_total // m
    if with_fixed > count:
        return None
    sizes = (k - 1,) * with_fixed + (k,) * (count - with_fixed)
    bases = find_family(m, sizes, lam, exact, climb)
    if bases is None:
        return None
    result: list[Block] = []
    for base in bases:
        extra = (m,) if len(base) == k - 1 else ()
        result.extend(tuple(sorted((x + t) % m for x in base)) + extra for t in range(m))
    return tuple(result)


def find_family(m: int, sizes: tuple[int, ...], lam: int, exact: Budget, climb: Budget
                ) -> list[Block] | None:
    """A difference family by exhaustive search, else by hill climbing (each within budget)."""
    return (difference_family(m, sizes, lam, exact)
            or climb_family(m, sizes, lam, climb, min(climb.left, CLIMB_BUDGET // 2)))


def climb_family(m: int, sizes: tuple[int, ...], lam: int, budget: Budget, moves: int
                 ) -> list[Block] | None:
    """A difference family by hill climbing from seeded random blocks: move one element at a
    time while the squared excess of the difference counts does not grow; restart when stuck."""
    if not sizes or max(sizes) > m or moves <= 0:
        return None
    rng = Rng(derive_seed(m, lam, *sizes))
    budget.left -= moves
    stuck = CLIMB_RESTART
    blocks: list[list[int]] = []
    counts: list[int] = []
    cost = 0
    for _ in range(moves):
        if stuck >= CLIMB_RESTART:
            blocks = [_sample(rng, m, size) for size in sizes]
            counts = [0] * m
            for block in blocks:
                for x, y in permutations(block, 2):
                    counts[(x - y) % m] += 1
            cost = sum((count - lam) ** 2 for count in counts[1:])
            stuck = 0
        if cost == 0:
            return [tuple(sorted(block)) for block in blocks]
        block = blocks[rng.below(len(blocks))]
        index = rng.below(len(block))
        old, new = block[index], rng.below(m)
        if new in block:
            stuck += 1
            continue
        change: dict[int, int] = {}
        for y in block:
            if y != old:
                for d in ((old - y) % m, (y - old) % m):
                    change[d] = change.get(d, 0) - 1
                for d in ((new - y) % m, (y - new) % m):
                    change[d] = change.get(d, 0) + 1
        delta = sum((counts[d] + c - lam) ** 2 - (counts[d] - lam) ** 2
                    for d, c in change.items())
        if delta > 0:
            stuck += 1
            continue
        stuck = 0 if delta < 0 else stuck + 1
        block[index] = new
        for d, c in change.items():
            counts[d] += c
        cost += delta
    return [tuple(sorted(block)) for block in blocks] if cost == 0 else None


def _sample(rng: Rng, m: int, size: int) -> list[int]:
    """``size`` distinct residues of Z_m."""
    residues = list(range(m))
    rng.shuffle(residues)
    return residues[:size]


def difference_family(m: int, sizes: tuple[int, ...], lam: int, budget: Budget
                      ) -> list[Block] | None:
    """Base blocks over Z_m, one per size, each containing 0, whose differences cover every
    nonzero residue exactly ``lam`` times; None when the budget runs out first.

    A depth-first search, one element at a time; blocks of one size stay in lexicographic order.
    """
    if not sizes or sum(sizes) > MAX_SEARCH_DEPTH or min(sizes) < 1:
        return None
    counts = [0] * m
    blocks: list[list[int]] = []

    def extend(block: list[int], start: int) -> bool:
        """Fill the open block from element ``start`` on, then the blocks after it."""
        budget.left -= 1
        if budget.left <= 0:
            return False
        index = len(blocks)
        if len(block) == sizes[index]:
            blocks.append(block)
            if index + 1 == len(sizes):
                if all(count == lam for count in counts[1:]):
                    return True
            elif extend([0], 1):
                return True
            blocks.pop()
            return False
        previous = blocks[-1] if blocks and len(blocks[-1]) == sizes[index] else None
        for x in range(start, m):
            if previous is not None and [*block, x] < previous[:len(block) + 1]:
                continue
            if not _fits(block, x, counts, m, lam):
                continue
            _count(block, x, counts, m, 1)
            block.append(x)
            if extend(block, x + 1):
                return True
            block.pop()
            _count(block, x, counts, m, -1)
            if budget.left <= 0:
                return False
        return False

    return [tuple(block) for block in blocks] if extend([0], 1) else None


MAX_SEARCH_DEPTH = 400
"""Difference families with more elements than this in all are not searched."""


def _fits(block: list[int], x: int, counts: list[int], m: int, lam: int) -> bool:
    """True when adding ``x`` to the block keeps every difference count within ``lam``."""
    extra: dict[int, int] = {}
    for y in block:
        for d in ((x - y) % m, (y - x) % m):
            extra[d] = extra.get(d, 0) + 1
            if d == 0 or counts[d] + extra[d] > lam:
                return False
    return True


def _count(block: list[int], x: int, counts: list[int], m: int, sign: int) -> None:
    """Count (or uncount) the differences between ``x`` and the block's elements."""
    for y in block:
        counts[(x - y) % m] += sign
        counts[(y - x) % m] += sign


def is_balanced(design: Sequence[Block], n: int) -> bool:
    """True when every pair of ``0..n-1`` shares the same number of blocks and every point is
    in the same number of blocks."""
    pair_counts = dict.fromkeys(combinations(range(n), 2), 0)
    point_counts = [0] * n
    for block in design:
        members = sorted(set(block))
        if len(members) != len(block):
            return False
        for point in members:
            point_counts[point] += 1
        for pair in combinations(members, 2):
            pair_counts[pair] += 1
    return len(set(pair_counts.values())) == 1 and len(set(point_counts)) == 1
