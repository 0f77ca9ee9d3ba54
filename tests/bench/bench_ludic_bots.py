"""Benchmark: the strength and speed of Ludic's expert Seeker.

    python tests/bench/bench_ludic_bots.py [--quick] [--rules 200] [--space-rules 200] [--human 165]
        [--fresh 200] [--fresh-seed N] [--spectator 60] [--games 30] [--level-rounds 10] [--seed 7]

Prints, for random rules of each difficulty band of the Vexer catalogue (and for random rules of the
whole hypothesis space, sparse ones included), the expert Seeker's solve rate and the mean and worst
number of actions (queries + plays + guesses) before its correct guess, with its standard error,
measured in the drill (one Seeker, a deck that never runs out: `ludic/drill.py`) against the Vexer
bot's hints (the counterexample that tells least), with the turns spent drawing apart; then the
rules written the way people write them (`tests/ludic/human_rules.txt`, `--human` drills in all,
at most 40 actions each): how often the expert finds them within 40 actions; then rules it has
never seen (`--fresh` rules drawn by `ludic/fresh.py`, a grammar of human-style rules of its own,
from a new seed each run, printed; `--fresh-seed` repeats a draw): found rate and mean actions in
and beyond its hypothesis space, how many statements its guesses join, and the time of a decision
(``--rules 0 --space-rules 0`` skips the drills, e.g. to measure fresh rules alone); then a spectator who
knows the Vexer's catalogue (`--spectator` real rounds per band): how many rules of the band are
left after 3 and 6 public sets;
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
import itertools
import random
import secrets
import statistics
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from bot_timing import Decisions, mean_se, percentile, progress, proportion_se, sizes
from ludic import language as L
from ludic.bots import BOTS, expert_seeker, least_telling
from ludic.catalogue import DIFFICULTIES, PLAYABLE, vexer_rules
from ludic.drill import DrillResult, drill
from ludic.engine import LudicEngine
from ludic.fresh import fresh_rules
from ludic.space import space
from ludic.tables import table_of
from ludic.universe import OBEY, set_of_codes
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
    if not results:
        return
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


def human_texts() -> list[str]:
    return [x.strip() for x in HUMAN_RULES.read_text().splitlines() if x.strip() and not x.startswith("#")]


def bench_human(n_drills: int, seed: int) -> None:
    """``n_drills`` drills (at most 40 actions) of the rules of tests/ludic/human_rules.txt, taken
    in a shuffled order, every rule once before any twice."""
    texts = human_texts()
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


class Guesses(Timed):
    """The expert Seeker, timed, with the size of every guess it writes (in statements)."""

    def __init__(self) -> None:
        super().__init__()
        self.sizes: list[int] = []

    def __call__(self, view: JSON, legal: Sequence[JSON], rng: random.Random) -> JSON:
        action = super().__call__(view, legal, rng)
        if action.get("type") == "guess":
            self.sizes.append(L.statements(L.parse(action["rule"])))
        return action


def bench_fresh(n_rules: int, seed: int) -> None:
    """The expert Seeker on ``n_rules`` rules it has never seen: drawn by :mod:`ludic.fresh` (a
    grammar of human-style rules of its own) from ``seed`` (a new one each run unless given), none
    with the table of a catalogue rule or of tests/ludic/human_rules.txt; at most 40 actions each."""
    sp = space()
    seen = [r.obey for r in vexer_rules()] + [table_of(t).obey for t in human_texts()]
    rules = list(itertools.islice(fresh_rules(seed, seen), n_rules))
    rng = random.Random(seed)
    seeker = Guesses()
    tick = progress("fresh rules")
    results: list[tuple[bool, DrillResult]] = []
    for k, (_, mask) in enumerate(rules):
        results.append((sp.index_of(mask) is None, drill(mask, seeker, random.Random(rng.random()),
                                                          max_actions=HUMAN_ACTIONS, vexer=vexer_hint)))
        tick(k + 1, len(rules))
    print(f"\nfresh rules (ludic/fresh.py, seed {seed}: rerun with --fresh-seed {seed}), {len(rules)} rules drawn "
          f"anew, none a catalogue or human_rules.txt table, one drill each, at most {HUMAN_ACTIONS} actions:")
    for label, target, chosen in (("in the space", 0.90, [x for x in results if not x[0]]),
                                  ("beyond the space", 0.80, [x for x in results if x[0]]),
                                  ("all", None, results)):
        if not chosen:
            continue
        found = [r for _, r in chosen if r.solved]
        rate = len(found) / len(chosen)
        actions = [r.actions for r in found] or [0]
        aim = f" (target >= {100 * target:.0f}%)" if target else ""
        print(f"  {label:<17} found within {HUMAN_ACTIONS} actions in {100 * rate:5.1f}% "
              f"(± {100 * proportion_se(rate, len(chosen)):.1f}%, n={len(chosen)}){aim}; mean actions when found "
              f"{statistics.mean(actions):.1f} ± {mean_se(actions):.1f}")
    sizes = sorted(seeker.sizes)
    print(f"  guesses: {len(sizes)}, statements a guess: median {statistics.median(sizes):.0f}, "
          f"p95 {percentile(sizes, 0.95):.0f}, worst {sizes[-1]}; more than 4: "
          f"{100 * sum(x > 4 for x in sizes) / len(sizes):.1f}%")
    ms = sorted(1000 * t for t in seeker.cpu)
    print(f"  one decision, CPU time: median {statistics.median(ms):.2f} ms, p99 {percentile(ms, 0.99):.2f} ms, "
          f"worst {max(ms):.2f} ms over {len(ms)} decisions")
    missed = [text for (text, _), (_, r) in zip(rules, results, strict=True) if not r.solved]
    for text in missed[:5]:
        print(f"  not found: {text}")


def vexer_round(engine: LudicEngine, vexer: str, seekers: Sequence[str], seed: int, g: int,
                decisions: Decisions, public: list[tuple[int, bool]] | None = None) -> tuple[bool, int]:
    """One round (``round_limit`` 1) with the Vexer bot of level ``vexer`` (whoever the cut makes
    Vexer plays that level) and ``seekers`` from the Vexer's left; every decision timed under
    "<level> <role>". Returns whether a Seeker found the rule and the Vexer's points; ``public``
    receives the sets everyone saw labelled, in order (the initial sets, then each query and play)."""
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
        if public is not None and state.round is not None and state.vexer is not None and state.phase != "rule":
            seen = engine.view(state, state.vexer)
            public[:] = [(set_of_codes(c[0]["top"], c[0]["bottom"]), column == OBEY)
                         for column, c in seen["columns"].items()]
            public += [(set_of_codes(e["top"], e["bottom"]), e["column"] == OBEY)
                       for e in seen.get("log", []) if e.get("event") in ("query", "play")]
    return bool(state.rounds[-1]["ended_by"] == "guess"), int(state.rounds[-1]["points"])


SPECTATOR_AFTER = (3, 6)


def bench_spectator(n_games: int, seed: int) -> None:
    """Issue 26, item 4: a spectator who knows the code and the repository (the Vexer's catalogue,
    its bands, the legality test) lists the rules the Vexer bot of each band could have written that
    fit the initial sets and every set labelled in public so far; after 3 and 6 public sets (the two
    initial sets included), how many are left, and how often naming one at random is right. In real
    3-seat rounds, the Vexer of the band against two expert Seekers (the rounds of ``--games``)."""
    engine = LudicEngine()
    catalogue = vexer_rules()
    sp = space()
    counts = np.unpackbits(sp.packed, axis=1).sum(axis=1)
    playable = np.flatnonzero((counts >= PLAYABLE[0]) & (counts <= PLAYABLE[1]))
    pools = {"space atoms": playable[playable < len(sp.atoms)], "space rules": playable}
    wider: dict[str, dict[int, list[int]]] = {name: {k: [] for k in SPECTATOR_AFTER} for name in pools}
    print(f"\ncatalogue-aware spectator, real 3-seat rounds (Vexer of the band, two expert Seekers), {n_games} "
          f"each; rules the band could be after k public sets (target: >= 20 after 6 in the easy band):")
    tick = progress("spectator rounds")
    for b, level in enumerate(DIFFICULTIES):
        band = [r.obey for r in catalogue if r.difficulty == level]
        left: dict[int, list[int]] = {k: [] for k in SPECTATOR_AFTER}
        hit: dict[int, list[float]] = {k: [] for k in SPECTATOR_AFTER}
        for g in range(n_games):
            public: list[tuple[int, bool]] = []
            vexer_round(engine, level, ("expert", "expert"), seed + 11, g, Decisions(), public)
            rule = next((r for r in band if all((r >> s & 1) == o for s, o in public)), None)
            for k in SPECTATOR_AFTER:
                if len(public) < k:
                    continue
                fits = [r for r in band if all((r >> s & 1) == o for s, o in public[:k])]
                left[k].append(len(fits))
                for name, rows in pools.items():
                    keep = np.ones(len(rows), dtype=bool)
                    for s, o in public[:k]:
                        keep &= sp.column(s, rows) == o
                    wider[name][k].append(int(keep.sum()))
                hit[k].append(1 / len(fits) if rule is not None and fits else 0.0)
            tick(b * n_games + g + 1, len(DIFFICULTIES) * n_games)
        for k in SPECTATOR_AFTER:
            if left[k]:
                print(f"  {level:<7} {len(band):>4} rules, after {k} public sets: {statistics.mean(left[k]):6.2f} "
                      f"± {mean_se(left[k]):.2f} left (median {statistics.median(left[k]):.0f}), named at random "
                      f"{100 * statistics.mean(hit[k]):5.1f}% (n={len(left[k])})")
    for name, rows in pools.items():  # what a Vexer drawing from a wider pool would leave (same rounds)
        print(f"  for comparison, if the Vexer drew from the {len(rows)} playable {name}: " + ", ".join(
            f"after {k}: {statistics.mean(v):.0f} left (median {statistics.median(v):.0f})"
            for k, v in wider[name].items() if v))


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
    parser.add_argument("--fresh-seed", type=int, default=None,
                        help="the seed of the fresh rules (default: a new one each run, printed)")
    args = sizes(parser, {"rules": 200, "space_rules": 200, "human": 165, "fresh": 200, "spectator": 60,
                          "games": 30, "level_rounds": 10, "seed": 7},
                 {"rules": 12, "space_rules": 8, "human": 20, "fresh": 40, "spectator": 10, "games": 20,
                  "level_rounds": 1})
    if args.rules or args.space_rules:  # 0 and 0: the other parts alone (e.g. only --fresh)
        bench_drills(args.rules, args.space_rules, args.seed)
    if args.human:
        bench_human(args.human, args.seed)
    if args.fresh:
        bench_fresh(args.fresh, secrets.randbits(32) if args.fresh_seed is None else args.fresh_seed)
    if args.spectator:
        bench_spectator(args.spectator, args.seed)
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
