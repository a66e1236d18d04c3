"""Scopa capture sets: the canonical table of card sets worth 1..10 and the action encoding.

Every set of Italian cards whose Scopa values add up to at most 10 (4050 sets, singles first)
has a fixed index in ``CAPTURE_SETS``. An action is ``card + 40 * code`` where ``code`` is 0 to
lay the card down, ``1 + index`` to take the set ``CAPTURE_SETS[index]``, and ``TAKE_ALL`` for
an ace that takes the whole table (``asso_piglia_tutto``).

The captures a card may make are found on the table as a card mask and its cards in value
order (``capture_offsets``): a search over the table that walks a prebuilt tree of the sets
(``set_tree``), so each set it finds is already its code. ``reference_offsets`` is the plain
version, trying every subset of the table, which the tests compare with it.
"""

from __future__ import annotations

from itertools import combinations
from typing import Final

from mypy_extensions import i64

from arena.games.cards import CARD_BIT, ITALIAN_40, SCOPA_VALUE

VALUE: Final = ITALIAN_40.per_card(SCOPA_VALUE)
DECK_SIZE: Final = ITALIAN_40.size
MAX_VALUE: Final = 10
SUITS: Final = ITALIAN_40.suits


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
TAKE_ALL_OFFSET: Final = DECK_SIZE * TAKE_ALL
"""What taking the whole table adds to the played ace's id."""
SINGLE_OFFSET: Final = tuple(DECK_SIZE * (1 + SET_INDEX[(card,)]) for card in range(DECK_SIZE))
"""Per table card, what taking it alone adds to the played card's id: ``DECK_SIZE * (card + 1)``,
the single cards coming first in ``CAPTURE_SETS``, by id."""
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


# --- the table in value order, and the tree of the sets ----------------------------------

VALUE_KEY: Final[tuple[int, ...]] = tuple(
    (VALUE[card] - 1) * SUITS + ITALIAN_40.suit(card) for card in range(DECK_SIZE))
"""Per card, its place in value order (value, then suit): the table's cards are searched by
these keys, ascending, so the search stops at the first card worth more than it needs."""
KEY_VALUE: Final[tuple[int, ...]] = tuple(key // SUITS + 1 for key in range(DECK_SIZE))
"""Per value-order key, the Scopa value of its card."""
VALUE_CARDS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(card for card in range(DECK_SIZE) if VALUE[card] == value)
    for value in range(MAX_VALUE + 1))
"""Per value, its cards by id (index 0 unused)."""
VALUE_MASK: Final[tuple[int, ...]] = tuple(
    sum(CARD_BIT[card] for card in cards) for cards in VALUE_CARDS)
"""Per value, the card mask of its cards."""


def _set_tree() -> tuple[int, ...]:
    """``[code * DECK_SIZE + key]``: the code of the set ``code`` (0: none) grown by the card
    of value-order ``key``, when that card comes after the set's cards in value order and the
    sum stays within 10; else 0."""
    child = [0] * ((TAKE_ALL + 1) * DECK_SIZE)
    for index, cards in enumerate(CAPTURE_SETS):
        last = max(cards, key=VALUE_KEY.__getitem__)
        parent = SET_INDEX[tuple(card for card in cards if card != last)] + 1 if len(
            cards) > 1 else 0
        child[parent * DECK_SIZE + VALUE_KEY[last]] = index + 1
    return tuple(child)


_TREE: Final[list[tuple[int, ...]]] = []
"""The tree of the sets (``_set_tree``), made at the first search: about 160,000 entries, which
every process that imports the game would otherwise build."""


def set_tree() -> tuple[int, ...]:
    """The tree of the sets: ``[code * DECK_SIZE + key]`` is the code of set ``code`` grown by
    the card of value-order ``key`` (0: none)."""
    if not _TREE:
        _TREE.append(_set_tree())
    return _TREE[0]


_LAY_DOWN: Final[list[int]] = [0]


def _grow(tree: tuple[int, ...], keys: list[int], start: int, code: int, need: int,
          found: list[int]) -> None:
    """Add to ``found`` the offsets of the sets that extend set ``code`` with table cards
    from ``keys[start:]`` (value-order keys, ascending) worth ``need`` more, walking
    ``tree`` (``set_tree``)."""
    for index in range(start, len(keys)):
        key = keys[index]
        value = KEY_VALUE[key]
        if value >= need:
            if value == need:
                found.append(DECK_SIZE * tree[code * DECK_SIZE + key])
                continue
            return
        if need - value >= value:
            _grow(tree, keys, index + 1, tree[code * DECK_SIZE + key], need - value, found)


_SUMS: Final = (1 << MAX_VALUE + 1) - 1
"""The bits of the sums 0 to 10."""


def set_sums(keys: list[int]) -> i64:
    """Bit ``v`` set when some set of two or more table cards (value-order keys ``keys``) adds
    up to ``v`` (at most 10): a search for ``v`` that would find nothing is skipped."""
    one: i64 = 0
    two: i64 = 0
    for key in keys:
        value = KEY_VALUE[key]
        two = (two | one << value) & _SUMS
        one = (one | one << value | CARD_BIT[value]) & _SUMS
    return two


def set_offsets(keys: list[int], value: int, min_cards: bool) -> list[int]:
    """What taking each set of two or more table cards worth ``value`` adds to a played card's
    id (none: empty), the table's value-order keys being ``keys`` (ascending) and holding no
    card of that value; only the sets of fewest cards with ``min_cards``."""
    found: list[int] = []
    _grow(set_tree(), keys, 0, 0, value, found)
    if min_cards and found:
        fewest = MAX_VALUE
        for offset in found:
            fewest = min(fewest, len(CAPTURE_SETS[offset // DECK_SIZE - 1]))
        return [offset for offset in found
                if len(CAPTURE_SETS[offset // DECK_SIZE - 1]) == fewest]
    return found


def capture_offsets(table: i64, keys: list[int], value: int, min_cards: bool,
                    ace_takes_all: bool) -> list[int]:
    """What each capture a card of ``value`` may make adds to its id ([0]: none), on the table
    ``table`` (a card mask) whose value-order keys are ``keys`` (ascending).

    Equal cards first, the whole table for an ace (``ace_takes_all``), else the sets of that
    sum (only the smallest ones with ``min_cards``).
    """
    if table & VALUE_MASK[value]:
        return [SINGLE_OFFSET[other] for other in VALUE_CARDS[value] if table & CARD_BIT[other]]
    if value == 1 and ace_takes_all and table:
        return [TAKE_ALL_OFFSET]
    return set_offsets(keys, value, min_cards) or _LAY_DOWN


def reference_offsets(table: list[int], value: int, min_cards: bool,
                      ace_takes_all: bool) -> list[int]:
    """``capture_offsets`` worked out plainly from every subset of the table, sorted."""
    singles = [other for other in table if VALUE[other] == value]
    if singles:
        return sorted(SINGLE_OFFSET[other] for other in singles)
    if value == 1 and ace_takes_all and table:
        return [TAKE_ALL_OFFSET]
    sets = [subset for size in range(2, len(table) + 1)
            for subset in combinations(sorted(table), size)
            if sum(VALUE[other] for other in subset) == value]
    if min_cards and sets:
        fewest = min(len(subset) for subset in sets)
        sets = [subset for subset in sets if len(subset) == fewest]
    return sorted(DECK_SIZE * (1 + SET_INDEX[subset]) for subset in sets) or [0]
