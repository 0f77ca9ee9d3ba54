"""The expert with 3 to 8 seats: one plan per turn, a roll bit per turn total.

Two seats are solved exactly (:mod:`ludix.table`). With more, the state space is too large to
solve, so each turn the expert computes its plan from two parts:

- **The end of the game, exactly.** When a bank reaches the target (or the last round is on), the
  seats before this one in the round have played their last turn and every seat after it plays
  exactly one more. Holding at total ``a`` wins when ``a`` beats the seats that are done (a tie
  shares) and each seat still to play fails to end strictly above ``a``. A seat still to play
  rolls until it is strictly ahead (what ``steady``, the two-seat expert's final turn and this
  expert all do when they are last): it fails with chance ``1 - q(a - t)``, ``q(d)`` the chance
  that a turn gathers more than ``d`` points (:attr:`Policy.final_win`), independently of the
  others (its dice are its own). So the value of holding at ``a`` is exact for those players.
- **Before it, the opponents reduced to one value.** The chance of beating every opponent is
  taken from the chances of beating each one in the two-seat game (the table, with this seat
  first against the seats after it in the round and second against the seats before it), as
  their product calibrated to the number of seats (:func:`pairwise_values`). The old reduction,
  the strongest opponent alone, counts none of the others; this one counts them all, on the
  scale of the exact end (a chance of winning against all).

The plan is one backward sweep over the turn total, the two-seat solver's own
(:func:`ludix.solver.sweep`, compiled: a bust is worth holding at 0, a throw the best of its
numerals, holding the value above): well under a millisecond. The bot caches a turn's plan by what it depends on
(target, totals, seat, first player, last round): a decision is then one array lookup.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ludix import solver
from ludix.engine import DEFAULT_TARGET
from ludix.solver import MAX_POINTS
from ludix.table import Policy
from ludix.table_build import throw_arrays

PAST = 320
"""The sweep models totals up to this many points above the target or the leader (holding is
forced beyond). With seven seats still to play the first player at 299 rolls on up to 523 in a
game to 300 (``tests/ludix/test_multiseat.py`` checks that no plan rolls within 80 of the top)."""


def end_values(policy: Policy, totals: tuple[int, ...], done: list[int], later: list[int], a: np.ndarray) -> np.ndarray:
    """The exact chance of winning by holding at each total in ``a`` when the game ends with this
    round: the seats ``done`` have played their last turn, each seat of ``later`` plays one more
    (rolling until strictly ahead). A tie with seats that are done shares the win."""
    value = np.ones(len(a))
    if done:
        best = max(totals[s] for s in done)
        ties = sum(1 for s in done if totals[s] == best)
        value = np.where(a > best, 1.0, np.where(a == best, 1.0 / (1 + ties), 0.0))
    q = policy.final_win
    for s in later:
        deficit = np.clip(a - totals[s], 0, len(q) - 1)
        value = value * np.where(a - totals[s] >= len(q) - 1, 1.0, 1.0 - q[deficit])
    return value


def pairwise_values(
    policy: Policy, shift: int, totals: tuple[int, ...], done: list[int], later: list[int], a: np.ndarray
) -> np.ndarray:
    """The chance of beating every opponent after banking each total in ``a`` (all below the
    target), from the two-seat chances ``w`` of beating each one: against a seat after this one
    in the round this seat is the first player (the opponent moves next as the second), against
    one before it the second (the opponent starts the next round as the first). Combined as
    ``(prod w) ** (log2(n) / (n - 1))`` for ``n`` seats: the product, calibrated so that even
    chances (every ``w = 1/2``) give ``1/n``. The plain product treats the opponents as
    independent and is far too low (``1/2 ** (n - 1)`` at the start: with 8 seats 1/128 for a true
    1/8), which against the exact end values makes the expert rush to the target; measured, the
    calibrated product wins more than the plain one with 3 and 4 seats (RULES.md)."""
    top = policy.target - 1
    mine = np.clip(a + shift, 0, top)
    value = np.ones(len(a))
    for s in later:
        value = value * (1.0 - policy.win_second[max(0, totals[s] + shift), mine])
    for s in done:
        value = value * (1.0 - policy.win_first[max(0, totals[s] + shift), mine])
    seats = len(done) + len(later) + 1
    return value ** (math.log2(seats) / (seats - 1))


def plan(
    policy: Policy, shift: int, target: int, totals: tuple[int, ...], seat: int, first_player: int, final_round: bool
) -> np.ndarray:
    """Whether to roll at each turn total ``k`` (index) in this turn (``k = 0``: must roll;
    beyond the array: hold)."""
    n = len(totals)
    position = (seat - first_player) % n
    done = [s for s in range(n) if s != seat and (s - first_player) % n < position]
    later = [s for s in range(n) if (s - first_player) % n > position]
    own = totals[seat]
    kmax = max(target, *totals) + PAST - own
    arr = throw_arrays()
    a = own + np.arange(kmax + MAX_POINTS + 1)
    hold = np.empty(len(a))
    ends = (a >= target) | final_round
    hold[ends] = end_values(policy, totals, done, later, a[ends])
    if not final_round:
        hold[~ends] = pairwise_values(policy, shift, totals, done, later, a[~ends])
    rolls = np.zeros(kmax + 1, dtype=np.bool_)
    work = np.zeros((2, len(a)))
    solver.sweep(hold, kmax, hold[0], arr.probs, arr.vals, arr.nv, arr.pbust, True, rolls, rolls, work[0], work[1])
    rolls[0] = True
    return rolls


def warm_up() -> float:
    """Load the compiled sweep (numba's disk cache, written by ``make policy``) and plan one turn;
    returns the seconds it took (a cold process would otherwise spend them in its first decision)."""
    from ludix.bots import expert_table

    start = time.perf_counter()
    plan(*expert_table(DEFAULT_TARGET), DEFAULT_TARGET, (0, 0, 0), 0, 0, False)
    return time.perf_counter() - start
