"""Measuring the Vexer's rule catalogue (:mod:`ludic.catalogue`) offline, in three distinct bands.

Two pools of playable rules (1/8 to 7/8 of the sets obey them): the atoms of the hypothesis space
and its pairs (``A and B``, ``A or B``). Each rule is drilled by the expert Seeker over several
deals, against the Vexer bot's hints (the counterexample that tells least,
:func:`ludic.bots.least_telling`); its difficulty is the mean number of actions (unsolved drills
count double). The bands keep apart: *easy* is the easiest atoms, *medium* the pairs around the
middle, *hard* the hardest pairs, each band between cut points with gaps between them (rules
between bands are left out), so a Vexer's level is a distinct difficulty.

**Call: no rule beyond the space.** The hard band once held three-atom rules the space lacks
(``A and B or C``): drilled in 23 to 44 actions, 78 of them were found in none of 312 real rounds
(two expert Seekers), not even those drilled in at most 28. The expert reasons beyond its space only once
every rule of the space is ruled out, and a round labels 15 to 18 sets (10 placed, the initial
sets, the hints of its guesses), too few for that; a Vexer of such rules scores nothing. The
hardest pairs (drilled in 21 to 31 actions) are found in about half the real rounds (RULES.md,
appendix B).
``python -m ludic.build catalogue`` (some minutes) writes ``ludic/data/vexer_rules.json``.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import numpy as np

from ludic import language as L
from ludic.bots import expert_seeker, least_telling
from ludic.catalogue import DATA, DIFFICULTIES, PLAYABLE
from ludic.drill import drill
from ludic.space import Space
from ludic.tables import compile_rule, table_of

BANDS = {"easy": (0.0, 0.30), "medium": (0.40, 0.70), "hard": (0.80, 1.0)}
"""Which quantiles of its pool's measured difficulty each band keeps (easy: of the atoms,
medium and hard: of the pairs)."""
POOLS = {"easy": "atoms", "medium": "pairs", "hard": "pairs"}


def measure(space: Space, mask: int, deals: int, seed: int) -> float:
    """The expert Seeker's mean number of actions on a rule over ``deals`` drills (Vexer bot hints)."""
    def hint(view: dict[str, object], rule: int, wrong: list[int]) -> int:
        return least_telling(space, view, rule, wrong)

    results = [drill(mask, expert_seeker, random.Random(seed * 1000 + d), vexer=hint) for d in range(deals)]
    return sum(r.actions if r.solved else 2 * r.actions for r in results) / deals


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


def build_catalogue(space: Space, atoms: int = 150, pairs: int = 300, deals: int = 3,
                    seed: int = 2024, path: Path = DATA) -> None:
    """Measure the three pools and write the bands to the catalogue's file."""
    rng = random.Random(seed)
    counts = np.unpackbits(space.packed, axis=1, bitorder="little").sum(axis=1)
    playable = (counts >= PLAYABLE[0]) & (counts <= PLAYABLE[1])
    atom_rows = [int(r) for r in np.flatnonzero(playable & (space.recipes[:, 0] == 0))]
    pair_rows = [int(r) for r in np.flatnonzero(playable & (space.recipes[:, 0] != 0))]
    pools = {
        "atoms": [space.rule(r) for r in rng.sample(atom_rows, min(atoms, len(atom_rows)))],
        "pairs": [space.rule(r) for r in rng.sample(pair_rows, pairs)],
    }
    measured: dict[str, list[tuple[float, str, int]]] = {}
    done = 0
    for pool, rules in pools.items():
        measured[pool] = []
        for rule in rules:
            text = L.render(rule)
            mask = table_of(text).obey
            assert mask == compile_rule(rule).obey, text
            measured[pool].append((measure(space, mask, deals, done), text, mask))
            done += 1
            if done % 50 == 0:
                print(f"  measured {done}/{sum(map(len, pools.values()))} rules", flush=True)
        measured[pool].sort()
    bands: dict[str, list[tuple[float, str, int]]] = {}
    for level in DIFFICULTIES:
        pool_rules, (low, high) = measured[POOLS[level]], BANDS[level]
        bands[level] = pool_rules[int(low * len(pool_rules)): max(int(high * len(pool_rules)), 1)]
    document = {
        "about": "Three bands of playable rules (1/8 to 7/8 of the sets obey): easy from the space's atoms, medium "
                 "and hard from its pairs, each measured by the expert Seeker's mean "
                 "number of actions over drills against the Vexer bot's least telling hints; see "
                 "ludic/catalogue_build.py.",
        "space_size": len(space), "deals": deals, "seed": seed, "bands": BANDS, "pools": POOLS,
    }
    write(path, document, separate(bands))
