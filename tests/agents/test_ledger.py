"""The deal ledger: an instance is shown a deal once; seeds are kept only as keyed fingerprints."""

from __future__ import annotations

import subprocess
import sys

import pytest

from arena.agents import ledger
from arena.agents.ledger import DealLedger, DealRefused, fingerprint
from arena.reasons import Reason


def test_a_deal_is_admitted_once_and_refused_after() -> None:
    book = DealLedger()
    book.admit(7, "spy")
    assert 7 in book and 8 not in book and len(book) == 1
    with pytest.raises(DealRefused) as refused:
        book.admit(7, "spy")
    assert refused.value.reason == Reason.VOID_INFRA
    assert "bot spy: this instance has already been shown this deal" in refused.value.detail
    book.admit(8, "spy")
    assert len(book) == 2


def test_the_ledger_keeps_no_seed() -> None:
    seed = 0x0123456789ABCDEF
    book = DealLedger()
    book.admit(seed, "spy")
    kept = b"".join(book._seen)
    assert seed.to_bytes(8, "big") not in kept and seed.to_bytes(8, "little") not in kept
    assert str(seed).encode() not in kept


def test_fingerprints_are_keyed_per_process() -> None:
    program = "from arena.agents.ledger import fingerprint; print(fingerprint(5).hex())"
    other = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                           check=True).stdout.strip()
    assert len(other) == 32 and other != fingerprint(5).hex()


def test_a_ledger_is_full_at_its_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ledger, "MAX_DEALS", 3)
    book = DealLedger()
    for seed in range(3):
        assert not book.full
        book.admit(seed, "spy")
    assert book.full
