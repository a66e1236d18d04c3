"""Engine views <-> protobuf messages of the bot interface: the only place both meet.

Wire action ids are engine actions + 1 (0 is unset and always rejected). ``RequestEncoder``
builds a seat's DecisionRequests from cached bytes; its ``request_bytes`` can be sent through
a gRPC stream as is (with an identity serializer). ``MessageEncoder`` builds the same bytes the
plain way, through protobuf messages; both are a ``RequestEncoding``. ``read_answer`` reads a
bot's answer (straight from its bytes, with ``decision_fields``, when it has the plain shape
protobuf writes) and ``read_ready`` its Ready.

When the rules engine runs compiled, the encoder and the reader of answers run compiled too,
from the same build (``COMPILED_MODULES``, ``arena.compiled``); ``PROTOCOL_ENGINE`` says which.
"""

from typing import TYPE_CHECKING

from arena.compiled import use_compiled
from arena.lazy import lazy_names

COMPILED_MODULES = ("encoder", "fieldcache", "keys", "replies", "serialize", "wire")
"""The modules ``arena engine build`` compiles with the engine: the request encoder and the
reader of answers, which run at every decision of a bot."""
PROTOCOL_ENGINE = use_compiled(__path__, "protocol")
"""How the encoder and the answer reader run: ``compiled`` (with the engine) or ``python``."""

from arena.protocol.version import PROTOCOL_VERSION

if TYPE_CHECKING:
    from arena.protocol.actions import (
        engine_action,
        legal_action_message,
        legal_actions_message,
        wire_action,
    )
    from arena.protocol.answers import Answer, ReadyAnswer, read_answer, read_ready
    from arena.protocol.card_values import CardFigures, card_figures, card_values_message
    from arena.protocol.encoder import RequestEncoder
    from arena.protocol.encoding import MessageEncoder, RequestEncoding
    from arena.protocol.errors import ProtocolError
    from arena.protocol.messages import (
        deck_message,
        game_from_match_start,
        match_end_message,
        match_end_payload,
        match_start_message,
        match_start_payload,
        params_from_message,
        serialized_match_end,
    )
    from arena.protocol.observations import (
        event_from_message,
        event_to_message,
        observation_from_message,
        observation_from_request,
        observation_to_message,
    )
    from arena.protocol.replies import decision_fields

LAZY = {
    "Answer": "arena.protocol.answers",
    "CardFigures": "arena.protocol.card_values",
    "MessageEncoder": "arena.protocol.encoding",
    "ProtocolError": "arena.protocol.errors",
    "ReadyAnswer": "arena.protocol.answers",
    "RequestEncoder": "arena.protocol.encoder",
    "RequestEncoding": "arena.protocol.encoding",
    "card_figures": "arena.protocol.card_values",
    "card_values_message": "arena.protocol.card_values",
    "decision_fields": "arena.protocol.replies",
    "deck_message": "arena.protocol.messages",
    "engine_action": "arena.protocol.actions",
    "event_from_message": "arena.protocol.observations",
    "event_to_message": "arena.protocol.observations",
    "game_from_match_start": "arena.protocol.messages",
    "legal_action_message": "arena.protocol.actions",
    "legal_actions_message": "arena.protocol.actions",
    "match_end_message": "arena.protocol.messages",
    "match_end_payload": "arena.protocol.messages",
    "match_start_message": "arena.protocol.messages",
    "match_start_payload": "arena.protocol.messages",
    "observation_from_message": "arena.protocol.observations",
    "observation_from_request": "arena.protocol.observations",
    "observation_to_message": "arena.protocol.observations",
    "params_from_message": "arena.protocol.messages",
    "read_answer": "arena.protocol.answers",
    "read_ready": "arena.protocol.answers",
    "serialized_match_end": "arena.protocol.messages",
    "wire_action": "arena.protocol.actions",
}
"""The package's names, each imported from its module on first use: a bot that only needs the
schema and the version (the SDK's server) never loads the engine through this package."""


if not TYPE_CHECKING:  # type checkers read the names from the imports above
    __getattr__, __dir__ = lazy_names(__name__, LAZY, submodules=True)

__all__ = [
    "PROTOCOL_VERSION",
    "Answer",
    "CardFigures",
    "MessageEncoder",
    "ProtocolError",
    "ReadyAnswer",
    "RequestEncoder",
    "RequestEncoding",
    "card_figures",
    "card_values_message",
    "decision_fields",
    "deck_message",
    "engine_action",
    "event_from_message",
    "event_to_message",
    "game_from_match_start",
    "legal_action_message",
    "legal_actions_message",
    "match_end_message",
    "match_end_payload",
    "match_start_message",
    "match_start_payload",
    "observation_from_message",
    "observation_from_request",
    "observation_to_message",
    "params_from_message",
    "read_answer",
    "read_ready",
    "serialized_match_end",
    "wire_action",
]
