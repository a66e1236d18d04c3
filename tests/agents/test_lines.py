"""Deals on lines: a bot that keeps its stream gets its next deal on it, and an instance that
plays several deals at once plays each on a line of its own, never two seats of one deal and
never more deals than its manifest allows. Real bot processes: the random sample bot (the
SDK; ``matches_at_once = 16``) and the scripted bot (raw gRPC, one match per stream)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from arena.agents import AgentFailure, DealEnd, LocalProcessAgent
from arena.agents.shared import SharedAgent
from arena.agents.stream import PlayStream
from arena.bench.protocol import SAMPLE_RANDOM
from arena.bots import BotManifest
from arena.reasons import Reason

from .botkit import make_bot
from .deals import play_out, setup, stream_of

OK = (Reason.OK, Reason.OK)

Body = Callable[[LocalProcessAgent], Awaitable[None]]


def run(agent: LocalProcessAgent, body: Body) -> None:
    """Launch the agent, run ``body``, and shut the agent down whatever happens."""
    async def main() -> None:
        """The body between launch and shutdown."""
        try:
            await agent.launch(20)
            await body(agent)
        finally:
            await agent.shutdown()
    asyncio.run(main())


def random_bot(temp_root: Path) -> LocalProcessAgent:
    """The random sample bot (SDK), not launched."""
    return LocalProcessAgent(BotManifest.load(SAMPLE_RANDOM), temp_root=temp_root)


def test_a_bot_that_keeps_its_stream_gets_its_next_deal_on_it(temp_root: Path) -> None:
    streams: list[PlayStream | None] = []

    async def body(agent: LocalProcessAgent) -> None:
        """Two deals played out, then one after a deal that ended in a forfeit."""
        for seed, reasons in ((7, OK), (8, (Reason.TIMEOUT, Reason.OK)), (9, OK)):
            deal = setup(seed)
            await agent.open(deal, 5)
            assert agent.ready is not None and agent.ready.keeps_stream
            streams.append(stream_of(agent))
            state = await play_out(agent, deal)
            await agent.close(DealEnd(state, reasons))

    run(random_bot(temp_root), body)
    first, second, third = streams
    assert first is not None and second is first  # kept after a clean deal
    assert third is not second  # a forfeit at the seat closes the stream
    assert second.ended is not None


def test_a_bot_that_ends_its_stream_gets_a_new_one_each_deal(tmp_path: Path,
                                                              temp_root: Path) -> None:
    streams: list[PlayStream | None] = []

    async def body(agent: LocalProcessAgent) -> None:
        """Two deals of the scripted bot, which does not say keeps_stream."""
        for seed in (7, 8):
            deal = setup(seed)
            await agent.open(deal, 5)
            assert agent.ready is not None and not agent.ready.keeps_stream
            streams.append(stream_of(agent))
            await agent.close(DealEnd(await play_out(agent, deal), OK))

    manifest = BotManifest.load(make_bot(tmp_path / "bot"))
    run(LocalProcessAgent(manifest, temp_root=temp_root), body)
    assert streams[0] is not None and streams[1] is not streams[0]
    assert streams[0].ended is not None


def test_an_instance_plays_deals_at_once_each_on_a_line_of_its_own(temp_root: Path) -> None:
    async def body(agent: LocalProcessAgent) -> None:
        """Three deals at once on one process, played out side by side, twice over."""
        for seeds in ((11, 12, 13), (14, 15, 16)):
            seats = [SharedAgent(agent) for _ in seeds]
            deals = [setup(seed, seat=seed % 2) for seed in seeds]
            pairs = list(zip(seats, deals, strict=True))
            await asyncio.gather(*(seat.open(deal, 5) for seat, deal in pairs))
            assert len({id(stream_of(seat)) for seat in seats}) == 3
            ends = await asyncio.gather(*(play_out(seat, deal) for seat, deal in pairs))
            for seat, state in zip(seats, ends, strict=True):
                assert state.is_terminal()
                await seat.close(DealEnd(state, OK))
                assert seat.describe()["ready"]["bot_name"] == "random"
        assert len(agent.ledger) == 6
        assert len(agent._kept) == 3  # the second three deals took the first three's streams

    run(random_bot(temp_root), body)


def test_an_instance_is_never_shown_two_seats_of_one_deal(temp_root: Path) -> None:
    async def body(agent: LocalProcessAgent) -> None:
        """Seat 0 of deal 21 opens; seat 1 of the same deal on the same process is refused."""
        first, second = SharedAgent(agent), SharedAgent(agent)
        await first.open(setup(21, seat=0), 5)
        with pytest.raises(AgentFailure) as refused:
            await second.open(setup(21, seat=1), 5)
        assert refused.value.reason == Reason.VOID_INFRA
        assert "already been shown this deal" in refused.value.detail
        assert stream_of(second) is None

    run(random_bot(temp_root), body)


def test_an_instance_plays_no_more_deals_at_once_than_its_manifest_allows(
        tmp_path: Path, temp_root: Path) -> None:
    async def body(agent: LocalProcessAgent) -> None:
        """The scripted bot says nothing of matches_at_once: a second deal at once is the
        arena's failure; once the first is over, it may play another."""
        first, second = SharedAgent(agent), SharedAgent(agent)
        deal = setup(31)
        await first.open(deal, 5)
        with pytest.raises(AgentFailure) as refused:
            await second.open(setup(32), 5)
        assert refused.value.reason == Reason.VOID_INFRA
        assert "already plays 1 deal(s) at once, its limit" in refused.value.detail
        await first.close(DealEnd(await play_out(first, deal), OK))
        await second.open(setup(33), 5)
        await second.shutdown()
        assert agent.process is not None and agent.process.returncode is None

    manifest = BotManifest.load(make_bot(tmp_path / "bot"))
    assert manifest.matches_at_once == 1
    run(LocalProcessAgent(manifest, temp_root=temp_root), body)


STRAY = Path(__file__).parent.parent / "hostile" / "bots" / "stray-after-end"


def test_an_answer_sent_after_a_kept_deal_never_meets_the_next(temp_root: Path) -> None:
    streams: list[PlayStream | None] = []

    async def body(agent: LocalProcessAgent) -> None:
        """Two deals of a bot that sends a stray Decision after each MatchEnd."""
        for seed in (41, 42):
            deal = setup(seed)
            await agent.open(deal, 5)
            streams.append(stream_of(agent))
            state = await play_out(agent, deal)
            await agent.close(DealEnd(state, OK))
            # kept if the stray had not come yet when MatchEnd was written; then it comes
            for kept in agent._kept:
                loop = asyncio.get_running_loop()
                deadline = loop.time() + 5
                while kept._received == kept._asked and loop.time() < deadline:
                    await asyncio.sleep(0.01)
                assert not kept.idle

    run(LocalProcessAgent(BotManifest.load(STRAY), temp_root=temp_root), body)
    first, second = streams
    assert first is not None and second is not first  # the stray's stream was not reused
    assert first.ended is not None
