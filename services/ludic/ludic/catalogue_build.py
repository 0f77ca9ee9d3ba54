"""Measuring the Vexer's rule catalogue (:mod:`ludic.catalogue`) offline: every playable atom and
a sample of playable pairs of the hypothesis space, each drilled by the expert Seeker over several
deals, split into thirds by the mean number of actions. ``python -m ludic.build catalogue`` (a few
minutes) writes ``ludic/data/vexer_rules.json``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np

from ludic.bots import expert_seeker
from ludic.catalogue import DATA, DIFFICULTIES, PLAYABLE
from ludic.drill import drill
from ludic.space import Space
from ludic.tables import table_of


def measure(space: Space, row: int, deals: int, seed: int) -> float:
    """The expert Seeker's mean number of actions on rule ``row`` over ``deals`` drills."""
    mask = space.mask(row)
    results = [drill(mask, expert_seeker, random.Random(seed * 1000 + d)) for d in range(deals)]
    return sum(r.actions if r.solved else 2 * r.actions for r in results) / deals


def build_catalogue(space: Space, pairs: int = 1500, deals: int = 6, seed: int = 2024,
                        path: Path = DATA) -> None:
    """Every playable atom and ``pairs`` random playable pairs of atoms, each measured over
    ``deals`` drills, split into thirds, written to the catalogue's file."""
    rng = random.Random(seed)
    counts = np.unpackbits(space.packed, axis=1, bitorder="little").sum(axis=1)
    playable = (counts >= PLAYABLE[0]) & (counts <= PLAYABLE[1])
    atoms = [int(r) for r in np.flatnonzero(playable & (space.recipes[:, 0] == 0))]
    combined = [int(r) for r in np.flatnonzero(playable & (space.recipes[:, 0] != 0))]
    rows = sorted(atoms + rng.sample(combined, pairs))
    measured = []
    for n, row in enumerate(rows):
        measured.append((measure(space, row, deals, row), row))
        if n % 100 == 0:
            print(f"  measured {n}/{len(rows)} rules", flush=True)
    measured.sort()
    third = len(measured) // 3
    rules = []
    bounds: dict[str, list[float]] = {d: [] for d in DIFFICULTIES}
    for rank, (actions, row) in enumerate(measured):
        level = DIFFICULTIES[min(rank // third, 2)]
        bounds[level].append(actions)
        text = space.text(row)
        assert table_of(text).obey == space.mask(row), text
        rules.append({"rule": text, "obey": format(space.mask(row), "x"), "difficulty": level,
                      "actions": round(actions, 2)})
    document = {
        "about": "Playable rules from the hypothesis space (1/8 to 7/8 of the sets obey): every atom and a "
                 "sample of pairs, with the expert Seeker's mean number of actions over drills; thirds by "
                 "that measure.",
        "space_size": len(space), "deals": deals, "seed": seed,
        "thresholds": {d: [min(v), max(v)] for d, v in bounds.items()},
        "rules": rules,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    head = json.dumps({k: v for k, v in document.items() if k != "rules"}, indent=1)[:-2]
    lines = ",\n  ".join(json.dumps(r) for r in rules)
    path.write_text(f'{head},\n "rules": [\n  {lines}\n ]\n}}\n', encoding="utf-8")
    print(f"wrote {len(rules)} rules to {path}: " + ", ".join(
        f"{d} {min(v):.1f}..{max(v):.1f} actions" for d, v in bounds.items()))
