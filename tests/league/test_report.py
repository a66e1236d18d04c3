"""The league report: built from a real small league, checked against compare and ratings,
rendered for the terminal, as Markdown and HTML, and written with its rating plots."""

import json
import random
import re
from dataclasses import replace
from pathlib import Path

import pytest
from matplotlib.image import imread
from rich.console import Console

from arena.agents.seats import PolicySeat
from arena.cli.report import render_terminal
from arena.games import load_game
from arena.league.compare import (
    bot_decision_times,
    compare_pairs,
    correct,
    family_size,
    result_deals,
    set_score,
    time_stats,
)
from arena.league.plots import axis_label, ratings_figure, save_ratings_plot
from arena.league.ratings import game_ratings, leaderboard
from arena.league.report import (
    GameReport,
    LeagueReport,
    PlayedSet,
    build_report,
    image_names,
    render_html,
    render_markdown,
    write_report,
)
from arena.league.schedule import schedule_game
from arena.match.runner import run_duplicate

POLICIES = {"heuristic": "heuristic", "random": "random", "<b>&x": "random",
            "[bold]*z|$": "random"}
"""The league's bots: names that HTML, Markdown, rich markup and mathtext would each misread."""

GAMES = (("briscola", 2, 8), ("briscola-chiamata", 5, 2))
"""Game, seats and deals: two seats, and five for four bots (some bots fill several seats)."""

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def played() -> list[PlayedSet[str]]:
    """Every set of a small league over two games, played with the reference policies."""
    result = []
    for game_id, seats, deals in GAMES:
        game = load_game(game_id, seats, {})
        for match in schedule_game(game_id, list(POLICIES), seats, deals, rounds=2, seed=11,
                                   teams=game.teams()):
            entrants = [PolicySeat(POLICIES[bot]) for bot in match.seats]
            result.append((match, run_duplicate(game, match.seed, entrants,
                                                rotations=match.rotations)))
    return result


@pytest.fixture(scope="module")
def report(played: list[PlayedSet[str]]) -> LeagueReport[str]:
    """The league's report."""
    return build_report(played, name="test <league>", bots=list(POLICIES))


def test_numbers_match_compare_and_ratings(played: list[PlayedSet[str]],
                                           report: LeagueReport[str]) -> None:
    assert [game.game for game in report.games] == [game_id for game_id, *_ in GAMES]
    family = {}
    for game_report in report.games:
        scores = [set_score(m.seats, r) for m, r in played if m.game == game_report.game]
        family.update(compare_pairs((score for score in scores if score is not None), "none"))
    comparisons = correct(family, "holm")
    assert report.correction == "holm" and report.to_dict()["correction"] == "holm"
    assert report.comparisons == family_size(family.values()) == report.to_dict()["comparisons"]
    assert 0 < report.comparisons <= len(family) // 2
    for game_report in report.games:
        sets = [(m, r) for m, r in played if m.game == game_report.game]
        assert game_report.sets == len(sets) and game_report.void_sets == 0
        for pair in game_report.pairs:
            assert pair == comparisons[game_report.game, pair.bot, pair.other]
        assert len(game_report.pairs) == len(POLICIES) * (len(POLICIES) - 1) // 2
        bots = game_report.bots
        for i, row in enumerate(game_report.matrix):
            for j, cell in enumerate(row):
                expected = None if i == j else comparisons[game_report.game, bots[i], bots[j]]
                assert cell == expected
        first = sets[0][1]
        rules = load_game(first.game, first.players, first.params)
        assert game_report.ratings == tuple(leaderboard(game_ratings(
            rules, [(m.seats, r) for m, r in sets])))
        times = time_stats(bot_decision_times(deal for m, r in sets
                                              for deal in result_deals(m.seats, r)))
        assert {stats.bot: stats for stats in game_report.times} == times


def test_the_order_of_the_played_sets_does_not_matter(played: list[PlayedSet[str]],
                                                      report: LeagueReport[str]) -> None:
    shuffled = list(played)
    random.Random(5).shuffle(shuffled)
    games = [game_id for game_id, *_ in GAMES]
    shuffled.sort(key=lambda item: games.index(item[0].game))
    assert build_report(shuffled, name="test <league>", bots=list(POLICIES)) == report


