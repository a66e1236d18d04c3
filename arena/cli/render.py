"""Show a match hand by hand: deals, auction, tricks with their winners, scores.

The display knows no particular game: it reads the unmasked event log, names cards with the
game's deck and names decisions with ``action_to_string``. Event kinds it has no special form
for are shown by their name, seat, cards and values. What a record says that a bot or its
author wrote (a player's name, a fault's text, a parameter) is shown with ``safe_text``, in
``Text`` objects that rich never reads as markup.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from rich.console import Console, JustifyMethod
from rich.table import Table
from rich.text import Text

from arena.games import EventKind, Game, load_game
from arena.games.cards import COPY_LETTERS, HIDDEN, Deck
from arena.match.record import MatchRecord
from arena.match.results import DealResult, DuplicateResult
from arena.match.safetext import safe_text
from arena.match.timeline import Step, match_steps

RED_SUITS = frozenset("♥♦")
"""Suit symbols shown in red."""

INDENT = "  "

VERBS = {
    EventKind.DEAL: "is dealt",
    EventKind.BID: "bids",
    EventKind.PASS: "passes",
    EventKind.CALL: "calls",
    EventKind.COMMIT: "commits",
    EventKind.PLAY: "plays",
    EventKind.PLAY_FACE_DOWN: "plays face down",
    EventKind.REVEAL: "reveals",
    EventKind.DRAW: "draws",
    EventKind.DECLARE: "declares",
    EventKind.SWAP: "swaps",
    EventKind.CAPTURE: "captures",
}
"""How a seat's event reads: ``seat 2 bids ...``."""

HAND_KINDS = frozenset({EventKind.HAND_START, EventKind.HAND_END, EventKind.SCORE,
                        EventKind.REDEAL, EventKind.MATCH_END, EventKind.CAPTURE})
"""Kinds that close the plays waiting for a trick."""

CHOICE_KINDS = frozenset({EventKind.BID, EventKind.PASS, EventKind.CALL, EventKind.COMMIT})
"""Kinds shown by their action's name, which says what their values say."""

PLAY_KINDS = frozenset({EventKind.PLAY, EventKind.PLAY_FACE_DOWN})


def scopa_note(values: Sequence[int]) -> str:
    """A Scopa capture's flag: `` · scopa`` when it took every table card, else nothing."""
    return " · scopa" if values and values[0] else ""


CAPTURE_NOTES: dict[str, Callable[[Sequence[int]], str]] = {
    "scopa": scopa_note, "scopone": scopa_note}
"""How a CAPTURE's values read, by game id; other games' values are shown as numbers."""


def number(value: float) -> str:
    """A number without needless decimals."""
    return f"{value:g}"


def signed(value: float) -> str:
    """A score with its sign (zero has none)."""
    return f"{value:+g}" if value else "0"


def seat_name(seat: int) -> str:
    """How a seat is named."""
    return f"seat {seat}"


@dataclass
class _Play:
    """A card played since the last trick; ``shown`` once it has had a line of its own."""

    seat: int
    card: int
    face_down: bool
    shown: bool = False


