"""What Ludic's engine costs per request, without the service: its parts timed on the states of
a random game (no assertions).

    python tests/bench/bench_ludic_engine.py [--moves 800] [--skip 200] [--seats 3]

The game is played as ``profile_requests.py ludic`` plays it (the seat to act posts a listed
action at random, Ludic's random bot fills in a template); from move ``--skip`` on, each state is
kept as the service keeps it (its stored JSON). For each part of a request, ``load`` (the codec,
from the parsed document), ``dump``, ``legal_actions``, ``view`` (the seat to act's) and
``apply`` (the move played), prints the median over 5 passes of the CPU time per call, in µs,
and ``apply`` per action type. Compare revisions in one run each, back to back.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from ludic.bots import BOTS
from ludic.engine import LudicEngine
from ludic.state import LudicState, Phase
from ludoteca.core import jsontext
from ludoteca.core.rng import Rng


def positions(engine: LudicEngine, moves: int, skip: int, seats: int) -> list[tuple[bytes, int, dict[str, Any]]]:
    """(stored JSON, seat to act, the action it plays) of moves ``skip`` to ``moves``."""
    rnd = random.Random(1)
    out: list[tuple[bytes, int, dict[str, Any]]] = []
    game = 0
    while len(out) < moves:
        state = engine.new_game(["human"] * seats, {}, Rng(f"{game:064x}"))
        game += 1
        while engine.result(state) is None and len(out) < moves:
            seat = min(engine.to_act(state))
            legal = engine.legal_actions(state, seat)
            action = rnd.choice(legal) if legal else \
                BOTS["random"](engine.view(state, seat), engine.action_templates(state, seat), rnd)
            out.append((jsontext.dumps(engine.dump(state)), seat, dict(action)))
            state, _ = engine.apply(state, seat, action)
    return out[skip:]


def per_call(fn: Callable[[int], object], n: int) -> float:
    runs = []
    for _ in range(5):
        t0 = time.process_time()
        for i in range(n):
            fn(i)
        runs.append((time.process_time() - t0) / n * 1e6)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=800)
    parser.add_argument("--skip", type=int, default=200)
    parser.add_argument("--seats", type=int, default=3)
    args = parser.parse_args()
    engine = LudicEngine()
    kept = positions(engine, args.moves, args.skip, args.seats)
    data = [jsontext.loads(doc) for doc, _, _ in kept]
    states: list[LudicState] = [engine.load(d) for d in data]
    n = len(kept)
    print(f"{n} states (moves {args.skip}-{args.moves}, {args.seats} seats), stored JSON "
          f"{statistics.mean(len(doc) for doc, _, _ in kept):.0f} bytes on average; CPU µs per call (median of 5):")
    parts: dict[str, Callable[[int], object]] = {
        "load": lambda i: engine.load(data[i]),
        "dump": lambda i: engine.dump(states[i]),
        "legal_actions": lambda i: engine.legal_actions(states[i], kept[i][1]),
        "view": lambda i: engine.view(states[i], kept[i][1]),
        "apply": lambda i: engine.apply(states[i], kept[i][1], kept[i][2]),
    }
    for name, fn in parts.items():
        print(f"  {name:<16} {per_call(fn, n):8.1f}")
    spent: dict[str, list[float]] = defaultdict(list)
    for _ in range(3):
        for (_, seat, action), state in zip(kept, states, strict=True):
            kind = action["type"] + (" (last phase)" if state.phase is Phase.FINAL else "")
            t0 = time.process_time()
            engine.apply(state, seat, action)
            spent[kind].append((time.process_time() - t0) * 1e6)
    for kind, xs in sorted(spent.items()):
        print(f"  apply {kind:<20} {len(xs) // 3:5d} moves   median {statistics.median(xs):8.1f}   mean "
              f"{statistics.mean(xs):8.1f}")


if __name__ == "__main__":
    main()
