"""Crashes at start: loads a model file that is not there, before it ever listens."""

from __future__ import annotations

from pathlib import Path

from cardarena_sdk import Bot, Request, serve


class ModelBot(Bot):
    """Would play with its model, had it one."""

    name = "crash-at-start"

    def __init__(self, weights: bytes) -> None:
        """Keep the model's weights."""
        self.weights = weights

    def act(self, request: Request) -> int:
        """The first legal action."""
        return request.legal_ids[0]


if __name__ == "__main__":
    weights = (Path(__file__).parent / "model.bin").read_bytes()
    serve(lambda: ModelBot(weights))
