"""A league's report: ratings, pairwise comparisons and decision times, per game and overall.

``build_report`` takes the played duplicate sets, each a ``ScheduledMatch`` with its
``DuplicateResult``, in any order, and needs no database. Each game's sets are rated in
schedule order (round, table, deal), so the same league always gives the same report. Per
game it holds the OpenSkill leaderboard (``ratings.game_ratings``), each bot's mean return
and win rate (``compare.bot_summaries``), one comparison per pair of bots that shared a set,
the better rated bot first, and the head-to-head matrix in leaderboard order
(``compare.compare_pairs``, ``compare.head_to_head``), and decision times
(``compare.time_stats``); the overall table is ``ratings.overall`` over the games. The pair
tests of every game form one family, their p-values adjusted together (``compare.correct``:
Holm's method unless the report is built with another ``correction``), and the report names the
correction and the family's size.

Every number is written by ``arena.league.numbers``, the formatter the web pages share, so the
terminal, Markdown, HTML and the web show one value the same way.

The report is laid out once as sections of plain tables (``sections``) and rendered from that
as Markdown, or a self-contained HTML page whose images are PNG files beside it
(``write_report``), made from the template of the web service's report page
(``report_page``); the command line prints the same sections as terminal tables. Every text
of the layout is made safe to show first (``safe_text``: a bot's name or language may hold
control or bidi characters its author put in bot.toml), then escaped for the format it is
written in.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Generic, TypeVar
from urllib.parse import quote

from openskill.models import PlackettLuce

from arena.games import load_game
from arena.league.compare import (
    CORRECTIONS,
    DEFAULT_CORRECTION,
    MIN_SETS,
    BotSummary,
    PairComparison,
    TimeStats,
    bot_decision_times,
    bot_summaries,
    check_correction,
    compare_pairs,
    correct,
    family_size,
    head_to_head,
    result_deals,
    set_score,
    time_stats,
)
from arena.league.forfeits import (
    DEFAULT_POLICY,
    FAULT_REASONS,
    FaultCount,
    FaultEntry,
    ForfeitPolicy,
    deal_faults,
    fault_counts,
)
from arena.league.numbers import estimate, fixed, p_value, percent, rate, signed, verdict
from arena.league.ratings import Rating, game_ratings, leaderboard, overall
from arena.league.report_page import render_file_page
from arena.league.schedule import ScheduledMatch
from arena.match.results import DuplicateResult
from arena.match.safetext import dumps, safe_text

BotId = TypeVar("BotId", bound=Hashable)

PlayedSet = tuple[ScheduledMatch[BotId], DuplicateResult]
"""One duplicate set as scheduled and as played."""

OVERALL_IMAGE = "ratings.png"
"""The file name of the overall ratings plot."""

NAME_LENGTH = 60
"""The most characters of a game's name used in its plot's file name."""


@dataclass(frozen=True)
class GameReport(Generic[BotId]):
    """One game of a league: leaderboard, summaries, pairs, head to head, decision times."""

    game: str
    sets: int
    """Sets that count."""
    void_sets: int
    ratings: tuple[Rating[BotId], ...]
    """Leaderboard order: conservative estimate, best first."""
    summaries: Mapping[BotId, BotSummary[BotId]]
    pairs: tuple[PairComparison[BotId], ...]
    """One per pair of bots that shared a set, the better rated bot first."""
    matrix: tuple[tuple[PairComparison[BotId] | None, ...], ...]
    """Row bot against column bot, both in leaderboard order."""
    times: tuple[TimeStats[BotId], ...]
    faults: Mapping[BotId, FaultCount] = field(default_factory=dict)
    """Each bot's forfeited deals by reason code."""
    void_deals: int = 0
    """Deals of the void sets, left out (VOID_INFRA: the arena failed)."""
    policy: str = DEFAULT_POLICY.value
    """How forfeits were scored: ``loss`` or ``stand``."""

    @property
    def bots(self) -> tuple[BotId, ...]:
        """The game's bots in leaderboard order."""
        return tuple(rating.bot for rating in self.ratings)

    def left_out(self) -> str:
        """What the game's tables leave out, and why; how forfeits count."""
        void = (f"left out: {self.void_deals} deals of {self.void_sets} void sets (VOID_INFRA: "
                "the arena failed; no contest)") if self.void_sets else "no deal left out"
        return f"Forfeits scored as {self.policy}; {void}."

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"game": self.game, "sets": self.sets, "void_sets": self.void_sets,
                "ratings": [rating.to_dict() for rating in self.ratings],
                "summaries": [self.summaries[bot].to_dict() for bot in self.bots
                              if bot in self.summaries],
                "pairs": [pair.to_dict() for pair in self.pairs],
                "times": [stats.to_dict() for stats in self.times],
                "void_deals": self.void_deals, "forfeit_policy": self.policy,
                "bots": [{"bot": bot, **self.faults.get(bot, FaultCount(Counter())).to_dict()}
                         for bot in self.bots]}


