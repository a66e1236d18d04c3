"""Shared test settings: a derandomised hypothesis profile, so CI runs are repeatable.

``HYPOTHESIS_PROFILE=thorough`` runs ten times the examples with fresh random draws.

The workers and services the tests start run no janitor (``CARDARENA_JANITOR_S=off``): the
tests that make a dead arena's leftovers collect them themselves, and a janitor of another
test must not take them first. The janitor's own tests turn it on for their programs.
"""

import os

os.environ["CARDARENA_JANITOR_S"] = "off"

from hypothesis import HealthCheck, settings

_BASE = settings(database=None, deadline=None, suppress_health_check=[HealthCheck.too_slow])

settings.register_profile("ci", _BASE, derandomize=True, max_examples=10, print_blob=True)
settings.register_profile("thorough", _BASE, max_examples=100)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
