"""What the bot benchmarks (``bench_<game>_bots.py``) share: ``--quick`` and the full sample
sizes, progress lines on stderr (so no long silent stretch), standard errors, and one table of
decision times per bot level (p50/p99 in ms against the 50 ms target of issue 9).

Not a benchmark itself (the Makefile runs ``bench_*_bots.py``).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

DECISION_P99_TARGET_MS = 50.0
PROGRESS_SECONDS = 3.0


def sizes(parser: argparse.ArgumentParser, full: Mapping[str, Any], quick: Mapping[str, Any]) -> argparse.Namespace:
    """Parse the command line: every option of ``full`` (its default: the full size) and
    ``--quick``, which makes the defaults those of ``quick``; a size given explicitly wins. The
    namespace's ``quick`` says which mode ran; the mode is printed first."""
    parser.add_argument("--quick", action="store_true",
                        help="small samples (about 30 s): " + ", ".join(f"--{k.replace('_', '-')} {v}"
                                                                       for k, v in quick.items()))
    for name, value in full.items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=type(value), default=None,
                            help=f"default {value} (quick: {quick.get(name, value)})")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # figures and progress in order
    for name, value in full.items():
        if getattr(args, name) is None:
            setattr(args, name, quick.get(name, value) if args.quick else value)
    given = ", ".join(f"{k.replace('_', '-')}={getattr(args, k)}" for k in full)
    if args.quick:
        print(f"QUICK MODE ({given}): small samples, every figure with its sample size and "
              "standard error; the figures in RULES.md come from the full defaults (no --quick)")
    else:
        print(f"full mode ({given})")
    return args


def progress(label: str) -> Callable[[int, int], None]:
    """A progress reporter: ``tick(done, total)`` writes a line to stderr at most every
    :data:`PROGRESS_SECONDS` (and at the end), with the rate so far."""
    start = time.perf_counter()
    last = [start]

    def tick(done: int, total: int) -> None:
        now = time.perf_counter()
        if now - last[0] >= PROGRESS_SECONDS or done == total:
            last[0] = now
            print(f"   ... {label}: {done}/{total} ({now - start:.0f} s)", file=sys.stderr, flush=True)

    return tick


def proportion_se(p: float, n: int) -> float:
    return math.sqrt(p * (1 - p) / n) if n else float("nan")


def mean_se(xs: Sequence[float]) -> float:
    return statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")


def percentile(xs: Sequence[float], q: float) -> float:
    """Nearest rank (the convention of these benchmarks): the value at index ``q * n``."""
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


class Decisions:
    """Bot decisions' seconds per bot level (or any label): wall clock, and the CPU time of the
    calling thread (the machine may be shared: the CPU time is what one decision costs; the wall
    clock adds the waits for a core)."""

    def __init__(self) -> None:
        self.seconds: dict[str, list[float]] = {}
        self.cpu: dict[str, list[float]] = {}

    def add(self, level: str, seconds: float, cpu: float | None = None) -> None:
        self.seconds.setdefault(level, []).append(seconds)
        if cpu is not None:
            self.cpu.setdefault(level, []).append(cpu)

    def call(self, level: str, bot: Callable[[Any, Any, random.Random], Any], view: Any, legal: Any,
             rng: random.Random) -> Any:
        """Call ``bot`` and record its times under ``level``."""
        wall, cpu = time.perf_counter(), time.thread_time()
        action = bot(view, legal, rng)
        self.add(level, time.perf_counter() - wall, time.thread_time() - cpu)
        return action

    def merge(self, level: str, other: Decisions, key: str = "") -> None:
        """Add ``other``'s decisions under ``key`` to this one's under ``level``."""
        self.seconds.setdefault(level, []).extend(other.seconds.get(key, []))
        self.cpu.setdefault(level, []).extend(other.cpu.get(key, []))

    def table(self, title: str, levels: Sequence[str] | None = None) -> bool:
        """Print p50/p99/max per level (wall clock, then CPU time); returns whether every wall
        clock p99 meets the target."""
        print(f"decision time per bot level, {title} (ms; target p99 < {DECISION_P99_TARGET_MS:.0f} ms; "
              "wall clock, and CPU time of the deciding thread):")
        ok = True
        for level in levels if levels is not None else sorted(self.seconds):
            ms = [1000 * t for t in self.seconds.get(level, [])]
            if not ms:
                print(f"   {level:<16} no decisions")
                continue
            p99 = percentile(ms, 0.99)
            ok &= p99 < DECISION_P99_TARGET_MS
            cpu = [1000 * t for t in self.cpu.get(level, [])]
            on_cpu = (f"   CPU p50 {statistics.median(cpu):8.3f}  p99 {percentile(cpu, 0.99):8.3f}" if cpu else "")
            print(f"   {level:<16} n={len(ms):>7}  wall p50 {statistics.median(ms):8.3f}  p99 {p99:8.3f}  "
                  f"max {max(ms):8.2f}{on_cpu}  {'ok' if p99 < DECISION_P99_TARGET_MS else 'OVER TARGET'}")
        return ok
