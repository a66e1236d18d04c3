"""What a league match's end tells the metrics and the logs (``arena.telemetry``).

One call per match, when it ends: the result, the decisions played, each seat that did not end
a deal OK (its reason code) and each strike. The log lines carry the match id, league, game,
bot and reason; never a seed, and never what a bot wrote (its stderr, notes or fault details,
which only its owner may read).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence

from arena.match import DuplicateResult
from arena.match.faults import STRIKE_KINDS
from arena.telemetry.metrics import count_match

log = logging.getLogger("arena.league.matches")

VOID_INFRA = "VOID_INFRA"
"""The reason counted for a void deal (the arena failed)."""


def match_ended(match_id: str, league: str, result: DuplicateResult, bots: Sequence[str],
                outcome: str, seconds: float) -> None:
    """Count and log a played match: ``bots`` names the entrants in order, ``outcome`` is what
    ``run_match`` returns (``done``, ``lost``)."""
    decisions = sum(len(record.actions) for record in result.records)
    faults: Counter[str] = Counter()
    strikes: Counter[str] = Counter()
    fields = {"match_id": match_id, "league": league, "game": result.game}
    for deal in result.deals:
        if deal.void:
            faults[VOID_INFRA] += 1
            log.info("deal void", extra={**fields, "deal": deal.rotation,
                                            "reason": VOID_INFRA})
            continue
        for seat, reason in enumerate(deal.reason_names):
            if reason != "OK":
                faults[reason] += 1
                log.info("seat fault", extra={**fields, "deal": deal.rotation, "seat": seat,
                                                 "bot": bots[deal.entrants[seat]],
                                                 "reason": reason})
        strikes.update(str(fault.kind) for fault in deal.faults if fault.kind in STRIKE_KINDS)
    count_match(result.game, outcome, decisions, faults, strikes)
    log.info("match ended", extra={**fields, "result": outcome, "decisions": decisions,
                                   "seconds": round(seconds, 3)})


def match_failed(match_id: str, league: str, game: str, outcome: str,
                 error: BaseException) -> None:
    """Count and log a match whose attempt failed in the arena (``outcome``: ``pending``
    for another attempt, ``void``, ``lost``); only the error's type is logged, as its text
    may quote a bot."""
    count_match(game, outcome, faults={VOID_INFRA: 1})
    log.info("match attempt failed", extra={
        "match_id": match_id, "league": league, "game": game, "result": outcome,
        "reason": VOID_INFRA, "error": type(error).__name__})
