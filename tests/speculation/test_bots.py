"""Bots: always a legal action, and each level's own rule."""

from __future__ import annotations

import itertools
import random
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ludoteca.core.rng import Rng
from speculation.board import Tier
from speculation.bots import BOTS, basic_bot, expert_bot
from speculation.engine import SpeculationEngine, State
from speculation.inference import Knowledge, joker_hands, tier_odds
from speculation.joker import score

if TYPE_CHECKING:
    from conftest import Table

ENGINE = SpeculationEngine()
LEVELS = sorted(BOTS)


def legal_form(action: dict[str, Any]) -> dict[str, Any]:
    return {**action, "values": sorted(action["values"])} if "values" in action else action


@settings(max_examples=20, deadline=None)
@given(st.binary(min_size=32, max_size=32).map(bytes.hex), st.randoms(use_true_random=False),
       st.lists(st.sampled_from(LEVELS), min_size=2, max_size=2), st.sampled_from(["any", "hands"]))
def test_every_bot_always_plays_a_legal_action(seed: str, rnd: random.Random, levels: list[str],
                                               joker_guesses: str) -> None:
    state = ENGINE.new_game([f"bot:{lvl}" for lvl in levels], {"joker_guesses": joker_guesses}, Rng(seed))
    for _ in range(150):
        waiting = sorted(ENGINE.to_act(state))
        if not waiting:
            break
        seat = rnd.choice(waiting)
        legal = ENGINE.legal_actions(state, seat)
        for level in LEVELS:  # every level answers from this seat's view
            assert legal_form(BOTS[level](ENGINE.view(state, seat), legal, random.Random(1))) in legal
        action = BOTS[levels[seat]](ENGINE.view(state, seat), legal, rnd)
        state, _ = ENGINE.apply(state, seat, action)


def run(table: Table, state: State, seat: int, bot: Any, moves: int, rnd: random.Random) -> list[State]:
    """Let ``bot`` play ``seat`` (the other seat always answers a hopeless guess) and keep the states."""
    states = [state]
    for _ in range(moves):
        if ENGINE.result(state) is not None:
            break
        s = state.guesser
        assert s is not None
        legal = ENGINE.legal_actions(state, s)
        if s == seat:
            action = bot(ENGINE.view(state, s), legal, rnd)
        else:
            action = {"type": "guess", "value": 10} if legal[0]["type"] == "guess" else legal[0]
        state, _ = ENGINE.apply(state, s, action)
        states.append(state)
    return states


class TestBasic:
    @pytest.mark.parametrize("seed", range(6))
    def test_never_a_guess_that_cannot_be_right(self, table: Table, seed: int) -> None:
        rnd = random.Random(seed)
        states = run(table, table.playing(), 0, basic_bot, 400, rnd)
        for before, after in itertools.pairwise(states):
            if len(after.history) > len(before.history) and after.history[-1].seat == 0:
                k = Knowledge.from_view(ENGINE.view(before, 0))
                g = after.history[-1]
                if g.tier is Tier.JOKER:
                    assert g.values in joker_hands(k)[0]
                else:
                    assert k.is_possible(g.values[0])
                    assert (g.tier, g.values, "no") not in {(h.tier, h.values, h.answer) for h in before.history
                                                            if h.seat == 0}
        assert ENGINE.result(states[-1]) is not None and states[-1].winner == 0


class TestExpert:
    @pytest.mark.parametrize("seed", range(4))
    def test_guesses_a_most_likely_value_then_solves_the_joker(self, table: Table, seed: int) -> None:
        rnd = random.Random(seed)
        state = table.playing(board1=table.PAIRED_JOKER if seed % 2 else table.STANDARD)
        states = run(table, state, 0, expert_bot, 200, rnd)
        joker_guesses = 0
        for before, after in itertools.pairwise(states):
            g = after.history[-1]
            if g.seat != 0:
                continue
            k = Knowledge.from_view(ENGINE.view(before, 0))
            if g.tier is Tier.JOKER:
                joker_guesses += 1
                hands, _ = joker_hands(k)
                assert all(score(a, h) == r for a, r in k.joker_answers for h in hands)
            else:
                odds = tier_odds(k)
                assert odds[g.values[0]] == pytest.approx(max(odds.values()))
        assert states[-1].winner == 0
        assert 1 <= joker_guesses <= 6

    def test_clothing_report_is_typical(self, table: Table) -> None:
        state = table.new(["bot:expert", "bot:basic"])
        for level in ("expert", "basic"):
            action = BOTS[level](ENGINE.view(state, 0), ENGINE.legal_actions(state, 0), random.Random(3))
            assert action["type"] == "report_clothing" and 4 <= action["items"] <= 7
