"""The Vexer's rule catalogue: playable rules from the hypothesis space, each with a *measured*
difficulty (read at run time from ``ludic/data/vexer_rules.json``, as rows of the space).

A rule's difficulty is how many actions (queries, plays and guesses) the expert Seeker needs to
find it in the drill (:mod:`ludic.drill`). Three distinct bands: easy, medium and hard, quantiles
of the measured difficulty of the space's atoms and a sample of its pairs, with gaps between them
(:mod:`ludic.catalogue_build`); each band holds about 1,900 rules, so that the secret rule cannot
be looked up in this file (issue 26). Rules are *playable* when between 1/8 and 7/8 of the 576 sets
obey them (the Vexer's interest is a rule "challenging, feasible, and satisfying to discover": a
rule almost nothing obeys is neither). ``python -m ludic.build catalogue`` measures it again (a few
minutes).
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
    """The catalogue: each band's rules, by their rows in the hypothesis space (its text and table
    are the space's; the file names the space it was measured on)."""
    from ludic.space import fingerprint, space  # the space imports nothing of this module

    data = json.loads(DATA.read_text(encoding="utf-8"))
    sp = space()
    if data["space"] != fingerprint(sp.atoms):
        raise RuntimeError(f"{DATA} was measured on another hypothesis space: python -m ludic.build catalogue")
    return tuple(VexerRule(sp.text(row), sp.mask(row), level, float(actions))
                 for level in DIFFICULTIES for row, actions in data["rows"][level])
