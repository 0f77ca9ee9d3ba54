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


DECAY_MANY = 0.5
"""The weights' decay with 5 to 8 seats (:func:`decay`), chosen by paired games against old
experts with 8 seats (RULES.md); with 3 and 4 seats the calibrated decay."""


@cache
def decay(seats: int) -> float:
    """The decay ``g`` of the weights ``1, g, g^2, ...`` of the opponents, strongest first: with
    3 and 4 seats the one whose weights sum to ``log2(seats)`` (even chances then give exactly
    ``1/seats``, with no scale), with more :data:`DECAY_MANY`."""
    if seats > 4:
        return DECAY_MANY
    lo, hi = 0.0, 1.0
    for _ in range(60):
        g = (lo + hi) / 2
        lo, hi = (g, hi) if sum(g**i for i in range(seats - 1)) < math.log2(seats) else (lo, g)
    return (lo + hi) / 2


def going_on(policy: Policy, shift: int, totals: tuple[int, ...], done: list[int], later: list[int],
             own: np.ndarray) -> np.ndarray:  # fmt: skip
    """The chance of winning when the game goes on with this seat at each total of ``own`` (below
    the target), from the two-seat chances ``w`` of beating each opponent alone: against a seat
    after this one in the round this seat is the first player (the opponent moves next as the
    second), against one before it the second (the opponent starts the next round as the first).
    The chances are sorted, the strongest opponent (lowest ``w``) first, and combined as
    ``C * prod w_i ** (g ** i)``: the strongest opponent counts fully (with two seats this is the
    exact table), each next one less (``g`` = :func:`decay`), and ``C`` makes even chances (every
    ``w = 1/2``) give ``1/n`` for ``n`` seats. The plain product (every weight 1) treats the
    opponents as independent and is far too low (``1/2 ** (n - 1)`` at the start: with 8 seats
    1/128 for a true 1/8); equal weights calibrated to ``1/n`` lost to the old expert with 8
    seats (RULES.md)."""
    mine = np.clip(own + shift, 0, policy.target - 1)
    chances = [1.0 - policy.win_second[max(0, totals[s] + shift), mine].astype(np.float64) for s in later]
    chances += [1.0 - policy.win_first[max(0, totals[s] + shift), mine].astype(np.float64) for s in done]
    return combine(np.array(chances))


def combine(chances: np.ndarray) -> np.ndarray:
    """``chances[i, j]``: the two-seat chance of beating opponent ``i`` at the ``j``-th total;
    returns the chance of beating all of them (:func:`going_on`): sorted per total, lowest first,
    ``C * prod w_i ** (g ** i)``."""
    n = chances.shape[0] + 1
    weights = decay(n) ** np.arange(n - 1)
    scale = (1.0 / n) / 0.5 ** float(weights.sum())
    ranked = np.sort(chances, axis=0)
    value = scale * np.exp((weights[:, None] * np.log(np.maximum(ranked, 1e-300))).sum(axis=0))
    return np.asarray(np.minimum(1.0, value))


def plan(
    policy: Policy, shift: int, target: int, totals: tuple[int, ...], seat: int, first_player: int, final_round: bool
) -> np.ndarray:
    """Whether to roll at each turn total ``k`` (index) in this turn (no decision is asked at 0:
    one follows a valid throw); beyond the array: hold. Holding below the target is valued by
    :func:`going_on`, from the target on (and all through the last round) by :func:`end_values`."""
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
    bust = 0.0  # in the last round a bust loses
    if not final_round:  # below the target the game goes on; a bust leaves this seat at own
        hold[:ends] = going_on(policy, shift, totals, done, later, own + np.arange(ends))
        bust = float(hold[0])
    rolls = np.zeros(kmax + 1, dtype=np.bool_)
    work = np.zeros((2, size))
    arr = throw_arrays()
    solver.sweep(hold, kmax, bust, arr.probs, arr.vals, arr.nv, arr.pbust, True, rolls, rolls, work[0], work[1])
    return rolls
