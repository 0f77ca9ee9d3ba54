"""The documents a closed trick and a move keep (``ClosedTrick.doc``, ``Move.doc``) make the
same views and stored states as the codec building them afresh: byte for byte (keys in the same
order), at every state of random games played through the codec half the time (as the service
plays: a fresh read, or the state it kept), and a value's document is never another's."""

from __future__ import annotations

import random

import orjson
from ludor.engine import ClosedTrick, LudorEngine, LudorState, Move
from ludoteca.core import codec
from ludoteca.core.rng import Rng

ENGINE = LudorEngine()


def random_games(games: int, seed: int) -> list[LudorState]:
    rnd = random.Random(seed)
    out = []
    for g in range(games):
        state = ENGINE.new_game(["human"] * (3 + g % 4), {}, Rng(rnd.randbytes(32).hex()))
        while ENGINE.result(state) is None and len(out) < 600 * (g + 1):
            out.append(state)
            seat = min(ENGINE.to_act(state))
            action = rnd.choice(ENGINE.legal_actions(state, seat))
            if rnd.random() < 0.5:
                state = ENGINE.load(orjson.loads(orjson.dumps(ENGINE.dump(state))))
            state, _ = ENGINE.apply(state, seat, action)
        out.append(state)
    return out


def test_views_and_stored_states_are_the_ones_built_afresh() -> None:
    states = random_games(4, seed=3)
    assert sum(len(s.tricks) for s in states) > 1000
    for state in states:
        assert orjson.dumps(ENGINE.dump(state)) == orjson.dumps(codec.dump(state))
        for seat in (None, *range(state.n)):
            view = ENGINE.view(state, seat)
            assert orjson.dumps(view["tricks"]) == orjson.dumps([codec.dump(t) for t in state.tricks])
            if view["trick"] is not None:
                assert orjson.dumps(view["trick"]["moves"]) == orjson.dumps([codec.dump(m) for m in state.moves])


def test_a_value_keeps_its_own_document() -> None:
    """Equal values made apart (an interned move and a new one, a trick loaded back) each hold a
    document of their own fields; the document is not a field (equality, hash and the codec's
    form are the fields' alone)."""
    tricks = [t for s in random_games(2, seed=8) for t in s.tricks]
    for trick in random.Random(1).sample(tricks, 200):
        assert trick.doc == codec.dump(trick)
        again = codec.load(ClosedTrick, orjson.loads(orjson.dumps(trick.doc)))
        assert again == trick and hash(again) == hash(trick) and again.doc == trick.doc
        assert "doc" not in codec.dump(again) and again.doc is not trick.doc
        for move in trick.moves:
            fresh = Move(move.seat, move.action, move.cards, move.combo, move.plim, move.blocked,
                         move.declared_plim, move.out_of_turn)
            assert fresh == move and fresh.doc == move.doc == codec.dump(move)
