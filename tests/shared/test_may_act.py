"""``may_act``: the seats that may post an action now, as the envelope shows them to one viewer.

By default ``to_act``; Ludor's holder of the Autoplim may also play it out of turn, and sees its
own seat there, while no other viewer learns who holds it (a hand is a secret).
"""

from __future__ import annotations

import secrets

from ludoteca import registry
from ludoteca.engine import may_act
from ludoteca.rng import Rng


def test_the_default_is_to_act() -> None:
    engine = registry.game("ludix").engine
    state = engine.new_game(["human", "human"], registry.game("ludix").options_schema().load({}), Rng("11" * 32))
    for viewer in (None, 0, 1):
        assert may_act(engine, state, viewer) == engine.to_act(state)


def test_the_holder_of_the_autoplim_sees_its_seat_and_no_one_else_does() -> None:
    d = registry.game("ludor")
    engine = d.engine
    options = d.options_schema().load({})
    seen = 0
    for _ in range(200):
        state = engine.new_game(["human"] * 4, options, Rng(secrets.token_hex(32)))
        to_act = engine.to_act(state)
        holders = [s for s in range(4) if s not in to_act and engine.acts_out_of_turn(state, s)]
        if not holders:
            continue
        holder = holders[0]
        assert any(a["type"] == "play_autoplim" for a in engine.legal_actions(state, holder))
        assert may_act(engine, state, holder) == to_act | {holder}
        for viewer in [None, *(s for s in range(4) if s != holder)]:
            assert may_act(engine, state, viewer) == to_act  # nothing about another seat's hand
        seen += 1
        if seen >= 5:
            break
    assert seen >= 5, "no deal put the Autoplim in the hand of a seat not to act"
