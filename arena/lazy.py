"""Names of a module imported on first use (PEP 562): the module says where each comes from, and
importing the module loads none of them.

    __getattr__, __dir__ = lazy_names(__name__, {"Game": "arena.games",
                                                 "pb": "arena.protocol.schema:agent"})

A name is ``module`` (the attribute of the same name) or ``module:attribute``, where the
attribute may be a submodule (``package:module``); once loaded it is
kept in the module's namespace, so later reads cost what any global does. A module's
``TYPE_CHECKING`` imports give type checkers the same names.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(module: str, names: Mapping[str, str], submodules: bool = False
               ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``module``: each of ``names`` imported on first
    use and kept; with ``submodules``, a submodule of the package reached as an attribute
    too."""
    namespace = sys.modules[module].__dict__

    def load(name: str) -> Any:
        """The lazy name or submodule ``name``, now imported; else AttributeError."""
        source = names.get(name)
        if source is not None:
            path, _, attribute = source.partition(":")
            attribute = attribute or name
            try:
                value = getattr(importlib.import_module(path), attribute)
            except AttributeError:
                value = importlib.import_module(f"{path}.{attribute}")
        elif submodules:
            try:
                value = importlib.import_module(f"{module}.{name}")
            except ModuleNotFoundError as error:
                if error.name != f"{module}.{name}":
                    raise
                raise AttributeError(f"module {module!r} has no attribute {name!r}") from None
        else:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        namespace[name] = value
        return value

    def names_of() -> list[str]:
        """The module's names, the lazy ones included."""
        return sorted({*namespace, *names})

    return load, names_of
