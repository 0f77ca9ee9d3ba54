"""Bots: always legal, from their view only; greedy's habits; the expert's simulator plays by the
engine's rules (same finishing order as the engine for an all-greedy round); its sampling is
consistent with what the seat has seen; it finds what greedy misses."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ludor import rollouts as fast
from ludor.bots import BOTS, INTERRUPTS, body, make_expert, make_interrupt, vote
from ludor.engine import OVER, PLAY, VOTE, LudorEngine, LudorState
from ludor.greedy import AUTOPLIM_MOVE, PASS, Choice, candidates
from ludor.greedy import PLAY as PLAY_MOVE
from ludor.hierarchy import POWER_OF, counts_of
from ludor.knowledge import Knowledge
from ludor.simulation import PASS_LIKELIHOOD, TODAY, Style, _survivors, ladder
from ludoteca.core.rng import Rng

Table = Callable[..., LudorState]
Run = Callable[..., Any]
CHEAP_EXPERT = make_expert(rollouts=40, seconds=0.05)
LEVELS = {"random": BOTS["random"], "greedy": BOTS["greedy"], "expert": CHEAP_EXPERT}


def act(engine: LudorEngine, state: LudorState, level: str, rng: random.Random) -> LudorState:
    seat = min(engine.to_act(state))
    legal = engine.legal_actions(state, seat)
    action = LEVELS[level](engine.view(state, seat), legal, rng)
    assert action in legal
    state, _ = engine.apply(state, seat, action)
    return state


@settings(max_examples=6, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32).map(bytes.hex), n=st.integers(3, 6),
       levels=st.lists(st.sampled_from(sorted(LEVELS)), min_size=6, max_size=6),
       straights=st.booleans(), exchange=st.sampled_from(["automatic", "choose"]))
def test_bots_always_play_legal_actions(engine: LudorEngine, seed: str, n: int, levels: list[str],
                                        straights: bool, exchange: str) -> None:
    players = [f"bot:{lv}" for lv in levels[:n]]
    state = engine.new_game(players, {"round_limit": 2, "straights": straights, "exchange": exchange}, Rng(seed))
    rng = random.Random(seed)
    while state.phase != OVER:
        seat = min(engine.to_act(state))
        state = act(engine, state, players[seat][4:], rng)


def test_default_expert_is_legal(engine: LudorEngine) -> None:
    state = engine.new_game(["bot:expert"] * 4, {}, Rng("e" * 64))
    rng = random.Random(1)
    for _ in range(3):
        seat = min(engine.to_act(state))
        legal = engine.legal_actions(state, seat)
        action = BOTS["expert"](engine.view(state, seat), legal, rng)
        assert action in legal
        state, _ = engine.apply(state, seat, action)


class TestGreedy:
    def decide(self, engine: LudorEngine, state: LudorState) -> dict[str, Any]:
        seat = min(engine.to_act(state))
        return BOTS["greedy"](engine.view(state, seat), engine.legal_actions(state, seat), random.Random(0))

    def test_leads_its_lowest_rank_whole(self, engine: LudorEngine, table: Table) -> None:
        state = table([["2C", "5O", "5C", "9O", "JK1"], ["6O", "4C"], ["7O", "4E"]])
        assert self.decide(engine, state) == {"type": "play", "cards": ["5O", "5C"]}

    def test_keeps_control_cards_early(self, engine: LudorEngine, table: Table, run: Run) -> None:
        state = table([["1O", "4O", "5O", "6O", "7O"], ["2C", "JK1", "3E", "4E", "5E", "6E", "8E"], ["7E", "4B"]])
        state, _ = run(state, (0, "1O"))
        assert self.decide(engine, state) == {"type": "pass"}

    def test_spends_control_late(self, engine: LudorEngine, table: Table, run: Run) -> None:
        state = table([["1O", "4O", "5O", "6O", "7O"], ["2C", "JK1", "3E"], ["7E", "4B"]])
        state, _ = run(state, (0, "1O"))
        assert self.decide(engine, state) == {"type": "play", "cards": ["2C"]}

    def test_plims_when_that_wins_the_trick(self, engine: LudorEngine, table: Table, run: Run) -> None:
        state = table([["9O", "4O", "5O"], ["8E", "4B"], ["9C", "10C", "3E"]])
        state, _ = run(state, (0, "9O"), (1, "pass"))
        assert self.decide(engine, state) == {"type": "play", "cards": ["9C"]}

    def test_autoplim_when_nothing_beats_it(self, engine: LudorEngine, table: Table, run: Run) -> None:
        state = table([["1O", "4O", "5O"], ["Autoplim", "2O", "3E", "4E", "5E", "6E", "7E"], ["7C", "4B"]])
        state, _ = run(state, (0, "1O"))
        assert self.decide(engine, state) == {"type": "play_autoplim", "declare_plim": True}

    def test_finishes_when_it_can(self, engine: LudorEngine, table: Table, run: Run) -> None:
        state = table([["5O", "5C", "4O"], ["2C", "JK1"], ["7C", "4B"]])
        state, _ = run(state, (0, "5O 5C"))
        assert self.decide(engine, state) == {"type": "play", "cards": ["2C", "JK1"]}


def test_the_model_of_todays_expert_spends_control_where_greedy_keeps_it(engine: LudorEngine, table: Table,
                                                                         run: Run) -> None:
    """Greedy keeps its 2 and joker early and passes on an As; the rollouts' model of today's
    expert (``spend``) answers with the 2, the lowest answer of all, as that expert mostly does."""
    state, _ = run(table([["1O", "4O", "5O", "6O", "7O"], ["2C", "JK1", "3E", "4E", "5E", "6E", "8E"], ["7E", "4B"]]),
                   (0, "1O"))
    assert state.trick is not None and state.trick.top is not None
    t = fast.trick_array(0, 1, state.trick.top, 0, False, 0)
    hand = np.array(counts_of(state.hands[1]), np.int64)
    sizes = np.array(state.sizes, np.int64)
    run_, run_index = fast.run_arrays(state.options.rules.run)
    scratch = np.zeros(15, np.int64), np.zeros((16, 15), np.int64), np.zeros(16, np.int64)
    flags = np.zeros(3, np.bool_), np.zeros(3, np.bool_)
    keep = fast.greedy(hand, t, 1, sizes, *flags, False, run_, run_index, True, *scratch, False)
    assert keep[0] == fast.M_PASS
    spend = fast.greedy(hand, t, 1, sizes, *flags, False, run_, run_index, True, *scratch, True)
    assert spend[0] == fast.M_PLAY and list(scratch[0]) == counts_of(["2C"])


@pytest.mark.parametrize("seed", range(12))
def test_compiled_rollout_plays_like_the_engine(engine: LudorEngine, seed: int) -> None:
    """An all-greedy round through the engine (greedy bots on their views) and through the
    expert's compiled simulator from the same deal end in the same finishing order."""
    n = 3 + seed % 4
    opts = {"round_limit": 1, "straights": seed % 2 == 1, "autoplim_plim": ["match", "always", "off"][seed % 3]}
    state = engine.new_game(["bot:greedy"] * n, opts, Rng(f"{seed + 99:064x}"))
    assert state.trick is not None
    hands = np.array([counts_of(h) for h in state.hands], dtype=np.int64)
    t = fast.trick_array(state.trick.leader, state.trick.turn, None, None, False, 0)
    finished = np.full(n, -1, dtype=np.int64)
    run, run_index = fast.run_arrays(state.options.rules.run)
    fast.play_out(hands, hands.sum(axis=1), t, np.zeros(n, np.bool_), np.zeros(n, np.bool_), finished, -1,
                  state.options.straights, run, run_index, fast.PLIM_MODES[state.options.autoplim_plim],
                  np.zeros(n, np.int64))
    rng = random.Random(0)
    while state.phase == PLAY:
        state = act(engine, state, "greedy", rng)
    assert tuple(finished) == state.rounds[-1].order


