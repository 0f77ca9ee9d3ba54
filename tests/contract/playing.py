"""The contract suite's shared parts: playouts of any registered game, the figures they print.

A game gets all of ``tests/contract`` by registering (``ludoteca.games`` entry point). No per-game
knowledge is here: what a seat may not know is each game's own ``tests/<game>/twin.py``, found
through :mod:`twins`; the option sets worth
playing besides the defaults are the game's own (``GameDefinition.tests.option_samples``; a game
without any plays its defaults).
"""

from __future__ import annotations

import itertools
import json
import random
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from contract.twins import twin
from ludoteca.core.engine import JSON, GameDefinition
from ludoteca.core.errors import LudotecaError
from ludoteca.core.rng import Rng
from ludoteca.service_layer import registry
from marshmallow import ValidationError

GAMES = registry.names()


def rule(name: str, detail: str) -> str:
    """A failure's message: the engine rule it broke, as :class:`ludoteca.core.engine.Engine`'s
    docstring names it, then what happened."""
    return f"engine rule {name!r} (see ludoteca.core.engine.Engine): {detail}"

def option_sets(game: str) -> list[JSON]:
    """The defaults, then the game's samples, each loaded by its options schema."""
    definition = registry.game(game)
    return [dict(definition.options_schema().load(dict(o))) for o in [{}, *definition.tests.option_samples]]


def canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


@dataclass
class Figures:
    """What the suite saw of one game: printed at the end of the run."""

    playouts: int = 0
    bot_tables: int = 0
    max_actions: int = 0
    bound: int = 0
    ended_by_bound: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    seconds: float = 0.0

    def add(self, actions: int, bound: int, summary: JSON, bots: bool, seconds: float) -> None:
        if bots:
            self.bot_tables += 1
        else:
            self.playouts += 1
        self.max_actions = max(self.max_actions, actions)
        self.bound = max(self.bound, bound)
        reached = summary.get("bound")
        if reached:
            self.ended_by_bound[reached["reached"]] += 1
        self.seconds += seconds


FIGURES: dict[str, Figures] = defaultdict(Figures)


def print_figures(terminalreporter: Any) -> None:
    if not FIGURES:
        return
    terminalreporter.section("contract: games played to the end")
    for game in sorted(FIGURES):
        f = FIGURES[game]
        bounds = ", ".join(f"{k} {v}" for k, v in sorted(f.ended_by_bound.items())) or "none"
        terminalreporter.write_line(
            f"{game:<12} random playouts {f.playouts:>3}, bot-only tables {f.bot_tables:>3}; max actions "
            f"seen {f.max_actions:>5} vs declared bound {f.bound:>6}; ended by a bound: {bounds}; "
            f"{f.seconds:.1f} s")


# -- playing -------------------------------------------------------------------------------------
Chooser = Callable[[Any, int, random.Random], JSON]
"""(state, seat, rnd) -> the action that seat posts."""


def random_action(definition: GameDefinition, state: Any, seat: int, rnd: random.Random) -> JSON:
    """A uniformly random listed action; when only free-text actions are open (a rule to write),
    a bot of a random level fills one in."""
    engine = definition.engine
    legal = engine.legal_actions(state, seat)
    if legal:
        return dict(rnd.choice(legal))
    templates = engine.action_templates(state, seat)
    assert templates, rule("never-stuck", "a seat to act has neither a legal action nor a template")
    bot = definition.bots[rnd.choice(sorted(definition.bots))]
    return dict(bot(engine.view(state, seat), templates, random.Random(rnd.random())))


def bot_action(definition: GameDefinition, state: Any, seat: int, level: str, rnd: random.Random,
               listed: list[JSON] | None = None) -> JSON:
    """What the bot of ``level`` plays, given what the shell gives it: its view and its listed
    actions and templates (``listed``, when the caller has them already)."""
    engine = definition.engine
    legal = listed if listed is not None else engine.legal_actions(state, seat) + engine.action_templates(state, seat)
    return dict(definition.bots[level](engine.view(state, seat), legal, random.Random(rnd.random())))


def players_of(levels: list[str | None]) -> list[str]:
    return ["human" if level is None else f"bot:{level}" for level in levels]


def new_game(definition: GameDefinition, players: list[str], options: JSON, seed: str) -> Any:
    return definition.engine.new_game(list(players), dict(options), Rng(seed))


def level_tables(game: str, include_all_random: bool, budget: int = 6) -> Iterator[list[str]]:
    """Bot-only tables: for every seat count, combinations of levels (multisets) sampled, about
    ``budget`` tables in all (at least one per seat count); the all-``random`` tables (the
    longest) only when asked."""
    definition = registry.game(game)
    levels = sorted(definition.bots)
    engine = definition.engine
    rnd = random.Random(f"{game}-tables-{budget}")
    per_count = max(1, budget // (engine.max_seats - engine.min_seats + 1))
    for seats in range(engine.min_seats, engine.max_seats + 1):
        combos = [list(c) for c in itertools.combinations_with_replacement(levels, seats)]
        all_random = [c for c in combos if set(c) == {"random"}]
        others = [c for c in combos if set(c) != {"random"}]
        yield from rnd.sample(others, min(per_count, len(others)))
        if include_all_random:
            yield from all_random


# -- what a seat reads -----------------------------------------------------------------------
def error_body(definition: GameDefinition, state: Any, seat: int) -> Any:
    """What a seat reads when it posts a bad action (the detail and the extras: legal lists)."""
    try:
        definition.engine.apply(state, seat, {"type": "no_such_action"})
    except LudotecaError as err:
        return [type(err).__name__, err.detail, err.extra]
    pytest.fail(rule("typed-errors", "an unknown action type was accepted"))


def check_views(definition: GameDefinition, state: Any, n: int, rnd: random.Random) -> None:
    engine = definition.engine
    seed = engine.dump(state).get("rng", {}).get("seed")
    for seat in [None, *range(n)]:
        view = engine.view(state, seat)
        text = canonical(view)
        try:
            definition.view_schema().load(json.loads(text))
        except ValidationError as err:
            pytest.fail(rule("view-schema", f"{definition.name}: the view of seat {seat} does not match the view "
                             f"schema: {err.messages}"))
        if seed:
            assert seed not in text, rule("secrets", "the RNG seed is in a view")
        other = twin(definition, state, seat, rnd)
        assert canonical(engine.view(other, seat)) == text, rule(
            "secrets", f"seat {seat}'s view depends on what it may not know")
        if seat is not None:
            secret = rule("secrets", f"seat {seat}'s legal actions, templates or error bodies depend on what it may "
                                     "not know")
            assert engine.legal_actions(other, seat) == engine.legal_actions(state, seat), secret
            assert engine.action_templates(other, seat) == engine.action_templates(state, seat), secret
            assert canonical(error_body(definition, other, seat)) == canonical(error_body(definition, state, seat)), \
                secret
