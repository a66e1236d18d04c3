"""Tressette incrociato su un toro: six players at three 4-seat tables at once
(docs/games/tressette_toro.md).

Rules summary:
- Positions in two facing rows: A1 A2 A3 / B1 B2 B3 (B1 faces A1). Seats 0-5 sit at positions
  A1 A2 A3 B1 B2 B3 in the first round; before round r (0-based) seat s moves to position
  (s + r) % 6, so partners and opponents change from round to round.
- Three tables, each a 4-seat Tressette game (``tressette``, docs/games/tressette.md, with the same
  options: accusi, mandare a monte, signals, first lead) with its own deck copy of
  ``ITALIAN_120``: copy a = Left {A1, A2, B1, B2}, copy b = Right {A2, A3, B2, B3}, copy c =
  Corners {A1, A3, B1, B3}. Playing order (the dealer's right first): Left A1 A2 B2 B1,
  Right A2 A3 B3 B2, Corners A1 B1 B3 A3 (the opposite direction, "as on a torus"). Partners
  sit diagonally: Left A1+B2 / A2+B1, Right A2+B3 / A3+B2, Corners A1+B3 / A3+B1. Each player
  sits at two tables.
- A round is one hand at each table. Each round one 120-card order is dealt: each table gets
  the cards of its copy in the order they appear, dealt as in 4-seat ``tressette`` (5 at a
  time from the dealer's right). A redeal at a table takes the next order and uses its copy.
  A seeded order is the three copies one after the other, each shuffled on its own.
  The first dealer of every table is its 4th seat in playing order; the player who led a
  table's hand deals its next one.
- Interleaving: the tables take turns, one decision each, in the order Left, Right, Corners,
  skipping a table whose hand is over; a round ends when all three hands are over.
- A player's round score is the sum of its side's points (card points // 3 + accusi) at its two
  tables. The match is ``rounds`` rounds (default 1) or, with ``target`` > 0, ends after the
  first round in which a player's total reaches the target.
- Returns (free-for-all): 0 until the end; then with k players sharing the highest total each
  of them gets 6 - k and every other player -k.

Observation of a seat: its two tables only. ``hand`` holds both hands (the copy of a card tells
its table), ``trick`` both tables' tricks, ``points`` and ``hand_sizes`` count those two tables,
``teammates`` are its two partners, ``events`` hold only those tables' events (and the public
round scores). ``current_player`` is shown only when one of its tables is to act (else -1);
``phase`` and ``dealer`` are those of the table to act, or of its first running table.

Events per table as in ``tressette`` (HAND_START, DEAL, PASS/REDEAL, DECLARE, PLAY, TRICK,
HAND_END with thirds per seat); after each round a public SCORE (round points per seat), and
MATCH_END (returns).

Actions (table t: 0 Left, 1 Right, 2 Corners):
| id       | meaning                                                        |
|----------|----------------------------------------------------------------|
| 0-119    | play that card (``ITALIAN_120`` id; its copy is the table)     |
| 120-182  | table t, 120 + 21 t + k: k 0-18 accuso code (``tressette`` 40-58), 19 keep, 20 monte |
| 183-542  | lead a card with a signal: 183 + (signal - 1) * 120 + card     |
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
from arena.games.cards import HIDDEN, ITALIAN_120
from arena.games.outcomes import side_outcome
from arena.games.params import GameSpec, Param, ParamValue
from arena.games.rng import shuffled_deck
from arena.games.tressette_core import (
    DECK_THIRDS,
    FIRST_LEADS,
    NUM_ACCUSI,
    REDEAL_RULES,
    SIGNAL_CHOICES,
    SIGNAL_NAMES,
    Status,
    Table,
    TablePhase,
    TableRules,
    allowed_signals,
    card_tables,
)
from arena.games.tricks import NO_TRUMP

NUM_SEATS: Final = 6
POSITIONS = ("A1", "A2", "A3", "B1", "B2", "B3")
TABLE_NAMES = ("left", "right", "corners")
TABLE_POSITIONS: Final[tuple[tuple[int, ...], ...]] = ((0, 1, 4, 3), (1, 2, 5, 4), (0, 3, 5, 2))
"""Per table, the positions in playing order (local seats 0-3; partners 0+2 and 1+3)."""
CARDS_PER_TABLE: Final = 40
EXTRAS_PER_TABLE: Final = NUM_ACCUSI + 2
TABLE_ACTION_BASE: Final = ITALIAN_120.size
SIGNAL_BASE: Final = TABLE_ACTION_BASE + 3 * EXTRAS_PER_TABLE
NUM_ACTIONS: Final = SIGNAL_BASE + len(SIGNAL_NAMES) * ITALIAN_120.size
TABLES: Final = card_tables(ITALIAN_120)


_TURN_ORDER: Final[tuple[tuple[int, ...], ...]] = ((1, 2, 0), (2, 0, 1), (0, 1, 2))
_REDEAL: Final = Status.REDEAL
_DONE: Final = int(TablePhase.DONE)
"""After table t has acted, the tables to try next, in order."""


def table_seats(table: int, round_number: int) -> tuple[int, ...]:
    """The seats at a table in a round, in playing order."""
    return tuple((position - round_number) % NUM_SEATS for position in TABLE_POSITIONS[table])


def table_of_action(action: int) -> int:
    """Which table an action belongs to."""
    if action < TABLE_ACTION_BASE:
        return action // CARDS_PER_TABLE
    if action < SIGNAL_BASE:
        return (action - TABLE_ACTION_BASE) // EXTRAS_PER_TABLE
    return ((action - SIGNAL_BASE) % ITALIAN_120.size) // CARDS_PER_TABLE


class ToroGame(Game):
    """Three 4-seat Tressette tables played at once by six players."""


    def __init__(self, spec: GameSpec, num_players: int, params: dict[str, ParamValue]) -> None:
        """Build one set of table rules per table."""
        super().__init__(spec, num_players, params)
        self.deck = ITALIAN_120
        self.points_total = DECK_THIRDS
        self.card_points = TABLES.thirds
        self.trick_strength = TABLES.strength
        self.rounds = int(params["rounds"])
        self.target = int(params["target"])
        self.table_rules = tuple(
            TableRules(
                deck=ITALIAN_120, tables=TABLES, size=4, num_seats=NUM_SEATS, copy=table,
                hand_size=10, packet=5, accusi=True, redeal_rule=str(params["redeal_rule"]),
                signals=allowed_signals(str(params["signals"])),
                four_of_denari_leads=params["first_lead"] == "four_of_denari",
                accuso_lost_on_cappotto=bool(params["accuso_lost_on_cappotto"]),
                accuso_base=TABLE_ACTION_BASE + table * EXTRAS_PER_TABLE,
                keep_action=TABLE_ACTION_BASE + table * EXTRAS_PER_TABLE + NUM_ACCUSI,
                monte_action=TABLE_ACTION_BASE + table * EXTRAS_PER_TABLE + NUM_ACCUSI + 1,
                signal_base=SIGNAL_BASE,
            )
            for table in range(3)
        )

    def new_initial_state(self, seed: int, deal: DealInput = None) -> ToroState:
        """A new match."""
        return ToroState(self, seed, deal)


def copy_order(order: list[int], table: int) -> list[int]:
    """The cards of one table's deck copy, in their order within a 120-card deal order."""
    low = table * CARDS_PER_TABLE
    high = low + CARDS_PER_TABLE
    return [card for card in order if low <= card < high]


