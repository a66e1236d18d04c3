"""Reference players for every game: ``random`` (seeded) and ``heuristic``.

A policy sees only a seat's ``Observation``, exactly what a bot receives, so the same code can
serve as a sample bot.
"""

from __future__ import annotations

from arena.policies.base import Policy, RandomPolicy, make_policy, policy_names

__all__ = ["Policy", "RandomPolicy", "make_policy", "policy_names"]
