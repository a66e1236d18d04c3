"""The error of a benchmark that cannot measure: a bot that did not start, a faulty deal."""

from __future__ import annotations


class BenchError(RuntimeError):
    """A benchmark could not produce its figures; the message says why."""
