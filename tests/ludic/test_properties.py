"""Ludic's own properties of random games (the generic ones, never stuck, the bound, codec, apply
never mutating, replay, every listed action accepted, are the contract suite's, tests/contract):
the 48 cards of a round conserved, a round limit obeyed, and no leaks (a seat's view, and the
events it is told, are the same for two games that differ only in the rule or in other seats'
hands and the deck order)."""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ludic.engine import LudicEngine
from ludic.state import LudicState
from ludic.universe import all_cards
from ludoteca.core.errors import LudotecaError
from ludoteca.core.rng import Rng

SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])

Conserved = Callable[[LudicState], list[str]]
Policy = Callable[[LudicEngine, LudicState, random.Random], tuple[int, dict[str, Any]]]


def playout(engine: LudicEngine, seed: int, seats: int, options: dict[str, Any], cards_in_play: Conserved,
            choose: Policy) -> tuple[LudicState, list[tuple[int, dict[str, Any]]]]:
    rng = random.Random(seed)
    state = engine.new_game(["human"] * seats, options, Rng(f"{seed:064x}"))
    played: list[tuple[int, dict[str, Any]]] = []
    for _ in range(600):
        if state.phase == "over":
            break
        seat, action = choose(engine, state, rng)
        try:
            new, _ = engine.apply(state, seat, action)
        except LudotecaError:
            continue
        if new.round is not None:
            assert cards_in_play(new) == sorted(all_cards())
        played.append((seat, action))
        state = new
    assert state.phase == "over", "the game did not end within the bound"
    return state, played


class TestPlayouts:
    @SETTINGS
    @given(seed=st.integers(0, 2**32), seats=st.integers(3, 5), choices=st.booleans(), short=st.booleans())
    def test_random_games_conserve_cards_and_obey_the_round_limit(self, engine: LudicEngine, cards_in_play: Conserved,
                                                            policy: Policy,
                                                            seed: int, seats: int, choices: bool,
                                                            short: bool) -> None:
        options = {"round_limit": 2, "vexer_choices": choices, "short_game": short}
        state, _ = playout(engine, seed, seats, options, cards_in_play, policy)
        result = engine.result(state)
        assert result is not None and set(result.winners) <= set(range(seats))
        assert len(state.rounds) <= 2


def _game_in_turn_phase(engine: LudicEngine, seed: int, seats: int) -> LudicState:
    state = engine.new_game(["human"] * seats, {}, Rng(f"{seed:064x}"))
    while state.phase == "cut":
        state, _ = engine.apply(state, min(engine.to_act(state)), {"type": "cut"})
    return state


class TestNoLeak:
    @SETTINGS
    @given(seed=st.integers(0, 2**32), seats=st.integers(3, 5), moves=st.integers(0, 12))
    def test_seekers_see_the_same_whatever_the_rule(self, engine: LudicEngine,
                                                    legal_rules: Callable[[LudicState], list[str]],
                                                    seed: int, seats: int, moves: int) -> None:
        state = _game_in_turn_phase(engine, seed, seats)
        assert state.round is not None
        vexer = state.round.vexer
        rules = legal_rules(state)
        games = []
        for rule in (rules[0], rules[-1]):
            game, events = engine.apply(state, vexer, {"type": "write_rule", "rule": rule})
            games.append((game, events))
        for seat in [*[s for s in range(seats) if s != vexer], None]:
            views = [engine.view(g, seat) for g, _ in games]
            assert views[0] == views[1]
            seen = [[(e.type, e.data) for e in ev if e.visible_to(seat)] for _, ev in games]
            assert seen[0] == seen[1]
            assert rules[-1] not in json.dumps(views[0])

    @SETTINGS
    @given(seed=st.integers(0, 2**32), seats=st.integers(3, 5), moves=st.integers(0, 25))
    def test_a_view_does_not_depend_on_other_hands_or_the_deck_order(
            self, engine: LudicEngine, policy: Policy, seed: int, seats: int, moves: int) -> None:
        rng = random.Random(seed)
        state = _game_in_turn_phase(engine, seed, seats)
        for _ in range(moves):
            if state.phase == "over":
                return
            seat, action = policy(engine, state, rng)
            with contextlib.suppress(LudotecaError):
                state, _ = engine.apply(state, seat, action)
        rnd = state.round
        if rnd is None or not rnd.deck:
            return
        for owner, hand in rnd.hands.items():
            if not hand:
                continue
            deck = [*rnd.deck[:-1], hand[0]]
            rng.shuffle(deck)
            hands = {**rnd.hands, owner: (rnd.deck[-1], *hand[1:])}
            other = replace(state, round=replace(rnd, hands=hands, deck=tuple(deck)))
            for seat in [*range(seats), None]:
                if seat != owner:
                    assert engine.view(state, seat) == engine.view(other, seat)
                    assert engine.legal_actions(state, seat) == engine.legal_actions(other, seat) if seat is not None \
                        else True
