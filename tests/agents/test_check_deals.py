"""``arena bot check`` plays every game on one bot instance: each game's deal is one of its own.

Briscola and briscola 31 deal the same 40 cards: one seed in both would show the checked
instance one deal twice. The spy bot (a real process) reports each hand it is dealt; each is
matched to its deal with the engine.
"""

from __future__ import annotations

from pathlib import Path

from arena.botkit.check import check_bot
from arena.games.rng import derive_seed

from .spy import deals_per_instance, shown_twice, spy_folder, streams

GAMES = ("briscola", "briscola-31")


def test_bot_check_shows_its_instance_each_deal_once(tmp_path: Path, temp_root: Path) -> None:
    log = tmp_path / "spy.log"
    report = check_bot(spy_folder(tmp_path / "spy", log), games=GAMES, temp_root=temp_root)
    assert report.passed, [line for line in report.lines if line.failed]
    found = streams(log.read_text())
    assert sorted(stream.game for stream in found) == list(GAMES)
    assert len({stream.instance for stream in found}) == 1, "one instance for every game"
    candidates = [1, *(derive_seed(1, "check", game) for game in GAMES)]
    assert shown_twice(deals_per_instance(found, candidates)) == {}
    assert list(temp_root.iterdir()) == []
