"""Write a Card Arena bot in Python: subclass ``Bot``, override ``act``, call ``serve``.

    from cardarena_sdk import Bot, serve

    class FirstLegal(Bot):
        name = "first-legal"
        version = "1.0"

        def act(self, request):
            return request.legal_ids[0]

    serve(FirstLegal)

Action ids are wire ids (the engine action + 1). ``cardarena_sdk.search`` samples hidden cards
and simulates playouts for bots that search.
"""

from __future__ import annotations

from arena.games import ActionKind, EventKind, Observation
from arena.protocol import PROTOCOL_VERSION, engine_action, wire_action
from arena.protocol.schema import agent as pb
from cardarena_sdk.address import ENV_VAR, AddressError, resolve_address
from cardarena_sdk.bot import Bot
from cardarena_sdk.cards import HIDDEN, CardInfo, DeckInfo, card_name, rank_of, suit_of
from cardarena_sdk.match import MatchInfo
from cardarena_sdk.reference import match_seed, reference_policy
from cardarena_sdk.request import Request
from cardarena_sdk.server import BotServer, serve

__version__ = "0.1.0"

__all__ = [
    "ENV_VAR",
    "HIDDEN",
    "PROTOCOL_VERSION",
    "ActionKind",
    "AddressError",
    "Bot",
    "BotServer",
    "CardInfo",
    "DeckInfo",
    "EventKind",
    "MatchInfo",
    "Observation",
    "Request",
    "card_name",
    "engine_action",
    "match_seed",
    "pb",
    "rank_of",
    "reference_policy",
    "resolve_address",
    "serve",
    "suit_of",
    "wire_action",
]
