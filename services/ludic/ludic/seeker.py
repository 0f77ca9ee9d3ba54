"""The expert Seeker's reasoning: candidate elimination over the hypothesis space, from a view.

Evidence a Seeker has (all in its view): the initial sets, every set placed this round with its
column (the public log, even of sets now face down), the sets its hints showed, and the guesses
judged wrong. A hypothesis survives when it agrees with all of it; when none does (a human's rule
outside the space), the hypotheses with the fewest disagreements are kept, and the guess is the
best of them *patched* with the observed exceptions, so it is still consistent with everything
seen.

Decisions maximise the expected information of the next observation (the entropy of "does set s
obey" over the surviving hypotheses, weighted equally), with a guess whenever the evidence points
to one table (or the next query can tell little).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ludic import language as L
from ludic.language import RuleError
from ludic.library import Space
from ludic.tables import table_of
from ludic.universe import BREAK, COLUMNS, OBEY, CardType, set_of_codes, split_set

GUESS_AT = 4
"""Guess whenever at most this many tables survive."""
GUESS_STUDY = 256
"""Above this many surviving tables, a guess is worth about nothing."""
LOW_INFORMATION = 0.2
"""Below this many bits for the best query from the hand, a play that earns a guess is better."""


@dataclass(frozen=True)
class Evidence:
    labels: tuple[tuple[int, bool], ...]
    wrong: tuple[int, ...]


def evidence(view: dict[str, Any]) -> Evidence:
    """Every set whose column this seat knows, and the tables of the guesses judged wrong."""
    labels: dict[int, bool] = {}
    for column in COLUMNS:
        for placed in view["columns"][column]:
            if placed.get("face_up") and placed.get("top"):
                labels[set_of_codes(placed["top"], placed["bottom"])] = column == OBEY
    wrong: list[int] = []
    for entry in view.get("log", []):
        if entry.get("event") in ("query", "play"):
            labels[set_of_codes(entry["top"], entry["bottom"])] = entry["column"] == OBEY
        elif entry.get("event") == "guess" and not entry.get("correct"):
            try:
                wrong.append(table_of(entry["rule"]).obey)
            except RuleError:
                continue
    for hint in view.get("hints", []):
        labels[set_of_codes(hint["top"], hint["bottom"])] = bool(hint["obeys"])
    return Evidence(tuple(sorted(labels.items())), tuple(sorted(set(wrong))))


@dataclass(frozen=True)
class Belief:
    """The surviving hypotheses (row numbers of the space) and how many observations they miss."""

    rows: npt.NDArray[np.int64]
    misses: int
    labels: tuple[tuple[int, bool], ...]

    @property
    def size(self) -> int:
        return len(self.rows)


def believe(space: Space, ev: Evidence) -> Belief:
    """Candidate elimination: the hypotheses that disagree with the fewest observations."""
    misses = np.zeros(len(space), dtype=np.int32)
    if ev.labels:
        sets = np.array([s for s, _ in ev.labels], dtype=np.int64)
        want = np.array([obeys for _, obeys in ev.labels], dtype=np.uint8)
        bits = (space.packed[:, sets >> 3] >> (sets & 7).astype(np.uint8)) & 1
        misses = (bits != want).sum(axis=1, dtype=np.int32)
    for mask in ev.wrong:
        row = space.index_of(mask)
        if row is not None:
            misses[row] = np.iinfo(np.int32).max
    best = int(misses.min())
    return Belief(np.flatnonzero(misses == best).astype(np.int64), best, ev.labels)


def obey_fraction(space: Space, belief: Belief, sets: Sequence[int]) -> npt.NDArray[np.float64]:
    """For each set, the share of surviving hypotheses it obeys."""
    if not sets:
        return np.zeros(0)
    idx = np.array(sets, dtype=np.int64)
    bits = (space.packed[belief.rows][:, idx >> 3] >> (idx & 7).astype(np.uint8)) & 1
    return np.asarray(bits.mean(axis=0), dtype=np.float64)


def entropy(p: float) -> float:
    if p <= 0.0 or p >= 1.0:
        return 0.0
    return -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


def _set_literal(s: int) -> L.Rule:
    top, bottom = (CardType.from_index(t) for t in split_set(s))
    return L.And((L.CardIs(L.Card("top"), top.red, top.rank), L.CardIs(L.Card("bottom"), bottom.red, bottom.rank)))


def guess_text(space: Space, belief: Belief, row: int) -> str:
    """The guess for hypothesis ``row``, patched with the observed exceptions if it has any."""
    rule = space.rule(row)
    if belief.misses == 0:
        return L.render(rule)
    mask = space.mask(row)
    must_obey = [s for s, obeys in belief.labels if obeys and not mask >> s & 1]
    must_break = [s for s, obeys in belief.labels if not obeys and mask >> s & 1]
    if must_obey:
        rule = L.Or((rule, *(_set_literal(s) for s in must_obey)))
    if must_break:
        excluded = [_set_literal(s) for s in must_break]
        rule = L.And((rule, L.Not(excluded[0] if len(excluded) == 1 else L.Or(tuple(excluded)))))
    return L.render(rule)


def best_guess_row(belief: Belief) -> int:
    """The hypothesis to guess: the first (simplest) surviving one."""
    return int(belief.rows[0])


def guess_value(space: Space, belief: Belief) -> float:
    """Expected information (bits) of guessing the best hypothesis now: right with chance 1/K,
    else the guess is out and the hint (a random set where guess and rule differ) tells more."""
    k = belief.size
    if k <= 1:
        return math.inf
    if k > GUESS_STUDY:
        return math.log2(k) / k
    bits = np.unpackbits(space.packed[belief.rows], axis=1, bitorder="little").astype(bool)
    guess, others = bits[0], bits[1:]
    obeying = others.sum(axis=0)
    with np.errstate(divide="ignore"):
        remaining = np.where(others, np.log2(np.maximum(obeying, 1)), np.log2(np.maximum(k - 1 - obeying, 1)))
    differ = others != guess
    expected = (remaining * differ).sum(axis=1) / np.maximum(differ.sum(axis=1), 1)
    return float(math.log2(k) - expected.sum() / k)


@functools.lru_cache(maxsize=256)
def pair_set(top: str, bottom: str) -> int:
    return set_of_codes(top, bottom)


def column_name(obeys: bool) -> str:
    return OBEY if obeys else BREAK
