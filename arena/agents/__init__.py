"""Agents: the players the match runner talks to, in this process or over gRPC.

``PolicyAgent`` plays a reference policy in-process; ``LocalProcessAgent`` starts a bot
folder's command (``bot.toml``) and reaches it over a private Unix socket. ``PolicySeat`` and
``BotSeat`` say what sits at a seat and make the agent for it.
"""

from arena.agents.base import Agent, AgentExit, DealEnd, DealSetup, ReadyInfo, Reply, Turn
from arena.agents.errors import AgentFailure, BotConfigError
from arena.agents.manifest import MANIFEST, BotManifest
from arena.agents.output import OUTPUT_CAP, OutputLog
from arena.agents.policy import PolicyAgent
from arena.agents.process import ADDRESS_ENV, MAX_MESSAGE_BYTES, LocalProcessAgent
from arena.agents.seats import BotSeat, PolicySeat, SeatSpec

__all__ = [
    "ADDRESS_ENV",
    "MANIFEST",
    "MAX_MESSAGE_BYTES",
    "OUTPUT_CAP",
    "Agent",
    "AgentExit",
    "AgentFailure",
    "BotConfigError",
    "BotManifest",
    "BotSeat",
    "DealEnd",
    "DealSetup",
    "LocalProcessAgent",
    "OutputLog",
    "PolicyAgent",
    "PolicySeat",
    "ReadyInfo",
    "Reply",
    "SeatSpec",
    "Turn",
]
