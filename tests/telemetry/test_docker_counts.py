"""Against the real Docker engine: a bot image's build is timed in ``arena_build_seconds`` and a
bot's container start counted in ``arena_container_starts_total`` (this process's registry)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sandbox.conftest import (  # noqa: F401 - the fixtures
    SAMPLE_RANDOM,
    base_image,
    leftovers,
    short_root,
)

from arena.agents import DockerAgent
from arena.sandbox.images import build_bot_image

from .scraping import sample


def test_a_build_and_a_container_start_are_counted(
        base_image: str, leftovers: Path) -> None:  # noqa: F811
    """One build observed (ok), one container started (ok)."""
    builds = sample("arena_build_seconds_count", result="ok")
    image = build_bot_image(SAMPLE_RANDOM)
    assert sample("arena_build_seconds_count", result="ok") == builds + 1
    assert sample("arena_build_seconds_sum", result="ok") > 0
    starts = sample("arena_container_starts_total", result="ok")
    agent = DockerAgent(image, temp_root=leftovers)

    async def launch() -> None:
        """Start the bot's container, then stop it."""
        try:
            await agent.launch(30)
        finally:
            await agent.shutdown()

    asyncio.run(launch())
    assert sample("arena_container_starts_total", result="ok") == starts + 1
