"""The spy bot's reports, read back: which deals each bot instance was shown.

The spy (``bots/spy``) writes, per stream, the hand it was dealt at its first request and the
face-up trump card (-1 in a game without one). A deal is its seed; the test knows the seeds it
played, so each stream is matched to the one seed whose deal gives that hand and that trump
card to that seat (two of a league's deals giving one seat the same three cards happens often
enough over many test runs; with the same trump card as well, about forty times less often).
An instance that was shown one deal twice (the same seed in two streams) could have
remembered the other hands: ``deals_per_instance`` finds it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from arena.games import load_game

SPY = Path(__file__).parent / "bots" / "spy"
"""The spy bot's folder (a bot folder with a Dockerfile)."""

DEALT = re.compile(r"^spy (?P<instance>[0-9a-f]+) stream (?P<stream>\d+) dealt (?P<game>\S+) "
                   r"(?P<seats>\d+) (?P<seat>\d+) (?P<hand>[\d,]*) (?P<trump>-?\d+)$",
                   re.MULTILINE)


@dataclass(frozen=True)
class Stream:
    """One stream of one spy instance: the game, its seat and the hand it was dealt."""

    instance: str
    stream: int
    game: str
    seats: int
    seat: int
    hand: tuple[int, ...]
    trump: int


def spy_folder(folder: Path, log: Path, name: str = "spy") -> Path:
    """A bot folder that runs the spy as a process, its reports also appended to ``log``."""
    folder.mkdir(parents=True, exist_ok=True)
    command = ["python", str(SPY / "bot.py"), "--log", str(log)]
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "1.0.0"\nlanguage = "python"\n'
        f'command = {json.dumps(command)}\ngames = ["briscola", "briscola-31", "scopa"]\n',
        encoding="utf-8")
    return folder


def streams(text: str) -> list[Stream]:
    """Every stream a spy reported in ``text`` (each once, whatever repeats it)."""
    found = {(match["instance"], int(match["stream"])): Stream(
        match["instance"], int(match["stream"]), match["game"], int(match["seats"]),
        int(match["seat"]),
        tuple(int(card) for card in match["hand"].split(",") if card), int(match["trump"]))
        for match in DEALT.finditer(text)}
    return list(found.values())


def deal_of(stream: Stream, seeds: Iterable[int]) -> int:
    """The seed of the deal the stream was shown: the one deal of ``seeds`` that dealt its hand
    and its trump card to its seat (a test error when none or several do)."""
    game = load_game(stream.game, stream.seats)
    dealt = {seed: game.new_initial_state(seed).observation(stream.seat) for seed in set(seeds)}
    matches = [seed for seed, seen in dealt.items()
               if (tuple(sorted(seen.hand)), seen.trump_card) == (stream.hand, stream.trump)]
    assert len(matches) == 1, f"stream {stream} matches the deals {matches}"
    return matches[0]


def deals_per_instance(found: Iterable[Stream], seeds: Iterable[int]) -> dict[str, list[int]]:
    """Each spy instance's deals (seeds), one per stream, in stream order."""
    seeds = list(seeds)
    instances: dict[str, list[tuple[int, int]]] = {}
    for stream in found:
        instances.setdefault(stream.instance, []).append((stream.stream,
                                                          deal_of(stream, seeds)))
    return {instance: [seed for _, seed in sorted(pairs)]
            for instance, pairs in instances.items()}


def shown_twice(deals: dict[str, list[int]]) -> dict[str, list[int]]:
    """The instances that were shown a deal more than once, with their deals."""
    return {instance: seeds for instance, seeds in deals.items()
            if len(set(seeds)) != len(seeds)}
