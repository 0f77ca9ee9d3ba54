"""Pig as the shell hosts it: the one value the entry point names (``pyproject.toml``:
``[project.entry-points."ludoteca.games"] pig = "pig.game:definition"``).

The hosting layer builds the whole REST surface from it (``/games``, actions, views, events,
replay, ``/docs``), the worker plays its bots on the queue named after the game, and
``make generate`` writes every file derived from it (the Procfile, docker-compose.yml, the
Caddyfile, the Kubernetes manifests, ``openapi/pig.json``): the game's facts are declared here,
once, and no file outside ``services/pig/`` names the game by hand.
"""

from __future__ import annotations

from ludoteca.core.engine import GameDefinition, Hosting, TestFacts

from pig.bots import BOTS
from pig.engine import PigEngine
from pig.schemas import ACTION_SCHEMAS, OptionsSchema, ViewSchema

DESCRIPTION = """\
Pig: one six-sided die, two to six players, first to 100.

The first player is drawn with the game's seeded RNG; turns go to the left. On your turn, `roll`:
a 1 loses the turn total and passes the turn, any other face adds to it; or `hold` (once the turn
has points): bank the turn total and pass. The first to bank the target (option `target`, default
100) wins.
Bots: `random`, `hold20` (holds at a turn total of 20, or on reaching the target)."""

definition = GameDefinition(
    name="pig",
    title="Pig",
    engine=PigEngine(),
    options_schema=OptionsSchema,
    action_schemas=ACTION_SCHEMAS,
    view_schema=ViewSchema,
    bots=BOTS,
    description=DESCRIPTION,
    basic_bot="hold20",  # plays a human's turn when its timer runs out
    hosting=Hosting(port=8005),  # its service's port: one per game, the next free after the others'
    tests=TestFacts(  # what the shared tests need to know (every field has a generic default)
        playing_bot="hold20",  # the level whose tables play a real game to its end
        quick_options={"target": 30},  # a short but complete game, for tests that play many
        option_samples=({"target": 10}, {"target": 500}),  # played by tests/contract beside the defaults
        race_rounds=50,  # moves are cheap: as many concurrent-move races as Ludix
    ),
)
