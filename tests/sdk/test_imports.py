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


def test_a_bot_that_answers_loads_no_game_and_no_encoder() -> None:
    # A bot's start-up in its container is mostly imports: the SDK's server needs the schema,
    # the version and the answer's wire keys, not the engine or the arena's request encoder.
    plain = loaded_after("import cardarena_sdk")
    assert not any(name.startswith("arena.games") for name in plain), sorted(plain)
    assert not {"arena.protocol.encoder", "arena.protocol.messages",
                "arena.protocol.observations", "arena.protocol.serialize"} & plain
    # nor the wire helpers' lookup tables (32,768 varints built at import), only the varint
    assert "arena.protocol.wire" not in plain and "arena.protocol.base128" in plain


def test_a_bot_loads_no_message_of_the_service_api() -> None:
    # The service's API (accounts, leagues, uploads) has descriptors of its own, which a bot
    # never needs; the arena's clients get them on first use, as the same modules.
    plain = loaded_after("import cardarena_sdk")
    assert "arena.protocol.schema" in plain
    assert not {"arena.protocol.v1.arena_pb2", "arena.protocol.v1.arena_pb2_grpc"} & plain
    asked = loaded_after("from arena.protocol.schema import platform, platform_grpc\n"
                         "from arena.protocol.v1 import arena_pb2, arena_pb2_grpc\n"
                         "assert platform is arena_pb2 and platform_grpc is arena_pb2_grpc")
    assert {"arena.protocol.v1.arena_pb2", "arena.protocol.v1.arena_pb2_grpc"} <= asked


def test_the_protocol_package_loads_its_names_on_first_use() -> None:
    import arena.protocol
    from arena.protocol import answers, encoder, messages, version

    assert arena.protocol.read_answer is answers.read_answer
    assert arena.protocol.RequestEncoder is encoder.RequestEncoder
    assert arena.protocol.PROTOCOL_VERSION == messages.PROTOCOL_VERSION == version.PROTOCOL_VERSION
    assert set(arena.protocol.__all__) <= set(dir(arena.protocol))
    for name in arena.protocol.__all__:
        assert getattr(arena.protocol, name) is not None
    assert arena.protocol.wire is not None  # a submodule reached as an attribute
    with pytest.raises(AttributeError, match="has no attribute 'nothing_here'"):
        _ = arena.protocol.nothing_here  # type: ignore[attr-defined]


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


def test_a_bot_imports_no_grpc_until_it_serves_with_grpc_aio() -> None:
    # grpc's and asyncio's imports are a good part of a bot's start; the compiled transport's
    # server needs neither, so the SDK imports them only to serve with grpc.aio's server.
    script = ("import sys, cardarena_sdk\n"
              "from arena.protocol.schema import agent\n"
              "print('grpc' in sys.modules, 'asyncio' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.split() == ["False", "False"]
    asked = loaded_after("from arena.protocol.schema import agent_grpc\n"
                         "from arena.protocol.v1 import agent_pb2_grpc\n"
                         "assert agent_grpc is agent_pb2_grpc\n"
                         "import cardarena_sdk.grpc_server")
    assert {"arena.protocol.v1.agent_pb2_grpc", "cardarena_sdk.grpc_server"} <= asked
