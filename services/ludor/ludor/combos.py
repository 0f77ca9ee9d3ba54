"""Combinations: what a play is, what it answers, when it is a PLIM, and what a hand can play.

A play is read from the cards it uses, given as 15 counts, one per power (see
:mod:`ludor.hierarchy`):

- a **set**: one or more cards of one rank; jokers complete it and take its rank. Jokers alone
  form a set of their own rank, Joker (above the 2s), or of the rank their player names
  ("pueden adoptar el rango que elijas": a joker named 7 answers a 7 with a PLIM).
- a **straight** ("escalera", only with the ``straights`` option): three or more single cards of
  consecutive ranks from 3 up to the As (in the 40-card deck 7 and Sota are consecutive), at
  least two of them natural; jokers fill the gaps, and any joker left over extends the run
  upwards (downwards once it reaches the As). Cards of one rank plus jokers are always a set.
- the **2 de Oros** alone: it answers anything, whatever the count, and wins the trick at once.
- the **Autoplim** alone (its own action, see the engine): only the 2 de Oros answers it.

An answer must be of the same kind and count with a power equal or higher; equal is a PLIM.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import combinations
from typing import NamedTuple

from ludor.hierarchy import AS, AUTOPLIM, JOKER, POWERS, TWO_OF_OROS, powers_in_deck

SET, STRAIGHT, AUTOPLIM_PLAY, TWO_OF_OROS_PLAY = 0, 1, 2, 3
KIND_NAMES: tuple[str, ...] = ("set", "straight", "autoplim", "two_of_oros")

Take = tuple[int, ...]
"""The cards a play uses, as 15 counts (one per power)."""


class Combo(NamedTuple):
    """What a play is: its kind, its power (a straight's: its highest rank) and its card count."""

    kind: int
    power: int
    size: int


AUTOPLIM_COMBO = Combo(AUTOPLIM_PLAY, AUTOPLIM, 1)
TWO_OF_OROS_COMBO = Combo(TWO_OF_OROS_PLAY, TWO_OF_OROS, 1)


class Ruleset(NamedTuple):
    """The options that change what a play is."""

    straights: bool
    run: tuple[int, ...]
    """Powers a straight may use, in order (3 .. As, those in the deck)."""
    names: tuple[int, ...] = ()
    """Powers jokers played alone may be named: every natural rank of the deck (3 .. 2) and Joker."""


@lru_cache(maxsize=4)
def ruleset(straights: bool = False, short_deck: bool = False) -> Ruleset:
    naturals = powers_in_deck(short_deck)
    return Ruleset(straights, tuple(p for p in naturals if p <= AS), (*naturals, JOKER))


def unit(power: int, k: int = 1) -> Take:
    take = [0] * POWERS
    take[power] = k
    return tuple(take)


def classify(take: Sequence[int], rules: Ruleset, named: int | None = None) -> Combo | None:
    """What the cards of ``take`` form as a ``play`` (never the Autoplim), or None. ``named``:
    the rank (power) the player names jokers played alone (None: Joker); it is no choice for
    jokers with other cards (they take those cards' rank)."""
    total = sum(take)
    if total == 0 or take[AUTOPLIM]:
        return None
    if take[TWO_OF_OROS]:
        return TWO_OF_OROS_COMBO if total == 1 else None
    naturals = [p for p in range(JOKER) if take[p]]
    if not naturals:
        if named is not None and named not in rules.names:
            return None
        return Combo(SET, JOKER if named is None else named, total)
    if len(naturals) == 1:
        return Combo(SET, naturals[0], total)
    return _straight(take, naturals, total, rules)


def _straight(take: Sequence[int], naturals: list[int], total: int, rules: Ruleset) -> Combo | None:
    run = rules.run
    if not rules.straights or total < 3 or any(take[p] != 1 or p not in run for p in naturals):
        return None
    lo, hi = run.index(naturals[0]), run.index(naturals[-1])
    gaps = hi - lo + 1 - len(naturals)
    if gaps > take[JOKER]:
        return None
    extra = take[JOKER] - gaps
    top = min(hi + extra, len(run) - 1)
    if lo - (extra - (top - hi)) < 0:
        return None
    return Combo(STRAIGHT, run[top], total)


def answers(top: Combo | None, combo: Combo) -> bool:
    """May ``combo`` be played on a table whose last play is ``top`` (None: leading)?"""
    if combo.kind == TWO_OF_OROS_PLAY or combo.kind == AUTOPLIM_PLAY or top is None:
        return True
    return combo.kind == top.kind and combo.size == top.size and combo.power >= top.power


def is_plim(top: Combo | None, combo: Combo) -> bool:
    """Does ``combo`` match the play under it (same kind, count and power)?"""
    return top is not None and combo == top and combo.kind in (SET, STRAIGHT)


def plays(counts: Sequence[int], top: Combo | None, rules: Ruleset,
          complete: bool = True) -> list[tuple[Combo, Take]]:
    """Every ``play`` (not the Autoplim) a hand of ``counts`` can put on ``top``, as
    (combo, take). ``complete=False`` leaves out the dominated ones (a joker used while a
    natural card of that rank stays in hand), which is what bots need; the engine lists all."""
    found: dict[tuple[Take, Combo], None] = {}
    if top is None or top.kind == SET:
        for take in _set_takes(counts, top, complete):
            power = _set_power(take)
            found[take, Combo(SET, power, sum(take))] = None
            if power == JOKER:  # jokers alone: also as a rank they are named
                for named in _names(top, rules, complete):
                    found[take, Combo(SET, named, sum(take))] = None
    if rules.straights and (top is None or top.kind == STRAIGHT):
        for take in _straight_takes(counts, top, rules, complete):
            combo = classify(take, rules)
            if combo is not None and answers(top, combo):
                found[take, combo] = None
    if counts[TWO_OF_OROS]:
        found[unit(TWO_OF_OROS), TWO_OF_OROS_COMBO] = None
    return sorted(((c, t) for t, c in found), key=lambda ct: (ct[0], ct[1]))


def _names(top: Combo | None, rules: Ruleset, complete: bool) -> list[int]:
    """The natural ranks jokers alone may be named as a play on ``top``: every one that answers
    it; ``complete=False`` (bots): only the top's own rank, a PLIM (a lower name than Joker is
    otherwise only a weaker play)."""
    if top is None:
        return [p for p in rules.names if p < JOKER] if complete else []
    names = [p for p in rules.names if top.power <= p < JOKER]
    return names if complete else names[:1] if names and names[0] == top.power else []


def _set_power(take: Take) -> int:
    return next((p for p in range(JOKER) if take[p]), JOKER)


def _set_takes(counts: Sequence[int], top: Combo | None, complete: bool) -> Iterator[Take]:
    jokers = counts[JOKER]
    lo = 0 if top is None else top.power
    want = None if top is None else top.size
    for p in range(lo, JOKER):
        n = counts[p]
        for kn in range(1, n + 1):
            for kj in range(jokers + 1):
                if (want is not None and kn + kj != want) or (not complete and kj and kn < n):
                    continue
                take = [0] * POWERS
                take[p], take[JOKER] = kn, kj
                yield tuple(take)
    if lo <= JOKER:
        for kj in range(1, jokers + 1):
            if want is None or kj == want:
                yield unit(JOKER, kj)


def _straight_takes(counts: Sequence[int], top: Combo | None, rules: Ruleset,
                    complete: bool) -> Iterator[Take]:
    run = rules.run
    jokers = counts[JOKER]
    lengths = range(3, len(run) + 1) if top is None else (top.size,)
    for length in lengths:
        for a in range(len(run) - length + 1):
            window = run[a:a + length]
            present = [p for p in window if counts[p]]
            missing = length - len(present)
            if missing > jokers:
                continue
            spare = jokers - missing if complete else 0
            for k in range(spare + 1):
                for replaced in combinations(present, k):
                    kept = [p for p in present if p not in replaced]
                    if len(kept) < 2:
                        continue
                    take = [0] * POWERS
                    for p in kept:
                        take[p] = 1
                    take[JOKER] = missing + k
                    yield tuple(take)


def can_match(counts: Sequence[int], combo: Combo, rules: Ruleset) -> bool:
    """Could a hand of ``counts`` play exactly ``combo`` (a PLIM on it)?"""
    if combo.kind not in (SET, STRAIGHT):
        return False
    return any(c == combo for c, _ in plays(counts, combo, rules))
