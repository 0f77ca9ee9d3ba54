"""The expert Seeker beyond its hypothesis space (issue 26, item 3): statements the space lacks
(``ludic.space.beyond_atoms``), joined to a rule of the space only once no rule of it fits.

The space itself (its atoms, fingerprint, tables and the catalogue measured on it) is unchanged,
so a rule of the space is found by the same actions as without the wider statements; rules of the
kind the expert used to miss ("the cards are consecutive or the product is at least 68") are now
found within 40 actions; no hypothesis of the extension contradicts an observation.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import pytest
from ludic import bots, seeker
from ludic import language as L
from ludic.drill import drill
from ludic.fresh import fresh_rules
from ludic.space import atoms, beyond_atoms, fingerprint, space, wider_tables
from ludic.tables import table_of
from ludoteca.core.engine import JSON, Bot


def _vexer(view: JSON, mask: int, wrong: list[int]) -> int:
    return bots.least_telling(space(), view, mask, wrong)


def _recorded(actions: list[JSON]) -> Bot:
    def seeker_fn(view: JSON, legal: Sequence[JSON], rng: random.Random) -> JSON:
        action = bots.expert_seeker(view, legal, rng)
        actions.append(action)
        return action

    return seeker_fn


class TestWiderStatements:
    def test_the_space_does_not_hold_them(self) -> None:
        """The wider statements are not atoms of the space: its fingerprint (the disk cache's file,
        the catalogue's key) is that of :func:`atoms` alone."""
        sp = space()
        assert fingerprint(list(sp.atoms)) == fingerprint(atoms())
        assert len(beyond_atoms()) > 400

    def test_every_wider_statement_is_written_in_the_language_and_means_its_table(self) -> None:
        rules, packed = wider_tables(space())
        assert len(rules) > len(space().atoms) + 200
        assert len({row.tobytes() for row in packed}) == len(rules)
        for rule, row in zip(rules, packed, strict=True):
            table = table_of(L.render(rule))
            assert not table.is_ambiguous and table.obey == int.from_bytes(row.tobytes(), "little")
            assert L.statements(rule) <= 2


class TestExtension:
    def test_no_hypothesis_contradicts_an_observation(self) -> None:
        """For rules beyond the space and random labelled sets, every hypothesis of the extension
        fits every label, is written as it means, is no guess judged wrong, and joins few statements."""
        sp = space()
        rng = random.Random(5)
        checked = 0
        for _, mask in itertools.islice(fresh_rules(31, ()), 40):
            if sp.index_of(mask) is not None:
                continue
            labels = tuple(sorted((s, bool(mask >> s & 1)) for s in rng.sample(range(576), rng.randint(12, 40))))
            wrong = (sp.mask(0),)
            belief = seeker._extend_atoms(sp, seeker.Evidence(labels, wrong))
            if belief is None:
                continue
            for i in rng.sample(range(belief.size), min(belief.size, 40)):
                rule = belief.rule(i)
                table = table_of(L.render(rule))
                assert table.obey == belief.mask(i) and table.obey not in wrong
                assert all(table.obeys(s) == obeys for s, obeys in labels)
                assert L.statements(rule) <= 6
            checked += 1
        assert checked >= 10

    @pytest.mark.parametrize(("text", "seed"), [
        ("the cards are consecutive or the product is at least 68", 1),
        ("there is a black card higher than 9 or the cards have the same parity", 1),
        ("the product is lower than 34", 1),
    ])
    def test_a_rule_the_space_almost_has_is_found_within_40_actions(self, text: str, seed: int,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
        """Rules the expert missed before (fresh rules of seed 2): found in the same drill with the
        wider statements, and not found without them."""
        mask = table_of(text).obey
        assert space().index_of(mask) is None
        result = drill(mask, bots.expert_seeker, random.Random(seed), max_actions=40, vexer=_vexer)
        assert result.solved
        monkeypatch.setattr(seeker, "_extend_atoms", lambda sp, ev: None)
        before = drill(mask, bots.expert_seeker, random.Random(seed), max_actions=40, vexer=_vexer)
        assert not before.solved or before.actions > result.actions

    @pytest.mark.parametrize("text", [
        "the top card is red", "the sum is at least 15 and the cards are different colors",
        "the product is at least 60 or the top card is a face card",
    ])
    def test_rules_of_the_space_are_found_by_the_same_actions(self, text: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
        mask = table_of(text).obey
        assert space().index_of(mask) is not None
        with_wider: list[JSON] = []
        drill(mask, _recorded(with_wider), random.Random(4), max_actions=80, vexer=_vexer)
        monkeypatch.setattr(seeker, "_extend_atoms", lambda sp, ev: None)
        without: list[JSON] = []
        drill(mask, _recorded(without), random.Random(4), max_actions=80, vexer=_vexer)
        assert with_wider == without and with_wider[-1]["type"] == "guess"
