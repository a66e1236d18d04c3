"""Every rotation of a deal is played by a bot instance that has never seen that deal.

The spy bot (``tests/agents/bots/spy``, real processes over gRPC) reports the hand it is dealt
in every stream; each report is matched to its deal with the engine. Were one process to play
two rotations of a set, it would report two hands of one deal and know both.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
from pathlib import Path

import pytest
from agents.botkit import KeptBotSeat, make_bot
from agents.spy import deals_per_instance, shown_twice, spy_folder, streams

from arena.agents import LocalProcessAgent, PolicySeat
from arena.bench.launched import launched_bots
from arena.bots import BotManifest
from arena.games import load_game
from arena.match.results import DuplicateResult
from arena.match.runner import run_duplicate, run_duplicate_async
from arena.reasons import Reason
from tests.interrupts import ARENA, arena_play, output_of, wait_while_running


@pytest.mark.parametrize("players", [2, 3])
def test_no_instance_is_shown_a_deal_twice_in_a_duplicate_set(tmp_path: Path, temp_root: Path,
                                                              players: int) -> None:
    log = tmp_path / "spy.log"
    spy = KeptBotSeat(spy_folder(tmp_path / "spy", log), temp_root)
    game = load_game("briscola", players)
    result = run_duplicate(game, 17, [spy] * players)
    assert not result.void
    assert all(reason == Reason.OK for deal in result.deals for reason in deal.reasons)
    found = streams(log.read_text())
    assert len(found) == players * players, "every seat of every rotation reports its hand"
    deals = deals_per_instance(found, [17])
    assert shown_twice(deals) == {}
    assert len(deals) == players * players
    records = "".join(seat.stderr for deal in result.records if deal.conduct
                      for seat in deal.conduct.seats)
    assert sorted(streams(records), key=str) == sorted(found, key=str), \
        "each seat's record keeps the output of the instance that played it"
    assert [len(entrant.exits) for entrant in result.entrants] == [players] * players
    assert all(exit_.status == 0 for entrant in result.entrants for exit_ in entrant.exits)
    assert len({agent.process.pid for agent in spy.agents
                if isinstance(agent, LocalProcessAgent) and agent.process}) == players * players
    assert list(temp_root.iterdir()) == []


def test_arena_play_duplicate_shows_each_instance_one_deal(tmp_path: Path,
                                                           temp_root: Path) -> None:
    log = tmp_path / "spy.log"
    folder = spy_folder(tmp_path / "spy", log)
    done = subprocess.run(
        [str(ARENA), "play", "briscola", "--bot", str(folder), "--bot", str(folder),
         "--duplicate", "--seed", "23", "--json"],
        capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "TMPDIR": str(temp_root)})
    assert done.returncode == 0, done.stderr
    played = json.loads(done.stdout)
    assert [deal["entrants"] for deal in played["deals"]] == [[0, 1], [1, 0]]
    found = streams(log.read_text())
    assert len(found) == 4
    assert shown_twice(deals_per_instance(found, [23])) == {}
    assert list(temp_root.iterdir()) == []


async def play_on_one_instance(folder: Path, temp_root: Path, seed: int) -> DuplicateResult:
    """A duplicate set whose bot rotations all reach one launched instance, each through a
    wrapper of its own (as a warm bot lent to every rotation would)."""
    async with launched_bots(BotManifest.load(folder), temp_root, 1, 30.0) as (seat,):
        return await run_duplicate_async(load_game("briscola"), seed,
                                         [seat, PolicySeat("random")])


def test_an_instance_asked_for_a_deal_it_has_seen_refuses_it_and_the_set_is_void(
        tmp_path: Path, temp_root: Path) -> None:
    """The ledger is the last line: an instance asked to open a second rotation of its deal
    is not told of it (no MatchStart), and the deal is void with no verdict against the bot."""
    log = tmp_path / "spy.log"
    result = asyncio.run(play_on_one_instance(spy_folder(tmp_path / "spy", log), temp_root, 29))
    first, second = result.deals
    assert first.reason_names == ("OK", "OK")
    assert second.void and second.reason_names == ("VOID_INFRA", "VOID_INFRA")
    assert "this instance has already been shown this deal" in second.void
    assert result.void
    found = streams(log.read_text())
    assert len(found) == 1 and found[0].seat == 0
    assert list(temp_root.iterdir()) == []


def processes_in(folder: Path) -> list[int]:
    """The processes whose working folder is ``folder`` (a bot folder's processes)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and Path(os.readlink(entry / "cwd")) == folder:
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def test_sigterm_during_a_set_stops_every_rotations_instance(tmp_path: Path,
                                                             temp_root: Path) -> None:
    """SIGTERM while the first rotation waits for a bot: its instances and those started for
    the next rotation are all stopped, and their folders removed, before the arena ends."""
    folder = make_bot(tmp_path / "bot", "--faults", "1:hang").resolve()
    with arena_play("briscola", "--bot", str(folder), "--bot", str(folder), "--duplicate",
                    temp_root=temp_root) as process:
        wait_while_running(process, lambda: len(processes_in(folder)) >= 4
                           and len(list(temp_root.iterdir())) >= 4)
        assert len(processes_in(folder)) == 4, (
                f"an instance per seat and rotation; {output_of(process)}")
        process.send_signal(signal.SIGTERM)
        process.wait(60)
    assert process.returncode == -signal.SIGTERM
    assert processes_in(folder) == []
    assert list(temp_root.iterdir()) == []