class TestKnowledge:
    def test_samples_are_consistent_with_the_view(self, engine: LudorEngine) -> None:
        state = engine.new_game(["human"] * 4, {"round_limit": 3}, Rng("f" * 64))
        rng = random.Random(3)
        while state.round < 2 or state.phase != PLAY or not state.tricks:
            seat = min(engine.to_act(state))
            action = {"type": "vote", "end": False} if state.phase == VOTE else engine.legal_actions(state, seat)[0]
            state, _ = engine.apply(state, seat, action)
        presidente = state.titles.index("presidente")
        culo = state.titles.index("culo")
        k = Knowledge.from_view(engine.view(state, presidente))
        returned = next(e for e in state.exchange if e.giver == presidente).cards
        held = [POWER_OF[c] for c in returned if c in state.hands[culo]]
        assert sorted(k.known.get(culo, [])) == sorted(held)
        for _ in range(20):
            hands = k.sample(rng)
            assert [sum(h) for h in hands] == state.sizes
            assert hands[presidente] == counts_of(state.hands[presidente])
            assert all(hands[culo][p] >= held.count(p) for p in held)
            truth = [0] * 15
            for h in (state.hands[s] for s in range(4) if s != presidente):
                for p, c in enumerate(counts_of(h)):
                    truth[p] += c
            assert [sum(h[p] for s, h in enumerate(hands) if s != presidente) for p in range(15)] == truth


