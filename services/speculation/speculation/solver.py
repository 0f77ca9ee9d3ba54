"""The joker solver: which four values to guess, given the hands still possible.

The model is Knuth's Mastermind method: keep every joker hand still consistent with what is
known (each with its probability), and choose the guess by looking at how it splits them by
answer (0 to 4 right). On top of that ranking the solver searches:

1. **Worst case first.** It finds the fewest guesses ``d`` that surely find the hand (a depth-first
   search over guesses in order of expected information, pruned by a counting bound: with ``d``
   guesses left at most ``1 + 4 + ... + 4**(d-1)`` hands can be told apart, since the answer 4 is
   a win and the answers 0..3 split the rest).
2. **Then the average.** Among the first ``breadth`` guesses (best information first) that keep
   the worst case within ``d``, it takes the one whose whole subtree has the least expected number
   of guesses, planning every answer's subtree the same way.

Guesses equivalent under a symmetry of the problem (a swap of two values that maps the weighted
hands onto themselves and keeps the allowed guesses) are searched once. Plans are memoized per
process; :mod:`speculation.book` keeps the heavy one (the joker with nothing known) on disk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations

import numpy as np
import numpy.typing as npt

from speculation.board import VALUES
from speculation.joker import ALL_GUESSES, GUESS_INDEX, JOKER_SIZE, Hand, counts, score_table

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
ANSWERS = JOKER_SIZE + 1
MAX_DEPTH = 12


def capacity(d: int) -> int:
    """The most hands that ``d`` guesses can surely tell apart: 1 + 4 + ... + 4**(d-1)."""
    return sum(JOKER_SIZE ** i for i in range(d))


@cache
def _transpositions() -> dict[tuple[int, int], IntArray]:
    """For each pair of values, the permutation of guess indices that swaps them."""
    out: dict[tuple[int, int], IntArray] = {}
    for a, b in combinations(VALUES, 2):
        swap = {a: b, b: a}
        out[a, b] = np.array([GUESS_INDEX[tuple(sorted(swap.get(v, v) for v in g))] for g in ALL_GUESSES])
    return out


@dataclass(frozen=True)
class Plan:
    """The guess to make, the worst number of guesses from here and the expected number."""

    guess: int
    worst: int
    expected: float


class JokerSolver:
    """Chooses joker guesses among ``allowed`` (indices into :data:`ALL_GUESSES`)."""

    def __init__(self, allowed: Sequence[int] | None = None, breadth: int = 3) -> None:
        self.allowed: IntArray = np.arange(len(ALL_GUESSES)) if allowed is None else np.array(sorted(allowed))
        self.breadth = breadth
        self._table = score_table()
        self._counts = counts(ALL_GUESSES)
        self._feasible: dict[tuple[bytes, int], bool] = {}
        self._plans: dict[tuple[bytes, bytes, int], Plan | None] = {}

    # -- public -------------------------------------------------------------------------------
    def plan(self, hands: Sequence[Hand], weights: Sequence[float] | None = None) -> Plan:
        """The best plan for the hands still possible (``weights``: their probabilities, any scale)."""
        cands = np.array(sorted(GUESS_INDEX[h] for h in hands), dtype=np.int64)
        if weights is None:
            w = np.ones(len(cands))
        else:
            by_index = {GUESS_INDEX[h]: float(x) for h, x in zip(hands, weights, strict=True)}
            w = np.array([by_index[int(c)] for c in cands])
        if len(cands) == 0:
            raise ValueError("no hand is consistent with what is known")
        return self.plan_indices(cands, w / w.sum())

    def plan_indices(self, cands: IntArray, w: FloatArray) -> Plan:
        d = 1
        while not self.feasible(cands, d):
            d += 1
        plan = self.plan_within(cands, w, d)
        assert plan is not None  # d is feasible
        return plan

    def answers(self, guess: int, cands: IntArray) -> npt.NDArray[np.int8]:
        row: npt.NDArray[np.int8] = self._table[guess, cands]
        return row

    # -- search -------------------------------------------------------------------------------
    def _ranked(self, cands: IntArray, w: FloatArray) -> list[int]:
        """Allowed guesses that split ``cands`` (or may win), best expected information first,
        one per symmetry class."""
        sub = self._table[np.ix_(self.allowed, cands)]
        parts = np.stack([(sub == k) @ w for k in range(ANSWERS)], axis=1)
        nonempty = (sub[:, :, None] == np.arange(ANSWERS)).any(axis=1)
        is_cand = np.isin(self.allowed, cands)
        useful = (nonempty.sum(axis=1) >= 2) | is_cand
        with np.errstate(divide="ignore", invalid="ignore"):
            info = -np.nansum(np.where(parts > 0, parts * np.log(parts), 0.0), axis=1)
        # Ties: a guess that may win first, then the lowest index (deterministic).
        key = np.round(info, 9) + 1e-10 * is_cand
        order = np.lexsort((np.arange(len(self.allowed)), -key))
        orbit = self._orbits(cands, w)
        seen: set[tuple[tuple[int, int], ...]] = set()
        ranked = []
        for i in order:
            if not useful[i]:
                continue
            g = int(self.allowed[i])
            sig = tuple(sorted((orbit[v], int(self._counts[g, v])) for v in range(len(VALUES))
                               if self._counts[g, v]))
            if sig not in seen:
                seen.add(sig)
                ranked.append(g)
        return ranked

    def _orbits(self, cands: IntArray, w: FloatArray) -> list[int]:
        """Values that a symmetry swaps share an orbit (union of valid transpositions). The allowed
        guesses (all multisets, or all hands) are closed under swaps of values, so only the weighted
        hands need checking."""
        parent = list(range(len(VALUES)))

        def root(x: int) -> int:
            while parent[x] != x:
                x = parent[x]
            return x

        weight_of = dict(zip(cands.tolist(), np.round(w, 12).tolist(), strict=True))
        for (a, b), perm in _transpositions().items():
            ra, rb = root(a - 1), root(b - 1)
            if ra != rb and all(weight_of.get(int(perm[c])) == weight_of[c] for c in weight_of):
                parent[rb] = ra
        return [root(v) for v in range(len(VALUES))]

    def _parts(self, guess: int, cands: IntArray) -> list[tuple[int, IntArray]]:
        answers = self._table[guess, cands]
        return [(k, np.flatnonzero(answers == k)) for k in range(ANSWERS) if (answers == k).any()]

    def feasible(self, cands: IntArray, d: int) -> bool:
        """Whether ``d`` guesses surely find the hand among ``cands``."""
        n = len(cands)
        if n <= 1:
            return n <= d
        if d <= 1 or n > capacity(d):
            return False
        key = (cands.tobytes(), d)
        known = self._feasible.get(key)
        if known is not None:
            return known
        ok = any(self._within(g, cands, d) for g in self._ranked(cands, np.full(n, 1.0 / n)))
        self._feasible[key] = ok
        return ok

    def _within(self, guess: int, cands: IntArray, d: int) -> bool:
        parts = [(k, idx) for k, idx in self._parts(guess, cands) if k < JOKER_SIZE]
        if any(len(idx) > capacity(d - 1) for _, idx in parts):
            return False
        parts.sort(key=lambda p: -len(p[1]))
        return all(self.feasible(cands[idx], d - 1) for _, idx in parts)

    def plan_within(self, cands: IntArray, w: FloatArray, d: int) -> Plan | None:
        """The least expected number of guesses with at most ``d`` guesses (None: impossible)."""
        n = len(cands)
        if n == 1:
            return Plan(int(cands[0]), 1, 1.0)
        key = (cands.tobytes(), w.tobytes(), d)
        if key in self._plans:
            return self._plans[key]
        best: Plan | None = None
        tried = 0
        for g in self._ranked(cands, w):
            if tried >= self.breadth:
                break
            if not self._within(g, cands, d):
                continue
            tried += 1
            expected, worst = 1.0, 1
            for k, idx in self._parts(g, cands):
                if k == JOKER_SIZE:
                    continue
                pw = w[idx]
                sub = self.plan_within(cands[idx], pw / pw.sum(), d - 1)
                assert sub is not None
                expected += float(pw.sum()) * sub.expected
                worst = max(worst, 1 + sub.worst)
            if best is None or expected < best.expected - 1e-12:
                best = Plan(g, worst, expected)
        self._plans[key] = best
        return best
