"""The compiled engine: the build cache, the choice of engine, and the same games either way."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest
from typer.testing import CliRunner

import arena.games
import arena.games.briscola
import arena.protocol
from arena import compiled
from arena.cli import app
from arena.compiled import EngineChoiceError, use_compiled
from arena.engine_build import EngineBuildError, _compile, build_engine
from arena.games import load_game

SEEDS = 3
"""Random playouts per configuration in the comparison of the two engines."""

PLAYOUTS_SCRIPT = """
import hashlib, random
from arena.games import ENGINE, all_configurations, load_game
{imports}

digest = hashlib.sha256()
for game_id, seats, params in all_configurations():
    game = load_game(game_id, seats, params)
    for seed in range({seeds}):
        choose = random.Random(seed)
        state = game.new_initial_state(seed)
{body}
"""
"""A script that plays random playouts of every configuration into ``digest``: ``body`` is
each playout's code, indented in the loop over seeds, and the script's own ``imports``."""

DIGEST_SCRIPT = PLAYOUTS_SCRIPT.format(imports="", seeds=SEEDS, body="""\
        twin = None
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[choose.randrange(len(legal))])
            if twin is None and len(state.history()) == 5:
                twin = state.clone()
        parts = [game_id, seats, params, state.history(), state.returns(), state.full_events()]
        parts += [state.observation(seat) for seat in range(seats)]
        if twin is not None:
            while not twin.is_terminal():
                twin.apply_action(twin.legal_actions()[0])
            parts += [twin.history(), twin.returns()]
        digest.update(repr(parts).encode())
print(ENGINE, digest.hexdigest())""")

REQUESTS_SCRIPT = PLAYOUTS_SCRIPT.format(
    imports="from arena.protocol import PROTOCOL_ENGINE, RequestEncoder, decision_fields",
    seeds=SEEDS, body="""\
        encoders = [RequestEncoder(state, seat) for seat in range(seats)]
        request_id = 0
        while not state.is_terminal():
            request_id += 1
            seat = state.current_player()
            digest.update(encoders[seat].request_bytes(request_id, 1000, 30000 - request_id))
            legal = state.legal_actions()
            state.apply_action(legal[choose.randrange(len(legal))])
for answer in (b"\\x12\\x04\\x08\\x01\\x10\\x02", b"\\x12\\x03\\x08\\x01", b"\\x00", b""):
    digest.update(repr(decision_fields(answer)).encode())
print(PROTOCOL_ENGINE, digest.hexdigest())""")


def under_ci() -> bool:
    """True when the tests run under CI, where the compiled engine is built first."""
    return os.environ.get("CI", "").lower() == "true"


def require_compiled() -> None:
    """Fail under CI, skip elsewhere, when the suite does not run the compiled engine."""
    if arena.games.ENGINE != "compiled":
        if under_ci():
            pytest.fail("the compiled engine is not built (scripts/test runs arena engine build)")
        pytest.skip("the compiled engine is not built: arena engine build")


def games_digest(engine: str) -> tuple[str, str]:
    """The engine that ran and a digest of random playouts of every configuration, played in a
    fresh process with ``ARENA_ENGINE=engine``."""
    env = {**os.environ, "ARENA_ENGINE": engine}
    done = subprocess.run([sys.executable, "-c", DIGEST_SCRIPT], env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    ran, digest = done.stdout.split()
    return ran, digest


def test_the_suite_runs_the_compiled_engine() -> None:
    """Under CI the engine is built before the tests, so every test runs compiled code."""
    require_compiled()
    assert arena.games.briscola.__file__.endswith(tuple(EXTENSION_SUFFIXES))


def test_the_compiled_and_interpreted_engines_play_the_same_games() -> None:
    """Same seeds and actions: the same histories, events, observations, returns and clones."""
    require_compiled()
    compiled = games_digest("compiled")
    interpreted = games_digest("python")
    assert (compiled[0], interpreted[0]) == ("compiled", "python")
    assert compiled[1] == interpreted[1]


def test_the_compiled_and_interpreted_protocol_encode_the_same_requests() -> None:
    """The protocol modules built with the engine run with it, and encode every request of
    random playouts of every configuration to the same bytes as from source."""
    require_compiled()
    digests = {}
    for engine in ("compiled", "python"):
        env = {**os.environ, "ARENA_ENGINE": engine}
        done = subprocess.run([sys.executable, "-c", REQUESTS_SCRIPT],
                              env=env, capture_output=True, text=True, timeout=600, check=False)
        assert done.returncode == 0, done.stderr[-2000:]
        ran, digest = done.stdout.split()
        digests[ran] = digest
    assert set(digests) == {"compiled", "python"}
    assert digests["compiled"] == digests["python"]


def test_the_protocol_encoder_runs_compiled_with_the_engine() -> None:
    """With the compiled engine, the encoder and the answer reader load from its build."""
    require_compiled()
    import arena.protocol
    import arena.protocol.encoder
    import arena.protocol.replies

    assert arena.protocol.PROTOCOL_ENGINE == "compiled"
    for module in (arena.protocol.encoder, arena.protocol.replies):
        assert module.__file__ is not None
        assert module.__file__.endswith(tuple(EXTENSION_SUFFIXES))


def test_arena_engine_python_keeps_the_engine_interpreted(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """``ARENA_ENGINE=python`` leaves the package path alone, whatever is built."""
    monkeypatch.setenv("ARENA_ENGINE", "python")
    path = ["games"]
    assert use_compiled(path, "games") == "python"
    assert path == ["games"]


def test_asking_for_a_compiled_engine_that_is_not_built_is_one_clear_error(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``ARENA_ENGINE=compiled`` with no build of these sources says how to build it."""
    monkeypatch.setenv("ARENA_ENGINE", "compiled")
    monkeypatch.setenv("ARENA_ENGINE_CACHE", str(tmp_path))
    with pytest.raises(EngineChoiceError, match="not built for these sources: run arena engine"):
        use_compiled([], "games")


