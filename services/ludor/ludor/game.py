"""Ludor as the shell hosts it: the engine, its schemas and its bots."""

from __future__ import annotations

from ludoteca.core.engine import GameDefinition, Hosting, TestFacts

from ludor.bots import BOTS, INTERRUPTS
from ludor.engine import LudorEngine
from ludor.schemas import ACTION_SCHEMAS, OptionsSchema, ViewSchema

DESCRIPTION = """\
Ludor: the Spanish climbing game of Presidentes and Culos, for 3 to 6 players.

All 51 cards (the Spanish deck, two jokers and the Autoplim) are dealt. Power, high to low:
2 de Oros > Autoplim > Jokers > 2 > As > Rey > Caballo > Sota > 9 > ... > 3. The holder of the
3 de Oros leads the first round, the Culo the later ones. `play` opens a trick with one or more
cards of one rank (jokers complete sets) or answers with as many cards of equal or higher rank;
matching the rank is a PLIM and blocks the next player for the trick. `pass` leaves the trick.
The 2 de Oros wins any trick at once, whatever the count. The Autoplim (`play_autoplim`) may be
played by its holder at any moment, even out of turn: it clears the table and only the 2 de Oros
beats it; `declare_plim` blocks the next player if he holds cards matching the covered play.
The finishing order gives the titles (Presidente, Vicepresidente, Neutros, Vice-culo, Culo) and
points (n-1 for the first down to 0); before the next round the Culo gives his two best cards to
the Presidente, who gives back his two worst (one card between Vice-culo and Vicepresidente).
After each round everyone votes (`vote`); a majority ends the game.
Options: straights, a 40-card deck, a round limit, choosing the cards given back, the reading of
the Autoplim's PLIM. Bots: `random`, `greedy`, `expert` (determinized Monte Carlo)."""



def warm_up() -> float:
    """The expert's compiled rollouts, loaded (numba's disk cache, ``make policy``) and run once:
    a cold process spent ~300 ms of its first decision there, past the search's time cap, and
    decided from a handful of deals (imported here, not at module level: the game services never
    run a bot)."""
    from ludor.simulation import warm_up as warm

    return warm()


definition = GameDefinition(
    name="ludor",
    title="Ludor",
    engine=LudorEngine(),
    options_schema=OptionsSchema,
    action_schemas=ACTION_SCHEMAS,
    view_schema=ViewSchema,
    bots=BOTS,
    extras=None,
    description=DESCRIPTION,
    warm_up=warm_up,
    basic_bot="greedy",
    interrupts=INTERRUPTS,
    hosting=Hosting(port=8003),
    tests=TestFacts(
        playing_bot="greedy",
        quick_options={"round_limit": 1, "deck": "forty"},
        option_samples=({"straights": True, "deck": "forty", "exchange": "choose", "autoplim_plim": "always"},
                        {"autoplim_plim": "off", "round_limit": 3}),
        random_play_options={"round_limit": 2},
        # the bots play on to a round limit only when no human sits: the second round's exchange needs one
        bot_table_samples=({"exchange": "choose", "round_limit": 2},),
        private_events=frozenset({"CardsDealt", "CardsGiven", "PlayerBarred"}),
    ),
)
