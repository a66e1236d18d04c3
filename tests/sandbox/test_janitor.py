"""The janitor's thread and setting, with a collection that is counted instead of run; the
real collection is ``test_gc``'s, and a killed worker's leftovers are ``tests/league``'s."""

from __future__ import annotations

import logging
import threading

import pytest

from arena.sandbox.errors import DockerUnavailable
from arena.sandbox.gc import GcReport
from arena.sandbox.janitor import (
    INTERVAL_ENV,
    Janitor,
    JanitorSettingError,
    interval_from_env,
    start_janitor,
)


class Counted:
    """A collection that counts its calls, reports ``removed`` and can be waited for."""

    def __init__(self, removed: list[str] | None = None, fail: Exception | None = None,
                 wanted: int = 1) -> None:
        """Set ``done`` after ``wanted`` calls."""
        self.calls = 0
        self.removed = removed or []
        self.fail = fail
        self.wanted = wanted
        self.done = threading.Event()

    def __call__(self) -> GcReport:
        """One collection."""
        self.calls += 1
        if self.calls >= self.wanted:
            self.done.set()
        if self.fail is not None:
            raise self.fail
        return GcReport(removed=list(self.removed), socket_dirs=["/tmp/cat-x"] * len(self.removed))


def run_until_done(collection: Counted) -> Janitor:
    """A janitor of ``worker`` collecting every 10 ms until ``collection`` is done, stopped."""
    janitor = Janitor(0.01, collection, name="worker").start()
    try:
        assert collection.done.wait(30)
    finally:
        janitor.stop()
    return janitor


@pytest.mark.parametrize(("text", "interval"), [
    ("", 300.0), ("0", 0.0), ("2.5", 2.5), ("off", None), ("OFF", None)])
def test_the_setting_gives_the_period(monkeypatch: pytest.MonkeyPatch, text: str,
                                      interval: float | None) -> None:
    monkeypatch.setenv(INTERVAL_ENV, text)
    assert interval_from_env() == interval


@pytest.mark.parametrize("text", ["-1", "soon", "nan"])
def test_a_bad_setting_is_one_line_naming_the_variable(monkeypatch: pytest.MonkeyPatch,
                                                       text: str) -> None:
    monkeypatch.setenv(INTERVAL_ENV, text)
    with pytest.raises(JanitorSettingError, match=f"{INTERVAL_ENV}='{text}' is not a number"):
        start_janitor("test")


def test_off_starts_no_janitor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(INTERVAL_ENV, "off")
    assert start_janitor("test") is None


def test_the_janitor_collects_at_start_and_then_every_period(
        caplog: pytest.LogCaptureFixture) -> None:
    """The first collection at once, more after each period, one warning line per
    collection that removed something; nothing more once stopped."""
    collection = Counted(removed=["cardarena-left"], wanted=3)
    caplog.set_level(logging.WARNING, logger="arena.sandbox.janitor")
    janitor = run_until_done(collection)
    calls = collection.calls
    assert calls >= 3 and janitor.collections == calls
    lines = [record.getMessage() for record in caplog.records]
    assert lines[0] == ("janitor of worker: removed 1 leftover container(s) of dead arenas "
                        "(cardarena-left) and 1 socket folder(s)")


def test_a_period_of_zero_collects_once() -> None:
    collection = Counted()
    janitor = Janitor(0, collection).start()
    janitor.stop()
    assert collection.calls == 1


def test_without_docker_the_janitor_stops_after_one_try() -> None:
    """No Docker engine: one try, no error, no more tries."""
    collection = Counted(fail=DockerUnavailable("Docker is not running"))
    janitor = Janitor(0.01, collection).start()
    janitor.stop()
    assert collection.calls == 1 and janitor.collections == 0


def test_a_failed_collection_is_logged_and_the_janitor_goes_on(
        caplog: pytest.LogCaptureFixture) -> None:
    collection = Counted(fail=RuntimeError("the engine\nsaid no"), wanted=2)
    caplog.set_level(logging.WARNING, logger="arena.sandbox.janitor")
    run_until_done(collection)
    assert caplog.records[0].getMessage() == ("janitor of worker: the collection failed: "
                                              "the engine said no")
