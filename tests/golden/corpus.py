"""The golden corpus: recorded games of every registered game, replayed step by step.

A recorded game is its seed, its seats, its options and its actions (``[seat, body]`` in the order
they were applied). A *step* is what anyone could read after one action (step 0: the new game):
every seat's view and the spectator's, the action's events (with their audiences), who is to act,
every seat's legal actions and templates and the result. The corpus keeps one short hash per part
of every step (so a failure says which part changed: ``spectator``, ``seat 2``, ``events``,
``turn``), and the result and the final dump in full.

Behaviour does not change when the corpus replays: refactors (a new state idiom, a new codec, new
module names) must leave every step identical. Only a deliberate change of the rules, the views or
the events regenerates it (``make golden``, that is ``python tests/golden/record.py [game ...]``),
and the commit says why. A game's corpus is in its own test folder, ``tests/<game>/golden.json``
(a new game records its own: ``make golden GAMES=<game>``).

The games are played by the game's bots of every level and by uniformly random players (the
human seats), at every seat count, with the defaults and with the option sets below; a game may
add a scripted player (:data:`SCRIPTS`) to reach an ending only endless play meets (a bound).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ludoteca.core.engine import JSON, Event, GameDefinition
from ludoteca.core.rng import Rng
from ludoteca.service_layer import registry

TESTS = Path(__file__).resolve().parents[1]
"""Each game's corpus is its own, ``tests/<game>/golden.json`` (in the game's test folder)."""
FORMAT = 1
HASH_CHARS = 12
"""Hex digits kept of each part's SHA-256 (48 bits: a changed part goes unnoticed with chance
2**-48 per step)."""

# The option sets played besides the defaults, and the options of the tables played at random,
# by bots only or capped, are each game's own (``GameDefinition.tests``: option_samples,
# random_play_options, bot_table_samples, capped_options, uncapped_levels; see TestFacts).


def canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def digest(data: Any) -> str:
    return hashlib.sha256(canonical(data).encode()).hexdigest()[:HASH_CHARS]


def event_json(event: Event) -> JSON:
    audience = None if event.audience is None else sorted(event.audience)
    return {"type": event.type, "data": event.data, "audience": audience}


# -- one step ------------------------------------------------------------------------------------
def step_parts(definition: GameDefinition, state: Any, events: Sequence[Event], n: int) -> dict[str, Any]:
    """Everything anyone reads after one action, by part (spectator, seat k, events, turn)."""
    engine = definition.engine
    parts: dict[str, Any] = {"spectator": engine.view(state, None)}
    for seat in range(n):
        parts[f"seat {seat}"] = engine.view(state, seat)
    parts["events"] = [event_json(e) for e in events]
    result = engine.result(state)
    parts["turn"] = {
        "to_act": sorted(engine.to_act(state)),
        "legal": [engine.legal_actions(state, seat) for seat in range(n)],
        "templates": [engine.action_templates(state, seat) for seat in range(n)],
        "result": None if result is None else {"winners": list(result.winners), "scores": list(result.scores),
                                                "summary": result.summary},
    }
    return parts


def step_hash(parts: dict[str, Any]) -> str:
    """One step as a string: the parts' hashes, space-separated, in :func:`step_parts` order."""
    return " ".join(digest(value) for value in parts.values())


# -- recording -----------------------------------------------------------------------------------
Player = Callable[[GameDefinition, Any, int, random.Random], JSON]
"""(definition, state, seat, rnd) -> the body that seat posts."""


def random_player(definition: GameDefinition, state: Any, seat: int, rnd: random.Random) -> JSON:
    """A uniformly random listed action; when only free-text actions are open, a bot of a random
    level fills one in."""
    engine = definition.engine
    legal = engine.legal_actions(state, seat)
    if legal:
        return dict(rnd.choice(legal))
    templates = engine.action_templates(state, seat)
    bot = definition.bots[rnd.choice(sorted(definition.bots))]
    return dict(bot(engine.view(state, seat), templates, random.Random(rnd.random())))


