"""Ludor's secrets, as a perturbation for the contract suite (``tests/contract/twins.py`` finds
this file by its path): ``twin(state, seat, rnd)`` is the same game with everything ``seat``
(``None``: a spectator) may not know changed."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from contract.twins import other_rng
from ludor.hierarchy import build_deck, sorted_cards


def twin(state: Any, seat: int | None, rnd: random.Random) -> Any:
    """The other hands redealt among themselves (same sizes), the Culo's leftover, the others'
    exchanges, whether the Autoplim's PLIM barred another seat, and the RNG."""
    others = [s for s in range(state.n) if s != seat]
    pool = [c for s in others for c in state.hands[s]] + list(state.leftover)
    rnd.shuffle(pool)
    hands = list(state.hands)
    for s in others:
        size = len(hands[s])
        hands[s], pool = tuple(sorted_cards(pool[:size])), pool[size:]
    deck = build_deck()
    exchange = tuple(e if seat in (e.giver, e.receiver) else replace(e, cards=tuple(rnd.sample(deck, len(e.cards))))
                     for e in state.exchange)
    trick = state.trick
    if trick is not None and trick.barred is not None and trick.barred != seat:  # did another's PLIM bite?
        trick = replace(trick, barred=rnd.choice([None, trick.barred]))
    return replace(state, hands=tuple(hands), leftover=tuple(pool), rng=other_rng(rnd), exchange=exchange,
                   trick=trick)
