"""Dice with arbitrary faces (Ludix's L-X-X-V-I-I, ordinary d6, anything else)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import Generic, TypeVar

from ludoteca.core.rng import Rng

F = TypeVar("F")


@dataclass(frozen=True)
class Die(Generic[F]):
    """A fair die; faces may repeat (``Die(("L","X","X","V","I","I"))``)."""

    faces: tuple[F, ...]

    def __post_init__(self) -> None:
        if not self.faces:
            raise ValueError("a die needs at least one face")

    def roll(self, rng: Rng) -> F:
        return self.faces[rng.randbelow(len(self.faces))]

    def distribution(self) -> dict[F, Fraction]:
        """Exact probability of each distinct face."""
        counts = Counter(self.faces)
        n = len(self.faces)
        return {face: Fraction(c, n) for face, c in counts.items()}


def roll_all(dice: Sequence[Die[F]], rng: Rng) -> tuple[F, ...]:
    """Throw several dice at once, in order."""
    return tuple(d.roll(rng) for d in dice)


def multiset_distribution(dice: Sequence[Die[F]]) -> dict[tuple[F, ...], Fraction]:
    """Exact distribution of the sorted outcome (a multiset) of throwing all ``dice``.

    Keys are sorted tuples of faces, so order does not matter. Faces must be orderable.
    """
    out: dict[tuple[F, ...], Fraction] = {}
    dists = [d.distribution() for d in dice]
    for combo in product(*(list(d.items()) for d in dists)):
        key = tuple(sorted(face for face, _ in combo))  # type: ignore[type-var]
        p = Fraction(1)
        for _, q in combo:
            p *= q
        out[key] = out.get(key, Fraction(0)) + p
    return out
