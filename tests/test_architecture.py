"""The import graph of ``arena`` and the SDK follows the layers of docs/architecture.md.

Every import is read with ``ast``, those inside functions and under ``TYPE_CHECKING`` too. An
import may point only to the same layer or a lower one; no two modules may import each other
through any chain (a circle); the generated protobuf code (``arena.protocol.v1``) is imported
only inside ``arena.protocol``; typer and rich only inside ``arena.cli``; the SDK builds only on
the engine (layers 0 and 1). A failure lists each offending import as
``module -> imported (file:line)``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ROOTS = {"arena": REPO / "arena", "cardarena_sdk": REPO / "sdk" / "python" / "cardarena_sdk"}
"""Top-level packages checked, and their folders."""

LAYERS = {
    "arena.games": 0,
    "arena.telemetry": 0,  # the metrics and JSON-line logs every layer may use
    "arena.policies": 1,
    "arena.protocol": 1,
    "arena.bridges": 1,  # the games for OpenSpiel and the shared tensors, in the engine
    "arena.sandbox": 2,
    "arena.bots": 2,
    "arena.agents": 3,
    "arena.match": 4,
    "arena.store": 5,
    "arena.league": 6,
    "arena.botkit": 6,
    "arena.server": 7,
    "arena.audit": 7,
    "arena.bench": 7,
    "arena.cli": 8,
    "arena.envs": 8,  # the learning environments render with the CLI's match display
    "arena.notebook": 8,  # arena.play: the runner's matches and the web replay, from Python
}
"""Each package of ``arena`` and its layer; an import points to the same layer or lower.
The package ``arena`` itself and its modules that are not packages are layer 0."""

SDK_MAX_LAYER = 1
"""The highest layer of ``arena`` that the SDK may import."""

GENERATED = "arena.protocol.v1"
"""The generated protobuf code: imported only inside ``arena.protocol``."""

CLI_ONLY = ("typer", "rich")
"""Libraries imported only inside ``arena.cli``."""


@dataclass(frozen=True)
class Import:
    """One import statement's target, where it was found."""

    module: str
    target: str
    path: Path
    line: int

    def __str__(self) -> str:
        """``module -> imported (file:line)``."""
        return f"{self.module} -> {self.target} ({self.path.relative_to(REPO)}:{self.line})"


def module_files() -> dict[str, Path]:
    """Every module checked, by dotted name."""
    modules = {}
    for root, folder in ROOTS.items():
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join((root, *parts))] = path
    return modules


MODULES = module_files()