@dataclass(frozen=True)
class LeagueReport(Generic[BotId]):
    """A whole league: each game's report, the overall table and decision times per bot."""

    name: str
    games: tuple[GameReport[BotId], ...]
    overall: tuple[Rating[BotId], ...]
    """Leaderboard order."""
    times: tuple[TimeStats[BotId], ...]
    """Every game's decisions together, in overall leaderboard order."""
    languages: Mapping[BotId, str] = field(default_factory=dict)
    """Each bot's language, where known."""
    language_times: tuple[TimeStats[str], ...] = ()
    """Every decision of the bots of each language together, fastest p50 first."""
    correction: str = DEFAULT_CORRECTION
    """The multiple-comparison correction of the pair tests (a key of ``CORRECTIONS``)."""
    faults: tuple[FaultEntry[BotId], ...] = ()
    """Every forfeited seat of every deal, in schedule order."""
    policy: str = DEFAULT_POLICY.value
    """How forfeits were scored: ``loss`` or ``stand``."""

    def bot_faults(self) -> dict[BotId, FaultCount]:
        """Each bot's forfeited deals by reason code, every game together (overall order)."""
        return fault_counts(self.faults, [rating.bot for rating in self.overall])

    @property
    def comparisons(self) -> int:
        """How many pair tests the correction was made over (every game's tested pairs)."""
        return family_size(pair for game in self.games for pair in game.pairs)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {"name": self.name, "correction": self.correction,
                "comparisons": self.comparisons, "min_sets": MIN_SETS,
                "overall": [rating.to_dict() for rating in self.overall],
                "times": [stats.to_dict() for stats in self.times],
                "languages": {str(bot): language for bot, language in self.languages.items()},
                "language_times": [stats.to_dict() for stats in self.language_times],
                "games": [game.to_dict() for game in self.games],
                "forfeit_policy": self.policy,
                "bots": [{"bot": bot, **count.to_dict()}
                         for bot, count in self.bot_faults().items()],
                "faults": [entry.to_dict() for entry in self.faults]}


def build_report(played: Iterable[PlayedSet[BotId]], name: str = "league",
                 bots: Sequence[BotId] = (), model: PlackettLuce | None = None,
                 languages: Mapping[BotId, str] | None = None,
                 correction: str = DEFAULT_CORRECTION, policy: ForfeitPolicy = DEFAULT_POLICY,
                 faults: Sequence[FaultEntry[BotId]] | None = None,
                 void: Mapping[str, tuple[int, int]] | None = None) -> LeagueReport[BotId]:
    """The report of a league's played sets (``bots``: the league's bots, in any order;
    ``languages``: each bot's language, for the decision times by language; ``correction``:
    the multiple-comparison correction over every game's pair tests; ``policy``: how forfeits
    score; ``faults``: every forfeited seat, by default read from the sets with the match
    named by its place; ``void``: per game, the void sets and their deals left out)."""
    check_correction(correction)
    played = list(played)
    if faults is None:
        faults = [entry for match, result in sorted(played, key=lambda item: (
            item[0].game, item[0].round, item[0].table, item[0].deal))
            for entry in deal_faults(match.game, place(match), match.seats, result)]
    by_game: dict[str, list[PlayedSet[BotId]]] = {}
    for match, result in played:
        by_game.setdefault(match.game, []).append((match, result))
    games: list[GameReport[BotId]] = []
    all_times: dict[BotId, list[int]] = {}
    for game, sets in by_game.items():
        sets.sort(key=lambda item: (item[0].round, item[0].table, item[0].deal))
        times = bot_decision_times(deal for match, result in sets
                                   for deal in result_deals(match.seats, result))
        for bot, values in times.items():
            all_times.setdefault(bot, []).extend(values)
        games.append(game_report(game, sets, times, model, policy, (void or {}).get(game),
                                 fault_counts((entry for entry in faults if entry.game == game),
                                              [bot for match, _ in sets for bot in match.seats])))
    games = corrected(games, correction)
    everyone = list(dict.fromkeys([*bots, *(bot for game in games for bot in game.bots)]))
    table = overall({game.game: {r.bot: r for r in game.ratings} for game in games},
                    everyone, model)
    ratings = tuple(leaderboard(table))
    languages = dict(languages or {})
    return LeagueReport(name=name, games=tuple(games), overall=ratings,
                        times=ordered_times(time_stats(all_times), ratings),
                        languages=languages,
                        language_times=times_by_language(all_times, languages),
                        correction=correction, faults=tuple(faults), policy=policy.value)


