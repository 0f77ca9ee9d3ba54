"""Ludix bots: strength and speed, printed (no assertions).

    python tests/bench/bench_ludix_bots.py [--quick] [--games 200000] [--engine-games 2000]
                                           [--table-blocks 5000] [--duel-blocks 30000] [--seed 1]

Prints, for the target 300:
1. the exact chance that ``expert`` wins against itself from the first seat (solved table, and
   re-derived in float64 by evaluating the table's policy against itself);
2. ``expert`` against ``steady`` and against ``blind`` (two seats) by exact policy evaluation, per
   seat and averaged over the seats (who starts alternates);
3. a Monte Carlo simulation of the same matches (numba, straight from the rules and the tables,
   seats alternating) with its standard error and its distance to (2) in standard errors;
4. the match against steady played through the engine and the bot functions (fewer games);
5. the time of one expert decision (the bot called with a view), median and 99th percentile;
6. the decision time of every level (p50/p99/max, ms) on the views of (4): ``expert`` and
   ``steady`` as they play, ``random`` and ``blind`` called on every view too (answers unused);
7. 3, 4 and 8 seats: one expert among sensible ``steady`` bots, the expert against the old one
   (the two-seat table against the strongest opponent, ``ludix.bots.two_seat_rolls``), paired;
8. head to head: one expert among old ones against an old one in its seat (parity ``1/n``);
9. the expert's decision time in (7) and (8), wall clock and CPU (the first decision of a turn
   builds the turn's plan).
(7) and (8) play paired blocks (:func:`table_match`): one block is one game's dice, drawn per
seat, per turn and per throw (:class:`Dice`, common random numbers), played ``n`` times for each of
the two players compared, the tested player in each seat once; the figure per block is the tested
player's share averaged over the seats, and the standard error of a difference is the standard
deviation of the per-block differences over the square root of the number of blocks.
A shared win counts one half everywhere (``1/k`` for ``k`` sharing). ``--quick`` (20,000
simulated games, 300 through the engine, 300 blocks per table against steady, 1,000 head to
head; under a minute) prints the same figures with their sample sizes and standard errors, and
takes the exact (1) and (2) from the last run with the same table file when there was one (they
cost 30 to 90 s); RULES.md gives the command behind each figure. Progress goes to stderr every
few seconds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from itertools import product
from typing import Any

import numpy as np
from bot_timing import Decisions, percentile, progress, sizes
from ludix.bots import BOTS, expert_rolls, steady_rolls, steady_threshold, two_seat_rolls, warm_up
from ludix.engine import MAX_ROUNDS, LudixEngine, LudixState
from ludix.numerals import FACES, canonical, numerals_of
from ludix.table import Policy, table_path
from ludix.table_build import blind_policy, evaluate, steady_policy, table, versus
from ludoteca.core.rng import Rng
from numba import njit

TARGET = 300


def throw_table() -> np.ndarray:
    """Best value of each of the 6^4 ordered outcomes of the four dice (-1: bust)."""
    out = np.full(6**4, -1, dtype=np.int64)
    for index, faces in enumerate(product(range(6), repeat=4)):
        numerals = numerals_of(canonical(FACES[f] for f in faces))
        if numerals:
            out[index] = numerals[0].value
    return out


@njit(cache=True)
def _bit(packed: np.ndarray, a: int, b: int, k: int) -> bool:
    return ((packed[a, b, k >> 3] >> (7 - (k & 7))) & 1) == 1


@njit(cache=True)
def _expert_rolls(
    mover: int, own: int, other: int, k: int, target: int, cap: int,
    roll_first: np.ndarray, roll_second: np.ndarray, final_roll: np.ndarray,
) -> bool:  # fmt: skip
    if mover == 1 and other >= target:  # the second player's final turn
        deficit = other - own - k
        if deficit < 0:
            return False
        return deficit >= final_roll.shape[0] or final_roll[deficit]
    if mover == 0:
        return own + k <= cap and _bit(roll_first, own, other, k)
    return own + k < target and _bit(roll_second, own, other, k)


@njit(cache=True)
def simulate(
    games: int, seed: int, offset: int, target: int, cap: int, threshold: int, sensible: bool,
    throws: np.ndarray, roll_first: np.ndarray, roll_second: np.ndarray, final_roll: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """Expert vs hold-at-``threshold``: ``steady`` (``sensible``: it holds on reaching the target
    and in its last turn rolls while not strictly ahead) or ``blind``; even games the expert is
    first. Returns the expert's
    score per game (1 win, 1/2 shared, 0 loss). Games ``offset`` to ``offset + games``: the
    generator is seeded at game 0 only, so consecutive chunks play the games of one call."""
    if offset == 0:
        np.random.seed(seed)
    scores = np.zeros(games)
    for g in range(games):
        expert = 0 if (g + offset) % 2 == 0 else 1  # the expert's position: 0 first, 1 second
        totals = np.zeros(2, dtype=np.int64)
        mover = 0
        while True:
            own, other = totals[mover], totals[1 - mover]
            k = 0
            while True:
                index = 0
                for _ in range(4):
                    index = index * 6 + np.random.randint(0, 6)
                value = throws[index]
                if value < 0:
                    k = 0
                    break
                k += value
                if mover == expert:
                    rolls = _expert_rolls(mover, own, other, k, target, cap, roll_first, roll_second, final_roll)
                elif sensible and mover == 1 and other >= target:  # steady's last turn
                    rolls = own + k <= other
                else:
                    rolls = k < threshold and (own + k < target or not sensible)
                if not rolls:
                    break
            totals[mover] += k
            if mover == 1 and max(totals[0], totals[1]) >= target:
                break
            mover = 1 - mover
        mine, theirs = totals[expert], totals[1 - expert]
        scores[g] = 1.0 if mine > theirs else (0.5 if mine == theirs else 0.0)
    return scores


def exact_values(policy: Policy, threshold: int, reuse: bool) -> tuple[dict[str, float], str]:
    """(1) and (2): the table's policy evaluated exactly (float64; 10 to 30 s each) against itself
    (``selfplay``: the first seat's chance) and against ``steady`` and ``blind`` (``<level>_first``,
    ``<level>_second``: the expert's chance from each seat). Every run keeps them beside the
    table, under the table file's SHA-256; ``reuse`` (the quick mode) takes them from there when
    the table is the same. Returns the values and a note saying where they came from."""
    path = table_path(TARGET)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    cache = path.with_suffix(".bench.json")
    key = {"table_sha256": digest, "threshold": threshold, "levels": ["steady", "blind"]}
    if reuse and cache.exists():
        stored = json.loads(cache.read_text())
        if stored.get("key") == key:
            return stored["values"], f" (exact; kept from {cache.name})"
    print("   ... evaluating the table's policy exactly, against itself, steady and blind (30 to 90 s)",
          file=sys.stderr, flush=True)
    first, second = policy.unpacked()
    values = {"selfplay": float(evaluate(TARGET, policy.cap, first, second, policy.final_win)[0, 0])}
    opponents = {"steady": lambda: steady_policy(policy, threshold),
                 "blind": lambda: blind_policy(TARGET, policy.cap, threshold)}
    for level, bits in opponents.items():
        values[f"{level}_first"], values[f"{level}_second"] = versus(policy, bits())
        print(f"   ... against {level}: done", file=sys.stderr, flush=True)
    cache.write_text(json.dumps({"key": key, "values": values}))
    return values, ""


def simulate_chunks(games: int, seed: int, *args: object) -> np.ndarray:
    """:func:`simulate` in ten calls (the same games), with a progress line between them."""
    tick = progress("simulated games")
    chunks, done = [], 0
    while done < games:
        n = min(max(1, games // 10), games - done)
        chunks.append(simulate(n, seed, done, *args))
        done += n
        tick(done, games)
    return np.concatenate(chunks)


def engine_match(games: int, seed: int, decisions: Decisions) -> tuple[float, float, list[float]]:
    """Expert vs steady through the engine and the bot functions; also times expert decisions
    (with a pending throw), and every level's decisions into ``decisions``."""
    engine = LudixEngine()
    rnd = random.Random(seed)
    shadow = random.Random(seed + 1)  # the random and blind bots', called on every view, unused
    total = 0.0
    timings: list[float] = []
    tick = progress("games through the engine")
    for g in range(games):
        players = ["bot:expert", "bot:steady"] if g % 2 == 0 else ["bot:steady", "bot:expert"]
        state: LudixState = engine.new_game(players, {"target": TARGET}, Rng(f"{seed:016x}{g:048x}"))
        state, _ = engine.apply(state, 0, {"type": "alea_jacta_est"})
        while (result := engine.result(state)) is None:
            (seat,) = engine.to_act(state)
            view, legal = engine.view(state, seat), engine.legal_actions(state, seat)
            level = players[seat][4:]
            action = decisions.call(level, BOTS[level], view, legal, rnd)
            if level == "expert" and view["throw"]:
                timings.append(decisions.seconds[level][-1])
            for other in ("random", "blind"):
                decisions.call(other, BOTS[other], view, legal, shadow)
            state, _ = engine.apply(state, seat, action)
        tick(g + 1, games)
        expert = g % 2
        if expert in result.winners:
            total += 1 / len(result.winners)
    rate = total / games
    return rate, math.sqrt(rate * (1 - rate) / games), timings


# -- 3 to 8 seats ----------------------------------------------------------------------------
Rolls = Callable[[dict[str, Any], int], bool]
PLAYERS: dict[str, Rolls] = {"steady": steady_rolls, "old": two_seat_rolls, "new": expert_rolls}
"""The decision functions of the bots themselves (``old``: the two-seat table against the
strongest opponent everywhere, the first multi-seat expert; ``new``: today's expert)."""
SEATS = (3, 4, 8)


ROWS, THROWS = 48, 48
"""Each seat's dice for a game are drawn in advance: row ``r`` is its ``r``-th turn, throw ``i``
of that turn is column ``i`` (a turn that lasts longer, or a seat with more turns, draws its row
from its own generator, seeded by the game, the seat and the turn)."""


class Dice:
    """The dice of one game, by seat, turn and throw (common random numbers): a seat's ``r``-th
    turn throws the same dice whatever the other seats, or this seat in its earlier turns, did.
    Two lineups played on one ``Dice`` differ only where their decisions differ; even after a
    decision that differs, the other seats keep their throws."""

    def __init__(self, seed: Sequence[int], seats: int, faces: int) -> None:
        self.seed, self.faces = list(seed), faces
        self.rows = np.random.default_rng(self.seed).integers(0, faces, size=(seats, ROWS, THROWS)).tolist()
        self.extra: dict[tuple[int, int], list[int]] = {}

    def turn(self, seat: int, r: int) -> Callable[[int], int]:
        """The ``i``-th throw (an index into the 6^4 outcomes) of ``seat``'s ``r``-th turn."""
        row = self.rows[seat][r] if r < ROWS else None

        def throw(i: int) -> int:
            if row is not None and i < THROWS:
                return int(row[i])
            key = (seat, r)
            more = self.extra.get(key)
            if more is None or i >= len(more):
                rng = np.random.default_rng([*self.seed, seat, r])
                more = rng.integers(0, self.faces, size=max(1024, 2 * i)).tolist()
                self.extra[key] = more
            return int(more[i])

        return throw


def table_game(players: Sequence[Rolls], throws: list[int], dice: Dice, timings: list[tuple[float, float]] | None,
               watch: tuple[int, Rolls] | None = None) -> tuple[list[float], bool]:  # fmt: skip
    """One game to :data:`TARGET` by the rules (seat 0 first, the last round completed), each
    seat deciding with its function on the view's fields it reads, on ``dice``. Returns each
    seat's score (1 a win, 1/n a win shared by n) and, with ``watch = (seat, other)``, whether
    ``other`` would have decided differently from that seat's player at one of its decisions (if
    not, the game with ``other`` in the seat is this very game). ``timings`` gets the seconds of
    the decisions of :func:`ludix.bots.expert_rolls`."""
    n = len(players)
    totals = [0] * n
    final, seat, rounds, differs = False, 0, 1, False
    while True:
        view = {"seat": seat, "totals": tuple(totals), "target": TARGET, "first_player": 0, "final_round": final}
        decide = players[seat]
        throw = dice.turn(seat, rounds - 1)
        k, i = 0, 0
        while True:
            value = throws[throw(i)]
            i += 1
            if value < 0:
                k = 0
                break
            k += value
            if timings is not None and decide is expert_rolls:
                start, cpu = time.perf_counter(), time.thread_time()
                rolls = decide(view, k)
                timings.append((time.perf_counter() - start, time.thread_time() - cpu))
            else:
                rolls = decide(view, k)
            if watch is not None and seat == watch[0] and not differs:
                differs = watch[1](view, k) != rolls
            if not rolls:
                break
        totals[seat] += k
        final = final or totals[seat] >= TARGET
        if seat == n - 1:
            if final or rounds == MAX_ROUNDS:
                break
            rounds += 1
        seat = (seat + 1) % n
    best = max(totals)
    winners = [s for s in range(n) if totals[s] == best]
    return [1 / len(winners) if s in winners else 0.0 for s in range(n)], differs


def table_match(label: str, blocks: int, seed: int, seats: int, tested: tuple[str, str], others: str,
                timings: list[tuple[float, float]] | None = None,
                players: Mapping[str, Rolls] | None = None) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Paired blocks: block ``b`` draws one game's dice (:class:`Dice`) and plays it ``seats``
    times for each of the two ``tested`` players, once with the tested player in each seat (the
    others ``others``); both players meet exactly the same dice in the same seat. Returns each
    player's mean score per block (its share averaged over the seats; parity ``1/seats``). The
    second player's game is only played when its decisions would differ somewhere from the
    first's (otherwise it is the same game, the same score)."""
    play = {**PLAYERS, **(players or {})}
    throws = [int(x) for x in throw_table()]
    a, b = np.zeros(blocks), np.zeros(blocks)
    tick = progress(label)
    for block in range(blocks):
        dice = Dice([seed, seats, block], seats, len(throws))
        for seat in range(seats):
            lineup = [play[others]] * seats
            lineup[seat] = play[tested[0]]
            scores, differs = table_game(lineup, throws, dice, timings, (seat, play[tested[1]]))
            a[block] += scores[seat] / seats
            if differs:
                lineup[seat] = play[tested[1]]
                scores, _ = table_game(lineup, throws, dice, timings)
            b[block] += scores[seat] / seats
        tick(block + 1, blocks)
    return a, b


def mean_and_se(x: np.ndarray) -> tuple[float, float]:
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(len(x)))