def test_expert_sees_what_greedy_misses(engine: LudorEngine, table: Table) -> None:
    """With the 2 de Oros and a low card, against a seat with a single card: leading the 2 de
    Oros first (then the last card) wins the round; greedy leads its low card."""
    state = table([["5O", "2O"], ["6O"], ["6C", "7C", "8C"]])
    view, legal = engine.view(state, 0), engine.legal_actions(state, 0)
    assert BOTS["greedy"](view, legal, random.Random(0)) == {"type": "play", "cards": ["5O"]}
    assert BOTS["expert"](view, legal, random.Random(0)) == {"type": "play", "cards": ["2O"]}


class TestOutsideThePlay:
    @pytest.mark.parametrize(("players", "votes", "limit", "end"), [
        (["human", "bot:greedy", "bot:expert"], [True, None, None], None, True),
        (["human", "bot:greedy", "bot:expert"], [False, None, None], None, False),
        (["human", "human", "bot:expert", "bot:random"], [True, False, None, None], None, False),
        (["human", "human", "human", "bot:random"], [True, False, True, None], None, True),
        (["bot:greedy", "bot:expert", "bot:random"], [None, None, None], None, True),
        (["bot:greedy", "bot:expert", "bot:random"], [None, None, None], 5, False),
    ])
    def test_vote(self, players: list[str], votes: list[bool | None], limit: int | None, end: bool) -> None:
        assert vote({"players": players, "votes": votes, "options": {"round_limit": limit}}) is end

    def test_body_of_a_choice(self) -> None:
        hand = ["5O", "5C", "5E", "JK1", "JK2"]
        take = tuple(counts_of(["5O", "5C", "JK1"]))
        assert body(Choice(PLAY_MOVE, take), hand) == {"type": "play", "cards": ["5O", "5C", "JK1"]}
        assert body(Choice(PASS), hand) == {"type": "pass"}
        assert body(Choice(AUTOPLIM_MOVE, None, True), hand) == {"type": "play_autoplim", "declare_plim": True}


@pytest.mark.parametrize("straights", [False, True])
def test_compiled_random_policy_plays_legal_moves(engine: LudorEngine, straights: bool) -> None:
    """The expert's model of the random bot only ever draws moves the engine allows."""
    fast.seed(7)
    rng = random.Random(5)
    state = engine.new_game(["bot:random"] * 4, {"round_limit": 1, "straights": straights}, Rng("a1" * 32))
    take = np.zeros(15, np.int64)
    takes, powers = np.zeros((16, 15), np.int64), np.zeros(16, np.int64)
    run, run_index = fast.run_arrays(state.options.rules.run)
    while state.phase == PLAY:
        assert state.trick is not None
        seat = state.trick.turn
        top = state.trick.top
        t = fast.trick_array(seat, seat, top, state.trick.last, False, 0)
        legal = engine.legal_actions(state, seat)
        for _ in range(10):
            move, declare = fast.random_move(np.array(counts_of(state.hands[seat]), np.int64), t, straights, run,
                                             run_index, True, take, takes, powers)
            kind = [PLAY_MOVE, PASS, AUTOPLIM_MOVE][move]
            choice = Choice(kind, tuple(int(x) for x in take) if kind == PLAY_MOVE else None, bool(declare))
            assert body(choice, state.hands[seat]) in legal
        state, _ = engine.apply(state, seat, rng.choice(legal))


