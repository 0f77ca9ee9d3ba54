"""The engine contract, for every registered game (``ludoteca.service_layer.registry.names()``).

Random legal playouts from random seeds: the game is never stuck (someone is to act, with an
action or a template) and ends within the bound its engine declares (``max_actions``); every
listed action is accepted; ``apply`` never mutates its input; the codec round-trips; the same
seed and actions replay to a byte-identical dump; every seat's and the spectator's view validates
against the game's view schema and does not change when only what that seat may not know does
(:mod:`twins`); every rejection of a bad action or seat is a typed ``LudotecaError`` that leaves
the state as it was. Bot-only tables of every level combination (a sample) end within the bound.

Seeds come from ``LUDOTECA_CONTRACT_SEED`` (default fixed, so a failure replays); each failure
names its game, seed, seats and options.
"""

from __future__ import annotations

import inspect
import json
import os
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from contract.playing import (
    FIGURES,
    GAMES,
    bot_action,
    canonical,
    check_views,
    level_tables,
    new_game,
    option_sets,
    players_of,
    random_action,
    rule,
)
from contract.twins import private_events
from ludoteca.core.engine import JSON, Engine, Event, GameDefinition
from ludoteca.core.errors import GameOverError, IllegalActionError, LudotecaError
from ludoteca.service_layer import registry

BASE_SEED = os.environ.get("LUDOTECA_CONTRACT_SEED", "contract-1")
STRICT_STEPS = 100
"""Steps of a random playout with every check (then only the light ones, to the end)."""
CHECK_EVERY = 8
"""Views, twins, probes and other listed actions every this many strict steps."""
SEEDS_PER_OPTIONS = 1
WRONG_VALUES: list[Any] = [None, "x", -1, 10**30, 2.5, [], {}, True]


def seed_hex(*parts: object) -> str:
    return f"{random.Random(':'.join(map(str, (BASE_SEED, *parts)))).getrandbits(256):064x}"


# -- checks --------------------------------------------------------------------------------------
def probes(definition: GameDefinition, state: Any, n: int, rnd: random.Random) -> list[tuple[Any, Any]]:
    """Bad actions and seats: unknown types, non-objects, listed bodies with a field dropped or
    of a wrong type, a listed action of one seat posted by another, seats out of range."""
    engine = definition.engine
    out: list[tuple[Any, Any]] = []
    listed = [(s, a) for s in range(n) for a in engine.legal_actions(state, s) + engine.action_templates(state, s)]
    some_seat = rnd.randrange(n)
    out += [(some_seat, body) for body in ({}, {"type": None}, {"type": "no_such_action"}, {"type": 7}, [], "roll",
                                           None, 42)]
    for seat, action in rnd.sample(listed, min(3, len(listed))):
        for key in action:
            out.append((seat, {k: v for k, v in action.items() if k != key}))
            out.append((seat, {**action, key: rnd.choice(WRONG_VALUES)}))
        out.append(((seat + 1 + rnd.randrange(max(1, n - 1))) % n, action))
        out += [(bad, action) for bad in (-1, n, 99, None, "0")]
    return out


def check_rejections(definition: GameDefinition, state: Any, n: int, rnd: random.Random) -> None:
    engine = definition.engine
    before = canonical(engine.dump(state))
    for seat, body in probes(definition, state, n, rnd):
        try:
            engine.apply(state, seat, body)
        except LudotecaError:
            pass
        except Exception as err:  # the contract: nothing but a typed error
            pytest.fail(rule("typed-errors", f"{definition.name}: seat {seat!r} posting {body!r} raised "
                                             f"{type(err).__name__}: {err}"))
        assert canonical(engine.dump(state)) == before, rule(
            "immutable-input", f"seat {seat!r} posting {body!r} (rejected or accepted) changed its input state")


