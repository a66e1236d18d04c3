"""Answers every request with an action id that is not among the legal ones."""

from __future__ import annotations

from cardarena_sdk import Bot, Request, serve


class IllegalBot(Bot):
    """One past the largest legal id: a plausible off-by-one."""

    name = "illegal"

    def act(self, request: Request) -> int:
        """An id that is not legal."""
        return max(request.legal_ids) + 1


if __name__ == "__main__":
    serve(IllegalBot)
