"""Ludic's secrets, as a perturbation for the contract suite (``tests/contract/twins.py`` finds
this file by its path): ``twin(state, seat, rnd)`` is the same game with everything ``seat``
(``None``: a spectator) may not know changed."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from contract.twins import other_rng


def twin(state: Any, seat: int | None, rnd: random.Random) -> Any:
    """Other Seekers' hands and the deck dealt differently, the cut deck reordered, and (for
    anyone but the Vexer) another rule. (The hintbook is no secret: its cards are the pile's
    less the hints given, and the Vexer builds hints from it.)"""
    rng = other_rng(rnd)
    cut_deck = list(state.cut_deck)
    rnd.shuffle(cut_deck)
    other = replace(state, rng=rng, cut_deck=tuple(cut_deck))
    rr = other.round
    if rr is None:
        return other
    owners = [s for s in rr.hands if s != seat]
    pool = [c for s in owners for c in rr.hands[s]] + list(rr.deck)
    rnd.shuffle(pool)
    hands = dict(rr.hands)
    for s in owners:
        size = len(rr.hands[s])
        hands[s], pool = tuple(pool[:size]), pool[size:]
    rr = replace(rr, hands=hands, deck=tuple(pool))
    if seat != rr.vexer and rr.rule is not None:
        rr = replace(rr, rule="a twin's rule: the top card is red", rule_obey=format(rnd.getrandbits(576), "x"))
    return replace(other, round=rr)
