"""The bots' limits as the command line names them: ``--allow-unenforced`` values."""

from __future__ import annotations

from collections.abc import Iterable

from arena.bots import BotConfigError


def limit_names() -> tuple[str, ...]:
    """Every limit the sandbox checks, by the name ``--allow-unenforced`` takes."""
    from arena.sandbox.probe import LIMIT_NAMES

    return tuple(LIMIT_NAMES)


def parse_allowed(items: Iterable[str]) -> frozenset[str]:
    """The limit names of ``--allow-unenforced`` values (comma-separated, repeatable)."""
    names = {name.strip() for item in items for name in item.split(",") if name.strip()}
    if not names:
        return frozenset()
    known = limit_names()
    unknown = sorted(names - set(known))
    if unknown:
        raise BotConfigError(f"--allow-unenforced: unknown limit {', '.join(unknown)}; "
                             f"the limits are {', '.join(known)}")
    return frozenset(names)
