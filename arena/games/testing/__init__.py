"""Conformance checks a game passes, for the arena's own tests and for plugin authors.

``check_game(game_or_id)`` plays seeded random matches and raises AssertionError naming the
first problem, as PettingZoo's ``api_test`` does. The checkers it is built from, the playout
helpers and the golden transcripts are public too. Only ``arena.games`` is used here: checks
that need policies or match records take them as parameters (or live in the arena's tests).
This package always runs from source, also when the compiled engine is built.
"""

from arena.games.testing.checks import (
    align,
    check_clone,
    check_final_returns,
    check_hand_accounting,
    check_illegal_rejected,
    check_legal_set,
    check_no_foreign_cards,
    check_observation,
    check_replay,
    check_resample,
    check_seeds_deal_differently,
    out_of_play,
    serialized,
)
from arena.games.testing.golden import check_transcript, transcript, write_transcript
from arena.games.testing.playouts import (
    digest,
    pick_stops,
    playout,
    replay,
    snapshot,
    states_at,
    where,
)
from arena.games.testing.suite import check_game, configurations

__all__ = [
    "align",
    "check_clone",
    "check_final_returns",
    "check_game",
    "check_hand_accounting",
    "check_illegal_rejected",
    "check_legal_set",
    "check_no_foreign_cards",
    "check_observation",
    "check_replay",
    "check_resample",
    "check_seeds_deal_differently",
    "check_transcript",
    "configurations",
    "digest",
    "out_of_play",
    "pick_stops",
    "playout",
    "replay",
    "serialized",
    "snapshot",
    "states_at",
    "transcript",
    "where",
    "write_transcript",
]
