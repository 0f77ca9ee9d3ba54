"""Benchmark: the strength and speed of Ludic's expert Seeker.

    python tests/bench/bench_ludic_bots.py [--rules 200] [--space-rules 200] [--games 30] [--seed 7]

Prints, for random rules of each difficulty of the Vexer catalogue (and for random rules of the whole
hypothesis space, sparse ones included), the expert Seeker's solve rate and the mean and worst
number of actions (queries + plays + guesses) before its correct guess, measured in the drill
(one Seeker, a deck that never runs out: `ludic/drill.py`), with the turns spent drawing apart;
the hypothesis space size; the median, p95, p99 and worst time of one decision (CPU time of the
process, and wall clock). Then whole rounds of
real 3-seat games (engine, real deck limits): how often a Seeker finds the rule.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence

from ludic.bots import BOTS, expert_seeker
from ludic.catalogue import DIFFICULTIES, vexer_rules
from ludic.drill import DrillResult, drill
from ludic.engine import LudicEngine
from ludic.space import space
from ludoteca.engine import JSON
from ludoteca.rng import Rng

MAX_ACTIONS = 80


def percentile(xs: Sequence[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


class Timed:
    """The expert Seeker, timing each decision by the wall clock and by the process' CPU clock
    (the machine may be shared: CPU time is what one decision costs)."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def __call__(self, view: JSON, legal: Sequence[JSON], rng: random.Random) -> JSON:
        wall, cpu = time.perf_counter(), time.process_time()
        action = expert_seeker(view, legal, rng)
        self.cpu.append(time.process_time() - cpu)
        self.wall.append(time.perf_counter() - wall)
        return action


def report(label: str, results: list[DrillResult]) -> None:
    solved = [r for r in results if r.solved]
    actions = [r.actions for r in solved]
    draws = [r.draws for r in solved]
    print(f"{label:<22} {len(results):>5} {100 * len(solved) / len(results):>7.1f}% "
          f"{statistics.mean(actions):>6.2f} {max(actions):>6} {statistics.mean(draws):>6.2f} "
          f"{statistics.mean(r.queries for r in solved):>6.2f} {statistics.mean(r.plays for r in solved):>6.2f} "
          f"{statistics.mean(r.guesses for r in solved):>6.2f}")


def bench_drills(n_rules: int, n_space: int, seed: int) -> None:
    started = time.perf_counter()
    sp = space()
    catalogue = vexer_rules()
    drill(catalogue[0].obey, expert_seeker, random.Random(0))  # first decisions: lazy caches
    print(f"hypothesis space: {len(sp)} distinct truth tables ({len(sp.atoms)} atoms, pairs with and/or); "
          f"loading the space and warming up the bot took {time.perf_counter() - started:.2f} s once per process")
    print(f"drill: one expert Seeker, hand of 4, endless deck, at most {MAX_ACTIONS} actions\n")
    print(f"{'rules':<22} {'n':>5} {'solved':>8} {'mean':>6} {'worst':>6} {'draws':>6} "
          f"{'query':>6} {'play':>6} {'guess':>6}   (actions before the correct guess)")
    rng = random.Random(seed)
    timed = Timed()
    everything: list[DrillResult] = []
    for level in DIFFICULTIES:
        pool = [r for r in catalogue if r.difficulty == level]
        picked = rng.sample(pool, min(n_rules, len(pool)))
        results = [drill(r.obey, timed, random.Random(rng.random()), max_actions=MAX_ACTIONS) for r in picked]
        everything += results
        report(f"catalogue: {level}", results)
    report("catalogue: all", everything)
    rows = rng.sample(range(len(sp)), n_space)
    results = [drill(sp.mask(r), timed, random.Random(rng.random()), max_actions=MAX_ACTIONS) for r in rows]
    report("space: any rule", results)
    print()
    for name, seconds in (("CPU time", timed.cpu), ("wall clock", timed.wall)):
        ms = [1000 * t for t in seconds]
        print(f"one decision, {name}: median {statistics.median(ms):.2f} ms, p95 {percentile(ms, 0.95):.2f} ms, "
              f"p99 {percentile(ms, 0.99):.2f} ms, worst {max(ms):.2f} ms over {len(ms)} decisions")


def bench_games(n_games: int, seed: int) -> None:
    """Real rounds: Vexer bot at each difficulty, an expert and a random Seeker, real deck limits."""
    engine = LudicEngine()
    print(f"\nreal 3-seat rounds (Vexer bot, expert Seeker, random Seeker; 12 cards in the deck): {n_games} each")
    for level in DIFFICULTIES:
        found = 0
        for g in range(n_games):
            players = [f"bot:{level}", "bot:expert", "bot:random"]
            state = engine.new_game(players, {"round_limit": 1}, Rng(f"{seed * 1000 + g:064x}"))
            rng = random.Random(g)
            while state.phase != "over":
                seat = min(engine.to_act(state))
                name = players[seat].split(":")[1]
                legal = engine.legal_actions(state, seat) + engine.action_templates(state, seat)
                state, _ = engine.apply(state, seat, BOTS[name](engine.view(state, seat), legal, rng))
            found += state.rounds[-1]["ended_by"] == "guess"
        print(f"  {level:<8} rule found in {100 * found / n_games:.0f}% of rounds")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rules", type=int, default=200, help="catalogue rules per difficulty")
    parser.add_argument("--space-rules", type=int, default=200, help="random rules of the whole space")
    parser.add_argument("--games", type=int, default=30, help="real rounds per difficulty")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    bench_drills(args.rules, args.space_rules, args.seed)
    if args.games:
        bench_games(args.games, args.seed)


if __name__ == "__main__":
    main()
