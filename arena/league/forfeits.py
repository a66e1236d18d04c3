"""How a league scores a forfeit: the policy, the worst return of a deal, the faults per bot.

A league's forfeit policy is ``loss`` (the default) or ``stand``:

- ``loss``: a seat that forfeits a deal (any reason code but OK and VOID_INFRA) loses it. In
  ratings it ranks below every seat that did not forfeit; in comparisons it loses the set to
  every bot that did not forfeit in it; and for the statistics its return in that deal is the
  worst the game allows (``worst_return``), and so is the return of every seat of its side in
  a game of fixed partnerships.
- ``stand``: the returns of the deal as the random substitute completed it stand, as if the
  bot had played them.

A void deal (VOID_INFRA: the arena failed) is no contest under either policy: its set counts
for no one, and every table says how many sets it left out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Generic, TypeVar

from arena.games import Game
from arena.games.chiamata import ChiamataGame
from arena.match.results import DealResult, DuplicateResult

BotId = TypeVar("BotId", bound=Hashable)

OK = "OK"
VOID_INFRA = "VOID_INFRA"

FAULT_REASONS = ("TIMEOUT", "INVALID", "CRASH", "OOM", "INIT_ERROR")
"""The reason codes of a forfeit, in the order tables show them."""

CHIAMATA_MAX_MULTIPLIER = 5
"""Briscola chiamata's largest bid multiplier (a bid of 101 or more)."""


class ForfeitPolicy(StrEnum):
    """How a league scores a seat that forfeits a deal."""

    LOSS = "loss"
    STAND = "stand"


DEFAULT_POLICY = ForfeitPolicy.LOSS


def forfeit_policy(name: str) -> ForfeitPolicy:
    """The policy of that name, or ``ValueError`` naming the choices."""
    try:
        return ForfeitPolicy(name.strip().lower())
    except ValueError:
        choices = ", ".join(policy.value for policy in ForfeitPolicy)
        raise ValueError(f"unknown forfeit policy {name!r}: choose {choices}") from None


def forfeited_seats(deal: DealResult) -> tuple[bool, ...]:
    """Per seat, True when it forfeited the deal (VOID_INFRA is no forfeit)."""
    return tuple(name not in (OK, VOID_INFRA) for name in deal.reason_names)


def worst_return(game: Game, deal: DealResult) -> float:
    """The worst return the game allows a seat in this deal (see docs/league.md, per game).

    Games scoring each hand add up ``hands`` hands; a game this table does not know (a plugin)
    gets the lowest return any seat had in the deal.
    """
    seats = game.num_players
    hands = int(game.params.get("hands", 1) or 1)
    if isinstance(game, ChiamataGame):
        multiplier = CHIAMATA_MAX_MULTIPLIER if game.params.get("bid_multiplier") else 1
        return -2.0 * (seats - 1) * multiplier * hands
    family = game.id
    if family == "vecchia":
        return -float(seats - 1) * hands
    if family in ("briscola", "briscola-31"):
        return -float(seats - 1 if seats == 3 else 1) * hands
    if family in ("madrasso", "tressette", "scopa", "scopone"):
        return -1.0
    if family in ("misere", "presidente", "tressette-pozzo", "tressette-non-prendere",
                  "tressette-toro"):
        return -float(seats - 1)
    return float(min(deal.returns, default=0.0))


def side_of(game: Game, seat: int) -> tuple[int, ...]:
    """The seats that share a forfeit with ``seat``: its team in a game of fixed partnerships,
    else the seat alone (Briscola chiamata's sides change every hand)."""
    for team in game.teams() or ():
        if seat in team:
            return tuple(team)
    return (seat,)


def losing_seats(game: Game, deal: DealResult) -> tuple[bool, ...]:
    """Per seat, True when it takes the loss of a forfeit: a forfeiting seat, and its side."""
    losing = [False] * len(deal.returns)
    for seat, forfeited in enumerate(forfeited_seats(deal)):
        if forfeited:
            for other in side_of(game, seat):
                losing[other] = True
    return tuple(losing)


