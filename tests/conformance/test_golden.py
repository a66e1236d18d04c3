"""Golden playthrough transcripts: regenerated in memory, they must equal the stored files."""

from __future__ import annotations

import difflib

import pytest

from .golden import REGENERATE, golden_path, stale_files, transcript
from .harness import CONFIG_IDS, CONFIGS, Config

MAX_DIFF_LINES = 60
each_config = pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)


@each_config
def test_transcript_matches_the_golden_file(config: Config) -> None:
    """The seeded random playthrough is unchanged (a rules change must regenerate it)."""
    path = golden_path(config)
    if not path.exists():
        pytest.fail(f"no golden transcript {path.name}; create it with: {REGENERATE}")
    stored = path.read_text(encoding="utf-8")
    fresh = transcript(config)
    if fresh != stored:
        diff = list(difflib.unified_diff(stored.splitlines(), fresh.splitlines(),
                                         f"stored {path.name}", "regenerated", lineterm=""))
        shown = "\n".join(diff[:MAX_DIFF_LINES])
        more = f"\n... {len(diff) - MAX_DIFF_LINES} more diff lines" * (len(diff) > MAX_DIFF_LINES)
        pytest.fail(f"{path.name} differs from a fresh playthrough:\n{shown}{more}\n"
                    f"If the change is intended, regenerate with: {REGENERATE}", pytrace=False)


def test_no_stale_golden_files() -> None:
    """Every transcript file belongs to a registered configuration."""
    stale = [path.name for path in stale_files()]
    assert not stale, f"stale golden transcripts {stale}; remove them with: {REGENERATE}"