class ToroState(State[ToroGame]):
    """A match of three interleaved Tressette tables."""

    __slots__ = ("_masks", "_over", "_round", "_tables", "_totals", "_turn")


    def _start(self) -> None:
        """Seat the players and deal the first round."""
        game = self.game
        self._audience = []
        self._tables = [Table(rules, table_seats(index, 0), self._log)
                        for index, rules in enumerate(game.table_rules)]
        self._totals = [0] * NUM_SEATS
        self._round = 0
        self._over = False
        self._masks = [0, 0, 0]
        self._start_round()

    # --- rounds and turns --------------------------------------------------------------------

    def _next_table_orders(self) -> list[list[int]]:
        """The next deal as each table's 40 cards in order (the deal records the 120-card order).

        A seeded order is copy a's 40 cards, then copy b's, then copy c's, each a uniform
        shuffle of one 40-card deck.
        """
        index = self._deal_count
        if index < len(self._injected):
            order = self._next_deal()
            return [copy_order(order, table) for table in range(3)]
        self._deal_count += 1
        orders = [[table * CARDS_PER_TABLE + card
                   for card in shuffled_deck(CARDS_PER_TABLE, self._seed, index, table)]
                  for table in range(3)]
        self._deals.append((*orders[0], *orders[1], *orders[2]))
        return orders

    def _table_order(self, table: int) -> list[int]:
        """The next deal order, restricted to one table's copy."""
        return self._next_table_orders()[table]

    def _tag(self, mask: int) -> None:
        """Mark the events logged since the last tag as visible to ``mask`` (a seat bit mask)."""
        audience = self._audience
        assert audience is not None
        missing = len(self._log) - len(audience)
        if missing:
            audience.extend([mask] * missing)

    def _start_round(self) -> None:
        """Seat the round's players and deal one hand at each table."""
        orders = self._next_table_orders()
        for index, table in enumerate(self._tables):
            seats = table_seats(index, self._round)
            table.seat_at(seats)
            self._masks[index] = sum(1 << seat for seat in seats)
            cards = orders[index]
            if self._round == 0:
                table.start_hand(cards, 0, first_hand=True)
            else:
                table.next_hand(cards, self._round)
            self._tag(self._masks[index])
        self._turn = 0
        self._current = self._tables[0].seats[self._tables[0].current]

    def _compute_legal(self) -> list[int]:
        """The legal actions at the table to act."""
        if self._over:
            return []
        return self._tables[self._turn].table_legal()

    def _apply(self, action: int) -> None:
        """Apply an action at the table to act, then pass the turn to the next table."""
        turn = self._turn
        tables = self._tables
        table = tables[turn]
        if table.apply(action) == _REDEAL:
            table.start_hand(self._table_order(turn), self._round, self._round == 0,
                             redeal=True)
        tags = self._audience
        assert tags is not None
        missing = len(self._log) - len(tags)
        if missing == 1:
            tags.append(self._masks[turn])
        else:
            tags.extend([self._masks[turn]] * missing)
        for following in _TURN_ORDER[turn]:
            waiting = tables[following]
            if waiting.phase != _DONE:
                self._turn = following
                self._current = waiting.seats[waiting.current]
                return
        self._end_round()

    def _end_round(self) -> None:
        """Add each player's points at its two tables; end the match or start the next round."""
        game = self.game
        round_points = [0] * NUM_SEATS
        for table in self._tables:
            sides = table.side_points()
            for local, seat in enumerate(table.seats):
                round_points[seat] += sides[local % 2]
        for seat, points in enumerate(round_points):
            self._totals[seat] += points
        self._log.append((EventKind.SCORE, -1, (), tuple(round_points), ALL_SEATS))
        self._round += 1
        best = max(self._totals)
        done = best >= game.target if game.target > 0 else self._round >= game.rounds
        if not done:
            self._tag(ALL_SEATS)
            self._start_round()
            return
        winners = [seat for seat in range(NUM_SEATS) if self._totals[seat] == best]
        outcome = side_outcome(winners, NUM_SEATS)
        for seat, value in enumerate(outcome):
            self._returns[seat] = float(value)
        self._over = True
        self._current = TERMINAL
        self._log.append((EventKind.MATCH_END, -1, (), tuple(outcome), ALL_SEATS))
        self._tag(ALL_SEATS)

    # --- views ------------------------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        """A card (``3Db``) or a table's action such as ``right:keep``."""
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"{action} is not a {self.game.id} action (0..{NUM_ACTIONS - 1})")
        if action < TABLE_ACTION_BASE:
            return ITALIAN_120.short(action)
        table = table_of_action(action)
        name = self.game.table_rules[table].action_name(action)
        return name if action >= SIGNAL_BASE else f"{TABLE_NAMES[table]}:{name}"

    def action_meaning(self, action: int) -> ActionMeaning:
        """As in ``tressette`` (PLAY, DECLARE, KEEP, REDEAL), with ``table`` the action's table;
        one shared instance per action (the game's ``meanings``, keyed by the action)."""
        game = self.game
        meaning = game.meanings.get(action)
        if meaning is None:
            label = self.action_to_string(action)
            table = table_of_action(action)
            meaning = game.meanings[action] = game.table_rules[table].action_meaning(
                action, label, table)
        return meaning

    def tables_of(self, seat: int) -> list[int]:
        """The two tables a seat sits at this round."""
        return [index for index, mask in enumerate(self._masks) if mask >> seat & 1]

    def observation(self, seat: int) -> Observation:
        """The seat's two tables: both hands, both tricks, their public history; round scores."""
        mine = self.tables_of(seat)
        tables = [self._tables[index] for index in mine]
        acting = not self._over and self._turn in mine
        focus = self._tables[self._turn] if acting else next(
            (table for table in tables if table.phase != TablePhase.DONE), tables[0])
        hand: list[int] = []
        hand_sizes = [0] * NUM_SEATS
        points = [0] * NUM_SEATS
        trick: list[tuple[int, int]] = []
        teammates = []
        for table in tables:
            local = table.seats.index(seat)
            hand.extend(table.hand_of(local))
            teammates.append(table.seats[(local + 2) % 4])
            trick.extend(table.trick_pairs())
            for index, other in enumerate(table.seats):
                hand_sizes[other] += table.hand_size_of(index)
                points[other] += table.thirds[index]
        visible_current = self._current if acting or self._over else HIDDEN
        return Observation(
            game=self.game.id,
            seat=seat,
            num_seats=NUM_SEATS,
            hand_number=self._round,
            dealer=focus.seats[focus.dealer],
            phase="over" if self._over else focus.phase_name(),
            current_player=visible_current,
            hand=tuple(sorted(hand)),
            hand_sizes=tuple(hand_sizes),
            trump_suit=NO_TRUMP,
            trick=tuple(trick),
            teammates=tuple(sorted(teammates)),
            points=tuple(points),
            scores=tuple(float(total) for total in self._totals),
            events=self._events_for(seat),
            legal_actions=tuple(self._compute_legal()) if seat == self._current else (),
        )

    def clone(self) -> ToroState:
        """An independent copy (the tables are copied too)."""
        twin = super().clone()
        twin._tables = [table.clone(twin._log) for table in self._tables]
        return twin


