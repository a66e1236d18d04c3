"""Tressette with 4 seats in pairs or 2 seats with a stock (docs/games/tressette.md).

Rules summary:
- Italian 40-card deck. Tressette order 3 2 A R C F 7 6 5 4; no trumps. The leader plays any
  card; the others must follow the led suit when they can; the highest card of the led suit
  wins and its winner leads next.
- Card points in thirds: A 3, 3/2/R/C/F 1, others 0; the last trick +3 (one point). A side's
  points of a hand are its thirds // 3 plus its accusi (11 a hand without accusi).
- 4 seats: partners opposite (0+2 against 1+3). The dealer deals 10 cards each, 5 at a time,
  starting at the dealer's right: ``order[0:5]`` to dealer+1, ``[5:10]`` to dealer+2,
  ``[10:15]`` to dealer+3, ``[15:20]`` to the dealer, then ``[20:40]`` the same way.
- Mandare a monte: before the first lead every seat in turn from the leader keeps its
  hand (``keep``) or, with a qualifying hand, demands a redeal (``monte``); the hand is shown
  and thrown in and the same dealer deals again. ``redeal_rule``: ``seed`` (exactly one A/2/3
  and nine 4-7, or exactly three figures and seven 4-7), ``low_value`` (worth < 1 point),
  ``few_figures`` (no A/2/3 and < 3 figures) or ``none`` (no such decision). Every seat is
  asked, qualifying or not, so that being asked tells the table nothing about a hand. After
  a REDEAL event the new DEAL events follow within the same hand (no new HAND_START).
- Accusi (4 seats): during trick 1, at their own turn before playing, a player may declare each
  accuso the hand holds: three aces, twos or threes (3 points, naming the missing suit), four of
  them (4 points), the napoletana A-2-3 of a suit (3 points); combinable. A declaration is
  public (DECLARE event: the cards and values ``(kind, rank, suit, points)`` with kind 1 three
  of a kind + missing suit, 2 four of a kind, 3 napoletana + its suit). Accusi are credited at
  the end of the hand; with ``accuso_lost_on_cappotto`` a side that took no trick loses them.
- Signals (4 seats): with ``signals`` on, a lead may carry busso, striscio or volo (all,
  or only the one named); the PLAY event then has ``values=(signal,)``, 1 busso, 2 striscio,
  3 volo. Default ``none``.
- Leader: by default (``first_lead=dealer_right``) seat dealer+1 leads; the first dealer is
  seat n-1. With ``four_of_denari`` the holder of the 4 of denari leads the first hand (a
  public REVEAL event shows the card). After each hand the player who led it deals the next,
  so the lead moves to the right.
- 2 seats: 10 cards each dealt one at a time (``order[0]`` to the non-dealer, ``order[1]`` to the
  dealer, ... up to ``order[19]``); ``order[20:40]`` is the face-down stock, drawn from
  ``order[20]`` on. After each trick the winner draws first, then the other; every drawn card
  is shown to both (public DRAW events). Follow suit throughout; the last 10 tricks are played
  from the hands. No accusi, mandare a monte or signals with 2 seats (the source text describes them
  for four players only); those options are rejected there.
- Match: to ``target`` game points (default 21; 31 and 41 are usual), checked at the end of
  each hand; if both sides are past it the higher wins, a tie plays on. With
  ``stop_immediately`` the hand is counted after every trick as if it ended there (that trick
  taking the last-trick point, accusi included); as soon as a side reaches the target the hand
  and the match end, the higher side winning if both do and the side that took that trick on
  a tie.

Events: HAND_START, DEAL (private), REVEAL (the 4 of denari, with ``four_of_denari``), PASS
(kept the hand) or REDEAL (the demander's hand), DECLARE, PLAY, TRICK (values: card thirds of
the trick), DRAW (2 seats, public), HAND_END (values: thirds per seat including the last
trick), SCORE (game points of the hand, a side's repeated for both partners), MATCH_END.
``points`` in an observation are the hand's thirds per seat and ``scores`` the match score
per seat. Returns: 0 until the match ends, then +1 for each seat of
the winning side and -1 for each loser.

Actions:
| id      | meaning                                                           |
|---------|-------------------------------------------------------------------|
| 0-39    | play that card                                                    |
| 40-51   | accuso three of a kind: 40 + rank index * 4 + missing suit (A 0, 2 1, 3 2) |
| 52-54   | accuso four aces, twos, threes                                    |
| 55-58   | accuso napoletana of suit 0-3                                     |
| 59      | keep the hand (mandare a monte phase)                             |
| 60      | demand a redeal (mandare a monte)                                 |
| 61-180  | lead a card with a signal: 61 + (signal - 1) * 40 + card          |
"""

from __future__ import annotations

from typing import Final

