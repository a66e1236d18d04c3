"""A bot's rating history agrees with the overall leaderboard."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from arena.server.web.history import history_svg, rating_history


def test_last_point_is_the_overall_rating(client: TestClient) -> None:
    """The history has a point per set the bot played, and ends at its overall rating."""
    boards = client.app.state.queries.boards()  # type: ignore[attr-defined]
    for rating in boards.overall:
        history = rating_history(boards.played, [rating.bot])
        assert len(history) == 2
        assert history[-1].mu == pytest.approx(rating.mu)
        assert history[-1].sigma == pytest.approx(rating.sigma)


def test_history_svg_is_an_svg_element() -> None:
    """The plot is an SVG element, also without any point."""
    assert history_svg([], "nobody").startswith("<svg")