def check_listed_accepted(definition: GameDefinition, state: Any, n: int, rnd: random.Random) -> None:
    engine = definition.engine
    for seat in range(n):
        legal = engine.legal_actions(state, seat)
        for action in rnd.sample(legal, min(3, len(legal))):
            try:
                engine.apply(state, seat, action)
            except LudotecaError as err:
                pytest.fail(rule("listed-accepted", f"{definition.name}: listed action {action} of seat {seat} "
                                                    f"refused: {err.detail}"))


def check_events(game: str, events: list[Event], n: int) -> None:
    private = private_events(game)
    for e in events:
        assert isinstance(e, Event) and isinstance(e.type, str) and isinstance(e.data, dict), rule(
            "events", f"not an Event of a str type and dict data: {e!r}")
        assert e.audience is None or (e.audience and e.audience <= frozenset(range(n))), rule(
            "events", f"an audience that is not seats of the game: {e!r}")
        if e.type in private:
            assert e.audience is not None and len(e.audience) < n, rule(
                "private-events", f"{e.type} is told to everyone")
        try:
            json.dumps(e.data)
        except (TypeError, ValueError) as err:
            pytest.fail(rule("events", f"{e.type}'s data is not JSON-able: {err}"))
    # A move is a new version, which everyone sees (the ETag, each event's `version`): a move
    # whose events were all private would tell the others by a version without an event of theirs.
    assert any(e.audience is None for e in events), rule(
        "public-event", f"a move with no event everyone may see: {events}")


def check_finished(definition: GameDefinition, state: Any, n: int, played: int, bound: int) -> JSON:
    engine = definition.engine
    result = engine.result(state)
    assert result is not None
    assert engine.to_act(state) == frozenset(), rule("finished", "a finished game still waits on seats")
    assert result.winners and set(result.winners) <= set(range(n)) and len(result.scores) == n, rule(
        "finished", f"winners {result.winners} and scores {result.scores} of {n} seats")
    assert "bound" in result.summary, rule("bound-summary", "a result's summary says whether a declared bound "
                                                            "ended the game (summary['bound'], None if none did)")
    reached = result.summary["bound"]
    if played >= bound:
        assert reached and reached["reached"] == "actions", rule(
            "bound-summary", f"the game reached its bound of {bound} actions; its summary's bound is {reached}")
    if reached is not None:
        assert set(reached) == {"reached", "limit"} and isinstance(reached["limit"], int), rule(
            "bound-summary", f"summary['bound'] is {{'reached': ..., 'limit': n}}, not {reached}")
    for seat in range(n):
        assert engine.legal_actions(state, seat) == [] and engine.action_templates(state, seat) == [], rule(
            "finished", f"seat {seat} still has actions listed")
        try:
            engine.apply(state, seat, {"type": "anything"})
        except GameOverError:
            pass
        except Exception as err:  # any other answer breaks the rule
            pytest.fail(rule("finished", f"a move after the end raised {type(err).__name__}, not GameOverError"))
        else:
            pytest.fail(rule("finished", "a move after the end was accepted"))
    try:
        json.dumps(result.summary)
    except (TypeError, ValueError) as err:
        pytest.fail(rule("finished", f"the summary is not JSON-able: {err}"))
    return result.summary