def place(match: ScheduledMatch[Any]) -> str:
    """A match named by its place in the schedule: ``round 1 table 2 deal 1``."""
    return f"round {match.round + 1} table {match.table + 1} deal {match.deal + 1}"


def corrected(games: Sequence[GameReport[BotId]], correction: str
              ) -> list[GameReport[BotId]]:
    """The games with every pair test adjusted over one family: all the games' pairs."""
    def key(pair: PairComparison[BotId]) -> tuple[str, BotId, BotId]:
        return pair.game, pair.bot, pair.other

    every = {key(pair): pair for game in games for row in game.matrix
             for pair in row if pair is not None}
    every.update({key(pair): pair for game in games for pair in game.pairs})
    adjusted = correct(every, correction)
    return [replace(game, pairs=tuple(adjusted[key(pair)] for pair in game.pairs),
                    matrix=tuple(tuple(None if pair is None else adjusted[key(pair)]
                                       for pair in row) for row in game.matrix))
            for game in games]


def times_by_language(times: Mapping[BotId, Sequence[int]], languages: Mapping[BotId, str]
                      ) -> tuple[TimeStats[str], ...]:
    """Decision times pooled per language (bots of unknown language left out), fastest first."""
    pooled: dict[str, list[int]] = {}
    for bot, values in times.items():
        language = languages.get(bot)
        if language:
            pooled.setdefault(language, []).extend(values)
    return tuple(sorted(time_stats(pooled).values(), key=lambda stats: stats.p50_us))


def game_report(game: str, sets: Sequence[PlayedSet[BotId]],
                times: Mapping[BotId, Sequence[int]], model: PlackettLuce | None = None,
                policy: ForfeitPolicy = DEFAULT_POLICY, void: tuple[int, int] | None = None,
                faults: Mapping[BotId, FaultCount] | None = None) -> GameReport[BotId]:
    """One game's report from its sets in schedule order and its bots' decision times
    (``void``: the void sets and deals the store left out; ``faults``: the forfeits)."""
    first = sets[0][1]
    rules = load_game(first.game, first.players, first.params)
    bots = list(dict.fromkeys(bot for match, _ in sets for bot in match.seats))
    ratings = tuple(leaderboard(game_ratings(
        rules, [(match.seats, result) for match, result in sets], bots, model, policy)))
    order = [rating.bot for rating in ratings]
    scores = [score for match, result in sets
              if (score := set_score(match.seats, result, game, policy)) is not None]
    comparisons = compare_pairs(scores)
    pairs = tuple(comparisons[game, bot, other] for index, bot in enumerate(order)
                  for other in order[index + 1:] if (game, bot, other) in comparisons)
    return GameReport(
        game=game, sets=len(scores), ratings=ratings,
        summaries={bot: summary for (_, bot), summary in bot_summaries(scores).items()},
        pairs=pairs, matrix=tuple(tuple(row) for row in head_to_head(comparisons, game, order)),
        times=ordered_times(time_stats(times), ratings), faults=dict(faults or {}),
        void_sets=len(sets) - len(scores) + (void or (0, 0))[0],
        void_deals=sum(len(result.deals) for _, result in sets if result.void)
        + (void or (0, 0))[1], policy=policy.value)


def ordered_times(stats: Mapping[BotId, TimeStats[BotId]], ratings: Sequence[Rating[BotId]]
                  ) -> tuple[TimeStats[BotId], ...]:
    """Decision times in leaderboard order (bots without timed decisions left out)."""
    return tuple(stats[rating.bot] for rating in ratings if rating.bot in stats)


@dataclass(frozen=True)
class Cell:
    """One table cell: its text (made safe to show), whether it stands out, whether it is a
    number."""

    text: str
    strong: bool = False
    number: bool = False

    def __post_init__(self) -> None:
        """Escape the control and format characters of the text."""
        object.__setattr__(self, "text", safe_text(self.text))


