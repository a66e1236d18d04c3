"""docs/notebooks/quickstart.ipynb runs top to bottom in a real Jupyter kernel (nbclient and
ipykernel), shows the replay and writes its page."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

from arena.match import MatchRecord
from arena.server.web.standalone import replay_page

NOTEBOOK = Path(__file__).resolve().parents[2] / "docs" / "notebooks" / "quickstart.ipynb"


def test_the_quickstart_notebook_runs(tmp_path: Path) -> None:
    """Every cell runs without error in a fresh kernel; the record cell shows the replay in a
    frame, and the page and the record are written to the notebook's folder."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not cell.get("outputs") for cell in notebook.cells
               if cell.cell_type == "code"), "the notebook is kept without outputs"
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [output for cell in notebook.cells if cell.cell_type == "code"
               for output in cell.outputs]
    assert [output.output_type for output in outputs if output.output_type == "error"] == []
    frames = [output.data["text/html"] for output in outputs
              if "text/html" in output.get("data", {})]
    assert len(frames) == 1 and frames[0].startswith("<iframe srcdoc=")
    record = MatchRecord.load(tmp_path / "briscola-match.json")
    assert record.policies == ("heuristic", "first_legal (callable)")
    page = (tmp_path / "briscola-replay.html").read_text("utf-8")
    assert page == replay_page(record)
    shown = html.unescape(frames[0].split('srcdoc="', 1)[1].split('" title=', 1)[0])
    assert shown == page
