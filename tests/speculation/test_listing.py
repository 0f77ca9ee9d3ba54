"""The compact listing (:mod:`speculation.listing`): at the joker one template with its domain
instead of 715 (615) bodies; expanded, exactly the engine's legal actions; a well-formed body that
the action schema documents but refuses when posted with its domain; the game's bots choose from
it as from the full list."""

from __future__ import annotations

import json
import random
from typing import TYPE_CHECKING

import pytest
from ludoteca.core.errors import IllegalActionError
from speculation import listing
from speculation.bots import BOTS
from speculation.engine import SpeculationEngine
from speculation.game import definition
from speculation.schemas import GuessJokerSchema

if TYPE_CHECKING:
    from conftest import Table

OPTIONS = [({}, 715, 4), ({"joker_guesses": "hands"}, 615, 2)]


class TestCompactListing:
    @pytest.mark.parametrize(("options", "count", "repeats"), OPTIONS)
    def test_at_the_joker_one_template_stands_for_every_guess(
            self, table: Table, engine: SpeculationEngine, options: dict[str, str], count: int, repeats: int) -> None:
        state = table.clear_tiers(table.playing(options=options), 0)
        legal = engine.legal_actions(state, 0)
        assert len(legal) == count
        compact = engine.compact_listing(state, 0)
        assert compact is not None
        actions, templates = compact
        assert actions == [] and len(templates) == 1
        (template,) = templates
        assert template["type"] == "guess_joker" and template["domain"] == {
            "field": "values", "size": 4, "min": 1, "max": 10, "max_repeats": repeats, "count": count}
        assert listing.expand(template) == legal  # the same bodies, in the same order
        assert listing.expanded(actions + templates) == legal
        assert template["values"] == legal[0]["values"]
        assert len(json.dumps(templates)) * 100 < len(json.dumps(legal))  # 142 bytes instead of ~35 KB

    def test_not_compact_elsewhere(self, table: Table, engine: SpeculationEngine) -> None:
        """Outside the joker (and for a seat not to act there) the listing is the usual one."""
        assert engine.compact_listing(table.new(), 0) is None  # 31 clothing counts
        assert engine.compact_listing(table.playing(), 0) is None  # 10 values
        state = table.clear_tiers(table.playing(), 0)
        assert engine.compact_listing(state, 1) is None and engine.legal_actions(state, 1) == []

    def test_expanded_leaves_bodies_alone(self) -> None:
        bodies = [{"type": "guess", "value": 3}, {"type": "put_on_item"}]
        assert listing.expanded(bodies) == bodies and not any(map(listing.is_template, bodies))

    def test_template_is_a_documented_body_never_posted(self, table: Table) -> None:
        template = listing.joker_template(4)
        schema = GuessJokerSchema()
        assert schema.dump(template) == template  # documented as it is listed (domain: readOnly)
        assert "domain" in schema.validate(template)  # posted with its domain: refused (422)
        assert schema.validate({k: v for k, v in template.items() if k != "domain"}) == {}

    def test_a_refusal_at_the_joker_carries_the_template(self, table: Table, engine: SpeculationEngine) -> None:
        state = table.clear_tiers(table.playing(), 0)
        with pytest.raises(IllegalActionError) as err:
            engine.apply(state, 0, table.guess(3))
        compact = engine.compact_listing(state, 0)
        assert compact is not None and err.value.extra["templates"] == compact[1]
        assert err.value.extra["legal_count"] == 715


class TestBotsTakeTheCompactListing:
    @pytest.mark.parametrize("level", sorted(BOTS))
    @pytest.mark.parametrize(("options", "count", "repeats"), OPTIONS)
    def test_same_choice_as_from_the_full_list(self, table: Table, engine: SpeculationEngine, level: str,
                                               options: dict[str, str], count: int, repeats: int) -> None:
        state = table.clear_tiers(table.playing(options=options), 0)
        view, legal = engine.view(state, 0), engine.legal_actions(state, 0)
        compact = engine.compact_listing(state, 0)
        assert compact is not None
        for seed in range(5):
            full = BOTS[level](view, legal, random.Random(seed))
            chosen = definition.bots[level](view, compact[0] + compact[1], random.Random(seed))
            assert chosen == full and "domain" not in chosen
            engine.apply(state, 0, chosen)  # a body the engine accepts

    def test_same_choice_everywhere_else(self, table: Table, engine: SpeculationEngine) -> None:
        """Given a full listing (the worker's), the game's bots are the bots themselves."""
        for state in (table.new(), table.playing()):
            view, legal = engine.view(state, 0), engine.legal_actions(state, 0)
            for level in BOTS:
                assert definition.bots[level](view, legal, random.Random(1)) == BOTS[level](
                    view, legal, random.Random(1))
