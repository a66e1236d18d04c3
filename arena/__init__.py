"""Card Arena: a bot-competition platform for traditional card games."""

import os

__version__ = "0.1.0"

os.environ["GRPC_ENABLE_FORK_SUPPORT"] = "false"
"""gRPC's fork support off, before gRPC is imported: the arena never uses gRPC across a fork
(pool workers are spawned, bots are executed), and with it on, a bot forked while the arena's
gRPC threads were busy could run gRPC's after-fork handler before its exec and abort
(``Check failed: next_worker->state == KICKED``), a failed start that was not the bot's."""
