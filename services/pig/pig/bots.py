"""Pig's bots: pure functions of a seat's view (never the state) and its legal actions.

The contract (:data:`ludoteca.core.engine.Bot`): ``bot(view, legal, rnd) -> action``, where
``legal`` is what ``GET .../actions`` lists for the seat and ``rnd`` a generator the worker derives
from the game's secret seed. A bot returns one of ``legal``; it is asked only when its seat is to
act. Each level is a key of :data:`BOTS` (seats say ``bot:<level>``).

- ``random``: any legal action, uniformly.
- ``hold20``: rolls until its turn total reaches 20, or its score would reach the target, then
  holds (20 maximizes the expected points of a turn: RULES.md, section 6).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ludoteca.core.engine import JSON, Bot

from pig.engine import HOLD, ROLL

HOLD_AT = 20


def random_bot(view: JSON, legal: Sequence[JSON], rnd: random.Random) -> JSON:
    return dict(rnd.choice(list(legal)))


def hold20_bot(view: JSON, legal: Sequence[JSON], rnd: random.Random) -> JSON:
    turn_total = int(view["turn_total"])
    reaches_target = view["scores"][view["seat"]] + turn_total >= view["target"]
    if {"type": HOLD} in legal and (turn_total >= HOLD_AT or reaches_target):
        return {"type": HOLD}
    return {"type": ROLL}


BOTS: dict[str, Bot] = {"random": random_bot, "hold20": hold20_bot}
