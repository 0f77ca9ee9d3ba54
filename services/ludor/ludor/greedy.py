"""What a seat can do in a trick, abstractly, and the ``greedy`` policy.

Bots reason on hands as 15 counts (one per power, see :mod:`ludor.hierarchy`): suits never matter
in play. A :class:`Choice` is a move in that form; :mod:`ludor.bots` turns it into the action body.
The greedy policy is the ``greedy`` bot; :mod:`ludor.rollouts` compiles the very same policy for
the ``expert``'s simulations (a test holds the two to the same results).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ludor.combos import SET, TWO_OF_OROS_PLAY, Combo, Ruleset, Take, answers, classify, is_plim, plays, unit
from ludor.engine import ActionType
from ludor.hierarchy import AUTOPLIM, JOKER, POWERS, TWO, TWO_OF_OROS
from ludor.trick import Trick

PLAY, PASS, AUTOPLIM_MOVE = ActionType.PLAY, ActionType.PASS, ActionType.PLAY_AUTOPLIM
"""The kinds of a :class:`Choice`: the types of the action bodies they become."""
NONE = "none"
"""The kind of the choice that is no move (out of turn: let the round go on)."""
CONTROL = (TWO, JOKER, AUTOPLIM, TWO_OF_OROS)
"""The cards a greedy player keeps to win tricks late: 2s, jokers, the Autoplim, the 2 de Oros."""

ENDGAME_PLAIN_CARDS = 3
"""With this few non-control cards left, greedy spends control cards to take the lead."""


class Choice(NamedTuple):
    """A move: play ``take`` (counts per power), pass, or put down the Autoplim (``plim``: declare).
    ``named``: the rank (power) named for jokers played alone (None: Joker)."""

    kind: ActionType | str
    take: Take | None = None
    plim: bool = False
    named: int | None = None


def play_choice(combo: Combo, take: Take) -> Choice:
    """The choice of playing ``take`` as ``combo`` (jokers alone below Joker are named)."""
    named = combo.power if combo.kind == SET and combo.power < JOKER and not any(take[:JOKER]) else None
    return Choice(PLAY, take, named=named)


PASS_CHOICE = Choice(PASS)


def uses_control(take: Sequence[int]) -> bool:
    return any(take[p] for p in CONTROL)


def autoplim_choice(trick: Trick, plim_mode_on: bool) -> Choice:
    """Declaring the PLIM costs nothing, so a bot declares it whenever there is a play under it."""
    return Choice(AUTOPLIM_MOVE, None, plim_mode_on and trick.top is not None)


def lead_sets(counts: Sequence[int]) -> list[Choice]:
    """One lead per rank held: all the natural cards of that rank (no jokers)."""
    out = []
    for p in range(JOKER):
        if counts[p]:
            take = [0] * POWERS
            take[p] = counts[p]
            out.append(Choice(PLAY, tuple(take)))
    return out


def candidates(counts: Sequence[int], trick: Trick, rules: Ruleset, plim_mode_on: bool,
               wide: bool = False) -> list[Choice]:
    """The moves worth considering in turn: undominated answers (jokers alone named the top's
    rank, a PLIM, among them; or, leading, each rank's whole set, jokers alone, the 2 de Oros;
    ``wide``: every undominated lead, i.e. also part of a rank's set, a whole set with jokers
    added, a straight), passing, and the Autoplim."""
    if trick.top is None and wide:
        out = [play_choice(c, t) for c, t in plays(counts, None, rules, complete=False)]
    elif trick.top is None:
        out = lead_sets(counts)
        out.extend(Choice(PLAY, t) for c, t in plays(counts, None, rules, complete=False) if c.power >= JOKER)
    else:
        out = [play_choice(c, t) for c, t in plays(counts, trick.top, rules, complete=False)]
        out.append(PASS_CHOICE)
    if counts[AUTOPLIM]:
        out.append(autoplim_choice(trick, plim_mode_on))
    return out


def _wins_by_plim(trick: Trick, seat: int, sizes: Sequence[int]) -> bool:
    """Would a PLIM by ``seat`` now leave nobody else in the trick?"""
    n = len(sizes)
    contenders = sum(1 for s in range(n)
                     if s != seat and sizes[s] and s not in trick.passed and s not in trick.blocked)
    return contenders <= 1


def greedy(counts: Sequence[int], trick: Trick, seat: int, sizes: Sequence[int], two_of_oros_played: bool,
           rules: Ruleset, plim_mode_on: bool) -> Choice:
    """Shed the lowest cards; keep 2s, jokers and the 2 de Oros for control (spent once few other
    cards are left); PLIM when that wins the trick; the Autoplim when nothing can beat it."""
    top = trick.top
    whole = classify(counts, rules)
    if whole is not None and answers(top, whole):
        return Choice(PLAY, tuple(counts))
    total = sizes[seat]
    has_autoplim = counts[AUTOPLIM] > 0
    if has_autoplim and total == 1:
        return autoplim_choice(trick, plim_mode_on)
    plain = total - sum(counts[p] for p in CONTROL)
    sure_autoplim = has_autoplim and (two_of_oros_played or counts[TWO_OF_OROS] > 0)
    if top is None:
        return _lead(counts, plain, sure_autoplim, trick, plim_mode_on)
    answers_ = _answers(counts, top, rules)
    if _wins_by_plim(trick, seat, sizes):
        for c, t in answers_:
            if is_plim(top, c):
                return Choice(PLAY, t)
    for _, t in answers_:
        if not uses_control(t):
            return Choice(PLAY, t)
    if sure_autoplim:
        return autoplim_choice(trick, plim_mode_on)
    if plain <= ENDGAME_PLAIN_CARDS:
        if answers_:
            return Choice(PLAY, answers_[0][1])
        if counts[TWO_OF_OROS]:
            return Choice(PLAY, unit(TWO_OF_OROS))
    return PASS_CHOICE


def _answers(counts: Sequence[int], top: Combo, rules: Ruleset) -> list[tuple[Combo, Take]]:
    """The undominated answers to ``top`` (not the 2 de Oros), lowest first. Sets, the common
    case, are found directly: one answer per rank, its natural cards completed by jokers."""
    if top.kind != SET:
        return [(c, t) for c, t in plays(counts, top, rules, complete=False) if c.kind != TWO_OF_OROS_PLAY]
    k, jokers = top.size, counts[JOKER]
    out = []
    for p in range(top.power, JOKER):
        n = counts[p]
        if n and n + jokers >= k:
            take = [0] * POWERS
            take[p] = min(n, k)
            take[JOKER] = k - take[p]
            out.append((Combo(SET, p, k), tuple(take)))
    if jokers >= k:
        out.append((Combo(SET, JOKER, k), unit(JOKER, k)))
    return out


def _lead(counts: Sequence[int], plain: int, sure_autoplim: bool, trick: Trick, plim_mode_on: bool) -> Choice:
    if plain:
        return lead_sets(counts)[0]
    if counts[TWO_OF_OROS]:
        return Choice(PLAY, unit(TWO_OF_OROS))
    if sure_autoplim:
        return autoplim_choice(trick, plim_mode_on)
    if counts[TWO]:
        return Choice(PLAY, unit(TWO, counts[TWO]))
    if counts[JOKER]:
        return Choice(PLAY, unit(JOKER, counts[JOKER]))
    return autoplim_choice(trick, plim_mode_on)