from arena.games.api import (
    ALL_SEATS,
    TERMINAL,
    ActionMeaning,
    DealInput,
    EventKind,
    Game,
    Observation,
    State,
)
from arena.games.cards import ITALIAN_40
from arena.games.outcomes import pair_outcome
from arena.games.params import GameSpec, Param, ParamValue
from arena.games.tressette_core import (
    DECK_THIRDS,
    FIRST_LEADS,
    NUM_ACCUSI,
    REDEAL_RULES,
    SIGNAL_CHOICES,
    SIGNAL_NAMES,
    TABLE_SLOTS,
    TableMixin,
    TableRules,
    allowed_signals,
    card_tables,
)
from arena.games.tricks import NO_TRUMP

TABLES: Final = card_tables(ITALIAN_40)
ACCUSO_BASE: Final = ITALIAN_40.size
KEEP: Final = ACCUSO_BASE + NUM_ACCUSI
MONTE: Final = KEEP + 1
SIGNAL_BASE: Final = MONTE + 1
NUM_ACTIONS: Final = SIGNAL_BASE + len(SIGNAL_NAMES) * ITALIAN_40.size


class TressetteGame(Game):
    """Tressette with 4 seats (pairs) or 2 seats (stock)."""


    def __init__(self, spec: GameSpec, num_players: int, params: dict[str, ParamValue]) -> None:
        """Build the table rules from the seat count and parameters."""
        super().__init__(spec, num_players, params)
        self.deck = ITALIAN_40
        self.points_total = DECK_THIRDS
        self.card_points = TABLES.thirds
        self.trick_strength = TABLES.strength
        four = num_players == 4
        self.target = int(params["target"])
        self.stop_immediately = bool(params["stop_immediately"])
        self.team_of = tuple(seat % 2 for seat in range(num_players))
        self.rules = TableRules(
            deck=ITALIAN_40, tables=TABLES, size=num_players, num_seats=num_players, copy=0,
            hand_size=10, packet=5 if four else 1, accusi=four,
            redeal_rule=str(params["redeal_rule"]) if four else "none",
            signals=allowed_signals(str(params["signals"])) if four else (),
            four_of_denari_leads=params["first_lead"] == "four_of_denari",
            accuso_lost_on_cappotto=bool(params["accuso_lost_on_cappotto"]),
            accuso_base=ACCUSO_BASE, keep_action=KEEP, monte_action=MONTE,
            signal_base=SIGNAL_BASE,
        )

    def teams(self) -> tuple[tuple[int, ...], ...] | None:
        """Pairs 0+2 and 1+3 with four seats."""
        return ((0, 2), (1, 3)) if self.num_players == 4 else None

    def new_initial_state(self, seed: int, deal: DealInput = None) -> TressetteState:
        """A new match."""
        return TressetteState(self, seed, deal)