@pytest.mark.parametrize("straights", [False, True])
def test_compiled_searcher_model_plays_legal_moves(engine: LudorEngine, straights: bool) -> None:
    """The rollouts' fuller model of the searchers (``SEARCHER``: greedy that spends control cards,
    leads a higher rank or answers higher, or passes, now and then) only plays moves the engine
    allows, and departs from greedy's lowest lead about as often as fitted."""
    fast.seed(11)
    rng = random.Random(3)
    state = engine.new_game(["bot:random"] * 4, {"round_limit": 1, "straights": straights}, Rng("b2" * 32))
    take = np.zeros(15, np.int64)
    takes, powers = np.zeros((16, 15), np.int64), np.zeros(16, np.int64)
    run, run_index = fast.run_arrays(state.options.rules.run)
    leads = lowest = 0
    while state.phase == PLAY:
        assert state.trick is not None
        seat = state.trick.turn
        t = fast.trick_array(state.trick.leader, seat, state.trick.top, state.trick.last, False, 0)
        legal = engine.legal_actions(state, seat)
        hand = np.array(counts_of(state.hands[seat]), np.int64)
        sizes = np.array(state.sizes, np.int64)
        passed = np.array([s in state.trick.passed for s in range(4)], np.bool_)
        blocked = np.array([s in state.trick.blocked for s in range(4)], np.bool_)
        plain = [p for p in range(fast.TWO) if hand[p]]
        for _ in range(20):
            move, declare = fast.searcher(hand, t, seat, sizes, passed, blocked, straights, run, run_index, True,
                                          take, takes, powers)
            kind = [PLAY_MOVE, PASS, AUTOPLIM_MOVE][move]
            choice = Choice(kind, tuple(int(x) for x in take) if kind == PLAY_MOVE else None, bool(declare))
            assert body(choice, state.hands[seat]) in legal
            if state.trick.top is None and len(plain) > 1 and sum(hand) > sum(hand[p] for p in plain[:1]):
                leads += 1
                lowest += int(take[plain[0]] > 0)
        state, _ = engine.apply(state, seat, rng.choice(legal))
    assert leads and 0.4 < lowest / leads < 0.8


def test_expert_names_a_lone_joker_for_a_plim(engine: LudorEngine, table: Table, run: Run) -> None:
    """On a 7, the last other seat in the trick: a joker named 7 blocks him and wins the trick at
    once (then the round), where a Joker could still meet his 2 de Oros; greedy plays a Joker."""
    state, _ = run(table([["7O", "3O", "4O"], ["5O", "JK1", "3C"], ["6C", "8C", "9C"]], leader=1),
                   (1, "5O"), (2, "pass"), (0, "7O"))
    view, legal = engine.view(state, 1), engine.legal_actions(state, 1)
    named = {"type": "play", "cards": ["JK1"], "rank": "7"}
    assert named in legal
    assert BOTS["greedy"](view, legal, random.Random(0)) == {"type": "play", "cards": ["JK1"]}
    assert BOTS["expert"](view, legal, random.Random(0)) == named
    assert body(Choice(PLAY_MOVE, tuple(counts_of(["JK1"])), named=POWER_OF["7O"]), ["JK1", "3C"]) == named


