"""``arena.play`` with each kind of player, the fault policy for callables, and bad input.

The matches are real: the match runner plays them, bot folders run as processes, images in
hardened containers (when Docker is here), callables in this process on the SDK's Request.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

import arena
from arena.games import GameError
from arena.match import MatchRecord, replay
from arena.notebook import PlayedRecord, PlayError, SeatWarning
from tests.notebook.players import NOTE, NoteBot, first_legal, illegal, not_an_id, raises

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_RANDOM = ROOT / "sample_bots" / "python" / "random"


def check_record(record: MatchRecord, labels: list[str]) -> None:
    """A finished record of the players named, that replays to its returns."""
    assert isinstance(record, PlayedRecord)
    assert list(record.policies) == labels
    assert record.conduct is not None
    replay(record)
    assert MatchRecord.from_json(record.to_json()).actions == record.actions


def test_import_arena_loads_no_platform_until_play_is_asked_for() -> None:
    """``import arena`` leaves the runner and the notebook modules unloaded; ``arena.play``
    loads them."""
    code = ("import sys, arena\n"
            "print('arena.notebook' in sys.modules, 'arena.match' in sys.modules)\n"
            "arena.play\n"
            "print('arena.notebook' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.split() == ["False", "False", "True"]


def test_two_policies() -> None:
    """Reference policies by name; the same seed gives the same match."""
    record = arena.play("briscola", ["random", "heuristic"], seed=11)
    check_record(record, ["random", "heuristic"])
    assert record.seed == 11 and record.players == 2
    assert arena.play("briscola", ["random", "heuristic"], seed=11).actions == record.actions


def test_seed_none_draws_one_and_params_reach_the_game() -> None:
    """Without a seed one is drawn (and recorded); keyword arguments are game parameters."""
    record = arena.play("briscola", ["heuristic", "random"], hands=2)
    check_record(record, ["heuristic", "random"])
    assert record.params["hands"] == 2
    assert 0 <= record.seed < 2**64


def test_a_bot_folder_runs_as_a_process() -> None:
    """A bot folder (a path or its text) plays as a local process over the agent protocol."""
    record = arena.play("briscola", [SAMPLE_RANDOM, "heuristic"], seed=3)
    check_record(record, ["random (bot)", "heuristic"])
    assert record.conduct is not None
    assert record.conduct.seats[0].agent["kind"] == "bot"
    assert record.conduct.seats[0].agent["ready"]["bot_name"] == "random"
    assert record.conduct.seats[0].reason == "OK"


def test_a_callable_gets_the_sdk_request_and_plays() -> None:
    """A plain function answers each Request with a legal wire id; it plays all its turns."""
    seen: list[object] = []

    def watcher(request: object) -> int:
        seen.append(request)
        return first_legal(request)

    record = arena.play("briscola", [watcher, "random"], seed=5)
    check_record(record, ["watcher (callable)", "random"])
    from cardarena_sdk import Request
    assert seen and all(isinstance(request, Request) for request in seen)
    assert len(seen) == record.actions.__len__() // 2
    assert record.conduct is not None and record.conduct.faults == ()


def test_an_sdk_bot_class_plays_and_its_notes_are_kept() -> None:
    """An SDK Bot subclass plays through ``act``; its debug notes are in the record."""
    record = arena.play("briscola", ["random", NoteBot], seed=5)
    check_record(record, ["random", "NoteBot (callable)"])
    assert record.conduct is not None
    assert {note.text for note in record.conduct.debug} == {NOTE}


def test_an_illegal_answer_is_a_strike_and_forfeits_at_the_limit() -> None:
    """Illegal ids are strikes, a random legal action is played instead, and the third
    forfeits the seat (INVALID); the match is played out, and each strike is a warning."""
    with pytest.warns(SeatWarning) as caught:
        record = arena.play("briscola", [illegal, "random"], seed=2)
    check_record(record, ["illegal (callable)", "random"])
    assert record.conduct is not None
    seat = record.conduct.seats[0]
    assert (seat.reason, seat.strikes, seat.forfeited) == ("INVALID", 3, True)
    assert [fault.kind for fault in record.conduct.faults] == ["illegal"] * 3
    assert "action id 10000 is not legal" in record.conduct.faults[0].detail
    lines = [str(warning.message) for warning in caught]
    assert sum(": strike " in line for line in lines) == 3
    assert lines[-1].startswith("seat 0 illegal (callable): INVALID: 3 strikes")


def test_an_answer_that_is_no_id_is_malformed() -> None:
    """A string is no action id: a ``malformed`` strike naming what came back."""
    with pytest.warns(SeatWarning):
        record = arena.play("briscola", ["random", not_an_id], seed=2)
    assert record.conduct is not None
    assert record.conduct.faults[0].kind == "malformed"
    assert "'the ace'" in record.conduct.faults[0].detail


def test_an_exception_is_a_crash_with_its_traceback_kept() -> None:
    """A callable that raises forfeits at once (CRASH); the substitute finishes the deal, and
    the traceback is the seat's captured output."""
    with pytest.warns(SeatWarning, match="raised Broken: this player always fails"):
        record = arena.play("briscola", ["heuristic", raises], seed=4)
    check_record(record, ["heuristic", "raises (callable)"])
    assert record.conduct is not None
    seat = record.conduct.seats[1]
    assert (seat.reason, seat.forfeited) == ("CRASH", True)
    assert "Broken: this player always fails" in seat.stderr
    assert "in raises" in seat.stderr and "callables.py" not in seat.stderr


