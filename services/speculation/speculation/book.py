"""The joker book: the solver's decision trees, computed once and kept on disk.

When a player reaches the joker, 12 of the opponent's 20 value cards are known, so the joker is 4
of the other 8. Up to a renaming of values, those 8 cards come in five *patterns*: ``n2`` values
with both copies unseen and ``8 - 2*n2`` with one (``n2`` = 0..4). Before the first joker guess
the weighted hands depend on the pattern only, and each later decision on the pattern and the
guesser's own joker guesses and answers. So the expert's every joker decision in real play is a
node of one of five trees (per ``joker_guesses`` option), which this module computes with
:class:`~speculation.solver.JokerSolver` and stores. A sixth tree per option, ``unknown``, is the
joker with nothing known (the 615 hands, equally likely): the benchmark's figure, never met in
play.

A tree is written over *canonical* values: the values with two copies unseen are 1..n2, those
with one are next, the rest last. :func:`canonical_order` maps a real position to it.

Where the book lives: ``speculation/data/joker_book.json`` in the package (committed, built by
``python -m speculation.book build``), else ``$LUDOTECA_CACHE/speculation/joker_book.json``
(default ``~/.cache/ludoteca``), built there on first use when neither exists.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cache
from math import comb
from pathlib import Path
from typing import Any

import numpy as np

from speculation.board import COPIES, VALUES
from speculation.engine import JokerGuesses
from speculation.joker import ALL_GUESSES, GUESS_INDEX, HANDS, JOKER_SIZE, Hand, is_hand
from speculation.solver import FloatArray, IntArray, JokerSolver

BOOK_VERSION = 1
FILE_NAME = "joker_book.json"
UNSEEN = 8
"""Value cards still unseen when the joker is reached: 20 - 12 found."""
PATTERNS = tuple(range(UNSEEN // COPIES + 1))
UNKNOWN = "unknown"
PLAY_BREADTH = 12
UNKNOWN_BREADTH = 3

Node = dict[str, Any]
"""``{"guess": [values], "then": {"<answer>": Node}}``; no ``then`` when the guess must be right."""


def pattern_copies(n2: int) -> dict[int, int]:
    """Canonical unseen copies per value for the pattern with ``n2`` pairs."""
    n1 = UNSEEN - COPIES * n2
    return {v: 2 if v <= n2 else 1 if v <= n2 + n1 else 0 for v in VALUES}


def prior(copies: Mapping[int, int]) -> tuple[list[Hand], list[float]]:
    """Hands possible with these unseen copies, weighted by how many deals give each."""
    hands, weights = [], []
    for h in HANDS:
        w = float(np.prod([comb(copies[v], n) for v, n in Counter(h).items()]))
        if w:
            hands.append(h)
            weights.append(w)
    return hands, weights


def canonical_order(copies: Mapping[int, int]) -> dict[int, int]:
    """Real value -> canonical value: most unseen copies first, then by value."""
    ranked = sorted(VALUES, key=lambda v: (-copies[v], v))
    return {v: i + 1 for i, v in enumerate(ranked)}


def pattern_of(copies: Mapping[int, int]) -> int | None:
    """The pattern (pairs unseen) of a position at the joker, None if it is not one."""
    if sum(copies.values()) != UNSEEN:
        return None
    return sum(1 for c in copies.values() if c == COPIES)


def allowed_guesses(kind: JokerGuesses) -> list[int]:
    return [i for i, g in enumerate(ALL_GUESSES) if kind is JokerGuesses.ANY or is_hand(g)]


# -- building -------------------------------------------------------------------------------------
def build_tree(solver: JokerSolver, hands: Sequence[Hand], weights: Sequence[float]) -> Node:
    """The whole decision tree the solver follows from these weighted hands."""
    cands = np.array(sorted(GUESS_INDEX[h] for h in hands), dtype=np.int64)
    by_index = {GUESS_INDEX[h]: float(w) for h, w in zip(hands, weights, strict=True)}
    w = np.array([by_index[int(c)] for c in cands])
    root = solver.plan_indices(cands, w / w.sum())
    return _subtree(solver, cands, w / w.sum(), root.worst)


def _subtree(solver: JokerSolver, cands: IntArray, w: FloatArray, d: int) -> Node:
    plan = solver.plan_within(cands, w, d)
    assert plan is not None
    node: Node = {"guess": list(ALL_GUESSES[plan.guess])}
    answers = solver.answers(plan.guess, cands)
    then = {}
    for k in range(JOKER_SIZE):
        idx = np.flatnonzero(answers == k)
        if len(idx):
            pw = w[idx]
            then[str(k)] = _subtree(solver, cands[idx], pw / pw.sum(), d - 1)
    if then:
        node["then"] = then
    return node


def build(unknown: bool, log: Any = None) -> dict[str, Any]:
    """The whole book (``unknown``: with the nothing-known trees, several minutes each)."""
    trees: dict[str, Node] = {}
    for kind in JokerGuesses:
        solver = JokerSolver(allowed_guesses(kind), breadth=PLAY_BREADTH)
        for n2 in PATTERNS:
            trees[f"{kind.value}/{n2}"] = build_tree(solver, *prior(pattern_copies(n2)))
            if log:
                print(f"built {kind.value}/{n2}", file=log, flush=True)
        if unknown:
            solver = JokerSolver(allowed_guesses(kind), breadth=UNKNOWN_BREADTH)
            trees[f"{kind.value}/{UNKNOWN}"] = build_tree(solver, HANDS, [1.0] * len(HANDS))
            if log:
                print(f"built {kind.value}/{UNKNOWN}", file=log, flush=True)
    return {"version": BOOK_VERSION, "breadth": {"play": PLAY_BREADTH, UNKNOWN: UNKNOWN_BREADTH},
            "trees": trees}


# -- where it lives -------------------------------------------------------------------------------
def packaged_path() -> Path:
    return Path(__file__).with_name("data") / FILE_NAME


def cache_path() -> Path:
    root = Path(os.environ.get("LUDOTECA_CACHE") or Path.home() / ".cache" / "ludoteca")
    return root / "speculation" / FILE_NAME


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("version") == BOOK_VERSION else None


def save(book: Mapping[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(book, separators=(",", ":"), sort_keys=True))
    tmp.replace(path)


@cache
def load() -> dict[str, Node]:
    """The book's trees: packaged, else cached, else built now (play trees only) and cached."""
    for path in (packaged_path(), cache_path()):
        data = _read(path)
        if data is not None:
            return dict(data["trees"])
    book = build(unknown=False)
    save(book, cache_path())
    return dict(book["trees"])