class TestPassInference:
    """The expert reads passes: each pass on a set, with the passer's hand when it passed (its
    hand now plus what it played since), weighs the imagined deals by how likely such a hand
    passes (a likelihood fitted on today's expert's play)."""

    def test_a_pass_is_recorded_with_what_its_seat_played_since(self, engine: LudorEngine, table: Table,
                                                                run: Run) -> None:
        state = table([["7O", "7C", "3O", "4O"], ["9O", "9C", "4C", "5C"], ["3E", "5E", "6E"],
                       ["8O", "8C", "3B", "6C"]])
        state, _ = run(state, (0, "7O 7C"), (1, "pass"), (2, "pass"), (3, "8O 8C"), (0, "pass"),
                       (3, "3B"), (0, "4O"), (1, "5C"))
        k = Knowledge.from_view(engine.view(state, 3))
        seven, eight = POWER_OF["7O"], POWER_OF["8O"]
        assert [(s, p, n) for s, p, n, _ in k.passes] == [(1, seven, 2), (2, seven, 2), (0, eight, 2)]
        later = {s: counts for s, _, _, counts in k.passes}
        assert later[1][POWER_OF["5C"]] == 1 and sum(later[1]) == 1  # the 5 it held when it passed
        assert sum(later[2]) == 0 and later[0][POWER_OF["4O"]] == 1 and sum(later[0]) == 1
        assert [s for s, *_ in Knowledge.from_view(engine.view(state, 1)).passes] == [2, 0]  # not its own

    def test_the_class_of_a_hand_facing_a_set(self) -> None:
        def cls(cards: list[str], played: list[str], power: int, size: int) -> int:
            return int(fast.pass_class(np.array(counts_of(cards), dtype=np.int64),
                                       np.array(counts_of(played), dtype=np.int64), power, size))
        seven = POWER_OF["7O"]
        assert cls(["7E", "3O"], [], seven, 1) == 0  # a PLIM
        assert cls(["3O"], ["9O"], seven, 1) == 1  # the 9 it played since: two up
        assert cls(["12O", "12C"], [], seven, 2) == 2  # Reyes: five up (Sota, Caballo, Rey after 8, 9)
        assert cls(["1O", "1C", "3O"], [], POWER_OF["3O"], 2) == 3
        assert cls(["2C", "JK1", "3O"], [], seven, 2) == 4  # only with control cards
        assert cls(["8O", "JK1"], [], seven, 2) == 4  # an 8 completed by a joker
        assert cls(["3O", "4O"], [], seven, 1) == 5

    def test_the_weight_of_a_deal_is_the_product_of_its_passes(self) -> None:
        hands = np.zeros((3, 15), dtype=np.int64)
        hands[1, POWER_OF["9O"]] = 1  # seat 1 could have answered the 7 two up
        hands[2, POWER_OF["3O"]] = 1  # seat 2 could not
        passes = np.array([[1, POWER_OF["7O"], 1], [2, POWER_OF["7O"], 1]], dtype=np.int64)
        later = np.zeros((2, 15), dtype=np.int64)
        likelihood = np.arange(1, 13, dtype=np.float64).reshape(2, 6) / 12
        assert fast.pass_weight(hands, passes, later, likelihood) == pytest.approx(likelihood[0, 1] * likelihood[0, 5])
        assert fast.pass_weight(hands, passes[:0], later[:0], likelihood) == 1.0

    def test_the_fitted_likelihood_says_a_hand_with_an_answer_passes_less(self) -> None:
        assert PASS_LIKELIHOOD.shape == (2, fast.PASS_CLASSES)
        assert ((PASS_LIKELIHOOD > 0) & (PASS_LIKELIHOOD <= 1)).all()
        assert (PASS_LIKELIHOOD[:, 1] < PASS_LIKELIHOOD[:, 5]).all()

    def test_a_uniform_deal_fills_every_hand(self) -> None:
        fast.seed(7)
        pool = np.array([4] * 4 + [0] * 7, dtype=np.int64)  # one card more than the hands hold
        for _ in range(50):
            hands = np.zeros((3, 15), dtype=np.int64)
            np.random.shuffle(pool)
            fast._deal(pool, hands, np.array([0, 5, 5], dtype=np.int64), 0)
            assert list(hands.sum(axis=1)) == [0, 5, 5] and hands[:, 4].sum() >= 3