def test_with_no_cache_folder_the_sources_are_not_read_at_import(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Where no build can exist (no cache folder, as in a bot's image), a package imports from
    source without hashing the sources; asking for the compiled engine there is still the
    clear error."""

    def read_sources() -> str:
        raise AssertionError("the sources were read to hash them")

    monkeypatch.setattr(compiled, "source_hash", read_sources)
    monkeypatch.setenv("ARENA_ENGINE_CACHE", str(tmp_path / "missing"))
    monkeypatch.setenv("ARENA_ENGINE", "auto")
    path = ["games"]
    assert use_compiled(path, "games") == "python"
    assert path == ["games"]
    monkeypatch.setenv("ARENA_ENGINE", "compiled")
    with pytest.raises(EngineChoiceError, match="not built for these sources"):
        use_compiled([], "protocol")


def test_an_unknown_engine_choice_names_the_valid_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """A misspelt ``ARENA_ENGINE`` is refused with the choices."""
    monkeypatch.setenv("ARENA_ENGINE", "fast")
    with pytest.raises(EngineChoiceError, match="'fast' is not one of auto, python, compiled"):
        use_compiled([], "games")


def test_a_complete_build_of_these_sources_goes_first_on_the_path(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Only a build marked complete, in the folder of the current sources' hash, is used, and
    each package takes its own part of it."""
    monkeypatch.setenv("ARENA_ENGINE", "auto")
    monkeypatch.setenv("ARENA_ENGINE_CACHE", str(tmp_path))
    folder = tmp_path / compiled.source_hash()
    (folder / "arena" / "games").mkdir(parents=True)
    path = ["games"]
    assert use_compiled(path, "games") == "python"
    (folder / "COMPLETE").write_text("")
    assert use_compiled(path, "games") == "compiled"
    assert path == [str(folder / "arena" / "games"), "games"]
    protocol_path = ["protocol"]
    assert use_compiled(protocol_path, "protocol") == "python"
    assert protocol_path == ["protocol"]


def test_the_build_folder_follows_every_source_of_the_build(monkeypatch: pytest.MonkeyPatch,
                                                            tmp_path: Path) -> None:
    """Changing a module of any package of the build changes the hash, so an old build is
    never loaded."""
    copy = tmp_path / "arena"
    for package in compiled.BUILD_PACKAGES:
        shutil.copytree(compiled.package_dir(package), copy / package,
                        ignore=shutil.ignore_patterns("__pycache__", "v1"))
    monkeypatch.setattr(compiled, "ARENA_DIR", copy)
    before = compiled.source_hash()
    for edited in (copy / "games" / "briscola.py", copy / "protocol" / "encoder.py"):
        edited.write_text(edited.read_text() + "\n# edited\n")
        after = compiled.source_hash()
        assert after != before
        before = after


def test_each_package_names_its_own_compiled_modules() -> None:
    """The games compile every module but their ``__init__``; the protocol the modules it
    names, which exist."""
    games = compiled.module_paths("games", arena.games.COMPILED_MODULES)
    assert "__init__.py" not in {path.name for path in games}
    assert {"briscola.py", "api.py"} <= {path.name for path in games}
    protocol = compiled.module_paths("protocol", arena.protocol.COMPILED_MODULES)
    assert [path.name for path in protocol] == sorted(
        f"{name}.py" for name in arena.protocol.COMPILED_MODULES)
    assert all(path.is_file() for path in protocol)


def test_a_build_without_a_packages_modules_is_refused() -> None:
    """The builder is given every build package's modules, or it names what is missing."""
    with pytest.raises(EngineBuildError, match="compiled modules of games, protocol, not of "
                                               "games"):
        build_engine({"games": arena.games.COMPILED_MODULES})


def test_a_failed_build_is_one_line_with_the_compiler_output(tmp_path: Path) -> None:
    """mypyc's own error comes back in the one line of ``EngineBuildError``."""
    module = tmp_path / "broken.py"
    module.write_text("def f() -> int:\n    return 'not an int'\n")
    with pytest.raises(EngineBuildError) as error:
        _compile(tmp_path, ["broken.py"])
    message = str(error.value)
    assert message.startswith("mypyc failed (exit 1)") and "\n" not in message
    assert "Incompatible return value type" in message


def test_arena_engine_status_reports_the_engine_and_its_build() -> None:
    """``arena engine status --json``: the engine, the choice, the hash and the folder."""
    result = CliRunner().invoke(app, ["engine", "status", "--json"])
    assert result.exit_code == 0, result.output
    status = json.loads(result.output)
    assert status["engine"] == arena.games.ENGINE
    assert status["protocol"] == arena.games.ENGINE
    assert status["source_hash"] == compiled.source_hash()
    assert Path(status["folder"]).name == status["source_hash"]
    if arena.games.ENGINE == "compiled":
        assert status["built"] is True


def test_compiled_observations_events_and_meanings_are_read_only() -> None:
    """The engine's value classes refuse assignment once compiled, and compare by value."""
    require_compiled()
    state = load_game("briscola", 2).new_initial_state(4)
    observation = state.observation(0)
    event = observation.events[0]
    meaning = state.action_meaning(state.legal_actions()[0])
    for value, name, new in ((observation, "hand", ()), (event, "seat", 1),
                             (meaning, "label", "x")):
        with pytest.raises(AttributeError, match="not writable"):
            setattr(value, name, new)
    assert observation == state.observation(0) and hash(observation) == hash(state.observation(0))
    assert observation != state.observation(1)
    assert dataclasses.replace(event, seat=event.seat) == event
