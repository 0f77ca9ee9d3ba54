"""Speculation bots: strength and speed, printed (no assertions).

    python tests/bench/bench_speculation_bots.py [--quick] [--games 2000] [--boards 2000] [--seed 1] [--recompute]

Prints:
1. the expert's joker with nothing known: mean and worst number of guesses over all 615 hands
   (equally likely), per ``joker_guesses`` option, walking the book's tree (``--recompute``
   rebuilds the tree with the solver first: several minutes, and checks it is the book's);
2. the expert's joker in real play (the 12 lower cards found): exact mean and worst over the deal
   (the five patterns of unseen cards, each with its chance), and the mean measured on the boards
   of (3);
3. the questions (yes and no) to clear one board's jacks, queens and kings: exact expectation of
   the expert's rule and of the optimal rule (dynamic programme), and the expert measured alone
   against ``--boards`` random boards;
4. win rates through the engine and the bot functions, ``--games`` games per pairing, seats
   alternating (the ritual is played by the bots; when both may act, a coin picks who does),
   with the standard error;
5. the time of one decision (the bot called with its view and legal actions): median and 99th
   percentile, per bot and phase, then per bot over every phase.
``--quick`` (60 games per pairing, 80 boards, each part stopped after 5 s: about 25 s) prints
the same figures with their sample sizes (the 4th part's count: "(stopped at ...)" when cut)
and standard errors; the figures in RULES.md come from the full defaults. Progress goes to
stderr every few seconds.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections import Counter
from dataclasses import replace
from math import comb
from typing import Any

from bot_timing import Decisions, mean_se, progress, proportion_se, sizes
from ludoteca.core.engine import Bot
from ludoteca.core.rng import Rng
from speculation import book
from speculation.board import COPIES, Tier
from speculation.bots import BOTS
from speculation.engine import JokerGuesses, SpeculationEngine, State
from speculation.joker import HANDS, Hand, score
from speculation.questions import expected_questions
from speculation.solver import JokerSolver

ENGINE = SpeculationEngine()
Timings = dict[tuple[str, str], Decisions]


def depth(node: dict[str, Any], hand: Hand, d: int = 1) -> int:
    """Guesses the tree takes to find ``hand`` (the last one right)."""
    while tuple(node["guess"]) != hand:
        node, d = node["then"][str(score(node["guess"], hand))], d + 1
    return d


def nothing_known(recompute: bool) -> None:
    print("1. Joker with nothing known: all 615 hands, equally likely")
    for kind in JokerGuesses:
        tree = book.tree(kind, book.UNKNOWN)
        if recompute or tree is None:
            t0 = time.perf_counter()
            solver = JokerSolver(book.allowed_guesses(kind), breadth=book.UNKNOWN_BREADTH)
            built = book.build_tree(solver, HANDS, [1.0] * len(HANDS))
            print(f"   rebuilt in {time.perf_counter() - t0:.0f} s; same as the book: {built == tree}")
            tree = built
        depths = [depth(tree, h) for h in HANDS]
        spread = dict(sorted(Counter(depths).items()))
        print(f"   joker_guesses={kind.value:5}  mean {statistics.fmean(depths):.4f}  worst {max(depths)}"
              f"  (hands per number of guesses: {spread}; first guess {tree['guess']})")


def real_play_exact() -> None:
    print("2. Joker in real play (jacks, queens, kings found; the joker is 4 of the 8 unseen cards)")
    for kind in JokerGuesses:
        mean, worst = 0.0, 0
        rows = []
        for n2 in book.PATTERNS:
            n1 = 8 - COPIES * n2
            chance = comb(10, n2) * comb(10 - n2, n1) * 2**n1 / comb(20, 8)
            hands, weights = book.prior(book.pattern_copies(n2))
            tree = book.tree(kind, n2)
            assert tree is not None
            ds = [depth(tree, h) for h in hands]
            m = sum(w * d for w, d in zip(weights, ds, strict=True)) / sum(weights)
            mean += chance * m
            worst = max(worst, max(ds))
            rows.append(f"{n2} pairs unseen (chance {chance:.3f}, {len(hands)} hands): mean {m:.3f} worst {max(ds)}")
        print(f"   joker_guesses={kind.value:5}  exact mean over the deal {mean:.4f}  worst {worst}")
        if kind is JokerGuesses.ANY:
            for r in rows:
                print(f"      {r}")


def timed(timings: Timings, name: str, bot: Bot, state: State, seat: int, rnd: random.Random) -> dict[str, Any]:
    view = ENGINE.view(state, seat)
    legal = ENGINE.legal_actions(state, seat)
    phase = "joker" if legal[0]["type"] == "guess_joker" else "tier" if legal[0]["type"] == "guess" else "ritual"
    return timings.setdefault((name, phase), Decisions()).call("", bot, view, legal, rnd)


def solo(boards: int, seed: int, timings: Timings, max_seconds: float) -> None:
    """The expert attacks ``boards`` random boards alone (its turn never passes); at most
    ``max_seconds`` (0: no cap)."""
    questions, jokers = [], []
    rnd = random.Random(seed)
    tick = progress("boards")
    start = time.perf_counter()
    for i in range(boards):
        if max_seconds and time.perf_counter() - start > max_seconds:
            print(f"   (stopped at the {max_seconds:.0f} s cap of --max-seconds after {i} boards)")
            break
        state = ENGINE.new_game(["bot:expert", "bot:expert"], {"first_guesser": "random"},
                                Rng(f"{seed:08x}{i:056x}"))
        state = replace(state, guesser=0)
        asked = 0
        while ENGINE.result(state) is None:
            if ENGINE.target(state, 0) is Tier.JOKER and not asked:
                asked = len(state.history)
            state, _ = ENGINE.apply(state, 0, timed(timings, "expert", BOTS["expert"], state, 0, rnd))
            state = replace(state, guesser=0) if state.guesser is not None else state
        questions.append(asked)
        jokers.append(len(state.history) - asked)
        tick(i + 1, boards)
    boards = len(questions)
    se = statistics.stdev(questions) / math.sqrt(boards)
    print("3. Questions to clear jacks, queens and kings (per board)")
    print(f"   exact: expert's rule {expected_questions(greedy=True):.4f}, optimal rule "
          f"{expected_questions(greedy=False):.4f}")
    print(f"   measured over {boards} boards: mean {statistics.fmean(questions):.3f} ± {se:.3f}  "
          f"(min {min(questions)}, max {max(questions)})")
    print(f"   (2. measured) joker guesses on the same boards: mean {statistics.fmean(jokers):.3f} "
          f"± {mean_se(jokers):.3f}  worst {max(jokers)}  (n={boards})")


def match(a: str, b: str, games: int, seed: int, timings: Timings, max_seconds: float) -> None:
    rnd = random.Random(seed)
    wins, first_wins, moves = 0, 0, []
    tick = progress(f"{a} vs {b} games")
    start = time.perf_counter()
    for i in range(games):
        if max_seconds and i % 2 == 0 and time.perf_counter() - start > max_seconds:
            print(f"   (stopped at the {max_seconds:.0f} s cap of --max-seconds after {i} games)")
            break
        levels = (a, b) if i % 2 == 0 else (b, a)
        state = ENGINE.new_game([f"bot:{lvl}" for lvl in levels], {}, Rng(f"{seed:08x}{i:056x}"))
        n = 0
        while ENGINE.result(state) is None:
            seat = rnd.choice(sorted(ENGINE.to_act(state)))
            action = timed(timings, levels[seat], BOTS[levels[seat]], state, seat, rnd)
            state, _ = ENGINE.apply(state, seat, action)
            n += 1
        a_seat = 0 if i % 2 == 0 else 1
        wins += state.winner == a_seat
        first_wins += state.winner == state.first_guesser
        moves.append(n)
        tick(i + 1, games)
    games = len(moves)
    rate = wins / games
    se = math.sqrt(rate * (1 - rate) / games)
    first = first_wins / games
    print(f"   {a} vs {b}: {a} wins {wins}/{games} = {rate:.3f} ± {se:.3f}; the first guesser wins "
          f"{first:.3f} ± {proportion_se(first, games):.3f}; moves per game: median {statistics.median(moves):.0f}")


def decision_times(timings: Timings) -> None:
    print("5. Decision time (bot called with its view), ms")
    for (name, phase), timed_ in sorted(timings.items()):
        ts = sorted(timed_.seconds[""])
        p99 = ts[min(len(ts) - 1, int(0.99 * len(ts)))]
        print(f"   {name:7} {phase:7} n={len(ts):7}  median {statistics.median(ts) * 1e3:.3f}  "
              f"p99 {p99 * 1e3:.3f}  max {ts[-1] * 1e3:.1f}")
    levels = Decisions()
    for (name, _phase), timed_ in timings.items():
        levels.merge(name, timed_)
    print("   ", end="")
    levels.table("every phase", list(BOTS))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--recompute", action="store_true")
    args = sizes(parser, {"games": 2000, "boards": 2000, "seed": 1, "max_seconds": 0.0},
                 {"games": 60, "boards": 80, "max_seconds": 5.0})
    timings: Timings = {}
    nothing_known(args.recompute)
    real_play_exact()
    solo(args.boards, args.seed, timings, args.max_seconds)
    print(f"4. Win rates (up to {args.games} games each, seats alternating)")
    for opponent in ("basic", "random"):
        match("expert", opponent, args.games, args.seed, timings, args.max_seconds)
    match("basic", "random", args.games, args.seed, timings, args.max_seconds)
    decision_times(timings)


if __name__ == "__main__":
    main()
