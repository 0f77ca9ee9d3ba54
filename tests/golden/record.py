"""Regenerate the golden corpus (``make golden``): only when a change of behaviour is intended.

    python tests/golden/record.py [game ...]     # default: every registered game

Prints, per game, the recorded games, their steps, the file's size and the time taken.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from golden.corpus import path_of, record, seed_of, tables, write
from ludoteca.service_layer import registry


def main(argv: list[str]) -> int:
    for game in argv or registry.names():
        started = time.perf_counter()
        games = [record(game, table, seed_of(game, table.label)) for table in tables(game)]
        write(game, games)
        steps = sum(len(g["steps"]) for g in games)
        print(f"{game:<12} {len(games):>3} games, {steps:>6} steps, {path_of(game).stat().st_size / 1024:>7.1f} KiB, "
              f"{time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
