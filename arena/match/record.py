"""Match records: (game, players, params, seed, actions) and what came of them, as JSON.

A record is enough to re-simulate a match exactly: the rules engine is deterministic given the
game, its parameters, the seed and the actions. ``replay`` does that and checks the outcome.

The JSON form is an object with the keys ``format`` (``card-arena.match``), ``format_version``,
``game``, ``players``, ``params``, ``seed``, ``seed_source``, ``actions``, ``policies``,
``returns``, ``rules_version`` and ``arena_version``. Unknown keys are ignored, so later versions
may add some. ``seed_source`` says whether the deal was secret while it was played: ``secret``
for a league's deal derived from its secret, ``given`` (the default, and what a record without
the key means) for a seed a user gave, which anyone knowing it could use to see every hand.
Records of matches played by the runner add ``match_id``, ``time_control``, ``reasons``,
``seats``, ``faults``, ``debug`` and ``decision_us`` (see ``arena.match.conduct``); substituted
actions are ordinary actions, so such records replay like any other.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena import __version__
from arena.games import Game, IllegalActionError, State, load_game
from arena.games.params import ParamValue
from arena.games.rng import MAX_SEED
from arena.match.conduct import Conduct
from arena.match.errors import RecordError, ReplayError
from arena.match.safetext import safe_json

FORMAT = "card-arena.match"
"""The value of the ``format`` key of every match record."""

FORMAT_VERSION = 1
"""The version of the JSON layout this module writes and reads."""

SEED_GIVEN = "given"
"""``seed_source`` of a deal whose seed a user gave: reproducible, so not secret."""

SEED_SECRET = "secret"
"""``seed_source`` of a deal whose seed came from a secret nobody saw before its end."""

SEED_SOURCES = (SEED_GIVEN, SEED_SECRET)


@dataclass(frozen=True)
class MatchRecord:
    """A finished match: enough to replay it, plus the policies, returns and versions."""

    game: str
    players: int
    params: dict[str, ParamValue]
    seed: int
    actions: tuple[int, ...]
    policies: tuple[str, ...]
    returns: tuple[float, ...]
    rules_version: str
    arena_version: str = field(default=__version__)
    conduct: Conduct | None = None
    """How the runner conducted the match (None for local and older records)."""
    seed_source: str = SEED_GIVEN
    """``secret`` when the seed came from a league's secret, else ``given`` (not secret)."""

    @classmethod
    def from_state(cls, state: State, policies: Sequence[str],
                   conduct: Conduct | None = None) -> MatchRecord:
        """The record of a match played out on ``state`` by the named policies (one per seat)."""
        game = state.game
        return cls(
            game=game.id,
            players=game.num_players,
            params=dict(game.params),
            seed=state.seed(),
            actions=tuple(state.history()),
            policies=tuple(policies),
            returns=tuple(float(value) for value in state.returns()),
            rules_version=game.spec.rules_version,
            conduct=conduct,
        )

    def make_game(self) -> Game:
        """The recorded game with its seat count and parameters (engine errors if unknown)."""
        return load_game(self.game, self.players, self.params)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form, keys in a fixed order."""
        conduct = self.conduct.to_dict() if self.conduct is not None else {}
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "game": self.game,
            "players": self.players,
            "params": dict(self.params),
            "seed": self.seed,
            "seed_source": self.seed_source,
            "policies": list(self.policies),
            "returns": list(self.returns),
            "rules_version": self.rules_version,
            "arena_version": self.arena_version,
            **conduct,
            "actions": list(self.actions),
        }

    def to_json(self) -> str:
        """The JSON text: one key per line, lists kept on one line, control and format
        characters in strings escaped (``safe_json``), so it is safe to print."""
        lines = [f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}"
                 for key, value in self.to_dict().items()]
        return safe_json("{\n" + ",\n".join(lines) + "\n}\n")

    @classmethod
    def from_json(cls, text: str) -> MatchRecord:
        """Parse and check a record's JSON text, or raise ``RecordError`` naming the problem."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise RecordError(f"not a match record: invalid JSON ({error})") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: object) -> MatchRecord:
        """Check a decoded record, or raise ``RecordError`` naming the problem."""
        if not isinstance(data, dict):
            raise RecordError("not a match record: expected a JSON object")
        if data.get("format") != FORMAT:
            raise RecordError(f"not a match record: the key 'format' must be {FORMAT!r}")
        version = data.get("format_version")
        if version != FORMAT_VERSION:
            raise RecordError(f"unsupported match record format_version {version!r}; "
                              f"this version of arena reads {FORMAT_VERSION}")
        players = _int(data, "players", 1)
        seed = _int(data, "seed", 0, MAX_SEED)
        seed_source = data.get("seed_source", SEED_GIVEN)
        if seed_source not in SEED_SOURCES:
            raise RecordError(f"bad match record: 'seed_source' must be one of "
                              f"{', '.join(SEED_SOURCES)}, got {seed_source!r}")
        policies = tuple(_list(data, "policies", str, "strings"))
        returns = tuple(float(v) for v in _list(data, "returns", (int, float), "numbers"))
        actions = tuple(_list(data, "actions", int, "action ids"))
        if len(policies) != players or len(returns) != players:
            raise RecordError(f"bad match record: {players} players but {len(policies)} "
                              f"policies and {len(returns)} returns")
        if any(action < 0 for action in actions):
            raise RecordError("bad match record: action ids are never negative")
        return cls(
            game=_str(data, "game"),
            players=players,
            params=_params(data),
            seed=seed,
            actions=actions,
            policies=policies,
            returns=returns,
            rules_version=_str(data, "rules_version"),
            arena_version=_str(data, "arena_version"),
            conduct=Conduct.from_dict(data, players, actions),
            seed_source=seed_source,
        )

    def save(self, path: Path) -> None:
        """Write the JSON form to a file."""
        try:
            path.write_text(self.to_json(), encoding="utf-8")
        except OSError as error:
            raise RecordError(f"cannot write match record {str(path)!r}: "
                              f"{error.strerror or error}") from None

    @classmethod
    def load(cls, path: Path) -> MatchRecord:
        """Read and check a record file."""
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise RecordError(f"cannot read match record {str(path)!r}: "
                              f"{error.strerror or error}") from None
        except UnicodeDecodeError:
            raise RecordError(f"not a match record: {str(path)!r} is not UTF-8 text") from None
        try:
            return cls.from_json(text)
        except RecordError as error:
            raise RecordError(f"{path}: {error}") from None


