"""``arena bench league --docker``: one league schedule played by the same bots as Docker
images and as process folders, in one run.

The random and heuristic sample bots are built into their images (cached), then the same
schedule (``--matches`` duplicate sets of 2-seat briscola between them) is played by the local
pool of ``workers`` processes twice per round: once with the bot folders as entrants (local
processes) and once with their images (hardened containers), the two in turn over ``--rounds``
rounds so that the shared machine's load falls on both alike. Each worker keeps its bots
between matches, processes and containers alike (``arena.agents.pool``), as a league's
workers do. Matches per hour are read from the stored timestamps as ``arena bench league``
reads them (``run_figures``: each worker's first match, which starts its bots, left out), and
the start-up is the rest of the wall time. The report gives the median over the rounds of
each rate and of the rounds' ratios (Docker over processes); the goal is a ratio of 0.8.
"""

from __future__ import annotations

import platform
import statistics
from pathlib import Path
from typing import Any

from arena.bench.errors import BenchError
from arena.bench.league import (
    GAME,
    PLAYERS,
    SAMPLE_HEURISTIC,
    RunFigures,
    check_options,
    measure_local,
)
from arena.bench.protocol import SAMPLE_RANDOM, Progress, load_bot, temp_root
from arena.games import load_game

GOAL_DOCKER_RATIO = 0.8
"""The Docker league's matches per hour should be at least this share of the process
league's."""

KINDS = ("process", "docker")


def build_images(folders: list[Path], progress: Progress) -> list[str]:
    """The ``image:`` entrant of each bot folder, its image built (or found in the cache)."""
    from arena.sandbox.errors import SandboxError
    from arena.sandbox.images import build_bot_image

    entrants = []
    for folder in folders:
        progress(f"building the image of {folder.name}")
        try:
            image = build_bot_image(folder)
        except SandboxError as error:
            raise BenchError(f"cannot build the image of {folder}: {error}") from None
        entrants.append(f"image:{image.image_id}")
    return entrants


def run_docker_league_bench(matches: int, workers: int, rounds: int,
                            progress: Progress | None = None,
                            bots: tuple[Path, Path] = (SAMPLE_RANDOM, SAMPLE_HEURISTIC)
                            ) -> dict[str, Any]:
    """Play the schedule with processes and with containers, in turn, ``rounds`` times; the
    report."""
    check_options(matches, workers, 0.0, rounds)
    from arena.league.create import create_league
    from arena.sandbox.limits import SandboxLimits
    from arena.sandbox.probe import require_enforced
    from arena.store import open_store

    say = progress or (lambda text: None)
    game = load_game(GAME, PLAYERS)
    manifests = [load_bot(bot, game, sample) for bot, sample in
                 zip(bots, (SAMPLE_RANDOM, SAMPLE_HEURISTIC), strict=True)]
    entrants = {"process": [str(bot.folder) for bot in manifests],
                "docker": build_images([bot.folder for bot in manifests], say)}
    say("checking that the Docker engine enforces every limit")
    require_enforced(frozenset(), entrants["docker"][0].removeprefix("image:"),
                     SandboxLimits())
    played: list[dict[str, RunFigures]] = []
    with temp_root() as root:
        store_url = f"sqlite:///{root / 'bench.db'}"
        with open_store(store_url) as store:
            for number in range(rounds):
                for kind in KINDS:
                    create_league(store, f"{kind}-{number}", entrants[kind], [GAME],
                                  deals=matches)
        for number in range(rounds):
            figures = {}
            for kind in KINDS:
                say(f"round {number + 1} of {rounds}: the league with {kind} bots")
                figures[kind] = measure_local(store_url, f"{kind}-{number}", workers, say)
            played.append(figures)
    return docker_report(manifests, matches, workers, played)


def docker_report(manifests: list[Any], matches: int, workers: int,
                  played: list[dict[str, RunFigures]]) -> dict[str, Any]:
    """The JSON-ready report: each kind's median rates, and the median of the rounds' ratios."""
    def median_of(kind: str, figure: str) -> float:
        """The median over the rounds of one figure of one kind's league."""
        return float(statistics.median(float(one[kind].to_dict()[figure]) for one in played))

    ratios = [round(one["docker"].steady_matches_per_hour
                    / one["process"].steady_matches_per_hour, 4)
              for one in played if one["process"].steady_matches_per_hour > 0]
    ratio = round(statistics.median(ratios), 4) if ratios else 0.0
    return {
        "game": GAME,
        "players": PLAYERS,
        "bots": [{"name": bot.name, "version": bot.version, "path": bot.source}
                 for bot in manifests],
        "matches": matches,
        "workers": workers,
        "docker_matches_per_hour": round(median_of("docker", "matches_per_hour"), 1),
        "process_matches_per_hour": round(median_of("process", "matches_per_hour"), 1),
        "docker_ratio": ratio,
        "goal_docker_ratio": GOAL_DOCKER_RATIO,
        "meets_docker_goal": ratio >= GOAL_DOCKER_RATIO,
        "docker_wall_matches_per_hour": round(median_of("docker", "wall_matches_per_hour"), 1),
        "process_wall_matches_per_hour": round(median_of("process", "wall_matches_per_hour"), 1),
        "docker_wall_s": round(median_of("docker", "wall_s"), 2),
        "process_wall_s": round(median_of("process", "wall_s"), 2),
        "rounds": [{"docker": one["docker"].to_dict(), "process": one["process"].to_dict(),
                    "docker_ratio": ratios[index] if index < len(ratios) else None}
                   for index, one in enumerate(played)],
        "python": platform.python_version(),
    }
