"""Structured action meanings: every legal action of every game says exactly what it does.

Over random playouts of every configuration, each legal action's ``action_meaning`` is checked
against the acting seat's observation (its cards are ones the seat holds or sees, its captures
lie on the table, no two legal actions mean the same) and the chosen action against the events
it produces. A resampling test shows that meanings reveal nothing the acting seat may not know,
and a table of exact meanings pins down each game's encoding.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import replace

import pytest

from arena.games import (
    ActionKind,
    ActionMeaning,
    Event,
    EventKind,
    Game,
    Observation,
    State,
    load_game,
)
from arena.games.cards import FRENCH_52, ITALIAN_40, Rank, Suit
from arena.games.chiamata import ChiamataGame
from arena.games.chiamata_auction import BID_4_OBBLIGATO, BID_POINTS, BID_RANK, called_rank
from arena.games.chiamata_auction import PASS as CHIAMATA_PASS
from arena.games.params import ParamValue
from arena.games.scopa_captures import capture_action, take_all_action
from arena.games.testing import check_resample, pick_stops, states_at, where

from .harness import (
    CONFIG_IDS,
    CONFIGS,
    HIDDEN_CONFIG_IDS,
    HIDDEN_CONFIGS,
    Chooser,
    Config,
    config_id,
    make_game,
    playout,
    profile,
    seeds_within,
)

SWEEP_DECISIONS = 1000
"""Decisions per configuration whose every legal action is checked (between 2 and 30 playouts)."""
RESAMPLE_SEEDS = 4
STOPS_PER_PLAYOUT = 3
STOP_CAP = 150
"""Resampled states are taken within the first this many decisions (replays stay short)."""

CARD_KINDS = frozenset({ActionKind.PLAY, ActionKind.PLAY_FACE_DOWN, ActionKind.CAPTURE,
                        ActionKind.GIVE, ActionKind.DISCARD, ActionKind.SWAP})
"""Kinds whose ``cards`` the acting seat holds (or sees face up) and gives up."""
EFFECTS: dict[ActionKind, tuple[EventKind, ...]] = {
    ActionKind.PLAY: (EventKind.PLAY,),
    ActionKind.PLAY_FACE_DOWN: (EventKind.PLAY_FACE_DOWN,),
    ActionKind.CAPTURE: (EventKind.PLAY,),
    ActionKind.SWAP: (EventKind.SWAP,),
    ActionKind.GIVE: (EventKind.SWAP, EventKind.PASS),
    ActionKind.DISCARD: (EventKind.SWAP, EventKind.PLAY, EventKind.PLAY_FACE_DOWN),
    ActionKind.PASS: (EventKind.PASS,),
    ActionKind.BID: (EventKind.BID,),
    ActionKind.CALL: (EventKind.CALL, EventKind.COMMIT),
    ActionKind.DECLARE: (EventKind.DECLARE,),
    ActionKind.DRAW: (EventKind.DRAW,),
    ActionKind.KEEP: (EventKind.PASS,),
    ActionKind.REDEAL: (EventKind.REDEAL,),
}
"""The events of the acting seat an action of each kind logs (one at least; a card kind logs
each of its cards in one of them, as the acting seat sees it)."""
HAND_OVER = (EventKind.HAND_END, EventKind.REDEAL)
each_config = pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
each_hidden_config = pytest.mark.parametrize("config", HIDDEN_CONFIGS, ids=HIDDEN_CONFIG_IDS)


def built_in(game: Game) -> bool:
    """True for a game of this package (plugins may keep the default meanings)."""
    return type(game).__module__.startswith("arena.games.")


def visible_cards(observation: Observation) -> set[int]:
    """The cards a seat may act with: its hand, hands shown to it, the face-up card, the table."""
    cards = set(observation.hand) | set(observation.table) | {observation.trump_card}
    for _, hand in observation.visible_hands:
        cards.update(hand)
    return cards


def problem(state: State, action: int, meaning: ActionMeaning, text: str) -> str:
    """A failure message about one action's meaning (built only on failure: ``where`` is slow)."""
    return f"{where(state)}, seat {state.current_player()}, action {action}: {text}: {meaning}"


