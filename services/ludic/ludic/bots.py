"""Ludic's bots: pure functions of a seat's view (never the state) and its legal actions.

Every level plays both roles, as seats take turns being the Vexer:

- ``random``: as a Seeker, any legal query, play or draw, never guesses; as Vexer, a legal rule
  of any difficulty from the Vexer's catalogue (:mod:`ludic.catalogue`).
- ``easy``, ``medium``, ``hard``: the expert Seeker; as Vexer, a legal rule of that difficulty.
- ``expert``: the expert Seeker; as Vexer, a rule of the band that scores most
  (:data:`EXPERT_VEXER_BAND`, easy).

The expert Seeker (:mod:`ludic.seeker`) eliminates candidates among the hypothesis space's
distinct truth tables (:mod:`ludic.space`) and picks the query, play or guess worth the most
expected information per action; it writes its guesses in the rule language.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import numpy as np
from ludoteca.core.engine import JSON, Bot

from ludic.catalogue import DIFFICULTIES, vexer_rules
from ludic.rules import InitialSets, illegality
from ludic.seeker import believe, decide, evidence, obey_fraction
from ludic.space import Space, space
from ludic.tables import Table, table_of
from ludic.universe import BREAK, OBEY, set_of_codes

RULE_PLACEHOLDER = "<rule>"
EXPERT_VEXER_BAND = "easy"
"""The band the expert writes its rules from as Vexer: the one that scores most. Points a round
in real 3-seat rounds (RULES.md appendix B, ``tests/bench/bench_ludic_bots.py --games 60``, the
catalogue of issue 26): against two expert Seekers easy 7.00 ± 0.38 (found in 90% of rounds),
medium 5.67 ± 0.50 (78%), hard 3.95 ± 0.49 (57%); against an expert and a random Seeker easy
5.23 ± 0.48, medium 3.02 ± 0.50, hard 2.32 ± 0.47 (so ``expert`` plays as ``easy`` does)."""


# ---- the Vexer --------------------------------------------------------------------------------------
def initial_sets(view: JSON) -> InitialSets:
    obey, broken = view["columns"][OBEY][0], view["columns"][BREAK][0]
    return InitialSets(set_of_codes(obey["top"], obey["bottom"]), set_of_codes(broken["top"], broken["bottom"]))


def choose_rule(view: JSON, difficulty: str | None, rng: random.Random) -> str:
    """A legal rule for the dealt initial sets from the Vexer's catalogue: of the asked difficulty (the
    nearest one when none fits), or of any difficulty; failing all, the first rule of the space
    that fits (some atom always separates two distinct sets)."""
    initial = initial_sets(view)
    fitting = [r for r in vexer_rules() if illegality(Table(r.obey), initial) is None]
    if difficulty is None and fitting:
        return rng.choice(fitting).text
    for level in sorted(DIFFICULTIES, key=lambda d: abs(DIFFICULTIES.index(d) - DIFFICULTIES.index(difficulty or d))):
        chosen = [r.text for r in fitting if r.difficulty == level]
        if chosen:
            return rng.choice(chosen)
    sp = space()
    return next(sp.text(row) for row in range(len(sp)) if illegality(Table(sp.mask(row)), initial) is None)


def least_telling(space_: Space, view: JSON, rule: int, candidates: Sequence[int]) -> int:
    """Of the sets a hint may show, the one that tells a Seeker least: the hypotheses a Seeker
    holds from what is public (:func:`ludic.seeker.evidence` of this view) that the hint leaves
    standing weigh most (the first such set on a tie)."""
    belief = believe(space_, evidence(view))
    kept = [float(p if rule >> s & 1 else 1.0 - p) for s, p in zip(candidates, obey_fraction(belief, list(candidates)),
                                                                     strict=True)]
    return candidates[max(range(len(kept)), key=lambda i: (kept[i], -i))]


def vexer_action(view: JSON, legal: Sequence[JSON], rng: random.Random, difficulty: str | None) -> JSON:
    if view["phase"] == "rule":
        return {"type": "write_rule", "rule": choose_rule(view, difficulty, rng)}
    choices = [a for a in legal if a["type"] in ("choose_flip", "choose_hint")]
    if choices and choices[0]["type"] == "choose_flip":
        return dict(choices[0])  # the oldest set after the initial one
    if choices and view.get("rule") and difficulty is not None:  # the random Vexer picks at random
        sets = [set_of_codes(c["top"], c["bottom"]) for c in choices]
        chosen = least_telling(space(), view, table_of(view["rule"]).obey, sets)
        return dict(choices[sets.index(chosen)])
    return dict(rng.choice(list(legal)))


# ---- the Seekers --------------------------------------------------------------------------------------
def _plain(legal: Sequence[JSON]) -> list[JSON]:
    return [dict(a) for a in legal if RULE_PLACEHOLDER not in a.values()]


def random_seeker(view: JSON, legal: Sequence[JSON], rng: random.Random) -> JSON:
    return dict(rng.choice(_plain(legal)))


def expert_seeker(view: JSON, legal: Sequence[JSON], rng: random.Random) -> JSON:
    """Candidate elimination and most-informative queries; guesses in the rule language."""
    return decide(space(), view, legal, np.random.default_rng(rng.getrandbits(64)))


def make_bot(seeker: Callable[[JSON, Sequence[JSON], random.Random], JSON], difficulty: str | None) -> Bot:
    def bot(view: JSON, legal: Sequence[JSON], rng: random.Random) -> JSON:
        if view["phase"] == "cut":
            return {"type": "cut"}
        if view["role"] == "vexer":
            return vexer_action(view, legal, rng, difficulty)
        return seeker(view, legal, rng)

    return bot


BOTS: dict[str, Bot] = {
    "random": make_bot(random_seeker, None),
    "easy": make_bot(expert_seeker, "easy"),
    "medium": make_bot(expert_seeker, "medium"),
    "hard": make_bot(expert_seeker, "hard"),
    "expert": make_bot(expert_seeker, EXPERT_VEXER_BAND),
}


__all__ = ["BOTS", "expert_seeker", "random_seeker", "vexer_action"]