class EventPrinter:
    """Turns the steps of a match into display lines, for any game."""

    def __init__(self, deck: Deck, teams: Sequence[Sequence[int]] | None = None,
                 capture_note: Callable[[Sequence[int]], str] | None = None) -> None:
        """Name cards with ``deck``; add team totals to card points when ``teams`` is given;
        read a CAPTURE's values with ``capture_note`` when given."""
        self.deck = deck
        self.teams = teams
        self.capture_note = capture_note
        self._plays: list[_Play] = []
        self._draws: list[Step] = []
        self._tricks = 0
        self._hands = 0

    # --- feeding -----------------------------------------------------------------------------

    def feed(self, step: Step) -> list[Text]:
        """The lines an event adds.

        Plays wait for their trick; a decision or the end of a hand in between shows them one
        by one first, so the lines keep the order of play. Consecutive draws share a line.
        """
        kind = step.event.kind
        lines = [] if kind == EventKind.DRAW else self._flush_draws()
        if kind in PLAY_KINDS:
            self._plays.append(_Play(step.event.seat, _first(step.event.cards),
                                     kind == EventKind.PLAY_FACE_DOWN))
            return lines
        if kind == EventKind.REVEAL and self._reveals_table_cards(step):
            return lines
        if kind == EventKind.TRICK:
            lines.append(self._trick(step))
            return lines
        if kind == EventKind.DRAW:
            self._draws.append(step)
            return lines
        if step.label is not None or kind in HAND_KINDS:
            lines.extend(self._flush_plays())
        lines.extend(self.describe(step))
        return lines

    def finish(self) -> list[Text]:
        """Lines still held back at the end of the match."""
        return self._flush_draws() + self._flush_plays()

    # --- one event ---------------------------------------------------------------------------

    def describe(self, step: Step) -> list[Text]:
        """The lines of an event that is neither a play, a trick nor a draw."""
        event = step.event
        kind = event.kind
        if kind == EventKind.HAND_START:
            return self._hand_start(step)
        if kind == EventKind.TRUMP:
            return [self._trump(step)]
        if kind == EventKind.HAND_END:
            return self._hand_end(step)
        if kind == EventKind.SCORE:
            return [_line("hand score  ", self._per_seat(event.values, signed))]
        if kind == EventKind.REDEAL:
            return [_line("redeal: the hand is thrown in and dealt again")]
        if kind == EventKind.MATCH_END:
            return [_line("match over")]
        if kind == EventKind.PASS:
            return [_line(seat_name(event.seat), " passes")]
        return [self._seat_event(step)]

    def _hand_start(self, step: Step) -> list[Text]:
        """A heading for a new hand."""
        event = step.event
        self._tricks = 0
        self._hands += 1
        ordinal = event.values[0] + 1 if event.values else self._hands
        heading = Text(f"Hand {ordinal}", style="bold")
        if event.seat >= 0:
            heading.append(f" · dealer {seat_name(event.seat)}")
        return ([Text()] if self._hands > 1 else []) + [heading]

    def _trump(self, step: Step) -> Text:
        """The trump suit and the card that shows it."""
        event = step.event
        has_suit = bool(event.values) and 0 <= event.values[0] < len(self.deck.suit_symbols)
        if not has_suit and not event.cards:
            return _line("no trump")
        line = _line("trump")
        if has_suit:
            line.append(" ")
            line.append_text(self._suit(event.values[0]))
        if event.cards:
            line.append(" (face-up ")
            line.append_text(self.cards(event.cards))
            line.append(")")
        return line

    def _hand_end(self, step: Step) -> list[Text]:
        """Card points per seat (and side), and the cards no trick took."""
        event = step.event
        lines = []
        if event.values:
            points = _line("card points  ", self._per_seat(event.values, number))
            if self.teams and all(s < len(event.values) for team in self.teams for s in team):
                sides = [f"seats {'+'.join(map(str, team))}: "
                         f"{number(sum(event.values[s] for s in team))}" for team in self.teams]
                points.append(f"  ({', '.join(sides)})")
            lines.append(points)
        if event.cards:
            lines.append(_line("not in any trick  ", self.cards(event.cards)))
        return lines

    def _seat_event(self, step: Step) -> Text:
        """A seat's event: ``seat 1 bids <action>`` or ``seat 0 swaps <cards> [<action>]``."""
        event = step.event
        kind = event.kind
        if kind == EventKind.DEAL and event.seat < 0:
            return _line("dealt to the table ", self.cards(event.cards))
        verb = VERBS.get(kind, kind.name.lower().replace("_", " "))
        who = f"{seat_name(event.seat)} " if event.seat >= 0 else ""
        line = _line(who + verb)
        if kind == EventKind.CAPTURE and self.capture_note is not None:
            line.append(" ")
            line.append_text(self.cards(event.cards))
            line.append(self.capture_note(event.values))
            return line
        label = step.label
        named = False
        if label and kind in CHOICE_KINDS:
            named_text, named = self._with_symbols(_without_kind_word(label, kind), event.cards)
            line.append(" ")
            line.append_text(named_text)
        if event.cards and not named:
            line.append(" ")
            line.append_text(self.cards(event.cards))
        if event.values and not (label and kind in CHOICE_KINDS):
            line.append(" " + ", ".join(number(value) for value in event.values))
        if label and kind not in CHOICE_KINDS:
            line.append(f" [{label}]")
        return line

    # --- held-back events --------------------------------------------------------------------

    def _reveals_table_cards(self, step: Step) -> bool:
        """True when a reveal only turns up face-down cards of the current trick."""
        cards = set(step.event.cards)
        found = [play for play in self._plays if play.face_down and play.card in cards]
        return bool(cards) and len(found) == len(cards)

    def _trick(self, step: Step) -> Text:
        """``trick N  seat A card · seat B card  -> seat W takes P points``."""
        event = step.event
        self._tricks += 1
        line = _line(f"trick {self._tricks}  ")
        for index, card in enumerate(event.cards):
            play = next((p for p in reversed(self._plays) if p.card == card), None)
            if play is not None:
                self._plays.remove(play)
            if index:
                line.append(" · ")
            line.append(f"{seat_name(play.seat) if play else '?'} ")
            line.append_text(self.card(card))
            if play is not None and play.face_down:
                line.append(" (face down)")
        line.append("  → ")
        line.append(seat_name(event.seat), style="bold")
        if event.values:
            points = event.values[0]
            line.append(f" takes {number(points)} point{'' if points == 1 else 's'}")
        else:
            line.append(" takes the trick")
        return line

    def _flush_plays(self) -> list[Text]:
        """Plays not yet shown, one line each.

        They stay to name the seats of their trick; the latest play of a card is the one a
        trick takes, so a play whose trick never came (a hand that ended early) does no harm.
        """
        lines = []
        for play in self._plays:
            if not play.shown:
                verb = " plays face down " if play.face_down else " plays "
                lines.append(_line(seat_name(play.seat), verb, self.card(play.card)))
                play.shown = True
        return lines

    def _flush_draws(self) -> list[Text]:
        """Consecutive draws as one line."""
        if not self._draws:
            return []
        line = _line("draws  ")
        for index, step in enumerate(self._draws):
            if index:
                line.append(" · ")
            line.append(f"{seat_name(step.event.seat)} ")
            line.append_text(self.cards(step.event.cards))
        self._draws = []
        return [line]

    # --- names -------------------------------------------------------------------------------

    def card(self, card: int) -> Text:
        """A card's short name with its suit symbol, red for hearts and diamonds."""
        name = self.deck.short(card, symbols=True)
        red = card != HIDDEN and any(symbol in name for symbol in RED_SUITS)
        return Text(name, style="red" if red else "")

    def cards(self, cards: Iterable[int]) -> Text:
        """Cards separated by spaces."""
        return Text(" ").join(self.card(card) for card in cards)

    def _suit(self, suit: int) -> Text:
        """A suit symbol."""
        symbol = self.deck.suit_symbols[suit]
        return Text(symbol, style="red" if symbol in RED_SUITS else "")

    def _with_symbols(self, label: str, cards: Sequence[int]) -> tuple[Text, bool]:
        """The action name with the event's cards shown by suit symbol, and whether it names
        every one of them."""
        text = Text(label)
        named = True
        for card in cards:
            if card == HIDDEN:
                continue
            pattern = rf"(?<!\w){re.escape(self.deck.short(card))}(?!\w)"
            found = re.search(pattern, text.plain)
            if found is None:
                named = named and self.deck.short(card, symbols=True) in text.plain
                continue
            start, end = found.span()
            text = Text.assemble(text[:start], self.card(card), text[end:])
        return text, named

    def _per_seat(self, values: Sequence[float], form: Callable[[float], str]) -> str:
        """``seat 0 70 · seat 1 50``."""
        return " · ".join(f"{seat_name(seat)} {form(value)}" for seat, value in enumerate(values))


