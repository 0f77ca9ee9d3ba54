"""Measuring the Vexer's rule catalogue (:mod:`ludic.catalogue`) offline, in three distinct bands.

The playable rules (1/8 to 7/8 of the sets obey them) of the hypothesis space: every atom and a
sample of :data:`PAIRS` pairs (``A and B``, ``A or B``), drawn with a fixed seed. Each rule is
drilled by the expert Seeker against the Vexer bot's hints (the counterexample that tells least,
:func:`ludic.bots.least_telling`); its difficulty is the number of actions (an unsolved drill
counts double). The bands are quantiles of that measure, with gaps between them, and every rule
of a band measures below every rule of the next (:func:`separate`), so a Vexer's level is a
distinct difficulty. Issue 26: the bands are large (about 1,900 rules each), so a spectator who
reads this file cannot look the rule up: ``tests/bench/bench_ludic_bots.py --spectator``.

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
from ludic.space import Space, fingerprint
from ludic.tables import compile_rule, table_of

BANDS = {"easy": (0.0, 0.30), "medium": (0.40, 0.70), "hard": (0.80, 1.0)}
"""Which quantiles of the measured difficulty each band keeps (of all the rules measured: the
space's playable atoms and a sample of its playable pairs)."""
PAIRS = 6000
"""How many pairs are measured beside the atoms. Issue 26: a catalogue of a few dozen rules a band
could be looked up (a spectator reading it named an easy rule 78% of the time after 6 public
sets); a band of ~1,900 rules leaves a spectator who knows it dozens of candidates."""


def measure(space: Space, mask: int, deals: int, seed: int) -> float:
    """The expert Seeker's mean number of actions on a rule over ``deals`` drills (Vexer bot hints)."""
    def hint(view: dict[str, object], rule: int, wrong: list[int]) -> int:
        return least_telling(space, view, rule, wrong)

    results = [drill(mask, expert_seeker, random.Random(seed * 1000 + d), vexer=hint) for d in range(deals)]
    return sum(r.actions if r.solved else 2 * r.actions for r in results) / deals


def separate(bands: dict[str, list[tuple[float, int]]]) -> dict[str, list[tuple[float, int]]]:
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


def write(path: Path, document: dict[str, object], bands: dict[str, list[tuple[float, int]]]) -> None:
    """The catalogue's file: the document's fields, then each band's rows of the space with their
    measured actions (one band a line)."""
    document = {**document, "thresholds": {d: [v[0][0], v[-1][0]] for d, v in bands.items() if v}}
    path.parent.mkdir(parents=True, exist_ok=True)
    head = json.dumps(document, indent=1)[:-2]
    lines = ",\n  ".join(f'"{level}": ' + json.dumps([[row, round(actions, 2)] for actions, row in bands[level]])
                          for level in DIFFICULTIES)
    path.write_text(f'{head},\n "rows": {{\n  {lines}\n }}\n}}\n', encoding="utf-8")
    print(f"wrote {path}: " + ", ".join(
        f"{d} {v[0][0]:.1f}..{v[-1][0]:.1f} actions ({len(v)} rules)" for d, v in bands.items() if v))


def build_catalogue(space: Space, pairs: int = PAIRS, deals: int = 3, seed: int = 2026, path: Path = DATA) -> None:
    """Measure every playable atom of the space and ``pairs`` of its playable pairs, and write the
    bands (quantiles of the measured difficulty, kept apart) to the catalogue's file."""
    rng = random.Random(seed)
    counts = np.unpackbits(space.packed, axis=1, bitorder="little").sum(axis=1)
    playable = (counts >= PLAYABLE[0]) & (counts <= PLAYABLE[1])
    atom_rows = [int(r) for r in np.flatnonzero(playable & (space.recipes[:, 0] == 0))]
    pair_rows = [int(r) for r in np.flatnonzero(playable & (space.recipes[:, 0] != 0))]
    rows = atom_rows + rng.sample(pair_rows, min(pairs, len(pair_rows)))
    measured: list[tuple[float, int]] = []
    for k, row in enumerate(rows):
        text = L.render(space.rule(row))
        assert table_of(text).obey == space.mask(row) == compile_rule(space.rule(row)).obey, text
        measured.append((measure(space, space.mask(row), deals, k), row))
        if (k + 1) % 500 == 0:
            print(f"  measured {k + 1}/{len(rows)} rules", flush=True)
    measured.sort()
    bands = {level: measured[int(low * len(measured)): max(int(high * len(measured)), 1)]
             for level, (low, high) in BANDS.items()}
    document = {
        "about": "Three bands of playable rules (1/8 to 7/8 of the sets obey) of the hypothesis space: its atoms "
                 "and a sample of its pairs, each measured by the expert Seeker's number of actions in drills "
                 "against the Vexer bot's least telling hints (unsolved: twice), banded by quantile; rows: "
                 "[row of the space, actions]; see ludic/catalogue_build.py.",
        "space": fingerprint(space.atoms), "space_size": len(space), "atoms": len(atom_rows), "pairs": pairs,
        "deals": deals, "seed": seed, "bands": BANDS,
    }
    write(path, document, separate(bands))
