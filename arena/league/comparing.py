"""``arena compare A B``: duplicate sets of two bots until a sequential test decides.

The bots are named as ``arena league create`` names entrants: a reference policy (``random``,
``heuristic``), ``image:NAME``, or a bot folder. Each game is played at its league seat count
with default parameters and seated as a league seats two bots (``schedule_game``: the tables,
the reversal of odd rounds, the rotations of each set), its deal seeds derived from a random
secret, or from ``seed`` for a reproducible run. The games take turns: round ``r`` of every
game, then round ``r + 1``. Process bots are kept running between sets in an ``AgentPool``,
which never shows an instance a deal twice, as a league worker does.

Every set gives one difference: A's score minus B's (a bot's score is its mean return per deal
over the set's rotations and its seats, ``compare.set_score``). The test (``sprt``) runs on
``(difference - delta0) / (delta1 - delta0)`` of each set's game, so that games of different
return scales share one test in units of their own margins; with one game this is exactly the
test on the differences themselves. A forfeit is scored as leagues score it
(``forfeits``: a loss by default, the deal's worst return); a void set counts for no one and
is reported. A run asked to stop (``stop``, checked between sets: Ctrl-C on the command line)
ends inconclusive and ``interrupted``, with what the sets played so far give.
"""

from __future__ import annotations

import itertools
import math
import secrets
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.agents import BotSeat, DockerSeat, PolicySeat, SeatSpec
from arena.agents.pool import AgentPool
from arena.agents.seats import pin_to_cores
from arena.agents.sources import IMAGE_PREFIX, PROCESS, bot_seat
from arena.games import Game, game_ids, get_spec, load_game
from arena.games.rng import MAX_SEED, Rng
from arena.league.compare import set_score
from arena.league.forfeits import DEFAULT_POLICY, ForfeitPolicy
from arena.league.schedule import ScheduledMatch, schedule_game, tables
from arena.league.sprt import (
    MIN_SETS,
    Decision,
    Sprt,
    SprtError,
    mean_difference,
    win_share,
    win_share_interval,
)
from arena.match.faults import DEFAULT_STRIKES
from arena.match.results import DuplicateResult, clean_instances
from arena.match.runner import run_duplicate_async
from arena.match.timecontrol import TimeControl
from arena.policies import policy_names

ALL_GAMES = "all"

DEFAULT_MAX_SETS = 1000
"""Sets played before the test gives up as inconclusive."""

SECRET_BYTES = 32

EFFECT_SIZE = 0.2
"""The default margin, in standard deviations of one seat's return under random play."""

DEFAULT_DELTA1: dict[str, float] = {
    "briscola": 0.2,
    "briscola-31": 0.2,
    "briscola-chiamata": 0.35,
    "briscola-chiamata-carta": 0.35,
    "briscola-chiamata-punti": 0.3,
    "briscola-chiamata-morto": 0.5,
    "briscola-chiamata-due-mazzi": 0.35,
    "madrasso": 0.2,
    "misere": 0.35,
    "presidente": 0.35,
    "scopa": 0.2,
    "scopone": 0.2,
    "tressette": 0.2,
    "tressette-non-prendere": 0.3,
    "tressette-pozzo": 0.3,
    "tressette-toro": 0.45,
    "vecchia": 0.3,
}
"""Each built-in game's default ``delta1``: ``EFFECT_SIZE`` times the standard deviation of a
seat's return over random play, rounded to 0.05 (``measured_delta1`` gives the same)."""

SCALE_DEALS = 300
"""Random deals that measure a game's return scale (``measured_delta1``)."""


class CompareError(ValueError):
    """Bad input for a comparison: one line saying what."""


@dataclass(frozen=True)
class Contender:
    """A bot as named on the command line, made into the seat spec that plays it."""

    ref: str
    seat: SeatSpec
    identity: str
    """What tells two bots apart: the policy, the folder's real path, or the image id."""

    @property
    def label(self) -> str:
        """Its name in displays (a policy: the policy's name)."""
        return self.seat.label


