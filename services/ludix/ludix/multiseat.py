"""The expert with 3 to 8 seats: the end of the game, planned exactly for every seat still to play.

Two seats are solved exactly (:mod:`ludix.table`). With more the state space is too large to
solve. Below the target the expert plays the two-seat table against the strongest opponent
(:func:`ludix.bots.two_seat_rolls`); from the turn total that reaches the target on (and all
through the last round) it follows this module's plan for the turn, one roll bit per turn total:

- **Holding, exactly.** When a bank reaches the target (or the last round is on), the seats
  before this one in the round have played their last turn and every seat after it plays exactly
  one more. Holding at total ``a`` wins when ``a`` beats the seats that are done (a tie shares)
  and each seat still to play fails to end strictly above ``a``. A seat still to play rolls until
  it is strictly ahead (what ``steady``, the two-seat expert's final turn and this expert all do
  when they are last): it fails with chance ``1 - q(a - t)``, ``q(d)`` the chance that a turn
  gathers more than ``d`` points (:func:`passing`), independently of the others (its dice are its
  own). So the value of holding at ``a`` is exact against such players.
- **Busting.** In the last round a bust loses (the turn started behind the leader). Before it,
  the game goes on with this seat's total unchanged, valued from the two-seat chances of beating
  each opponent alone, combined on the scale of a chance against all (:func:`going_on`).

The plan is one backward sweep over the turn total, the two-seat solver's own
(:func:`ludix.solver.sweep`, compiled; a throw counts the best of its numerals): about a
millisecond with the numpy around it. The bot caches a turn's plan by what it depends on (target,
totals, seat, first player, last round): the turn's other decisions are one array lookup.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from ludix import solver
from ludix.engine import MAX_TARGET
from ludix.solver import MAX_POINTS
from ludix.table import Policy
from ludix.table_build import throw_arrays

PAST = 320
"""The sweep models totals up to this many points above the target or the leader (holding is
forced beyond). With seven seats still to play the first player at 299 rolls on up to 523 in a
game to 300 (``tests/ludix/test_multiseat.py`` checks that no plan rolls within 80 of the top)."""


@cache
def passing() -> np.ndarray:
    """``q(d)``: the chance that a turn rolling on gathers more than ``d`` points, for every ``d``
    a plan can meet (the two-seat solve's final turn, long enough for the largest target)."""
    arr = throw_arrays()
    q, _rolls = solver.final_turn(MAX_TARGET + PAST + 2 * MAX_POINTS, arr.probs, arr.vals, arr.nv)
    return np.asarray(q)


def end_values(totals: tuple[int, ...], done: list[int], later: list[int], low: int, count: int) -> np.ndarray:
    """The exact chance of winning by holding at each total ``low .. low + count - 1`` when the
    game ends with this round: the seats ``done`` have played their last turn, each seat of
    ``later`` plays one more, rolling until strictly ahead. A tie with seats that are done shares
    the win. (A total below a seat still to play is below the leader too: it loses whatever.)"""
    a = low + np.arange(count)
    value = np.ones(count)
    if done:
        best = max(totals[s] for s in done)
        ties = sum(1 for s in done if totals[s] == best)
        value = np.where(a > best, 1.0, np.where(a == best, 1.0 / (1 + ties), 0.0))
    fail = np.concatenate([1.0 - passing(), np.ones(count)])  # beyond: it cannot pass
    for s in later:  # the seat at t fails to pass a with chance fail[a - t]
        d = low - totals[s]
        if d >= 0:
            value *= fail[d : d + count]
        else:
            value[-d:] *= fail[: count + d]
    return value


def going_on(policy: Policy, shift: int, totals: tuple[int, ...], done: list[int], later: list[int], own: int) -> float:
    """The chance of beating every opponent when the game goes on with this seat at ``own``
    (below the target), from the two-seat chances ``w`` of beating each one alone: against a
    seat after this one in the round this seat is the first player (the opponent moves next as
    the second), against one before it the second (the opponent starts the next round as the
    first). Combined as ``(prod w) ** (log2(n) / (n - 1))`` for ``n`` seats: the product,
    calibrated so that even chances (every ``w = 1/2``) give ``1/n``. The plain product treats
    the opponents as independent and is far too low (``1/2 ** (n - 1)`` at the start: with 8
    seats 1/128 for a true 1/8), far below the exact values of holding past the target. (Tried as
    the value of every bank below the target too, it won less than the strongest-opponent rule
    with 8 seats: RULES.md.)"""
    mine = min(max(0, own + shift), policy.target - 1)
    value = 1.0
    for s in later:
        value *= 1.0 - float(policy.win_second[max(0, totals[s] + shift), mine])
    for s in done:
        value *= 1.0 - float(policy.win_first[max(0, totals[s] + shift), mine])
    seats = len(done) + len(later) + 1
    return float(value ** (math.log2(seats) / (seats - 1)))


def plan(
    policy: Policy, shift: int, target: int, totals: tuple[int, ...], seat: int, first_player: int, final_round: bool
) -> np.ndarray:
    """Whether to roll at each turn total ``k`` (index) in this turn from the total that reaches
    the target on (in the last round, from 1); below it the bits are False and unused (and no
    decision is asked at 0: one follows a valid throw); beyond the array: hold."""
    n = len(totals)
    position = (seat - first_player) % n
    done = [s for s in range(n) if s != seat and (s - first_player) % n < position]
    later = [s for s in range(n) if (s - first_player) % n > position]
    own = totals[seat]
    kmax = max(target, *totals) + PAST - own
    size = kmax + MAX_POINTS + 1
    ends = 0 if final_round else max(0, target - own)  # from this turn total on, the game ends
    hold = np.empty(size)
    hold[ends:] = end_values(totals, done, later, own + ends, size - ends)
    # a bust: the game goes on with this seat's total unchanged (in the last round: lost)
    bust = 0.0 if final_round else going_on(policy, shift, totals, done, later, own)
    hold[:ends] = bust  # not planned below the target (the two-seat rule decides there)
    rolls = np.zeros(kmax + 1, dtype=np.bool_)
    work = np.zeros((2, size))
    arr = throw_arrays()
    solver.sweep(hold, kmax, bust, arr.probs, arr.vals, arr.nv, arr.pbust, True, rolls, rolls, work[0], work[1])
    rolls[:ends] = False
    return rolls
