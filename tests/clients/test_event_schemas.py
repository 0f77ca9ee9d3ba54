"""Every event a game emits, and its result's summary, has a schema that says exactly what it holds
(issue 21, item 2: the documents type an event's ``data`` and a result's ``summary`` from these).

Each game's ``<game>.schemas`` declares ``EVENT_SCHEMAS`` (the ``data`` of each event type, every
member of the engine's ``EventType``) and ``SummarySchema``. Games played by the engine itself
(its bots, seeded; options that reach the rarer events) must load through them with nothing
missing and nothing unknown (marshmallow's ``RAISE``): a field added to an event without its
schema fails here.
"""

from __future__ import annotations

import importlib
import random
from collections import Counter
from typing import Any

import pytest
from ludoteca.core.rng import Rng
from ludoteca.service_layer import registry
from marshmallow import RAISE, Schema, ValidationError

GAMES = registry.names()
GAMES_PER_OPTION = 2
MAX_STEPS = 5000


def option_sets(game: str) -> list[dict[str, Any]]:
    """A quick game's options, then each option sample on top of them (each game's TestFacts):
    more kinds of events in short games."""
    facts = registry.game(game).tests
    quick = dict(facts.quick_options)
    return [quick, *({**quick, **sample} for sample in facts.option_samples)]


def schemas(game: str) -> Any:
    return importlib.import_module(f"{game}.schemas")


def event_types(game: str) -> set[str]:
    engine = importlib.import_module(f"{game}.engine")
    return {str(member) for member in engine.EventType}


@pytest.mark.parametrize("game", GAMES)
def test_every_event_type_has_a_schema(game: str) -> None:
    declared = {str(t) for t in schemas(game).EVENT_SCHEMAS}
    assert declared == event_types(game), (sorted(event_types(game) - declared), sorted(declared - event_types(game)))


def check(schema: type[Schema], data: Any, where: str) -> None:
    try:
        schema(unknown=RAISE).load(data)
    except ValidationError as err:
        raise AssertionError(f"{where}: {err.messages} in {data}") from err


def play(game: str, options: dict[str, Any], seed: int) -> tuple[list[Any], Any]:
    """One game of the game's strongest bots (some moves random), by the engine alone."""
    d = registry.game(game)
    engine = d.engine
    rnd = random.Random(seed)
    levels = list(d.bots)
    players = [f"bot:{levels[-1]}"] * engine.min_seats
    state = engine.new_game(players, dict(d.options_schema().load(options)), Rng(f"{seed:064x}"))
    events = list(engine.opening_events(state))
    for _ in range(MAX_STEPS):
        if engine.result(state) is not None:
            break
        seat = sorted(engine.to_act(state))[0]
        legal = engine.legal_actions(state, seat)
        offered = legal + engine.action_templates(state, seat)
        level = levels[-1] if rnd.random() < 0.8 or not legal else levels[0]
        action = d.bots[level](engine.view(state, seat), offered, rnd)
        state, new = engine.apply(state, seat, action)
        events += new
    return events, engine.result(state)


@pytest.mark.parametrize("game", GAMES)
def test_the_events_and_results_of_played_games_fit_their_schemas(game: str) -> None:
    module = schemas(game)
    seen: Counter[str] = Counter()
    for options in option_sets(game):
        for n in range(GAMES_PER_OPTION):
            events, result = play(game, options, n)
            for event in events:
                check(module.EVENT_SCHEMAS[event.type], event.data, f"{game} {event.type}")
                seen[event.type] += 1
            if result is not None:
                check(module.SummarySchema, result.summary, f"{game} summary")
    print(game, dict(seen))
    assert seen, game
