"""What each game keeps secret, as a perturbation: ``twin(state, seat, rnd)`` is the same game with
everything ``seat`` (``None``: a spectator) may not know changed. The contract suite checks that
a seat's view, legal actions, templates and error bodies are the same in both.

Every game gets the generic twin (another RNG: the seed and the counter are never anyone's to
know before the end); a game whose state holds more secrets (hands, a rule, hidden boards) writes
its own perturbation in its own folder, ``tests/<game>/twin.py``: a function ``twin(state, seat,
rnd)``, found here by that path (the games' test folders are no packages: their names are the
games' own packages'). No game is named here.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from ludoteca.core.engine import GameDefinition
from ludoteca.core.rng import Rng
from ludoteca.service_layer import registry

Twin = Callable[[Any, int | None, random.Random], Any]
TESTS = Path(__file__).resolve().parents[1]


def other_rng(rnd: random.Random) -> Rng:
    return Rng(f"{rnd.getrandbits(256):064x}", rnd.randrange(1000))


def generic_twin(definition: GameDefinition, state: Any, seat: int | None, rnd: random.Random) -> Any:
    """The same state with another RNG (through the codec, so it works for any engine)."""
    data = definition.engine.dump(state)
    if "rng" in data:
        data = {**data, "rng": other_rng(rnd).dump()}
    return definition.engine.load(data)


def private_events(game: str) -> frozenset[str]:
    """Event types that carry a secret, whose audience is never everyone: the game's own
    declaration (``GameDefinition.tests.private_events``; none: it tells everything it tells to
    anyone)."""
    return registry.game(game).tests.private_events


@cache
def twin_module(game: str) -> ModuleType | None:
    """``tests/<game>/twin.py`` loaded by its path (as the module ``<game>_twin``), or None when
    the game has none."""
    path = TESTS / game / "twin.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location(f"{game}_twin", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    if not callable(getattr(module, "twin", None)):
        raise TypeError(f"{path} must define twin(state, seat, rnd): the game's state with what seat may not know "
                        "changed")
    return module


def twin(definition: GameDefinition, state: Any, seat: int | None, rnd: random.Random) -> Any:
    """The game's own twin (``tests/<game>/twin.py``), else the generic one."""
    module = twin_module(definition.name)
    if module is None:
        return generic_twin(definition, state, seat, rnd)
    specific: Twin = module.twin
    return specific(state, seat, rnd)

