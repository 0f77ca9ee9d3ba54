"""The expert's table at run time: the solved two-player game, read from its file once per process.

The file is built offline (:mod:`ludix.table_build`, ``python -m ludix.policy build``, run by
``make policy``) under ``$LUDOTECA_CACHE`` (default ``~/.cache/ludoteca``) as
``ludix-policy-t<target>-v<version>.npz``. Reading it needs numpy only: nothing here compiles.

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

import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from ludix.engine import DEFAULT_TARGET

VERSION = 1


def cache_dir() -> Path:
    return Path(os.environ.get("LUDOTECA_CACHE") or Path.home() / ".cache" / "ludoteca")


def table_path(target: int = DEFAULT_TARGET) -> Path:
    return cache_dir() / f"ludix-policy-t{target}-v{VERSION}.npz"


def has_table(target: int = DEFAULT_TARGET) -> bool:
    return table_path(target).exists()


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


@cache
def read_table(target: int = DEFAULT_TARGET) -> Policy:
    """The table for ``target`` from its file, once per process (``FileNotFoundError`` when it was
    never built, ``ValueError``/``KeyError`` when it is stale or damaged)."""
    return Policy.read(table_path(target))
