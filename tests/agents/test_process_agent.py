"""The local-process agent: start, Ready, decisions, late answers, failures, and cleanup.

Every test checks that the bot's process has exited (its return code is set) and that its
private temporary folder (with the socket) is gone.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import pytest

from arena.agents import AgentFailure, DealEnd, DealSetup, LocalProcessAgent, Turn
from arena.bots import BotManifest
from arena.games import State, load_game
from arena.protocol.v1 import agent_pb2 as pb
from arena.reasons import Reason

from .botkit import make_bot

T = TypeVar("T")

GAME = load_game("briscola")


def agent_for(tmp_path: Path, temp_root: Path, *args: str,
              stop_grace_s: float = 2.0) -> LocalProcessAgent:
    """An agent for the scripted bot (in ``tmp_path``); its temporary folder goes under
    ``temp_root``."""
    manifest = BotManifest.load(make_bot(tmp_path / "bot", *args))
    return LocalProcessAgent(manifest, temp_root=temp_root, stop_grace_s=stop_grace_s)


def run(agent: LocalProcessAgent, body: Callable[[LocalProcessAgent], Awaitable[T]]) -> T:
    """Run ``body`` with the agent, then shut it down, whatever happens."""
    async def main() -> T:
        """The body, then the shutdown."""
        try:
            return await body(agent)
        finally:
            await agent.shutdown()
    return asyncio.run(main())


def assert_cleaned_up(agent: LocalProcessAgent, temp_root: Path) -> None:
    """The process has exited and no temporary folder or socket is left."""
    assert agent.process is not None
    assert agent.process.returncode is not None
    assert agent.workdir is not None and not agent.workdir.exists()
    assert list(temp_root.iterdir()) == []


def setup(seat: int = 0, state: State | None = None) -> DealSetup:
    """Seat ``seat`` of a briscola deal (``state``: the deal's, else a new one)."""
    return DealSetup(GAME, seat, 7, "m1", 1000, 2000, state or GAME.new_initial_state(7))


def turn(state: State, request_id: int) -> Turn:
    """Seat 0's decision ``request_id``."""
    return Turn(request_id, 0, state, 1000, 2000)


def test_a_bot_starts_plays_and_is_stopped(tmp_path: Path, temp_root: Path) -> None:
    agent = agent_for(tmp_path, temp_root, "--say", "hello from the bot")
    state = GAME.new_initial_state(7)

    async def body(agent: LocalProcessAgent) -> pb.MatchEnd | None:
        """The steps of the test, run while the agent is up."""
        await agent.launch(10)
        await agent.open(setup(0, state), 5)
        reply = await agent.decide(turn(state, 1), 5)
        assert reply is not None
        assert not reply.fault
        assert reply.action in state.legal_actions()
        assert reply.debug == "decision 1"
        state.apply_action(reply.action)
        await agent.close(DealEnd(state, (Reason.OK, Reason.OK)))
        return None

    run(agent, body)
    assert agent.ready is not None
    assert agent.ready.protocol_version == "cardarena.v1"
    assert agent.describe()["ready"] == {"protocol_version": "cardarena.v1",
                                         "bot_name": "scripted", "bot_version": "0.1"}
    assert agent.exit is not None and agent.exit.status == 0
    output = agent.output_windows()
    assert output[0].startswith("hello from the bot\n")
    assert "match end REASON_CODE_OK REASON_CODE_OK" in output[0]
    assert_cleaned_up(agent, temp_root)


def test_a_late_answer_is_read_and_dropped(tmp_path: Path, temp_root: Path) -> None:
    # The bot takes 300 ms per decision and answers the first 100 ms later still: the late
    # answer leaves the bot (at 400 ms) before the answer to the next request (at 600 ms).
    agent = agent_for(tmp_path, temp_root, "--faults", "1:late", "--sleep-ms", "300",
                      "--late-ms", "100")
    state = GAME.new_initial_state(7)

    async def body(agent: LocalProcessAgent) -> None:
        """The steps of the test, run while the agent is up."""
        await agent.launch(10)
        await agent.open(setup(0, state), 5)
        assert await agent.decide(turn(state, 1), 0.05) is None
        state.apply_action(state.legal_actions()[0])
        while state.current_player() != 0:
            state.apply_action(state.legal_actions()[0])
        reply = await agent.decide(turn(state, 3), 10)
        assert reply is not None
        assert not reply.fault
        assert reply.debug == "decision 2"

    run(agent, body)
    assert agent.discarded == 1
    assert_cleaned_up(agent, temp_root)


def test_a_bot_that_exits_at_start_is_an_init_error(tmp_path: Path, temp_root: Path) -> None:
    agent = agent_for(tmp_path, temp_root, "--exit-at-start", "4")

    async def body(agent: LocalProcessAgent) -> AgentFailure:
        """The steps of the test, run while the agent is up."""
        with pytest.raises(AgentFailure) as caught:
            await agent.launch(10)
        with pytest.raises(AgentFailure) as again:
            await agent.open(setup(), 5)
        assert again.value is caught.value
        return caught.value

    failure = run(agent, body)
    assert failure.reason == Reason.INIT_ERROR
    assert failure.detail == "the bot exited with status 4 before listening on its socket"
    assert agent.exit is not None and agent.exit.status == 4
    assert "failing at start" in agent.output_windows()[0]
    assert_cleaned_up(agent, temp_root)


def test_a_bot_that_never_listens_misses_the_start_deadline(tmp_path: Path,
                                                            temp_root: Path) -> None:
    agent = agent_for(tmp_path, temp_root, "--no-listen")

    async def body(agent: LocalProcessAgent) -> AgentFailure:
        """The steps of the test, run while the agent is up."""
        with pytest.raises(AgentFailure) as caught:
            await agent.launch(1.5)
        return caught.value

    failure = run(agent, body)
    assert failure.reason == Reason.INIT_ERROR
    assert failure.detail == "the bot did not listen on its socket within 1.5 s"
    assert agent.exit is not None and agent.exit.status == -signal.SIGTERM
    assert_cleaned_up(agent, temp_root)


def test_a_bot_slow_to_answer_its_connection_is_waited_for_not_dialled_again(
        tmp_path: Path, temp_root: Path) -> None:
    # A loaded host can take longer than gRPC's usual connection attempt to answer one: the
    # arena waits for that answer within the start-up budget instead of dropping the
    # connection and dialling again, which would only give the bot more to answer.
    agent = agent_for(tmp_path, temp_root, "--slow-handshake-ms", "700")
    state = GAME.new_initial_state(7)

    async def body(agent: LocalProcessAgent) -> None:
        """The steps of the test, run while the agent is up."""
        await agent.launch(10)
        await agent.open(setup(0, state), 5)
        reply = await agent.decide(turn(state, 1), 5)
        assert reply is not None and not reply.fault

    run(agent, body)
    assert agent.ready is not None
    output = agent.output_windows()[0]
    assert output.count("scripted bot: connection ") == 1, output
    assert_cleaned_up(agent, temp_root)


def test_a_command_that_cannot_run_is_an_init_error(tmp_path: Path, temp_root: Path) -> None:
    folder = make_bot(tmp_path / "bot")
    text = (folder / "bot.toml").read_text(encoding="utf-8")
    (folder / "bot.toml").write_text(text.replace('["python"', '["./no-such-program"'),
                                     encoding="utf-8")
    agent = LocalProcessAgent(BotManifest.load(folder), temp_root=temp_root)

    async def body(agent: LocalProcessAgent) -> AgentFailure:
        """The steps of the test, run while the agent is up."""
        with pytest.raises(AgentFailure) as caught:
            await agent.launch(10)
        return caught.value

    failure = run(agent, body)
    assert failure.reason == Reason.INIT_ERROR
    assert failure.detail.startswith("cannot run the command './no-such-program' in ")
    assert failure.detail.endswith("No such file or directory")
    assert agent.process is None
    assert list(temp_root.iterdir()) == []


@pytest.mark.parametrize(("args", "message"), [
    (("--version", "cardarena.v0"),
     "the bot speaks protocol 'cardarena.v0'; the arena speaks 'cardarena.v1'"),
    (("--ready", "malformed"), "the bot answered MatchStart with a malformed message"),
    (("--ready", "decision"), "the bot answered MatchStart with a decision message, not Ready"),
])
def test_a_wrong_ready_is_an_init_error(tmp_path: Path, temp_root: Path,
                                        args: tuple[str, ...], message: str) -> None:
    agent = agent_for(tmp_path, temp_root, *args)

    async def body(agent: LocalProcessAgent) -> AgentFailure:
        """The steps of the test, run while the agent is up."""
        await agent.launch(10)
        with pytest.raises(AgentFailure) as caught:
            await agent.open(setup(), 5)
        return caught.value

    failure = run(agent, body)
    assert failure.reason == Reason.INIT_ERROR
    assert failure.detail.startswith(message)
    assert_cleaned_up(agent, temp_root)


def test_a_missing_ready_is_an_init_error(tmp_path: Path, temp_root: Path) -> None:
    agent = agent_for(tmp_path, temp_root, "--ready", "none")

    async def body(agent: LocalProcessAgent) -> AgentFailure:
        """The steps of the test, run while the agent is up."""
        await agent.launch(10)
        with pytest.raises(AgentFailure) as caught:
            await agent.open(setup(), 0.3)
        return caught.value

    failure = run(agent, body)
    assert failure.reason == Reason.INIT_ERROR
    assert failure.detail == "no Ready within 0.3 s of MatchStart"
    assert_cleaned_up(agent, temp_root)


def test_a_bot_that_ignores_sigterm_is_killed(tmp_path: Path, temp_root: Path) -> None:
    agent = agent_for(tmp_path, temp_root, "--ignore-term", stop_grace_s=0.3)

    async def body(agent: LocalProcessAgent) -> None:
        """The steps of the test, run while the agent is up."""
        await agent.launch(10)

    run(agent, body)
    assert agent.exit is not None
    assert agent.exit.status == -signal.SIGKILL
    assert agent.exit.detail == "exited on signal 9 (SIGKILL)"
    assert_cleaned_up(agent, temp_root)


def test_shutdown_is_idempotent(tmp_path: Path, temp_root: Path) -> None:
    agent = agent_for(tmp_path, temp_root)

    async def body(agent: LocalProcessAgent) -> None:
        """The steps of the test, run while the agent is up."""
        await agent.launch(10)
        first = await agent.shutdown()
        assert await agent.shutdown() is first

    run(agent, body)
    assert_cleaned_up(agent, temp_root)
