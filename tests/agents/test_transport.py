"""The transport of bots' streams: chosen by ``CARDARENA_TRANSPORT``, and the compiled one
(``wire/``) plays as the ``grpc.aio`` reference does, with real bot processes."""

from __future__ import annotations

import asyncio
import gc
import os
from pathlib import Path

import pytest

from arena.agents import native, transport
from arena.agents.seats import BotSeat
from arena.agents.transport import TRANSPORT_ENV, TransportError
from arena.games import load_game
from arena.match.runner import run_deal, run_duplicate

from .botkit import SAMPLE_RANDOM

CHIAMATA = load_game("briscola-chiamata")


def needs_native() -> None:
    """Fail under CI, skip elsewhere, when the compiled transport is not built."""
    if not native.built():
        if os.environ.get("CI") == "true":
            pytest.fail("the compiled transport (wire/) is not built")
        pytest.skip("the compiled transport (wire/) is not built")


def test_auto_takes_the_compiled_transport_when_it_is_built(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TRANSPORT_ENV, raising=False)
    assert transport.transport() == ("native" if native.built() else "grpc")
    monkeypatch.setenv(TRANSPORT_ENV, "grpc")
    assert transport.transport() == "grpc"
    monkeypatch.setattr(transport, "built", lambda: False)
    monkeypatch.setenv(TRANSPORT_ENV, "auto")
    assert transport.transport() == "grpc"


def test_a_transport_that_is_not_one_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TRANSPORT_ENV, "carrier-pigeon")
    with pytest.raises(TransportError, match=r"CARDARENA_TRANSPORT='carrier-pigeon' is not a "
                                             r"transport; choose one of auto, native, grpc"):
        transport.transport()


def test_the_compiled_transport_asked_for_but_not_built_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transport, "built", lambda: False)
    monkeypatch.setenv(TRANSPORT_ENV, "native")
    with pytest.raises(TransportError, match=r"not installed \(pip install \./wire"):
        transport.transport()


def test_ci_builds_the_compiled_transport() -> None:
    needs_native()
    assert native.built()


def _play_set(seed: int, temp_root: Path) -> list[tuple[int, ...]]:
    """The actions of every deal of a duplicate set of 5-seat briscola chiamata, the random
    sample bot at every seat."""
    seats = [BotSeat.from_path(SAMPLE_RANDOM, temp_root) for _ in range(CHIAMATA.num_players)]
    result = run_duplicate(CHIAMATA, seed, seats, rotations=2, match_id="m-transports")
    assert all(deal.reason_names == ("OK",) * CHIAMATA.num_players for deal in result.deals)
    assert all(record.conduct is not None and not record.conduct.faults
               for record in result.records)
    return [tuple(record.actions) for record in result.records]


def test_both_transports_play_a_set_alike(temp_root: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    needs_native()
    monkeypatch.setenv(TRANSPORT_ENV, "grpc")
    reference = _play_set(5, temp_root)
    monkeypatch.setenv(TRANSPORT_ENV, "native")
    compiled = _play_set(5, temp_root)
    assert compiled == reference
    assert len(compiled) == 2 and all(len(actions) > 40 for actions in compiled)


def test_the_compiled_transport_charges_a_bot_its_own_time(temp_root: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """Every decision's charged time is measured (from the request taken to the answer read)
    and is within the round trip's order: a random bot answers in well under a second."""
    needs_native()
    monkeypatch.setenv(TRANSPORT_ENV, "native")
    seats = [BotSeat.from_path(SAMPLE_RANDOM, temp_root) for _ in range(2)]
    deal = run_deal(load_game("briscola"), 3, seats)
    record = deal.record
    assert record is not None and record.conduct is not None
    times = record.conduct.decision_us
    assert times and all(time is not None and 0 < time < 1_000_000 for time in times)


def _eventfds() -> int:
    """How many eventfds this process has open."""
    folder = Path("/proc/self/fd")
    count = 0
    for entry in folder.iterdir():
        try:
            count += os.readlink(entry) == "anon_inode:[eventfd]"
        except OSError:
            continue
    return count


def test_each_event_loop_has_a_hub_of_its_own_that_goes_with_it(
        temp_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Deals in one loop after another each get a working hub; a loop that is gone takes its
    hub's eventfd with it, so nothing piles up run after run."""
    needs_native()
    monkeypatch.setenv(TRANSPORT_ENV, "native")
    seats = [BotSeat.from_path(SAMPLE_RANDOM, temp_root) for _ in range(2)]
    briscola = load_game("briscola")
    run_deal(briscola, 1, seats)
    gc.collect()
    before = _eventfds()
    for seed in range(2, 5):
        deal = run_deal(briscola, seed, seats)
        assert deal.reason_names == ("OK", "OK")
    gc.collect()
    assert _eventfds() <= before
    assert not native._HUBS or all(not loop.is_closed() for loop in native._HUBS)


def test_a_hub_needs_a_running_loop() -> None:
    needs_native()
    with pytest.raises(RuntimeError, match="no running event loop"):
        native.NativeChannel("unix:/nonexistent", 1024, 1024, (100, 1000))
    assert asyncio.run(_connect_nowhere()) is None


async def _connect_nowhere() -> None:
    """A channel to a socket nobody listens on keeps trying until closed, without ready."""
    channel = native.NativeChannel("unix:/nonexistent/agent.sock", 1024, 1024, (10, 20))
    try:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(channel.channel_ready(), 0.3)
    finally:
        await channel.close()