def contender(ref: str, sandbox: str = PROCESS,
              allow_unenforced: frozenset[str] = frozenset()) -> Contender:
    """The bot a name means: a policy name first, then ``image:NAME``, then a bot folder."""
    if ref in policy_names():
        return Contender(ref, PolicySeat(ref), f"policy:{ref}")
    if not ref.startswith(IMAGE_PREFIX) and not Path(ref).exists():
        raise CompareError(f"unknown bot {ref!r}: give a bot folder (with bot.toml), "
                           f"image:NAME, or a policy ({', '.join(policy_names())})")
    seat = bot_seat(ref, sandbox, allow_unenforced)
    if isinstance(seat, BotSeat):
        identity = f"folder:{seat.manifest.folder}"
    elif isinstance(seat, DockerSeat):
        identity = f"image:{seat.image.image_id}"
    else:
        identity = ref
    return Contender(ref, seat, identity)


def plays(bot: Contender, game: Game) -> str | None:
    """None when the bot can play the game, else why not."""
    try:
        bot.seat.check(game)
    except ValueError as error:
        return str(error)
    return None


def league_game(game_id: str) -> Game:
    """A game at its league seat count with default parameters."""
    return load_game(game_id, get_spec(game_id).default_seats)


def compare_games(games: Sequence[str], a: Contender, b: Contender) -> list[Game]:
    """The games to play: each one named (both bots must play it), or with ``all`` every
    game both play."""
    if not games:
        raise CompareError("name a game (--game ID, repeatable) or --games all")
    if ALL_GAMES in games:
        if len(games) > 1:
            raise CompareError("--games all plays every game both bots play; name no other")
        chosen = [game for game in map(league_game, game_ids())
                  if plays(a, game) is None and plays(b, game) is None]
        if not chosen:
            raise CompareError(f"{a.label} and {b.label} have no game in common")
        return chosen
    if len(set(games)) != len(games):
        raise CompareError("a game is named twice")
    chosen = []
    for game_id in games:
        game = league_game(game_id)
        problems = [(bot, plays(bot, game)) for bot in (a, b)]
        missing = [(bot, why) for bot, why in problems if why is not None]
        if len(missing) == 2 and a.identity != b.identity:
            raise CompareError(f"neither {a.label} nor {b.label} plays {game_id}")
        if missing:
            raise CompareError(missing[0][1] or f"{missing[0][0].label} does not play {game_id}")
        chosen.append(game)
    return chosen


def measured_delta1(game: Game, deals: int = SCALE_DEALS) -> float:
    """``EFFECT_SIZE`` times the standard deviation of seat 0's return over seeded random
    deals, rounded to 0.05 (at least 0.05)."""
    values = []
    for seed in range(deals):
        state = game.new_initial_state(seed)
        rng = Rng(seed + 7)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        values.append(float(state.returns()[0]))
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((value - mean) ** 2 for value in values) / len(values))
    return max(0.05, round(EFFECT_SIZE * sd / 0.05) * 0.05)


def default_delta1(game: Game) -> float:
    """The game's default margin: the table's, else measured."""
    known = DEFAULT_DELTA1.get(game.id)
    if known is not None and game.num_players == get_spec(game.id).default_seats:
        return known
    return round(measured_delta1(game), 2)


@dataclass(frozen=True)
class GameTest:
    """One game of a comparison with its hypotheses in the game's return units."""

    game: Game
    delta0: float
    delta1: float

    def normalize(self, difference: float) -> float:
        """A set's difference in units of the margin: 0 at ``delta0``, 1 at ``delta1``."""
        return (difference - self.delta0) / (self.delta1 - self.delta0)


