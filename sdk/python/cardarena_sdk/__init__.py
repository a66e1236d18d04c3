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

from typing import TYPE_CHECKING

from arena.lazy import lazy_names
from cardarena_sdk.address import ENV_VAR, AddressError, resolve_address
from cardarena_sdk.bot import Bot
from cardarena_sdk.card_values import NO_TRUMP, CardValues
from cardarena_sdk.cards import HIDDEN, CardInfo, DeckInfo, card_name, rank_of, suit_of
from cardarena_sdk.match import MatchInfo
from cardarena_sdk.reference import match_seed
from cardarena_sdk.request import Request
from cardarena_sdk.server import BotServer, serve

if TYPE_CHECKING:
    from arena.games import ActionKind, EventKind, Observation
    from arena.protocol import PROTOCOL_VERSION, engine_action, wire_action
    from arena.protocol.schema import agent as pb
    from cardarena_sdk.reference import reference_policy

LAZY = {
    "ActionKind": "arena.games",
    "EventKind": "arena.games",
    "Observation": "arena.games",
    "PROTOCOL_VERSION": "arena.protocol.version",
    "engine_action": "arena.protocol",
    "wire_action": "arena.protocol",
    "pb": "arena.protocol.schema:agent",
    "reference_policy": "cardarena_sdk.reference",
}
"""Names imported on first use (``module`` or ``module:attribute``): a bot that only answers
requests never loads the engine's game modules or the reference policies for them."""

if not TYPE_CHECKING:  # type checkers read the names from the imports above
    __getattr__, __dir__ = lazy_names(__name__, LAZY)

__version__ = "0.1.0"

__all__ = [
    "ENV_VAR",
    "HIDDEN",
    "NO_TRUMP",
    "PROTOCOL_VERSION",
    "ActionKind",
    "AddressError",
    "Bot",
    "BotServer",
    "CardInfo",
    "CardValues",
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
