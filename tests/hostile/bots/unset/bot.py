"""Answers every request with action id 0 (UNSPECIFIED), which is never an action."""

from __future__ import annotations

from cardarena_sdk import Bot, Request, serve


class UnsetBot(Bot):
    """Forgets to choose: the default id 0."""

    name = "unset"

    def act(self, request: Request) -> int:
        """Action id 0."""
        return 0


if __name__ == "__main__":
    serve(UnsetBot)
