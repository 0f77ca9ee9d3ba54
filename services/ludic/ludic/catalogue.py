"""The Vexer's rule catalogue: playable rules from the hypothesis space, each with a *measured*
difficulty (read at run time from ``ludic/data/vexer_rules.json``).

A rule's difficulty is how many actions (queries, plays and guesses) the expert Seeker needs to
find it in the drill (:mod:`ludic.drill`), averaged over several deals. Three distinct bands:
easy (the easiest atoms of the space), medium (pairs of atoms around the middle) and hard (the
hardest pairs), with gaps between them (:mod:`ludic.catalogue_build`). Rules are *playable* when
between 1/8 and 7/8 of the 576 sets obey them (the Vexer's interest is a rule "challenging,
feasible, and satisfying to discover": a rule almost nothing obeys is neither).
``python -m ludic.build catalogue`` measures it again (a few minutes).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from ludic.universe import SETS

DIFFICULTIES = ("easy", "medium", "hard")
DATA = Path(__file__).with_name("data") / "vexer_rules.json"
PLAYABLE = (SETS // 8, SETS - SETS // 8)


@dataclass(frozen=True)
class VexerRule:
    text: str
    obey: int
    difficulty: str
    actions: float


@functools.lru_cache(maxsize=1)
def vexer_rules() -> tuple[VexerRule, ...]:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    return tuple(VexerRule(r["rule"], int(r["obey"], 16), r["difficulty"], float(r["actions"]))
                 for r in data["rules"])
