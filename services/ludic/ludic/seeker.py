"""The expert Seeker's reasoning: candidate elimination over the hypothesis space, from a view.

Evidence a Seeker has (all in its view): the initial sets, every set placed this round with its
column (the public log, even of sets now face down), the sets its hints showed, and the guesses
judged wrong. A hypothesis survives when it agrees with all of it. When none does (a human's rule
outside the space), the Seeker tries a statement the space lacks (or an atom, or a single-card
literal), alone or joined to a rule of the space (``R and A``, ``R or A``), and two rules of the
space together (``R or S``, ``R and S``); failing that, it keeps the rules with the fewest
disagreements and guesses the best one *patched* with the observed exceptions, so that its guess
never contradicts what it saw.

Every option is scored in expected bits of information per action (see :func:`decide`).
"""

from __future__ import annotations

import functools
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ludic import language as L
from ludic.language import RuleError
from ludic.space import Space, wider_tables
from ludic.tables import table_of
from ludic.universe import BREAK, COLUMNS, OBEY, SETS, CardType, set_of_codes, split_set

EXTREME_PRIOR = 0.25
"""Prior weight of a rule obeyed by less than 1/8 or more than 7/8 of the sets (others: 1)."""
GUESS_SAMPLE = 192
"""How many survivors estimate what a guess is worth."""
GUESS_CANDIDATES = 8
"""How many of the likeliest survivors are considered for a guess."""
MAX_EXCEPTIONS = 1
"""A guess names at most this many sets as exceptions to a rule of the space (a set is two
statements: 'the top card is a red 7 and the bottom card is a black 4'): a guess stays a rule a
player would write, of at most a few statements. With more exceptions observed, the Seeker keeps
querying and playing instead of guessing (in the last phase, it guesses the rule unpatched)."""
LOW_INFORMATION = 0.2
"""Below this many bits for the best set of the hand, drawing new cards is better (if allowed)."""


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
    """The surviving hypotheses: their tables (``packed``: one row of 72 bytes each), prior weights,
    syntax trees (``rule(i)``), and how many observations they miss (0 while the rule is found)."""

    packed: npt.NDArray[np.uint8]
    weights: npt.NDArray[np.float64]
    misses: int
    labels: tuple[tuple[int, bool], ...]
    rule: Callable[[int], L.Rule]

    @property
    def size(self) -> int:
        return len(self.packed)

    def mask(self, i: int) -> int:
        return int.from_bytes(self.packed[i].tobytes(), "little")


POPCOUNT = np.array([bin(b).count("1") for b in range(256)], dtype=np.int32)


def prior_weights(packed: npt.NDArray[np.uint8]) -> npt.NDArray[np.float64]:
    """Prior weight of each table: 1 for playable rules (1/8 to 7/8 of the sets obey them),
    ``EXTREME_PRIOR`` for the others. A Vexer wants a rule "challenging, feasible, and satisfying
    to discover"; a rule that almost no set (or almost every set) obeys is rarely that."""
    counts = POPCOUNT[packed].sum(axis=1)
    playable = (counts >= SETS // 8) & (counts <= SETS - SETS // 8)
    return np.where(playable, 1.0, EXTREME_PRIOR)


@functools.lru_cache(maxsize=2)
def prior(space: Space) -> npt.NDArray[np.float64]:
    return prior_weights(space.packed)


def _label_arrays(labels: tuple[tuple[int, bool], ...]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8]]:
    sets = np.array([s for s, _ in labels], dtype=np.int64)
    want = np.array([obeys for _, obeys in labels], dtype=np.uint8)
    return sets, want


def _bits_at(packed: npt.NDArray[np.uint8], sets: npt.NDArray[np.int64]) -> npt.NDArray[np.uint8]:
    return np.asarray((packed[:, sets >> 3] >> (sets & 7).astype(np.uint8)) & 1, dtype=np.uint8)


_RECENT: OrderedDict[tuple[int, Evidence], npt.NDArray[np.int64]] = OrderedDict()
"""The last few sets of surviving rows of the space, to narrow down instead of starting over
(only a speed-up: the result is exactly the full computation's)."""
RECENT = 16
_RECENT_LOCK = threading.Lock()


