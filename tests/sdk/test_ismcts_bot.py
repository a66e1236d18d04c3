"""The ISMCTS sample bot (sample_bots/python/ismcts): as a real bot process it passes
``arena bot check`` in every game and plays a duplicate set; in-process, with an iteration
budget, it answers the same view the same way, whatever the hidden cards."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path
from types import ModuleType

import pytest
from cardarena_sdk import MatchInfo, Request
from cardarena_sdk.decode import ObservationDecoder

from arena.agents import BotSeat, PolicySeat
from arena.botkit.check import check_bot
from arena.games import Game, State, game_ids, load_game
from arena.match.runner import run_duplicate
from arena.protocol import RequestEncoder, engine_action, match_start_message
from arena.reasons import Reason

BOT = Path(__file__).resolve().parents[2] / "sample_bots" / "python" / "ismcts"


def test_the_ismcts_bot_passes_arena_bot_check_in_every_game(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ISMCTS_BUDGET_MS", "10")
    report = check_bot(BOT)
    failed = [line for line in report.lines if line.failed]
    assert report.passed and not failed, report.summary()
    played = [line for line in report.lines if line.check.startswith("legal play ")]
    assert len(played) >= len(game_ids())


def load_bot_module() -> ModuleType:
    """The bot's ``bot.py`` as a module (run in-process, as ``serve`` would)."""
    spec = importlib.util.spec_from_file_location("ismcts_sample_bot", BOT / "bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def answers(game: Game, state: State, seat: int, decisions: int) -> list[int]:
    """The bot's first ``decisions`` answers as ``seat``, from wire requests of ``state``
    played on with random moves by the other seats (one fixed match id)."""
    bot = load_bot_module().ISMCTSBot()
    match = MatchInfo(match_start_message(game, seat, "fixed-match", 1000, 0))
    bot.match = match
    bot.on_match_start(match)
    encoder, decoder = RequestEncoder(state, seat), ObservationDecoder()
    rng = random.Random(1)
    chosen: list[int] = []
    while not state.is_terminal() and len(chosen) < decisions:
        if state.current_player() != seat:
            state.apply_action(rng.choice(state.legal_actions()))
            continue
        message = encoder.request(len(chosen) + 1, 1000, 0).decision_request
        action = engine_action(bot.act(Request(message, match, decoder)))
        assert action in state.legal_actions()
        chosen.append(action)
        state.apply_action(action)
    return chosen


def test_with_an_iteration_budget_the_bot_is_deterministic_and_sees_only_its_seat(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The same match twice gives the same answers; so does a match whose other hands are
    dealt differently while the seat's own view is the same (the first trick's cards too)."""
    monkeypatch.setenv("ISMCTS_ITERATIONS", "25")
    game = load_game("briscola", 2)
    seat = 0  # it moves first: its first decision is on the dealt hands
    order = list(game.new_initial_state(5).deals()[0])
    first = answers(game, game.new_initial_state(5, deal=[order]), seat, 1)
    assert first == answers(game, game.new_initial_state(5, deal=[order]), seat, 1)
    view = game.new_initial_state(5, deal=[order]).observation(seat)
    hidden = [index for index, card in enumerate(order) if card not in view.seen_cards()]
    swapped = list(order)
    swapped[hidden[0]], swapped[hidden[-1]] = order[hidden[-1]], order[hidden[0]]
    other = game.new_initial_state(5, deal=[swapped])
    assert other.observation(seat) == view
    assert other.observation(1 - seat) != game.new_initial_state(5, deal=[order]).observation(
        1 - seat)
    assert answers(game, other, seat, 1) == first


def test_the_bot_plays_a_duplicate_set_as_a_bot_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ISMCTS_ITERATIONS", "25")
    result = run_duplicate(load_game("briscola", 2), 7,
                           [BotSeat.from_path(BOT), PolicySeat("heuristic")])
    assert all(reason == Reason.OK for deal in result.deals for reason in deal.reasons)
    logs = "".join(str(record.to_dict()) for record in result.records)
    assert "ismcts iterations=25" in logs


@pytest.mark.parametrize("game_id", game_ids())
def test_the_bot_plays_out_with_the_policy_measured_best_in_its_game(
        game_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Heuristic playouts in the Briscola chiamata family, random ones elsewhere, unless
    ``ISMCTS_ROLLOUT`` says otherwise."""
    module = load_bot_module()
    game = load_game(game_id)
    match = MatchInfo(match_start_message(game, 0, "fixed-match", 1000, 0))
    expected = "heuristic" if game_id.startswith("briscola-chiamata") else "random"
    kinds = []
    for setting in (None, "random", "heuristic"):
        if setting is None:
            monkeypatch.delenv("ISMCTS_ROLLOUT", raising=False)
        else:
            monkeypatch.setenv("ISMCTS_ROLLOUT", setting)
        bot = module.ISMCTSBot()
        bot.match = match
        bot.on_match_start(match)
        kinds.append(bot.search.rollout.kind)
    has_heuristic = kinds[2] == "heuristic"
    assert kinds[0] == (expected if has_heuristic else "random")
    assert kinds[1] == "random"
