"""Exact two-player Ludix by dynamic programming (compiled with numba).

The model, as Neller and Presser solved Pig ("Optimal Play of the Dice Game Pig", 2004), with
Ludix's end rule: the round is completed. With two players the *first* player (A) and the
*second* player (B) are not symmetric:

- B moves with total ``j`` against A's ``i`` (both below the target ``T``): if B banks to ``T``
  or more the round is complete and B has the higher total, so B wins at once.
- A moves with total ``i`` against B's ``j``: if A banks ``a >= T``, B gets one final turn and
  must end strictly above ``a`` (equal totals share the win). A may keep rolling past ``T`` to
  raise that bar: A's turn total is bounded by a cap (``a <= cap``, forced hold above it). The
  solve checks that the cap never binds (:func:`highest_rolling_total`).
- B's final turn depends only on the deficit ``d = a - (j + k)``: :func:`final_turn`.

Values are the mover's probability of winning, a shared win counting one half. A state is
``(i, j, k)``: mover's banked score, opponent's, and the mover's turn total *after* choosing the
numeral of the last throw (``k = 0``: start of the turn, where only ``roll`` is legal).

Dependencies: a hold moves to a state with a larger score sum, a bust swaps the movers at the same
``(i, j)``. So the layers ``i + j = s`` are solved from the top down, and inside a layer each pair
``x = V_A(i, j, 0)``, ``y = V_B(j, i, 0)`` is the fixed point of ``x = f(1 - y), y = g(1 - x)``,
where ``f`` and ``g`` are one backward sweep over the turn total. Both are convex, piecewise linear
(a max of linear functions of the bust value): Newton's method on the pair, with the slopes carried
through the sweep, finds the exact fixed point in a few steps (the same answer as value iteration,
which the tests check against an independent numpy value iteration).

``optimize=True`` solves (max over hold/roll and over the numerals); ``optimize=False`` evaluates
fixed policies (given as roll bits), which is how expert-vs-steady is computed exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

EPS = 1e-12
"""Ties within EPS go to hold (and to the best numeral): either is optimal to within EPS."""
MAX_POINTS = 80
"""The most one throw scores (LXXX): sweeps keep this many slots above their last decision."""

Array = Any


@njit(cache=True)
def sweep(
    hold: Array,
    kmax: int,
    bust_value: float,
    probs: Array,
    vals: Array,
    nv: Array,
    pbust: float,
    optimize: bool,
    policy_in: Array,
    policy_out: Array,
    w: Array,
    dw: Array,
) -> tuple[float, float, int]:
    """One backward sweep over the turn total ``k`` of one mover at fixed scores.

    ``hold[k]``: the value of banking at ``k`` (``k`` up to ``kmax + MAX_POINTS``; above
    ``kmax`` holding is forced). Rolling scores ``pbust * bust_value`` plus, per valid multiset,
    its probability times the value after its numeral. Returns the value at ``k = 0`` (where one
    must roll), its slope in ``bust_value`` and, when optimizing, how many reachable states prefer
    a numeral other than the best. Writes the roll decisions into ``policy_out`` when optimizing,
    follows ``policy_in`` otherwise (numeral: the best).
    """
    for k in range(kmax + MAX_POINTS, kmax, -1):
        w[k] = hold[k]
        dw[k] = 0.0
    exceptions = 0
    for k in range(kmax, -1, -1):
        roll = pbust * bust_value
        droll = pbust
        for m in range(probs.shape[0]):
            best = k + vals[m, 0]
            if optimize:
                for t in range(1, nv[m]):
                    other = k + vals[m, t]
                    if w[other] > w[best] + EPS:
                        best = other
                        if k == 0 or k >= 8:
                            exceptions += 1
            roll += probs[m] * w[best]
            droll += probs[m] * dw[best]
        if k == 0:
            rolls = True
        elif optimize:
            rolls = roll > hold[k] + EPS
            policy_out[k] = rolls
        else:
            rolls = policy_in[k]
        if rolls:
            w[k] = roll
            dw[k] = droll
        else:
            w[k] = hold[k]
            dw[k] = 0.0
    return w[0], dw[0], exceptions


@njit(cache=True)
def final_turn(size: int, probs: Array, vals: Array, nv: Array) -> tuple[Array, Array]:
    """The second player's optimal final turn, by deficit ``d`` (leader's total minus own total
    with the turn total): win value ``F[d]`` (hold at ``d < 0`` wins, at ``d = 0`` ties: 1/2) and
    whether to roll. A bust is a loss (the final turn starts behind). ``F[d0]`` with ``d0 >= 1`` is
    also the value at the start of the turn (where holding is not allowed, and not wanted)."""
    f = np.zeros(size)
    rolls = np.zeros(size, dtype=np.bool_)
    for d in range(size):
        roll = 0.0
        for m in range(probs.shape[0]):
            best = 0.0
            for t in range(nv[m]):
                left = d - vals[m, t]
                value = 1.0 if left < 0 else f[left]
                best = max(best, value)
            roll += probs[m] * best
        hold = 0.5 if d == 0 else 0.0
        rolls[d] = roll > hold + EPS
        f[d] = roll if rolls[d] else hold
    return f, rolls


@njit(cache=True)
def final_turn_threshold(size: int, threshold: int, probs: Array, vals: Array, nv: Array) -> Array:
    """The second player's chance in the final turn when it holds at turn total ``threshold``
    whatever the deficit (the ``blind`` bot), by starting deficit ``d0``."""
    kmax = threshold + MAX_POINTS
    hold = np.zeros(kmax + MAX_POINTS + 1)
    policy = np.zeros(kmax + 1, dtype=np.bool_)
    policy[:threshold] = True
    w = np.zeros(kmax + MAX_POINTS + 1)
    dw = np.zeros(kmax + MAX_POINTS + 1)
    out = np.zeros(size)
    for d0 in range(1, size):
        for k in range(hold.shape[0]):
            left = d0 - k
            hold[k] = 1.0 if left < 0 else (0.5 if left == 0 else 0.0)
        out[d0] = sweep(hold, kmax, 0.0, probs, vals, nv, 0.0, False, policy, policy, w, dw)[0]
    return out


@njit(cache=True)
def solve_game(
    target: int,
    cap: int,
    probs: Array,
    vals: Array,
    nv: Array,
    pbust: float,
    final: Array,
    optimize: bool,
    roll_first: Array,
    roll_second: Array,
) -> tuple[Array, Array, int]:
    """Solve (``optimize``) or evaluate the two-player game.

    ``roll_first[i, j, k]`` (shape ``(T, T, cap + 1)``): A, with ``i`` against ``j``, rolls at
    turn total ``k``. ``roll_second[j, i, k]``: B likewise, shape ``(T, T, T)`` when solving (B
    never rolls once its total reaches ``T``: holding wins), ``(T, T, K + 1)`` to evaluate a
    policy that may roll on past ``T`` up to the total ``K`` (``blind``). Written when
    optimizing, read otherwise. ``final[d]``: B's chance in its final turn at deficit ``d``.
    Returns ``V_A[i, j]`` and ``V_B[j, i]`` at the start of a turn and the numeral exceptions.
    """
    va = np.zeros((target, target))
    vb = np.zeros((target, target))
    size = cap + 2 * MAX_POINTS + 2
    hold_a = np.zeros(size)
    hold_b = np.zeros(size)
    w = np.zeros(size)
    dw = np.zeros(size)
    exceptions = 0
    for s in range(2 * target - 2, -1, -1):
        for i in range(max(0, s - target + 1), min(s, target - 1) + 1):
            j = s - i
            kmax_a = cap - i
            kmax_b = roll_second.shape[2] - 1 - j
            for k in range(kmax_a + MAX_POINTS + 1):
                a = i + k
                hold_a[k] = 1.0 - (vb[j, a] if a < target else final[a - j])
            for k in range(kmax_b + MAX_POINTS + 1):
                b = j + k
                hold_b[k] = 1.0 - va[i, b] if b < target else 1.0
            ra = roll_first[i, j]
            rb = roll_second[j, i]
            y = 0.5
            for _ in range(100):
                b_value = 1.0 - y
                x0, beta, _e = sweep(hold_a, kmax_a, b_value, probs, vals, nv, pbust, optimize, ra, ra, w, dw)
                c_value = 1.0 - x0
                y0, delta, _e = sweep(hold_b, kmax_b, c_value, probs, vals, nv, pbust, optimize, rb, rb, w, dw)
                # Newton: x = x0 + beta (1 - y - b_value), y = y0 + delta (1 - x - c_value)
                x_new = (x0 + beta * (1.0 - b_value - y0 - delta * (1.0 - c_value))) / (1.0 - beta * delta)
                y_new = y0 + delta * (1.0 - x_new - c_value)
                done = abs(y_new - y) < 1e-14
                y = y_new
                if done:
                    break
            x, _d, ea = sweep(hold_a, kmax_a, 1.0 - y, probs, vals, nv, pbust, optimize, ra, ra, w, dw)
            y, _d, eb = sweep(hold_b, kmax_b, 1.0 - x, probs, vals, nv, pbust, optimize, rb, rb, w, dw)
            va[i, j] = x
            vb[j, i] = y
            exceptions += ea + eb
    return va, vb, exceptions
