"""The mc sample bot: legal answers from Requests, its fallback, and its evaluation script."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

from cardarena_sdk import MatchInfo, Request
from cardarena_sdk.decode import ObservationDecoder

from arena.games import load_game
from arena.protocol import RequestEncoder, engine_action, match_start_message

MC_DIR = Path(__file__).resolve().parents[2] / "sample_bots" / "python" / "mc"


def load(name: str) -> ModuleType:
    """A module of the mc bot's folder (the folder goes on sys.path, as when run there)."""
    if str(MC_DIR) not in sys.path:
        sys.path.insert(0, str(MC_DIR))
    spec = importlib.util.spec_from_file_location(f"mc_{name}", MC_DIR / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class SteppingClock:
    """A clock that moves a fixed step each time it is read (no wall time): a stand-in for
    the ``time`` module (``perf_counter``) or a clock function (called)."""

    def __init__(self, step_s: float) -> None:
        """Start at zero."""
        self.step_s = step_s
        self.now = 0.0

    def perf_counter(self) -> float:
        """The time, one step later than the last reading."""
        self.now += self.step_s
        return self.now

    __call__ = perf_counter


def play_match(game_id: str, players: int, seed: int, budget_ms: int,
               clock: SteppingClock | None = None) -> tuple[list[int], object]:
    """A match with the mc bot in seat 0 and random play elsewhere; its searched samples."""
    game = load_game(game_id, players)
    state = game.new_initial_state(seed)
    match = MatchInfo(match_start_message(game, 0, f"test-{seed}", 1000, 0))
    module = load("bot")
    if clock is not None:
        module.time = clock  # type: ignore[attr-defined]
    bot = module.MCBot(budget_ms=budget_ms, rollout="random")
    bot.match = match
    bot.on_match_start(match)
    encoder, decoder = RequestEncoder(state, 0), ObservationDecoder()
    rng = random.Random(seed)
    request_id = 0
    while not state.is_terminal():
        if state.current_player() != 0:
            state.apply_action(rng.choice(state.legal_actions()))
            continue
        request_id += 1
        message = encoder.request(request_id, 1000, 0).decision_request
        action = engine_action(bot.act(Request(message, match, decoder)))
        assert action in state.legal_actions()
        state.apply_action(action)
    return bot.samples_used, state


def test_mc_bot_plays_legal_actions_from_requests() -> None:
    """Through a whole Briscola match every answer is legal and each search finished samples
    (the bot's clock moves 1 ms a reading, and the sampler reads it too while it replays: 20
    ms a decision)."""
    samples, state = play_match("briscola", 2, 3, budget_ms=20, clock=SteppingClock(0.001))
    assert samples and all(count >= 1 for count in samples)
    assert state.is_terminal()


def test_mc_bot_plays_the_heuristic_when_its_budget_ends_before_a_sample() -> None:
    """A clock that passes the budget at its first reading leaves no finished sample: every
    searched decision falls back to the heuristic, and every answer is still legal."""
    samples, state = play_match("briscola", 2, 3, budget_ms=5, clock=SteppingClock(0.010))
    assert samples and all(count == 0 for count in samples)
    assert state.is_terminal()


def test_mc_bot_falls_back_when_sampling_fails() -> None:
    """In Vecchia, whose reshuffles defeat sampling at times, the bot still answers legally."""
    samples, state = play_match("vecchia", 4, 1, budget_ms=5)
    assert state.is_terminal()
    assert all(count >= 0 for count in samples)


def test_evaluate_reports_a_confidence_interval(capsys: object) -> None:
    """The evaluation script plays duplicate deals and prints the mean and its 95% CI."""
    evaluate = load("evaluate")
    assert evaluate.main(["--deals", "2", "--budget-ms", "2", "--rollout", "random"]) == 0
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "2 duplicate deals" in out and "95% CI [" in out and "ms mean" in out
