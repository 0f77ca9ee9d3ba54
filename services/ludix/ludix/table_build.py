"""Building the expert's table offline: solving the two-player game (numba, :mod:`ludix.solver`),
checking what the expert relies on, evaluating policies, writing the file :mod:`ludix.table`
reads. ``python -m ludix.policy build`` runs it (``make policy``); the bots only call
:func:`table` when the file is missing (a small target, or a process started before the build).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from ludix.engine import DEFAULT_TARGET
from ludix.numerals import odds
from ludix.table import VERSION, Policy, read_table, table_path

EXTRA = 200
"""How far past the target the first player's total is modelled (``cap = T + EXTRA``). The
optimal first player never rolls at a total above ``T + 64`` for ``T = 300`` (checked at build
time), so the cap does not bind."""


@dataclass(frozen=True)
class ThrowArrays:
    """The 14 valid multisets as arrays for the compiled solver."""

    probs: np.ndarray
    vals: np.ndarray
    nv: np.ndarray
    pbust: float


@cache
def throw_arrays() -> ThrowArrays:
    valid = odds().valid
    vals = np.zeros((len(valid), 4), dtype=np.int64)
    for m, throw in enumerate(valid):
        vals[m, : len(throw.numerals)] = [n.value for n in throw.numerals]
    return ThrowArrays(
        probs=np.array([float(t.probability) for t in valid]),
        vals=vals,
        nv=np.array([len(t.numerals) for t in valid], dtype=np.int64),
        pbust=float(odds().bust_probability),
    )


# -- the file ------------------------------------------------------------------------------------
def save(policy: Policy, path: Path) -> None:
    """Write atomically (a concurrent reader sees the old file or the whole new one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            np.savez_compressed(
                out,
                meta=np.array([VERSION, policy.target, policy.cap, policy.exceptions], dtype=np.int64),
                roll_first=policy.roll_first,
                roll_second=policy.roll_second,
                win_first=policy.win_first.astype(np.float32),
                win_second=policy.win_second.astype(np.float32),
                final_win=policy.final_win,
                final_roll=policy.final_roll,
            )
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)



# -- solving and evaluating (numba, imported here only) -------------------------------------
def final_size(cap: int) -> int:
    return cap + 2 * 80 + 2


def solve(target: int = DEFAULT_TARGET, extra: int = EXTRA) -> Policy:
    """Solve the two-player game exactly for ``target`` (a few seconds for 300)."""
    from ludix import solver

    arr = throw_arrays()
    cap = target + extra
    final_win, final_roll = solver.final_turn(final_size(cap), arr.probs, arr.vals, arr.nv)
    roll_first = np.zeros((target, target, cap + 1), dtype=np.bool_)
    roll_second = np.zeros((target, target, target), dtype=np.bool_)
    win_first, win_second, exceptions = solver.solve_game(
        target, cap, arr.probs, arr.vals, arr.nv, arr.pbust, final_win, True, roll_first, roll_second
    )
    return Policy(
        target=target,
        cap=cap,
        roll_first=np.packbits(roll_first, axis=-1),
        roll_second=np.packbits(roll_second, axis=-1),
        win_first=win_first,
        win_second=win_second,
        final_win=final_win,
        final_roll=final_roll,
        exceptions=int(exceptions),
    )


def evaluate(
    target: int, cap: int, roll_first: np.ndarray, roll_second: np.ndarray, final_second: np.ndarray
) -> np.ndarray:
    """The first player's exact chance (a shared win counting 1/2) from every ``[i, j]`` at the
    start of its turn, when the first player follows ``roll_first``, the second ``roll_second``
    and, in its final turn, has the chances ``final_second`` by deficit (both take the best
    numeral)."""
    from ludix import solver

    arr = throw_arrays()
    va, _vb, _e = solver.solve_game(
        target, cap, arr.probs, arr.vals, arr.nv, arr.pbust, final_second, False, roll_first, roll_second
    )
    return np.asarray(va)


Bits = tuple[np.ndarray, np.ndarray, np.ndarray]
"""A fixed two-seat policy: roll bits as the first player, as the second, and its chances in the
second player's final turn by deficit."""


def blind_policy(target: int, cap: int, threshold: int) -> Bits:
    """"Hold at turn total ``threshold``" whatever the scores (``blind``): it keeps rolling below
    the threshold even when holding would win, and holds at it in its last turn even when behind."""
    from ludix import solver

    arr = throw_arrays()
    first = np.zeros((target, target, cap + 1), dtype=np.bool_)
    first[:, :, :threshold] = True
    second = np.zeros((target, target, cap + 1), dtype=np.bool_)  # it rolls on past the target
    second[:, :, :threshold] = True
    final = solver.final_turn_threshold(final_size(cap), threshold, arr.probs, arr.vals, arr.nv)
    return first, second, final


def steady_policy(policy: Policy, threshold: int) -> Bits:
    """``steady`` (:func:`ludix.bots.steady_rolls`) with two seats: hold at ``threshold`` or on
    reaching the target (as the second player that wins at once), and in the last turn roll while
    not strictly ahead. That last turn is the optimal one (:attr:`Policy.final_win`): behind,
    rolling is the only chance, and at a tie rolling wins with 58/81 > 1/2 (the optimal final turn
    rolls at a tie too, which the tests check)."""
    t, cap = policy.target, policy.cap
    k = np.arange(cap + 1)
    own = np.arange(t)[:, None, None]
    first = np.broadcast_to((k < threshold) & (own + k < t), (t, t, cap + 1)).copy()
    second = first[:, :, :t].copy()  # the solver holds B at own + k >= t by the array's length
    return first, second, policy.final_win


def versus(policy: Policy, opponent: Bits) -> tuple[float, float]:
    """The expert's exact chance against a fixed policy: (expert first, expert second)."""
    t, cap = policy.target, policy.cap
    expert_first, expert_second = policy.unpacked()
    their_first, their_second, their_final = opponent
    as_first = float(evaluate(t, cap, expert_first, their_second, their_final)[0, 0])
    as_second = 1.0 - float(evaluate(t, cap, their_first, expert_second, policy.final_win)[0, 0])
    return as_first, as_second


def highest_rolling_total(policy: Policy) -> int:
    """The highest banked + turn total at which the first player still rolls (must stay well
    below ``cap - 80`` for the cap not to matter)."""
    first, _ = policy.unpacked()
    i, k = np.nonzero(first.any(axis=1))
    return int((i + k).max()) if len(i) else 0


# -- the cached table -----------------------------------------------------------------------
def checked_solve(target: int = DEFAULT_TARGET) -> Policy:
    """Solve and check what the expert relies on: the best numeral is never beaten and the cap on
    the first player's total never binds."""
    policy = solve(target)
    if policy.exceptions:
        raise RuntimeError(f"{policy.exceptions} states prefer a numeral other than the best")
    if highest_rolling_total(policy) > policy.cap - 80:
        raise RuntimeError("the first player's cap binds: raise EXTRA")
    return policy


def build(target: int = DEFAULT_TARGET) -> Policy:
    """Solve, check and write the table for ``target``."""
    policy = checked_solve(target)
    save(policy, table_path(target))
    return policy


@cache
def table(target: int = DEFAULT_TARGET) -> Policy:
    """The table for ``target``, once per process: read from the cache; if absent (or stale),
    solved and written there (kept in memory only if the cache dir is not writable)."""
    try:
        return read_table(target)
    except (OSError, ValueError, KeyError):
        pass  # never built, stale or damaged: solve again below
    policy = checked_solve(target)
    with contextlib.suppress(OSError):
        save(policy, table_path(target))
    return policy
