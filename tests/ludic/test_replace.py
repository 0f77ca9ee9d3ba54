"""The engines' fast ``replace`` (:func:`ludoteca.core.engine.evolve`) gives Ludic's states what
``dataclasses.replace`` gives, and is ``dataclasses.replace`` itself for anything it does not know
to be plain."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest
from ludic.engine import LudicEngine
from ludic.state import PlacedSet, SetKind, Step, StepKind
from ludoteca.core.engine import evolve as replace
from ludoteca.core.rng import Rng


def test_the_same_values_as_dataclasses_replace() -> None:
    engine = LudicEngine()
    state = engine.new_game(["human"] * 3, {}, Rng("ab" * 32))
    for seat in range(3):
        state, _ = engine.apply(state, seat, {"type": "cut"})
    assert state.round is not None
    cases = [(state, {"actions": 7, "token": 2}), (state.round, {"turn": 1, "steps": (Step(StepKind.END_TURN),)}),
             (PlacedSet("2C", "3D", SetKind.QUERY, 1), {"face_up": False}), (state.round, {})]
    for value, changes in cases:
        new = replace(value, **changes)
        assert new == dataclasses.replace(value, **changes) and type(new) is type(value)
        assert vars(new) == vars(dataclasses.replace(value, **changes))
        assert new is not value
    assert engine.dump(replace(state, actions=9)) == engine.dump(dataclasses.replace(state, actions=9))


def test_anything_else_goes_to_dataclasses_replace() -> None:
    with pytest.raises(TypeError):
        replace(PlacedSet("2C", "3D", SetKind.QUERY, 1), colour="red")  # type: ignore[call-arg]

    @dataclass(frozen=True)
    class Derived:
        a: int
        b: int = field(init=False)

        def __post_init__(self) -> None:
            object.__setattr__(self, "b", self.a * 2)

    assert replace(Derived(1), a=5).b == 10

    @dataclass(frozen=True, slots=True)
    class Slotted:
        a: int
        b: int = 0

    assert replace(Slotted(1, 2), a=3) == Slotted(3, 2)
    with pytest.raises(TypeError):
        replace(object(), a=1)  # type: ignore[type-var]

    @dataclass(frozen=True)
    class Cached:
        a: int

    value = Cached(1)
    object.__setattr__(value, "memo", 3)  # not a field: not carried over
    assert not hasattr(replace(value, a=2), "memo")
