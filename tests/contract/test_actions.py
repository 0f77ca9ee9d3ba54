"""Typed actions (:mod:`ludoteca.core.actions`): the shared parser, and every registered game built
on :class:`~ludoteca.core.actions.ActionEngine`.

For such a game: each action type has its schema (and no schema lacks a type); every listed body
parses to the action it lists and writes back to the same body; a listed body with a member
dropped, set to null or to another JSON type parses to nothing or to another action, never to an
error; and a refused body's 409 lists exactly the seat's legal actions.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest
from contract.playing import new_game, option_sets, random_action
from ludoteca.core.actions import Action, ActionEngine, ActionTypes, Legal, Template
from ludoteca.core.errors import IllegalActionError
from ludoteca.service_layer import registry


# -- the parser, on a declaration of its own ------------------------------------------------------
@dataclass(frozen=True)
class Take(Action, type="take"):
    count: int
    note: str | None = None


@dataclass(frozen=True)
class Pass(Action, type="pass"):
    pass


@dataclass(frozen=True)
class Say(Action, type="say", free_text=True):
    text: str
    loud: bool = False


@dataclass(frozen=True)
class Pick(Action, type="pick"):
    values: tuple[int, ...]
    names: tuple[str, ...] | None = None


TYPES: ActionTypes[Take | Pass | Say | Pick] = ActionTypes(Take, Pass, Say, Pick)


class TestTheParser:
    @pytest.mark.parametrize(("body", "action"), [
        ({"type": "take", "count": 2}, Take(2)),
        ({"type": "take", "count": 2, "note": "x"}, Take(2, "x")),
        ({"type": "pass"}, Pass()),
        ({"type": "say", "text": "hi"}, Say("hi")),
        ({"type": "say", "text": "hi", "loud": True}, Say("hi", True)),
        ({"type": "pick", "values": [3, 1, 3]}, Pick((3, 1, 3))),
        ({"type": "pick", "values": []}, Pick(())),
        ({"type": "pick", "values": [0], "names": ["a", "b"]}, Pick((0,), ("a", "b"))),
    ])
    def test_a_body_is_read_into_its_typed_action_and_written_back(self, body: dict[str, Any], action: Action) -> None:
        assert TYPES.parse(body) == action
        assert action.to_json() == {"loud": False, **body} if isinstance(action, Say) else action.to_json() == body

    @pytest.mark.parametrize("body", [
        None, [], "take", 42, {}, {"type": None}, {"type": 7}, {"type": ["take"]}, {"type": "nope"},
        {"type": "take"}, {"type": "take", "count": "2"}, {"type": "take", "count": True},
        {"type": "take", "count": 2.0}, {"type": "take", "count": None}, {"type": "take", "count": 2, "note": None},
        {"type": "take", "count": 2, "extra": 1}, {"type": "pass", "count": 1}, {"type": "say", "text": "hi",
                                                                                  "loud": 1},
        {"type": "pick"}, {"type": "pick", "values": None}, {"type": "pick", "values": 3},
        {"type": "pick", "values": "12"}, {"type": "pick", "values": [1, "2"]}, {"type": "pick", "values": [True]},
        {"type": "pick", "values": [1.0]}, {"type": "pick", "values": [[1]]}, {"type": "pick", "values": {"0": 1}},
        {"type": "pick", "values": [1], "names": [1]}, {"type": "pick", "values": [1], "names": None},
    ])
    def test_anything_else_is_no_action(self, body: Any) -> None:
        assert TYPES.parse(body) is None

    def test_an_array_is_read_into_a_tuple_and_written_back_as_a_list(self) -> None:
        action = TYPES.parse({"type": "pick", "values": [2, 5], "names": ["x"]})
        assert isinstance(action, Pick) and type(action.values) is tuple and type(action.names) is tuple
        assert hash(action) == hash(Pick((2, 5), ("x",)))  # a tuple: the action can be looked up in a set
        body = action.to_json()
        assert body == {"type": "pick", "values": [2, 5], "names": ["x"]} and type(body["values"]) is list

    def test_an_action_type_without_members_is_one_shared_value(self) -> None:
        assert TYPES.parse({"type": "pass"}) is TYPES.parse({"type": "pass"})

    def test_legality_is_membership_in_the_listed_actions_or_a_template(self) -> None:
        legal: Legal[Take | Pass | Say] = Legal((Take(1), Pass()), (Template({"type": "say", "text": "<text>"},
                                                                             lambda a: isinstance(a, Say)
                                                                             and not a.loud),))
        assert Take(1) in legal and Pass() in legal and Say("anything") in legal
        assert Take(2) not in legal and Say("x", loud=True) not in legal and Take(1, "n") not in legal

    @pytest.mark.parametrize("cls", ["mutable", "untyped", "floats", "mixed", "no-type"])
    def test_a_declaration_the_parser_cannot_read_fails_at_once(self, cls: str) -> None:
        with pytest.raises(TypeError):
            if cls == "mutable":
                @dataclass
                class Mutable(Action, type="m"):
                    n: int
                ActionTypes(Mutable)
            elif cls == "untyped":
                @dataclass(frozen=True)
                class Listy(Action, type="l"):
                    items: list[int]
                ActionTypes(Listy)
            elif cls == "floats":
                @dataclass(frozen=True)
                class Floats(Action, type="f"):
                    items: tuple[float, ...]
                ActionTypes(Floats)
            elif cls == "mixed":
                @dataclass(frozen=True)
                class Mixed(Action, type="x"):
                    items: tuple[int, ...] | int
                ActionTypes(Mixed)
            else:
                @dataclass(frozen=True)
                class Nameless(Action):
                    n: int
                ActionTypes(Nameless)


# -- every registered game built on ActionEngine --------------------------------------------------
GAMES = [g for g in registry.names() if isinstance(registry.game(g).engine, ActionEngine)]
WRONG: list[Any] = [None, "x", -1, 2.5, [], {}, True]


@pytest.mark.parametrize("game", GAMES)
def test_every_action_type_has_its_schema(game: str) -> None:
    definition = registry.game(game)
    engine = definition.engine
    assert isinstance(engine, ActionEngine)
    assert {cls.type for cls in engine.actions} == set(definition.action_schemas)


@pytest.mark.parametrize("game", GAMES)
def test_listed_bodies_parse_to_the_listed_actions_and_variants_never_raise(game: str) -> None:
    definition = registry.game(game)
    engine = definition.engine
    assert isinstance(engine, ActionEngine)
    rnd = random.Random(f"actions:{game}")
    for k, options in enumerate(option_sets(game)):
        n = engine.min_seats + k % (engine.max_seats - engine.min_seats + 1)
        state = new_game(definition, ["human"] * n, options, f"{rnd.getrandbits(256):064x}")
        for _ in range(60):
            if engine.result(state) is not None:
                break
            for seat in sorted(engine.to_act(state)):
                legal = engine.legal(state, seat)
                for action, body in zip(legal.listed, engine.legal_actions(state, seat), strict=True):
                    assert engine.actions.parse(body) == action and action.to_json() == body
                    for key in body:
                        for variant in ({m: v for m, v in body.items() if m != key},
                                        {**body, key: rnd.choice(WRONG)}):
                            parsed = engine.actions.parse(variant)  # never raises
                            assert parsed is None or isinstance(parsed, Action)
                    try:
                        engine.apply(state, seat, {**body, "type": "no_such_action"})
                    except IllegalActionError as err:  # a long listing may be counted instead (Speculation's joker)
                        listed = engine.legal_actions(state, seat)
                        assert err.extra["legal"] == listed if "legal_count" not in err.extra \
                            else err.extra["legal_count"] == len(listed)
            seat = rnd.choice(sorted(engine.to_act(state)))
            state, _ = engine.apply(state, seat, random_action(definition, state, seat, rnd))
