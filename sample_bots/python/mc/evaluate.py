"""Measure the mc bot against the heuristic over duplicate deals, in process.

Each deal (a seed) is played once per seat: the mc bot in that seat, the heuristic in the
others, so card luck and seat order cancel out. The bot is driven exactly as the arena drives
it, with Request objects built from the arena's protocol encoder; the heuristic acts on the
engine's observations.

    python evaluate.py --deals 200 [--game briscola --players 2] [--budget-ms 150]
                       [--rollout heuristic|random] [--jobs 2] [--seed 0]

Prints the mean per-deal difference (the mc bot's return minus the mean return of the
heuristic seats, averaged over the deal's seatings) with its 95% confidence interval, the
mc bot's mean return per game, and the time and samples per searched decision.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from cardarena_sdk import MatchInfo, Request
from cardarena_sdk.decode import ObservationDecoder

from arena.games import Game, load_game
from arena.policies import make_policy
from arena.protocol import RequestEncoder, engine_action, match_start_message

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bot import MCBot

DECISION_MS = 1000
"""The time per decision written in the requests (the bot spends at most half)."""
Z_95 = 1.959964


@dataclass
class DealResult:
    """One deal played once per seat."""

    seed: int
    difference: float
    """Mean over seatings of the mc seat's return minus the heuristic seats' mean return."""
    mc_returns: list[float]
    decision_seconds: list[float] = field(default_factory=list)
    samples: list[int] = field(default_factory=list)


def play_game(game: Game, seed: int, mc_seat: int, budget_ms: int, rollout: str
              ) -> tuple[list[float], list[float], list[int]]:
    """One match from ``seed`` with the mc bot at ``mc_seat``: returns, times, samples."""
    state = game.new_initial_state(seed)
    match = MatchInfo(match_start_message(game, mc_seat, f"eval-{seed}-{mc_seat}", DECISION_MS,
                                          0))
    bot = MCBot(budget_ms=budget_ms, rollout=rollout)
    bot.match = match
    bot.on_match_start(match)
    encoder = RequestEncoder(state, mc_seat)
    decoder = ObservationDecoder()
    heuristics = {seat: make_policy("heuristic", game, seat, seed)
                  for seat in range(game.num_players) if seat != mc_seat}
    times: list[float] = []
    request_id = 0
    while not state.is_terminal():
        seat = state.current_player()
        if seat != mc_seat:
            state.apply_action(heuristics[seat].act(state.observation(seat)))
            continue
        request_id += 1
        message = encoder.request(request_id, DECISION_MS, 0).decision_request
        started = time.perf_counter()
        wire = bot.act(Request(message, match, decoder))
        if len(message.legal_actions) > 1:
            times.append(time.perf_counter() - started)
        state.apply_action(engine_action(wire))
    return state.returns(), times, bot.samples_used


def play_deal(game_id: str, players: int, seed: int, budget_ms: int, rollout: str
              ) -> DealResult:
    """The deal ``seed`` played once with the mc bot in each seat."""
    game = load_game(game_id, players)
    differences: list[float] = []
    result = DealResult(seed, 0.0, [])
    for mc_seat in range(players):
        returns, times, samples = play_game(game, seed, mc_seat, budget_ms, rollout)
        others = [value for seat, value in enumerate(returns) if seat != mc_seat]
        differences.append(returns[mc_seat] - sum(others) / len(others))
        result.mc_returns.append(returns[mc_seat])
        result.decision_seconds.extend(times)
        result.samples.extend(samples)
    result.difference = sum(differences) / len(differences)
    return result


def summary(results: list[DealResult]) -> dict[str, float]:
    """Mean difference with its 95% confidence interval, and the per-decision figures."""
    values = [r.difference for r in results]
    mean = statistics.fmean(values)
    half = Z_95 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    seconds = sorted(t for r in results for t in r.decision_seconds)
    samples = [s for r in results for s in r.samples]
    games = [value for r in results for value in r.mc_returns]
    return {
        "deals": len(results),
        "mean_difference": mean,
        "ci_low": mean - half,
        "ci_high": mean + half,
        "mc_mean_return": statistics.fmean(games),
        "mc_wins": sum(1 for value in games if value > 0) / len(games),
        "decision_ms_mean": 1000 * statistics.fmean(seconds) if seconds else 0.0,
        "decision_ms_p95": 1000 * seconds[int(0.95 * (len(seconds) - 1))] if seconds else 0.0,
        "samples_mean": statistics.fmean(samples) if samples else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the comparison and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--game", default="briscola")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--budget-ms", type=int, default=150)
    parser.add_argument("--rollout", choices=("heuristic", "random"), default="heuristic")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0, help="first deal seed")
    args = parser.parse_args(argv)
    if args.deals < 2:
        parser.error("--deals must be at least 2 for a confidence interval")
    seeds = range(args.seed, args.seed + args.deals)
    jobs = [(args.game, args.players, seed, args.budget_ms, args.rollout) for seed in seeds]
    started = time.perf_counter()
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            results = list(pool.map(play_deal, *zip(*jobs, strict=True)))
    else:
        results = [play_deal(*job) for job in jobs]
    figures = summary(results)
    print(f"mc ({args.rollout} rollouts, {args.budget_ms} ms) vs heuristic: {args.game}, "
          f"{args.players} seats, {figures['deals']} duplicate deals "
          f"({time.perf_counter() - started:.0f} s)")
    print(f"mean per-deal difference {figures['mean_difference']:+.3f}  "
          f"95% CI [{figures['ci_low']:+.3f}, {figures['ci_high']:+.3f}]")
    print(f"mc mean return per game {figures['mc_mean_return']:+.3f}, "
          f"games won {100 * figures['mc_wins']:.1f}%")
    print(f"per searched decision: {figures['decision_ms_mean']:.1f} ms mean, "
          f"{figures['decision_ms_p95']:.1f} ms p95, {figures['samples_mean']:.1f} samples")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