def check_meanings(state: State) -> dict[int, ActionMeaning]:
    """Every legal action's meaning is exact, consistent with the seat's view, and unique."""
    observation = state.observation(state.current_player())
    visible = visible_cards(observation)
    table = set(observation.table)
    strict = built_in(state.game)
    meanings: dict[int, ActionMeaning] = {}
    seen: dict[tuple[object, ...], int] = {}
    for action in state.legal_actions():
        meaning = state.action_meaning(action)
        assert type(meaning) is ActionMeaning, problem(state, action, meaning, "wrong type")
        assert meaning.label == state.action_to_string(action), (
            problem(state, action, meaning, "label is not action_to_string"))
        assert not strict or meaning.kind != ActionKind.OTHER, (
            problem(state, action, meaning, "kind OTHER in a built-in game"))
        if meaning.kind in CARD_KINDS:
            assert meaning.cards, problem(state, action, meaning, "no cards")
            assert visible.issuperset(meaning.cards), (
                problem(state, action, meaning, "cards the seat neither holds nor sees"))
        assert table.issuperset(meaning.captured), (
            problem(state, action, meaning, "captures cards not on the table"))
        assert not meaning.captured or meaning.kind == ActionKind.CAPTURE, (
            problem(state, action, meaning, "captured cards without a capture"))
        key = (meaning.kind, meaning.cards, meaning.captured, meaning.value, meaning.suit,
               meaning.rank, meaning.table)
        assert key not in seen, (
            problem(state, action, meaning, f"means the same as action {seen.get(key)}"))
        seen[key] = action
        meanings[action] = meaning
    return meanings


def check_effect(state: State, seat: int, start: int, meaning: ActionMeaning) -> None:
    """The action just applied logged what its meaning says, as the acting seat sees it."""
    events = state.events_since(seat, start)

    def context() -> str:
        """The start of a failure message (built only on failure)."""
        return f"{where(state)}, seat {seat} chose {meaning}; events {events}"

    kinds = EFFECTS.get(meaning.kind, ())
    mine = [event for event in events if event.seat == seat and event.kind in kinds]
    assert mine or not kinds, f"{context()}: no {[kind.name for kind in kinds]} event"
    for card in meaning.cards if meaning.kind in CARD_KINDS else ():
        assert any(card in event.cards for event in mine), f"{context()}: card {card} not shown"
    if meaning.kind == ActionKind.CAPTURE:
        taken = {*meaning.captured, *meaning.cards}
        assert any(event.kind == EventKind.CAPTURE and taken <= set(event.cards)
                   for event in events), f"{context()}: no CAPTURE of {sorted(taken)}"
    if meaning.kind in CARD_KINDS and not any(event.kind in HAND_OVER for event in events):
        kept = set(meaning.cards) & set(state.observation(seat).hand)
        assert not kept, f"{context()}: cards {sorted(kept)} are still in the hand"


@each_config
def test_every_legal_action_has_an_exact_meaning(config: Config) -> None:
    """At every decision of random playouts, every legal action's meaning checks out."""
    game = make_game(config)
    for seed in seeds_within(config, SWEEP_DECISIONS, 2, 30):
        state = game.new_initial_state(seed)
        chooser = Chooser(game, seed, seed % 2 == 1)
        while not state.is_terminal():
            meanings = check_meanings(state)
            seat = state.current_player()
            action = chooser.choose(state)
            start = state.event_count()
            state.apply_action(action)
            check_effect(state, seat, start, meanings[action])


KEPT_SWEEP_DECISIONS = 300
"""Decisions per configuration whose meanings are checked against ones made afresh."""