# -- a whole game --------------------------------------------------------------------------------
def play(definition: GameDefinition, seed: str, levels: list[str | None], options: JSON, rnd: random.Random,
         drive: Any, strict_steps: int) -> tuple[Any, list[tuple[int, JSON]], int]:
    """Play to the end; ``drive(state, step, listed) -> (seat, action)``, ``listed``: each seat to
    act's legal actions and templates (computed once a step). Returns the final state, the log
    and the declared bound."""
    engine = definition.engine
    n = len(levels)
    state = new_game(definition, players_of(levels), options, seed)
    bound = engine.max_actions(options, n)
    assert isinstance(bound, int) and bound > 0, rule("bound", f"max_actions gave {bound!r}")
    log: list[tuple[int, JSON]] = []
    where = f"{definition.name} seed {seed} seats {players_of(levels)} options {options}"
    while engine.result(state) is None:
        assert len(log) < bound, rule("bound", f"{where}: not over after the declared bound of {bound} actions")
        strict = len(log) < strict_steps
        # a state is never changed by what reads it or steps from it (the service shares one
        # decoded state between the requests of a version: GameService.state_of)
        before = canonical(engine.dump(state)) if strict else ""
        to_act = engine.to_act(state)
        assert to_act, rule("never-stuck", f"{where}: nobody to act after {len(log)} actions")
        listed = {s: engine.legal_actions(state, s) + engine.action_templates(state, s) for s in to_act}
        for s in to_act:
            assert listed[s], rule("never-stuck", f"{where}: seat {s} to act has no action or template")
        if strict and len(log) % CHECK_EVERY == 0:
            check_views(definition, state, n, rnd)
            check_rejections(definition, state, n, rnd)
            check_listed_accepted(definition, state, n, rnd)
        seat, action = drive(state, len(log), listed)
        try:
            new, events = engine.apply(state, seat, action)
        except LudotecaError as err:
            pytest.fail(rule("listed-accepted", f"{where}: seat {seat} playing {action} refused: {err.detail}"))
        if strict:
            assert canonical(engine.dump(state)) == before, rule(
                "immutable-input", f"{where}: apply, a view or a listing changed its input (an Rng drawn in place?)")
            dumped = engine.dump(new)
            data = json.loads(json.dumps(dumped))
            assert data == dumped, rule(  # a tuple is not a list, an int key not a str one
                "codec", f"{where}: dump(state) is not plain JSON values (what decoding its text gives)")
            assert canonical(engine.dump(engine.load(data))) == canonical(dumped), rule(
                "codec", f"{where}: load(dump(state)) differs")
            check_events(definition.name, events, n)
        log.append((seat, action))
        state = new
    return state, log, bound


def replay_identical(definition: GameDefinition, seed: str, levels: list[str | None], options: JSON,
                     log: list[tuple[int, JSON]], final: Any) -> None:
    engine = definition.engine
    again = new_game(definition, players_of(levels), options, seed)
    for seat, action in log:
        again, _ = engine.apply(again, seat, json.loads(json.dumps(action)))
    assert json.dumps(engine.dump(again)) == json.dumps(engine.dump(final)), rule(
        "replay", f"{definition.name} seed {seed}: the same actions replayed to another dump")


def random_driver(definition: GameDefinition, n: int, rnd: random.Random, random_steps: int | None) -> Any:
    """Human seats played at random (now and then a seat out of turn that has a listed action,
    such as Ludor's Autoplim); after ``random_steps`` half the moves come from a bot level
    (other than ``random``) fixed per seat, so that games which random play never finishes end."""
    engine = definition.engine
    levels = [lvl for lvl in sorted(definition.bots) if lvl != "random"] or sorted(definition.bots)
    drivers = [rnd.choice(levels) for _ in range(n)]

    def drive(state: Any, step: int, listed: dict[int, list[JSON]]) -> tuple[int, JSON]:
        seats = sorted(engine.to_act(state))
        if rnd.random() < 0.1:
            seats = [s for s in range(n) if engine.legal_actions(state, s)] or seats
        seat = rnd.choice(seats)
        if random_steps is not None and step >= random_steps and rnd.random() < 0.5:
            return seat, bot_action(definition, state, seat, drivers[seat], rnd)
        return seat, random_action(definition, state, seat, rnd)

    return drive


def bot_driver(definition: GameDefinition, levels: list[str], rnd: random.Random) -> Any:
    """As the shell runs bot turns: the first bot seat to act plays its level's choice."""

    def drive(state: Any, step: int, listed: dict[int, list[JSON]]) -> tuple[int, JSON]:
        seat = min(listed)
        return seat, bot_action(definition, state, seat, levels[seat], rnd, listed[seat])

    return drive


