"""The guesses' entries built once a process (``speculation.engine.PerGuess``): the views and the
stored documents are the ones built afresh, byte for byte, at every step of the recorded games, and
a guess never gets another's entry, however often the cache starts again. So are the other parts
of a view kept once a process: the histories' lists (``PerGuess.lists``: the same history again,
one guess longer, another game's in between), the records (``record_of``, per board) and the
boards' faces (``_board_faces``, per board and kind of view), the recorded games' states
interleaved, and through caches so small they start again at every call."""

from __future__ import annotations

import functools
import random
from dataclasses import replace
from typing import Any

import orjson
import pytest
from golden.corpus import read
from ludoteca.core import codec
from ludoteca.core.rng import Rng
from ludoteca.service_layer import registry
from speculation.board import Board
from speculation.engine import GUESS_VIEWS, PerGuess, Phase, SpeculationEngine, State, _board_faces, _guess_view
from speculation.record import record_of

ENGINE = SpeculationEngine()


def states_of(recorded: dict[str, Any], loaded: float = 1.0) -> list[State]:
    """Every state of a recorded game, each action applied to the state loaded back from its dump
    (as the service plays from a fresh read); with ``loaded`` < 1, only that share of the actions
    (at random), the others to the state as ``apply`` left it (as the service plays the game it
    remembers)."""
    rnd = random.Random(recorded["seed"])
    options = dict(registry.game("speculation").options_schema().load(recorded["options"]))
    state = ENGINE.new_game(list(recorded["players"]), options, Rng(recorded["seed"]))
    out = [state]
    for seat, action in recorded["actions"]:
        if rnd.random() < loaded:
            state = ENGINE.load(ENGINE.dump(state))
        state, _ = ENGINE.apply(state, seat, action)
        out.append(state)
    return out


@pytest.mark.parametrize("index", range(len(read("speculation"))))
def test_views_and_documents_are_the_ones_built_afresh(index: int) -> None:
    recorded = read("speculation")[index]
    states = states_of(recorded)
    assert len(states[-1].history) > 0
    for state in states:
        assert orjson.dumps(ENGINE.dump(state)) == orjson.dumps(codec.dump(state))
        fresh = [_guess_view(g) for g in state.history]
        for seat in (0, 1, None):
            assert ENGINE.view(state, seat)["history"] == fresh


def test_a_guess_never_gets_another_guesss_entry() -> None:
    """Guesses made and dropped one after the other (the next one often at the freed one's
    address, so at the same id), through a cache that keeps everything and through one that
    starts again every two entries: every entry is its own guess's."""
    recorded = max(read("speculation"), key=lambda r: len(r["actions"]))
    history = states_of(recorded)[-1].history
    assert len({_guess_view(g)["values"][0] for g in history}) > 1
    rnd = random.Random(0)
    for per in (PerGuess(_guess_view), PerGuess(_guess_view, kept=2)):
        for _ in range(300):
            guess = rnd.choice(history)
            assert per((replace(guess),)) == [_guess_view(guess)]  # an equal guess, a new object
        picked = tuple(rnd.sample(history, 5))
        assert per(picked + picked) == [_guess_view(g) for g in picked + picked]


@functools.cache
def recorded_states() -> list[list[State]]:
    """Every recorded game's states (:func:`states_of`), half of them loaded back from their
    dumps, built once a session."""
    return [states_of(recorded, loaded=0.5) for recorded in read("speculation")]


def fresh_faces(board: Board, full: bool) -> list[Any]:
    return list(_board_faces.__wrapped__(board, full))


def test_kept_lists_records_and_faces_are_the_ones_built_afresh() -> None:
    games = recorded_states()
    assert sum(len(states[-1].history) > 20 for states in games) > 2
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
    history = max(recorded_states(), key=len)[-1].history
    first, again = GUESS_VIEWS(history), GUESS_VIEWS(history)
    assert first == again and first is not again
    first.clear()
    assert GUESS_VIEWS(history) == [_guess_view(g) for g in history]


def test_histories_through_caches_that_start_again() -> None:
    """Histories one guess longer, shorter, equal but not the same objects, and another game's,
    through a cache that keeps one list (and one guess) at a time and through the default one."""
    histories = [s.history for states in recorded_states() for s in states]
    rnd = random.Random(5)
    for per in (PerGuess(_guess_view, kept=1, kept_lists=1), PerGuess(_guess_view)):
        for _ in range(400):
            history = rnd.choice(histories)
            if history and rnd.random() < 0.2:
                history = tuple(replace(g) for g in history)  # equal guesses, new objects
            assert per(history) == [_guess_view(g) for g in history]
        for history in histories:  # one guess longer each time
            assert per(history) == [_guess_view(g) for g in history]