@each_config
def test_a_meaning_the_game_keeps_is_the_one_made_afresh(config: Config) -> None:
    """A game may keep meanings for its states to share (``Game.meanings``, under a key of
    its own): at every legal action of playouts, after the game has kept what the earlier
    decisions and matches made, the meaning given equals one made with nothing kept, and
    asking again gives the same instance when the game keeps it."""
    game = make_game(config)
    for seed in seeds_within(config, KEPT_SWEEP_DECISIONS, 2, 10):
        state = game.new_initial_state(seed)
        chooser = Chooser(game, seed, seed % 2 == 1)
        while not state.is_terminal():
            for action in state.legal_actions():
                kept = dict(game.meanings)
                game.meanings.clear()
                fresh = state.action_meaning(action)
                game.meanings.clear()
                game.meanings.update(kept)
                given = state.action_meaning(action)
                assert given == fresh, f"{config_id(config)} seed {seed}: action {action}"
                if game.meanings:
                    assert state.action_meaning(action) is given
            state.apply_action(chooser.choose(state))


def with_meanings(state: State, seat: int) -> Observation:
    """The seat's observation, carrying the meanings of its legal actions when it is to act."""
    observation = state.observation(seat)
    if seat != state.current_player():
        return observation
    meanings = tuple(state.action_meaning(action) for action in observation.legal_actions)
    return replace(observation, game=f"{observation.game} {meanings!r}")


@each_hidden_config
def test_meanings_ignore_unseen_cards(config: Config) -> None:
    """Resampling the cards the acting seat has not seen changes no meaning of its actions."""
    game = make_game(config)
    fixed = profile(config_id(config)).out_of_play
    outcomes: Counter[str] = Counter()
    for seed in range(RESAMPLE_SEEDS):
        rng = random.Random(seed)
        actions = playout(game, seed).history()
        stops = pick_stops(rng, len(actions), STOPS_PER_PLAYOUT, STOP_CAP)
        for state in states_at(game, seed, actions, stops):
            seat = state.current_player()
            outcomes[check_resample(state, seat, rng, fixed, observe=with_meanings)] += 1
    assert outcomes["checked"] + outcomes["private"], f"nothing was resampled: {dict(outcomes)}"


# --- exact meanings ------------------------------------------------------------------------

Setup = Callable[[State], None]


def card(text: str) -> int:
    """An Italian card id from its compact name."""
    return ITALIAN_40.parse(text)


def fresh(state: State) -> None:
    """Leave the new state as dealt."""


def chiamo_then_call(state: State) -> None:
    """Calabresella: the first seat bids chiamo, the others pass (the call comes next)."""
    for action in (41, 40, 40):
        state.apply_action(action)


def pass_one_card(state: State) -> None:
    """Tressette a non prendere: the first two passes are made (the set-aside comes next)."""
    for _ in range(2):
        state.apply_action(state.legal_actions()[0])


