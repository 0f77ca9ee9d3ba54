"""Truth tables: what a rule says about each of the 576 sets.

A rule's meaning is its :class:`Table`: the bitset of sets that obey it and the bitset of sets on
which it is *undefined* (it reaches ``high``/``low`` of two cards of equal rank, or divides by
zero). Three values, combined with Kleene's strong logic (``false and undefined`` is false,
``true or undefined`` is true), so "the cards have different ranks and the high card is red" is
defined everywhere while "the high card is red" is not.

Evaluation is vectorised with numpy over all 576 sets at once; the result is two Python ints.
Arithmetic is exact: values stay in int64 while a bound on their size shows they fit, and become
Python integers (numpy object arrays) beyond, so no product or sum ever wraps around.

Quantifiers range over the two positions of the set (top, bottom). When a statement has a card
subject and a quantified object ("a red card outranks a black card", "the top card outranks
every card"), the object ranges over the *other* card(s) than the subject's: a card is never
compared with itself.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ludic import language as L
from ludic.universe import ALL, EQUAL_RANKS, RED_AT, SETS, VALUE_AT, mask_from_array, members

Bools = npt.NDArray[np.bool_]
Ints = npt.NDArray[Any]
"""Integer values of each set: int64, or Python ints (dtype object) when int64 could overflow."""
INT64_SAFE = 2**62
"""Values whose bound stays below this are kept in int64 (sums and products of two such still
checked before they are computed)."""
PRIME_LIMIT = 3_317_044_064_679_887_385_961_981
"""Miller-Rabin with the first 13 primes as bases is exact below this (Sorenson and Webster 2015)."""

_FALSE = np.zeros(SETS, dtype=bool)
_TRUE = np.ones(SETS, dtype=bool)


@dataclass(frozen=True)
class Table:
    """The meaning of a rule: ``obey`` and ``undefined`` are disjoint bitsets over the 576 sets."""

    obey: int
    undefined: int = 0

    @property
    def is_ambiguous(self) -> bool:
        return self.undefined != 0

    @property
    def count(self) -> int:
        """How many of the 576 sets obey."""
        return self.obey.bit_count()

    def obeys(self, s: int) -> bool:
        return bool(self.obey >> s & 1)

    def is_equivalent(self, other: Table) -> bool:
        return self.obey == other.obey and not self.undefined and not other.undefined

    def first_undefined(self) -> int | None:
        return members(self.undefined & -self.undefined)[0] if self.undefined else None


# ---- three-valued arrays ------------------------------------------------------------------------
@dataclass(frozen=True)
class Truth:
    """Kleene truth values over the 576 sets: ``true`` and ``unknown`` are disjoint."""

    true: Bools
    unknown: Bools

    @property
    def false(self) -> Bools:
        return ~(self.true | self.unknown)

    @classmethod
    def of(cls, values: Bools, unknown: Bools) -> Truth:
        return cls(values & ~unknown, unknown.copy())

    def __and__(self, other: Truth) -> Truth:
        true = self.true & other.true
        false = self.false | other.false
        return Truth(true, ~(true | false))

    def __or__(self, other: Truth) -> Truth:
        true = self.true | other.true
        false = self.false & other.false
        return Truth(true, ~(true | false))

    def __invert__(self) -> Truth:
        return Truth(self.false, self.unknown)

    def negate_if(self, negated: bool) -> Truth:
        return ~self if negated else self


TRUE = Truth(_TRUE, _FALSE)
FALSE = Truth(_FALSE, _FALSE)


@dataclass(frozen=True)
class Num:
    value: Ints
    unknown: Bools


@dataclass(frozen=True)
class CardValue:
    """One card of each set: value, color, and which position it is (for 'the other card')."""

    value: Ints
    red: Bools
    unknown: Bools
    position: Ints

    def num(self) -> Num:
        return Num(self.value, self.unknown)


def _position(p: int) -> CardValue:
    return CardValue(VALUE_AT[p].astype(np.int64), RED_AT[p], _FALSE, np.full(SETS, p, dtype=np.int64))


TOP, BOTTOM = _position(0), _position(1)
_TOP_HIGHER = VALUE_AT[0] > VALUE_AT[1]
HIGH = CardValue(np.maximum(VALUE_AT[0], VALUE_AT[1]).astype(np.int64),
                 np.where(_TOP_HIGHER, RED_AT[0], RED_AT[1]), EQUAL_RANKS,
                 np.where(_TOP_HIGHER, 0, 1).astype(np.int64))
LOW = CardValue(np.minimum(VALUE_AT[0], VALUE_AT[1]).astype(np.int64),
                np.where(_TOP_HIGHER, RED_AT[1], RED_AT[0]), EQUAL_RANKS,
                np.where(_TOP_HIGHER, 1, 0).astype(np.int64))
FIXED = {"top": TOP, "bottom": BOTTOM, "high": HIGH, "low": LOW}
POSITIONS = (TOP, BOTTOM)


def _bools(values: Any) -> Bools:
    """A comparison's result as booleans (object arrays compare to object arrays)."""
    return np.asarray(values, dtype=bool)


