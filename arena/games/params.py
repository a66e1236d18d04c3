"""Typed game parameters, their validation, and the errors of bad input."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from difflib import get_close_matches
from typing import Protocol

ParamValue = int | bool | str
Params = Mapping[str, ParamValue]


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` naming the choices closest to a mistyped ``word`` (up to three),
    or "" when none is close."""
    close = get_close_matches(word, list(choices), n=3, cutoff=0.6)
    if not close:
        return ""
    return " (did you mean " + " or ".join(repr(choice) for choice in close) + "?)"


class GameError(ValueError):
    """Bad input to the rules engine; the message names the problem and the valid choices."""


class UnknownGameError(GameError):
    """A game id that is not registered."""


class InvalidParameterError(GameError):
    """An unknown parameter, a bad value, or a seat count the game does not allow."""


class InvalidDealError(GameError):
    """An injected deal that is not a permutation of the game's deck."""


class IllegalActionError(GameError):
    """An action that is not legal in the current state."""


@dataclass(frozen=True)
class Param:
    """One game parameter: a name, a default (whose type is the parameter's), and its range."""

    name: str
    default: ParamValue
    help: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    @property
    def kind(self) -> str:
        """``bool``, ``int`` or ``choice``."""
        if isinstance(self.default, bool):
            return "bool"
        if isinstance(self.default, int):
            return "int"
        return "choice"

    def describe(self) -> str:
        """The valid values in words."""
        if self.kind == "bool":
            return "true or false"
        if self.kind == "int":
            low = "" if self.minimum is None else str(self.minimum)
            high = "" if self.maximum is None else str(self.maximum)
            return f"an integer {low}..{high}" if low or high else "an integer"
        return "one of " + ", ".join(self.choices)

    def parse(self, game_id: str, raw: ParamValue) -> ParamValue:
        """A validated value from a raw value or its text form."""
        problem = f"{game_id}: parameter {self.name}={raw!r} is invalid: expected {self.describe()}"
        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in ("true", "1", "yes", "on"):
                return True
            if text in ("false", "0", "no", "off"):
                return False
            raise InvalidParameterError(problem)
        if self.kind == "int":
            if isinstance(raw, bool):
                raise InvalidParameterError(problem)
            try:
                value = int(raw)
            except ValueError:
                raise InvalidParameterError(problem) from None
            if (self.minimum is not None and value < self.minimum) or (
                self.maximum is not None and value > self.maximum
            ):
                raise InvalidParameterError(problem)
            return value
        text = str(raw).strip()
        if text not in self.choices:
            raise InvalidParameterError(problem + did_you_mean(text, self.choices))
        return text


class MadeGame(Protocol):
    """What a factory makes, as far as a spec knows it: a game of ``arena.games.api``."""

    spec: GameSpec
    num_players: int
    params: dict[str, ParamValue]


GameFactory = Callable[["GameSpec", int, dict[str, ParamValue]], MadeGame]
CrossCheck = Callable[[int, dict[str, ParamValue]], str | None]


@dataclass(frozen=True)
class GameSpec:
    """A registered game id: its seats, parameters and factory."""

    id: str
    title: str
    section: str
    seats: tuple[int, ...]
    params: tuple[Param, ...]
    factory: GameFactory
    summary: str = ""
    rules_version: str = "2"
    cross_check: CrossCheck | None = None
    extra_configurations: tuple[tuple[int, tuple[tuple[str, ParamValue], ...]], ...] = ()
    """(seats, parameters) pairs that generic tests cover besides each seat count's defaults."""
    origin: str = "arena"
    _by_name: dict[str, Param] = field(default_factory=dict, init=False, repr=False,
                                       compare=False)

    def __post_init__(self) -> None:
        """Index the parameters by name."""
        self._by_name.update({param.name: param for param in self.params})

    @property
    def default_seats(self) -> int:
        """The seat count a league plays."""
        return self.seats[0]

    def defaults(self) -> dict[str, ParamValue]:
        """Every parameter at its default."""
        return {param.name: param.default for param in self.params}

    def resolve(self, players: int | None, raw: Params | None) -> tuple[int, dict[str, ParamValue]]:
        """Validated seat count and full parameter set, or an error naming the problem."""
        values = self.defaults()
        for name, value in (raw or {}).items():
            param = self._by_name.get(name)
            if param is None:
                valid = ", ".join(sorted(self._by_name)) or "none"
                hint = did_you_mean(name, self._by_name)
                raise InvalidParameterError(
                    f"{self.id}: unknown parameter {name!r}{hint}; valid parameters: {valid}"
                )
            values[name] = param.parse(self.id, value)
        seats = self.default_seats if players is None else players
        if seats not in self.seats:
            allowed = ", ".join(str(n) for n in sorted(self.seats))
            raise InvalidParameterError(
                f"{self.id}: {seats} players is not allowed; valid seat counts: {allowed}"
            )
        if self.cross_check is not None:
            problem = self.cross_check(seats, values)
            if problem:
                raise InvalidParameterError(f"{self.id}: {problem}")
        return seats, values
