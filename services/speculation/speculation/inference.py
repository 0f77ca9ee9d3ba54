"""What a player knows about the opponent's board, and the exact odds that follow.

Everything here is a function of one seat's view: the opponent's found cards, and the history of
this seat's own guesses and answers. The opponent's 16 board cards and 4 set-aside cards are a
uniformly shuffled deal of the opponent's 20 black value cards (two of each value).

**A tier.** Let ``a[v]`` be the copies of ``v`` not in the tiers already cleared (2 minus those
found there), ``F`` the values already found in the current tier, ``X`` the values answered "no"
in it (so the tier holds no more of them than found), and ``u`` its unfound slots. The tier's
cards are a uniform draw from the cards outside the cleared tiers, and every answer is 0 or 1 in
likelihood, so the unfound rest ``R`` of the tier has the posterior::

    P(R) ∝ prod_v C(a[v], F[v] + R[v])     over |R| = u, R[v] = 0 for v in X.

(The deal is over distinct cards: a tier holding both 5s was one of C(2, 2) ways to hold them,
one 5 one of C(2, 1) ways. So after one 5 is found, the second is half as likely as a naive count
of the cards left would say.) The odds of a "yes" for ``v`` are ``1 - P(R[v] = 0)``; both come
from one product of small polynomials.

**The joker.** Once the kings are down, 12 cards are known; the joker holds 4 of the other 8. A
hand ``H`` has prior weight ``prod_v C(a[v], H[v])`` (``a`` now: copies not found anywhere) and
survives if it gives every earlier joker guess the answer it got.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from math import comb
from typing import Any

import numpy as np

from speculation.board import COPIES, TIER_SIZE, VALUES, Tier
from speculation.joker import HANDS, Hand, score


@dataclass(frozen=True)
class Knowledge:
    """One seat's knowledge of the board it attacks."""

    target: Tier
    found: Mapping[Tier, tuple[int, ...]]
    excluded: Mapping[Tier, frozenset[int]]
    joker_answers: tuple[tuple[Hand, int], ...] = field(default=())

    @classmethod
    def from_view(cls, view: Mapping[str, Any]) -> Knowledge:
        seat = int(view["seat"])
        board = view["boards"][1 - seat]
        found: dict[Tier, list[int]] = {t: [] for t in Tier}
        for face in board["faces"]:
            tier = Tier(face["tier"])
            found[tier].extend(int(c["value"]) for c in face["cards"] if c["found"])
        excluded: dict[Tier, set[int]] = {t: set() for t in Tier}
        answers: list[tuple[Hand, int]] = []
        for g in view["history"]:
            if g["seat"] != seat:
                continue
            tier = Tier(g["tier"])
            if tier is Tier.JOKER:
                answers.append((tuple(sorted(g["values"])), int(g["right"])))
            elif g["answer"] == "no":
                excluded[tier].add(int(g["values"][0]))
        return cls(Tier(board["target"]), {t: tuple(sorted(v)) for t, v in found.items()},
                   {t: frozenset(v) for t, v in excluded.items()}, tuple(answers))

    def copies_outside(self, tiers: set[Tier]) -> dict[int, int]:
        """For each value, the copies not found in ``tiers``."""
        seen = Counter(v for t in tiers for v in self.found[t])
        return {v: COPIES - seen[v] for v in VALUES}

    def is_possible(self, value: int) -> bool:
        """Whether a tier guess of ``value`` could be right (the rule of the ``basic`` bot): not
        answered "no" in this tier, and a copy not found yet."""
        left = self.copies_outside(set(Tier))
        return value not in self.excluded[self.target] and left[value] > 0


def _poly(a: int, f: int, open_: bool) -> list[int]:
    """Weights of R[v] = 0, 1, ...: C(a, f + k) (only k = 0 when ``v`` is closed)."""
    top = a - f if open_ else 0
    return [comb(a, f + k) for k in range(top + 1)]


def poly_product(polys: list[list[int]], degree: int) -> list[int]:
    """The coefficients up to ``degree`` of the product of integer polynomials (lowest first)."""
    out = [1] + [0] * degree
    for p in polys:
        nxt = [0] * (degree + 1)
        for i, x in enumerate(out):
            if x:
                for k, y in enumerate(p[: degree + 1 - i]):
                    nxt[i + k] += x * y
        out = nxt
    return out


def tier_odds(k: Knowledge) -> dict[int, float]:
    """For each value, the exact probability that a guess of it is answered "yes" now."""
    tier = k.target
    if tier is Tier.JOKER:
        raise ValueError("the joker is guessed four values at a time")
    cleared = {t for t in Tier if list(Tier).index(t) < list(Tier).index(tier)}
    a = k.copies_outside(cleared)
    here = Counter(k.found[tier])
    u = TIER_SIZE[tier] - len(k.found[tier])
    polys = {v: _poly(a[v], here[v], v not in k.excluded[tier]) for v in VALUES}
    total = poly_product(list(polys.values()), u)[u]
    odds = {}
    for v in VALUES:
        others = poly_product([p for w, p in polys.items() if w != v], u)[u]
        odds[v] = 1.0 - polys[v][0] * others / total if total else 0.0
    return odds


def joker_hands(k: Knowledge) -> tuple[list[Hand], list[float]]:
    """The joker hands still possible and their probabilities (summing to 1)."""
    left = k.copies_outside(set(Tier))
    hands, weights = [], []
    for h in HANDS:
        c = Counter(h)
        w = float(np.prod([comb(left[v], n) for v, n in c.items()]))
        if w and all(score(g, h) == right for g, right in k.joker_answers):
            hands.append(h)
            weights.append(w)
    total = sum(weights)
    return hands, [w / total for w in weights]
