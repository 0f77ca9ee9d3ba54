"""Properties of whole games from random seeds: never stuck, every round ends, all the cards
conserved, codec round trip, apply never mutates its input, replay identical, the view matches
its schema, and nothing leaks (views, legal actions and public events)."""

from __future__ import annotations

import json
import random
from typing import Any

from contract.twins import SPECIFIC
from hypothesis import given, settings
from hypothesis import strategies as st
from ludor.engine import OVER, PLAY, LudorEngine, LudorState
from ludor.hierarchy import build_deck
from ludor.schemas import ACTION_SCHEMAS, ViewSchema
from ludoteca.engine import Event
from ludoteca.rng import Rng

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
SECRET_EVENTS = {"CardsDealt", "CardsGiven"}


def canonical(state: LudorState) -> str:
    return json.dumps(ENGINE.dump(state), sort_keys=True)


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


def play_game(seed: str, n: int, opts: dict[str, Any], chooser: int,
              check: bool = True) -> tuple[LudorState, list[tuple[int, dict[str, Any]]], list[Event]]:
    pick = random.Random(chooser)
    players = [pick.choice(["human", "bot:random", "bot:greedy"]) for _ in range(n)]
    state = ENGINE.new_game(players, opts, Rng(seed))
    deck = sorted(build_deck(opts["deck"] == "forty"))
    log: list[tuple[int, dict[str, Any]]] = []
    events: list[Event] = []
    in_round = 0
    while state.phase != OVER:
        assert ENGINE.to_act(state), "stuck: nobody to act"
        seat, action = pick_move(state, pick)
        ACTION_SCHEMAS[action["type"]]().load(action)
        before = canonical(state)
        new_state, new_events = ENGINE.apply(state, seat, action)
        if check:
            assert canonical(state) == before, "apply mutated its input"
            dumped = json.loads(json.dumps(ENGINE.dump(new_state)))
            assert canonical(ENGINE.load(dumped)) == canonical(new_state)
            cards = [c for h in new_state.hands for c in h] + [*new_state.pile, *new_state.leftover]
            assert sorted(cards) == deck
        round_before = state.round
        state = new_state
        log.append((seat, action))
        events.extend(new_events)
        in_round = 0 if state.round != round_before else in_round + 1
        assert in_round < MAX_ACTIONS_PER_ROUND, "a round does not end"
    assert len(state.rounds) == opts["round_limit"] or any(v for v in state.votes)
    return state, log, events


@settings(max_examples=12, deadline=None)
@given(seed=seeds, n=st.integers(3, 6), opts=options, chooser=st.integers(0, 2**32))
def test_playouts_end_conserve_cards_and_replay(seed: str, n: int, opts: dict[str, Any], chooser: int) -> None:
    state, log, events = play_game(seed, n, opts, chooser)
    result = ENGINE.result(state)
    assert result is not None and len(result.scores) == n
    assert sum(result.scores) == len(state.rounds) * n * (n - 1) // 2
    for record in state.rounds:
        assert sorted(record.order) == list(range(n))
    for e in events:
        if e.type in SECRET_EVENTS:
            assert e.audience is not None and len(e.audience) <= 2
    replayed = ENGINE.new_game(state.players, opts, Rng(seed))
    for seat, action in log:
        replayed, _ = ENGINE.apply(replayed, seat, action)
    assert canonical(replayed) == canonical(state)


def twin(state: LudorState, seat: int | None, rng: random.Random) -> LudorState:
    """The same game with every secret ``seat`` may not know changed (the contract suite's twin)."""
    ludor_twin: Any = SPECIFIC["ludor"]
    return ludor_twin(state, seat, rng)


@settings(max_examples=10, deadline=None)
@given(seed=seeds, n=st.integers(3, 6), opts=options, chooser=st.integers(0, 2**32))
def test_no_leak(seed: str, n: int, opts: dict[str, Any], chooser: int) -> None:
    """At states along a game, a seat's view and legal actions do not change when only the others'
    secrets do, and the view matches its schema."""
    pick = random.Random(chooser)
    state = ENGINE.new_game(["human"] * n, opts, Rng(seed))
    steps = 0
    while state.phase != OVER:
        if steps % 7 == 0:
            for seat in [*range(n), None]:
                view = ENGINE.view(state, seat)
                ViewSchema().load(json.loads(json.dumps(view)))
                changed = twin(state, seat, pick)
                assert json.dumps(ENGINE.view(changed, seat)) == json.dumps(view)
                if seat is not None:
                    assert ENGINE.legal_actions(changed, seat) == ENGINE.legal_actions(state, seat)
                assert "seed" not in json.dumps(view) and "rng" not in view
        seat, action = pick_move(state, pick)
        state, events = ENGINE.apply(state, seat, action)
        for e in events:
            if e.audience is None:
                assert e.type not in SECRET_EVENTS
        steps += 1
