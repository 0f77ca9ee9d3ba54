"""Discovery of the installed games: each service package declares a ``ludoteca.games`` entry
point naming its :class:`~ludoteca.core.engine.GameDefinition`. Definitions load lazily, one game at
a time, so one process can host a single game without importing the others."""

from __future__ import annotations

from functools import cache
from importlib.metadata import EntryPoint, entry_points

from ludoteca.core.engine import GameDefinition


def _entry_points() -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group="ludoteca.games")}


def names() -> list[str]:
    """Installed game names, without importing them."""
    return sorted(_entry_points())


@cache
def game(name: str) -> GameDefinition:
    eps = _entry_points()
    if name not in eps:
        raise LookupError(f"no installed game named {name!r}; installed: {sorted(eps)}")
    definition = eps[name].load()
    if not isinstance(definition, GameDefinition):
        raise TypeError(f"entry point {name} is not a GameDefinition")
    return definition
