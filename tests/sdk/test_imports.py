"""What ``import cardarena_sdk`` loads: what a bot needs to answer, the rest on first use."""

from __future__ import annotations

import subprocess
import sys

import cardarena_sdk
import pytest


def loaded_after(code: str) -> set[str]:
    """The modules of ``arena`` and ``cardarena_sdk`` a fresh interpreter holds after ``code``."""
    script = (f"{code}\nimport sys\nprint(' '.join(name for name in sys.modules "
              f"if name.split('.')[0] in ('arena', 'cardarena_sdk')))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, check=True)
    return set(done.stdout.split())


def test_the_reference_policies_load_only_when_asked_for() -> None:
    plain = loaded_after("import cardarena_sdk")
    assert "cardarena_sdk.server" in plain
    assert not any(name.startswith("arena.policies") for name in plain)
    assert "cardarena_sdk.search" not in plain


@pytest.mark.parametrize("name", cardarena_sdk.__all__)
def test_every_public_name_resolves(name: str) -> None:
    assert getattr(cardarena_sdk, name) is not None
    assert name in dir(cardarena_sdk)


def test_the_lazy_names_are_the_engine_s_own() -> None:
    from arena.games import ActionKind, Observation
    from arena.protocol import PROTOCOL_VERSION, wire_action
    from arena.protocol.schema import agent

    assert cardarena_sdk.ActionKind is ActionKind
    assert cardarena_sdk.Observation is Observation
    assert cardarena_sdk.PROTOCOL_VERSION == PROTOCOL_VERSION
    assert cardarena_sdk.wire_action is wire_action
    assert cardarena_sdk.pb is agent


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'nothing_here'"):
        _ = cardarena_sdk.nothing_here  # type: ignore[attr-defined]
