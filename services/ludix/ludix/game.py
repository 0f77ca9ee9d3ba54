"""Ludix as the shell hosts it: the engine, its schemas, its bots and its REST extras."""

from __future__ import annotations

from ludoteca.core.engine import GameDefinition, Hosting, TestFacts

from ludix.bots import BOTS
from ludix.engine import LudixEngine
from ludix.routes import extras
from ludix.schemas import ACTION_SCHEMAS, OptionsSchema, ViewSchema

DESCRIPTION = """\
Ludix: push your luck with four Roman-numeral dice (faces L, X, X, V, I, I).

Once every seat is filled, the first to post `alea_jacta_est` plays first; turns go to the left.
`roll` throws all four dice; a throw scores when all four symbols form a strictly valid Roman
numeral (14 of the 35 possible throws, e.g. LXXX = 80; a bust has chance 23/81 and loses the turn
total). After a valid throw, `roll` again or `hold` to bank; either may name the `numeral` that
counts (default: the best, e.g. LXXI rather than LXIX or XLIX). Once someone reaches the target
(300) the round is completed; the highest total wins, equal totals share the win.
Bots: `random`, `steady` (holds at 110, or on reaching the target; in the last round plays to beat
the leader), `blind` (holds at 110 whatever the scores), `expert` (exact win-maximizing play with
two seats; with more, the end of the game exact for every seat still to play).
`GET /numerals?dice=LXVI` and `GET /odds` give the exact odds."""

def warm_up() -> float:
    """The multi-seat expert's compiled sweep, loaded (numba's disk cache, ``make policy``) and run
    once, so that no first decision of a worker compiles it (imported here: the game services
    never run a bot)."""
    from ludix.bots import warm_up as warm

    return warm()


definition = GameDefinition(
    name="ludix",
    title="Ludix",
    engine=LudixEngine(),
    options_schema=OptionsSchema,
    action_schemas=ACTION_SCHEMAS,
    view_schema=ViewSchema,
    bots=BOTS,
    extras=extras,
    description=DESCRIPTION,
    warm_up=warm_up,
    basic_bot="steady",
    hosting=Hosting(port=8004),
    tests=TestFacts(
        playing_bot="steady",
        quick_options={"target": 50},
        option_samples=({"target": 50}, {"target": 1000}),
        race_rounds=50,
        bench_options={"target": 1000},  # make bench's tables: long games, few setups (as issue 24 measured)
    ),
)
