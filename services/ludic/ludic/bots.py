"""Ludic's bots: pure functions of a seat's view (never the state) and its legal actions.

Every level plays both roles, as seats take turns being the Vexer:

- ``random``: as a Seeker, any legal query, play or draw, never guesses; as Vexer, a legal rule
  of any difficulty from the Vexer library.
- ``easy``, ``medium``, ``hard``: the expert Seeker; as Vexer, a legal rule of that difficulty.
- ``expert``: the expert Seeker; as Vexer, a hard rule.

The expert Seeker (:mod:`ludic.seeker`) eliminates candidates among the hypothesis space's
distinct truth tables (:mod:`ludic.library`) and picks the query or play of most expected
information; it guesses, in the rule language, when the evidence points to one table.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from ludoteca.engine import JSON, Bot

from ludic.difficulty import DIFFICULTIES, vexer_rules
from ludic.library import space
from ludic.rules import InitialSets, illegality
from ludic.seeker import (
    GUESS_AT,
    LOW_INFORMATION,
    believe,
    best_guess_row,
    column_name,
    entropy,
    evidence,
    guess_text,
    guess_value,
    obey_fraction,
    pair_set,
)
from ludic.tables import Table, table_of
from ludic.universe import BREAK, OBEY, set_of_codes

RULE_PLACEHOLDER = "<rule>"


# ---- the Vexer --------------------------------------------------------------------------------------
def initial_sets(view: JSON) -> InitialSets:
    obey, broken = view["columns"][OBEY][0], view["columns"][BREAK][0]
    return InitialSets(set_of_codes(obey["top"], obey["bottom"]), set_of_codes(broken["top"], broken["bottom"]))


def choose_rule(view: JSON, difficulty: str | None, rng: random.Random) -> str:
    """A legal rule for the dealt initial sets from the Vexer library (the nearest difficulty when
    none of the asked one fits; a rule naming the 'obey' initial set as the last resort)."""
    initial = initial_sets(view)
    order = list(DIFFICULTIES) if difficulty is None else sorted(
        DIFFICULTIES, key=lambda d: abs(DIFFICULTIES.index(d) - DIFFICULTIES.index(difficulty)))
    for level in order:
        fitting = [r.text for r in vexer_rules() if r.difficulty == level
                   and illegality(Table(r.obey), initial) is None]
        if fitting and (difficulty is not None or level == order[-1] or rng.random() < 0.5):
            return rng.choice(fitting)
    sp = space()
    for row in range(len(sp)):
        if illegality(Table(sp.mask(row)), initial) is None:
            return sp.text(row)
    raise AssertionError("no rule fits two distinct sets")  # pragma: no cover - atoms separate any two


def vexer_action(view: JSON, legal: Sequence[JSON], rng: random.Random, difficulty: str | None) -> JSON:
    if view["phase"] == "rule":
        return {"type": "write_rule", "rule": choose_rule(view, difficulty, rng)}
    choices = [a for a in legal if a["type"] in ("choose_flip", "choose_hint")]
    if choices and choices[0]["type"] == "choose_flip":
        return dict(choices[0])  # the oldest set after the initial one
    return dict(rng.choice(list(legal)))


# ---- the Seekers --------------------------------------------------------------------------------------
def _plain(legal: Sequence[JSON]) -> list[JSON]:
    return [dict(a) for a in legal if RULE_PLACEHOLDER not in a.values()]


def random_seeker(view: JSON, legal: Sequence[JSON], rng: random.Random) -> JSON:
    return dict(rng.choice(_plain(legal)))


def expert_seeker(view: JSON, legal: Sequence[JSON], rng: random.Random) -> JSON:
    """Candidate elimination and most-informative queries; guesses in the rule language."""
    plain = _plain(legal)
    sp = space()
    belief = believe(sp, evidence(view))
    hand = view.get("hand") or []
    pairs = [(a, b) for a in hand for b in hand if a != b]
    shares = obey_fraction(sp, belief, [pair_set(t, b) for t, b in pairs])
    infos = [entropy(float(p)) for p in shares]
    best_info = max(infos, default=0.0)
    wants_guess = belief.size <= GUESS_AT or guess_value(sp, belief) >= max(best_info, LOW_INFORMATION)
    if any(a["type"] == "guess" for a in legal):
        if view["phase"] == "final" or wants_guess:
            return {"type": "guess", "rule": guess_text(sp, belief, best_guess_row(belief))}
        return {"type": "pass"}
    kinds = {a["type"] for a in plain}
    if not pairs or not kinds & {"query", "play"}:
        return plain[0]
    if "draw" in kinds and not wants_guess and best_info < LOW_INFORMATION:
        return {"type": "draw"}
    if "query" in kinds and not wants_guess:
        i = max(range(len(pairs)), key=lambda j: (infos[j], -j))
        return {"type": "query", "top": pairs[i][0], "bottom": pairs[i][1]}
    # A play: the surest set when a guess is wanted, else the most informative one.
    if wants_guess:
        i = max(range(len(pairs)), key=lambda j: (abs(float(shares[j]) - 0.5), infos[j], -j))
    else:
        i = max(range(len(pairs)), key=lambda j: (infos[j], -j))
    top, bottom = pairs[i]
    return {"type": "play", "top": top, "bottom": bottom, "column": column_name(float(shares[i]) >= 0.5)}


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
    "expert": make_bot(expert_seeker, "hard"),
}


def rule_table(text: str) -> Table:
    return table_of(text)


__all__ = ["BOTS", "expert_seeker", "random_seeker", "vexer_action"]
