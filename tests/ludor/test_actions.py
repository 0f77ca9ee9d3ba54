"""Ludor's typed actions: what ``legal`` admits (plays judged by their combination and whether
they answer the table) is exactly what its listing spells, and a refused body says why."""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

import pytest
from ludor.actions import ACTIONS, Judged
from ludor.engine import NAMEABLE, PLAY, LudorEngine, LudorState
from ludor.hierarchy import JOKER, POWER_OF
from ludoteca.core.errors import IllegalActionError
from ludoteca.core.rng import Rng


def _states(engine: LudorEngine, games: int) -> list[LudorState]:
    """The states of a few games played at random, with jokers and both decks."""
    rnd = random.Random(22)
    out: list[LudorState] = []
    for game in range(games):
        options = {"deck": "forty"} if game % 2 else {}
        state = engine.new_game(["human"] * (3 + game % 4), options, Rng(f"{game + 1:064x}"))
        while engine.result(state) is None and len(out) < 150 * (game + 1):
            out.append(state)
            seat = rnd.choice(sorted(engine.to_act(state)))
            state, _ = engine.apply(state, seat, rnd.choice(engine.legal_actions(state, seat)))
    return out


def _bodies(hand: tuple[str, ...]) -> list[dict[str, Any]]:
    """Plays of one to three of ``hand``'s cards; jokers alone also named a rank."""
    out: list[dict[str, Any]] = []
    for k in (1, 2, 3):
        for cards in combinations(hand, k):
            out.append({"type": "play", "cards": list(cards)})
            if all(POWER_OF[c] == JOKER for c in cards):
                out.extend({"type": "play", "cards": list(cards), "rank": rank} for rank in NAMEABLE)
    return out


def test_legal_admits_exactly_the_plays_it_lists(engine: LudorEngine) -> None:
    judged = 0
    for state in _states(engine, 4):
        if state.phase is not PLAY:
            continue
        assert state.trick is not None
        seat = state.trick.turn
        legal = engine.legal(state, seat)
        listing = engine.legal_actions(state, seat)
        assert [a.to_json() for a in legal.listed] == listing
        hand = state.hands[seat]
        for body in _bodies((*hand[:6], *(c for c in hand[6:] if POWER_OF[c] == JOKER))):
            action = ACTIONS.parse(body)
            assert action is not None
            canonical = {**body, "cards": sorted(body["cards"], key=hand.index)}
            if body.get("rank") == "joker":  # jokers' own rank: the listing leaves it out
                del canonical["rank"]
            assert (action in legal) == (canonical in listing), body
            judged += isinstance(legal, Judged)
    assert judged > 1000


def test_an_unknown_member_is_refused_naming_it(engine: LudorEngine) -> None:
    state = engine.new_game(["human"] * 4, {}, Rng("ab" * 32))
    assert state.trick is not None
    seat = state.trick.turn
    body = {**engine.legal_actions(state, seat)[0], "colour": "red"}
    with pytest.raises(IllegalActionError) as err:
        engine.apply(state, seat, body)
    assert "unknown member: colour" in err.value.detail
    assert err.value.extra["legal"] == engine.legal_actions(state, seat)