def _narrowed(space: Space, ev: Evidence) -> npt.NDArray[np.int64] | None:
    labels, wrong = dict(ev.labels), set(ev.wrong)
    with _RECENT_LOCK:
        recent = list(_RECENT.items())
    for (owner, old), rows in reversed(recent):
        if owner != id(space) or not set(old.wrong) <= wrong or any(labels.get(s) != o for s, o in old.labels):
            continue
        new = tuple((s, o) for s, o in ev.labels if s not in dict(old.labels))
        keep = np.ones(len(rows), dtype=bool)
        if new:
            sets, want = _label_arrays(new)
            keep &= (_bits_at(space.packed[rows], sets) == want).all(axis=1)
        for mask in wrong - set(old.wrong):
            row = space.index_of(mask)
            if row is not None:
                keep &= rows != row
        return rows[keep] if keep.any() else None
    return None


def _remember(space: Space, ev: Evidence, rows: npt.NDArray[np.int64]) -> None:
    with _RECENT_LOCK:
        _RECENT[(id(space), ev)] = rows
        while len(_RECENT) > RECENT:
            _RECENT.popitem(last=False)


_MISSES: OrderedDict[tuple[int, tuple[tuple[int, bool], ...]], npt.NDArray[np.int32]] = OrderedDict()


def _misses(space: Space, labels: tuple[tuple[int, bool], ...]) -> npt.NDArray[np.int32]:
    """How many of the labelled sets each rule of the space gets wrong; from the count of a
    recent subset of the labels when there is one (only a speed-up)."""
    given = dict(labels)
    with _RECENT_LOCK:
        recent = list(_MISSES.items())
    misses = np.zeros(len(space), dtype=np.int32)
    new = labels
    for (owner, old), counted in reversed(recent):
        if owner == id(space) and all(given.get(s) == o for s, o in old):
            misses, new = counted, tuple((s, o) for s, o in labels if s not in dict(old))
            break
    if new:
        sets, want = _label_arrays(new)
        misses = misses + (_bits_at(space.packed, sets) != want).sum(axis=1, dtype=np.int32)
    with _RECENT_LOCK:
        _MISSES[(id(space), labels)] = misses
        while len(_MISSES) > RECENT:
            _MISSES.popitem(last=False)
    return misses


def believe(space: Space, ev: Evidence) -> Belief:
    """Candidate elimination: the rules of the space that fit every observation; else the joins
    beyond the space that fit (:func:`_extend_atoms`, :func:`_extend_pairs`); else the nearest
    rules (to be patched)."""
    rows = _narrowed(space, ev)
    best = 0
    if rows is None:
        misses = _misses(space, ev.labels).copy()
        for mask in ev.wrong:
            row = space.index_of(mask)
            if row is not None:
                misses[row] = np.iinfo(np.int32).max
        best = int(misses.min())
        rows = np.flatnonzero(misses == best).astype(np.int64)
        if best > 0:
            extended = _merge([_extend_atoms(space, ev), _extend_pairs(space, ev)], ev)
            if extended is not None:
                return extended
    if best == 0:
        _remember(space, ev, rows)
    found = rows
    return Belief(space.packed[found], prior(space)[found], best, ev.labels, lambda i: space.rule(int(found[i])))


PAIR_BASE = 32
"""How many first halves (the space's rules covering most of what they must) are tried for
``R or S`` / ``R and S`` of two rules of the space."""
PAIR_LIMIT = 3000
"""At most this many such pairs are kept."""


_PAIR_RECENT: OrderedDict[tuple[int, tuple[tuple[int, bool], ...]], tuple[npt.NDArray[np.int64], ...]] = OrderedDict()
"""The last few candidate rows for either side of a pair (only a speed-up: rows that fit some
evidence are the only ones that can fit more of it)."""


