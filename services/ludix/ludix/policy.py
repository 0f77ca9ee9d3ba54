"""The command line of the expert's table (``make policy``)::

    python -m ludix.policy build [--target T] [--force]   # solve and write the table (a few seconds)
    python -m ludix.policy info  [--target T]             # what the table says

The table itself: :mod:`ludix.table` (reading it, at run time) and :mod:`ludix.table_build`
(solving and writing it, offline).
"""

from __future__ import annotations

import argparse
import sys
import time

from ludix.bots import steady_threshold, warm_up
from ludix.engine import DEFAULT_TARGET
from ludix.table import Policy, has_table, table_path
from ludix.table_build import build, highest_rolling_total, table


def _info(policy: Policy, seconds: float | None) -> None:
    if seconds is not None:
        print(f"built in {seconds:.1f} s: {table_path(policy.target)}")
    size = table_path(policy.target).stat().st_size if has_table(policy.target) else 0
    print(f"target {policy.target}, cap {policy.cap}, file {size / 1e6:.2f} MB")
    print(f"expert vs expert, first seat wins: {policy.win_first[0, 0]:.6f}")
    print(f"first player never rolls above total {highest_rolling_total(policy)} (cap {policy.cap})")
    print(f"states preferring a lower numeral: {policy.exceptions}")
    print(f"steady holds at turn total {steady_threshold()}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ludix.policy", description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["build", "info"])
    parser.add_argument("--target", type=int, default=DEFAULT_TARGET)
    parser.add_argument("--force", action="store_true", help="rebuild even if the file exists")
    args = parser.parse_args(argv)
    if args.command == "build":
        if has_table(args.target) and not args.force:
            _info(table(args.target), None)
            print("(already built; --force to rebuild)")
        else:
            start = time.perf_counter()
            policy = build(args.target)
            _info(policy, time.perf_counter() - start)
        print(f"multi-seat expert's sweep compiled and run in {warm_up():.1f} s")
    else:
        _info(table(args.target), None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
