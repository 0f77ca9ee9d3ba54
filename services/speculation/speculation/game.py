"""Speculation as the shell hosts it: the engine, its schemas and its bots (no REST extras)."""

from __future__ import annotations

from ludoteca.core.engine import GameDefinition, Hosting, TestFacts

from speculation.bots import BOTS
from speculation.engine import SpeculationEngine
from speculation.listing import taking_templates
from speculation.schemas import ACTION_SCHEMAS, OptionsSchema, ViewSchema

DESCRIPTION = """\
Speculation: two players, each with a hidden board of black face cards (J J Q Q K K Joker) over
1, 1, 2, 2, 3, 3 and 4 of their 20 black value cards (Ace = 1 to 10, two of each); 4 set aside.

First `report_clothing` (sealed): the most items guesses first; on a tie the first to
`put_on_item` does (bots only race when no human is in it). Then `guess` one value for the tier
you attack on the opponent's board (jacks, then queens, then kings): "yes" finds one such card
and you go again, "no" passes the turn; a second copy needs its own guess. Once both kings are
down, `guess_joker` names four values and is told how many are right (as multisets): all four
wins. Your view shows your board in full, the opponent's found cards, both red records and every
guess and answer. Bots: `random`, `basic` (never a guess that cannot be right), `expert` (exact
inference on the tiers, a Knuth-style solver at the joker)."""

definition = GameDefinition(
    name="speculation",
    title="Speculation",
    engine=SpeculationEngine(),
    options_schema=OptionsSchema,
    action_schemas=ACTION_SCHEMAS,
    view_schema=ViewSchema,
    bots={level: taking_templates(bot) for level, bot in BOTS.items()},  # the compact listing, as clients get it
    extras=None,
    description=DESCRIPTION,
    basic_bot="basic",
    hosting=Hosting(port=8002),
    tests=TestFacts(
        playing_bot="basic",
        option_samples=({"first_guesser": "random", "joker_guesses": "hands"},),
    ),
)
