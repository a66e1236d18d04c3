"""The arena's reference players (random, heuristic) for a bot's own match."""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.policies import Policy
    from cardarena_sdk.match import MatchInfo


def match_seed(match: MatchInfo) -> int:
    """A seed fixed by the match id and seat, so a replayed match draws the same numbers."""
    return zlib.crc32(f"{match.match_id}/{match.seat}".encode())


def reference_policy(match: MatchInfo, name: str = "heuristic",
                     seed: int | None = None) -> Policy | None:
    """The reference policy ``name`` for this seat, or None when the game has none."""
    from arena.games import GameError
    from arena.policies import make_policy

    try:
        return make_policy(name, match.game, match.seat,
                           match_seed(match) if seed is None else seed)
    except GameError:
        if name in ("random", "heuristic"):
            return None
        raise
