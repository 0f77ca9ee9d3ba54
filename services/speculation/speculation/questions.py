"""How many questions the tiers take: an exact dynamic programme over what a guesser knows.

Values are interchangeable, so a guesser's knowledge of the tier it attacks is summed up by how
many values are in each class (see :mod:`speculation.inference` for the posterior):

- ``fresh``: both copies possibly in the tier, none found here (weights 1, 2, 1 for 0, 1, 2 more);
- ``half``: one found here, the other possibly too (weights 2, 1), or
- ``single``: one copy left outside the cleared tiers, not found here (weights 1, 1),

each either *open* or *closed* (answered "no" here); values with no copy left do not matter.
When a tier is cleared, every value's copies left for the next tier follow from these counts.
:func:`expected_questions` gives the exact expected number of questions (yes and no) to clear
the jacks, queens and kings of one board under the ``greedy`` rule (most likely value: the
``expert`` bot's) or the ``optimal`` one (least expected questions), and shows they agree.
"""

from __future__ import annotations

from functools import cache

from speculation.board import TIER_SIZE, VALUES, Tier
from speculation.inference import poly_product

TIERS = (Tier.JACKS, Tier.QUEENS, Tier.KINGS)
FRESH, HALF, SINGLE = [1, 2, 1], [2, 1], [1, 1]

# state: (tier index, unfound u, fresh open, fresh closed, half open, half closed, single open, single closed)
Knowledge = tuple[int, int, int, int, int, int, int, int]


def _odds(fresh: int, half: int, single: int, u: int) -> dict[str, float]:
    """P("yes") for a value of each open class."""
    polys = [FRESH] * fresh + [HALF] * half + [SINGLE] * single
    total = poly_product(polys, u)[u]
    out = {}
    for name, poly, n in (("fresh", FRESH, fresh), ("half", HALF, half), ("single", SINGLE, single)):
        if n:
            rest = list(polys)
            rest.remove(poly)
            out[name] = 1.0 - poly[0] * poly_product(rest, u)[u] / total
    return out


@cache
def _expected(state: Knowledge, greedy: bool) -> float:
    tier, u, fo, fc, ho, hc, so, sc = state
    if u == 0:
        if tier + 1 == len(TIERS):
            return 0.0
        # Copies left for the next tier: fresh values keep 2; half and single values keep 1.
        return _expected((tier + 1, TIER_SIZE[TIERS[tier + 1]], fo + fc, 0, 0, 0, ho + hc + so + sc, 0), greedy)
    odds = _odds(fo, ho, so, u)
    moves = {
        "fresh": ((tier, u - 1, fo - 1, fc, ho + 1, hc, so, sc), (tier, u, fo - 1, fc + 1, ho, hc, so, sc)),
        "half": ((tier, u - 1, fo, fc, ho - 1, hc, so, sc), (tier, u, fo, fc, ho - 1, hc + 1, so, sc)),
        "single": ((tier, u - 1, fo, fc, ho, hc, so - 1, sc), (tier, u, fo, fc, ho, hc, so - 1, sc + 1)),
    }

    def cost(name: str) -> float:
        p = odds[name]
        yes, no = moves[name]
        return 1.0 + p * _expected(yes, greedy) + ((1.0 - p) * _expected(no, greedy) if p < 1.0 else 0.0)

    if greedy:
        return cost(max(odds, key=lambda name: odds[name]))
    return min(cost(name) for name in odds)


def expected_questions(greedy: bool = True) -> float:
    """Exact expected questions to clear one board's jacks, queens and kings."""
    return _expected((0, TIER_SIZE[Tier.JACKS], len(VALUES), 0, 0, 0, 0, 0), greedy)