class TestPlayInference:
    """The variant reading plays (``Style.plays``): each lead of a plain rank and each answer to a
    set below the 2s, with the player's hand when it played (its hand now plus what it played
    since), weighs the imagined deals by how likely such a hand plays that (the searchers lead
    and answer low, and spend control cards when they have nothing natural)."""

    def test_leads_and_answers_are_recorded_with_what_their_seat_played_since(self, engine: LudorEngine,
                                                                             table: Table, run: Run) -> None:
        state = table([["5O", "5C", "3O", "9O"], ["6O", "6C", "8O", "2C"], ["7E", "7B", "4C", "12C"],
                       ["9C", "9E", "4O", "11O"]])
        state, _ = run(state, (0, "5O 5C"), (1, "6O 6C"), (2, "7E 7B"), (3, "9C 9E"), (0, "pass"), (1, "pass"),
                       (2, "pass"), (3, "4O"), (0, "9O"), (1, "2C"))
        k = Knowledge.from_view(engine.view(state, 0))
        p = {c: POWER_OF[f"{c}O"] for c in ("4", "5", "6", "7", "9")}
        assert [e[:5] for e in k.plays] == [
            (1, fast.NATURAL, p["5"], 2, p["6"]), (2, fast.NATURAL, p["6"], 2, p["7"]),
            (3, fast.NATURAL, p["7"], 2, p["9"]), (3, fast.LEAD, -1, 0, p["4"]), (1, fast.CONTROL, p["9"], 1, -1)]
        later = [e[5] for e in k.plays]
        assert later[0][POWER_OF["2C"]] == 1 and sum(later[0]) == 1  # seat 1 played the 2 since its 6s
        assert later[2][p["4"]] == 1 and sum(later[2]) == 1 and sum(later[3]) == 0 and sum(later[4]) == 0
        assert all(e[0] != 1 for e in Knowledge.from_view(engine.view(state, 1)).plays)  # not its own

    def test_the_weight_of_a_deal_counts_the_lower_ranks_held_and_not_played(self) -> None:
        lead, natural, control = 0.5, 0.25, 0.125
        factors = np.array([lead, natural, control])
        hands = np.zeros((3, 15), dtype=np.int64)
        hands[1, [POWER_OF["3O"], POWER_OF["4O"], POWER_OF["8O"]]] = 1
        hands[2, POWER_OF["6O"]] = 2
        seven, five = POWER_OF["7O"], POWER_OF["5O"]
        later = np.zeros((1, 15), dtype=np.int64)

        def weight(*play: int, played: tuple[str, ...] = ()) -> float:
            return float(fast.play_weight(hands, np.array([play], dtype=np.int64),
                                          later + np.array(counts_of(list(played)), dtype=np.int64), factors))
        assert weight(1, fast.LEAD, -1, 0, seven) == pytest.approx(lead ** 2)  # the 3 and the 4 kept
        assert weight(1, fast.LEAD, -1, 0, POWER_OF["3O"]) == 1.0  # its lowest
        assert weight(1, fast.LEAD, -1, 0, seven, played=("5C",)) == pytest.approx(lead ** 3)  # it held a 5 too
        assert weight(1, fast.NATURAL, five, 1, POWER_OF["9O"]) == pytest.approx(natural)  # over its 8
        assert weight(2, fast.NATURAL, five, 2, seven) == pytest.approx(natural)  # over its pair of 6s
        assert weight(2, fast.NATURAL, five, 2, POWER_OF["6O"]) == 1.0
        assert weight(2, fast.CONTROL, five, 2, -1) == pytest.approx(control)  # the 6s were an answer
        assert weight(2, fast.CONTROL, seven, 2, -1) == 1.0  # nothing natural at 7 or above
        assert weight(1, fast.CONTROL, five, 2, -1) == 1.0  # no pair
        assert fast.play_weight(hands, np.zeros((0, 5), dtype=np.int64), later[:0], factors) == 1.0

    def test_resampling_moves_a_deal_towards_the_passes_keeping_sizes_and_known_cards(self) -> None:
        nine, three, seven = POWER_OF["9O"], POWER_OF["3O"], POWER_OF["7O"]
        hands = np.zeros((4, 15), dtype=np.int64)
        hands[1, nine], hands[2, three], hands[3, [nine, three]] = 3, 3, (1, 2)
        known = np.zeros((4, 15), dtype=np.int64)
        known[3, nine] = 1  # given to seat 3 in the exchange: it stays there
        passes = np.array([[1, seven, 1]], dtype=np.int64)  # seat 1 passed on a 7 holding three 9s?
        likelihood = np.ones((2, fast.PASS_CLASSES))
        likelihood[:, :4] = 0.001  # a hand with a natural answer hardly ever passes
        no_plays, factors = np.zeros((0, 5), dtype=np.int64), np.ones(3)
        fast.seed(11)
        fast.resample(hands, 0, known, passes, np.zeros((1, 15), dtype=np.int64), likelihood, no_plays,
                      np.zeros((0, 15), dtype=np.int64), factors, 200)
        assert hands[1, nine] == 0 and hands[1].sum() == 3  # its 9s went to seat 2
        assert list(hands.sum(axis=1)) == [0, 3, 3, 3] and hands[:, nine].sum() == 4 and hands[3, nine] >= 1

    def test_the_expert_reading_plays_plays_legally(self, engine: LudorEngine) -> None:
        plays_two_rounds_legally(engine, replace(TODAY, plays=1.0, resample=20), ["bot:greedy"] * 3, "ab", 3)


