"""Checkers every game passes unchanged; each raises AssertionError naming the problem."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from arena.games.api import Event, EventKind, Game, Observation, State
from arena.games.cards import HIDDEN
from arena.games.params import IllegalActionError
from arena.games.testing.playouts import digest, replay, snapshot, where

Observe = Callable[[State[Any], int], Observation]

PLAY_KINDS = (EventKind.PLAY, EventKind.PLAY_FACE_DOWN)
WON_KINDS = (EventKind.TRICK, EventKind.CAPTURE)
"""Events whose cards a side wins; every other card of a hand is listed by its HAND_END."""


def observe(state: State[Any], seat: int) -> Observation:
    """The observation the game gives a seat (the default for checkers taking ``observe``)."""
    return state.observation(seat)


def serialized(observation: Observation) -> str:
    """The canonical serialized form of an observation."""
    return json.dumps(observation.to_dict(), sort_keys=True, allow_nan=False)


def has_dead_hand(game: Game) -> bool:
    """True for a game with a dead hand."""
    return game.dead_hand


def masked_form(real: Event, mine: Event) -> bool:
    """True when ``mine`` is ``real`` as given, or with its cards hidden and values dropped."""
    return ((mine.kind, mine.seat) == (real.kind, real.seat)
            and mine.cards in (real.cards, (HIDDEN,) * len(real.cards))
            and mine.values in (real.values, ()))


def align(view: Sequence[Event], full: Sequence[Event]) -> list[Event | None] | None:
    """A seat's event log matched, in order, to the full log (None where the seat has no entry).

    A seat's log is the full log with cards and values masked, possibly leaving out events the
    seat cannot know of at all (another table's); None when it is not such a log.
    """
    aligned: list[Event | None] = [None] * len(full)
    index = 0
    for mine in view:
        while index < len(full) and not masked_form(full[index], mine):
            index += 1
        if index == len(full):
            return None
        aligned[index] = mine
        index += 1
    return aligned


# --- legality --------------------------------------------------------------------------------

def check_legal_set(state: State[Any]) -> None:
    """The player to act has a non-empty, sorted set of unique int actions; none when over."""
    legal = state.legal_actions()
    player = state.current_player()
    if state.is_terminal():
        assert legal == [], f"{where(state)}: terminal state with legal actions {legal}"
        return
    assert 0 <= player < state.game.num_players, f"{where(state)}: current player {player}"
    assert legal, f"{where(state)}: seat {player} to act has no legal action"
    assert all(type(action) is int for action in legal), f"{where(state)}: non-int in {legal}"
    assert legal == sorted(set(legal)), f"{where(state)}: legal actions not sorted unique {legal}"


def _names_number(message: str, number: int) -> bool:
    """True when ``number`` appears in ``message`` as a whole token."""
    return re.search(rf"(?<![\w-]){re.escape(str(number))}(?!\w)", message) is not None


def illegal_candidates(state: State[Any], rng: random.Random) -> list[int]:
    """Actions that are not legal now: below, above and (when any) between the legal ones."""
    legal = state.legal_actions()
    top = max(legal, default=0)
    gaps = sorted(set(range(top)) - set(legal))
    return [-1, top + 1, *([rng.choice(gaps)] if gaps else [])]


def check_illegal_rejected(state: State[Any], rng: random.Random) -> None:
    """An illegal action raises IllegalActionError naming it and the legal set; nothing changes."""
    legal = state.legal_actions()
    actor = [state.current_player()] if not state.is_terminal() else []
    before = snapshot(state, actor)
    candidates = illegal_candidates(state, rng)
    for action in candidates:
        try:
            state.apply_action(action)
        except IllegalActionError as error:
            message = str(error)
        else:
            raise AssertionError(f"{where(state)}: illegal action {action} was accepted")
        assert _names_number(message, action), f"message does not name {action}: {message!r}"
        unnamed = [a for a in legal if not _names_number(message, a)]
        assert not unnamed, f"message does not name legal actions {unnamed}: {message!r}"
    assert snapshot(state, actor) == before, (
        f"{where(state)}: rejecting the illegal actions {candidates} changed the state")


# --- hands and scores ------------------------------------------------------------------------

def hand_segments(events: Sequence[Event]) -> list[tuple[int, list[int], bool]]:
    """Stretches of overlapping hands: (first HAND_START index, HAND_END indices, closed).

    Hands that overlap (several tables at once) form one stretch; a stretch is closed when
    every hand begun in it has ended.
    """
    segments: list[tuple[int, list[int], bool]] = []
    depth = 0
    for index, event in enumerate(events):
        if event.kind == EventKind.HAND_START:
            if depth == 0:
                segments.append((index, [], False))
            depth += 1
        elif event.kind == EventKind.HAND_END:
            assert depth > 0, f"HAND_END at event {index} without a HAND_START"
            depth -= 1
            start, ends, _ = segments[-1]
            segments[-1] = (start, [*ends, index], depth == 0)
    return segments


def check_hand_accounting(game: Game, events: Sequence[Event]) -> None:
    """Per hand: cards played once; won and HAND_END cards are the deck; points add up."""
    deck = set(game.deck.cards)
    expected_values = game.num_players + (1 if has_dead_hand(game) else 0)
    for start, ends, closed in hand_segments(events):
        stop = ends[-1] + 1 if closed else len(events)
        played: Counter[int] = Counter()
        counted: Counter[int] = Counter()
        for event in events[start:stop]:
            if event.kind in PLAY_KINDS:
                played.update(card for card in event.cards if card != HIDDEN)
            elif event.kind in WON_KINDS:
                counted.update(event.cards)
        again = sorted(card for card, count in played.items() if count > 1)
        assert not again, f"hand at event {start}: cards played more than once {again}"
        for end in ends:
            final = events[end]
            counted.update(final.cards)
            assert len(final.values) == expected_values, (
                f"HAND_END at event {end} has {len(final.values)} values for "
                f"{game.num_players} seats (a game with a dead hand sets Game.dead_hand = True)")
            if game.points_total is not None:
                assert game.card_points is not None, "points_total is set but card_points is not"
                left = sum(game.card_points[card] for card in final.cards)
                assert sum(final.values) + left == game.points_total, (
                    f"HAND_END at event {end}: card points {list(final.values)} + {left} left "
                    f"over != {game.points_total}")
        if not closed:
            continue
        missing = sorted(deck - set(counted))
        twice = sorted(card for card, count in counted.items() if count > 1)
        foreign = sorted(set(counted) - deck)
        assert not (missing or twice or foreign), (
            f"hand at event {start}: won and HAND_END cards are not the deck once each: "
            f"missing {missing}, twice {twice}, not in the deck {foreign}")


def check_final_returns(state: State[Any]) -> None:
    """A finished match has zero-sum returns."""
    returns = state.returns()
    assert abs(sum(returns)) < 1e-9, f"{where(state)}: returns {returns} are not zero-sum"


# --- observations ----------------------------------------------------------------------------

def check_observation(state: State[Any], seat: int, observation: Observation) -> None:
    """A well-formed observation: its seat's legal set, a sorted hand, a masked event log."""
    game = state.game
    context = f"{where(state)}, seat {seat}"
    assert (observation.game, observation.seat, observation.num_seats) == (
        game.id, seat, game.num_players), f"{context}: wrong game, seat or seat count"
    acting = state.current_player()
    assert observation.current_player in (acting, HIDDEN) or seat == acting, (
        f"{context}: current player {observation.current_player}, not {acting}")
    expected = tuple(state.legal_actions()) if seat == acting else ()
    assert observation.legal_actions == expected, (
        f"{context}: observation legal actions {observation.legal_actions} != {expected}")
    assert list(observation.hand) == sorted(observation.hand), f"{context}: hand not sorted"
    assert all(0 <= card < game.deck.size for card in observation.seen_cards()), (
        f"{context}: a card id outside the deck")
    assert align(observation.events, state.full_events()) is not None, (
        f"{context}: the event log is not the full log masked (and perhaps thinned), in order")


def current_hand(observation: Observation) -> Observation:
    """The observation with its event log cut to the current stretch of hands."""
    segments = hand_segments(observation.events)
    first = segments[-1][0] if segments else 0
    return replace(observation, events=observation.events[first:])


def located_cards(observation: Observation) -> set[int]:
    """Cards whose place the seat knows this hand: seen cards, less cards only named (calls)."""
    view = current_hand(observation)
    events = tuple(event for event in view.events if event.kind != EventKind.CALL)
    return replace(view, events=events, called_card=HIDDEN).seen_cards()


def check_no_foreign_cards(state: State[Any], observe: Observe = observe) -> None:
    """No observation shows another seat's hand cards, except as the game shows them.

    Another seat's DEAL events stay masked unless the game shows that hand (``visible_hands``),
    and the table and trick never hold a card that is still in a hand.
    """
    n = state.game.num_players
    hands = [set(state.observation(seat).hand) for seat in range(n)]
    for seat in range(n):
        view = current_hand(observe(state, seat))
        shown = {card for _, cards in view.visible_hands for card in cards}
        on_table = set(view.table) | {card for _, card in view.trick}
        for other in range(n):
            if other == seat:
                continue
            exposed = sorted(hands[other] & on_table)
            assert not exposed, (
                f"{where(state)}: seat {seat} sees seat {other}'s hand cards {exposed} on the "
                "table")
        for event in view.events:
            if event.kind != EventKind.DEAL or event.seat == seat or not 0 <= event.seat < n:
                continue
            dealt = sorted((set(event.cards) & hands[event.seat]) - shown)
            assert not dealt, (
                f"{where(state)}: seat {seat} sees seat {event.seat}'s hand cards {dealt} "
                f"dealt to it")


# --- hidden information ----------------------------------------------------------------------

def sees_same_cards(original: Observation, twin: State[Any]) -> bool:
    """True when every card the seat saw in an event is in the same event of the twin's log."""
    full = iter(twin.full_events())
    for event in original.events:
        if all(card == HIDDEN for card in event.cards):
            continue
        match = next((other for other in full if (other.kind, other.seat) == (
            event.kind, event.seat)), None)
        if match is None or match.cards != event.cards:
            return False
    return True


def resampled_deals(state: State[Any], seat: int, rng: random.Random,
                    fixed: frozenset[int]) -> list[tuple[int, ...]]:
    """The deals with the current one's cards unknown to ``seat`` permuted among their places.

    Cards move only among places of the same deck copy, since a game with several deck copies
    (one per table, say) may route each copy by where its cards lie in the order.
    """
    deck = state.game.deck
    deals = state.deals()
    order = list(deals[-1])
    keep = located_cards(state.observation(seat)) | fixed
    for copy in range(deck.copies):
        places = [index for index, card in enumerate(order)
                  if card not in keep and deck.copy(card) == copy]
        cards = [order[index] for index in places]
        rng.shuffle(cards)
        for index, card in zip(places, cards, strict=True):
            order[index] = card
    return [*deals[:-1], tuple(order)]


def check_resample(state: State[Any], seat: int, rng: random.Random, fixed: frozenset[int],
                   observe: Observe = observe) -> str:
    """Resample what ``seat`` has not seen and replay; its observation must not change.

    Returns ``illegal`` or ``inconsistent`` (the resample contradicts what the seat saw, or
    chance turned out differently), ``unchanged`` (nothing to permute), ``private`` (checked;
    no other seat's observation changed either) or ``checked`` (checked, and some other
    seat's observation did change, so a leak of what changed would have been seen).
    """
    game = state.game
    deals = resampled_deals(state, seat, rng, fixed)
    original = observe(state, seat)
    twin = game.new_initial_state(state.seed(), deal=deals)
    for action in state.history():
        if action not in twin.legal_actions():
            return "illegal"
        twin.apply_action(action)
    if not sees_same_cards(original, twin):
        return "inconsistent"
    resampled = observe(twin, seat)
    if resampled != original or serialized(resampled) != serialized(original):
        changed = [name for name, value in original.to_dict().items()
                   if resampled.to_dict()[name] != value]
        raise AssertionError(
            f"{where(state)}: seat {seat}'s observation depends on cards it has not seen "
            f"(fields {changed}); resampled deal {list(deals[-1])}")
    if deals == state.deals():
        return "unchanged"
    others = [s for s in range(game.num_players) if s != seat]
    if any(observe(twin, s) != observe(state, s) for s in others):
        return "checked"
    return "private"


# --- clones ----------------------------------------------------------------------------------

def check_clone(state: State[Any], rng: random.Random) -> None:
    """A clone is equal, independent of the original, and continues identically."""
    before = snapshot(state)
    twin = state.clone()
    assert snapshot(twin) == before, f"{where(state)}: the clone differs from the original"
    actions = []
    while not twin.is_terminal():
        action = rng.choice(twin.legal_actions())
        twin.apply_action(action)
        actions.append(action)
    assert snapshot(state) == before, f"{where(state)}: playing on the clone changed the original"
    for action in actions:
        state.apply_action(action)
    assert digest(state) == digest(twin), f"{where(state)}: the clone continued differently"


# --- determinism -----------------------------------------------------------------------------

def check_replay(state: State[Any], stops: Sequence[int]) -> None:
    """Replaying a match's actions from its seed, or from its own deals, gives the same states."""
    game = state.game
    actions = state.history()
    for stop in sorted({*stops, len(actions)}):
        first = replay(game, state.seed(), actions[:stop])
        second = replay(game, state.seed(), actions[:stop])
        assert first is not None and second is not None, (
            f"{where(state)}: replaying the first {stop} actions from the seed hit an illegal one")
        assert snapshot(first) == snapshot(second), (
            f"{where(state)}: two replays of the first {stop} actions differ")
    again = replay(game, state.seed(), actions)
    assert again is not None and digest(again) == digest(state), (
        f"{where(state)}: replaying the actions from the seed gives another match")
    injected = replay(game, state.seed(), actions, deal=state.deals())
    assert injected is not None and snapshot(injected) == snapshot(state), (
        f"{where(state)}: injecting the match's own deals gives another match")


def check_seeds_deal_differently(game: Game, seeds: Iterable[int]) -> None:
    """Different seeds give different first deals."""
    first: dict[tuple[int, ...], int] = {}
    for seed in seeds:
        deal = game.new_initial_state(seed).deals()[0]
        assert deal not in first, f"{game!r}: seeds {first.get(deal)} and {seed} deal the same"
        first[deal] = seed


def out_of_play(game: Game, states: Iterable[State[Any]]) -> frozenset[int]:
    """Cards the rules set aside in these matches: seen in no event but HAND_END."""
    used: set[int] = set()
    for state in states:
        for event in state.full_events():
            if event.kind != EventKind.HAND_END:
                used.update(event.cards)
    return frozenset(set(game.deck.cards) - used)