def run_random_playouts(game: str, random_steps: int | None, seeds: int, tag: str,
                        defaults_only: bool = False) -> None:
    definition = registry.game(game)
    engine = definition.engine
    for k, options in enumerate(option_sets(game)[:1] if defaults_only else option_sets(game)):
        for i in range(seeds):
            rnd = random.Random(f"{BASE_SEED}:{tag}:{game}:{k}:{i}")
            n = rnd.randint(engine.min_seats, engine.max_seats)
            seed = seed_hex(tag, game, k, i)
            levels: list[str | None] = [None] * n
            start = time.perf_counter()
            state, log, bound = play(definition, seed, levels, options, rnd,
                                     random_driver(definition, n, rnd, random_steps), STRICT_STEPS)
            summary = check_finished(definition, state, n, len(log), bound)
            check_views(definition, state, n, rnd)
            replay_identical(definition, seed, levels, options, log, state)
            FIGURES[game].add(len(log), bound, summary, False, time.perf_counter() - start)


def run_bot_tables(game: str, all_random: bool, budget: int = 6) -> None:
    definition = registry.game(game)
    for i, levels in enumerate(level_tables(game, include_all_random=all_random, budget=budget)):
        rnd = random.Random(f"{BASE_SEED}:bots:{game}:{i}")
        options = option_sets(game)[i % len(option_sets(game))]
        seed = seed_hex("bots", game, i, all_random)
        table: list[str | None] = list(levels)
        start = time.perf_counter()
        state, log, bound = play(definition, seed, table, options, rnd, bot_driver(definition, levels, rnd), 0)
        summary = check_finished(definition, state, len(levels), len(log), bound)
        check_views(definition, state, len(levels), rnd)
        replay_identical(definition, seed, table, options, log, state)
        FIGURES[game].add(len(log), bound, summary, True, time.perf_counter() - start)


# -- the tests -----------------------------------------------------------------------------------
@pytest.mark.timeout(600)
@pytest.mark.parametrize("game", GAMES)
def test_random_playouts_keep_the_contract_and_end_within_the_declared_bound(game: str) -> None:
    run_random_playouts(game, random_steps=STRICT_STEPS, seeds=SEEDS_PER_OPTIONS, tag="mixed")


@pytest.mark.timeout(600)
@pytest.mark.parametrize("game", GAMES)
def test_bot_only_tables_end_within_the_declared_bound(game: str) -> None:
    run_bot_tables(game, all_random=False)


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("game", GAMES)
def test_all_random_bot_tables_end_within_the_declared_bound(game: str) -> None:
    """The longest tables: nobody ever plays well (Ludic's random Seekers never guess, so only
    the round bound ends it; Speculation's random joker guesses take hundreds of turns); and a
    larger sample of the other level combinations."""
    run_bot_tables(game, all_random=True, budget=18)


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("game", GAMES)
def test_purely_random_playouts_end_within_the_declared_bound(game: str) -> None:
    """Random listed actions (and bot-written rules) only, from the first move to the end."""
    run_random_playouts(game, random_steps=None, seeds=1, tag="random", defaults_only=True)


@pytest.mark.parametrize("game", GAMES)
def test_the_declared_bound_is_an_int_for_every_seat_count_and_option_set(game: str) -> None:
    engine = registry.game(game).engine
    for options in option_sets(game):
        for n in range(engine.min_seats, engine.max_seats + 1):
            bound = engine.max_actions(options, n)
            assert isinstance(bound, int) and not isinstance(bound, bool) and bound > 0, rule(
                "bound", f"max_actions({options}, {n}) is {bound!r}, not a positive int")


@pytest.mark.parametrize("game", GAMES)
def test_an_illegal_action_error_lists_only_the_callers_legal_actions(game: str) -> None:
    """The 409 body's ``legal`` (when an engine gives one) is exactly the caller's legal list."""
    definition = registry.game(game)
    engine = definition.engine
    n = engine.min_seats
    rnd = random.Random(f"{BASE_SEED}:errors:{game}")
    state = new_game(definition, ["human"] * n, option_sets(game)[0], seed_hex("errors", game))
    for _ in range(30):
        if engine.result(state) is not None:
            break
        for seat in range(n):
            try:
                engine.apply(state, seat, {"type": "no_such_action"})
            except IllegalActionError as err:
                if "legal" in err.extra:
                    assert err.extra["legal"] == engine.legal_actions(state, seat), rule(
                        "illegal-lists-legal", f"seat {seat}'s error lists {err.extra['legal']}")
            except LudotecaError:
                pass
        seat = rnd.choice(sorted(engine.to_act(state)))
        state, _ = engine.apply(state, seat, random_action(definition, state, seat, rnd))


