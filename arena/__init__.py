"""Card Arena: a bot-competition platform for traditional card games."""

import importlib
import os
from typing import Any

__version__ = "0.1.0"

os.environ["GRPC_ENABLE_FORK_SUPPORT"] = "false"
"""gRPC's fork support off, before gRPC is imported: the arena never uses gRPC across a fork
(pool workers are spawned, bots are executed), and with it on, a bot forked while the arena's
gRPC threads were busy could run gRPC's after-fork handler before its exec and abort
(``Check failed: next_worker->state == KICKED``), a failed start that was not the bot's."""

PLATFORM_EXPORTS = {"play": "arena.notebook"}
"""Names of the platform given from the package itself, each loaded from its module on first
use: ``import arena`` stays as cheap as the engine, and the engine distribution, which holds
this file, does not depend on the platform (without it, the name is a clear ImportError)."""


def __getattr__(name: str) -> Any:
    """``arena.play`` and the other ``PLATFORM_EXPORTS``, imported when first asked for."""
    module = PLATFORM_EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'arena' has no attribute {name!r}")
    try:
        value = getattr(importlib.import_module(module), name)
    except ModuleNotFoundError as error:
        if error.name != module:
            raise
        raise ImportError(f"arena.{name} is part of the platform: pip install card-arena "
                          "(this is the engine alone)") from None
    globals()[name] = value
    return value