class TressetteState(State[TressetteGame], TableMixin):
    """A Tressette match in progress: the state is its own (single) table."""

    __slots__ = (*TABLE_SLOTS, "_over", "_scores")


    def _start(self) -> None:
        """Deal the first hand."""
        game = self.game
        self.init_table(game.rules, tuple(range(game.num_players)))
        self._scores = [0, 0]
        self._over = False
        self.start_hand(self._next_deal(), 0, first_hand=True)

    # --- the API: the table's own legal actions and moves -----------------------------------

    def _compute_legal(self) -> list[int]:
        """The legal actions of the table."""
        return self.table_legal()

    def _apply(self, action: int) -> None:
        """Apply an action at the table."""
        self.table_apply(action)


    # --- hand and match flow ----------------------------------------------------------------

    def _after_trick(self) -> None:
        """``stop_immediately``: end the match after a trick that takes a side to the target."""
        if not self.game.stop_immediately:
            return
        running = list(self.side_points())
        running[self.leader % 2] += 1
        if max(self._scores[0] + running[0], self._scores[1] + running[1]) < self.game.target:
            return
        self.stop_hand()
        self._score_hand()
        winner = self._winner(self.leader % 2)
        assert winner is not None
        self._finish(winner)

    def _after_hand(self) -> None:
        """Score a complete hand; end the match or deal the next hand."""
        self._score_hand()
        winner = self._winner(self.leader % 2 if self.game.stop_immediately else None)
        if winner is not None:
            self._finish(winner)
            return
        self.next_hand(self._next_deal(), self.hand_number + 1)

    def _after_redeal(self) -> None:
        """The same dealer deals again."""
        self.start_hand(self._next_deal(), self.hand_number, self.hand_number == 0, redeal=True)

    def _score_hand(self) -> None:
        """Add the hand's side points to the match score and log them."""
        points = self.side_points()
        self._scores[0] += points[0]
        self._scores[1] += points[1]
        team_of = self.game.team_of
        self._log.append((EventKind.SCORE, self.seats[self.dealer], (),
                          tuple(points[team_of[seat]] for seat in range(self.game.num_players)),
                          ALL_SEATS))

    def _winner(self, last_taker_side: int | None) -> int | None:
        """The side that has won the match, if any (a tie goes to ``last_taker_side``)."""
        target = self.game.target
        past = [side for side in (0, 1) if self._scores[side] >= target]
        if len(past) == 1:
            return past[0]
        if not past:
            return None
        if self._scores[0] != self._scores[1]:
            return 0 if self._scores[0] > self._scores[1] else 1
        return last_taker_side

    def _finish(self, winning_side: int) -> None:
        """Set the returns and end the match."""
        game = self.game
        outcome = pair_outcome(winning_side, game.num_players, game.team_of)
        for seat, value in enumerate(outcome):
            self._returns[seat] = float(value)
        self._over = True
        self._current = TERMINAL
        self._log.append((EventKind.MATCH_END, -1, (), tuple(outcome), ALL_SEATS))

    # --- views ------------------------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        """A card (``3D``), an accuso, ``keep``, ``monte`` or a signalled lead (``3D+volo``)."""
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"{action} is not a {self.game.id} action (0..{NUM_ACTIONS - 1})")
        return self.game.rules.action_name(action)

    def action_meaning(self, action: int) -> ActionMeaning:
        """PLAY (a signalled lead: ``value`` the signal), accuso DECLARE, KEEP or REDEAL; one
        shared instance per action (the game's ``meanings``, keyed by the action)."""
        game = self.game
        meaning = game.meanings.get(action)
        if meaning is None:
            meaning = game.meanings[action] = game.rules.action_meaning(
                action, self.action_to_string(action))
        return meaning

    def observation(self, seat: int) -> Observation:
        """Own hand, the trick, the public history (with accusi and signals), scores."""
        game = self.game
        n = game.num_players
        return Observation(
            game=game.id,
            seat=seat,
            num_seats=n,
            hand_number=self.hand_number,
            dealer=self.seats[self.dealer],
            phase="over" if self._over else self.phase_name(),
            current_player=self._current,
            hand=tuple(self.hand_of(seat)),
            hand_sizes=tuple(self.hand_size_of(s) for s in range(n)),
            trump_suit=NO_TRUMP,
            trick=self.trick_pairs(),
            stock_size=len(self.stock),
            teammates=((seat + 2) % 4,) if n == 4 else (),
            points=tuple(self.thirds),
            scores=tuple(float(self._scores[game.team_of[s]]) for s in range(n)),
            events=self._events_for(seat),
            legal_actions=tuple(self._compute_legal()) if seat == self._current else (),
        )


PARAMS = (
    Param("target", 21, "game points that win the match (21, 31 or 41 are usual)", minimum=1,
          maximum=1000),
    Param("stop_immediately", False, "the match ends as soon as a side reaches the target, "
          "even in the middle of a hand"),
    Param("accuso_lost_on_cappotto", False, "a side that takes no trick loses its accusi"),
    Param("redeal_rule", "seed", "which hands may demand a redeal before the first lead",
          choices=REDEAL_RULES),
    Param("signals", "none", "a lead may carry this signal (all: any of them), shown to all",
          choices=SIGNAL_CHOICES),
    Param("first_lead", "dealer_right", "who leads the first hand of the match",
          choices=FIRST_LEADS),
)

FOUR_SEAT_OPTIONS = ("accuso_lost_on_cappotto", "signals", "first_lead")


def check_seats(seats: int, values: dict[str, ParamValue]) -> str | None:
    """With 2 seats the options of accusi, redeals, signals and the first lead do not apply."""
    if seats != 2:
        return None
    defaults = {param.name: param.default for param in PARAMS}
    for name in FOUR_SEAT_OPTIONS:
        if values[name] != defaults[name]:
            return (f"{name}={values[name]} needs 4 seats (2 seats have no accusi, signals or "
                    f"first-lead variant); leave it at {defaults[name]}")
    if values["redeal_rule"] not in (defaults["redeal_rule"], "none"):
        return (f"redeal_rule={values['redeal_rule']} needs 4 seats (2 seats never redeal); "
                f"leave it at {defaults['redeal_rule']}")
    return None


def _make(spec: GameSpec, players: int, params: dict[str, ParamValue]) -> Game:
    """The game factory."""
    return TressetteGame(spec, players, params)


SPECS = (
    GameSpec(
        id="tressette", title="Tressette", section="1.6", seats=(4, 2), params=PARAMS,
        factory=_make, cross_check=check_seats,
        summary="follow suit, no trumps, 3 2 A high; accusi and mandare a monte; to 21",
        extra_configurations=(
            (4, (("signals", "all"), ("first_lead", "four_of_denari"),
                 ("accuso_lost_on_cappotto", True), ("redeal_rule", "low_value"))),
            (4, (("stop_immediately", True), ("target", 31), ("redeal_rule", "few_figures"))),
            (2, (("stop_immediately", True), ("target", 31))),
        ),
    ),
)
