"""Agents: the players the match runner talks to, in this process or over gRPC.

``PolicyAgent`` plays a reference policy in-process; ``LocalProcessAgent`` starts a bot
folder's command (``bot.toml``) and reaches it over a private Unix socket; ``DockerAgent`` runs
a bot image in a hardened container. Both remote agents share ``RemoteAgent``. ``PolicySeat``,
``BotSeat`` and ``DockerSeat`` say what sits at a seat and make the agent for it.
"""

from arena.agents.base import Agent, AgentExit, DealEnd, DealSetup, ReadyInfo, Reply, Turn
from arena.agents.container import DockerAgent
from arena.agents.errors import AgentFailure
from arena.agents.output import OUTPUT_CAP, OutputLog
from arena.agents.policy import PolicyAgent
from arena.agents.priority import PriorityError, yield_cpu_to_bots
from arena.agents.process import ADDRESS_ENV, MAX_MESSAGE_BYTES, LocalProcessAgent
from arena.agents.remote import RemoteAgent
from arena.agents.seats import BotSeat, DockerSeat, PolicySeat, SeatSpec

__all__ = [
    "ADDRESS_ENV",
    "MAX_MESSAGE_BYTES",
    "OUTPUT_CAP",
    "Agent",
    "AgentExit",
    "AgentFailure",
    "BotSeat",
    "DealEnd",
    "DealSetup",
    "DockerAgent",
    "DockerSeat",
    "LocalProcessAgent",
    "OutputLog",
    "PolicyAgent",
    "PolicySeat",
    "PriorityError",
    "ReadyInfo",
    "RemoteAgent",
    "Reply",
    "SeatSpec",
    "Turn",
    "yield_cpu_to_bots",
]