def _without_kind_word(label: str, kind: EventKind) -> str:
    """``bid 2 a 89`` for a BID reads ``2 a 89`` after ``bids``."""
    word, _, rest = label.partition(" ")
    return rest if rest and word.lower() == kind.name.lower() else label


def _first(cards: Sequence[int]) -> int:
    """The card of a one-card event (``HIDDEN`` when it has none)."""
    return cards[0] if cards else HIDDEN


def _line(*parts: str | Text) -> Text:
    """An indented line made of parts."""
    line = Text(INDENT)
    for part in parts:
        if isinstance(part, Text):
            line.append_text(part)
        else:
            line.append(part)
    return line


def match_lines(record: MatchRecord, game: Game | None = None) -> list[Text]:
    """Every line of a match's hand-by-hand display."""
    game = game or record.make_game()
    printer = EventPrinter(game.deck, game.teams(), CAPTURE_NOTES.get(game.id))
    lines: list[Text] = []
    for step in match_steps(game, record.seed, record.actions):
        lines.extend(printer.feed(step))
    lines.extend(printer.finish())
    return lines


def header(record: MatchRecord, game: Game) -> list[Text]:
    """The game, seats, seed, policies and changed parameters."""
    title = Text(game.spec.title, style="bold")
    title.append(f" · {game.id} · {game.num_players} seats · seed {record.seed}", style="")
    policies = " · ".join(f"{seat_name(seat)} {safe_text(name)}"
                          for seat, name in enumerate(record.policies))
    defaults = game.spec.defaults()
    changed = [safe_text(f"{key}={value}") for key, value in record.params.items()
               if defaults.get(key) != value]
    lines = [title, Text(f"policies: {policies}")]
    lines.append(Text(f"parameters: {', '.join(changed) if changed else 'defaults'}"))
    lines.append(legend(game.deck))
    return lines


