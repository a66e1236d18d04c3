"""The container agent of a conformance check: it notes how the bot took the container's stop.

Docker stops a container with SIGTERM to its init, which passes it on to the bot, then SIGKILL
after the grace period; the exit status reads as the process backend's (``-15`` for a death
by SIGTERM, ``-9`` for SIGKILL), so the same ``StopNote`` judges both. The socket is not the
bot's to remove here: the arena locks the socket folder once the socket appears, and removes
the folder with the container.
"""

from __future__ import annotations

import time

from arena.agents.container import DockerAgent
from arena.botkit.agents import StopNote
from arena.sandbox.classify import ContainerEnd


class ObservedDockerAgent(DockerAgent):
    """A container agent that notes whether its bot stops cleanly on SIGTERM.

    It extends the agent's stop step, which runs after the channel is closed and before the
    container and the socket folder are removed.
    """

    stop_note: StopNote | None = None

    def _stop(self) -> ContainerEnd | None:
        """Stop as usual, noting whether it ran, the time taken and the exit status."""
        container = self.container
        container.reload()
        running = bool(container.attrs.get("State", {}).get("Running"))
        start = time.monotonic()
        end = super()._stop()
        if end is not None:
            self.stop_note = StopNote(running=running, status=end.status,
                                      seconds=time.monotonic() - start, socket_left=False,
                                      grace_s=self.stop_grace_s)
        return end

    def exited(self) -> bool:
        """True when the container is known to have stopped."""
        return self._exit_now() is not None
