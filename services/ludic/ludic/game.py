"""Ludic as the shell hosts it: the engine, its schemas, its bots and its REST extra."""

from __future__ import annotations

from ludoteca.core.engine import GameDefinition, Hosting, TestFacts

from ludic.bots import BOTS
from ludic.engine import LudicEngine
from ludic.routes import extras
from ludic.schemas import ACTION_SCHEMAS, OptionsSchema, ViewSchema

DESCRIPTION = """\
Ludic (2-card): the Vexer writes a secret rule about sets of two cards (a top and a bottom card);
the Seekers build sets to find it. 3 to 5 players.

Everyone `cut`s: low card is the first Vexer; the token goes to the Vexer's left. Each round the
Vexer deals 4 cards to each Seeker and two initial sets (under the black Ace the 'obey' column,
under the red Ace the 'break' column), then `write_rule`s a rule in the rule language (see
LANGUAGE.md: "A red card outranks a black card", "The total is 15 or more" ...); the server refuses
an ambiguous rule or one the initial sets do not fit, and judges everything exactly, since every
rule is a truth table over the 576 possible sets. Seekers, in turn from the Vexer's left, `query`
(the server places the set; two new cards), `play` to a column (right: two cards and a chance to
`guess` or `pass`; wrong: the set is moved, no cards) or `draw` with fewer than 4 cards. A guess is
right when it is logically equivalent to the rule; a wrong one earns a hint (a visible set that
disproves it, else one built from the hintbook, else a slip). At most 5 face-up sets per column.
Once the deck and every hand are empty, each Seeker guesses or passes and a set of each column is
flipped each time; flipping an initial set ends the round (the token holder is the next Vexer).
The Vexer scores the face-up sets (0 if a column holds only its initial set); at 15 points (11 in
a short game) a player is ludic, and a ludic player who becomes Vexer again wins.
Bots: `random`; `easy`, `medium`, `hard` (the Vexer's rule difficulty, the expert as Seeker);
`expert`. `POST /rules/check` checks a rule (errors with line and column, ambiguity, legality)."""

def warm_up() -> int:
    """The bots' hypothesis space, loaded from the disk cache or built (about a second) and kept
    in memory, so that no first bot turn of a worker builds it (imported here: the game service
    never runs a bot)."""
    from ludic.space import space

    return len(space())


definition = GameDefinition(
    name="ludic",
    title="Ludic",
    engine=LudicEngine(),
    options_schema=OptionsSchema,
    action_schemas=ACTION_SCHEMAS,
    view_schema=ViewSchema,
    bots=BOTS,
    extras=extras,
    description=DESCRIPTION,
    warm_up=warm_up,
    basic_bot="easy",
    hosting=Hosting(port=8001),
    tests=TestFacts(
        playing_bot="expert",  # the Seekers must be able to find rules
        quick_options={"short_game": True},
        option_samples=({"vexer_choices": True, "short_game": True}, {"turn_initial_sets": False}),
        random_play_options={"round_limit": 1},
        capped_options={"round_limit": 4},
        uncapped_levels=("easy",),
        private_events=frozenset({"HandDealt", "CardsReceived", "HintReceived", "RuleRecorded"}),
    ),
)