def legend(deck: Deck) -> Text:
    """What the letters of the card names stand for: the ranks that are not numbers and the
    suits (Italian names first for the Italian deck, with their English ones)."""
    italian = deck.name.startswith("italian")

    def name(first: str, other: str) -> str:
        """A name, with its translation for the Italian deck."""
        return f"{first} ({other})" if italian else first

    firsts, others = ((deck.rank_names_it, deck.rank_names_en) if italian
                      else (deck.rank_names_en, deck.rank_names_it))
    ranks = [f"{letter} {name(firsts[rank], others[rank])}"
             for rank, letter in enumerate(deck.rank_letters) if not letter.isdigit()]
    suit_firsts, suit_others = ((deck.suit_names_it, deck.suit_names_en) if italian
                                else (deck.suit_names_en, deck.suit_names_it))
    line = Text("cards: " + " · ".join(ranks) + "; ")
    for suit, symbol in enumerate(deck.suit_symbols):
        if suit:
            line.append(" · ")
        line.append(symbol, style="red" if symbol in RED_SUITS else "")
        line.append(f" {name(suit_firsts[suit], suit_others[suit])}")
    if deck.copies > 1:
        line.append(f"; a final {'/'.join(COPY_LETTERS[:deck.copies])}: the deck a card "
                    "comes from")
    return line


def show_reasons(record: MatchRecord) -> bool:
    """True when a record has a bot seat or a seat that did not end OK."""
    conduct = record.conduct
    return conduct is not None and any(
        seat.agent.get("kind") != "policy" or seat.reason != "OK" for seat in conduct.seats)


def scores_table(record: MatchRecord, game: Game) -> Table:
    """The final returns per seat, with the player, reason code and side of each."""
    table = Table(title="Final scores", title_justify="left")
    table.add_column("seat", justify="right")
    table.add_column("player")
    conduct = record.conduct if show_reasons(record) else None
    if conduct is not None:
        table.add_column("reason")
    teams = game.teams()
    if teams:
        table.add_column("side")
    table.add_column("returns", justify="right")
    for seat, (policy, value) in enumerate(zip(record.policies, record.returns, strict=True)):
        row: list[str | Text] = [str(seat), Text(safe_text(policy))]
        if conduct is not None:
            row.append(conduct.seats[seat].reason)
        if teams:
            row.append(next(("+".join(map(str, team)) for team in teams if seat in team), "-"))
        row.append(signed(value))
        table.add_row(*row)
    return table


def result_line(returns: Sequence[float]) -> Text:
    """``winner: seat 0`` (or several seats), or ``result: draw``."""
    best = max(returns)
    if all(value == best for value in returns):
        return Text("result: draw")
    winners = ", ".join(seat_name(s) for s, value in enumerate(returns) if value == best)
    return Text(f"winner: {winners}", style="bold")


def fault_lines(record: MatchRecord, game: Game) -> list[Text]:
    """One line per fault: decision, seat, kind, strike, what happened, the action played."""
    conduct = record.conduct
    if conduct is None or not conduct.faults:
        return []
    limit = conduct.time_control.get("strikes")
    names: dict[int, str] = {}
    wanted = {fault.decision for fault in conduct.faults if fault.decision is not None}
    state = game.new_initial_state(record.seed)
    for index, action in enumerate(record.actions):
        if index in wanted:
            names[index] = state.action_to_string(action)
        state.apply_action(action)
    lines = [Text("Faults", style="bold")]
    for fault in conduct.faults:
        when = f"decision {fault.decision + 1}" if fault.decision is not None else "start"
        strike = f" (strike {fault.strike} of {limit})" if fault.strike and limit else ""
        line = _line(f"{when} · {seat_name(fault.seat)} · {fault.kind}{strike}: "
                     f"{safe_text(fault.detail)}")
        if fault.decision is not None:
            line.append(f" → played {names[fault.decision]}")
        lines.append(line)
    return lines