@pytest.mark.parametrize("game", GAMES)
def test_the_action_that_reaches_the_declared_bound_ends_the_game(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Declared small for the test (the engine asks ``max_actions`` itself), the bound ends the
    game with exactly that many actions, an honest result (``summary["bound"]``) and views that
    still validate; nothing is left to play."""
    definition = registry.game(game)
    engine = definition.engine
    for cap in (1, 2, 5, 17, 60):
        monkeypatch.setattr(engine, "max_actions", lambda options, seats, cap=cap: cap)
        for k, options in enumerate(option_sets(game)):
            rnd = random.Random(f"{BASE_SEED}:cap:{game}:{cap}:{k}")
            n = rnd.randint(engine.min_seats, engine.max_seats)
            seed = seed_hex("cap", game, cap, k)
            levels: list[str | None] = [None] * n
            state, log, bound = play(definition, seed, levels, options, rnd,
                                     random_driver(definition, n, rnd, None), strict_steps=cap)
            assert bound == cap
            summary = check_finished(definition, state, n, len(log), bound)
            if summary["bound"] is not None and summary["bound"]["reached"] == "actions":
                assert len(log) == cap and summary["bound"]["limit"] == cap, rule(
                    "bound", f"max_actions patched to {cap}: ended after {len(log)} actions, limit "
                             f"{summary['bound']['limit']} (is the bound read from self.max_actions?)")
            else:
                assert len(log) < cap, rule("bound-summary", "the game ended at the bound without saying so")
            check_views(definition, state, n, rnd)
            replay_identical(definition, seed, levels, options, log, state)


SECTION = re.compile(r"^## (\d+)\. (.+)$", re.MULTILINE)
TEST_CLASS = re.compile(r"\(`Test\w+`(?:, `Test\w+`)*\)$")


def rules_document(definition: GameDefinition) -> Path:
    """The game's RULES.md: in its folder, beside its ``pyproject.toml`` (the folder above its package)."""
    module = sys.modules[type(definition.engine).__module__]
    return Path(inspect.getfile(module)).resolve().parents[1] / "RULES.md"


@pytest.mark.parametrize("game", GAMES)
def test_the_rules_document_numbers_its_sections_and_names_their_tests(game: str) -> None:
    path = rules_document(registry.game(game))
    assert path.is_file(), rule("rules-doc", f"no {path}")
    sections = SECTION.findall(path.read_text())
    assert sections, rule("rules-doc", f"{path}: no numbered section (## 1. Title (`TestClass`))")
    numbers = [int(n) for n, _ in sections]
    assert numbers == list(range(1, len(numbers) + 1)), rule("rules-doc", f"{path}: sections numbered {numbers}")
    named = [title for _, title in sections if TEST_CLASS.search(title)]
    assert named, rule("rules-doc", f"{path}: no section names its test classes (`TestClass`)")


def test_every_rule_of_the_engine_contract_is_checked_here() -> None:
    """Each rule the ``Engine`` protocol's docstring names is a message of this suite."""
    named = re.findall(r"^    - ``([a-z-]+)``:", Engine.__doc__ or "", re.MULTILINE)
    assert len(named) >= 10, "the Engine docstring lists its rules as '- ``name``: ...'"
    here = "".join(p.read_text() for p in Path(__file__).parent.glob("*.py"))
    unchecked = [name for name in named if not re.search(rf'rule\(\s*"{name}"', here)]
    assert unchecked == [], f"rules of ludoteca.core.engine.Engine that tests/contract never checks: {unchecked}"