def in_se(x: float, se: float) -> str:
    """``x`` in standard errors (a paired difference with no differing game has none)."""
    return f"{x / se:+.1f} SE" if se > 0 else "no game differed"


def paired(label: str, a: np.ndarray, b: np.ndarray) -> str:
    """The paired difference of two players' block means, with its standard error per block:
    ``sd(a_b - b_b) / sqrt(blocks)``, the blocks independent (their own dice)."""
    (ma, sa), (mb, sb) = mean_and_se(a), mean_and_se(b)
    diff, diff_se = mean_and_se(a - b)
    return (f"{label} {ma:.4f} +/- {sa:.4f} vs {mb:.4f} +/- {sb:.4f}; difference {100 * diff:+.3f} "
            f"+/- {100 * diff_se:.3f} points (per block) = {in_se(diff, diff_se)}")  # fmt: skip


def multiseat(blocks: int, duels: int, seed: int) -> None:
    """(7) and (8): 3, 4 and 8 seats, the expert and the old one against tables of steady, and
    head to head, the expert against old ones; (9) the expert's decision time there. Each block
    is one game's dice played with the tested player in every seat (:func:`table_match`)."""
    print(f"   (the multi-seat sweep loaded and run once, as a worker does before forking: {warm_up():.2f} s)")
    timings: list[tuple[float, float]] = []
    for seats in SEATS:
        new, old = table_match(f"{seats} seats vs steady", blocks, seed, seats, ("new", "old"), "steady", timings)
        print(paired(f"7. {seats} seats, one expert among {seats - 1} steady (parity {1 / seats:.4f}), "
                     f"{blocks} blocks of {seats} games: expert vs old expert", new, old))  # fmt: skip
    for seats in SEATS:
        new, old = table_match(f"{seats} seats head to head", duels, seed + 1, seats, ("new", "old"), "old", timings)
        print(paired(f"8. {seats} seats, one expert among {seats - 1} old experts, {duels} blocks of {seats} games: "
                     f"expert vs an old one in its seat (exactly parity {1 / seats:.4f})", new, old))  # fmt: skip
    for name, column in (("wall clock", 0), ("CPU", 1)):
        ms = sorted(1000 * t[column] for t in timings)
        print(f"9. expert decisions in (7) and (8), {len(ms)} (the first of a turn builds its plan), {name}: "
              f"median {statistics.median(ms):.3f} ms, p99 {percentile(ms, 0.99):.3f} ms, max {ms[-1]:.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    args = sizes(parser, {"games": 200_000, "engine_games": 2_000, "table_blocks": 5_000, "duel_blocks": 30_000,
                  "seed": 1},
                 {"games": 20_000, "engine_games": 300, "table_blocks": 300, "duel_blocks": 1_000})

    start = time.perf_counter()
    policy: Policy = table(TARGET)
    print(f"table {table_path(TARGET)} ready in {time.perf_counter() - start:.2f} s (load, or build if absent)")
    threshold = steady_threshold()
    print(f"steady and blind hold at turn total {threshold}")

    values, cached = exact_values(policy, threshold, reuse=args.quick)
    selfplay = values["selfplay"]
    print(f"1. expert vs expert, first seat wins: {selfplay:.6f} (table float32: {policy.win_first[0, 0]:.6f}); "
          f"second seat: {1 - selfplay:.6f}{cached}")  # fmt: skip

    exact = {}
    for level in ("steady", "blind"):
        first, second = values[f"{level}_first"], values[f"{level}_second"]
        exact[level] = (first + second) / 2
        print(f"2. expert vs {level}, exact: {first:.6f} as first, {second:.6f} as second, "
              f"{exact[level]:.6f} averaged over the seats{cached}")  # fmt: skip

    for level in ("steady", "blind"):
        start = time.perf_counter()
        scores = simulate_chunks(args.games, args.seed, TARGET, policy.cap, threshold, level == "steady",
                                 throw_table(), policy.roll_first, policy.roll_second, policy.final_roll)  # fmt: skip
        seconds = time.perf_counter() - start
        rate, se = mean_and_se(scores)
        print(f"3. simulation vs {level}, {args.games} games (seats alternating, {seconds:.1f} s): {rate:.4f} +/- "
              f"{se:.4f} (1 SE); {(rate - exact[level]) / se:+.2f} SE from the exact value")  # fmt: skip

    start = time.perf_counter()
    decisions = Decisions()
    rate, se, timings = engine_match(args.engine_games, args.seed, decisions)
    seconds = time.perf_counter() - start
    print(f"4. vs steady through the engine and the bots, {args.engine_games} games ({seconds:.1f} s): {rate:.4f} "
          f"+/- {se:.4f}; {(rate - exact['steady']) / se:+.2f} SE from the exact value")  # fmt: skip

    timings.sort()
    p99 = timings[int(0.99 * (len(timings) - 1))]
    median = statistics.median(timings) * 1e6
    print(f"5. expert decision (view -> action), {len(timings)} decisions: median {median:.1f} us, "
          f"p99 {p99 * 1e6:.1f} us")  # fmt: skip
    print("6. ", end="")
    decisions.table(f"{args.engine_games} games of (4)", list(BOTS))
    multiseat(args.table_blocks, args.duel_blocks, args.seed)


if __name__ == "__main__":
    main()