def check_params(seats: int, values: dict[str, ParamValue]) -> str | None:
    """A match is either a number of rounds or a target."""
    if int(values["target"]) > 0 and int(values["rounds"]) != 1:
        return "give either rounds or a target (target > 0 plays until a player reaches it)"
    return None


PARAMS = (
    Param("rounds", 1, "rounds in a match (one hand at each table), when there is no target",
          minimum=1, maximum=1000),
    Param("target", 0, "if > 0, play rounds until a player's total reaches this", minimum=0,
          maximum=10000),
    Param("accuso_lost_on_cappotto", False, "a side that takes no trick loses its accusi"),
    Param("redeal_rule", "seed", "which hands may demand a redeal before the first lead",
          choices=REDEAL_RULES),
    Param("signals", "none", "a lead may carry this signal (all: any of them), shown to the "
          "table", choices=SIGNAL_CHOICES),
    Param("first_lead", "dealer_right", "who leads a table's first hand", choices=FIRST_LEADS),
)


def _make(spec: GameSpec, players: int, params: dict[str, ParamValue]) -> Game:
    """The game factory."""
    return ToroGame(spec, players, params)


SPECS = (
    GameSpec(
        id="tressette-toro", title="Tressette incrociato su un toro", section="1.9", seats=(6,),
        params=PARAMS, factory=_make, cross_check=check_params,
        summary="six players, three Tressette tables at once; a player scores at two tables",
        extra_configurations=(
            (6, (("rounds", 2), ("signals", "volo"), ("first_lead", "four_of_denari"))),
            (6, (("target", 20), ("redeal_rule", "low_value"))),
        ),
    ),
)