EXACT: list[tuple[str, int, dict[str, ParamValue], Setup, int, ActionMeaning]] = [
    ("briscola-31", 2, {}, fresh, 40,
     ActionMeaning(ActionKind.DECLARE, value=31, label="declare-31")),
    ("briscola", 2, {}, fresh, card("7D"),
     ActionMeaning(ActionKind.PLAY, cards=(card("7D"),), label="7D")),
    ("briscola-chiamata", 5, {}, fresh, CHIAMATA_PASS,
     ActionMeaning(ActionKind.PASS, label="pass")),
    ("briscola-chiamata", 5, {}, fresh, BID_4_OBBLIGATO,
     ActionMeaning(ActionKind.BID, value=91, rank=Rank.QUATTRO, label="bid 4 obbligato")),
    ("briscola-chiamata", 5, {}, fresh, BID_RANK + Rank.QUATTRO,
     ActionMeaning(ActionKind.BID, value=84, rank=Rank.QUATTRO, label="bid 4")),
    ("briscola-chiamata", 5, {}, fresh, BID_RANK + Rank.ASSO,
     ActionMeaning(ActionKind.BID, value=81, rank=Rank.ASSO, label="bid A")),
    ("briscola-chiamata", 5, {}, fresh, BID_POINTS + 63,
     ActionMeaning(ActionKind.BID, value=63, rank=Rank.DUE, label="bid 2 a 63")),
    ("briscola-chiamata", 6, {}, fresh, BID_POINTS + 65,
     ActionMeaning(ActionKind.BID, value=65, rank=Rank.QUATTRO, label="bid 4 a 65")),
    ("briscola-chiamata", 5, {}, fresh, 352,
     ActionMeaning(ActionKind.CALL, suit=Suit.BASTONI, label="suit bastoni")),
    ("briscola-chiamata-punti", 5, {}, fresh, BID_POINTS + 75,
     ActionMeaning(ActionKind.BID, value=75, label="bid 75")),
    ("briscola-chiamata-punti", 5, {}, fresh, 360 + card("3D"),
     ActionMeaning(ActionKind.CALL, cards=(card("3D"),), suit=Suit.DENARI, rank=Rank.TRE,
                   label="call 3D")),
    ("briscola-chiamata-carta", 5, {"facedown_optional": True}, fresh, 400 + card("3D"),
     ActionMeaning(ActionKind.PLAY_FACE_DOWN, cards=(card("3D"),), label="face down 3D")),
    ("misere", 4, {}, fresh, FRENCH_52.size + 3, ActionMeaning(ActionKind.BID, value=3,
                                                              label="bid 3")),
    ("misere", 4, {}, fresh, 12, ActionMeaning(ActionKind.PLAY, cards=(12,), label="AC")),
    ("tressette", 4, {}, fresh, 40,
     ActionMeaning(ActionKind.DECLARE, cards=(card("AD"), card("AB"), card("AS")), value=0,
                   label="accuso 3A-noC")),
    ("tressette", 4, {}, fresh, 53,
     ActionMeaning(ActionKind.DECLARE, cards=(card("2C"), card("2D"), card("2B"), card("2S")),
                   value=13, label="accuso 4x2")),
    ("tressette", 4, {}, fresh, 55,
     ActionMeaning(ActionKind.DECLARE, cards=(card("AC"), card("2C"), card("3C")), value=15,
                   label="accuso napoletana-C")),
    ("tressette", 4, {}, fresh, 59, ActionMeaning(ActionKind.KEEP, label="keep")),
    ("tressette", 4, {}, fresh, 60, ActionMeaning(ActionKind.REDEAL, label="monte")),
    ("tressette", 4, {"signals": "all"}, fresh, 61 + 40 + card("6C"),
     ActionMeaning(ActionKind.PLAY, cards=(card("6C"),), value=2, label="6C+striscio")),
    ("tressette-toro", 6, {}, fresh, 120 + 21 + 19,
     ActionMeaning(ActionKind.KEEP, table=1, label="right:keep")),
    ("tressette-toro", 6, {}, fresh, 120 + 42 + 20,
     ActionMeaning(ActionKind.REDEAL, table=2, label="corners:monte")),
    ("tressette-toro", 6, {}, fresh, 120 + 42,
     ActionMeaning(ActionKind.DECLARE, cards=(90, 100, 110), value=0, table=2,
                   label="corners:accuso 3A-noC")),
    ("tressette-toro", 6, {}, fresh, 85,
     ActionMeaning(ActionKind.PLAY, cards=(85,), table=2, label="6Cc")),
    ("tressette-toro", 6, {"signals": "all"}, fresh, 183 + 240 + 45,
     ActionMeaning(ActionKind.PLAY, cards=(45,), value=3, table=1, label="6Cb+volo")),
    ("tressette-pozzo", 3, {}, fresh, 40, ActionMeaning(ActionKind.PASS, label="pass")),
    ("tressette-pozzo", 3, {}, fresh, 41, ActionMeaning(ActionKind.BID, value=1, label="chiamo")),
    ("tressette-pozzo", 3, {}, fresh, 42, ActionMeaning(ActionKind.BID, value=2, label="solo")),
    ("tressette-pozzo", 3, {}, fresh, 43,
     ActionMeaning(ActionKind.BID, value=3, label="solissimo")),
    ("tressette-pozzo", 3, {}, chiamo_then_call, card("RS"),
     ActionMeaning(ActionKind.CALL, cards=(card("RS"),), suit=Suit.SPADE, rank=Rank.RE,
                   label="RS")),
    ("tressette-pozzo", 3, {"variant": "draw_pool"}, fresh, card("RS"),
     ActionMeaning(ActionKind.PLAY, cards=(card("RS"),), label="RS")),
    ("tressette-non-prendere", 3, {}, fresh, card("5B"),
     ActionMeaning(ActionKind.GIVE, cards=(card("5B"),), label="5B")),
    ("tressette-non-prendere", 3, {}, pass_one_card, card("5B"),
     ActionMeaning(ActionKind.DISCARD, cards=(card("5B"),), label="5B")),
    ("vecchia", 4, {}, fresh, 20, ActionMeaning(ActionKind.DONE, label="done")),
    ("vecchia", 4, {}, fresh, 3, ActionMeaning(ActionKind.DRAW, value=3, label="draw-3")),
    ("presidente", 4, {}, fresh, 40, ActionMeaning(ActionKind.PASS, label="pass")),
    ("presidente", 4, {}, fresh, 41 + card("7D"),
     ActionMeaning(ActionKind.GIVE, cards=(card("7D"),), label="give-7D")),
]