def bot_player(level: str) -> Player:
    def play(definition: GameDefinition, state: Any, seat: int, rnd: random.Random) -> JSON:
        engine = definition.engine
        legal = engine.legal_actions(state, seat) + engine.action_templates(state, seat)
        return dict(definition.bots[level](engine.view(state, seat), legal, random.Random(rnd.random())))
    return play


def ludix_never_hold(definition: GameDefinition, state: Any, seat: int, rnd: random.Random) -> JSON:
    """Calls, then only ever rolls: the game ends at the round bound."""
    legal = definition.engine.legal_actions(state, seat)
    return next((a for a in legal if a["type"] in ("alea_jacta_est", "roll") and len(a) == 1), legal[0])


SCRIPTS: dict[str, dict[str, Player]] = {"ludix": {"never_hold": ludix_never_hold}}
"""Scripted players per game, named in a recorded game's ``play`` list as ``script:<name>``."""


@dataclass(frozen=True)
class Table:
    """A game to record: who sits (``players``, what the engine sees), who plays each seat
    (``play``: ``"random"``, ``"bot:<level>"`` or ``"script:<name>"``) and the options."""

    label: str
    players: list[str]
    play: list[str]
    options: JSON


def player_of(game: str, name: str) -> Player:
    if name == "random":
        return random_player
    kind, _, what = name.partition(":")
    return bot_player(what) if kind == "bot" else SCRIPTS[game][what]


def tables(game: str) -> Iterator[Table]:
    """Every bot level at the table by itself (and the ``uncapped_levels`` to the game's own
    ending), each seat count played at random (human seats),
    random humans beside every level, each option sample (human seats played by bots: random
    play with some options only ends at a bound, thousands of actions later), and the game's
    scripts."""
    definition = registry.game(game)
    engine = definition.engine
    levels = sorted(definition.bots)
    counts = list(range(engine.min_seats, engine.max_seats + 1))
    facts = definition.tests
    short = dict(facts.random_play_options)
    capped = dict(facts.capped_options)
    for i, level in enumerate(levels):
        n = counts[i % len(counts)]
        bots = [f"bot:{level}"] * n
        yield Table(f"all-{level}-{n}", bots, bots, short if level == "random" else capped)
    for level in facts.uncapped_levels:
        bots = [f"bot:{level}"] * engine.min_seats
        yield Table(f"all-{level}-{engine.min_seats}-uncapped", bots, bots, {})
    for n in counts:
        yield Table(f"humans-{n}", ["human"] * n, ["random"] * n, short)
    n = engine.max_seats
    mixed = [f"bot:{levels[i % len(levels)]}" if i % 2 else "human" for i in range(n)]
    yield Table(f"mixed-{n}", mixed, [p if p != "human" else "random" for p in mixed], short)
    for k, options in enumerate(facts.option_samples, 1):
        n = counts[(k + 1) % len(counts)]
        play = [f"bot:{levels[(i + k) % len(levels)]}" for i in range(n)]
        seats = [p if i % 2 else "human" for i, p in enumerate(play)]
        yield Table(f"options{k}-{n}", seats, play, {**capped, **options})
    for k, options in enumerate(facts.bot_table_samples, 1):
        n = counts[k % len(counts)]
        play = [f"bot:{levels[(i + k) % len(levels)]}" for i in range(n)]
        yield Table(f"bots-options{k}-{n}", play, play, {**capped, **options})
    for name in SCRIPTS.get(game, {}):
        n = engine.min_seats
        yield Table(f"script-{name}-{n}", ["human"] * n, [f"script:{name}"] * n, {})


