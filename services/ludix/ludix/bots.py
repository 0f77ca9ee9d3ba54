"""Ludix bots: pure functions of a seat's view (never the state).

- ``random``: any legal action, uniformly.
- ``steady``: holds once its turn total (best numeral counted) reaches :func:`steady_threshold`,
  the threshold that maximizes the expected points of a turn, and on reaching the target; in
  the last round it plays to beat the leader (:func:`steady_rolls`).
- ``blind``: the same threshold whatever the scores, target and round (the old ``steady``).
- ``expert``: maximizes its chance of winning with the solved two-player game
  (:mod:`ludix.table`), the last round's completion included. With more than two seats it plans
  each turn (:mod:`ludix.multiseat`, see :func:`expert_rolls`): the end of the game exact for
  every seat still to play, below the target the two-seat chances against every opponent.

Every bot calls "Alea jacta est" when it may, takes the best numeral (the solve proves no other
numeral is ever strictly better for the expert), and answers with one of its legal actions.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from functools import cache, lru_cache
from typing import Any

import numpy as np
from ludoteca.core.engine import JSON, Bot

from ludix import multiseat
from ludix.engine import CALL, DEFAULT_TARGET, HOLD, ROLL
from ludix.numerals import odds
from ludix.table import Policy, has_table, read_table

View = Mapping[str, Any]


# -- steady ---------------------------------------------------------------------------------
@cache
def steady_threshold() -> int:
    """The turn total at which holding maximizes the expected points of a turn.

    One more throw at turn total ``k`` gains ``E - p k`` on average (``E = 836/27`` expected
    points of a throw, ``p = 23/81`` the bust chance). The gain falls as ``k`` grows and ``k``
    only grows within a turn, so this is a monotone stopping problem: the one-step rule "roll
    while ``E - p k > 0``" is optimal (the tests also check it against every other threshold).
    ``E / p = 2508/23 = 109.04``: roll up to 109, hold from 110. Ties (none here) would hold.
    """
    limit = odds().expected_points / odds().bust_probability
    return math.ceil(limit)


def expected_turn_points(threshold: int) -> Fraction:
    """Exact expected points banked in one turn by "roll until the turn total reaches
    ``threshold``, best numeral each time"."""
    throws = [(t.probability, t.best.value) for t in odds().valid if t.best]
    value: dict[int, Fraction] = {}
    for k in range(threshold + 80, -1, -1):
        if k >= threshold and k > 0:
            value[k] = Fraction(k)
        else:
            value[k] = sum((p * value[k + v] for p, v in throws), Fraction(0))
    return value[0]


def steady_rolls(view: View, turn_total: int) -> bool:
    """Hold at 110, with the end of the game in view: in the last round (someone reached the
    target) roll while not strictly ahead of the leader and hold once ahead; before it, hold at
    110 or on reaching the target (which, for the seat that closes the round, wins the game)."""
    seat = int(view["seat"])
    totals = [int(t) for t in view["totals"]]
    mine = totals[seat] + turn_total
    if view["final_round"]:
        return mine <= max(t for s, t in enumerate(totals) if s != seat)
    return turn_total < steady_threshold() and mine < int(view["target"])


def blind_rolls(view: View, turn_total: int) -> bool:
    """Hold at 110 whatever the scores (past the target, or behind in the last turn)."""
    return turn_total < steady_threshold()


# -- expert ---------------------------------------------------------------------------------
@cache
def expert_table(target: int) -> tuple[Policy, int]:
    """The table the expert plays with for a game to ``target`` and the shift from game scores
    to table scores.

    The game to ``T`` from scores ``(i, j)`` is exactly the game to 300 from ``(i + 300 - T,
    j + 300 - T)`` (only the distance to the target and the difference of totals matter), so
    for ``T <= 300`` the default table is exact. Without the default table on disk a smaller
    target gets its own (fast) solve. Above 300 the shift is negative and scores are clamped at 0:
    an approximation (distances to the target beyond 300 are played as 300)."""
    if target >= DEFAULT_TARGET or has_table(DEFAULT_TARGET):
        return solved_table(DEFAULT_TARGET), DEFAULT_TARGET - target
    return solved_table(target), 0