def test_play_inside_a_running_event_loop() -> None:
    """Called where an event loop already runs (a Jupyter kernel's cell), the match is played
    in a thread of its own."""
    async def cell() -> MatchRecord:
        return arena.play("briscola", ["random", first_legal], seed=9)

    record = asyncio.run(cell())
    check_record(record, ["random", "first_legal (callable)"])


@pytest.mark.parametrize(("game", "players", "params", "error", "message"), [
    ("no-such-game", ["random", "random"], {}, GameError, "no-such-game"),
    ("briscola", ["random", "random"], {"hands": 0}, GameError, "hands"),
    ("briscola", ["random", "random"], {"colour": "red"}, GameError, "colour"),
    ("briscola", ["random"] * 9, {}, GameError, "9"),
    ("briscola", "random", {}, PlayError, "one player per seat"),
    ("briscola", [], {}, PlayError, "players is empty"),
    ("briscola", ["random", 42], {}, PlayError, "player 1 is int 42"),
    ("briscola", ["random", "genius"], {}, PlayError, "player 1 'genius' is no policy"),
    ("briscola", ["random", dict], {}, PlayError, "class dict, which has no act"),
    ("briscola", ["random", "image:"], {}, PlayError, "no image name"),
    ("briscola", ["random", ROOT / "docs"], {}, PlayError, "player 1"),
])
def test_bad_input_is_one_clear_error(game: str, players: object, params: dict[str, object],
                                      error: type[Exception], message: str) -> None:
    """An unknown game, a bad parameter or seat count, and a player that is none of the
    kinds each raise one error naming the problem."""
    with pytest.raises(error, match=message) as raised:
        arena.play(game, players, **params)  # type: ignore[arg-type]
    assert "\n" not in str(raised.value)


def test_a_bad_seed_is_a_clear_error() -> None:
    """A seed outside 0..2**64-1 is bad input."""
    with pytest.raises(PlayError, match="invalid seed -1"):
        arena.play("briscola", ["random", "random"], seed=-1)


def test_an_image_runs_in_a_container() -> None:
    """``image:NAME`` (the sample random bot built as ``arena bot build`` builds it) plays in
    a hardened container."""
    from arena.sandbox.errors import DockerUnavailable
    try:
        from arena.sandbox.images import build_bot_image
        image = build_bot_image(SAMPLE_RANDOM)
    except (DockerUnavailable, ImportError) as error:
        pytest.skip(f"no Docker here: {error}")
    record = arena.play("briscola", ["heuristic", f"image:{image.ref}"], seed=6)
    check_record(record, ["heuristic", f"{image.name} (docker)"])
    assert record.conduct is not None
    assert record.conduct.seats[1].reason == "OK"
    assert record.conduct.seats[1].agent["ready"]["bot_name"] == "random"
