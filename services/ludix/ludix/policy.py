"""The expert's table: the solved two-player game, cached on disk, loaded once per process.

``python -m ludix.policy build`` solves the game for the default target (300) and writes
``$LUDOTECA_CACHE/ludix-policy-t300-v1.npz`` (default cache dir ``~/.cache/ludoteca``);
``python -m ludix.policy info`` prints what the table says. The solver (:mod:`ludix.solver`, numba)
is imported only to build: a process that finds the file never compiles anything.

What is stored (0.7 MB compressed for the target 300):

- ``roll_first``: packed bits ``[i, j, k]``, the first player (A) with ``i`` against ``j`` rolls
  at turn total ``k`` (``k <= cap``; above, A holds);
- ``roll_second``: packed bits ``[j, i, k]``, the same for the second player (B), ``k < T - j``
  (at ``j + k >= T`` B holds and wins);
- ``win_first``/``win_second``: win chances at the start of a turn (float64 when solved, float32
  on disk; for reports);
- ``final_win``/``final_roll``: B's final turn by deficit (small).

The best numeral is always at least as good as any other (the solve counts the states where
another numeral would be strictly better, and the build fails if there are any), so the table
needs no numeral choices: the expert takes the best numeral and reads one bit.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from ludix.engine import DEFAULT_TARGET
from ludix.numerals import odds

VERSION = 1
EXTRA = 200
"""How far past the target the first player's total is modelled (``cap = T + EXTRA``). The
optimal first player never rolls at a total above ``T + 64`` for ``T = 300`` (checked at build
time), so the cap does not bind."""


def cache_dir() -> Path:
    return Path(os.environ.get("LUDOTECA_CACHE") or Path.home() / ".cache" / "ludoteca")


def table_path(target: int = DEFAULT_TARGET) -> Path:
    return cache_dir() / f"ludix-policy-t{target}-v{VERSION}.npz"


@dataclass(frozen=True)
class ThrowArrays:
    """The 14 valid multisets as arrays for the compiled solver."""

    probs: np.ndarray
    vals: np.ndarray
    nv: np.ndarray
    pbust: float


@cache
def throw_arrays() -> ThrowArrays:
    valid = odds().valid
    vals = np.zeros((len(valid), 4), dtype=np.int64)
    for m, throw in enumerate(valid):
        vals[m, : len(throw.numerals)] = [n.value for n in throw.numerals]
    return ThrowArrays(
        probs=np.array([float(t.probability) for t in valid]),
        vals=vals,
        nv=np.array([len(t.numerals) for t in valid], dtype=np.int64),
        pbust=float(odds().bust_probability),
    )


def _bit(packed: np.ndarray, a: int, b: int, k: int) -> bool:
    return bool((packed[a, b, k >> 3] >> (7 - (k & 7))) & 1)


@dataclass(frozen=True)
class Policy:
    """The solved two-player game for one target (see the module docstring for the arrays)."""

    target: int
    cap: int
    roll_first: np.ndarray
    roll_second: np.ndarray
    win_first: np.ndarray
    win_second: np.ndarray
    final_win: np.ndarray
    final_roll: np.ndarray
    exceptions: int = 0

    def first_rolls(self, own: int, other: int, turn_total: int) -> bool:
        """Whether the first player (``own`` banked, ``other`` for the second) rolls at
        ``turn_total`` (numeral already counted)."""
        if own + turn_total > self.cap:
            return False
        return _bit(self.roll_first, own, other, turn_total)

    def second_rolls(self, own: int, other: int, turn_total: int) -> bool:
        """Whether the second player rolls (before anyone reached the target)."""
        if own + turn_total >= self.target:
            return False
        return _bit(self.roll_second, own, other, turn_total)

    def final_rolls(self, deficit: int) -> bool:
        """Whether a player in the last turn of the game, ``deficit`` behind the leader (turn
        total counted), rolls: always when behind, never when ahead, at a tie if it pays."""
        if deficit < 0:
            return False
        return deficit >= len(self.final_roll) or bool(self.final_roll[deficit])

    def unpacked(self) -> tuple[np.ndarray, np.ndarray]:
        """The roll bits as boolean arrays (for evaluations)."""
        t, cap = self.target, self.cap
        first = np.unpackbits(self.roll_first, axis=-1, count=cap + 1).astype(np.bool_)
        second = np.unpackbits(self.roll_second, axis=-1, count=t).astype(np.bool_)
        return first, second

    # -- disk -------------------------------------------------------------------------------
    def save(self, path: Path) -> None:
        """Write atomically (a concurrent reader sees the old file or the whole new one)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                np.savez_compressed(
                    out,
                    meta=np.array([VERSION, self.target, self.cap, self.exceptions], dtype=np.int64),
                    roll_first=self.roll_first,
                    roll_second=self.roll_second,
                    win_first=self.win_first.astype(np.float32),
                    win_second=self.win_second.astype(np.float32),
                    final_win=self.final_win,
                    final_roll=self.final_roll,
                )
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

    @classmethod
    def read(cls, path: Path) -> Policy:
        with np.load(path) as data:
            version, target, cap, exceptions = (int(x) for x in data["meta"])
            if version != VERSION:
                raise ValueError(f"{path}: table version {version}, expected {VERSION}")
            return cls(
                target=target,
                cap=cap,
                roll_first=data["roll_first"],
                roll_second=data["roll_second"],
                win_first=data["win_first"],
                win_second=data["win_second"],
                final_win=data["final_win"],
                final_roll=data["final_roll"],
                exceptions=exceptions,
            )