@dataclass(frozen=True)
class TableView:
    """A table as every format shows it: a title, column names and rows of cells."""

    title: str
    columns: tuple[Cell, ...]
    rows: tuple[tuple[Cell, ...], ...]
    note: str = ""

    def __post_init__(self) -> None:
        """Escape the control and format characters of the title and the note."""
        object.__setattr__(self, "title", safe_text(self.title))
        object.__setattr__(self, "note", safe_text(self.note))


@dataclass(frozen=True)
class Section:
    """A heading, its ratings plot's file name (empty for none) and its tables."""

    heading: str
    image: str
    tables: tuple[TableView, ...]

    def __post_init__(self) -> None:
        """Escape the control and format characters of the heading."""
        object.__setattr__(self, "heading", safe_text(self.heading))


def bot_name(bot: Hashable) -> str:
    """A bot's name on one line, safe to show."""
    return safe_text(" ".join(str(bot).split()) or repr(bot))


def image_names(report: LeagueReport[Any]) -> list[str]:
    """The PNG file name of each game's ratings plot, distinct and safe in any file system."""
    taken = {OVERALL_IMAGE}
    names = []
    for game in report.games:
        safe = re.sub(r"[^A-Za-z0-9_-]+", "_", game.game).strip("_")[:NAME_LENGTH]
        stem = f"ratings-{safe or 'game'}"
        candidate, count = stem, 1
        while f"{candidate}.png" in taken:
            count += 1
            candidate = f"{stem}-{count}"
        taken.add(f"{candidate}.png")
        names.append(f"{candidate}.png")
    return names


def sections(report: LeagueReport[Any]) -> list[Section]:
    """The report laid out: the overall section, then one section per game."""
    result = [Section("Overall", OVERALL_IMAGE, (
        TableView("Overall ratings (mean of the per-game ratings)", RATING_COLUMNS,
                  tuple(rating_row(rank, rating) for rank, rating in
                        enumerate(report.overall, 1))),
        forfeits_table("Forfeits, every game", report.bot_faults(),
                       f"Deals forfeited, by reason code; scored as {report.policy}."),
        faults_table(report),
        times_table("Decision times, every game", report.times, report.languages),
        *language_tables(report)))]
    for game, image in zip(report.games, image_names(report), strict=True):
        result.append(Section(game.game, image, (
            leaderboard_table(game), forfeits_table("Forfeits", game.faults, game.left_out()),
            pairs_table(game, report), matrix_table(game),
            times_table("Decision times", game.times, report.languages))))
    return result


def forfeits_table(title: str, faults: Mapping[Any, FaultCount], note: str) -> TableView:
    """Each bot's forfeited deals in all and by reason code."""
    columns = (Cell("Bot"), Cell("Forfeits", number=True),
               *(Cell(reason, number=True) for reason in FAULT_REASONS))
    rows = tuple((Cell(bot_name(bot)), Cell(str(count.forfeits), strong=count.forfeits > 0,
                                            number=True),
                  *(Cell(str(count.faults.get(reason, 0)), number=True)
                    for reason in FAULT_REASONS)) for bot, count in faults.items())
    return TableView(title, columns, rows, note)


def faults_table(report: LeagueReport[Any]) -> TableView:
    """Every forfeited seat: its game, match, deal and seat, the bot, why, and the end of
    what the bot wrote (its owner's log)."""
    columns = (Cell("Game"), Cell("Match"), Cell("Deal", number=True), Cell("Seat", number=True),
               Cell("Bot"), Cell("Reason"), Cell("Detail"), Cell("Log (last lines)"))
    rows = tuple((Cell(entry.game), Cell(entry.match), Cell(str(entry.deal + 1), number=True),
                  Cell(str(entry.seat), number=True), Cell(bot_name(entry.bot)),
                  Cell(entry.reason, strong=True), Cell(entry.detail or "–"),
                  Cell(entry.log or "–")) for entry in report.faults)
    return TableView(f"Faults ({len(rows)} forfeited seats)", columns, rows,
                     "Deal: its place in the match (rotation); seat: the seat the bot held in "
                     "it." if rows else "No bot forfeited a deal.")


RATING_COLUMNS = (Cell("Rank", number=True), Cell("Bot"), Cell("μ", number=True),
                  Cell("σ", number=True), Cell("μ − 3σ", number=True),
                  Cell("Contests", number=True))