class TestOutOfTurn:
    """The expert, asked out of turn with the Autoplim, puts it down when that beats waiting."""

    def test_it_cuts_in_before_a_seat_can_go_out(self, engine: LudorEngine, table: Table, run: Run) -> None:
        """Seat 1 could answer the As with its last card and finish first; the Autoplim now
        clears the table, and its holder leads its last card and finishes first itself."""
        state, _ = run(table([["1O", "3O"], ["2C"], ["Autoplim", "3E"]]), (0, "1O"))
        assert state.trick is not None and state.trick.turn == 1
        ask = make_interrupt(rollouts=2000, seconds=1.0)
        view, legal = engine.view(state, 2), engine.legal_actions(state, 2)
        action = ask(view, legal, random.Random(0))
        assert action is not None and action["type"] == "play_autoplim" and action in legal

    def test_it_waits_when_there_is_nothing_to_cut_into(self, engine: LudorEngine, table: Table,
                                                        run: Run) -> None:
        ask = INTERRUPTS["expert"]
        state = table([["1O", "3O"], ["2C", "4C"], ["Autoplim", "3E"]])
        assert ask(engine.view(state, 2), engine.legal_actions(state, 2), random.Random(0)) is None  # empty table
        state, _ = run(state, (0, "1O"), (1, "pass"))
        assert state.trick is not None and state.trick.turn == 2  # in turn: the ordinary decision
        assert ask(engine.view(state, 2), engine.legal_actions(state, 2), random.Random(0)) is None
        assert ask(engine.view(state, 0), engine.legal_actions(state, 0), random.Random(0)) is None  # no Autoplim


class TestPruning:
    """The expert stops simulating a candidate clearly worse than the best (``Style.prune``,
    :func:`ludor.simulation._survivors`), on the deals they were both played on."""

    def test_a_candidate_worse_on_every_deal_goes(self) -> None:
        rng = np.random.default_rng(0)
        best = rng.uniform(0.4, 1.0, 64)
        rewards = np.zeros((64, 8))  # candidates 1-3 and 5-6 left the running before (their columns unread)
        rewards[:, 0], rewards[:, 4], rewards[:, 7] = best, best - 0.3, best
        assert list(_survivors(rewards, np.ones(64), np.array([0, 4, 7]))) == [0, 7]

    def test_a_gap_within_the_noise_stays(self) -> None:
        rng = np.random.default_rng(1)
        rewards = rng.choice([0.0, 1 / 3, 2 / 3, 2.0], size=(32, 4))
        rewards[:, 3] = rewards[:, 2]
        rewards[0, 3] = 0.0 if rewards[0, 2] else 1 / 3  # one deal apart
        assert list(_survivors(rewards, np.ones(32), np.array([2, 3]))) == [2, 3]

    def test_deals_that_cannot_explain_the_passes_count_for_nothing(self) -> None:
        rewards = np.array([[1.0, 0.0]] * 40 + [[0.0, 1.0]] * 40)
        weights = np.array([1.0] * 40 + [0.0] * 40)
        assert list(_survivors(rewards, weights, np.array([0, 1]))) == [0]
        assert list(_survivors(rewards, np.ones(80), np.array([0, 1]))) == [0, 1]

    @settings(max_examples=50, deadline=None)
    @given(data=st.lists(st.lists(st.sampled_from([0.0, 1 / 3, 2 / 3, 2.0]), min_size=3, max_size=3),
                         min_size=2, max_size=60),
           weights=st.lists(st.floats(0.0, 1.0), min_size=60, max_size=60))
    def test_the_best_so_far_always_stays(self, data: list[list[float]], weights: list[float]) -> None:
        rewards, w = np.array(data), np.array(weights[:len(data)])
        kept = _survivors(rewards, w, np.arange(3))
        assert len(kept) >= 1
        if w.sum() > 0:
            assert int(np.argmax(w @ rewards)) in kept

    def test_the_pruned_search_finds_what_the_full_one_finds(self, engine: LudorEngine, table: Table) -> None:
        state = table([["5O", "2O"], ["6O"], ["6C", "7C", "8C"]])
        view, legal = engine.view(state, 0), engine.legal_actions(state, 0)
        assert TODAY.prune
        pruned = make_expert(seconds=60.0)  # the simulations, not the clock, end both searches
        full = make_expert(seconds=60.0, style=replace(TODAY, prune=False))
        for seed in range(3):
            assert pruned(view, legal, random.Random(seed)) == full(view, legal, random.Random(seed)) == {
                "type": "play", "cards": ["2O"]}


