"""The schemas document exactly what the engine produces and accepts: every view of random games
loads through ViewSchema (unknown keys refused), every legal action through its action schema."""

from __future__ import annotations

import random
from typing import Any

import pytest
from ludic.engine import DECLARATION, SECRETS, VIEW, LudicEngine
from ludic.routes import check_json
from ludic.schemas import ACTION_SCHEMAS, OptionsSchema, RuleCheckRequestSchema, RuleCheckSchema, ViewSchema
from ludic.state import LudicOptions
from ludoteca.core.rng import Rng
from marshmallow import ValidationError


def test_views_and_legal_actions_match_their_schemas(engine: LudicEngine, policy: Any) -> None:
    for seed in range(4):
        rng = random.Random(seed)
        options = {"round_limit": 1, "vexer_choices": seed % 2 == 0}
        state = engine.new_game(["human"] * (3 + seed % 3), options, Rng(f"{seed + 7:064x}"))
        for _ in range(300):
            if state.phase == "over":
                break
            for seat in [*range(state.seats), None]:
                errors = ViewSchema().validate(engine.view(state, seat))
                assert not errors, (state.phase, errors)
            for seat in engine.to_act(state):
                for action in engine.legal_actions(state, seat):
                    assert not ACTION_SCHEMAS[action["type"]]().validate(action), action
                for template in engine.action_templates(state, seat):
                    filled = {k: ("the top card is red" if v == "<rule>" else v) for k, v in template.items()}
                    assert not ACTION_SCHEMAS[filled["type"]]().validate(filled), filled
            seat, action = policy(engine, state, rng)
            try:
                state, _ = engine.apply(state, seat, action)
            except Exception:
                continue
        assert not ViewSchema().validate(engine.view(state, 0))


def test_options_defaults_and_ranges() -> None:
    assert OptionsSchema().load({}) == {"short_game": False, "round_limit": 0, "vexer_choices": False,
                                        "turn_initial_sets": True}
    with pytest.raises(ValidationError):
        OptionsSchema().load({"round_limit": -1})
    with pytest.raises(ValidationError):
        OptionsSchema().load({"colour": "red"})


def test_the_declared_view_parts_are_the_view_schema_fields_in_order() -> None:
    fields = [f.data_key or name for name, f in ViewSchema().fields.items()]
    assert [part.name for part in VIEW] == fields
    assert len({secret.what for secret in SECRETS}) == len(SECRETS) == 5


def test_the_options_schema_is_the_declared_options() -> None:
    """Declared once (:class:`LudicOptions`): the schema loads into the typed value, defaults and all."""
    assert DECLARATION.options is LudicOptions
    assert DECLARATION.load_options(OptionsSchema().load({})) == LudicOptions()
    loaded = DECLARATION.load_options(OptionsSchema().load({"round_limit": 3, "vexer_choices": True}))
    assert loaded == LudicOptions(round_limit=3, vexer_choices=True)
    state = LudicEngine().new_game(["human"] * 3, OptionsSchema().load({"short_game": True}), Rng("0" * 64))
    assert state.options == LudicOptions(short_game=True) and state.target == 11


@pytest.mark.parametrize("body", [
    {"type": "query", "top": "1H", "bottom": "2C"},
    {"type": "query", "top": "AH", "bottom": "2C"},
    {"type": "play", "top": "QH", "bottom": "2C", "column": "left"},
    {"type": "guess", "rule": ""},
    {"type": "draw", "extra": 1},
])
def test_malformed_actions_are_refused_by_the_schemas(body: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        ACTION_SCHEMAS[str(body["type"])]().load(body)


def test_rule_check_request_and_report() -> None:
    body = RuleCheckRequestSchema().load({"rule": "The total is 15 or more",
                                          "obey_set": {"top": "QH", "bottom": "4S"},
                                          "break_set": {"top": "JS", "bottom": "3H"}})
    report = check_json(body)
    assert report["legal"] is True and report["obeying_sets"] == 312
    assert not RuleCheckSchema().validate(report)
    with pytest.raises(ValidationError):
        RuleCheckRequestSchema().load({"rule": "x", "obey_set": {"top": "QH", "bottom": "4S"}})
    assert not RuleCheckSchema().validate(check_json({"rule": "top is purple"}))
