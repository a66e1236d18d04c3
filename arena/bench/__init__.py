"""Benchmarks behind ``arena bench ...``: figures and ratios against a baseline in the same run."""

from arena.bench.engine import bench_engine_command, run_engine_bench

__all__ = ["bench_engine_command", "run_engine_bench"]
