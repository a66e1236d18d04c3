"""Every rotation of a deal is played by a container that has never seen that deal.

The spy bot (``tests/agents/bots/spy``) built into an image reports, on its standard error
(kept in each deal's record), the hand it is dealt in every stream; each report is matched to
its deal with the engine. One container playing two rotations would report two hands of one
deal, and so know the other seat's cards.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from agents.spy import SPY, deals_per_instance, shown_twice, streams

from arena.agents import DockerSeat, PolicySeat
from arena.games import load_game
from arena.match.runner import run_duplicate
from arena.match.timecontrol import TimeControl
from arena.reasons import Reason

from .conftest import BotImageFactory
from .kept import KeptDockerSeat

pytestmark = pytest.mark.docker

STARTUP_MS = 60_000
"""The containers' start-up limit: they start together, on a machine that may be busy."""


@pytest.mark.parametrize("players", [2, 3])
def test_no_container_is_shown_a_deal_twice(bot_image: BotImageFactory, leftovers: Path,
                                            players: int) -> None:
    image = bot_image(SPY)
    seats = [KeptDockerSeat(DockerSeat(image, temp_root=leftovers)) for _ in range(2)]
    game = load_game("briscola", players)
    result = run_duplicate(game, 31, [*seats, PolicySeat("random")][:players],
                           TimeControl(startup_ms=STARTUP_MS))
    assert all(reason == Reason.OK for deal in result.deals for reason in deal.reasons)
    stderr = "".join(seat.stderr for record in result.records if record.conduct
                     for seat in record.conduct.seats)
    found = streams(stderr)
    assert len(found) == 2 * players, "each spy seat of each rotation reports its hand"
    deals = deals_per_instance(found, [31])
    assert shown_twice(deals) == {}
    assert len(deals) == 2 * players
    containers = [agent.container_id for seat in seats for agent in seat.agents]
    assert len(set(containers)) == len(containers) == 2 * players
    for seat in seats:
        assert all(agent.exit is not None and agent.exit.status == 0 for agent in seat.agents)
        assert all(agent.socket_dir is None or not agent.socket_dir.outer.exists()
                   for agent in seat.agents)
