"""Measuring the Vexer's rule catalogue (:mod:`ludic.catalogue`) offline, in three distinct bands.

Three pools of playable rules (1/8 to 7/8 of the sets obey them): the atoms of the hypothesis
space, its pairs (``A and B``, ``A or B``), and rules *beyond* it, three atoms joined by and/or
(``A and B or C``, ``(A or B) and C``) whose table the space does not hold. Each rule is drilled
by the expert Seeker over several deals, against the Vexer bot's hints (the counterexample that
tells least, :func:`ludic.bots.least_telling`); its difficulty is the mean number of actions
(unsolved drills count double). The bands keep apart: *easy* is the easiest atoms, *medium* the
pairs around the middle, *hard* the hardest rules beyond the space, each band between cut points
with gaps between them (rules between bands are left out), so a Vexer's level is a distinct
difficulty. ``python -m ludic.build catalogue`` (some minutes) writes ``ludic/data/vexer_rules.json``.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ludic import language as L
from ludic.bots import expert_seeker, least_telling
from ludic.catalogue import DATA, DIFFICULTIES, PLAYABLE
from ludic.drill import drill
from ludic.space import Space
from ludic.tables import compile_rule, table_of

BANDS = {"easy": (0.0, 0.30), "medium": (0.40, 0.70), "hard": (0.55, 1.0)}
"""Which quantiles of its pool's measured difficulty each band keeps (easy: of the atoms,
medium: of the pairs, hard: of the rules beyond the space)."""


def measure(space: Space, mask: int, deals: int, seed: int) -> float:
    """The expert Seeker's mean number of actions on a rule over ``deals`` drills (Vexer bot hints)."""
    def hint(view: dict[str, object], rule: int, wrong: list[int]) -> int:
        return least_telling(space, view, rule, wrong)

    results = [drill(mask, expert_seeker, random.Random(seed * 1000 + d), vexer=hint) for d in range(deals)]
    return sum(r.actions if r.solved else 2 * r.actions for r in results) / deals


def beyond(space: Space, atom_rows: Sequence[int], count: int, rng: random.Random) -> list[L.Rule]:
    """``count`` playable rules of three atoms (``A and B or C``, ``(A or B) and C``) that the space
    does not hold."""
    out: list[L.Rule] = []
    seen: set[int] = set()
    while len(out) < count:
        a, b, c = (space.rule(r) for r in rng.sample(list(atom_rows), 3))
        rule: L.Rule = L.Or((L.And((a, b)), c)) if rng.random() < 0.5 else L.And((L.Or((a, b)), c))
        mask = compile_rule(rule).obey
        if PLAYABLE[0] <= mask.bit_count() <= PLAYABLE[1] and space.index_of(mask) is None and mask not in seen:
            seen.add(mask)
            out.append(rule)
    return out


def separate(bands: dict[str, list[tuple[float, str, int]]]) -> dict[str, list[tuple[float, str, int]]]:
    """Each band (sorted by measured actions) without the rules that reach into the next one: the
    harder band loses its easiest rule while the other's hardest is not below it, alternately, so
    every easy rule measures below every medium one, and medium below hard."""
    out = {level: list(rules) for level, rules in bands.items()}
    for lower, upper in itertools.pairwise(DIFFICULTIES):
        turn = 0
        while out[lower] and out[upper] and out[lower][-1][0] >= out[upper][0][0]:
            if turn % 2 == 0:
                out[upper].pop(0)
            else:
                out[lower].pop()
            turn += 1
    return out


def write(path: Path, document: dict[str, object], bands: dict[str, list[tuple[float, str, int]]]) -> None:
    """The catalogue's file: the document's fields, then one line per rule."""
    rules = [{"rule": text, "obey": format(mask, "x"), "difficulty": level, "actions": round(actions, 2)}
             for level in DIFFICULTIES for actions, text, mask in bands[level]]
    document = {**document, "thresholds": {d: [v[0][0], v[-1][0]] for d, v in bands.items() if v}}
    path.parent.mkdir(parents=True, exist_ok=True)
    head = json.dumps(document, indent=1)[:-2]
    lines = ",\n  ".join(json.dumps(r) for r in rules)
    path.write_text(f'{head},\n "rules": [\n  {lines}\n ]\n}}\n', encoding="utf-8")
    print(f"wrote {len(rules)} rules to {path}: " + ", ".join(
        f"{d} {v[0][0]:.1f}..{v[-1][0]:.1f} actions ({len(v)} rules)" for d, v in bands.items() if v))


def build_catalogue(space: Space, atoms: int = 150, pairs: int = 200, hard: int = 200, deals: int = 3,
                    seed: int = 2024, path: Path = DATA) -> None:
    """Measure the three pools and write the bands to the catalogue's file."""
    rng = random.Random(seed)
    counts = np.unpackbits(space.packed, axis=1, bitorder="little").sum(axis=1)
    playable = (counts >= PLAYABLE[0]) & (counts <= PLAYABLE[1])
    atom_rows = [int(r) for r in np.flatnonzero(playable & (space.recipes[:, 0] == 0))]
    pair_rows = [int(r) for r in np.flatnonzero(playable & (space.recipes[:, 0] != 0))]
    pools = {
        "easy": [space.rule(r) for r in rng.sample(atom_rows, min(atoms, len(atom_rows)))],
        "medium": [space.rule(r) for r in rng.sample(pair_rows, pairs)],
        "hard": beyond(space, atom_rows, hard, rng),
    }
    bands: dict[str, list[tuple[float, str, int]]] = {}
    done = 0
    for level in DIFFICULTIES:
        measured = []
        for rule in pools[level]:
            text = L.render(rule)
            mask = table_of(text).obey
            assert mask == compile_rule(rule).obey, text
            measured.append((measure(space, mask, deals, done), text, mask))
            done += 1
            if done % 50 == 0:
                print(f"  measured {done}/{sum(map(len, pools.values()))} rules", flush=True)
        measured.sort()
        low, high = BANDS[level]
        bands[level] = measured[int(low * len(measured)): max(int(high * len(measured)), 1)]
    document = {
        "about": "Three bands of playable rules (1/8 to 7/8 of the sets obey): easy from the space's atoms, medium "
                 "from its pairs, hard from three-atom rules beyond it, each measured by the expert Seeker's mean "
                 "number of actions over drills against the Vexer bot's least telling hints; see "
                 "ludic/catalogue_build.py.",
        "space_size": len(space), "deals": deals, "seed": seed, "bands": BANDS,
    }
    write(path, document, separate(bands))
