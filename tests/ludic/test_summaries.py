"""The rounds' summaries of a view, kept per ``rounds`` tuple (``ludic.engine.Summaries``), are
the copies built afresh: at every state of random games (two tables played in turn, as one
process serves several; half the actions applied to the state loaded back from its dump, as the
service plays a fresh read), through the views' cache and through one that keeps a single tuple;
and a view shares nothing with the state (changing it changes no dump)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import orjson
from golden.corpus import random_player
from ludic.engine import SUMMARIES, LudicEngine, Summaries, _summary_copy
from ludic.state import LudicState
from ludoteca.core.rng import Rng
from ludoteca.service_layer import registry

ENGINE = LudicEngine()
DEFINITION = registry.game("ludic")


def table(seed: int, seats: int) -> Iterator[LudicState]:
    """A random game's states, one a step, until it ends."""
    rnd = random.Random(seed)
    state = ENGINE.new_game(["human"] * seats, {"short_game": True}, Rng(rnd.randbytes(32).hex()))
    yield state
    while ENGINE.result(state) is None:
        if rnd.random() < 0.5:
            state = ENGINE.load(orjson.loads(orjson.dumps(ENGINE.dump(state))))
        seat = rnd.choice(sorted(ENGINE.to_act(state)))
        state, _ = ENGINE.apply(state, seat, random_player(DEFINITION, state, seat, rnd))
        yield state


def test_kept_summaries_are_the_copies_built_afresh() -> None:
    tables = [table(1, 3), table(2, 4)]
    single = Summaries(kept=1)
    rounds = 0
    for step in range(1600):
        state = next(tables[step % 2], None)
        if state is None:
            continue
        fresh = [_summary_copy(r) for r in state.rounds]
        assert SUMMARIES(state.rounds) == fresh == single(state.rounds)
        assert ENGINE.view(state, step % state.seats)["rounds"] == fresh
        rounds = max(rounds, len(state.rounds))
    assert rounds >= 5


def test_a_view_shares_nothing_with_the_state() -> None:
    """(The views of one ``rounds`` tuple share its copies: views are read and serialised only.)"""
    state = next(s for s in table(3, 3) if len(s.rounds) >= 3)
    before = orjson.dumps(ENGINE.dump(state))
    view = ENGINE.view(state, 0)
    for summary in view["rounds"]:
        for sets in summary["columns"].values():
            for placed in sets:
                placed.clear()
            sets.clear()
        summary.clear()
    view["rounds"].clear()
    assert orjson.dumps(ENGINE.dump(state)) == before