def rating_row(rank: int, rating: Rating[Any]) -> tuple[Cell, ...]:
    """Rank, bot, mu, sigma, conservative estimate and contests."""
    return (Cell(str(rank), number=True), Cell(bot_name(rating.bot)),
            Cell(fixed(rating.mu), number=True), Cell(fixed(rating.sigma), number=True),
            Cell(fixed(rating.conservative), strong=True, number=True),
            Cell(str(rating.contests), number=True))


def leaderboard_table(game: GameReport[Any]) -> TableView:
    """A game's ratings with each bot's sets, mean return and pooled win rate."""
    columns = (*RATING_COLUMNS, Cell("Sets", number=True), Cell("Mean return (95% CI)"),
               Cell("Win rate (95% CI)"))
    rows = []
    for rank, rating in enumerate(game.ratings, 1):
        summary = game.summaries.get(rating.bot)
        extra = ((Cell(str(summary.sets), number=True),
                  Cell(estimate(summary.mean_return, summary.return_ci)),
                  Cell(rate(summary.win_rate, summary.win_ci)))
                 if summary else (Cell("0", number=True), Cell("–"), Cell("–")))
        rows.append((*rating_row(rank, rating), *extra))
    void = f"; {game.void_sets} void" if game.void_sets else ""
    return TableView(f"Ratings ({game.sets} duplicate sets{void})", columns, tuple(rows),
                     "Win rate: the share of the other bots at the table outscored per set, "
                     f"ties counting half. No interval from fewer than {MIN_SETS} sets or from "
                     f"values that never vary (not enough data). {game.left_out()}")


def pairs_table(game: GameReport[Any], report: LeagueReport[Any] | None = None) -> TableView:
    """A game's pair comparisons: difference and win rate with intervals, p-values before and
    after the report's correction, and the verdict."""
    correction = report.correction if report else DEFAULT_CORRECTION
    name = CORRECTIONS[correction]
    columns = (Cell("Bot"), Cell("Against"), Cell("Sets", number=True),
               Cell("Mean difference (95% CI)"), Cell("Win rate (95% CI)"),
               Cell("W–T–L"), Cell("p", number=True),
               Cell(f"p ({name})" if correction != "none" else "p (unadjusted)", number=True),
               Cell("Significant"))
    rows = tuple((Cell(bot_name(pair.bot)), Cell(bot_name(pair.other)),
                  Cell(str(pair.sets), number=True),
                  Cell(estimate(pair.mean_difference, pair.difference_ci),
                       strong=pair.significant),
                  Cell(rate(pair.win_rate, pair.win_ci)),
                  Cell(f"{pair.wins}–{pair.ties}–{pair.losses}"),
                  Cell(p_value(pair.p_value), number=True),
                  Cell(p_value(pair.adjusted_p), strong=pair.significant, number=True),
                  Cell(verdict(pair.significant, pair.tested), strong=pair.significant))
                 for pair in game.pairs)
    family = report.comparisons if report else len(game.pairs)
    adjusted = ("p-values unadjusted" if correction == "none" else
                f"p-values adjusted by the {name} method over the report's {family} "
                f"pair test{'s' if family != 1 else ''}")
    return TableView("Pairs", columns, rows,
                     "Per duplicate set, the difference of the two bots' mean returns per deal: "
                     "its 95% t interval and the t test of a zero mean; "
                     f"{adjusted}; significant when the adjusted p-value is below 0.05. "
                     f"Not enough data: fewer than {MIN_SETS} sets, or differences that never "
                     f"vary. {game.left_out()}")


def matrix_table(game: GameReport[Any]) -> TableView:
    """A game's head-to-head matrix: row bot's win rate and mean difference against column."""
    columns = (Cell(""), *(Cell(bot_name(bot)) for bot in game.bots))
    rows = []
    for bot, row in zip(game.bots, game.matrix, strict=True):
        cells = [Cell(bot_name(bot))]
        for pair in row:
            cells.append(Cell("–") if pair is None else Cell(
                f"{percent(pair.win_rate)} ({signed(pair.mean_difference)})",
                strong=pair.significant, number=True))
        rows.append(tuple(cells))
    return TableView("Head to head", columns, tuple(rows),
                     "Row against column: win rate (mean difference); "
                     f"significant differences stand out. {game.left_out()}")