def _pair_sides(space: Space, ev: Evidence) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The rows that may be one side of ``R or S`` (they break wherever the rule was seen to break)
    and of ``R and S`` (they obey wherever it was seen to obey)."""
    labels = dict(ev.labels)
    with _RECENT_LOCK:
        recent = list(_PAIR_RECENT.items())
    base: tuple[npt.NDArray[np.int64], ...] = (np.arange(len(space)), np.arange(len(space)))
    new = ev.labels
    for (owner, old), rows in reversed(recent):
        if owner == id(space) and all(labels.get(s) == o for s, o in old):
            base, new = rows, tuple((s, o) for s, o in ev.labels if s not in dict(old))
            break
    sides = []
    for side, obeys in zip(base, (False, True), strict=True):
        chosen = [s for s, o in new if o == obeys]
        if chosen:
            bits = _bits_at(space.packed[side], np.array(chosen, dtype=np.int64))
            side = side[(bits == obeys).all(axis=1)]
        sides.append(side)
    result = (sides[0], sides[1])
    with _RECENT_LOCK:
        _PAIR_RECENT[(id(space), ev.labels)] = result
        while len(_PAIR_RECENT) > RECENT:
            _PAIR_RECENT.popitem(last=False)
    return result


def _extend_pairs(space: Space, ev: Evidence) -> Belief | None:
    """``R or S`` and ``R and S`` for two rules R, S of the space that fit every observation
    together: an either-or of two facts ("the top card is red and the bottom card is odd, or the
    top card is black and the bottom card is even"), three and four clauses. For ``or``, both
    must break on every set seen breaking and together obey every set seen obeying (``and``: the
    same, negated); the first halves are the rules that cover most of what they must."""
    if not ev.labels:
        return None
    sets, want = _label_arrays(ev.labels)
    needed_sets = {1: sets[want == 1], 0: sets[want == 0]}
    parts = []
    for op, rows in zip((1, 0), _pair_sides(space, ev), strict=True):
        needed = needed_sets[op]
        if not len(rows) or not len(needed):
            continue
        bits = _bits_at(space.packed[rows], needed).astype(bool)
        cover = bits if op == 1 else ~bits
        words, missing = _words64(cover), _words64(~cover)
        order = np.argsort(-cover.sum(axis=1), kind="stable")[:PAIR_BASE]
        lefts, rights = [], []
        for i in order:
            partners = np.flatnonzero(~(missing[i][None, :] & ~words).any(axis=1))
            partners = partners[partners > i] if missing[i].any() else partners[partners != i]
            lefts.append(np.full(len(partners), rows[i]))
            rights.append(rows[partners])
        left, right = np.concatenate(lefts)[:PAIR_LIMIT], np.concatenate(rights)[:PAIR_LIMIT]
        if not len(left):
            continue
        combine = np.bitwise_or if op == 1 else np.bitwise_and
        parts.append((op, left, right, combine(space.packed[left], space.packed[right])))
    if not parts:
        return None
    ops = np.concatenate([np.full(len(p[1]), p[0]) for p in parts])
    lefts_all = np.concatenate([p[1] for p in parts])
    rights_all = np.concatenate([p[2] for p in parts])
    packed = np.concatenate([p[3] for p in parts])

    def rule(i: int) -> L.Rule:
        pair = (space.rule(int(lefts_all[i])), space.rule(int(rights_all[i])))
        return L.Or(pair) if ops[i] == 1 else L.And(pair)

    return Belief(packed, prior_weights(packed), 0, ev.labels, rule)


WIDER_LIMIT = 4000
"""At most this many ``R or A`` (and as many ``R and A``) from :func:`_extend_atoms`."""


def _extend_atoms(space: Space, ev: Evidence) -> Belief | None:
    """A statement the space lacks (:func:`ludic.space.wider_tables`: "the product is at least 68",
    "there is a black card higher than 9", "the top card is even and red", ...; or an atom of the
    space, or a single-card literal: "the top card is a red 7") alone, or joined
    with ``or`` / ``and`` to any rule R of the space or to another such statement, when that fits
    every observation. Used only once no rule of the space fits, so rules of the space are found
    exactly as before. For ``R or A``: A breaks on every set seen breaking, R too (the candidate
    sides of :func:`_pair_sides`), and together they obey every set seen obeying (``and``: the
    same, negated); every partner of each A is found at once, by the sets A leaves uncovered."""
    if not ev.labels:
        return None
    rules, pool = wider_tables(space)
    sets, want = _label_arrays(ev.labels)
    pool_bits = _bits_at(pool, sets).astype(bool)
    singles: list[npt.NDArray[np.int64]] = []
    pairs: list[tuple[int, npt.NDArray[np.int64], npt.NDArray[np.int64]]] = []
    for op, side in zip((1, 0), _pair_sides(space, ev), strict=True):
        target = want.astype(bool) if op == 1 else ~want.astype(bool)
        bits = pool_bits if op == 1 else ~pool_bits
        ok = np.flatnonzero(~bits[:, ~target].any(axis=1))
        if not len(ok) or not target.any():
            continue
        cover = bits[ok][:, target]
        whole = cover.all(axis=1)
        singles.append(ok[whole])
        side_cover = _bits_at(space.packed[side], sets[target]).astype(bool)
        if op == 0:
            side_cover = ~side_cover
        side_words, ok_words, missing = _words64(side_cover), _words64(cover), _words64(~cover)
        patterns, which = np.unique(missing, axis=0, return_inverse=True)
        which = which.ravel()
        lefts, rights = [], []
        count = 0
        for p, pattern in enumerate(patterns):
            if not pattern.any():
                continue
            in_space = side[~(pattern[None, :] & ~side_words).any(axis=1)]
            in_pool = np.flatnonzero(~(pattern[None, :] & ~ok_words).any(axis=1))
            for i in np.flatnonzero(which == p):
                others = ok[in_pool[in_pool > i]]
                lefts += [np.full(len(in_space), ok[i]), np.full(len(others), ok[i])]
                rights += [in_space, -1 - others]
                count += len(in_space) + len(others)
            if count >= WIDER_LIMIT:
                break
        if lefts:
            pairs.append((op, np.concatenate(lefts)[:WIDER_LIMIT], np.concatenate(rights)[:WIDER_LIMIT]))
    alone = np.unique(np.concatenate(singles)) if singles else np.zeros(0, dtype=np.int64)
    if not len(alone) and not pairs:
        return None
    ops = np.concatenate([np.full(len(alone), -1)] + [np.full(len(p[1]), p[0]) for p in pairs])
    atom_of = np.concatenate([alone] + [p[1] for p in pairs])
    other = np.concatenate([np.full(len(alone), -1)] + [p[2] for p in pairs])
    # The simplest first (a guess is one of the first few likeliest): one statement alone, then
    # joined to an atom, then to a pair of atoms.
    joins = np.where(ops < 0, 0, np.where(other < 0, 1, 1 + (space.recipes[np.maximum(other, 0), 0] != 0)))
    order = np.argsort(joins, kind="stable")
    ops, atom_of, other = ops[order], atom_of[order], other[order]
    right_tables = np.where((other >= 0)[:, None], space.packed[np.maximum(other, 0)], pool[np.maximum(-1 - other, 0)])
    packed = np.where((ops == 1)[:, None], pool[atom_of] | right_tables,
                      np.where((ops == 0)[:, None], pool[atom_of] & right_tables, pool[atom_of]))
    keep = _distinct_rows(packed, ev.wrong)
    if not len(keep):
        return None

    def rule(i: int) -> L.Rule:
        j = int(keep[i])
        atom = rules[int(atom_of[j])]
        if ops[j] < 0:
            return atom
        partner = space.rule(int(other[j])) if other[j] >= 0 else rules[int(-1 - other[j])]
        return L.Or((partner, atom)) if ops[j] == 1 else L.And((partner, atom))

    return Belief(packed[keep], prior_weights(packed[keep]), 0, ev.labels, rule)


def _distinct_rows(packed: npt.NDArray[np.uint8], wrong: tuple[int, ...]) -> npt.NDArray[np.int64]:
    """The first row of each distinct table, in order, leaving out the tables judged wrong."""
    rows = np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first = np.unique(rows, return_index=True)
    first.sort()
    if wrong:
        judged = {m.to_bytes(packed.shape[1], "little") for m in wrong}
        first = np.array([i for i in first if packed[i].tobytes() not in judged], dtype=np.int64)
    return first.astype(np.int64)


def _words64(flags: npt.NDArray[np.bool_]) -> npt.NDArray[np.uint64]:
    """Rows of booleans packed into 64-bit words (zero-padded)."""
    packed = np.packbits(flags, axis=1, bitorder="little")
    pad = (-packed.shape[1]) % 8
    if pad:
        packed = np.concatenate([packed, np.zeros((len(packed), pad), dtype=np.uint8)], axis=1)
    return np.ascontiguousarray(packed).view(np.uint64)


def _merge(beliefs: list[Belief | None], ev: Evidence) -> Belief | None:
    """The hypotheses of several beliefs, one per distinct table, none judged wrong already."""
    found = [b for b in beliefs if b is not None and b.size]
    if not found:
        return None
    packed = np.concatenate([b.packed for b in found])
    owners = np.concatenate([np.full(b.size, k) for k, b in enumerate(found)])
    index = np.concatenate([np.arange(b.size) for b in found])
    keep = _distinct_rows(packed, ev.wrong)
    if not len(keep):
        return None

    def rule(i: int) -> L.Rule:
        j = int(keep[i])
        return found[int(owners[j])].rule(int(index[j]))

    return Belief(packed[keep], prior_weights(packed[keep]), 0, ev.labels, rule)


# Small products without BLAS: a multi-threaded BLAS on a busy machine spends more time spinning
# than computing these (measured: 20 ms instead of 1 ms per decision).
def _dot(vector: npt.NDArray[np.float64], matrix: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
    """``vector @ matrix``."""
    return np.asarray(np.einsum("i,ij->j", vector, matrix), dtype=np.float64)


def _rows(matrix: npt.NDArray[np.float64], others: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """``matrix @ others.T``."""
    return np.asarray(np.einsum("ij,kj->ik", matrix, others), dtype=np.float64)


def obey_fraction(belief: Belief, sets: Sequence[int]) -> npt.NDArray[np.float64]:
    """For each set, the posterior probability that it obeys the rule."""
    if not sets:
        return np.zeros(0)
    bits = _bits_at(belief.packed, np.array(sets, dtype=np.int64))
    return np.asarray(_dot(belief.weights, bits) / belief.weights.sum(), dtype=np.float64)


def entropy(p: float) -> float:
    if p <= 0.0 or p >= 1.0:
        return 0.0
    return -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


def _set_literal(s: int) -> L.Rule:
    top, bottom = (CardType.from_index(t) for t in split_set(s))
    return L.And((L.CardIs(L.Card("top"), top.red, top.rank), L.CardIs(L.Card("bottom"), bottom.red, bottom.rank)))


def guess_text(belief: Belief, i: int) -> str:
    """The guess for hypothesis ``i``, patched with the observed exceptions if it has any."""
    rule = belief.rule(i)
    if belief.misses == 0:
        return L.render(rule)
    mask = belief.mask(i)
    must_obey = [s for s, obeys in belief.labels if obeys and not mask >> s & 1]
    must_break = [s for s, obeys in belief.labels if not obeys and mask >> s & 1]
    if len(must_obey) + len(must_break) > MAX_EXCEPTIONS:
        return L.render(rule)
    if must_obey:
        rule = L.Or((rule, *(_set_literal(s) for s in must_obey)))
    if must_break:
        excluded = [_set_literal(s) for s in must_break]
        rule = L.And((rule, L.Not(excluded[0] if len(excluded) == 1 else L.Or(tuple(excluded)))))
    return L.render(rule)


@dataclass(frozen=True)
class GuessPlan:
    index: int
    value: float
    """Expected information (bits) of guessing hypothesis ``index`` now; infinite when it is certain."""


def _likeliest_then_random(weights: npt.NDArray[np.float64], rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """The ``GUESS_CANDIDATES`` likeliest hypotheses (the simplest first among equals), then a
    random sample of the others, ``GUESS_SAMPLE`` in all (everyone when there are fewer)."""
    k = len(weights)
    top = np.flatnonzero(weights == weights.max())[:GUESS_CANDIDATES]
    if len(top) < min(GUESS_CANDIDATES, k):
        top = np.argsort(-weights, kind="stable")[:GUESS_CANDIDATES]
    if k <= GUESS_SAMPLE:
        rest = np.setdiff1d(np.arange(k), top, assume_unique=True)
    else:
        drawn = rng.choice(k, min(k, GUESS_SAMPLE + len(top)), replace=False)
        rest = drawn[~np.isin(drawn, top)][: GUESS_SAMPLE - len(top)]
    return np.concatenate([top, rest]).astype(np.int64)


def plan_guess(belief: Belief, rng: np.random.Generator) -> GuessPlan:
    """The hypothesis worth guessing most, and what the guess is worth in bits.

    Right with its posterior probability (then the search is over: worth all the remaining
    uncertainty); else that hypothesis is out and the hint, a set where guess and rule differ
    (random, as the server picks), rules out every hypothesis that disagrees with the rule there.
    Estimated on a sample of the survivors; the candidates are the likeliest few."""
    k = belief.size
    if k == 1:
        return GuessPlan(0, math.inf)
    weights = belief.weights
    sample = _likeliest_then_random(weights, rng)
    bits = np.unpackbits(belief.packed[sample], axis=1, bitorder="little").astype(np.float64)
    w = weights[sample] / weights[sample].sum()
    total = float(np.log2(weights.sum() / weights.max()))
    g = min(GUESS_CANDIDATES, len(sample))
    guesses, wg = bits[:g], w[:g]
    rest = (1.0 - wg)[:, None]
    obeying = _dot(w, bits)[None, :] - wg[:, None] * guesses  # weight of the others obeying each set
    gain_if_obeys = -np.log2(np.clip(obeying / rest, 1e-12, 1.0))
    gain_if_breaks = -np.log2(np.clip((rest - obeying) / rest, 1e-12, 1.0))
    # For a true rule r and each guess: the mean gain over the sets where they differ.
    gained = _rows(bits, (1.0 - guesses) * gain_if_obeys - guesses * gain_if_breaks) + (guesses * gain_if_breaks).sum(1)
    differ = _rows(bits, 1.0 - 2.0 * guesses) + guesses.sum(1)
    per_rule = gained / np.maximum(differ, 1.0)
    values = wg * max(total, 1.0) + _dot(w, per_rule) - wg * np.diagonal(per_rule)
    best = int(np.argmax(values))
    return GuessPlan(int(sample[best]), float(values[best]))


def decide(space: Space, view: dict[str, Any], legal: Sequence[dict[str, Any]],
           rng: np.random.Generator) -> dict[str, Any]:
    """The expert Seeker's action. Every option is scored in expected bits per action: a query is
    worth the entropy of its answer; a play the same, and when it is right it also earns a guess
    (one more action) worth :func:`plan_guess`'s value; a guess is taken when it is worth at least
    the best query the hand offers."""
    plain = [dict(a) for a in legal if "<rule>" not in a.values()]
    belief = believe(space, evidence(view))
    hand = view.get("hand") or []
    pairs = [(a, b) for a in hand for b in hand if a != b]
    shares = [float(p) for p in obey_fraction(belief, [pair_set(t, b) for t, b in pairs])]
    infos = [entropy(p) for p in shares]
    best_info = max(infos, default=0.0)
    plan = plan_guess(belief, rng)
    if any(a["type"] == "guess" for a in legal):
        if view.get("phase") == "final" or (plan.value >= max(best_info, LOW_INFORMATION)
                                            and belief.misses <= MAX_EXCEPTIONS):
            return {"type": "guess", "rule": guess_text(belief, plan.index)}
        return {"type": "pass"}
    kinds = {a["type"] for a in plain}
    if not pairs or not kinds & {"query", "play"}:
        return plain[0]
    scored: list[tuple[float, float, int, dict[str, Any]]] = []
    for i, ((top, bottom), p, info) in enumerate(zip(pairs, shares, infos, strict=True)):
        sure = max(p, 1.0 - p)
        if "query" in kinds:
            scored.append((info, 0.0, -i, {"type": "query", "top": top, "bottom": bottom}))
        if plan.value == math.inf:
            score = math.inf
        elif plan.value >= best_info:
            score = (info + sure * plan.value) / (1.0 + sure)
        else:
            score = info - 1e-6  # as informative as a query, but a wrong play costs the cards
        scored.append((score, sure, -i, {"type": "play", "top": top, "bottom": bottom,
                                         "column": column_name(p >= 0.5)}))
    score, _, _, action = max(scored, key=lambda x: x[:3])
    if "draw" in kinds and score < LOW_INFORMATION:
        return {"type": "draw"}
    return action


@functools.lru_cache(maxsize=256)
def pair_set(top: str, bottom: str) -> int:
    return set_of_codes(top, bottom)


def column_name(obeys: bool) -> str:
    return OBEY if obeys else BREAK
