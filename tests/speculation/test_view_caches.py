"""The parts of a view and of a stored document kept once a process are the ones built afresh:
the histories' lists (``PerGuess.lists``: the same history again, one guess longer, another
game's in between), the records (``record_of``, per board) and the boards' faces
(``_board_faces``, per board and kind of view), on states of random games played through the
codec as the service plays them, and with caches so small they start again at every call."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import orjson
from ludoteca.core import codec
from ludoteca.core.rng import Rng
from speculation.board import Board
from speculation.engine import GUESS_VIEWS, PerGuess, Phase, SpeculationEngine, State, _board_faces, _guess_view
from speculation.record import record_of

ENGINE = SpeculationEngine()


def random_games(games: int, seed: int) -> list[list[State]]:
    """Every state of ``games`` games played at random, each action applied to the state loaded
    back from its dump half the time (as the service plays: a fresh read, or the state it kept)."""
    rnd = random.Random(seed)
    out = []
    for _ in range(games):
        state = ENGINE.new_game(["human", "human"], {}, Rng(rnd.randbytes(32).hex()))
        states = [state]
        while ENGINE.result(state) is None:
            seat = min(ENGINE.to_act(state))
            action = rnd.choice(ENGINE.legal_actions(state, seat))
            if rnd.random() < 0.5:
                state = ENGINE.load(orjson.loads(orjson.dumps(ENGINE.dump(state))))
            state, _ = ENGINE.apply(state, seat, action)
            states.append(state)
        out.append(states)
    return out


def fresh_faces(board: Board, full: bool) -> list[Any]:
    return list(_board_faces.__wrapped__(board, full))


def test_views_and_documents_along_random_games_are_the_ones_built_afresh() -> None:
    games = random_games(3, seed=7)
    assert all(len(states[-1].history) > 20 for states in games)
    rnd = random.Random(0)
    # the games' states interleaved, as one process serves several tables
    pending = [list(states) for states in games]
    seen = 0
    while any(pending):
        states = rnd.choice([p for p in pending if p])
        state = states.pop(0)
        seen += 1
        assert orjson.dumps(ENGINE.dump(state)) == orjson.dumps(codec.dump(state))
        fresh_history = [_guess_view(g) for g in state.history]
        for seat in (0, 1, None):
            view = ENGINE.view(state, seat)
            assert view["history"] == fresh_history
            for board_view in view["boards"]:
                owner = board_view["owner"]
                full = seat == owner or state.phase is Phase.OVER
                assert board_view["faces"] == fresh_faces(state.boards[owner], full)
            for record_view, board in zip(view["records"], reversed(state.boards), strict=True):
                record = record_of.__wrapped__(board)
                assert record_view["hand"] == list(record.hand)
                assert [face["cards"] for face in record_view["faces"]] == [list(c) for c in record.cards]
    assert seen == sum(len(states) for states in games)


def test_every_list_is_a_fresh_one() -> None:
    history = random_games(1, seed=3)[0][-1].history
    first, again = GUESS_VIEWS(history), GUESS_VIEWS(history)
    assert first == again and first is not again
    first.clear()
    assert GUESS_VIEWS(history) == [_guess_view(g) for g in history]


def test_histories_through_caches_that_start_again() -> None:
    """Histories one guess longer, shorter, equal but not the same objects, and another game's,
    through a cache that keeps one list (and one guess) at a time and through the default one."""
    games = random_games(2, seed=11)
    histories = [s.history for states in games for s in states]
    rnd = random.Random(5)
    for per in (PerGuess(_guess_view, kept=1, kept_lists=1), PerGuess(_guess_view)):
        for _ in range(400):
            history = rnd.choice(histories)
            if history and rnd.random() < 0.2:
                history = tuple(replace(g) for g in history)  # equal guesses, new objects
            assert per(history) == [_guess_view(g) for g in history]
        for history in histories:  # one guess longer each time
            assert per(history) == [_guess_view(g) for g in history]