def game_tests(games: Sequence[Game], delta0: float, delta1: float | None) -> list[GameTest]:
    """Each game's hypotheses (``delta1`` None: the game's default), each checked."""
    result = []
    for game in games:
        margin = default_delta1(game) if delta1 is None else delta1
        try:
            Sprt(delta0, margin)
        except SprtError as error:
            note = f" ({game.id}'s default --delta1 is {margin:g})" if delta1 is None else ""
            raise CompareError(f"{error}{note}") from None
        result.append(GameTest(game, delta0, margin))
    return result


@dataclass(frozen=True)
class SetOutcome:
    """One played set: its game, A's score minus B's (None when void), and who forfeited."""

    game: str
    seed: int
    difference: float | None
    forfeits: tuple[int, int]
    """Deals A, B forfeited in the set."""


@dataclass
class GameTally:
    """What one game has given so far."""

    game: str
    delta0: float
    delta1: float
    differences: list[float] = field(default_factory=list)
    void: int = 0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary."""
        mean = mean_difference(self.differences)
        return {"game": self.game, "delta0": self.delta0, "delta1": self.delta1,
                "sets": len(self.differences), "void": self.void, "mean_difference": mean.mean,
                "ci_low": mean.ci_low, "ci_high": mean.ci_high}


@dataclass
class Comparison:
    """A comparison's state: the test, every set's normalized difference, and the tallies."""

    a: Contender
    b: Contender
    tests: list[GameTest]
    alpha: float
    beta: float
    max_sets: int
    policy: ForfeitPolicy = DEFAULT_POLICY
    """How a forfeited deal is scored (``forfeits``): a loss by default."""
    normalized: list[float] = field(default_factory=list)
    tallies: dict[str, GameTally] = field(default_factory=dict)
    forfeits: list[int] = field(default_factory=lambda: [0, 0])
    decision: Decision = Decision.INCONCLUSIVE
    interrupted: bool = False
    """True when the run was stopped before the test decided or ran out of sets."""

    def __post_init__(self) -> None:
        """Check the error rates and open a tally per game."""
        try:
            self.sprt = Sprt(0.0, 1.0, self.alpha, self.beta)
        except SprtError as error:
            raise CompareError(str(error)) from None
        if self.max_sets < 1:
            raise CompareError(f"--max-sets must be at least 1, got {self.max_sets}")
        for test in self.tests:
            self.tallies[test.game.id] = GameTally(test.game.id, test.delta0, test.delta1)

    @property
    def same_bot(self) -> bool:
        """True when A and B are one bot (the same policy, folder or image)."""
        return self.a.identity == self.b.identity

    @property
    def sets(self) -> int:
        """Sets that count (void ones left out)."""
        return len(self.normalized)

    @property
    def void(self) -> int:
        """Void sets, left out of the test."""
        return sum(tally.void for tally in self.tallies.values())

    @property
    def llr(self) -> float:
        """The log-likelihood ratio so far."""
        return self.sprt.llr(self.normalized)

    @property
    def single(self) -> GameTest | None:
        """The one game's test, when only one game is played."""
        return self.tests[0] if len(self.tests) == 1 else None

    def add(self, outcome: SetOutcome, test: GameTest) -> None:
        """Count a set and decide once the test can."""
        tally = self.tallies[outcome.game]
        self.forfeits[0] += outcome.forfeits[0]
        self.forfeits[1] += outcome.forfeits[1]
        if outcome.difference is None:
            tally.void += 1
            return
        tally.differences.append(outcome.difference)
        self.normalized.append(test.normalize(outcome.difference))
        self.decision = self.sprt.decide(self.normalized, MIN_SETS)

    @property
    def finished(self) -> bool:
        """True once decided or out of sets."""
        return self.decision is not Decision.INCONCLUSIVE or self.sets >= self.max_sets

    def differences(self) -> list[float]:
        """The values the mean is reported on: game units with one game, else normalized."""
        single = self.single
        return self.tallies[single.game.id].differences if single else self.normalized

    def summary(self) -> dict[str, Any]:
        """The result as ``--json`` prints it (no mean before a set counts)."""
        mean = mean_difference(self.differences())
        return {"decision": self.decision.value, "sets": self.sets, "llr": self.llr,
                "lower_bound": self.sprt.lower_bound, "upper_bound": self.sprt.upper_bound,
                "mean_difference": mean.mean if self.sets else None, "ci_low": mean.ci_low,
                "ci_high": mean.ci_high, "interrupted": self.interrupted}

    def win_rate(self) -> tuple[float, tuple[float, float] | None]:
        """The share of sets A outscored B (ties half) and its Wilson interval."""
        values = self.differences()
        return win_share(values), win_share_interval(values)


