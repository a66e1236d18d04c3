"""Scopa capture sets: the canonical table of card sets worth 1..10 and the action encoding.

Every set of Italian cards whose Scopa values add up to at most 10 (4050 sets, singles first)
has a fixed index in ``CAPTURE_SETS``. An action is ``card + 40 * code`` where ``code`` is 0 to
lay the card down, ``1 + index`` to take the set ``CAPTURE_SETS[index]``, and ``TAKE_ALL`` for
an ace that takes the whole table (``asso_piglia_tutto``).
"""

from __future__ import annotations

from collections import Counter
from itertools import chain, combinations, product
from typing import Final

from arena.games.cards import ITALIAN_40, SCOPA_VALUE

VALUE: Final = ITALIAN_40.per_card(SCOPA_VALUE)
DECK_SIZE: Final = ITALIAN_40.size
MAX_VALUE: Final = 10


def _all_sets() -> tuple[tuple[int, ...], ...]:
    """Every set of cards worth at most 10 in total, by size then card ids."""
    found: list[tuple[int, ...]] = []

    def grow(start: int, total: int, chosen: tuple[int, ...]) -> None:
        """Extend ``chosen`` with each later card that keeps the total within 10."""
        for card in range(start, DECK_SIZE):
            value = total + VALUE[card]
            if value <= MAX_VALUE:
                found.append((*chosen, card))
                grow(card + 1, value, (*chosen, card))

    grow(0, 0, ())
    return tuple(sorted(found, key=lambda cards: (len(cards), cards)))


CAPTURE_SETS: Final = _all_sets()
SET_INDEX = {cards: index for index, cards in enumerate(CAPTURE_SETS)}
TAKE_ALL: Final = len(CAPTURE_SETS) + 1
SINGLE_OFFSET: Final = tuple(DECK_SIZE * (1 + SET_INDEX[(card,)]) for card in range(DECK_SIZE))
"""Per table card, what taking it alone adds to the played card's id."""
NUM_ACTIONS: Final = DECK_SIZE * (TAKE_ALL + 1)


def capture_action(card: int, taken: tuple[int, ...]) -> int:
    """The action playing ``card`` and taking the sorted set ``taken`` (empty: lay it down)."""
    if not taken:
        return card
    return card + DECK_SIZE * (1 + SET_INDEX[taken])


def take_all_action(card: int) -> int:
    """The action of an ace taking the whole table."""
    return card + DECK_SIZE * TAKE_ALL


def decode(action: int, table: tuple[int, ...] | list[int]) -> tuple[int, tuple[int, ...]]:
    """The card played and the cards taken by an action, given the table it is played on."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"{action} is not a scopa action (0..{NUM_ACTIONS - 1})")
    card, code = action % DECK_SIZE, action // DECK_SIZE
    if code == 0:
        return card, ()
    if code == TAKE_ALL:
        return card, tuple(sorted(table))
    return card, CAPTURE_SETS[code - 1]


def _partitions(value: int, largest: int) -> list[tuple[int, ...]]:
    """The ways to write ``value`` as parts up to ``largest`` (at most 4 of each), largest first."""
    if value == 0:
        return [()]
    found = []
    for part in range(min(value, largest), 0, -1):
        for rest in _partitions(value - part, part):
            if rest.count(part) < 4:
                found.append((part, *rest))
    return found


PARTITIONS: Final = tuple(
    tuple(tuple(sorted(Counter(parts).items())) for parts in _partitions(value, value)
          if len(parts) > 1)
    for value in range(MAX_VALUE + 1)
)
"""Per value, the splits into two or more parts as ((part, count), ...), for set captures."""


def by_value(table: list[int]) -> tuple[list[list[int]], int]:
    """The table cards grouped by Scopa value (index 0 unused) and the counts as one key."""
    groups: list[list[int]] = [[] for _ in range(MAX_VALUE + 1)]
    key = 0
    for card in table:
        groups[VALUE[card]].append(card)
        key += KEY_STEP[card]
    return groups, key


KEY_STEP: Final = tuple(5 ** VALUE[card] for card in range(DECK_SIZE))
"""Each value's count of table cards is a base-5 digit of the table's key."""
_LOWER: Final = tuple(5 ** value for value in range(MAX_VALUE + 1))
"""Taking the key modulo ``_LOWER[value]`` keeps the counts of the values below ``value``."""
_LAY_DOWN = [0]
_FEASIBLE: dict[int, tuple[tuple[tuple[int, int], ...], ...]] = {}


def _feasible(groups: list[list[int]], key: int, value: int
              ) -> tuple[tuple[tuple[int, int], ...], ...]:
    """The splits of ``value`` into parts that the table's value counts allow (memoized)."""
    memo = key % _LOWER[value] * (MAX_VALUE + 1) + value
    splits = _FEASIBLE.get(memo)
    if splits is None:
        splits = _FEASIBLE[memo] = tuple(
            split for split in PARTITIONS[value]
            if all(len(groups[part]) >= count for part, count in split))
    return splits


def sum_sets(groups: list[list[int]], key: int, value: int) -> list[tuple[int, ...]]:
    """The sets of two or more table cards (sorted) whose values add up to ``value``."""
    return _expand(groups, _feasible(groups, key, value))


def _expand(groups: list[list[int]], splits: tuple[tuple[tuple[int, int], ...], ...]
            ) -> list[tuple[int, ...]]:
    """The card sets (sorted) of each split into values: every choice of cards per value."""
    found: list[tuple[int, ...]] = []
    for split in splits:
        if len(split) == 1:
            part, count = split[0]
            found.extend(combinations(groups[part], count))
            continue
        choices = [combinations(groups[part], count) for part, count in split]
        for pick in product(*choices):
            found.append(tuple(sorted(chain.from_iterable(pick))))
    return found



def capture_offsets(groups: list[list[int]], key: int, value: int, min_cards: bool,
                    ace_takes_all: bool) -> list[int]:
    """What each capture a card of ``value`` may make adds to its id (0: no capture).

    Equal cards first, the whole table for an ace (``ace_takes_all``), else the sets of that
    sum (only the smallest ones with ``min_cards``).
    """
    singles = groups[value]
    if singles:
        return [SINGLE_OFFSET[other] for other in singles]
    if value == 1 and ace_takes_all and key:
        return [DECK_SIZE * TAKE_ALL]
    splits = _FEASIBLE.get(key % _LOWER[value] * (MAX_VALUE + 1) + value)
    if splits is None:
        splits = _feasible(groups, key, value)
    if not splits:
        return _LAY_DOWN
    sets = _expand(groups, splits)
    if min_cards:
        fewest = min(len(cards) for cards in sets)
        sets = [cards for cards in sets if len(cards) == fewest]
    return [DECK_SIZE * (1 + SET_INDEX[cards]) for cards in sets]
