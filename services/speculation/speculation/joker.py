"""The joker: four values guessed at once, answered by how many of them are right.

A joker guess and a joker hand are multisets of four values (1..10), kept as sorted tuples. The
answer to a guess is the size of the multiset intersection: with the hand 2, 2, 5, 9 the guess
2, 5, 5, 7 has two right (one 2 and one 5). Each value is on a board at most twice, so there are
615 possible hands; a guess may name any four values (715 multisets) unless the game's
``joker_guesses`` option is ``"hands"``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache
from itertools import combinations_with_replacement

import numpy as np
import numpy.typing as npt

from speculation.board import COPIES, VALUES

JOKER_SIZE = 4
Hand = tuple[int, ...]
"""A sorted multiset of four values."""

ALL_GUESSES: tuple[Hand, ...] = tuple(combinations_with_replacement(VALUES, JOKER_SIZE))
"""Every multiset of four values: 715."""
HANDS: tuple[Hand, ...] = tuple(h for h in ALL_GUESSES if max(Counter(h).values()) <= COPIES)
"""Every possible joker hand (no value more than twice): 615."""
GUESS_INDEX: dict[Hand, int] = {g: i for i, g in enumerate(ALL_GUESSES)}


def normalize(values: Iterable[int]) -> Hand:
    return tuple(sorted(values))


def is_hand(values: Sequence[int]) -> bool:
    """Whether ``values`` could be a joker hand (four values, none more than twice)."""
    return len(values) == JOKER_SIZE and max(Counter(values).values()) <= COPIES


def score(guess: Iterable[int], hand: Iterable[int]) -> int:
    """How many of the guessed values are right: the size of the multiset intersection."""
    return sum((Counter(guess) & Counter(hand)).values())


def counts(hands: Sequence[Hand]) -> npt.NDArray[np.int8]:
    """One row per hand: how many of each value 1..10 it holds."""
    out = np.zeros((len(hands), len(VALUES)), dtype=np.int8)
    for i, h in enumerate(hands):
        for v in h:
            out[i, v - 1] += 1
    return out


@cache
def score_table() -> npt.NDArray[np.int8]:
    """``score_table()[g, h]`` = score of ``ALL_GUESSES[g]`` against ``ALL_GUESSES[h]`` (715 x 715)."""
    c = counts(ALL_GUESSES)
    table: npt.NDArray[np.int8] = np.minimum(c[:, None, :], c[None, :, :]).sum(axis=2, dtype=np.int8)
    return table
