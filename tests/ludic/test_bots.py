"""Bots: always a legal action from their own view; the Vexer's rules are legal and of the asked
difficulty; the expert finds rules of its space, writes guesses in the language that fit what it
saw, and copes with a rule outside its space."""

from __future__ import annotations

import itertools
import random
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ludic import bots, seeker
from ludic.catalogue import DIFFICULTIES, vexer_rules
from ludic.drill import drill
from ludic.engine import LudicEngine
from ludic.rules import accept_rule, illegality
from ludic.space import space
from ludic.tables import Table, table_of
from ludic.universe import OBEY, codes_for_set, set_of_codes
from ludoteca.core.engine import JSON
from ludoteca.core.rng import Rng

Bot = Any


def _is_legal(action: JSON, legal: Sequence[JSON]) -> bool:
    if action in legal:
        return True
    return any(t.get("rule") == "<rule>" and t["type"] == action["type"] and isinstance(action.get("rule"), str)
               for t in legal)


def _checked(bot: Bot) -> Bot:
    def run(view: JSON, legal: Sequence[JSON], rng: random.Random) -> JSON:
        action = bot(view, legal, rng)
        assert _is_legal(action, legal), (view["phase"], action)
        return action

    return run


def _play(engine: LudicEngine, levels: Sequence[str], options: JSON, seed: str) -> list[JSON]:
    """A whole game of checked bots (at most 400 actions); the actions taken."""
    players = [f"bot:{level}" for level in levels]
    state = engine.new_game(players, options, Rng(seed * 32))
    rng = random.Random(5)
    actions = []
    for _ in range(400):
        if state.phase == "over":
            break
        seat = min(engine.to_act(state))
        legal = engine.legal_actions(state, seat) + engine.action_templates(state, seat)
        action = _checked(bots.BOTS[levels[seat]])(engine.view(state, seat), legal, rng)
        actions.append(action)
        state, _ = engine.apply(state, seat, action)
    assert state.phase == "over"
    return actions