def _action_names(record: MatchRecord, game: Game, wanted: set[int]) -> dict[int, str]:
    """The names of the actions of some decisions of a record."""
    names: dict[int, str] = {}
    state = game.new_initial_state(record.seed)
    for index, action in enumerate(record.actions):
        if index in wanted:
            names[index] = state.action_to_string(action)
        state.apply_action(action)
    return names


def note_lines(record: MatchRecord, game: Game) -> list[Text]:
    """One line per debug note a bot sent with a decision: decision, seat, the action played
    and the note, escaped (a note never drives the terminal)."""
    conduct = record.conduct
    if conduct is None or not conduct.debug:
        return []
    names = _action_names(record, game, {note.decision for note in conduct.debug})
    lines = [Text("Bot notes", style="bold")]
    for note in conduct.debug:
        lines.append(_line(f"decision {note.decision + 1} · {seat_name(note.seat)} · played "
                           f"{names[note.decision]}: ", Text(safe_text(note.text))))
    return lines


OUTPUT_TAIL_LINES = 5
"""Lines of a failed bot's captured output shown after the line naming its failure."""


def output_tail(text: str, lines: int = OUTPUT_TAIL_LINES) -> list[str]:
    """The last non-empty lines of a bot's output, escaped, at most ``lines``."""
    kept = [line.rstrip() for line in text.splitlines() if line.strip()]
    return [safe_text(line) for line in kept[-lines:]]


def render_match(record: MatchRecord, console: Console) -> None:
    """Print a match hand by hand, then the final scores (and faults and the bots' debug
    notes, if any)."""
    game = record.make_game()
    for line in header(record, game):
        console.print(line, soft_wrap=True)
    for line in match_lines(record, game):
        console.print(line, soft_wrap=True)
    console.print()
    console.print(scores_table(record, game))
    console.print(result_line(record.returns), soft_wrap=True)
    for line in fault_lines(record, game) + note_lines(record, game):
        console.print(line, soft_wrap=True)


def _columns(table: Table, *columns: tuple[str, JustifyMethod]) -> None:
    """Add named columns with their justification."""
    for name, justify in columns:
        table.add_column(name, justify=justify)


def deal_table(deal: DealResult, number: int, total: int) -> Table:
    """One deal of a set: each seat's player, reason code and returns."""
    table = Table(title=f"Deal {number} of {total} · rotation {deal.rotation}",
                  title_justify="left")
    _columns(table, ("seat", "right"), ("entrant", "right"), ("player", "left"),
             ("reason", "left"), ("returns", "right"))
    for seat, entrant in enumerate(deal.entrants):
        table.add_row(str(seat), str(entrant), Text(safe_text(deal.labels[seat])),
                      deal.reason_names[seat], signed(deal.returns[seat]))
    return table


def entrants_table(result: DuplicateResult) -> Table:
    """Each entrant's seats, returns per deal, total and mean: the paired results."""
    table = Table(title="Duplicate results", title_justify="left")
    _columns(table, ("entrant", "right"), ("player", "left"), ("seats", "left"),
             ("returns", "left"), ("reasons", "left"), ("total", "right"), ("mean", "right"))
    for entrant in result.entrants:
        table.add_row(str(entrant.index), Text(safe_text(entrant.label)),
                      " ".join(map(str, entrant.seats)),
                      " ".join(signed(value) for value in entrant.returns),
                      " ".join(entrant.reason_names), signed(entrant.total),
                      f"{entrant.mean:+.3g}" if entrant.mean else "0")
    return table


def render_duplicate(result: DuplicateResult, console: Console) -> None:
    """Print a set: the game and seed, a table per deal, then the paired results."""
    game = load_game(result.game, result.players, result.params)
    title = Text(game.spec.title, style="bold")
    title.append(f" · {game.id} · {game.num_players} seats · seed {result.seed} · "
                 f"{len(result.deals)} deals, seats rotated", style="")
    console.print(title, soft_wrap=True)
    for number, deal in enumerate(result.deals, 1):
        console.print()
        console.print(deal_table(deal, number, len(result.deals)))
        record = deal.record
        if record is not None:
            for line in fault_lines(record, game) + note_lines(record, game):
                console.print(line, soft_wrap=True)
    console.print()
    console.print(entrants_table(result))
