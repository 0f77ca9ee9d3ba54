"""Building the hypothesis space's tables (:mod:`ludic.space`): every atom's truth table, then
``and``/``or`` of every pair, one recipe per distinct table. About a second; :func:`ludic.space.space`
runs it when the disk cache has no space yet."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ludic import language as L
from ludic.tables import Table, compile_rule
from ludic.universe import ALL, SETS

BYTES = SETS // 8
"""Bytes of one packed truth table (one bit per set)."""


def distinct_tables(atom_list: Sequence[L.Rule]) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int32]]:
    """The packed tables (``[rule, byte]``) and recipes (``(op, a, b)``: op 0 = atom ``a``, 1 = ``a``
    and ``b``, 2 = ``a`` or ``b``) of every distinct table the atoms and their pairs give, atoms
    first; tables nobody or everybody obeys are dropped."""
    tables: list[Table] = [compile_rule(a) for a in atom_list]
    assert not any(t.is_ambiguous for t in tables), "an atom is ambiguous"
    masks = [t.obey for t in tables]
    seen: dict[int, tuple[int, int, int]] = {}
    for i, m in enumerate(masks):
        if 0 < m < ALL:
            seen.setdefault(m, (0, i, 0))
    n = len(masks)
    for i in range(n):
        mi = masks[i]
        for j in range(i + 1, n):
            mj = masks[j]
            both, either = mi & mj, mi | mj
            if both and both not in seen:
                seen[both] = (1, i, j)
            if either != ALL and either not in seen:
                seen[either] = (2, i, j)
    keys = list(seen)
    packed = np.frombuffer(b"".join(m.to_bytes(BYTES, "little") for m in keys), dtype=np.uint8)
    recipes = np.array([seen[m] for m in keys], dtype=np.int32)
    return packed.reshape(len(keys), BYTES).copy(), recipes
