"""The generated message classes of both gRPC services, for the code that speaks them.

``agent`` and ``agent_grpc``: the bot interface (what a bot, the SDK and the arena's agents
exchange); ``platform`` and ``platform_grpc``: the service's API (``arena remote``). All but
``agent`` are loaded on first use: a bot never speaks the service's API, and one served by the
compiled transport never imports grpc, which ``agent_grpc`` needs.
Code outside ``arena.protocol`` takes the classes from here, never from the generated package
``v1``, whose name and layout stay the protocol's own affair (``proto/generate.py`` writes it).
"""

from typing import TYPE_CHECKING

from arena.lazy import lazy_names
from arena.protocol.v1 import agent_pb2 as agent

__all__ = ["agent", "agent_grpc", "platform", "platform_grpc"]

if TYPE_CHECKING:
    from arena.protocol.v1 import agent_pb2_grpc as agent_grpc
    from arena.protocol.v1 import arena_pb2 as platform
    from arena.protocol.v1 import arena_pb2_grpc as platform_grpc
else:
    __getattr__, __dir__ = lazy_names(__name__, {
        "agent_grpc": "arena.protocol.v1:agent_pb2_grpc",
        "platform": "arena.protocol.v1:arena_pb2",
        "platform_grpc": "arena.protocol.v1:arena_pb2_grpc",
    })
