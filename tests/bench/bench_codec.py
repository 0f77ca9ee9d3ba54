"""The state codec's cost per move, printed (no assertions).

    python tests/bench/bench_codec.py [--number 2000] [--repeat 7]

Every move loads the state from the store and dumps the new one. For a Ludix state and a
Speculation state in mid-game (from a fixed seed), prints the median over ``--repeat`` runs of
``--number`` calls of the engine's ``load`` and ``dump`` in µs of CPU time per call, and, as a yardstick
measured in the same run, one ``typing.get_type_hints(LudixState)`` (what Ludix's former
``load`` paid on every call).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import timeit
import typing
from collections.abc import Callable
from typing import Any

from ludix.engine import LudixEngine, LudixState
from ludoteca.core.rng import Rng
from speculation.engine import SpeculationEngine

SEED = "ab" * 32


def mid_game(engine: Any, players: list[str], options: dict[str, Any], steps: int) -> Any:
    rnd = random.Random(1)
    state = engine.new_game(players, options, Rng(SEED))
    for _ in range(steps):
        if engine.result(state) is not None:
            break
        seat = min(engine.to_act(state))
        state, _ = engine.apply(state, seat, rnd.choice(engine.legal_actions(state, seat)))
    return state


def per_call(fn: Callable[[], object], number: int, repeat: int) -> float:
    """Median µs of CPU time per call (the process's own: steadier than wall time on a shared
    machine)."""
    runs = timeit.repeat(fn, number=number, repeat=repeat, timer=time.process_time)
    return statistics.median(runs) / number * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--number", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    n, r = args.number, args.repeat
    games = {
        "ludix": (LudixEngine(), mid_game(LudixEngine(), ["human", "human", "human"], {"target": 300}, 20)),
        "speculation": (SpeculationEngine(), mid_game(SpeculationEngine(), ["human", "human"], {}, 30)),
    }
    hints = per_call(lambda: typing.get_type_hints(LudixState), n, r)
    print(f"typing.get_type_hints(LudixState): {hints:8.1f} µs per call")
    for name, (engine, state) in games.items():
        data = engine.dump(state)
        assert engine.dump(engine.load(data)) == data
        load = per_call(lambda e=engine, d=data: e.load(d), n, r)
        dump = per_call(lambda e=engine, s=state: e.dump(s), n, r)
        print(f"{name:12s} load {load:8.1f} µs   dump {dump:8.1f} µs   "
              f"(load = {load / hints:.3f} x get_type_hints)")


if __name__ == "__main__":
    main()