def solved_table(target: int) -> Policy:
    """The table from its file; only when there is none (or a stale one), solved here, once per
    process (the build step's solver: numba compiles it first)."""
    try:
        return read_table(target)
    except (OSError, ValueError, KeyError):
        from ludix.table_build import table

        return table(target)


def expert_rolls(view: View, turn_total: int) -> bool:
    """Whether the expert rolls at ``turn_total`` (the pending throw's numeral counted).

    Two seats: the exact table. More seats: the turn's plan (:mod:`ludix.multiseat`), one sweep
    over the turn total with holding valued exactly for every seat still to play once a bank
    reaches the target (and in the last round), and below it from the two-seat chances against
    each opponent, the strongest counted most."""
    totals = tuple(int(t) for t in view["totals"])
    if len(totals) == 2:
        return two_seat_rolls(view, turn_total)
    bits = turn_plan(int(view["target"]), totals, int(view["seat"]), int(view["first_player"]),
                     bool(view["final_round"]))  # fmt: skip
    return turn_total < len(bits) and bool(bits[turn_total])


@lru_cache(maxsize=4096)
def turn_plan(target: int, totals: tuple[int, ...], seat: int, first_player: int, final_round: bool) -> np.ndarray:
    """The expert's roll bit per turn total for one turn of 3 or more seats, once per turn."""
    policy, shift = expert_table(target)
    return multiseat.plan(policy, shift, target, totals, seat, first_player, final_round)


def two_seat_rolls(view: View, turn_total: int) -> bool:
    """The two-seat table; with more seats the reduction to the strongest opponent (the highest
    total among the others): the expert is the "second player" when its turn closes the round (the
    next seat is the first player) and the "first player" otherwise. Exact with two seats. With
    more, its last round "beat the leader" whatever the seats still to play, it is the old expert
    (the first multi-seat one), which the benchmark plays against the new one."""
    seat = int(view["seat"])
    totals = [int(t) for t in view["totals"]]
    own = totals[seat]
    other = max(t for s, t in enumerate(totals) if s != seat)
    policy, shift = expert_table(int(view["target"]))
    if view["final_round"]:
        return policy.final_rolls(other - own - turn_total)
    own, other = max(0, own + shift), max(0, other + shift)
    if (seat + 1) % len(totals) == view["first_player"]:
        return policy.second_rolls(own, other, turn_total)
    return policy.first_rolls(own, other, turn_total)


# -- the bots -------------------------------------------------------------------------------
def random_bot(view: JSON, legal: Sequence[JSON], rng: random.Random) -> JSON:
    return rng.choice(list(legal))


def _playing_bot(rolls: Callable[[View, int], bool]) -> Bot:
    """A bot that calls when it may, rolls to start a turn and, after a valid throw, takes the
    best numeral and rolls when ``rolls(view, turn_total_with_that_numeral)``."""

    def bot(view: JSON, legal: Sequence[JSON], rng: random.Random) -> JSON:
        types = {a["type"] for a in legal}
        if CALL in types:
            return {"type": CALL}
        throw = view.get("throw")
        if not throw:
            return {"type": ROLL}
        turn_total = int(view["turn_total"]) + int(throw["numerals"][0]["value"])
        return {"type": ROLL if rolls(view, turn_total) else HOLD}

    return bot


steady_bot = _playing_bot(steady_rolls)
blind_bot = _playing_bot(blind_rolls)
expert_bot = _playing_bot(expert_rolls)

BOTS: dict[str, Bot] = {"random": random_bot, "blind": blind_bot, "steady": steady_bot, "expert": expert_bot}


def warm_up() -> float:
    """Load the multi-seat expert's compiled sweep (numba's disk cache, written by ``make policy``)
    and plan one turn; returns the seconds it took (a cold process would otherwise spend them in
    its first decision)."""
    start = time.perf_counter()
    multiseat.plan(*expert_table(DEFAULT_TARGET), DEFAULT_TARGET, (0, 0, 0), 0, 0, False)
    return time.perf_counter() - start
