"""Container states (as Docker reports them) into reason codes and one line of text."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest

from arena.agents.container import DockerAgent
from arena.agents.errors import crash
from arena.reasons import Reason
from arena.sandbox.classify import classify, container_end, exit_status, memory_text

MIB = 2**20


def state(status: str = "exited", code: int = 0, oom: bool = False, error: str = "",
          running: bool = False) -> dict[str, Any]:
    """A container ``State`` as ``docker inspect`` gives it."""
    return {"Status": status, "Running": running, "Paused": False, "Restarting": False,
            "OOMKilled": oom, "Dead": False, "Pid": 0, "ExitCode": code, "Error": error}


@pytest.mark.parametrize(("code", "status"), [(0, 0), (3, 3), (128, 128), (137, -9),
                                              (143, -15), (139, -11), (255, 255)])
def test_exit_codes_above_128_are_signals(code: int, status: int) -> None:
    assert exit_status(code) == status


@pytest.mark.parametrize(("given", "starting", "reason", "detail"), [
    (state(code=137, oom=True), False, Reason.OOM,
     "the bot was killed: out of memory (limit 512 MiB)"),
    (state(code=137, oom=True), True, Reason.OOM,
     "the bot was killed: out of memory (limit 512 MiB)"),
    (state(code=3), False, Reason.CRASH, "the bot exited with status 3"),
    (state(code=137), False, Reason.CRASH, "the bot exited on signal 9 (SIGKILL)"),
    (state(code=139), False, Reason.CRASH, "the bot exited on signal 11 (SIGSEGV)"),
    (state(code=0), False, Reason.CRASH, "the bot exited with status 0"),
    (state(code=3), True, Reason.INIT_ERROR,
     "the bot exited with status 3 before listening on its socket"),
    (state(code=127, error="exec: \"python\": executable file not found"), True,
     Reason.INIT_ERROR, "the container failed to run: exec: \"python\": executable "
                                "file not found before listening on its socket"),
])
def test_stopped_containers_are_classified(given: dict[str, Any], starting: bool, reason: int,
                                           detail: str) -> None:
    assert classify(given, 512 * MIB, starting=starting) == (reason, detail)


@pytest.mark.parametrize("given", [state("running", running=True), state("created"),
                                   state("paused"), state("restarting")])
def test_a_container_not_stopped_has_no_end(given: dict[str, Any]) -> None:
    assert container_end(given, 512 * MIB) is None
    assert classify(given, 512 * MIB) is None


def test_the_end_keeps_the_status_for_the_agent_exit() -> None:
    end = container_end(state(code=143), 64 * MIB)
    assert end is not None and end.status == -15 and not end.oom
    oom = container_end(state(code=137, oom=True), 64 * MIB)
    assert oom is not None and oom.oom and oom.detail.endswith("(limit 64 MiB)")


def test_memory_is_named_in_mib_when_whole() -> None:
    assert memory_text(512 * MIB) == "512 MiB"
    assert memory_text(1000) == "1000 bytes"


class LateOomAgent(DockerAgent):
    """A Docker agent whose container reports the given states in turn (no Docker)."""

    def __init__(self, states: list[dict[str, Any]]) -> None:
        """Replay ``states``, the last one for ever."""
        super().__init__(cast(Any, None))
        self.container = object()
        self.states = states

    async def _state(self) -> dict[str, Any]:
        """The next state."""
        return self.states.pop(0) if len(self.states) > 1 else self.states[0]


def test_a_kill_marked_out_of_memory_a_moment_later_is_an_oom() -> None:
    """Docker can mark the OOM kill after the exit: the agent waits for the mark."""
    agent = LateOomAgent([state(code=137), state(code=137), state(code=137, oom=True)])
    failure = asyncio.run(agent._exit_failure(crash, ""))
    assert failure is not None and failure.reason == Reason.OOM
    assert agent.end is not None and agent.end.oom


def test_a_kill_never_marked_out_of_memory_is_a_crash() -> None:
    """Without the mark, after the wait, a SIGKILL is a crash."""
    agent = LateOomAgent([state(code=137)])
    failure = asyncio.run(agent._exit_failure(crash, ""))
    assert failure is not None and failure.reason == Reason.CRASH
    assert failure.detail == "the bot exited on signal 9 (SIGKILL)"
