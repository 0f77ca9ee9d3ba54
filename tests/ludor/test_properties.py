"""Ludor's own properties of whole games from random seeds (the generic ones, never stuck, codec,
replay, views, twins and event audiences, are the contract suite's, tests/contract): every card
of the deck is in a hand, on the pile or among the leftovers after every action, every round ends
well within its length, each round's finishing order names every seat once, a round gives
``n (n - 1) / 2`` points, and the game ends by its round limit or a vote."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from ludor.engine import OVER, PLAY, LudorEngine, LudorState
from ludor.hierarchy import build_deck
from ludoteca.core.rng import Rng

ENGINE = LudorEngine()
MAX_ACTIONS_PER_ROUND = 1_500
"""A round has at most 51 plays and each play is followed by fewer than 6 passes: far below."""

seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)
options = st.fixed_dictionaries({
    "straights": st.booleans(),
    "deck": st.sampled_from(["full", "forty"]),
    "round_limit": st.sampled_from([1, 2, 3]),
    "exchange": st.sampled_from(["automatic", "choose"]),
    "autoplim_plim": st.sampled_from(["match", "always", "off"]),
})


def pick_move(state: LudorState, pick: random.Random) -> tuple[int, dict[str, Any]]:
    """A random legal move: mostly from a seat the game waits on, sometimes the Autoplim out of turn."""
    if state.phase == PLAY and pick.random() < 0.05:
        holders = [s for s in range(state.n) if "Autoplim" in state.hands[s]]
        if holders:
            seat = holders[0]
            return seat, pick.choice([a for a in ENGINE.legal_actions(state, seat) if a["type"] == "play_autoplim"])
    seat = pick.choice(sorted(ENGINE.to_act(state)))
    legal = ENGINE.legal_actions(state, seat)
    passes = [a for a in legal if a["type"] == "pass"]
    return seat, (passes[0] if passes and pick.random() < 0.3 else pick.choice(legal))


@settings(max_examples=12, deadline=None)
@given(seed=seeds, n=st.integers(3, 6), opts=options, chooser=st.integers(0, 2**32))
def test_cards_conserved_rounds_end_and_points_add_up(seed: str, n: int, opts: dict[str, Any], chooser: int) -> None:
    pick = random.Random(chooser)
    players = [pick.choice(["human", "bot:random", "bot:greedy"]) for _ in range(n)]
    state = ENGINE.new_game(players, opts, Rng(seed))
    deck = sorted(build_deck(opts["deck"] == "forty"))
    in_round = 0
    while state.phase != OVER:
        seat, action = pick_move(state, pick)
        new_state, _ = ENGINE.apply(state, seat, action)
        cards = [c for h in new_state.hands for c in h] + [*new_state.pile, *new_state.leftover]
        assert sorted(cards) == deck
        in_round = 0 if new_state.round != state.round else in_round + 1
        assert in_round < MAX_ACTIONS_PER_ROUND, "a round does not end"
        state = new_state
    assert len(state.rounds) == opts["round_limit"] or any(v for v in state.votes)
    result = ENGINE.result(state)
    assert result is not None and len(result.scores) == n
    assert sum(result.scores) == len(state.rounds) * n * (n - 1) // 2
    for record in state.rounds:
        assert sorted(record.order) == list(range(n))
