"""``arena.play``: one match from Python, any players, and its record.

Each seat's player is a reference policy's name (``random``, ``heuristic``), a bot folder (run as
a local process), ``image:NAME`` (a bot image, run in a hardened container), or a Python
callable ``f(request) -> action id`` (``arena.notebook.callables``). The match is played by
the match runner under its clock and fault policy, as ``arena play`` plays it, and the record
comes back with the replay viewer (``PlayedRecord``). A problem of a seat (a bot that did not
start, a callable that raised or answered an illegal id) is a warning (``SeatWarning``); bad
input is a ``PlayError`` (or the engine's ``GameError`` for a game or parameter) with one line
naming it.
"""

from __future__ import annotations

import asyncio
import secrets
import warnings
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from arena.agents import PolicySeat, SeatSpec
from arena.agents.sources import IMAGE_PREFIX, bot_seat
from arena.games import Game, load_game
from arena.games.params import ParamValue
from arena.games.rng import MAX_SEED
from arena.match.local import check_seed
from arena.match.results import DealResult
from arena.match.runner import run_deal
from arena.notebook.callables import CallableSeat, callable_name
from arena.notebook.record import PlayedRecord
from arena.policies import policy_names

KINDS = ("a policy name ({policies}), a bot folder, image:NAME, or a callable "
         "f(request) -> action id")
"""What a player may be, for error messages."""


class PlayError(ValueError):
    """``arena.play`` was given something it cannot play; the message names it."""


class SeatWarning(UserWarning):
    """A seat of a played match did not end OK, or made a fault."""


def play(game: str, players: Sequence[object], seed: int | None = None,
         **params: ParamValue) -> PlayedRecord:
    """Play one match of ``game`` between ``players`` (one per seat, in seat order) and return
    its record; ``seed`` None draws one; ``params`` are the game's parameters."""
    if isinstance(players, str | bytes | Path) or not isinstance(players, Sequence):
        raise PlayError(f"players must be a list with one player per seat, such as "
                        f"['random', 'heuristic'], not {type(players).__name__} {players!r}")
    if not players:
        raise PlayError("players is empty: give one player per seat")
    loaded = load_game(game, len(players), dict(params))
    deal_seed = secrets.randbelow(MAX_SEED + 1) if seed is None else seed
    try:
        check_seed(deal_seed)
    except ValueError as error:
        raise PlayError(str(error)) from None
    seats = [seat_of(player, number) for number, player in enumerate(players)]
    deal = _run(loaded, deal_seed, seats)
    if deal.void or deal.record is None:
        raise PlayError(f"the match was void (an arena failure, no verdict): {deal.void}")
    for line in seat_problems(deal):
        warnings.warn(line, SeatWarning, stacklevel=2)
    return PlayedRecord.of(deal.record)


def seat_problems(deal: DealResult) -> list[str]:
    """A line for each strike (a fault the seat played on after) and each seat that did not
    end OK."""
    strikes = [f"seat {fault.seat} {deal.labels[fault.seat]}: strike {fault.strike} at decision "
               f"{(fault.decision or 0) + 1}: {fault.kind}: {fault.detail}"
               for fault in deal.faults if fault.strike]
    return strikes + deal.problems()


def seat_of(player: object, seat: int) -> SeatSpec:
    """The seat spec of one player, or a ``PlayError`` naming what it is not."""
    kinds = KINDS.format(policies=", ".join(policy_names()))
    if isinstance(player, Path):
        player = str(player)
    if isinstance(player, str):
        if player in policy_names():
            return PolicySeat(player)
        if player.startswith(IMAGE_PREFIX) or Path(player).is_dir():
            return _bot(player, seat)
        raise PlayError(f"player {seat} {player!r} is no policy and no bot folder; "
                        f"a player is {kinds}")
    if isinstance(player, type) and not hasattr(player, "act"):
        raise PlayError(f"player {seat} is the class {player.__name__}, which has no act "
                        f"method; a player is {kinds} (or an SDK Bot)")
    if callable(player) or hasattr(player, "act"):
        return CallableSeat(player, callable_name(player))
    raise PlayError(f"player {seat} is {type(player).__name__} {player!r}; a player is {kinds}")


def _bot(ref: str, seat: int) -> SeatSpec:
    """A bot folder's or image's seat; its configuration problem as a ``PlayError``."""
    try:
        return bot_seat(ref)
    except (ValueError, OSError) as error:
        raise PlayError(f"player {seat} {ref!r}: {error}") from None


def _run(game: Game, seed: int, seats: list[SeatSpec]) -> DealResult:
    """One deal by the runner: in this thread, or in a thread of its own when this one already
    runs an event loop (as a Jupyter kernel's does)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return run_deal(game, seed, seats)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="arena-play") as pool:
        return pool.submit(run_deal, game, seed, seats).result()