def schedules(tests: Sequence[GameTest], max_sets: int, key: int | bytes
              ) -> Iterator[tuple[GameTest, ScheduledMatch[int]]]:
    """The sets to play, the games taking turns round by round (A is bot 0, B bot 1)."""
    per_game: list[tuple[GameTest, dict[int, list[ScheduledMatch[int]]]]] = []
    for test in tests:
        game = test.game
        teams = game.teams() or None
        per_round = len(tables([0, 1], game.num_players, teams))
        rounds = max(1, math.ceil(max_sets / per_round))
        by_round: dict[int, list[ScheduledMatch[int]]] = {}
        for match in schedule_game(game.id, [0, 1], game.num_players, 1, rounds, key,
                                   teams=teams):
            by_round.setdefault(match.round, []).append(match)
        per_game.append((test, by_round))
    for index in itertools.count():
        if not any(index in by_round for _, by_round in per_game):
            return
        for test, by_round in per_game:
            for match in by_round.get(index, []):
                yield test, match


def outcome(match: ScheduledMatch[int], result: DuplicateResult,
            policy: ForfeitPolicy = DEFAULT_POLICY) -> SetOutcome:
    """A played set's difference (A minus B, forfeits scored by ``policy``) and forfeits."""
    forfeits = [0, 0]
    for entrant in result.entrants:
        forfeits[match.seats[entrant.index]] += entrant.forfeits
    score = set_score(match.seats, result, policy=policy)
    difference = None
    if score is not None:
        scores = score.bot_scores()
        difference = scores[0] - scores[1]
    return SetOutcome(match.game, match.seed, difference, (forfeits[0], forfeits[1]))


def run_comparison(comparison: Comparison, *, seed: int | None = None,
                   time_control: TimeControl | None = None, strikes: int = DEFAULT_STRIKES,
                   on_set: Callable[[Comparison], None] | None = None,
                   stop: Callable[[], bool] | None = None) -> Comparison:
    """Play sets until the test decides, ``max_sets`` count or ``stop`` (asked between sets)
    says so (the comparison then ``interrupted``); the comparison, updated."""
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise CompareError(f"the seed must be an integer 0..{MAX_SEED}, got {seed}")
    key: int | bytes = secrets.token_bytes(SECRET_BYTES) if seed is None else seed
    specs = (comparison.a.seat, comparison.b.seat)
    pool = AgentPool()
    try:
        for test, match in schedules(comparison.tests, comparison.max_sets, key):
            if comparison.finished:
                break
            if stop is not None and stop():
                comparison.interrupted = True
                break
            seats = pin_to_cores([specs[bot] for bot in match.seats])
            loan = pool.lend(seats, match.seed)
            try:
                result = pool.run(run_duplicate_async(
                    test.game, match.seed, loan.seats, time_control, strikes=strikes,
                    rotations=match.rotations))
            except BaseException:
                pool.give_back(loan, None)
                raise
            pool.give_back(loan, clean_instances(result))
            comparison.add(outcome(match, result, comparison.policy), test)
            if on_set is not None:
                on_set(comparison)
    finally:
        pool.close()
    return comparison