_MR_BASES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)


def is_prime(n: int) -> bool:
    """Exact primality of ``n`` (deterministic Miller-Rabin below :data:`PRIME_LIMIT`)."""
    if n < 2:
        return False
    for p in _MR_BASES:
        if n % p == 0:
            return n == p
    if n >= PRIME_LIMIT:
        raise L.RuleError("the rule asks whether a number above 3 x 10^24 is prime; the language decides "
                          "primality only below that (two cards never need more)", reason="size")
    d, r = n - 1, 0
    while d % 2 == 0:
        d, r = d // 2, r + 1
    for a in _MR_BASES:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _per_value(values: Ints, test: Callable[[int], bool]) -> Bools:
    out = np.zeros(values.shape, dtype=bool)
    for v in np.unique(values):
        if test(int(v)):
            out |= _bools(values == v)
    return out


def _is_prime(values: Ints) -> Bools:
    return _per_value(values, is_prime)


def _is_square(values: Ints) -> Bools:
    return _per_value(values, lambda v: v >= 0 and math.isqrt(v) ** 2 == v)


NUMBER_TESTS: dict[str, Callable[[Ints], Bools]] = {
    "even": lambda v: _bools(v % 2 == 0),
    "odd": lambda v: _bools(v % 2 != 0),
    "prime": _is_prime,
    "square": _is_square,
}


def _card_adjective(card: CardValue, adjective: str) -> Truth:
    if adjective in NUMBER_TESTS:
        return Truth.of(NUMBER_TESTS[adjective](card.value), card.unknown)
    values = {"red": card.red, "black": ~card.red, "face": card.value >= 11,
              "pip": card.value <= 10}[adjective]
    return Truth.of(values, card.unknown)


# ---- evaluation -------------------------------------------------------------------------------------
class _Evaluator:
    """Evaluates one syntax tree over all sets; quantified cards are bound to positions."""

    def rule(self, rule: L.Rule) -> Truth:
        if isinstance(rule, L.Not):
            return ~self.rule(rule.operand)
        if isinstance(rule, L.And):
            return functools.reduce(lambda a, b: a & b, (self.rule(r) for r in rule.operands))
        if isinstance(rule, L.Or):
            return functools.reduce(lambda a, b: a | b, (self.rule(r) for r in rule.operands))
        if isinstance(rule, L.Implies):
            return ~self.rule(rule.condition) | self.rule(rule.consequence)
        if isinstance(rule, L.SetLike):
            return self.set_like(rule)
        return self.statement(rule)

    # numbers
    def number(self, term: L.Number) -> Num:
        if isinstance(term, L.Const):
            return Num(np.full(SETS, term.value, dtype=np.int64), _FALSE)
        if isinstance(term, L.Card):
            return FIXED[term.position].num()
        if isinstance(term, L.ValueOf):
            return FIXED[term.card.position].num()
        if isinstance(term, L.Aggregate):
            top, bottom = TOP.value, BOTTOM.value
            value = {"sum": top + bottom, "difference": np.abs(top - bottom),
                     "product": top * bottom}[term.kind]
            return Num(value, _FALSE)
        left, right = self.number(term.left), self.number(term.right)
        return _arith(term.op, left, right)

    # statements
    def statement(self, stmt: L.Property | L.CardIs | L.Compare | L.Between) -> Truth:
        subject = stmt.subject
        if isinstance(subject, L.Quantified):
            return self.quantify(subject, None, lambda card: self.with_subject(stmt, card))
        if isinstance(subject, L.Card):
            return self.with_subject(stmt, FIXED[subject.position])
        return self.with_subject(stmt, self.number(subject))

    def with_subject(self, stmt: L.Property | L.CardIs | L.Compare | L.Between, subject: CardValue | Num) -> Truth:
        if isinstance(stmt, L.Property):
            return self.property(stmt, subject)
        if isinstance(stmt, L.CardIs):
            assert isinstance(subject, CardValue)
            same = (subject.red == stmt.red) & (subject.value == stmt.value)
            return Truth.of(same, subject.unknown).negate_if(stmt.negated)
        if isinstance(stmt, L.Between):
            value = _as_num(subject)
            low, high = self.number(stmt.low), self.number(stmt.high)
            inside = _bools(low.value <= value.value) & _bools(value.value <= high.value)
            return Truth.of(inside, value.unknown | low.unknown | high.unknown).negate_if(stmt.negated)
        assert isinstance(stmt, L.Compare)
        right = stmt.target
        if isinstance(right, L.Quantified):
            anchor = subject if isinstance(subject, CardValue) else None
            truth = self.quantify(right, anchor, lambda card: _compare(stmt, subject, card))
        elif isinstance(right, L.Card):
            truth = _compare(stmt, subject, FIXED[right.position])
        else:
            truth = _compare(stmt, subject, self.number(right))
        return truth.negate_if(stmt.negated)

    def property(self, stmt: L.Property, subject: CardValue | Num) -> Truth:
        parts = []
        for adjective in stmt.adjectives:
            if isinstance(subject, CardValue):
                parts.append(_card_adjective(subject, adjective))
            else:
                parts.append(Truth.of(NUMBER_TESTS[adjective](subject.value), subject.unknown))
        return functools.reduce(lambda a, b: a & b, parts).negate_if(stmt.negated)

    def set_like(self, stmt: L.SetLike) -> Truth:
        if stmt.attribute == "color":
            same = TOP.red == BOTTOM.red
        elif stmt.attribute == "value":
            same = TOP.value == BOTTOM.value
        else:
            same = TOP.value % 2 == BOTTOM.value % 2
        truth = Truth.of(same if stmt.same else ~same, _FALSE)
        return truth.negate_if(stmt.negated)

    def quantify(self, q: L.Quantified, anchor: CardValue | None,
                 body: Callable[[CardValue], Truth]) -> Truth:
        """``q`` over the positions of each set; with an ``anchor`` card, over the other positions."""
        matches = []
        for p, card in enumerate(POSITIONS):
            member = TRUE if anchor is None else Truth.of(anchor.position != p, anchor.unknown)
            for adjective in q.restrictors:
                member = member & _card_adjective(card, adjective)
            matches.append((member, body(card)))
        some = FALSE
        every = TRUE
        both = TRUE
        for member, holds in matches:
            some = some | (member & holds)
            every = every & (~member | holds)
            both = both & member & holds
        if q.kind in ("some", "other"):
            return some
        if q.kind == "every":
            return every
        if q.kind == "no":
            return ~some
        if q.kind == "at_most_one":
            return ~both
        return some & ~both


