"""The fresh-rule generator (issue 26, item 3): human-style rules from a grammar of its own, for
measuring bots on what they were never tuned on."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

from ludic.bots import expert_seeker, least_telling
from ludic.catalogue import PLAYABLE, vexer_rules
from ludic.drill import drill
from ludic.fresh import fresh_rules
from ludic.language import parse, statements
from ludic.rules import check
from ludic.space import space
from ludic.tables import table_of

PACKAGE = Path(__file__).parents[2] / "services" / "ludic" / "ludic"


def test_a_seed_draws_distinct_playable_rules_of_one_meaning() -> None:
    rules = list(itertools.islice(fresh_rules(26), 150))
    assert len({mask for _, mask in rules}) == 150
    for text, mask in rules:
        report = check(text)
        assert report["valid"], report
        assert table_of(text).obey == mask and PLAYABLE[0] <= mask.bit_count() <= PLAYABLE[1]


def test_the_same_seed_draws_the_same_rules_and_another_seed_others() -> None:
    first = list(itertools.islice(fresh_rules(1), 30))
    assert first == list(itertools.islice(fresh_rules(1), 30))
    assert len(set(first) & set(itertools.islice(fresh_rules(2), 30))) < 5


def test_excluded_tables_are_never_drawn() -> None:
    catalogue = {r.obey for r in vexer_rules()}
    drawn = {mask for _, mask in itertools.islice(fresh_rules(3, catalogue), 200)}
    assert not drawn & catalogue
    assert {mask for _, mask in itertools.islice(fresh_rules(3), 200)} & catalogue  # excluding is not idle


def test_no_bot_or_tuning_code_reads_the_generator() -> None:
    """Kept apart: only the benchmark draws from it."""
    readers = [p.name for p in PACKAGE.glob("*.py") if p.name != "fresh.py" and "ludic.fresh" in p.read_text()]
    assert readers == []


def test_the_experts_guesses_stay_a_few_statements_on_fresh_rules() -> None:
    """Issue 26: fallback guesses were lists of ten or more exception sets; now at most one set is
    patched in (two statements), so a guess joins at most a handful of statements."""
    sizes: list[int] = []

    def seeker(view: dict[str, object], legal: list[dict[str, object]], rng: random.Random) -> dict[str, object]:
        action = expert_seeker(view, legal, rng)
        if action.get("type") == "guess":
            sizes.append(statements(parse(str(action["rule"]))))
        return action

    sp = space()
    beyond = [mask for _, mask in itertools.islice(fresh_rules(2), 80) if sp.index_of(mask) is None][:8]
    for k, mask in enumerate(beyond):
        drill(mask, seeker, random.Random(k), max_actions=40,
              vexer=lambda view, rule, wrong: least_telling(sp, view, rule, wrong))
    assert sizes and max(sizes) <= 6, sizes
