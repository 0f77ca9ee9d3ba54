"""Benchmark: the strength and speed of Ludic's expert Seeker.

    python tests/bench/bench_ludic_bots.py [--quick] [--rules 200] [--space-rules 200] [--human 165]
        [--games 30] [--level-rounds 10] [--seed 7]

Prints, for random rules of each difficulty band of the Vexer catalogue (and for random rules of the
whole hypothesis space, sparse ones included), the expert Seeker's solve rate and the mean and worst
number of actions (queries + plays + guesses) before its correct guess, with its standard error,
measured in the drill (one Seeker, a deck that never runs out: `ludic/drill.py`) against the Vexer
bot's hints (the counterexample that tells least), with the turns spent drawing apart; then the
rules written the way people write them (`tests/ludic/human_rules.txt`, `--human` drills in all,
at most 40 actions each): how often the expert finds them within 40 actions;
the hypothesis space size; the median, p95, p99 and worst time of one decision (CPU time of the
process, and wall clock). Then whole rounds of
real 3-seat games (engine, real deck limits): the Vexer bot of each band against two expert Seekers
and against an expert and a random one: how often a Seeker finds the rule, and the Vexer's points. Last, the
decision time (p50/p99, ms) of every bot level in each role: ``--level-rounds`` rounds per level
with all three seats at that level, and the decisions of the rounds above.
``--quick`` (well under a minute) prints the same figures from fewer rules and rounds, with sample sizes
and standard errors; the figures in RULES.md come from the full defaults. Progress goes to
stderr every few seconds.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence
from pathlib import Path

from bot_timing import Decisions, mean_se, percentile, progress, proportion_se, sizes
from ludic.bots import BOTS, expert_seeker, least_telling
from ludic.catalogue import DIFFICULTIES, vexer_rules
from ludic.drill import DrillResult, drill
from ludic.engine import LudicEngine
from ludic.space import space
from ludic.tables import table_of
from ludoteca.core.engine import JSON
from ludoteca.core.rng import Rng

MAX_ACTIONS = 80
HUMAN_ACTIONS = 40
HUMAN_RULES = Path(__file__).parents[1] / "ludic" / "human_rules.txt"


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
          f"{statistics.mean(actions):>6.2f} ±{mean_se(actions):>5.2f} {max(actions):>6} "
          f"{statistics.mean(draws):>6.2f} "
          f"{statistics.mean(r.queries for r in solved):>6.2f} {statistics.mean(r.plays for r in solved):>6.2f} "
          f"{statistics.mean(r.guesses for r in solved):>6.2f}")


def vexer_hint(view: JSON, rule: int, wrong: list[int]) -> int:
    return least_telling(space(), view, rule, wrong)


def bench_drills(n_rules: int, n_space: int, seed: int) -> None:
    started = time.perf_counter()
    sp = space()
    catalogue = vexer_rules()
    drill(catalogue[0].obey, expert_seeker, random.Random(0))  # first decisions: lazy caches
    print(f"hypothesis space: {len(sp)} distinct truth tables ({len(sp.atoms)} atoms, pairs with and/or); "
          f"loading the space and warming up the bot took {time.perf_counter() - started:.2f} s once per process")
    print(f"drill: one expert Seeker, hand of 4, endless deck, at most {MAX_ACTIONS} actions, the Vexer bot's hints\n")
    print(f"{'rules':<22} {'n':>5} {'solved':>8} {'mean':>6} {'(SE)':>6} {'worst':>6} {'draws':>6} "
          f"{'query':>6} {'play':>6} {'guess':>6}   (actions before the correct guess)")
    rng = random.Random(seed)
    timed = Timed()
    everything: list[DrillResult] = []
    tick = progress("drills")
    total = n_rules * len(DIFFICULTIES) + n_space

    def drills(rules: Sequence[int]) -> list[DrillResult]:
        out = []
        for rule in rules:
            out.append(drill(rule, timed, random.Random(rng.random()), max_actions=MAX_ACTIONS, vexer=vexer_hint))
            tick(len(everything) + len(out), total)
        return out

    for level in DIFFICULTIES:
        pool = [r for r in catalogue if r.difficulty == level]
        picked = rng.sample(pool, min(n_rules, len(pool)))
        results = drills([r.obey for r in picked])
        everything += results
        report(f"catalogue: {level}", results)
    report("catalogue: all", everything)
    rows = rng.sample(range(len(sp)), n_space)
    results = drills([sp.mask(r) for r in rows])
    report("space: any rule", results)
    print()
    for name, seconds in (("CPU time", timed.cpu), ("wall clock", timed.wall)):
        ms = [1000 * t for t in seconds]
        print(f"one decision, {name}: median {statistics.median(ms):.2f} ms, p95 {percentile(ms, 0.95):.2f} ms, "
              f"p99 {percentile(ms, 0.99):.2f} ms, worst {max(ms):.2f} ms over {len(ms)} decisions")


def bench_human(n_drills: int, seed: int) -> None:
    """``n_drills`` drills (at most 40 actions) of the rules of tests/ludic/human_rules.txt, taken
    in a shuffled order, every rule once before any twice."""
    texts = [x.strip() for x in HUMAN_RULES.read_text().splitlines() if x.strip() and not x.startswith("#")]
    sp = space()
    rng = random.Random(seed + 2)
    order = rng.sample(texts, len(texts))
    timed = Timed()
    tick = progress("human rules")
    results: list[tuple[bool, DrillResult]] = []
    for k in range(n_drills):
        mask = table_of(order[k % len(order)]).obey
        outside = sp.index_of(mask) is None
        results.append((outside, drill(mask, timed, random.Random(rng.random()), max_actions=HUMAN_ACTIONS,
                                       vexer=vexer_hint)))
        tick(k + 1, n_drills)
    outside_rules = sum(sp.index_of(table_of(t).obey) is None for t in texts)
    print(f"\nhuman rules (tests/ludic/human_rules.txt: {len(texts)} rules, {outside_rules} outside the space), "
          f"{n_drills} drills, at most {HUMAN_ACTIONS} actions:")
    for label, chosen in (("all", results), ("outside the space", [x for x in results if x[0]]),
                          ("inside the space", [x for x in results if not x[0]])):
        found = [r for _, r in chosen if r.solved]
        if not chosen:
            continue
        rate = len(found) / len(chosen)
        actions = [r.actions for r in found]
        print(f"  {label:<18} found within {HUMAN_ACTIONS} actions in {100 * rate:.1f}% "
              f"(± {100 * proportion_se(rate, len(chosen)):.1f}%, n={len(chosen)}); mean actions when found "
              f"{statistics.mean(actions):.1f} ± {mean_se(actions):.1f}")
    ms = sorted(1000 * t for t in timed.cpu)
    print(f"  one decision, CPU time: median {statistics.median(ms):.2f} ms, p99 {percentile(ms, 0.99):.2f} ms, "
          f"worst {max(ms):.2f} ms over {len(ms)} decisions")


def vexer_round(engine: LudicEngine, vexer: str, seekers: Sequence[str], seed: int, g: int,
                decisions: Decisions) -> tuple[bool, int]:
    """One round (``round_limit`` 1) with the Vexer bot of level ``vexer`` (whoever the cut makes
    Vexer plays that level) and ``seekers`` from the Vexer's left; every decision timed under
    "<level> <role>". Returns whether a Seeker found the rule and the Vexer's points."""
    n = 1 + len(seekers)
    state = engine.new_game([f"bot:{vexer}"] * n, {"round_limit": 1}, Rng(f"{seed * 1000 + g:064x}"))
    rng = random.Random(g)
    names: dict[int, str] = {}
    while state.phase != "over":
        seat = min(engine.to_act(state))
        if not names and state.vexer is not None and state.phase != "cut":
            names = {state.vexer: vexer, **{(state.vexer + k) % n: s for k, s in enumerate(seekers, 1)}}
        name = names.get(seat, vexer)
        legal = engine.legal_actions(state, seat) + engine.action_templates(state, seat)
        view = engine.view(state, seat)
        role = "cut" if view["phase"] == "cut" else view["role"]
        state, _ = engine.apply(state, seat, decisions.call(f"{name} {role}", BOTS[name], view, legal, rng))
    return bool(state.rounds[-1]["ended_by"] == "guess"), int(state.rounds[-1]["points"])