def test_the_heuristic_leads_every_table(report: LeagueReport[str]) -> None:
    assert report.overall[0].bot == "heuristic"
    for game in report.games:
        assert game.ratings[0].bot == "heuristic"
        for pair in game.pairs:
            if pair.bot == "heuristic":
                assert pair.mean_difference > 0 and pair.significant
        assert game.summaries["heuristic"].win_rate > 0.5
    conservative = [rating.conservative for rating in report.overall]
    assert conservative == sorted(conservative, reverse=True)


def test_overall_decision_times_pool_the_games(report: LeagueReport[str]) -> None:
    per_game = {bot: sum(stats.decisions for game in report.games for stats in game.times
                         if stats.bot == bot) for bot in POLICIES}
    assert {stats.bot: stats.decisions for stats in report.times} == per_game
    for stats in report.times:
        assert 0 < stats.p50_us <= stats.p95_us <= stats.max_us


def test_a_void_set_counts_for_no_one(played: list[PlayedSet[str]]) -> None:
    match, result = played[0]
    void = replace(result, deals=(replace(result.deals[0], void="arena failure"),
                                  *result.deals[1:]))
    game = build_report([(match, void), *played[1:]]).games[0]
    assert (game.sets, game.void_sets) == (len(played_of(played, match.game)) - 1, 1)
    assert "1 void" in render_markdown(build_report([(match, void), *played[1:]]))


def test_every_table_of_a_game_says_what_it_left_out(played: list[PlayedSet[str]]) -> None:
    """With a void set, the ratings, pairs and head-to-head tables each say how many deals they
    left out and why; the decision-time tables say they leave out the substitute's moves."""
    match, result = played[0]
    void = replace(result, deals=(replace(result.deals[0], void="arena failure"),
                                  *result.deals[1:]))
    report = build_report([(match, void), *played[1:]])
    section = render_markdown(report).split(f"## {match.game}", 1)[1].split("\n## ", 1)[0]
    deals = len(result.deals)
    left_out = f"left out: {deals} deals of 1 void sets (VOID\\_INFRA"
    assert section.count(left_out) >= 3, section
    assert "Left out: the moves a random substitute made" in section


def played_of(played: list[PlayedSet[str]], game: str) -> list[PlayedSet[str]]:
    """The sets of one game."""
    return [(m, r) for m, r in played if m.game == game]


def test_terminal_tables_show_names_as_written(report: LeagueReport[str]) -> None:
    console = Console(record=True, width=240, color_system=None)
    console.print(*render_terminal(report))
    text = console.export_text()
    for name in POLICIES:
        assert name in text
    for game_id, *_ in GAMES:
        assert f"\n{game_id}\n" in text
    assert "Head to head" in text and "p95" in text


def test_markdown_has_every_game_table_with_names_escaped(report: LeagueReport[str]) -> None:
    markdown = render_markdown(report)
    assert markdown.startswith("# League report: test \\<league\\>\n")
    for game in report.games:
        section = markdown.split(f"## {game.game}\n", 1)[1].split("\n## ", 1)[0]
        assert "### Ratings (" in section and "### Pairs" in section
        for rank, rating in enumerate(game.ratings, 1):
            assert f"| {rank} | {escaped(rating.bot)} | {rating.mu:.2f} |" in section
    assert "<b>" not in markdown and "\\<b\\>\\&x" in markdown
    for table in re.findall(r"(?:^\|.*\n)+", markdown, flags=re.MULTILINE):
        columns = {len(re.findall(r"(?<!\\)\|", line)) for line in table.splitlines()}
        assert len(columns) == 1


def escaped(bot: str) -> str:
    """A bot's name as the Markdown shows it."""
    return re.sub(r"([\\`*_\[\]<>|&#!~$])", r"\\\1", bot)


