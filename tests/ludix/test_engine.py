"""Ludix's rules, one class per rule section (RULES.md), table-driven where it helps."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from ludix.engine import LudixEngine, LudixState
from ludoteca.core.engine import Event
from ludoteca.core.errors import FieldValidationError, GameOverError, IllegalActionError, NotYourTurnError
from ludoteca.core.rng import Rng

SEED = "5eed" * 16
Start = Callable[..., LudixState]
RngWhere = Callable[[Callable[[str], bool]], Rng]

CALL = {"type": "alea_jacta_est"}
ROLL = {"type": "roll"}
HOLD = {"type": "hold"}


def types(events: list[Event]) -> list[str]:
    return [e.type for e in events]


class TestSetup:
    @pytest.mark.parametrize("seats", [2, 3, 5, 8])
    def test_two_to_eight_seats(self, engine: LudixEngine, seats: int) -> None:
        state = engine.new_game(["human"] * seats, {"target": 300}, Rng(SEED))
        assert state.totals == (0,) * seats and state.phase == "calling"

    @pytest.mark.parametrize(
        "players, options",
        [
            (["human"], {}),
            (["human"] * 9, {}),
            (["human", "robot"], {}),
            (["human", "human"], {"target": 49}),
            (["human", "human"], {"target": 1001}),
        ],
    )
    def test_bad_setups(self, engine: LudixEngine, players: list[str], options: dict[str, Any]) -> None:
        with pytest.raises(FieldValidationError):
            engine.new_game(players, options, Rng(SEED))

    def test_default_target_is_300(self, engine: LudixEngine) -> None:
        assert engine.new_game(["human", "human"], {}, Rng(SEED)).target == 300


class TestAleaJactaEst:
    def test_humans_call_bots_wait(self, engine: LudixEngine) -> None:
        state = engine.new_game(["bot:expert", "human", "bot:random", "human"], {}, Rng(SEED))
        assert engine.to_act(state) == {1, 3}
        assert engine.legal_actions(state, 1) == [CALL]
        assert engine.legal_actions(state, 0) == []
        with pytest.raises(NotYourTurnError):
            engine.apply(state, 0, CALL)

    def test_bots_alone_all_may_call(self, engine: LudixEngine) -> None:
        state = engine.new_game(["bot:expert", "bot:steady", "bot:random"], {}, Rng(SEED))
        assert engine.to_act(state) == {0, 1, 2}

    @pytest.mark.parametrize("caller", [0, 2, 3])
    def test_first_caller_plays_first(self, engine: LudixEngine, caller: int) -> None:
        state = engine.new_game(["human"] * 4, {}, Rng(SEED))
        after, events = engine.apply(state, caller, CALL)
        assert (after.first_player, after.current, after.round) == (caller, caller, 1)
        assert types(events) == ["AleaJactaEstCalled", "TurnStarted"]
        assert engine.to_act(after) == {caller}
        assert engine.legal_actions(after, caller) == [ROLL]
        other = (caller + 1) % 4
        with pytest.raises(NotYourTurnError):
            engine.apply(after, other, CALL)  # too late
        with pytest.raises(IllegalActionError):
            engine.apply(after, caller, CALL)

    def test_no_rolling_before_the_call(self, engine: LudixEngine) -> None:
        state = engine.new_game(["human"] * 2, {}, Rng(SEED))
        with pytest.raises(IllegalActionError):
            engine.apply(state, 0, ROLL)


class TestThrowing:
    def test_a_turn_starts_with_a_roll_only(self, engine: LudixEngine, start: Start) -> None:
        state = start(2)
        assert engine.legal_actions(state, 0) == [ROLL]
        with pytest.raises(IllegalActionError) as err:
            engine.apply(state, 0, HOLD)
        assert err.value.extra["legal"] == [ROLL]
        with pytest.raises(IllegalActionError):
            engine.apply(state, 0, {"type": "roll", "numeral": "LXXI"})  # nothing to choose yet

    def test_the_throw_comes_from_the_games_rng(
        self, engine: LudixEngine, start: Start, throwing: Callable[[str], Rng]
    ) -> None:
        state = start(2, rng=throwing("LXXI"))
        after, events = engine.apply(state, 0, ROLL)
        assert types(events) == ["DiceThrown"]
        assert sorted(events[0].data["dice"]) == sorted("LXXI") and events[0].data["multiset"] == "LXXI"
        assert [n["value"] for n in events[0].data["numerals"]] == [71, 69, 49]
        assert after.rng.counter > state.rng.counter and state.rng.counter == throwing("LXXI").counter

    def test_every_numeral_form_is_listed(self, engine: LudixEngine, start: Start) -> None:
        state = start(2, throw="IXLX", turn_total=10)
        assert engine.legal_actions(state, 0) == [
            ROLL, {"type": "roll", "numeral": "LXXI"}, {"type": "roll", "numeral": "LXIX"},
            {"type": "roll", "numeral": "XLIX"},
            HOLD, {"type": "hold", "numeral": "LXXI"}, {"type": "hold", "numeral": "LXIX"},
            {"type": "hold", "numeral": "XLIX"},
        ]  # fmt: skip

    @pytest.mark.parametrize(
        "action, banked",
        [(HOLD, 71), ({"type": "hold", "numeral": "LXXI"}, 71), ({"type": "hold", "numeral": "LXIX"}, 69),
         ({"type": "hold", "numeral": "XLIX"}, 49)],
    )  # fmt: skip
    def test_the_chosen_numeral_counts_default_best(
        self,
        engine: LudixEngine,
        start: Start,
        action: dict,
        banked: int,
    ) -> None:
        state = start(2, throw="LXXI", turn_total=10)
        after, events = engine.apply(state, 0, action)
        assert types(events) == ["NumeralChosen", "PointsBanked", "TurnStarted"]
        assert events[0].data["value"] == banked and after.totals == (10 + banked, 0)

    @pytest.mark.parametrize("numeral", ["LXVI", "IIII", "XXXI", "lxxi", 71, None])
    def test_a_numeral_not_of_the_throw_is_illegal(self, engine: LudixEngine, start: Start, numeral: object) -> None:
        state = start(2, throw="LXXI")
        with pytest.raises(IllegalActionError):
            engine.apply(state, 0, {"type": "roll", "numeral": numeral})

    def test_rolling_again_counts_then_throws(
        self, engine: LudixEngine, start: Start, throwing: Callable[[str], Rng]
    ) -> None:
        state = start(2, throw="XXII", turn_total=0, rng=throwing("LXVI"))
        after, events = engine.apply(state, 0, ROLL)
        assert types(events) == ["NumeralChosen", "DiceThrown"]
        assert after.turn_total == 22 and after.throw is not None
        final, _ = engine.apply(after, 0, {"type": "hold", "numeral": "XLIV"})
        assert final.totals == (66, 0)  # Julie's example with the lower numeral: 22 + 44


class TestBust:
    def test_bust_loses_the_turn_total_and_passes(self, engine: LudixEngine, start: Start, rng_where: RngWhere) -> None:
        from ludix.numerals import numerals_of

        state = start(3, first=1, throw="XVII", turn_total=0, totals=(5, 7, 9),
                      rng=rng_where(lambda m: not numerals_of(m)))  # fmt: skip
        after, events = engine.apply(state, 1, ROLL)
        assert types(events) == ["NumeralChosen", "DiceThrown", "Busted", "TurnStarted"]
        assert events[2].data["lost"] == 17
        assert after.totals == (5, 7, 9) and after.turn_total == 0 and after.throw is None
        assert after.current == 2 and after.turns == (0, 1, 0)

    def test_bust_on_the_first_throw(self, engine: LudixEngine, start: Start, throwing: Callable[[str], Rng]) -> None:
        state = start(2, rng=throwing("LVVI"))
        after, events = engine.apply(state, 0, ROLL)
        assert types(events) == ["DiceThrown", "Busted", "TurnStarted"] and after.current == 1


class TestHoldAndTurnOrder:
    @pytest.mark.parametrize("seats, first", [(2, 0), (2, 1), (4, 2), (8, 7)])
    def test_turns_go_left(self, engine: LudixEngine, start: Start, seats: int, first: int) -> None:
        state = start(seats, first=first)
        order = []
        for _ in range(seats + 1):
            order.append(state.current)
            state = replace(state, throw="VIII")
            state, _ = engine.apply(state, state.current, HOLD)
        assert order == [(first + n) % seats for n in range(seats + 1)]
        assert state.round == 2 and set(state.totals) == {8, 16} if seats > 1 else True

    def test_hold_banks(self, engine: LudixEngine, start: Start) -> None:
        state = start(2, throw="LXXX", turn_total=100, totals=(40, 0))
        after, events = engine.apply(state, 0, HOLD)
        assert events[1].type == "PointsBanked" and events[1].data == {"seat": 0, "points": 180, "total": 220}
        assert after.totals == (220, 0)


class TestEndOfGame:
    def bank(self, engine: LudixEngine, state: LudixState, throw: str = "VIII") -> tuple[LudixState, list[Event]]:
        assert state.current is not None
        return engine.apply(replace(state, throw=throw), state.current, HOLD)

    def test_the_round_is_completed(self, engine: LudixEngine, start: Start) -> None:
        state = start(3, first=1, totals=(0, 290, 0))
        state, events = self.bank(engine, state, "LXXX")  # seat 1 (first player) reaches 370
        assert events[2].type == "FinalRoundStarted" and events[2].data["remaining"] == [2, 0]
        assert state.final_round and not state.over
        state, _ = self.bank(engine, state)  # seat 2
        assert state.current == 0 and not state.over
        state, events = self.bank(engine, state)  # seat 0 closes the round
        assert types(events)[-1] == "GameEnded" and state.over and state.turns == (1, 1, 1)
        result = engine.result(state)
        assert result is not None and result.winners == (1,) and result.scores == (8.0, 370.0, 8.0)
        assert engine.to_act(state) == frozenset() and engine.legal_actions(state, 0) == []
        with pytest.raises(GameOverError):
            engine.apply(state, 0, ROLL)

    def test_the_last_seat_reaching_the_target_ends_at_once(self, engine: LudixEngine, start: Start) -> None:
        state = start(2, first=0, current=1, totals=(100, 250), turns=(1, 0))
        state, events = self.bank(engine, state, "LXXX")
        assert state.over and "FinalRoundStarted" not in types(events) and types(events)[-1] == "GameEnded"

    def test_a_later_seat_may_overtake(self, engine: LudixEngine, start: Start) -> None:
        state = start(2, first=0, totals=(290, 250))
        state, _ = self.bank(engine, state, "LXXX")  # 370
        state = replace(state, turn_total=100)
        state, _ = self.bank(engine, state, "LXXX")  # 250 + 180 = 430
        result = engine.result(state)
        assert result is not None and result.winners == (1,)

    def test_equal_totals_share_the_win(self, engine: LudixEngine, start: Start) -> None:
        state = start(3, first=0, totals=(292, 100, 300 - 8 + 0))
        state, _ = self.bank(engine, state)  # 300
        state, _ = self.bank(engine, state)  # 108
        state, _ = self.bank(engine, state)  # 300
        result = engine.result(state)
        assert result is not None and result.winners == (0, 2)

    def test_the_game_goes_on_below_the_target(self, engine: LudixEngine, start: Start) -> None:
        state = start(2, target=50, totals=(30, 30))
        for _ in range(2):
            state, _ = self.bank(engine, state)
        assert not state.over and state.totals == (38, 38)

    def test_the_target_is_an_option(self, engine: LudixEngine, start: Start) -> None:
        state = start(2, target=50, totals=(42, 0))
        state, _ = self.bank(engine, state)
        assert state.final_round


class TestMalformedInput:
    @pytest.mark.parametrize(
        "action",
        [{}, {"type": "fly"}, {"type": "roll", "extra": 1}, {"type": ["roll"]}, {"type": "hold", "numeral": {}},
         "roll", None, 42, ["roll"]],
    )  # fmt: skip
    def test_only_ludoteca_errors(self, engine: LudixEngine, start: Start, action: object) -> None:
        state = start(2, throw="LXXI")
        with pytest.raises(IllegalActionError) as err:
            engine.apply(state, 0, action)  # type: ignore[arg-type]
        assert err.value.extra["legal"] == engine.legal_actions(state, 0)

    @pytest.mark.parametrize("seat", [5, -1, None, "0"])
    def test_unknown_seats_are_not_to_act(self, engine: LudixEngine, start: Start, seat: object) -> None:
        with pytest.raises(NotYourTurnError):
            engine.apply(start(2), seat, ROLL)  # type: ignore[arg-type]

    def test_apply_does_not_mutate(self, engine: LudixEngine, start: Start) -> None:
        state = start(2, throw="LXXI", turn_total=12)
        before = engine.dump(state)
        engine.apply(state, 0, ROLL)
        engine.apply(state, 0, HOLD)
        assert engine.dump(state) == before


class TestViewAndCodec:
    def test_view_shows_the_pending_throw(self, engine: LudixEngine, start: Start) -> None:
        view = engine.view(start(2, throw="IXLX", turn_total=12), 1)
        assert view["seat"] == 1 and view["phase"] == "playing" and view["turn_total"] == 12
        assert view["throw"] == {
            "dice": "IXLX",
            "multiset": "LXXI",
            "numerals": [
                {"numeral": "LXXI", "value": 71},
                {"numeral": "LXIX", "value": 69},
                {"numeral": "XLIX", "value": 49},
            ],
        }
        assert "rng" not in view and SEED not in str(view)

    def test_view_shows_the_points_at_stake(
        self, engine: LudixEngine, start: Start, throwing: Callable[[str], Rng]
    ) -> None:
        """``at_stake``: the turn total with the pending throw's best numeral, what a hold banks."""
        state = start(2, throw="IXLX", turn_total=12)
        assert engine.view(state, 0)["at_stake"] == 12 + 71
        held, _ = engine.apply(state, 0, {"type": "hold"})
        assert held.totals[0] == 83
        assert engine.view(start(2), 0)["at_stake"] == 0 == engine.view(start(2), 0)["turn_total"]
        rolled, _ = engine.apply(start(2, rng=throwing("XXII")), 0, {"type": "roll"})
        assert engine.view(rolled, 0)["turn_total"] == 0 and engine.view(rolled, 0)["at_stake"] == 22

    def test_view_schema_documents_the_view(self, engine: LudixEngine, start: Start) -> None:
        from ludix.schemas import ViewSchema

        for state in (start(2, throw="IXLX"), engine.new_game(["human"] * 2, {}, Rng(SEED))):
            view = engine.view(state, None)
            assert ViewSchema().load(view) == view
            assert set(ViewSchema().fields) == set(view)

    def test_dump_load_round_trip(self, engine: LudixEngine, start: Start) -> None:
        state = start(3, throw="LXVI", turn_total=20, totals=(1, 2, 3))
        assert engine.load(engine.dump(state)) == state
