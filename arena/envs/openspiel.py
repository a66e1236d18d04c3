"""Every game as an OpenSpiel game, under the environments' name: importing this module
registers them with ``pyspiel``. The games live in the engine (``arena.bridges.openspiel``),
where a bot image finds them without the platform."""

from arena.bridges.openspiel import *  # noqa: F403