def _bound(values: Ints) -> int:
    """The largest absolute value in ``values`` (an exact Python int)."""
    return max(abs(int(values.max())), abs(int(values.min())))


def _exact(values: Ints) -> Ints:
    return values if values.dtype == object else values.astype(object)


def _arith(op: str, left: Num, right: Num) -> Num:
    """``left op right`` for every set, exactly: in int64 when the bound of the result fits,
    in Python integers otherwise (``mod`` by zero is undefined; Python's floor modulo, like numpy's)."""
    a, b = _bound(left.value), _bound(right.value)
    bound = a * b if op == "*" else a + b if op in ("+", "-") else b
    x, y = left.value, right.value
    if bound >= INT64_SAFE or x.dtype == object or y.dtype == object:
        x, y = _exact(x), _exact(y)
    unknown = left.unknown | right.unknown
    if op == "+":
        value = x + y
    elif op == "-":
        value = x - y
    elif op == "*":
        value = x * y
    else:
        zero = _bools(y == 0)
        value = np.where(zero, 0, x % np.where(zero, 1, y))
        unknown = unknown | zero
    if value.dtype == object and _bound(value) < INT64_SAFE:
        value = value.astype(np.int64)
    return Num(value, unknown)


def _as_num(term: CardValue | Num) -> Num:
    return term.num() if isinstance(term, CardValue) else term


def _compare(stmt: L.Compare, left: CardValue | Num, right: CardValue | Num) -> Truth:
    if stmt.attribute == "color":
        assert isinstance(left, CardValue) and isinstance(right, CardValue)
        same = left.red == right.red
        unknown = left.unknown | right.unknown
        return Truth.of(same if stmt.op == "same" else ~same, unknown)
    a, b = _as_num(left), _as_num(right)
    unknown = a.unknown | b.unknown
    x, y = a.value, b.value
    op = stmt.op
    if stmt.attribute == "parity":
        x, y = x % 2, y % 2
    if x.dtype == object or y.dtype == object:
        x, y = _exact(x), _exact(y)
    if op in ("same", "eq"):
        values = x == y
    elif op in ("different", "ne"):
        values = x != y
    elif op == "lt":
        values = x < y
    elif op == "le":
        values = x <= y
    elif op == "gt":
        values = x > y
    elif op == "ge":
        values = x >= y
    else:
        divisor, dividend = (x, y) if op == "divides" else (y, x)
        zero = _bools(divisor == 0)
        values = np.where(zero, False, _bools(dividend % np.where(zero, 1, divisor) == 0))
        unknown = unknown | zero
    return Truth.of(_bools(values), unknown)


def truth(rule: L.Rule) -> Truth:
    """The three-valued truth of a syntax tree over all sets (numpy arrays)."""
    return _Evaluator().rule(rule)


def compile_rule(rule: L.Rule) -> Table:
    """The truth table of a syntax tree."""
    result = truth(rule)
    return Table(mask_from_array(result.true), mask_from_array(result.unknown))


@functools.lru_cache(maxsize=4096)
def table_of(text: str) -> Table:
    """The truth table of a rule's text (parse + compile, cached)."""
    return compile_rule(L.parse(text))


__all__ = ["ALL", "Table", "Truth", "compile_rule", "table_of", "truth"]
