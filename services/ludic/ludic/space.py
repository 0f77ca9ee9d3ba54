"""The bots' hypothesis space: rules generated from the grammar, one per distinct truth table.

*Atoms* are statements of the language built from its productions with parameters over every
sensible range (a card's color, parity, primality, face/pip, comparisons of a card, the sum, the
difference or the product with constants, relations between the two cards, quantified statements,
guarded high/low statements). *Rules* are atoms, and ``A and B`` / ``A or B`` for every pair of
atoms. Every rule is kept as a recipe over the atoms (so it can be written as text in the
language) with its truth table; the space keeps one rule per distinct table (the simplest: atoms
first), and drops tables that no legal deal can have (nobody or everybody obeys).

This module is what a process uses: the atoms, :class:`Space` and :func:`space`, which reads the
space from the disk cache (directory ``LUDOTECA_CACHE``, default ``~/.cache/ludoteca``, file
``ludic-space-<fingerprint>.npz``) once per process. When the file is missing the tables are
built (:mod:`ludic.space_build`, about a second) and saved there. ``python -m ludic.build space``
builds it ahead of time.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ludic import language as L
from ludic.space_build import BYTES, distinct_tables
from ludic.tables import compile_rule

VERSION = 1

CARDS = (L.Card("top"), L.Card("bottom"))
ADJECTIVES = ("red", "black", "even", "odd", "prime", "face", "pip", "square")
SUM, DIFFERENCE, PRODUCT = L.Aggregate("sum"), L.Aggregate("difference"), L.Aggregate("product")
DIFFERENT_RANKS = L.SetLike("value", same=False)


def _threshold_atoms(subject: L.Term, low: int, high: int) -> Iterator[L.Rule]:
    """``subject is k``, ``is not k``, ``is at least k``, ``is at most k`` for k in [low, high]."""
    for k in range(low, high + 1):
        yield L.Compare(subject, "eq", L.Const(k))
        yield L.Compare(subject, "eq", L.Const(k), negated=True)
        if k > low:
            yield L.Compare(subject, "ge", L.Const(k))
        if k < high:
            yield L.Compare(subject, "le", L.Const(k))


def _number_atoms(subject: L.Term, moduli: tuple[int, ...]) -> Iterator[L.Rule]:
    for adjective in ("even", "odd", "prime", "square"):
        yield L.Property(subject, (adjective,))
    yield L.Property(subject, ("prime",), negated=True)
    for m in moduli:
        yield L.Compare(subject, "multiple", L.Const(m))
        yield L.Compare(subject, "multiple", L.Const(m), negated=True)


def atoms() -> list[L.Rule]:
    """Every atom, in a fixed order (simplest first)."""
    out: list[L.Rule] = []
    for card in CARDS:
        out += [L.Property(card, (a,)) for a in ADJECTIVES]
        out.append(L.Property(card, ("prime",), negated=True))
    out += [L.SetLike(a, same) for a in ("color", "value", "parity") for same in (True, False)]
    top, bottom = CARDS
    out += [L.Compare(top, op, bottom) for op in ("gt", "lt", "ge", "le")]
    out += [L.Compare(top, "divides", bottom), L.Compare(bottom, "divides", top),
            L.Compare(top, "divides", bottom, negated=True), L.Compare(bottom, "divides", top, negated=True)]
    red, black = L.Quantified("some", ("red",), "a"), L.Quantified("some", ("black",), "a")
    out += [L.Compare(red, "gt", black), L.Compare(black, "gt", red),
            L.Compare(L.Quantified("no", ("red",), "no"), "gt", black),
            L.Compare(L.Quantified("no", ("black",), "no"), "gt", red)]
    for adjective in ("even", "prime", "face"):
        out.append(L.Property(L.Quantified("exactly_one", (), "exactly one"), (adjective,)))
    for kind in ("some", "every", "no"):
        quantified = L.Quantified(kind, (), kind)
        out += [L.Property(quantified, (a,)) for a in ADJECTIVES]
        for k in range(3, 14):
            out.append(L.Compare(quantified, "ge", L.Const(k)))
        for k in range(2, 13):
            out.append(L.Compare(quantified, "le", L.Const(k)))
    for guarded in ("high", "low"):
        for adjective in ("red", "black", "even", "odd"):
            out.append(L.And((DIFFERENT_RANKS, L.Property(L.Card(guarded), (adjective,)))))
    for card in CARDS:
        out += _threshold_atoms(card, 2, 13)
    out += _threshold_atoms(SUM, 4, 26)
    out += _number_atoms(SUM, (3, 4, 5, 6))
    out += _threshold_atoms(DIFFERENCE, 0, 11)
    out += _number_atoms(DIFFERENCE, (3, 4))
    out += [L.Compare(PRODUCT, "ge", L.Const(k)) for k in (12, 20, 30, 40, 50, 60, 80, 100, 120)]
    out += _number_atoms(PRODUCT, (3, 4, 5, 6))
    out += [L.Compare(L.Arith("mod", top, bottom), "eq", L.Const(r)) for r in (0, 1, 2)]
    return out


@dataclass(frozen=True, eq=False)
class Space:
    """Distinct truth tables and how to write each: ``recipes[i] = (op, a, b)`` with op 0 = atom
    ``a``, 1 = atom ``a`` and atom ``b``, 2 = atom ``a`` or atom ``b``."""

    packed: npt.NDArray[np.uint8]
    recipes: npt.NDArray[np.int32]
    atoms: tuple[L.Rule, ...]

    def __len__(self) -> int:
        return len(self.recipes)

    def rule(self, i: int) -> L.Rule:
        op, a, b = (int(x) for x in self.recipes[i])
        if op == 0:
            return self.atoms[a]
        if op == 1:
            return L.And((self.atoms[a], self.atoms[b]))
        return L.Or((self.atoms[a], self.atoms[b]))

    def text(self, i: int) -> str:
        return L.render(self.rule(i))

    def mask(self, i: int) -> int:
        return int.from_bytes(self.packed[i].tobytes(), "little")

    def column(self, s: int, rows: npt.NDArray[np.int64] | None = None) -> npt.NDArray[np.bool_]:
        """Whether each rule (or each of ``rows``) is obeyed by set ``s``."""
        block = self.packed[:, s >> 3] if rows is None else self.packed[rows, s >> 3]
        return ((block >> (s & 7)) & 1).astype(bool)

    def index_of(self, mask: int) -> int | None:
        return _index(self).get(mask)


@functools.lru_cache(maxsize=2)
def _index(space: Space) -> dict[int, int]:
    return {space.mask(i): i for i in range(len(space))}


@functools.lru_cache(maxsize=2)
def atom_tables(space: Space) -> tuple[tuple[L.Rule, ...], npt.NDArray[np.uint8]]:
    """The atoms, and single-card literals ("the top card is a red 7"), with their packed tables:
    what the expert Seeker adds to a near rule when no rule of the space fits."""
    literals = tuple(L.CardIs(card, red, rank) for card in CARDS for red in (False, True) for rank in range(2, 14))
    rules = space.atoms + literals
    masks = [compile_rule(rule).obey for rule in rules]
    packed = np.frombuffer(b"".join(m.to_bytes(BYTES, "little") for m in masks), dtype=np.uint8)
    return rules, packed.reshape(len(rules), BYTES).copy()


def beyond_atoms() -> list[L.Rule]:
    """Statements the space lacks, used only to reason *beyond* it (``seeker._extend_atoms``, once
    no rule of the space fits what was seen): the product past every value it takes, a colored
    card past every rank ("there is a black card higher than 9"), "the set contains a 6" and
    "neither card is a 6", a card's parity and color together ("the top card is even and red"), a
    card's two ranks ("the bottom card is a 4 or an 8") and ranges ("between 7 and 9"), one card
    twice the other. Not part of :func:`atoms` (nor of the fingerprint, the space's tables or the
    catalogue): a larger space costs actions on every rule in it."""
    out: list[L.Rule] = []
    products = sorted({a * b for a in range(2, 14) for b in range(2, 14)})
    out += [L.Compare(PRODUCT, "ge", L.Const(k)) for k in products[1:]]
    out += [L.Compare(PRODUCT, "le", L.Const(k)) for k in products[:-1]]
    for color in ("red", "black"):
        some = L.Quantified("some", (color,), "a")
        out += [L.Compare(some, "ge", L.Const(k)) for k in range(3, 14)]
        out += [L.Compare(some, "le", L.Const(k)) for k in range(2, 13)]
    for kind in ("some", "no"):
        out += [L.Compare(L.Quantified(kind, (), kind), "eq", L.Const(k)) for k in range(2, 14)]
    top, bottom = CARDS
    out += [L.Compare(top, "eq", L.Arith("*", bottom, L.Const(2))),
            L.Compare(bottom, "eq", L.Arith("*", top, L.Const(2)))]
    for card in CARDS:
        out += [L.Property(card, (parity, color)) for parity in ("even", "odd") for color in ("red", "black")]
        out += [L.Or((L.Compare(card, "eq", L.Const(a)), L.Compare(card, "eq", L.Const(b))))
                for a in range(2, 14) for b in range(a + 1, 14)]
        out += [L.Between(card, L.Const(low), L.Const(high)) for low in range(3, 12) for high in range(low + 2, 13)]
    return out


@functools.lru_cache(maxsize=2)
def wider_tables(space: Space) -> tuple[tuple[L.Rule, ...], npt.NDArray[np.uint8]]:
    """:func:`atom_tables` and then :func:`beyond_atoms`, one statement per distinct table (the
    first), with their packed tables: what the expert Seeker joins to a rule of the space (or to
    each other) when no rule of the space fits."""
    rules, packed = atom_tables(space)
    extra = beyond_atoms()
    extra_packed = np.frombuffer(b"".join(compile_rule(rule).obey.to_bytes(BYTES, "little") for rule in extra),
                                 dtype=np.uint8).reshape(len(extra), BYTES)
    both = np.concatenate([packed, extra_packed])
    _, first = np.unique(np.ascontiguousarray(both).view(np.dtype((np.void, BYTES))).ravel(), return_index=True)
    first.sort()
    every = rules + tuple(extra)
    return tuple(every[int(i)] for i in first), both[first].copy()


def fingerprint(atom_list: Sequence[L.Rule]) -> str:
    """What names a space: its atoms (the disk cache's file, the catalogue it was measured on)."""
    text = "\n".join(L.render(a) for a in atom_list)
    return hashlib.sha256(f"{VERSION}\n{text}".encode()).hexdigest()[:16]


def build() -> Space:
    """Generate the space (about a second)."""
    atom_list = atoms()
    packed, recipes = distinct_tables(atom_list)
    return Space(packed, recipes, tuple(atom_list))


def _warm(sp: Space) -> None:
    """Build the lookups a bot needs now, not during its first decision."""
    _index(sp)
    atom_tables(sp)
    wider_tables(sp)


def cache_dir() -> Path:
    return Path(os.environ.get("LUDOTECA_CACHE") or Path.home() / ".cache" / "ludoteca")


@functools.lru_cache(maxsize=1)
def space() -> Space:
    """The hypothesis space, from the disk cache when it is there (built and saved otherwise)."""
    atom_list = atoms()
    path = cache_dir() / f"ludic-space-{fingerprint(atom_list)}.npz"
    try:
        with np.load(path) as data:
            loaded = Space(data["packed"], data["recipes"], tuple(atom_list))
        _warm(loaded)
        return loaded
    except (OSError, KeyError, ValueError):
        pass
    built = build()
    _warm(built)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")
        np.savez_compressed(tmp, packed=built.packed, recipes=built.recipes)
        os.replace(tmp, path)
    except OSError:
        pass  # an unwritable cache only costs a rebuild per process
    return built