@pytest.mark.parametrize(("game_id", "players", "params", "setup", "action", "expected"), EXACT,
                         ids=[f"{case[0]}-{case[4]}" for case in EXACT])
def test_exact_meanings(game_id: str, players: int, params: dict[str, ParamValue], setup: Setup,
                        action: int, expected: ActionMeaning) -> None:
    """Each game's action ids mean what its action table says."""
    state = load_game(game_id, players, params).new_initial_state(7)
    setup(state)
    assert state.action_meaning(action) == expected


def test_a_chiamata_4_obbligato_bid_names_the_4() -> None:
    """Chiamata 91 is a bid whose label names the 4."""
    meaning = load_game("briscola-chiamata", 5).new_initial_state(0).action_meaning(91)
    assert meaning.kind == ActionKind.BID and "4" in meaning.label


def test_briscola_trump_swap_names_what_it_gives_and_takes() -> None:
    """The swap gives the 7 of trump (its ``cards``) and takes the face-up card (its label)."""
    state = load_game("briscola", 2, {"trump_swap": "seven"}).new_initial_state(3)
    view = state.observation(state.current_player())
    seven = ITALIAN_40.card(view.trump_suit, Rank.SETTE)
    taken = ITALIAN_40.short(view.trump_card)
    assert state.action_meaning(41) == ActionMeaning(
        ActionKind.SWAP, cards=(seven,), label=f"swap-trump {ITALIAN_40.short(seven)} for {taken}")


def test_madrasso_swap_gives_the_seven_of_trump() -> None:
    """Madrasso's 40 swaps the 7 of trump for the dealer's face-up card."""
    state = load_game("madrasso", 4).new_initial_state(5)
    view = state.observation(state.current_player())
    seven = ITALIAN_40.card(view.trump_suit, Rank.SETTE)
    assert state.action_meaning(40) == ActionMeaning(ActionKind.SWAP, cards=(seven,),
                                                     label="swap-seven")


