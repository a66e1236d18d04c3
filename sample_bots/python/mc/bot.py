"""A determinized Monte Carlo bot: sample the hidden cards, play each action out, keep the best.

Per decision, while its time budget lasts, the bot samples a full state consistent with what
its seat has seen (``cardarena_sdk.search``), and for every legal action plays that state out
from the action with a rollout policy, adding up the playouts' values for its seat: the
return plus a weighted share of the last hand's card points (a finer signal than a hand won
or lost). It answers with the action of the best mean over the samples it finished. With one
legal action, when no consistent state can be sampled, or when the budget runs out before one
sample is finished, it plays the arena's heuristic instead.

Settings (environment): ``MC_BUDGET_MS`` time per decision (default 150, never more than half
the time the request leaves), ``MC_ROLLOUT`` ``heuristic`` (default) or ``random``,
``MC_POINTS_WEIGHT`` the weight of the point share (default 3; 0 counts returns only).
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Sequence

from cardarena_sdk import Bot, MatchInfo, Request, match_seed, reference_policy, serve
from cardarena_sdk.search import Sampler, SamplingError, simulate

from arena.games import Game, GameError, Observation, State
from arena.policies import Policy, make_policy

DEFAULT_BUDGET_MS = 150
"""Time spent on one decision when the request allows it."""
POINTS_WEIGHT = float(os.environ.get("MC_POINTS_WEIGHT", "3"))
"""Weight of the last hand's point margin in a playout's value (the return counts 1)."""
RANDOM_ROLLOUTS = 8
"""Random playouts of each action per sampled state."""


class RolloutPolicies:
    """One rollout policy per seat: the heuristic, or uniform random play."""

    def __init__(self, game: Game, kind: str, rng: random.Random) -> None:
        """Load the game's heuristic for every seat (random when it has none)."""
        self.rng = rng
        self.policies: list[Policy] | None = None
        if kind == "heuristic":
            policies = [reference_policy_for(game, seat) for seat in range(game.num_players)]
            if all(policy is not None for policy in policies):
                self.policies = [policy for policy in policies if policy is not None]
        self.per_sample = 1 if self.policies is not None else RANDOM_ROLLOUTS
        """Playouts per action and sample: random ones are cheap and noisy, so several."""

    def play_out(self, state: State, seat: int) -> float:
        """Play ``state`` to the end (in place); its value for ``seat``.

        The value is the seat's return plus ``POINTS_WEIGHT`` times its side's point margin
        in the last hand (between -1 and 1).
        """
        returns = simulate(state, self.policies if self.policies is not None else self.rng)
        return returns[seat] + POINTS_WEIGHT * point_margin(state, seat)


def point_margin(state: State, seat: int) -> float:
    """The seat's side's points minus the others', over all points, in the last hand."""
    view = state.observation(seat)
    side = {seat, *view.teammates}
    total = sum(view.points)
    if not total:
        return 0.0
    mine = sum(points for other, points in enumerate(view.points) if other in side)
    return (2 * mine - total) / total


def reference_policy_for(game: Game, seat: int) -> Policy | None:
    """The heuristic of ``game`` for ``seat``, or None when the game has none."""
    try:
        return make_policy("heuristic", game, seat, seat)
    except GameError:
        return None


class MCBot(Bot):
    """Determinized Monte Carlo over sampled states, with heuristic rollouts by default."""

    name = "mc"
    version = "1.0.0"

    def __init__(self, budget_ms: int | None = None, rollout: str | None = None) -> None:
        """Take the budget and rollout policy from the arguments or the environment."""
        self.budget_ms = budget_ms if budget_ms is not None else int(
            os.environ.get("MC_BUDGET_MS", DEFAULT_BUDGET_MS))
        self.rollout = rollout or os.environ.get("MC_ROLLOUT", "heuristic")
        self.samples_used: list[int] = []
        """Samples evaluated per searched decision (for reports)."""

    def on_match_start(self, match: MatchInfo) -> None:
        """Prepare the sampler, the rollout policies and the fallback heuristic."""
        self.rng = random.Random(match_seed(match))
        game = match.game
        self.seat = match.seat
        self.sampler = Sampler(game)
        self.rollouts = RolloutPolicies(game, self.rollout, self.rng)
        self.fallback = reference_policy(match, "heuristic")

    def act(self, request: Request) -> int:
        """The wire id of the action with the best mean playout return."""
        observation = request.observation
        legal = list(observation.legal_actions)
        if len(legal) == 1:
            return request.wire_id(legal[0])
        deadline = time.perf_counter() + request.budget_s(self.budget_ms)
        totals = self.search(observation, legal, deadline)
        if totals is None:
            return request.policy_action(self.fallback, self.rng)
        best = max(legal, key=lambda action: totals[action])
        request.debug = f"mc samples={self.samples_used[-1]} best={best}"
        return request.wire_id(best)

    def search(self, observation: Observation, legal: Sequence[int], deadline: float
               ) -> dict[int, float] | None:
        """Summed returns of each action over the samples finished before the deadline.

        None when none was finished, or no state consistent with the observation can be sampled.
        """
        totals = dict.fromkeys(legal, 0.0)
        samples = 0
        while time.perf_counter() < deadline:
            try:
                state = self.sampler.sample(observation, self.rng, deadline, time.perf_counter)
            except SamplingError:
                break
            values = self.evaluate(state, legal, deadline)
            if values is None:
                break
            for action, value in values.items():
                totals[action] += value
            samples += 1
        self.samples_used.append(samples)
        return totals if samples else None

    def evaluate(self, state: State, legal: Sequence[int], deadline: float
                 ) -> dict[int, float] | None:
        """Each action's summed playout values on one sampled state; None when the deadline
        passes before every action is played out (a partial sample would favour some)."""
        values = {}
        for action in legal:
            if time.perf_counter() >= deadline:
                return None
            after = state.clone()
            after.apply_action(action)
            values[action] = sum(self.rollouts.play_out(after.clone(), self.seat)
                                 for _ in range(self.rollouts.per_sample))
        return values



if __name__ == "__main__":
    serve(MCBot)
