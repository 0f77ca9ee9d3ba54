"""Pig's rules, one class per section of services/pig/RULES.md (the heading names the class).

Each rule is checked on the exact throw it is about (``throwing(face)`` positions the RNG); the
contract every game keeps (purity, replay, views, bounds for random play) is tests/contract's.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from ludoteca.core.engine import Event
from ludoteca.core.errors import FieldValidationError, GameOverError, IllegalActionError, NotYourTurnError
from ludoteca.core.rng import Rng
from marshmallow import ValidationError
from pig.bots import BOTS
from pig.engine import ACTIONS_PER_POINT, MAX_SEATS, MIN_SEATS, PigEngine, PigState
from pig.schemas import EVENT_SCHEMAS, OptionsSchema, ViewSchema

ROLL = {"type": "roll"}
HOLD = {"type": "hold"}
Start = Callable[..., PigState]
Throwing = Callable[[int], Rng]


def types(events: list[Event]) -> list[str]:
    return [e.type for e in events]


def seed(i: int) -> str:
    return f"{random.Random(i).getrandbits(256):064x}"


class TestSetup:
    @pytest.mark.parametrize("seats", range(MIN_SEATS, MAX_SEATS + 1))
    def test_two_to_six_seats_start_at_zero(self, engine: PigEngine, seats: int) -> None:
        state = engine.new_game(["human"] * seats, {}, Rng(seed(seats)))
        assert state.scores == (0,) * seats and state.turn_total == 0 and state.last_roll is None

    @pytest.mark.parametrize("players, options", [
        (["human"], {}), (["human"] * 7, {}), (["human", "robot"], {}), (["human", 3], {}),
        (["human", "human"], {"target": 9}), (["human", "human"], {"target": 501}),
        (["human", "human"], {"target": "100"}),
    ])
    def test_bad_setups_are_field_errors(self, engine: PigEngine, players: list[Any], options: dict[str, Any]) -> None:
        with pytest.raises(FieldValidationError):
            engine.new_game(players, options, Rng(seed(0)))

    def test_the_target_defaults_to_100_and_the_schema_agrees(self, engine: PigEngine) -> None:
        assert engine.new_game(["human", "human"], {}, Rng(seed(0))).options.target == 100
        assert OptionsSchema().load({}) == {"target": 100}
        assert OptionsSchema().load({"target": 10}) == {"target": 10}


    @pytest.mark.parametrize("options", [{"target": 100.0}, {"target": "100"}, {"target": True}, {"target": 9},
                                         {"target": 501}, {"goal": 100}])
    def test_the_options_schema_refuses_what_is_not_a_target(self, options: dict[str, Any]) -> None:
        with pytest.raises(ValidationError):
            OptionsSchema().load(options)


class TestFirstPlayer:
    def test_the_first_player_is_the_seeds_first_draw(self, engine: PigEngine) -> None:
        """Anyone holding the revealed seed can redraw it: ``Rng(seed).randbelow(seats)``."""
        for i in range(50):
            seats = MIN_SEATS + i % (MAX_SEATS - MIN_SEATS + 1)
            state = engine.new_game(["human"] * seats, {}, Rng(seed(i)))
            assert state.first_player == state.current == Rng(seed(i)).randbelow(seats)
            assert engine.to_act(state) == {state.first_player}

    def test_every_seat_may_start_about_as_often(self, engine: PigEngine) -> None:
        firsts = Counter(engine.new_game(["human"] * 3, {}, Rng(seed(i))).first_player for i in range(900))
        assert set(firsts) == {0, 1, 2}
        assert all(240 <= n <= 360 for n in firsts.values()), firsts  # 300 +- 4.2 standard deviations

    def test_the_callers_generator_is_left_as_it_was(self, engine: PigEngine) -> None:
        rng = Rng(seed(1))
        engine.new_game(["human", "human"], {}, rng)
        assert rng.counter == 0


class TestRoll:
    @pytest.mark.parametrize("face", [2, 3, 4, 5, 6])
    def test_a_face_above_1_adds_to_the_turn_total(self, engine: PigEngine, start: Start, throwing: Throwing,
                                                   face: int) -> None:
        state, events = engine.apply(start(turn_total=7, rng=throwing(face)), 0, ROLL)
        assert state.turn_total == 7 + face and state.current == 0 and state.scores == (0, 0)
        assert [(e.type, e.data) for e in events] == [("DieRolled", {"seat": 0, "die": face, "turn_total": 7 + face})]

    def test_a_1_loses_the_turn_total_and_passes_the_turn(self, engine: PigEngine, start: Start,
                                                          throwing: Throwing) -> None:
        state = start(seats=3, first=2, turn_total=19, scores=(5, 6, 40), rng=throwing(1))
        state, events = engine.apply(state, 2, ROLL)
        assert state.turn_total == 0 and state.scores == (5, 6, 40) and state.current == 0
        assert [(e.type, e.data) for e in events] == [
            ("DieRolled", {"seat": 2, "die": 1, "turn_total": 0}), ("Busted", {"seat": 2, "lost": 19}),
            ("TurnStarted", {"seat": 0})]

    def test_the_die_comes_from_the_games_generator_and_is_uniform(self, engine: PigEngine, start: Start) -> None:
        state = start(target=500, players=["human", "human"])
        faces: Counter[int] = Counter()
        for _ in range(3000):
            state, events = engine.apply(state, state.current, ROLL)
            faces[events[0].data["die"]] += 1
        assert set(faces) == {1, 2, 3, 4, 5, 6}
        assert all(400 <= n <= 600 for n in faces.values()), faces  # 500 +- 4.9 standard deviations

    def test_the_input_state_is_never_changed(self, engine: PigEngine, start: Start, throwing: Throwing) -> None:
        state = start(turn_total=4, rng=throwing(5))
        before = json.dumps(engine.dump(state))
        engine.apply(state, 0, ROLL)
        assert json.dumps(engine.dump(state)) == before and state.rng.counter == throwing(5).counter


class TestHold:
    def test_hold_banks_the_turn_total_and_passes_left(self, engine: PigEngine, start: Start) -> None:
        state, events = engine.apply(start(seats=3, first=1, turn_total=23, scores=(0, 30, 0)), 1, HOLD)
        assert state.scores == (0, 53, 0) and state.turn_total == 0 and state.current == 2
        assert [(e.type, e.data) for e in events] == [
            ("PointsBanked", {"seat": 1, "points": 23, "score": 53}), ("TurnStarted", {"seat": 2})]

    def test_the_last_seat_passes_to_seat_0(self, engine: PigEngine, start: Start) -> None:
        state, _ = engine.apply(start(seats=4, first=3, turn_total=2), 3, HOLD)
        assert state.current == 0

    def test_a_turn_starts_with_a_roll(self, engine: PigEngine, start: Start, throwing: Throwing) -> None:
        state = start()
        assert engine.legal_actions(state, 0) == [ROLL]
        state, _ = engine.apply(start(rng=throwing(3)), 0, ROLL)
        assert engine.legal_actions(state, 0) == [ROLL, HOLD]


class TestIllegalActions:
    @pytest.mark.parametrize("action", [HOLD, {"type": "pass"}, {"type": "roll", "die": 6}, {}, {"type": None}])
    def test_an_action_not_listed_is_refused_with_the_legal_list(self, engine: PigEngine, start: Start,
                                                                 action: dict[str, Any]) -> None:
        state = start()
        with pytest.raises(IllegalActionError) as err:
            engine.apply(state, 0, action)
        assert err.value.extra["legal"] == [ROLL]

    @pytest.mark.parametrize("body", [None, "roll", ["roll"], 42])
    def test_a_body_that_is_not_an_object_is_refused(self, engine: PigEngine, start: Start, body: Any) -> None:
        with pytest.raises(IllegalActionError):
            engine.apply(start(), 0, body)

    @pytest.mark.parametrize("seat", [1, 2, -1, 99])
    def test_only_the_current_seat_may_act(self, engine: PigEngine, start: Start, seat: int) -> None:
        state = start(seats=3, turn_total=5)
        assert engine.legal_actions(state, seat) == []
        with pytest.raises(NotYourTurnError) as err:
            engine.apply(state, seat, ROLL)
        assert err.value.extra["to_act"] == [0]

    def test_nothing_is_accepted_once_the_game_is_over(self, engine: PigEngine, start: Start) -> None:
        state, _ = engine.apply(start(turn_total=20, scores=(90, 0)), 0, HOLD)
        for seat in (0, 1):
            assert engine.legal_actions(state, seat) == []
            with pytest.raises(GameOverError):
                engine.apply(state, seat, ROLL)


class TestEndOfGame:
    def test_banking_the_target_ends_the_game_at_once(self, engine: PigEngine, start: Start) -> None:
        state, events = engine.apply(start(seats=3, first=1, turn_total=12, scores=(99, 88, 0)), 1, HOLD)
        assert types(events) == ["PointsBanked", "GameEnded"]
        assert events[1].data == {"winners": [1], "scores": [99, 100, 0], "bound": None}
        assert engine.to_act(state) == frozenset() and state.current is None
        result = engine.result(state)
        assert result is not None and result.winners == (1,) and result.scores == (99.0, 100.0, 0.0)
        assert result.summary == {"scores": [99, 100, 0], "target": 100, "first_player": 1, "bound": None}

    def test_reaching_the_target_in_the_turn_is_not_enough(self, engine: PigEngine, start: Start,
                                                          throwing: Throwing) -> None:
        state, _ = engine.apply(start(turn_total=10, scores=(95, 0), rng=throwing(4)), 0, ROLL)
        assert engine.result(state) is None and state.turn_total == 14
        state, _ = engine.apply(state, 0, HOLD)
        result = engine.result(state)
        assert result is not None and result.winners == (0,)

    def test_a_1_after_passing_the_target_loses_it(self, engine: PigEngine, start: Start, throwing: Throwing) -> None:
        state, _ = engine.apply(start(turn_total=30, scores=(95, 0), rng=throwing(1)), 0, ROLL)
        assert engine.result(state) is None and state.scores == (95, 0) and state.current == 1

    def test_a_smaller_target(self, engine: PigEngine, start: Start) -> None:
        state, _ = engine.apply(start(target=10, turn_total=10), 0, HOLD)
        assert engine.result(state) is not None


class TestBound:
    def test_the_declared_bound(self, engine: PigEngine) -> None:
        assert engine.max_actions({"target": 100}, 2) == 2 * 100 * ACTIONS_PER_POINT
        assert engine.max_actions({"target": 500}, 6) == 6 * 500 * ACTIONS_PER_POINT

    def test_the_action_that_reaches_it_ends_the_game_the_highest_score_wins(
            self, engine: PigEngine, start: Start, throwing: Throwing, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(engine, "max_actions", lambda options, seats: 5)
        state = start(seats=3, scores=(40, 60, 60), turn_total=9, actions=4, rng=throwing(6))
        state, events = engine.apply(state, 0, ROLL)
        assert types(events) == ["DieRolled", "ActionBoundReached", "GameEnded"]
        assert events[1].data == {"seat": 0, "actions": 5, "lost": 15}
        result = engine.result(state)
        assert result is not None and result.winners == (1, 2) and state.scores == (40, 60, 60)
        assert result.summary["bound"] == {"reached": "actions", "limit": 5} == events[2].data["bound"]

    @pytest.mark.parametrize("level", sorted(BOTS))
    @pytest.mark.parametrize("target, seats", [(10, 2), (100, 2), (100, 6), (500, 3)])
    def test_bot_games_stay_far_below_it(self, engine: PigEngine, level: str, target: int, seats: int) -> None:
        """The figures of RULES.md, section 5: actions per seat per point of the target."""
        worst = 0.0
        for i in range(20):
            rnd = random.Random(i)
            state = engine.new_game([f"bot:{level}"] * seats, {"target": target}, Rng(seed(i)))
            while (seat := state.current) is not None:
                view, legal = engine.view(state, seat), engine.legal_actions(state, seat)
                state, _ = engine.apply(state, seat, BOTS[level](view, legal, rnd))
            result = engine.result(state)
            assert result is not None and result.summary["bound"] is None
            worst = max(worst, state.actions / (seats * target))
        assert worst < 1.5 < ACTIONS_PER_POINT / 5


class TestViewAndEvents:
    def test_the_view_holds_the_game_and_not_the_generator(self, engine: PigEngine, start: Start,
                                                           throwing: Throwing) -> None:
        state, _ = engine.apply(start(seats=3, first=1, scores=(3, 4, 5), rng=throwing(6)), 1, ROLL)
        view = engine.view(state, 2)
        assert view == {"seat": 2, "phase": "playing", "target": 100, "scores": [3, 4, 5], "first_player": 1,
                        "current": 1, "turn_total": 6, "last_roll": {"seat": 1, "die": 6}}
        assert ViewSchema().load(view) == view
        assert state.rng.seed not in json.dumps(view)

    def test_everyone_sees_the_same_but_their_seat(self, engine: PigEngine, start: Start) -> None:
        state = start(seats=3)
        spectator = engine.view(state, None)
        assert all({**engine.view(state, s), "seat": None} == spectator for s in range(3))

    def test_every_event_is_public_and_matches_its_schema(self, engine: PigEngine) -> None:
        rnd = random.Random(3)
        state = engine.new_game(["human"] * 4, {"target": 30}, Rng(seed(3)))
        seen = set()
        while (seat := state.current) is not None:
            state, events = engine.apply(state, seat, rnd.choice(engine.legal_actions(state, seat)))
            assert events[0].type in {"DieRolled", "PointsBanked"}  # a move is told to everyone
            for e in events:
                assert e.audience is None
                EVENT_SCHEMAS[e.type]().load(e.data)
                seen.add(e.type)
        assert seen >= {"DieRolled", "Busted", "PointsBanked", "TurnStarted", "GameEnded"}
