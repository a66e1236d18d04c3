"""The generated message classes of both gRPC services, for the code that speaks them.

``agent`` and ``agent_grpc``: the bot interface (what a bot, the SDK and the arena's agents
exchange); ``platform`` and ``platform_grpc``: the service's API (``arena remote``). Code outside
``arena.protocol`` takes the classes from here, never from the generated package ``v1``, whose
name and layout stay the protocol's own affair (``proto/generate.py`` writes it).
"""

from arena.protocol.v1 import agent_pb2 as agent
from arena.protocol.v1 import agent_pb2_grpc as agent_grpc
from arena.protocol.v1 import arena_pb2 as platform
from arena.protocol.v1 import arena_pb2_grpc as platform_grpc

__all__ = ["agent", "agent_grpc", "platform", "platform_grpc"]