def scored_returns(game: Game, deal: DealResult,
                   policy: ForfeitPolicy = DEFAULT_POLICY) -> tuple[float, ...]:
    """The deal's returns for the statistics: under ``loss`` each losing seat's is the worst
    the game allows; under ``stand`` the returns as played."""
    if policy is ForfeitPolicy.STAND or not any(forfeited_seats(deal)):
        return deal.returns
    worst = worst_return(game, deal)
    return tuple(worst if lost else value
                 for value, lost in zip(deal.returns, losing_seats(game, deal), strict=True))


def entrant_scores(game: Game, result: DuplicateResult, policy: ForfeitPolicy = DEFAULT_POLICY
                   ) -> tuple[list[float], list[int]]:
    """Per entrant of a set, its summed return for the statistics and the deals it lost by a
    forfeit (its own, or its side's under ``loss``; always 0 under ``stand``)."""
    totals = [0.0] * len(result.entrants)
    lost = [0] * len(result.entrants)
    for deal in result.deals:
        returns = scored_returns(game, deal, policy)
        losing = losing_seats(game, deal) if policy is ForfeitPolicy.LOSS else ()
        for seat, entrant in enumerate(deal.entrants):
            totals[entrant] += returns[seat]
            if losing and losing[seat]:
                lost[entrant] += 1
    return totals, lost


@dataclass
class FaultCount:
    """One bot's forfeits: deals forfeited, by reason code."""

    faults: Counter[str]

    @property
    def forfeits(self) -> int:
        """Deals forfeited."""
        return sum(self.faults.values())

    def to_dict(self) -> dict[str, Any]:
        """``{"faults": {"CRASH": 3}, "forfeits": 3}``."""
        return {"faults": dict(sorted(self.faults.items())), "forfeits": self.forfeits}

    def text(self) -> str:
        """``CRASH 3, TIMEOUT 1``, or ``–`` without a fault."""
        if not self.faults:
            return "–"
        order = {name: index for index, name in enumerate(FAULT_REASONS)}
        return ", ".join(f"{name} {count}" for name, count in sorted(
            self.faults.items(), key=lambda item: (order.get(item[0], len(order)), item[0])))


@dataclass(frozen=True)
class FaultEntry(Generic[BotId]):
    """One forfeited seat of one deal: where, who, why and what its bot wrote."""

    game: str
    match: str
    deal: int
    seat: int
    bot: BotId
    reason: str
    detail: str
    log: str
    """The end of the bot's captured output (its owner's log), as the record keeps it."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"game": self.game, "match": self.match, "deal": self.deal, "seat": self.seat,
                "bot": self.bot, "reason": self.reason, "detail": self.detail, "log": self.log}


LOG_EXCERPT_LINES = 8
"""The last lines of a bot's output a fault entry keeps."""


def log_excerpt(text: str, lines: int = LOG_EXCERPT_LINES) -> str:
    """The last non-empty lines of a bot's output."""
    kept = [line for line in text.splitlines() if line.strip()]
    return "\n".join(kept[-lines:])


def deal_faults(game: str, match: str, table: Sequence[BotId], result: DuplicateResult
                ) -> list[FaultEntry[BotId]]:
    """Every forfeited seat of a set's deals (``table[e]``: the bot of entrant ``e``)."""
    entries = []
    for index, deal in enumerate(result.deals):
        reports = deal.record.conduct.seats if deal.record is not None and \
            deal.record.conduct is not None else ()
        for seat, forfeited in enumerate(forfeited_seats(deal)):
            if forfeited:
                log = reports[seat].stderr if seat < len(reports) else ""
                entries.append(FaultEntry(game, match, index, seat, table[deal.entrants[seat]],
                                          deal.reason_names[seat], deal.details[seat],
                                          log_excerpt(log)))
    return entries


def fault_counts(entries: Iterable[FaultEntry[BotId]], bots: Iterable[BotId] = ()
                 ) -> dict[BotId, FaultCount]:
    """Each bot's forfeits by reason code (every bot of ``bots`` listed, with none)."""
    counts: dict[BotId, FaultCount] = {bot: FaultCount(Counter()) for bot in bots}
    for entry in entries:
        counts.setdefault(entry.bot, FaultCount(Counter())).faults[entry.reason] += 1
    return counts