def apply_recorded(state: State, index: int, action: int, total: int) -> None:
    """Apply the ``index``-th recorded action, or raise ``ReplayError`` saying why it cannot be."""
    try:
        state.apply_action(action)
    except IllegalActionError as error:
        raise ReplayError(f"recorded action {index + 1} of {total} cannot be replayed: "
                          f"{error}") from None


def replay(record: MatchRecord) -> State:
    """Re-simulate a record and check that it ends the match with the recorded returns."""
    game = record.make_game()
    if game.spec.rules_version != record.rules_version:
        raise ReplayError(f"the record was made with {record.game} rules version "
                          f"{record.rules_version!r}; this engine has {game.spec.rules_version!r}")
    state = game.new_initial_state(record.seed)
    total = len(record.actions)
    for index, action in enumerate(record.actions):
        apply_recorded(state, index, action, total)
    if not state.is_terminal():
        raise ReplayError(f"the record ends after {total} actions but the match is not over "
                          f"(seat {state.current_player()} is to act)")
    replayed = state.returns()
    if not returns_equal(replayed, record.returns):
        raise ReplayError(f"the replayed returns {_numbers(replayed)} differ from the recorded "
                          f"returns {_numbers(record.returns)}")
    return state


def returns_equal(left: Sequence[float], right: Sequence[float]) -> bool:
    """True when two per-seat returns agree (to rounding)."""
    return len(left) == len(right) and all(
        math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9) for a, b in zip(left, right, strict=True))


def _numbers(values: Sequence[float]) -> str:
    """Per-seat numbers as text, without needless decimals."""
    return "[" + ", ".join(f"{value:g}" for value in values) + "]"


def _missing(name: str) -> RecordError:
    """The error of a missing key."""
    return RecordError(f"bad match record: the key {name!r} is missing")


def _str(data: Mapping[str, Any], name: str) -> str:
    """A required string field."""
    if name not in data:
        raise _missing(name)
    value = data[name]
    if not isinstance(value, str) or not value:
        raise RecordError(f"bad match record: {name!r} must be a non-empty string, got {value!r}")
    return value


def _int(data: Mapping[str, Any], name: str, low: int, high: int | None = None) -> int:
    """A required integer field within bounds."""
    if name not in data:
        raise _missing(name)
    value = data[name]
    if (not isinstance(value, int) or isinstance(value, bool) or value < low
            or (high is not None and value > high)):
        bounds = f"{low}..{high}" if high is not None else f"at least {low}"
        raise RecordError(f"bad match record: {name!r} must be an integer {bounds}, got {value!r}")
    return value


def _list(data: Mapping[str, Any], name: str, kind: type | tuple[type, ...],
          words: str) -> list[Any]:
    """A required list field whose items all have one type (booleans never count as numbers)."""
    if name not in data:
        raise _missing(name)
    value = data[name]
    if not isinstance(value, list) or not all(
            isinstance(item, kind) and not isinstance(item, bool) for item in value):
        raise RecordError(f"bad match record: {name!r} must be a list of {words}")
    return value


def _params(data: Mapping[str, Any]) -> dict[str, ParamValue]:
    """The parameters: an object of booleans, integers and strings."""
    if "params" not in data:
        raise _missing("params")
    value = data["params"]
    if not isinstance(value, dict) or not all(
            isinstance(item, bool | int | str) for item in value.values()):
        raise RecordError("bad match record: 'params' must map names to booleans, integers "
                          "or strings")
    return dict(value)
