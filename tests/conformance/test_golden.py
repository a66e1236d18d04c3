"""Golden playthrough transcripts: regenerated in memory, they must equal the stored files."""

from __future__ import annotations

import pytest

from arena.games.testing import check_transcript

from .golden import REGENERATE, golden_path, stale_files, transcript
from .harness import CONFIG_IDS, CONFIGS, Config

each_config = pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)


@each_config
def test_transcript_matches_the_golden_file(config: Config) -> None:
    """The seeded random playthrough is unchanged (a rules change must regenerate it)."""
    try:
        check_transcript(golden_path(config), transcript(config), REGENERATE)
    except AssertionError as error:
        pytest.fail(str(error), pytrace=False)


def test_no_stale_golden_files() -> None:
    """Every transcript file belongs to a registered configuration."""
    stale = [path.name for path in stale_files()]
    assert not stale, f"stale golden transcripts {stale}; remove them with: {REGENERATE}"
