"""Games from installed packages (entry point group ``cardarena.games``) and broken plugins.

The example package ``tests/plugin_example`` must be installed (``pip install -e
tests/plugin_example``). Broken plugins are written as packages with their dist-info into a
temporary directory that is put on ``sys.path`` (in-process) or ``PYTHONPATH`` (for ``arena``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sysconfig
from collections.abc import Iterator
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from arena.cli import app
from arena.games import EventKind, IllegalActionError, load_game, registry
from arena.games.cards import ITALIAN_40
from arena.match import MatchRecord, replay
from arena.policies import make_policy

EXAMPLE_ID = "high-card"
EXAMPLE_PACKAGE = "cardarena-example-games"
INSTALL_HINT = "the example plugin is not installed: pip install -e tests/plugin_example"
BUILTIN_IDS = [spec.id for name in registry.BUILTIN_MODULES
               for spec in __import__(name, fromlist=["SPECS"]).SPECS]

runner = CliRunner()


def run(*args: str) -> Result:
    """Invoke the command line in-process, as on a wide terminal."""
    return runner.invoke(app, list(args), env={"COLUMNS": "200"})


def arena_executable() -> str:
    """The installed ``arena`` console script."""
    candidate = Path(sysconfig.get_path("scripts")) / "arena"
    found = str(candidate) if candidate.exists() else shutil.which("arena")
    assert found, "the arena command is not installed: pip install -e ."
    return found


@pytest.fixture(autouse=True)
def example_installed() -> None:
    """Every test here needs the example plugin installed."""
    assert EXAMPLE_ID in registry.game_ids(), INSTALL_HINT


# --- the example game is a game like any other ---------------------------------------------


def test_example_game_is_registered_with_its_package() -> None:
    assert registry.game_ids()[:len(BUILTIN_IDS)] == BUILTIN_IDS
    assert registry.get_spec(EXAMPLE_ID).origin == EXAMPLE_PACKAGE
    assert {registry.get_spec(game_id).origin for game_id in BUILTIN_IDS} == {"arena"}
    assert registry.plugin_problems() == []


def test_example_game_is_in_every_generic_configuration() -> None:
    configurations = [c for c in registry.all_configurations() if c[0] == EXAMPLE_ID]
    assert configurations == [(EXAMPLE_ID, 2, {}), (EXAMPLE_ID, 2, {"hand_size": 10, "hands": 3})]


def test_arena_games_lists_the_example_game() -> None:
    table = run("games")
    assert table.exit_code == 0, table.output
    assert EXAMPLE_ID in table.stdout
    assert "High Card (example plugin)" in table.stdout
    listed = run("games", "--json")
    assert listed.exit_code == 0, listed.output
    games = {game["id"]: game for game in json.loads(listed.stdout)}
    assert set(BUILTIN_IDS) | {EXAMPLE_ID} <= set(games)
    assert [p["name"] for p in games[EXAMPLE_ID]["params"]] == ["hands", "hand_size"]


def test_arena_games_json_shows_the_origin() -> None:
    games = {game["id"]: game for game in json.loads(run("games", "--json").stdout)}
    assert games[EXAMPLE_ID]["origin"] == EXAMPLE_PACKAGE
    assert games["briscola"]["origin"] == "arena"


def test_arena_play_and_replay_the_example_game(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    shown = run("play", EXAMPLE_ID, "--param", "hands=3", "--policy", "random", "--seed", "5",
                "--save", str(path))
    assert shown.exit_code == 0, shown.output
    assert "High Card (example plugin)" in shown.stdout
    assert "Hand 3" in shown.stdout
    record = MatchRecord.load(path)
    assert (record.game, record.players, record.seed) == (EXAMPLE_ID, 2, 5)
    assert sum(record.returns) == 0
    replay(record)
    assert run("replay", str(path)).exit_code == 0


def test_arena_play_rejects_a_bad_example_parameter() -> None:
    result = run("play", EXAMPLE_ID, "--param", "hand_size=21", "--policy", "random")
    assert result.exit_code == 2
    assert "hand_size='21' is invalid: expected an integer 1..20" in result.stderr


# --- the example game's rules ----------------------------------------------------------------


def cards(text: str) -> list[int]:
    """Card ids from short names such as ``AC 3S``."""
    return [ITALIAN_40.parse(name) for name in text.split()]


def deal(first: str, second: str) -> list[int]:
    """A deck order dealing ``first`` to the dealer's right and ``second`` to the dealer."""
    a, b = cards(first), cards(second)
    dealt = [card for pair in zip(a, b, strict=True) for card in pair]
    return dealt + [card for card in range(ITALIAN_40.size) if card not in dealt]