def language_tables(report: LeagueReport[Any]) -> tuple[TableView, ...]:
    """Decision times by language, when the league's bots say their languages."""
    if not report.language_times:
        return ()
    columns = (Cell("Language"), Cell("Decisions", number=True), Cell("p50", number=True),
               Cell("p95", number=True), Cell("max", number=True), Cell("p50 ratio", number=True))
    fastest = report.language_times[0].p50_us or 1.0
    rows = tuple((Cell(stats.bot), Cell(f"{stats.decisions:,}", number=True),
                  Cell(duration(stats.p50_us), number=True),
                  Cell(duration(stats.p95_us), number=True),
                  Cell(duration(stats.max_us), number=True),
                  Cell(fixed(stats.p50_us / fastest), number=True))
                 for stats in report.language_times)
    return (TableView("Decision times by language", columns, rows,
                      "Every decision of the bots of a language, every game together; the "
                      "p50 ratio is to the fastest language's p50. Times charged to the bots "
                      "(the arena's own queueing left out): they compare languages fairly only "
                      f"when the bots play the same strategy. {TIMES_LEFT_OUT}"),)


TIMES_LEFT_OUT = ("Left out: the moves a random substitute made for a seat after it "
                  "forfeited (not the bot's decisions).")
"""What every decision-time table leaves out, and why."""


def times_table(title: str, times: Sequence[TimeStats[Any]],
                languages: Mapping[Any, str] | None = None) -> TableView:
    """Decisions and their p50, p95 and max times per bot (with its language, when known)."""
    languages = languages or {}
    columns = (Cell("Bot"), Cell("Language"), Cell("Decisions", number=True),
               Cell("p50", number=True), Cell("p95", number=True), Cell("max", number=True))
    rows = tuple((Cell(bot_name(stats.bot)), Cell(languages.get(stats.bot) or "–"),
                  Cell(str(stats.decisions), number=True),
                  Cell(duration(stats.p50_us), number=True),
                  Cell(duration(stats.p95_us), number=True),
                  Cell(duration(stats.max_us), number=True)) for stats in times)
    return TableView(title, columns, rows, f"Times charged to the bots. {TIMES_LEFT_OUT}")


def duration(micros: float) -> str:
    """Microseconds in the unit that reads best."""
    if micros < 1_000:
        return f"{micros:.0f} µs"
    if micros < 1_000_000:
        return f"{micros / 1_000:.2f} ms"
    return f"{micros / 1_000_000:.2f} s"


MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|&#!~$])")
"""Characters escaped with a backslash in Markdown text."""


def markdown_text(text: str) -> str:
    """Text that Markdown shows as written."""
    return MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def render_markdown(report: LeagueReport[Any]) -> str:
    """The report as Markdown, ratings plots referenced by relative path."""
    lines = [f"# League report: {markdown_text(bot_name(report.name))}", ""]
    for section in sections(report):
        heading = markdown_text(section.heading)
        lines += [f"## {heading}", "", f"![Ratings: {heading}]({quote(section.image)})", ""]
        for view in section.tables:
            lines += [f"### {markdown_text(view.title)}", "", *markdown_table(view), ""]
            if view.note:
                lines += [markdown_text(view.note), ""]
    return "\n".join(lines)


def markdown_table(view: TableView) -> list[str]:
    """A pipe table, numbers aligned right, cells that stand out in bold."""
    def cell(value: Cell) -> str:
        text = markdown_text(value.text)
        return f"**{text}**" if value.strong and text else text

    head = "| " + " | ".join(markdown_text(column.text) for column in view.columns) + " |"
    rule = "|" + "|".join("---:" if column.number else "---" for column in view.columns) + "|"
    return [head, rule, *("| " + " | ".join(cell(value) for value in row) + " |"
                          for row in view.rows)]


def render_html(report: LeagueReport[Any]) -> str:
    """The report as one self-contained HTML page (``report_page``: the template the web
    service's report page uses too), ratings plots referenced by relative path."""
    return render_file_page(bot_name(report.name), sections(report))


def write_report(report: LeagueReport[Any], folder: Path) -> list[Path]:
    """Write the ratings plots, report.md, report.html and report.json; the paths written."""
    from arena.league.plots import save_ratings_plot  # matplotlib, only when plots are drawn

    folder.mkdir(parents=True, exist_ok=True)
    written = [save_ratings_plot(report.overall, f"{report.name}: overall",
                                 folder / OVERALL_IMAGE)]
    for game, image in zip(report.games, image_names(report), strict=True):
        written.append(save_ratings_plot(game.ratings, game.game, folder / image))
    for file_name, text in (("report.md", render_markdown(report)),
                            ("report.html", render_html(report)),
                            ("report.json", dumps(report.to_dict(), indent=2,
                                                  default=str) + "\n")):
        path = folder / file_name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
