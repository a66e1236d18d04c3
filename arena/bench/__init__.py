"""Benchmarks behind ``arena bench ...``: figures and ratios against a baseline in the same run."""

from arena.bench.engine import run_engine_bench

__all__ = ["run_engine_bench"]