def resolve(name: str) -> str:
    """The module of the project that a dotted name imports: the name itself, or its longest
    prefix that is a module here (the name is an attribute of it); other names as they are."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in MODULES:
            return candidate
    return name


def imports_of(module: str, path: Path, source: str | None = None) -> Iterator[Import]:
    """Every import of a module, wherever it stands: ``from X import a`` imports ``X.a`` when
    that is a module of the project, else ``X``; relative imports are made absolute."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    text = path.read_text("utf-8") if source is None else source
    for node in ast.walk(ast.parse(text, str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(module, resolve(alias.name), path, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                child = f"{base}.{alias.name}"
                yield Import(module, child if child in MODULES else resolve(base), path,
                             node.lineno)


ALL_IMPORTS = [found for module, path in MODULES.items() for found in imports_of(module, path)]


def layer(module: str) -> int | None:
    """The layer of a module of ``arena``; None for one in a package that has no layer."""
    for package, number in LAYERS.items():
        if inside(module, package):
            return number
    path = MODULES.get(module)
    if module == "arena" or (path is not None and path.parent == ROOTS["arena"]
                             and path.name != "__init__.py"):
        return 0
    return None


def inside(module: str, package: str) -> bool:
    """True if ``module`` is ``package`` or in it."""
    return module == package or module.startswith(package + ".")


def report(title: str, found: list[Import]) -> str:
    """A failure message: the title, then one offending import a line."""
    return "\n".join([f"{title}:", *(f"  {item}" for item in found)])


def test_every_package_of_arena_has_a_layer() -> None:
    """A new package of ``arena`` is placed in the layers before it is imported."""
    missing = sorted({module for module in MODULES
                      if inside(module, "arena") and layer(module) is None})
    if missing:
        pytest.fail("modules of arena in no layer (add their package to LAYERS):\n  "
                    + "\n  ".join(missing), pytrace=False)


def test_imports_point_down_the_layers() -> None:
    """Every import between packages of ``arena`` points to the same layer or a lower one."""
    upward = [item for item in ALL_IMPORTS
              if inside(item.module, "arena") and inside(item.target, "arena")
              and (mine := layer(item.module)) is not None
              and (theirs := layer(item.target)) is not None and theirs > mine]
    if upward:
        pytest.fail(report("imports against the layers (see LAYERS)", upward), pytrace=False)


def test_the_sdk_builds_on_the_engine_only() -> None:
    """The SDK imports ``arena`` only from layers 0 and 1 (games, policies, protocol)."""
    beyond = [item for item in ALL_IMPORTS
              if inside(item.module, "cardarena_sdk") and inside(item.target, "arena")
              and (layer(item.target) or 0) > SDK_MAX_LAYER]
    if beyond:
        pytest.fail(report(f"SDK imports above layer {SDK_MAX_LAYER}", beyond), pytrace=False)


def test_generated_code_is_imported_only_by_the_protocol() -> None:
    """``arena.protocol.v1`` is imported only inside ``arena.protocol``."""
    outside = [item for item in ALL_IMPORTS
               if inside(item.target, GENERATED) and not inside(item.module, "arena.protocol")]
    if outside:
        pytest.fail(report(f"{GENERATED} imported outside arena.protocol", outside),
                    pytrace=False)


@pytest.mark.parametrize("library", CLI_ONLY)
def test_command_line_libraries_only_in_the_cli(library: str) -> None:
    """typer and rich are imported only inside ``arena.cli``."""
    outside = [item for item in ALL_IMPORTS
               if inside(item.target, library) and not inside(item.module, "arena.cli")]
    if outside:
        pytest.fail(report(f"{library} imported outside arena.cli", outside), pytrace=False)


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:
        """Tarjan's search from ``start``, iteratively (no recursion limit)."""
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(edges.get(target, ())))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(found)


def test_no_import_circles() -> None:
    """No module imports itself through a chain of others (functions and TYPE_CHECKING too)."""
    edges: dict[str, set[str]] = {}
    for item in ALL_IMPORTS:
        if item.target in MODULES and item.target != item.module:
            edges.setdefault(item.module, set()).add(item.target)
    problems = []
    for component in circles(edges):
        members = set(component)
        problems.append(report("circle " + ", ".join(component), [
            item for item in ALL_IMPORTS
            if item.module in members and item.target in members and item.target != item.module
        ]))
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


def test_the_checker_sees_lazy_relative_and_type_checking_imports() -> None:
    """The graph has the imports in functions and under TYPE_CHECKING, relative ones made
    absolute, and ``from package import module`` as an import of the module."""
    source = ("from typing import TYPE_CHECKING\n"
              "if TYPE_CHECKING:\n    from arena.games.api import Game\n"
              "def f() -> None:\n    from . import cards\n    import arena.store.models\n"
              "    from ..protocol import encoder\n")
    path = ROOTS["arena"] / "games" / "params.py"
    found = sorted((item.line, item.target) for item in imports_of("arena.games.params", path,
                                                                    source))
    assert found == [(1, "typing"), (3, "arena.games.api"), (5, "arena.games.cards"),
                     (6, "arena.store.models"), (7, "arena.protocol.encoder")]
    assert [layer(name) for name in ("arena", "arena.games.api", "arena.cli.league")] == [0, 0, 8]


def test_the_command_line_loads_no_plotting_or_web_stack_until_a_command_needs_it() -> None:
    """``arena`` starts without matplotlib, the web pages or the gRPC service: every command
    (and a benchmark's process) would pay for them, in start time and in the objects its
    garbage collector walks."""
    heavy = ("matplotlib", "fastapi", "uvicorn", "arena.server.web", "arena.server.api")
    done = subprocess.run([sys.executable, "-c", (
        "import sys\nfrom arena.cli import app\n"
        f"print(sorted(name for name in sys.modules if name.startswith({heavy!r})))")],
        capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