# -- solving and evaluating (numba, imported here only) -------------------------------------
def final_size(cap: int) -> int:
    return cap + 2 * 80 + 2


def solve(target: int = DEFAULT_TARGET, extra: int = EXTRA) -> Policy:
    """Solve the two-player game exactly for ``target`` (a few seconds for 300)."""
    from ludix import solver

    arr = throw_arrays()
    cap = target + extra
    final_win, final_roll = solver.final_turn(final_size(cap), arr.probs, arr.vals, arr.nv)
    roll_first = np.zeros((target, target, cap + 1), dtype=np.bool_)
    roll_second = np.zeros((target, target, target), dtype=np.bool_)
    win_first, win_second, exceptions = solver.solve_game(
        target, cap, arr.probs, arr.vals, arr.nv, arr.pbust, final_win, True, roll_first, roll_second
    )
    return Policy(
        target=target,
        cap=cap,
        roll_first=np.packbits(roll_first, axis=-1),
        roll_second=np.packbits(roll_second, axis=-1),
        win_first=win_first,
        win_second=win_second,
        final_win=final_win,
        final_roll=final_roll,
        exceptions=int(exceptions),
    )


def evaluate(
    target: int, cap: int, roll_first: np.ndarray, roll_second: np.ndarray, final_second: np.ndarray
) -> np.ndarray:
    """The first player's exact chance (a shared win counting 1/2) from every ``[i, j]`` at the
    start of its turn, when the first player follows ``roll_first``, the second ``roll_second``
    and, in its final turn, has the chances ``final_second`` by deficit (both take the best
    numeral)."""
    from ludix import solver

    arr = throw_arrays()
    va, _vb, _e = solver.solve_game(
        target, cap, arr.probs, arr.vals, arr.nv, arr.pbust, final_second, False, roll_first, roll_second
    )
    return np.asarray(va)


def threshold_policy(target: int, cap: int, threshold: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Roll bits and final-turn chances of "hold at turn total ``threshold``" (``steady``),
    which keeps rolling below the threshold even when holding would win."""
    from ludix import solver

    arr = throw_arrays()
    first = np.zeros((target, target, cap + 1), dtype=np.bool_)
    first[:, :, :threshold] = True
    second = np.zeros((target, target, cap + 1), dtype=np.bool_)  # it rolls on past the target
    second[:, :, :threshold] = True
    final = solver.final_turn_threshold(final_size(cap), threshold, arr.probs, arr.vals, arr.nv)
    return first, second, final


def versus_threshold(policy: Policy, threshold: int) -> tuple[float, float]:
    """The expert's exact chance against "hold at ``threshold``": (expert first, expert second)."""
    t, cap = policy.target, policy.cap
    expert_first, expert_second = policy.unpacked()
    steady_first, steady_second, steady_final = threshold_policy(t, cap, threshold)
    as_first = float(evaluate(t, cap, expert_first, steady_second, steady_final)[0, 0])
    as_second = 1.0 - float(evaluate(t, cap, steady_first, expert_second, policy.final_win)[0, 0])
    return as_first, as_second


def highest_rolling_total(policy: Policy) -> int:
    """The highest banked + turn total at which the first player still rolls (must stay well
    below ``cap - 80`` for the cap not to matter)."""
    first, _ = policy.unpacked()
    i, k = np.nonzero(first.any(axis=1))
    return int((i + k).max()) if len(i) else 0


# -- the cached table -----------------------------------------------------------------------
def checked_solve(target: int = DEFAULT_TARGET) -> Policy:
    """Solve and check what the expert relies on: the best numeral is never beaten and the cap on
    the first player's total never binds."""
    policy = solve(target)
    if policy.exceptions:
        raise RuntimeError(f"{policy.exceptions} states prefer a numeral other than the best")
    if highest_rolling_total(policy) > policy.cap - 80:
        raise RuntimeError("the first player's cap binds: raise EXTRA")
    return policy


def build(target: int = DEFAULT_TARGET) -> Policy:
    """Solve, check and write the table for ``target``."""
    policy = checked_solve(target)
    policy.save(table_path(target))
    return policy


@cache
def table(target: int = DEFAULT_TARGET) -> Policy:
    """The table for ``target``, once per process: read from the cache; if absent (or stale),
    solved and written there (kept in memory only if the cache dir is not writable)."""
    path = table_path(target)
    if path.exists():
        try:
            return Policy.read(path)
        except (OSError, ValueError, KeyError):
            pass  # stale or damaged: solve again below
    policy = checked_solve(target)
    with contextlib.suppress(OSError):
        policy.save(path)
    return policy


def has_table(target: int = DEFAULT_TARGET) -> bool:
    return table_path(target).exists()


# -- command line ---------------------------------------------------------------------------
def _info(policy: Policy, seconds: float | None) -> None:
    from ludix.bots import steady_threshold

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
            return 0
        start = time.perf_counter()
        policy = build(args.target)
        _info(policy, time.perf_counter() - start)
    else:
        _info(table(args.target), None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
