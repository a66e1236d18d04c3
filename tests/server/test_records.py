"""Records leave the service only through arena.server.records, which withholds the logs of
the seats a viewer's bots did not hold."""

from __future__ import annotations

import re
from pathlib import Path

from arena.match.privacy import entrant_seats, withhold_logs

SERVER = Path(__file__).resolve().parents[2] / "arena" / "server"

RECORD = {
    "format": "card-arena.match", "entrants": [1, 0],
    "seats": [{"agent": {"name": "a"}, "reason": "CRASH", "detail": "ended: A-SECRET",
               "stderr": "A-SECRET"},
              {"agent": {"name": "b"}, "reason": "OK", "detail": "", "stderr": "B-SECRET"}],
    "faults": [{"seat": 0, "kind": "crash", "detail": "A-SECRET", "decision": 3},
               {"seat": 1, "kind": "timeout", "detail": "B-SECRET", "decision": 4}],
    "debug": [{"decision": 0, "seat": 0, "text": "A-SECRET"},
              {"decision": 1, "seat": 1, "text": "B-SECRET"}],
}


def test_only_the_given_seats_keep_their_logs() -> None:
    mine = withhold_logs(RECORD, entrant_seats(RECORD, {0}))
    text = repr(mine)
    assert "B-SECRET" in text and "A-SECRET" not in text
    assert mine["seats"][0]["reason"] == "CRASH" and mine["faults"][0]["kind"] == "crash"
    assert [note["seat"] for note in mine["debug"]] == [1]
    assert "SECRET" not in repr(withhold_logs(RECORD, frozenset()))
    assert repr(RECORD).count("SECRET") == 7  # the stored record is not changed


def test_no_other_module_of_the_service_reads_the_stored_records() -> None:
    readers = [path.relative_to(SERVER).as_posix() for path in SERVER.rglob("*.py")
               if re.search(r"\bMatchRecordRow\b|\bMatch\.records\b|\brecord_rows\b"
                            r"|\bstored_records\b", path.read_text(encoding="utf-8"))]
    assert readers == ["records.py"]