def test_html_escapes_every_name(report: LeagueReport[str]) -> None:
    page = render_html(report)
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<b>&x" not in page and "&lt;b&gt;&amp;x" in page
    assert "<league>" not in page and "test &lt;league&gt;" in page
    sources = re.findall(r'<img src="([^"]+)"', page)
    assert sources == ["ratings.png", *image_names(report)]
    assert "http://" not in page and "https://" not in page  # nothing fetched from afar
    assert re.findall(r'href="(\w+):', page) == ["data"]  # the icon, embedded


def test_write_report_writes_pages_and_readable_plots(report: LeagueReport[str],
                                                      tmp_path: Path) -> None:
    folder = tmp_path / "out"
    written = write_report(report, folder)
    names = {path.name for path in written}
    assert {"report.md", "report.html", "report.json", "ratings.png",
            "ratings-briscola.png", "ratings-briscola-chiamata.png"} == names
    for path in written:
        assert path.parent == folder and path.stat().st_size > 0
        if path.suffix == ".png":
            assert path.read_bytes()[:8] == PNG_SIGNATURE
            pixels = imread(path)
            assert pixels.ndim == 3 and pixels.shape[0] > 100 and pixels.shape[1] > 100
    data = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    assert data["overall"][0]["bot"] == "heuristic"
    assert [game["game"] for game in data["games"]] == [game_id for game_id, *_ in GAMES]
    html_page = (folder / "report.html").read_text(encoding="utf-8")
    for source in re.findall(r'<img src="([^"]+)"', html_page):
        assert (folder / source).is_file()


def test_an_empty_league_reports_its_bots_at_the_prior(tmp_path: Path) -> None:
    report = build_report([], name="empty", bots=["a", "b"])
    assert report.games == () and report.times == ()
    assert {rating.bot for rating in report.overall} == {"a", "b"}
    assert all(rating.mu == pytest.approx(25.0) for rating in report.overall)
    assert {path.name for path in write_report(report, tmp_path)} == {
        "ratings.png", "report.md", "report.html", "report.json"}


def test_plot_labels_are_plain_text(tmp_path: Path) -> None:
    assert axis_label("cost $5 $") == r"cost \$5 \$"
    assert axis_label("a\nb") == "a b"
    assert len(axis_label("x" * 100)) == 40
    figure = ratings_figure([], "nothing")
    assert figure.axes
    path = save_ratings_plot([], "$nothing", tmp_path / "empty.png")
    assert path.read_bytes()[:8] == PNG_SIGNATURE


def test_plot_file_names_are_distinct_and_safe() -> None:
    games = tuple(GameReport(name, 0, 0, (), {}, (), (), ())
                  for name in ("a b", "a_b", "../..", "x" * 100))
    names = image_names(LeagueReport("league", games, (), ()))
    assert names[:3] == ["ratings-a_b.png", "ratings-a_b-2.png", "ratings-game.png"]
    assert len(set(names)) == len(names) and "ratings.png" not in names
    assert all(re.fullmatch(r"ratings-[A-Za-z0-9_-]{1,62}\.png", name) for name in names)


def test_decision_times_by_language_pool_the_bots_of_each_language(
        played: list[PlayedSet[str]]) -> None:
    """Bots of one language are pooled, fastest p50 first; each bot's row names its language,
    and a bot of unknown language is left out of the language table."""
    bots = list(POLICIES)
    languages = {bots[0]: "rust", bots[1]: "rust", bots[2]: "python"}
    report = build_report(played, name="languages", bots=bots, languages=languages)
    per_bot = {stats.bot: stats.decisions for stats in report.times}
    pooled = {stats.bot: stats.decisions for stats in report.language_times}
    assert pooled == {"rust": per_bot[bots[0]] + per_bot[bots[1]], "python": per_bot[bots[2]]}
    p50s = [stats.p50_us for stats in report.language_times]
    assert p50s == sorted(p50s)
    markdown = render_markdown(report)
    section = markdown.split("Decision times by language", 1)[1]
    assert "| rust |" in section and "| python |" in section
    assert "| 1.00 |" in section
    assert report.to_dict()["languages"] == languages
    plain = build_report(played, name="plain", bots=bots)
    assert plain.language_times == ()
    assert "Decision times by language" not in render_markdown(plain)