RULES = [
    # name, seat 0's hand, seat 1's hand, plays in order, trick winners, card points, returns
    ("follow suit; the led suit wins; points go to the winner",
     "AC 2D 3S", "4C RC 5D", "AC RC 3S 5D 2D 4C", [0, 0, 0], [25, 0], [1, -1]),
    ("an off-suit ace never wins", "2C", "AD", "2C AD", [0], [11, 0], [1, -1]),
    ("a three beats a king", "RC", "3C", "RC 3C", [1], [0, 14], [-1, 1]),
    ("the winner leads the next trick", "4C 5D", "3C 7D", "4C 3C 7D 5D", [1, 1], [0, 10], [-1, 1]),
    ("equal card points draw", "4C", "5D", "4C 5D", [0], [0, 0], [0, 0]),
]


@pytest.mark.parametrize(("name", "first", "second", "plays", "winners", "points", "returns"),
                         RULES, ids=[row[0] for row in RULES])
def test_example_rules(name: str, first: str, second: str, plays: str, winners: list[int],
                       points: list[int], returns: list[int]) -> None:
    size = len(first.split())
    game = load_game(EXAMPLE_ID, 2, {"hand_size": size})
    state = game.new_initial_state(0, deal=deal(first, second))
    assert state.observation(0).hand == tuple(sorted(cards(first)))
    assert state.observation(1).hand == tuple(sorted(cards(second)))
    for card in cards(plays):
        state.apply_action(card)
    events = state.full_events()
    assert [e.seat for e in events if e.kind == EventKind.TRICK] == winners
    end = next(e for e in events if e.kind == EventKind.HAND_END)
    assert list(end.values) == points
    assert len(end.cards) == ITALIAN_40.size - 2 * size
    assert sum(points) + sum(ITALIAN_40.per_card((11, 0, 10, 0, 0, 0, 0, 2, 3, 4))[c]
                             for c in end.cards) == 120
    assert state.is_terminal()
    assert state.returns() == returns


def test_a_card_off_the_led_suit_is_rejected_while_the_hand_can_follow() -> None:
    game = load_game(EXAMPLE_ID, 2, {"hand_size": 2})
    state = game.new_initial_state(0, deal=deal("AC 2D", "4C 5D"))
    state.apply_action(ITALIAN_40.parse("AC"))
    assert state.legal_actions() == cards("4C")
    before = (state.history(), state.event_count(), state.observation(1))
    with pytest.raises(IllegalActionError,
                       match=r"action 14 \(5D\) is illegal for seat 1; legal actions: 3 \(4C\)"):
        state.apply_action(ITALIAN_40.parse("5D"))
    assert (state.history(), state.event_count(), state.observation(1)) == before


def test_the_deal_passes_to_the_right_each_hand() -> None:
    game = load_game(EXAMPLE_ID, 2, {"hand_size": 1, "hands": 2})
    state = game.new_initial_state(0, deal=[deal("AC", "2C"), deal("3C", "4C")])
    assert state.current_player() == 0
    state.apply_action(ITALIAN_40.parse("AC"))
    state.apply_action(ITALIAN_40.parse("2C"))
    observation = state.observation(1)
    assert (observation.dealer, observation.current_player) == (0, 1)
    assert observation.hand == tuple(cards("3C"))
    assert observation.scores == (1.0, -1.0)
    assert state.returns() == [0.0, 0.0]
    state.apply_action(ITALIAN_40.parse("3C"))
    state.apply_action(ITALIAN_40.parse("4C"))
    assert state.is_terminal()
    assert state.returns() == [0.0, 0.0]


def test_example_heuristic_beats_random() -> None:
    from cardarena_example_games.policy import HeuristicPolicy

    for params in ({}, {"hand_size": 10, "hands": 3}):
        game = load_game(EXAMPLE_ID, 2, params)
        total = 0.0
        for seed in range(40):
            for hero in range(2):
                policies = [HeuristicPolicy(game, seat, seed) if seat == hero
                            else make_policy("random", game, seat, seed) for seat in range(2)]
                state = game.new_initial_state(seed)
                while not state.is_terminal():
                    seat = state.current_player()
                    state.apply_action(policies[seat].act(state.observation(seat)))
                total += state.returns()[hero]
        assert total / 80 > 0.15, params


def test_example_declares_its_heuristic_for_the_policy_lookup() -> None:
    from cardarena_example_games.policy import HeuristicPolicy

    found = {ep.name: ep for ep in entry_points(group="cardarena.policies")}
    assert found[EXAMPLE_ID].load() is HeuristicPolicy


# --- broken plugins ----------------------------------------------------------------------------


BROKEN = {
    # distribution: (module source, entry points)
    "cardarena-broken-import": (
        "raise RuntimeError('this plugin is broken')\n",
        "broken = cardarena_broken_import\n"),
    "cardarena-duplicate-games": (
        "from dataclasses import replace\n"
        "from cardarena_example_games.high_card import SPECS as EXAMPLE\n"
        "SPECS = (replace(EXAMPLE[0], id='briscola'), replace(EXAMPLE[0], id='high-card-copy'),\n"
        "         replace(EXAMPLE[0], id='high-card-copy'))\n",
        "copies = cardarena_duplicate_games\n"),
    "cardarena-not-games": (
        "VALUE = 42\n",
        "odd = cardarena_not_games:VALUE\nmissing = cardarena_no_such_module\n"),
}


