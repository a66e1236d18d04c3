"""The protocol's version: all a bot needs to know of the package to say which it speaks."""

from typing import Final

PROTOCOL_VERSION: Final = "cardarena.v1"
"""The protocol this package speaks, as MatchStart and Ready name it."""