def record(game: str, table: Table, seed: str) -> JSON:
    """Play ``table`` to the end and record every step."""
    definition = registry.game(game)
    engine = definition.engine
    options = dict(definition.options_schema().load(table.options))
    players = [player_of(game, name) for name in table.play]
    rnd = random.Random(f"golden:{game}:{table.label}:{seed}")
    n = len(table.players)
    state = engine.new_game(list(table.players), dict(options), Rng(seed))
    parts = step_parts(definition, state, [], n)
    steps = [step_hash(parts)]
    phases = {parts["spectator"].get("phase")}
    actions: list[list[Any]] = []
    bound = engine.max_actions(options, n)
    while engine.result(state) is None:
        assert len(actions) < bound, f"{game} {table.label}: no end within the declared bound"
        seat = rnd.choice(sorted(engine.to_act(state)))
        action = players[seat](definition, state, seat, rnd)
        state, events = engine.apply(state, seat, action)
        actions.append([seat, action])
        parts = step_parts(definition, state, events, n)
        steps.append(step_hash(parts))
        phases.add(parts["spectator"].get("phase"))
    return {
        "label": table.label,
        "seed": seed,
        "players": table.players,
        "play": table.play,
        "options": table.options,
        "actions": actions,
        "steps": steps,
        "phases": sorted(p for p in phases if p is not None),
        "result": parts["turn"]["result"],
        "dump": engine.dump(state),
    }


def seed_of(game: str, label: str) -> str:
    return f"{random.Random(f'golden-seed:{game}:{label}').getrandbits(256):064x}"


def path_of(game: str) -> Path:
    return TESTS / game / "golden.json"


def write(game: str, games: list[JSON]) -> None:
    """Compact JSON, one recorded game a line (so a regenerated corpus diffs by game)."""
    path_of(game).parent.mkdir(exist_ok=True)
    lines = ",\n".join(canonical(g) for g in games)
    path_of(game).write_text(f'{{"format":{FORMAT},"game":"{game}","games":[\n{lines}\n]}}\n')


def read(game: str) -> list[JSON]:
    data = json.loads(path_of(game).read_text())
    assert data["format"] == FORMAT and data["game"] == game
    return list(data["games"])


# -- replaying -----------------------------------------------------------------------------------
FIGURES: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0])
"""Per game, what the replay test saw: recorded games replayed, steps, seconds (printed at the end
of the run by ``tests/golden/conftest.py``)."""


def figure_lines() -> list[str]:
    return [f"{game:<12} {int(n):>3} recorded games, {int(steps):>6} steps replayed in {seconds:.1f} s"
            for game, (n, steps, seconds) in sorted(FIGURES.items())]


@dataclass(frozen=True)
class Mismatch:
    step: int
    parts: list[str]
    action: Any


def replay(game: str, recorded: JSON, via_codec: bool = False) -> tuple[Any, list[Mismatch], dict[str, Any]]:
    """Replay ``recorded`` through the engine; the final state, the steps that differ (with the
    parts that differ) and the last step's parts. ``via_codec``: as the service plays, every
    action applied to the state loaded back from its dump (as JSON text)."""
    definition = registry.game(game)
    engine = definition.engine
    n = len(recorded["players"])
    options = dict(definition.options_schema().load(recorded["options"]))
    state = engine.new_game(list(recorded["players"]), options, Rng(recorded["seed"]))
    parts = step_parts(definition, state, [], n)
    mismatches: list[Mismatch] = []

    def compare(i: int, action: Any) -> None:
        now = step_hash(parts).split()
        then = recorded["steps"][i].split()
        if now != then:
            names = list(parts)
            mismatches.append(Mismatch(i, [names[k] for k in range(len(names)) if now[k] != then[k]], action))

    compare(0, None)
    for i, (seat, action) in enumerate(recorded["actions"], 1):
        if via_codec:
            state = engine.load(json.loads(json.dumps(engine.dump(state))))
        state, events = engine.apply(state, seat, action)
        parts = step_parts(definition, state, events, n)
        compare(i, [seat, action])
    return state, mismatches, parts