def tree(kind: JokerGuesses, pattern: int | str) -> Node | None:
    return load().get(f"{kind.value}/{pattern}")


# -- following it ---------------------------------------------------------------------------------
def follow(root: Node, history: Sequence[tuple[Hand, int]]) -> Node | None:
    """The node after these guesses and answers (canonical values), None if off the book."""
    node = root
    for guess, right in history:
        nxt = node.get("then", {}).get(str(right))
        if tuple(node["guess"]) != tuple(guess) or nxt is None:
            return None
        node = nxt
    return node


def book_guess(kind: JokerGuesses, copies: Mapping[int, int],
               history: Sequence[tuple[Hand, int]]) -> Hand | None:
    """The book's next joker guess in a real position (None when the book has no answer)."""
    pattern = pattern_of(copies)
    root = tree(kind, pattern) if pattern is not None else None
    if root is None:
        return None
    to_canon = canonical_order(copies)
    from_canon = {c: v for v, c in to_canon.items()}
    node = follow(root, [(tuple(sorted(to_canon[v] for v in g)), r) for g, r in history])
    if node is None:
        return None
    return tuple(sorted(from_canon[c] for c in node["guess"]))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m speculation.book", description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["build"])
    parser.add_argument("--play-only", action="store_true", help="skip the nothing-known trees")
    parser.add_argument("--out", type=Path, default=packaged_path())
    args = parser.parse_args(argv)
    save(build(unknown=not args.play_only, log=sys.stderr), args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