class TestVariants:
    """The variants kept off (issue 26, RULES.md section 12): what each changes, and that an expert
    searching with them plays only legal moves."""

    @pytest.mark.parametrize("straights", [False, True])
    def test_wide_leads_are_every_undominated_lead_and_legal(self, engine: LudorEngine, straights: bool) -> None:
        """``wide``: leading, the candidates are every undominated lead (part of a rank's set, a set
        with jokers added, a straight), today's whole sets among them, each a legal action."""
        seen_part = seen_jokers = 0
        for i in range(16):
            state = engine.new_game(["human"] * 4, {"straights": straights}, Rng(f"{i + 7:064x}"))
            seat = min(engine.to_act(state))
            k = Knowledge.from_view(engine.view(state, seat))
            narrow = candidates(k.counts, k.trick, k.rules, k.plim_on)
            wide = candidates(k.counts, k.trick, k.rules, k.plim_on, wide=True)
            assert set(narrow) <= set(wide) and len(wide) > len(narrow)
            legal = engine.legal_actions(state, seat)
            for c in wide:
                assert body(c, state.hands[seat]) in legal
                if c.take is not None and 0 < sum(c.take[:fast.TWO]) < sum(k.counts[p] for p in range(fast.TWO)
                                                                           if c.take[p]):
                    seen_part += 1
                if c.take is not None and c.take[fast.JOKER] and any(c.take[:fast.JOKER]):
                    seen_jokers += 1
        assert seen_part and seen_jokers

    def test_the_noisy_model_plays_random_moves_now_and_then(self, engine: LudorEngine) -> None:
        """``noise``: the other experts in the rollouts (``NOISY``) play ``SPENDER``'s move but now
        and then the random bot's: from one deal, rounds played out differ, and each ends whole."""
        state = engine.new_game(["bot:greedy"] * 4, {"round_limit": 1}, Rng("c3" * 32))
        assert state.trick is not None
        hands0 = np.array([counts_of(h) for h in state.hands], dtype=np.int64)
        run, run_index = fast.run_arrays(state.options.rules.run)
        orders = set()
        for policy, seed in [(fast.SPENDER, s) for s in range(20)] + [(fast.NOISY, s) for s in range(20)]:
            fast.seed(seed)
            hands = hands0.copy()
            t = fast.trick_array(state.trick.leader, state.trick.turn, None, None, False, 0)
            finished = np.full(4, -1, dtype=np.int64)
            fast.play_out(hands, hands.sum(axis=1), t, np.zeros(4, np.bool_), np.zeros(4, np.bool_), finished,
                          -1, False, run, run_index, fast.PLIM_MODES[state.options.autoplim_plim],
                          np.full(4, policy, np.int64))
            assert sorted(finished) == [0, 1, 2, 3]
            orders.add((policy, tuple(finished)))
        assert len({o for p, o in orders if p == fast.NOISY}) > len({o for p, o in orders if p == fast.SPENDER})

    def test_the_reward_ladder(self) -> None:
        """The rollouts score a finishing position by :func:`ludor.simulation.ladder`: 1 for the
        Presidente down to 0 for the Culo, plus the first place's bonus."""
        assert list(ladder(4, 1.0)) == [2.0, 2 / 3, 1 / 3, 0.0]
        assert list(ladder(3, 0.0)) == [1.0, 0.5, 0.0]

    def test_the_variants_play_legally(self, engine: LudorEngine) -> None:
        plays_two_rounds_legally(engine, replace(TODAY, wide=True, noise=True), ["bot:expert", "bot:greedy",
                                                                                 "bot:greedy"], "cd", 4)


def plays_two_rounds_legally(engine: LudorEngine, style: Style, others: list[str], seed: str, rng_seed: int) -> None:
    """An expert searching in ``style`` at seat 0 (a small budget), the ``others`` greedy, plays two
    rounds with legal actions only (a listed ``bot:expert`` seat is modelled as the searchers)."""
    bot = make_expert(rollouts=40, seconds=0.05, style=style)
    state = engine.new_game(["bot:expert", *others], {"round_limit": 2}, Rng(seed * 32))
    rng = random.Random(rng_seed)
    while engine.result(state) is None:
        seat = min(engine.to_act(state))
        view, legal = engine.view(state, seat), engine.legal_actions(state, seat)
        action = (bot if seat == 0 else BOTS["greedy"])(view, legal, rng)
        assert action in legal
        state, _ = engine.apply(state, seat, action)
