"""A league across languages: the portable heuristic in Python, Rust and C++, each in its
Docker image, over every game; the report names each bot's language and compares the
languages' decision times."""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from arena.cli import app
from arena.games import game_ids
from arena.league.create import create_league
from arena.league.local import run_league
from arena.sandbox.images import build_bot_image
from arena.store import Match, MatchRecordRow, MatchStatus, SeatResult, open_store
from tests.sandbox.conftest import require_docker

from .conftest import SAMPLE_BOTS, require_tools

PORTS = {"python": "python/portable", "rust": "rust/heuristic", "cpp": "cpp/heuristic"}
"""The bots of the league by language: one strategy, three languages."""


@pytest.fixture
def workdir() -> Iterator[Path]:
    """A short temp folder (bot sockets live under it)."""
    folder = Path(tempfile.mkdtemp(prefix="cat-lang-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def fault_details(records: Iterable[dict[str, Any]]) -> list[str]:
    """Each seat's fault detail in the stored records (the reason a league seat was not OK)."""
    return [f"{record.get('game')}: {seat.get('agent', {}).get('name')}: {seat.get('reason')}: "
            f"{seat.get('detail')}"
            for record in records
            for seat in record.get("seats", [])
            if seat.get("reason") != "OK"]


def test_a_league_of_three_languages_in_docker_over_every_game(workdir: Path) -> None:
    """Every match of every game is played with every seat OK; the report lists each bot's
    language and a decision-time row per language."""
    require_tools("cargo", "protoc", "g++", "grpc_cpp_plugin")
    require_docker()
    images = {language: build_bot_image(SAMPLE_BOTS / folder)
              for language, folder in PORTS.items()}
    assert {language: image.language for language, image in images.items()} == {
        language: language for language in PORTS}
    db = f"sqlite:///{workdir / 'arena.db'}"
    with open_store(db) as store:
        create_league(store, "languages", [f"image:{image.ref}" for image in images.values()],
                      deals=1)
    summary = run_league(db, "languages", workers=2)
    assert not summary.interrupted and set(summary.outcomes) == {"done"}, summary
    with open_store(db) as store, store.session() as session:
        played = list(session.scalars(select(Match)))
        reasons = set(session.scalars(select(SeatResult.reason)))
        faults = fault_details(session.scalars(select(MatchRecordRow.record)))
    assert {match.game_id for match in played} == set(game_ids())
    assert all(match.status is MatchStatus.DONE for match in played)
    assert reasons == {"OK"}, faults

    out = workdir / "report"
    result = CliRunner().invoke(app, ["report", "languages", "--db", db, "--out", str(out),
                                      "--quiet"])
    assert result.exit_code == 0, result.output
    markdown = (out / "report.md").read_text(encoding="utf-8")
    for language, image in images.items():
        assert re.search(rf"\| {re.escape(image.name)}[^|]*\| {language} \|", markdown), language
    section = markdown.split("Decision times by language", 1)[1]
    for language in PORTS:
        assert re.search(rf"\| {language} \| [\d,]+ \|", section), language