def write_plugins(root: Path) -> Path:
    """Install the broken plugins (modules and dist-info) into ``root``."""
    for dist, (source, points) in BROKEN.items():
        module = dist.replace("-", "_")
        (root / f"{module}.py").write_text(source, encoding="utf-8")
        info = root / f"{module}-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n",
                                       encoding="utf-8")
        (info / "entry_points.txt").write_text(f"[cardarena.games]\n{points}", encoding="utf-8")
    return root


@pytest.fixture
def broken_plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The broken plugins importable in this process; the registry reloaded around the test."""
    root = write_plugins(tmp_path)
    monkeypatch.syspath_prepend(str(root))
    registry.reload()
    try:
        yield root
    finally:
        monkeypatch.undo()
        registry.reload()


def test_broken_plugins_are_reported_and_skipped(broken_plugins: Path) -> None:
    ids = registry.game_ids()
    assert ids[:len(BUILTIN_IDS)] == BUILTIN_IDS
    assert registry.get_spec("briscola").origin == "arena"
    assert ids[len(BUILTIN_IDS):] == ["high-card-copy", EXAMPLE_ID]
    assert registry.get_spec("high-card-copy").origin == "cardarena-duplicate-games"
    problems = {(p.package, p.entry_point.partition(" ")[0]): p.message
                for p in registry.plugin_problems()}
    assert problems.keys() == {("cardarena-broken-import", "broken"),
                               ("cardarena-duplicate-games", "copies"),
                               ("cardarena-not-games", "odd"),
                               ("cardarena-not-games", "missing")}
    assert problems["cardarena-broken-import", "broken"] == \
        "skipped: RuntimeError: this plugin is broken"
    assert "got int" in problems["cardarena-not-games", "odd"]
    assert "ModuleNotFoundError" in problems["cardarena-not-games", "missing"]
    duplicates = [p.message for p in registry.plugin_problems() if p.entry_point.startswith("cop")]
    assert duplicates == [
        "game 'briscola' skipped: the id is already registered by 'arena'",
        "game 'high-card-copy' skipped: the id is already registered by "
        "'cardarena-duplicate-games'"]


def test_broken_plugins_are_logged_with_their_package(
        broken_plugins: Path, caplog: pytest.LogCaptureFixture) -> None:
    registry.reload()
    logged = [r.getMessage() for r in caplog.records if r.name == registry.__name__]
    assert len(logged) == 5
    assert ("game plugin 'broken = cardarena_broken_import' of package 'cardarena-broken-import': "
            "skipped: RuntimeError: this plugin is broken") in logged


def test_arena_games_survives_broken_plugins(tmp_path: Path) -> None:
    root = write_plugins(tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
    listed = subprocess.run([arena_executable(), "games", "--json"], env=env, capture_output=True,
                            text=True, check=False, timeout=120)
    assert listed.returncode == 0, listed.stderr
    ids = [game["id"] for game in json.loads(listed.stdout)]
    assert ids == [*BUILTIN_IDS, "high-card-copy", EXAMPLE_ID]
    warnings = listed.stderr.splitlines()
    assert len(warnings) == 5
    for package in BROKEN:
        assert any(f"of package {package!r}: " in line and "skipped" in line
                   for line in warnings), package
    played = subprocess.run([arena_executable(), "play", "briscola", "--json"], env=env,
                            capture_output=True, text=True, check=False, timeout=120)
    assert played.returncode == 0, played.stderr
    assert MatchRecord.from_json(played.stdout).game == "briscola"


def test_a_plugin_without_a_distribution_is_named_by_its_module() -> None:
    point = EntryPoint("odd", "cardarena_nowhere.games:SPECS", registry.ENTRY_POINT_GROUP)
    specs, problems = registry.load_plugin(point, {})
    assert specs == []
    assert [p.package for p in problems] == ["cardarena_nowhere"]
    assert str(problems[0]).startswith("game plugin 'odd = cardarena_nowhere.games:SPECS' of "
                                       "package 'cardarena_nowhere': skipped: ModuleNotFoundError")


def test_specs_of_accepts_a_module_a_spec_or_a_tuple() -> None:
    from cardarena_example_games import high_card

    spec = high_card.SPECS[0]
    assert registry.specs_of(high_card) == high_card.SPECS
    assert registry.specs_of(spec) == (spec,)
    assert registry.specs_of([spec]) == (spec,)
    with pytest.raises(TypeError, match="module json has no SPECS"):
        registry.specs_of(json)
    with pytest.raises(TypeError, match="got tuple"):
        registry.specs_of((spec, "briscola"))


def test_registering_a_taken_id_names_its_holder() -> None:
    with pytest.raises(ValueError, match="'high-card' is already registered by "
                                         "'cardarena-example-games'"):
        registry.register(registry.get_spec(EXAMPLE_ID))