def scopa_state(params: dict[str, ParamValue]) -> State:
    """Scopa for two: seat 0 holds 7D AC 5B; the table is 3C 2D 6B 4S; seat 0 to play."""
    front = {0: "7D", 2: "AC", 4: "5B", 6: "3C", 7: "4S", 8: "2D", 9: "6B"}
    placed = {position: card(text) for position, text in front.items()}
    rest = iter(c for c in ITALIAN_40.cards if c not in placed.values())
    order = [placed[position] if position in placed else next(rest) for position in range(40)]
    return load_game("scopa", 2, params).new_initial_state(0, deal=order)


def test_scopa_meanings_name_the_card_and_the_captured_set() -> None:
    """A capture takes its set; an ace with asso piglia tutto takes the whole table."""
    state = scopa_state({})
    seven, ace = card("7D"), card("AC")
    assert state.action_meaning(capture_action(seven, (card("3C"), card("4S")))) == (
        ActionMeaning(ActionKind.CAPTURE, cards=(seven,), captured=(card("3C"), card("4S")),
                      label="7D x 3C+4S"))
    assert state.action_meaning(ace) == ActionMeaning(ActionKind.PLAY, cards=(ace,), label="AC")
    assert ace in state.legal_actions()
    everything = scopa_state({"asso_piglia_tutto": True})
    table = tuple(everything.observation(0).table)
    meaning = everything.action_meaning(take_all_action(ace))
    assert (meaning.kind, meaning.cards, meaning.captured) == (ActionKind.CAPTURE, (ace,), table)
    assert take_all_action(ace) in everything.legal_actions()


def test_vecchia_discard_names_the_pair_thrown_out() -> None:
    """A discard in the first phase throws out the two lowest card ids of its rank."""
    state = load_game("vecchia", 4).new_initial_state(1)
    hand = state.observation(state.current_player()).hand
    action = next(a for a in state.legal_actions() if a != 20)
    rank = action - 10
    pair = tuple(c for c in hand if ITALIAN_40.rank(c) == rank)[:2]
    assert state.action_meaning(action) == ActionMeaning(
        ActionKind.DISCARD, cards=pair, rank=rank, label=f"discard-{ITALIAN_40.rank_letters[rank]}")


def test_presidente_set_names_the_cards_it_plays() -> None:
    """A set of k cards of a rank plays the k lowest card ids of that rank in the hand."""
    state = load_game("presidente", 4).new_initial_state(2)
    hand = state.observation(state.current_player()).hand
    for action in state.legal_actions():
        rank, count = divmod(action, 4)
        held = [c for c in hand if ITALIAN_40.rank(c) == rank]
        assert state.action_meaning(action) == ActionMeaning(
            ActionKind.PLAY, cards=tuple(held[:count + 1]), value=count + 1, rank=rank,
            label=f"{count + 1}x{ITALIAN_40.rank_letters[rank]}")


def forced_face_down(seed: int) -> tuple[ActionMeaning, int] | None:
    """The first Povo trick-1 card that must go face down in a playout, and the called rank."""
    game = load_game("briscola-chiamata-carta", 5)
    assert isinstance(game, ChiamataGame)
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    bids: list[Event] = []
    while not state.is_terminal():
        for action in state.legal_actions():
            meaning = state.action_meaning(action)
            if meaning.kind == ActionKind.PLAY_FACE_DOWN:
                return meaning, called_rank(game.rules, bids[-1].values[0])
        start = state.event_count()
        state.apply_action(rng.choice(state.legal_actions()))
        bids += [e for e in state.full_events(start) if e.kind == EventKind.BID]
    return None


def test_povo_cards_of_the_called_rank_go_face_down_in_trick_1() -> None:
    """In Povo's trick 1 a card of the called rank is PLAY_FACE_DOWN under its own id."""
    found = next(filter(None, map(forced_face_down, range(40))), None)
    assert found is not None, "no Povo playout had a card of the called rank in trick 1"
    meaning, rank = found
    (played,) = meaning.cards
    assert played < 40 and meaning.label == ITALIAN_40.short(played)
    assert ITALIAN_40.rank(played) == rank