class TestSpace:
    def test_the_space_is_large_and_distinct(self) -> None:
        sp = space()
        assert len(sp) >= 30_000
        rows = {sp.packed[i].tobytes() for i in range(0, len(sp), 7)}
        assert len(rows) == len(range(0, len(sp), 7))

    def test_every_sampled_rule_is_written_in_the_language_and_means_its_table(self) -> None:
        sp = space()
        for row in np.random.default_rng(3).choice(len(sp), 150, replace=False):
            table = table_of(sp.text(int(row)))
            assert not table.is_ambiguous and table.obey == sp.mask(int(row))


    def test_the_space_is_cached_on_disk(self, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        from ludic import build
        from ludic import space as space_module

        monkeypatch.setenv("LUDOTECA_CACHE", str(tmp_path))
        space_module.space.cache_clear()
        try:
            built = space_module.space()
            assert list(tmp_path.glob("ludic-space-*.npz"))
            space_module.space.cache_clear()
            loaded = space_module.space()
            assert loaded is not built and np.array_equal(loaded.packed, built.packed)
            assert build.main(["space"]) == 0 and build.main([]) == 2 and build.main(["build"]) == 2
        finally:
            space_module.space.cache_clear()

    def test_a_random_seeker_survives_the_drill(self) -> None:
        result = drill(table_of("the top card is red").obey, _checked(bots.random_seeker), random.Random(4),
                       max_actions=30)
        assert not result.solved and result.guesses == 0


class TestVexer:
    def test_the_library_is_measured_in_distinct_bands(self) -> None:
        rules = vexer_rules()
        counts = {d: sum(r.difficulty == d for r in rules) for d in DIFFICULTIES}
        assert min(counts.values()) >= 40
        bands = [[r.actions for r in rules if r.difficulty == d] for d in DIFFICULTIES]
        for easier, harder in itertools.pairwise(bands):
            assert max(easier) < min(harder)

    def test_a_spectator_reading_the_catalogue_cannot_look_the_rule_up(self) -> None:
        """Issue 26, item 4: with the initial sets and 4 more sets labelled in public (random sets
        here; tests/bench/bench_ludic_bots.py --spectator measures real rounds), a spectator who
        knows the easy band still has dozens of rules to choose from (its 45 easy rules before
        left 1.5 after 6 public sets of real rounds)."""
        easy = [r.obey for r in vexer_rules() if r.difficulty == "easy"]
        assert len(easy) >= 1000
        rng = random.Random(26)
        left = []
        for _ in range(30):
            rule = rng.choice(easy)
            public = [next(s for s in rng.sample(range(576), 576) if rule >> s & 1),
                      next(s for s in rng.sample(range(576), 576) if not rule >> s & 1), *rng.sample(range(576), 4)]
            left.append(sum(all((r >> s & 1) == (rule >> s & 1) for s in public) for r in easy))
        assert statistics.mean(left) >= 20, left

    def test_a_table_of_hard_bots_ends_as_the_text_ends_a_game(self, engine: LudicEngine) -> None:
        """Hard rules are found in real rounds (RULES.md, appendix B; they once never were, and such
        a table played to the 100-round bound): its Vexers score when their rules are found, and a
        ludic player is made Vexer again."""
        state = engine.new_game(["bot:hard"] * 3, {}, Rng("4a" * 32))
        rng = random.Random(7)
        for _ in range(2000):
            if state.phase == "over":
                break
            seat = min(engine.to_act(state))
            legal = engine.legal_actions(state, seat) + engine.action_templates(state, seat)
            state, _ = engine.apply(state, seat, bots.BOTS["hard"](engine.view(state, seat), legal, rng))
        result = engine.result(state)
        assert result is not None and result.summary["bound"] is None
        assert "ludic player became Vexer again" in result.summary["won_by"]
        bands = {r.text: r.difficulty for r in vexer_rules()}
        assert {bands[r["rule"]] for r in state.rounds} == {"hard"}
        assert any(r["ended_by"] == "guess" and r["points"] > 0 for r in state.rounds)

    def test_the_human_rules_are_kept_apart_from_the_library(self) -> None:
        library = {r.obey for r in vexer_rules()}
        path = Path(__file__).with_name("human_rules.txt")
        texts = [x.strip() for x in path.read_text().splitlines() if x.strip() and not x.startswith("#")]
        assert len(texts) >= 50
        assert not set(texts) & {r.text for r in vexer_rules()}
        shared = [t for t in texts if table_of(t).obey in library]  # simple rules: the same table, other words
        assert len(shared) <= len(texts) // 4

    @pytest.mark.parametrize("level", DIFFICULTIES)
    def test_the_vexer_writes_a_legal_rule_of_the_asked_difficulty(self, engine: LudicEngine, level: str) -> None:
        for seed in range(6):
            state = engine.new_game(["bot:" + level] * 3, {}, Rng(f"{seed + 11:064x}"))
            while state.phase == "cut":
                state, _ = engine.apply(state, min(engine.to_act(state)), {"type": "cut"})
            vexer = min(engine.to_act(state))
            view = engine.view(state, vexer)
            action = bots.BOTS[level](view, engine.action_templates(state, vexer), random.Random(seed))
            state, _ = engine.apply(state, vexer, action)
            assert state.phase == "turn"
            difficulty = {r.text: r.difficulty for r in vexer_rules()}[action["rule"]]
            assert difficulty == level


class TestVexerHints:
    def _view(self) -> JSON:
        log = [{"event": "query", "seat": 1, "top": t, "bottom": b, "column": c}
               for t, b, c in (("2C", "5D", "break"), ("QD", "8C", "obey"), ("7D", "9C", "break"))]
        return {"phase": "choose", "role": "vexer", "hints": [], "log": log, "rule": "the top card is a face card",
                "columns": {OBEY: [{"face_up": True, "top": "KD", "bottom": "4C"}],
                            "break": [{"face_up": True, "top": "3C", "bottom": "JD"}]}}

    def test_the_vexer_gives_the_hint_that_leaves_most_hypotheses_standing(self) -> None:
        view = self._view()
        rule, guess = table_of(view["rule"]).obey, table_of("the top card is red").obey
        wrong = [s for s in range(576) if (rule ^ guess) >> s & 1]
        chosen = bots.least_telling(space(), view, rule, wrong)

        def standing(s: int) -> float:
            codes = codes_for_set(s)
            entry = {"event": "query", "seat": 1, "top": codes[0], "bottom": codes[1],
                     "column": "obey" if rule >> s & 1 else "break"}
            belief = seeker.believe(space(), seeker.evidence({**view, "log": [*view["log"], entry]}))
            return float(belief.weights.sum())

        best = standing(chosen)
        assert all(standing(s) <= best + 1e-9 for s in wrong[::7])
        assert best > min(standing(s) for s in wrong[::7])

    def test_a_bot_vexer_chooses_its_hints_without_the_option(self, engine: LudicEngine) -> None:
        actions = _play(engine, ("hard", "expert", "expert"), {"round_limit": 1}, "cd")
        assert any(a["type"] == "choose_hint" for a in actions)


class TestSeekers:
    @pytest.mark.parametrize("levels", [("random", "expert", "easy"), ("hard", "random", "medium", "expert")])
    def test_bots_play_whole_games_legally(self, engine: LudicEngine, levels: tuple[str, ...]) -> None:
        _play(engine, levels, {"round_limit": 2, "vexer_choices": True}, "ab")

    def test_the_random_seeker_never_guesses(self) -> None:
        view = {"phase": "guess", "role": "seeker"}
        legal = [{"type": "pass"}, {"type": "guess", "rule": "<rule>"}]
        assert all(bots.random_seeker(view, legal, random.Random(i)) == {"type": "pass"} for i in range(20))

    @pytest.mark.parametrize("text", ["the top card is red", "A red card outranks a black card",
                                      "The total is 15 or more", "the cards have the same color and the sum is even"])
    def test_the_expert_finds_rules_of_its_space(self, text: str) -> None:
        rule = table_of(text)
        assert space().index_of(rule.obey) is not None
        result = drill(rule.obey, _checked(bots.expert_seeker), random.Random(1))
        assert result.solved and result.actions <= 25

    @pytest.mark.parametrize("text", ["the top card is a red 7 or the bottom card is a black 9",
                                      "the top card is even and the bottom card is odd and the sum is at least 12"])
    def test_the_expert_adds_an_atom_to_find_a_rule_just_outside_its_space(self, text: str) -> None:
        rule = table_of(text)
        assert space().index_of(rule.obey) is None
        result = drill(rule.obey, _checked(bots.expert_seeker), random.Random(3), max_actions=60)
        assert result.solved

    @pytest.mark.parametrize(("text", "seed"), [
        ("the top card is red and the bottom card is odd, or the top card is black and the bottom card is even", 0),
        ("the top card is a face card, or the bottom card is odd and the top card is black, or the sum is 10", 1),
        ("both cards are odd or red", 3),
    ])
    def test_the_expert_pairs_two_rules_of_its_space(self, text: str, seed: int) -> None:
        """Either-or of two facts, three clauses: ``R or S`` / ``R and S`` of two rules of the space,
        against the Vexer bot's least telling hints."""
        rule = table_of(text)
        assert space().index_of(rule.obey) is None
        sp = space()
        result = drill(rule.obey, _checked(bots.expert_seeker), random.Random(seed), max_actions=40,
                       vexer=lambda view, mask, wrong: bots.least_telling(sp, view, mask, wrong))
        assert result.solved

    def test_the_expert_copes_with_a_rule_far_outside_its_space(self) -> None:
        rule = table_of("(the top card + 1) mod 3 is 2")
        assert space().index_of(rule.obey) is None
        guesses: list[str] = []

        def spy(view: JSON, legal: Sequence[JSON], rng: random.Random) -> JSON:
            action = _checked(bots.expert_seeker)(view, legal, rng)
            if action["type"] == "guess":
                guesses.append(action["rule"])
                ev = seeker.evidence(view)
                guess = table_of(action["rule"])
                assert all(guess.obeys(s) == obeys for s, obeys in ev.labels), "the guess contradicts the evidence"
            return action

        result = drill(rule.obey, spy, random.Random(2), max_actions=30)
        assert guesses and result.actions >= 1

    def test_a_guess_after_the_text_deal(self) -> None:
        """The expert reads the initial sets of the text's diagram and guesses a legal rule."""
        initial = [set_of_codes("QH", "4S"), set_of_codes("JS", "3H")]
        view: JSON = {"phase": "guess", "role": "seeker", "hand": ["2C", "5D", "7C", "8D"], "log": [], "hints": [],
                      "columns": {OBEY: [{"face_up": True, "top": "QH", "bottom": "4S"}],
                                  "break": [{"face_up": True, "top": "JS", "bottom": "3H"}]}}
        action = bots.expert_seeker(view, [{"type": "guess", "rule": "<rule>"}, {"type": "pass"}],
                                    random.Random(0))
        if action["type"] == "guess":
            table = table_of(action["rule"])
            assert table.obeys(initial[0]) and not table.obeys(initial[1])

    def test_every_library_rule_fits_some_deal(self) -> None:
        for rule in vexer_rules()[::60]:
            table = Table(rule.obey)
            assert accept_rule(rule.text, _deal_for(table)) == table_of(rule.text)


def _deal_for(table: Table) -> Any:
    from ludic.rules import InitialSets

    obey = next(s for s in range(576) if table.obeys(s))
    broken = next(s for s in range(576) if not table.obeys(s))
    sets = InitialSets(obey, broken)
    assert illegality(table, sets) is None
    return sets