SEEKER_TABLES = (("expert", "expert"), ("expert", "random"))
"""The Seekers of the real rounds: the expert's own table (two expert Seekers), and an expert
beside a random Seeker."""


def bench_games(n_games: int, seed: int, decisions: Decisions) -> None:
    """Real 3-seat rounds: the Vexer bot of each band (whoever the cut makes Vexer) against each
    pair of Seekers, real deck limits: how often the rule is found and what the Vexer scores."""
    engine = LudicEngine()
    print(f"\nreal 3-seat rounds (the Vexer bot of each band; 12 cards in the deck): {n_games} each")
    print(f"  {'Vexer':<8} {'Seekers':<16} {'rule found':>16} {'Vexer points a round':>22}")
    tick = progress("real rounds")
    total = len(SEEKER_TABLES) * len(DIFFICULTIES) * n_games
    done = 0
    for seekers in SEEKER_TABLES:
        for level in DIFFICULTIES:
            rounds = []
            for g in range(n_games):
                rounds.append(vexer_round(engine, level, seekers, seed, g, decisions))
                done += 1
                tick(done, total)
            rate = sum(found for found, _ in rounds) / n_games
            points = [p for _, p in rounds]
            se = proportion_se(rate, n_games)
            print(f"  {level:<8} {' + '.join(seekers):<16} {100 * rate:>6.0f}% ± {100 * se:>3.0f}%"
                  f" {statistics.mean(points):>13.2f} ± {mean_se(points):.2f}   (n={n_games})")


def bench_levels(n_rounds: int, seed: int, decisions: Decisions) -> None:
    """Every level in every role: rounds with all three seats at one level."""
    engine = LudicEngine()
    tick = progress("rounds per level")
    for i, level in enumerate(BOTS):
        for g in range(n_rounds):
            vexer_round(engine, level, (level, level), seed + 1, g, decisions)
            tick(i * n_rounds + g + 1, len(BOTS) * n_rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    args = sizes(parser, {"rules": 200, "space_rules": 200, "human": 165, "games": 30, "level_rounds": 10, "seed": 7},
                 {"rules": 12, "space_rules": 8, "human": 20, "games": 20, "level_rounds": 1})
    bench_drills(args.rules, args.space_rules, args.seed)
    if args.human:
        bench_human(args.human, args.seed)
    decisions = Decisions()
    if args.games:
        bench_games(args.games, args.seed, decisions)
    if args.level_rounds:
        bench_levels(args.level_rounds, args.seed, decisions)
    print()
    decisions.table(f"real rounds above and {args.level_rounds} rounds per level at 3 seats of that level, "
                    "per level and role", [f"{level} {role}" for level in BOTS for role in ("cut", "vexer", "seeker")])


if __name__ == "__main__":
    main()
