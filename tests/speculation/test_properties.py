"""Speculation's own properties of whole games from random seeds (the generic ones, never stuck,
the declared bound, codec, replay and view twins, are the contract suite's, tests/contract):
cards conserved and found cards staying found, no hidden card in an event, bot games ending well
within what a guesser that never repeats a hopeless guess needs, and an opponent's next move
telling a seat nothing about its own hidden cards."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from dataclasses import replace

from contract.twins import twin_module
from hypothesis import given, settings
from hypothesis import strategies as st
from ludoteca.core.engine import Bot, Event
from ludoteca.core.errors import IllegalActionError
from ludoteca.core.rng import Rng
from speculation.board import VALUE_CARDS, Tier
from speculation.bots import BOTS
from speculation.engine import SEATS, SpeculationEngine, State

shuffle_hidden = twin_module("speculation").shuffle_hidden  # type: ignore[union-attr]  # tests/speculation/twin.py

ENGINE = SpeculationEngine()
seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)
TIER_BOUND = 12 + 3 * 10
"""A guesser that never repeats a hopeless guess needs at most 12 yes and 10 no per tier."""
GAME_BOUND = 2 + 2 + 2 * (TIER_BOUND + 615)
"""Ritual (two reports, maybe a race) plus, per seat, the tiers and at most 615 joker hands."""
CARD = re.compile(r'"((?:10|[2-9A])[CS])"')


def found_cards(state: State) -> set[str]:
    return {b.cards[i][p] for b in state.boards for i, face in enumerate(b.found) for p, f in enumerate(face) if f}


def check_step(before: State, after: State, events: list[Event]) -> None:
    for old, new in zip(before.boards, after.boards, strict=True):
        assert sorted(new.all_cards) == sorted(VALUE_CARDS)  # conservation
        assert old.cards == new.cards and old.set_aside == new.set_aside
        assert all(o <= n for of, nf in zip(old.found, new.found, strict=True)
                   for o, n in zip(of, nf, strict=True))  # found cards stay found
    assert len(after.history) - len(before.history) in (0, 1)
    shown = found_cards(after)
    for e in events:
        assert e.audience is None  # nothing in Speculation is for one seat only
        if e.type != "BoardsRevealed":
            assert set(CARD.findall(json.dumps(e.data))) <= shown  # no hidden card in an event


def playout(seed: str, levels: Sequence[str], rnd: random.Random, limit: int) -> tuple[State, list[tuple[int, dict]]]:
    players = [f"bot:{lvl}" for lvl in levels]
    bots: list[Bot] = [BOTS[lvl] for lvl in levels]
    state = ENGINE.new_game(players, {}, Rng(seed))
    moves: list[tuple[int, dict]] = []
    for _ in range(limit):
        waiting = sorted(ENGINE.to_act(state))
        if not waiting:
            assert ENGINE.result(state) is not None
            break
        seat = rnd.choice(waiting)
        legal = ENGINE.legal_actions(state, seat)
        action = bots[seat](ENGINE.view(state, seat), legal, rnd)
        new, events = ENGINE.apply(state, seat, action)
        check_step(state, new, events)
        moves.append((seat, action))
        state = new
    return state, moves


@settings(max_examples=25, deadline=None)
@given(seeds, st.randoms(use_true_random=False), st.integers(20, 250))
def test_random_play_conserves_cards_and_shows_no_hidden_card(seed: str, rnd: random.Random, limit: int) -> None:
    playout(seed, ["random", "random"], rnd, limit)


@settings(max_examples=12, deadline=None)
@given(seeds, st.randoms(use_true_random=False), st.lists(st.sampled_from(["basic", "expert"]), min_size=2, max_size=2))
def test_bot_games_end_within_the_bound(seed: str, rnd: random.Random, levels: list[str]) -> None:
    state, moves = playout(seed, levels, rnd, GAME_BOUND + 1)
    result = ENGINE.result(state)
    assert result is not None and len(moves) <= GAME_BOUND
    assert result.winners == (state.winner,)
    winner_target = state.boards[1 - result.winners[0]]
    assert all(all(face) for face in winner_target.found)


def seen_by(state: State, seat: int | None) -> str:
    """Everything ``seat`` can read: its view, its legal actions and the error of a bad action."""
    out = {"view": ENGINE.view(state, seat)}
    if seat is not None:
        out["legal"] = ENGINE.legal_actions(state, seat)
        if seat in ENGINE.to_act(state):
            try:
                ENGINE.apply(state, seat, {"type": "guess", "value": 99})
            except IllegalActionError as err:
                out["error"] = [err.detail, err.extra]
    return json.dumps(out, sort_keys=True)


@settings(max_examples=30, deadline=None)
@given(seeds, st.randoms(use_true_random=False), st.integers(0, 120),
       st.lists(st.sampled_from(["random", "basic", "expert"]), min_size=2, max_size=2))
def test_no_leak(seed: str, rnd: random.Random, moves: int, levels: list[str]) -> None:
    state, _ = playout(seed, levels, rnd, moves)
    if ENGINE.result(state) is not None:
        return  # after the end everything is shown
    for seat in SEATS:
        other = 1 - seat
        twin = replace(state, boards=tuple(shuffle_hidden(b, rnd) if s == other else b
                                           for s, b in enumerate(state.boards)))
        assert seen_by(twin, seat) == seen_by(state, seat)
        # What the opponent does next looks the same from here in both games.
        if other in ENGINE.to_act(state) and ENGINE.target(state, other) is not Tier.JOKER:
            action = BOTS[levels[other]](ENGINE.view(state, other), ENGINE.legal_actions(state, other), rnd)
            a, ea = ENGINE.apply(state, other, action)
            b, eb = ENGINE.apply(twin, other, action)
            assert [(e.type, e.data) for e in ea] == [(e.type, e.data) for e in eb]
            assert seen_by(a, seat) == seen_by(b, seat)
    both = replace(state, boards=tuple(shuffle_hidden(b, rnd) for b in state.boards))
    assert seen_by(both, None) == seen_by(state, None)
    assert state.rng.seed not in seen_by(state, 0) + seen_by(state, 1) + seen_by(state, None)
