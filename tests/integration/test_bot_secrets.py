"""Bots draw their randomness from the game's secret seed, never from public values.

Tables of bots play through the service over the real Redis (the bot turns run the worker's task
body, ``GameService.bot_turn``). After each game the replay (``GET /games/{id}/replay``) reveals
the seed; from it the test redeals the game and rebuilds every bot decision (the bot's own view
and legal actions). Then:

- with the seed, every bot choice is reproduced exactly;
- a spectator who knows the code, the game id, the versions, the seats and everything public
  (given even the bot's own view: more than a spectator has) predicts the choices under the old
  public seeding (``random.Random(f"{id}:{version}:{seat}")``) and similar schemes no better than
  chance: the matches stay within 5 standard deviations of what independent generators get.

Every registered game plays (``ludoteca.service_layer.registry``, :func:`tables`) a table of its
fewest seats at its playing level (``TestFacts.playing_bot``: the level that makes a real game of
it) and one at its random level, each with its quick options. A level that never chooses (a fixed
policy) makes no real choice, and still has every decision reproduced from the seed; every game
must have a level that chooses. A choice filled into a template (a free-text action such as a
Ludic Vexer's secret rule, drawn among the fitting rules of its band; a Speculation joker guess
from its compact listing) is held to the same bound on its own. (Not every level: one that
searches under a time cap, such as Ludor's expert, may choose otherwise on a busier machine, and
so is not reproduced exactly from the seed.)

Run: ``.venv/bin/python -m pytest -s -p no:cacheprovider tests/integration/test_bot_secrets.py``
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from ludoteca.adapters.hosting import create_app
from ludoteca.config import Settings
from ludoteca.core.rng import Rng
from ludoteca.service_layer import registry
from ludoteca.service_layer.bots import bot_random

pytestmark = pytest.mark.integration

CHANCE_SAMPLES = 8


@dataclass(frozen=True)
class Table:
    game: str
    level: str
    seats: int
    options: dict[str, Any]


def tables() -> list[Table]:
    """Each registered game's playing level and its random one (the golden corpus's name for it), at
    the game's fewest seats, with its quick options (``TestFacts.quick_options``; the random level
    with the options of random play, ``random_play_options``: a random Seeker may never find a rule,
    as in the golden corpus)."""
    out = []
    for name in registry.names():
        definition = registry.game(name)
        facts = definition.tests
        for level in dict.fromkeys([definition.playing_level(), *(lv for lv in definition.bots if lv == "random")]):
            options = facts.random_play_options if level == "random" else facts.quick_options
            out.append(Table(name, level, definition.engine.min_seats, dict(options)))
    return out


class Queue:
    """A dispatcher that keeps the bot turns for the test to run (no result recording needed)."""

    def __init__(self) -> None:
        self.turns: list[tuple[str, int]] = []

    def bot_turn(self, game: str, game_id: str, version: int) -> None:
        self.turns.append((game_id, version))

    def record_result(self, game: str, game_id: str) -> None:
        pass


@dataclass
class Decision:
    game: str
    game_id: str
    seed: str  # revealed by the replay
    seed_sha256: str
    version: int  # the version the bot played at
    seat: int
    view: dict[str, Any]
    legal: list[dict[str, Any]]
    action: dict[str, Any]
    filled: bool  # filled into a template (a free-text action: a Ludic Vexer's rule), not listed


Scheme = Callable[[Decision], random.Random]
PUBLIC_SCHEMES: dict[str, Scheme] = {
    "Random(f'{id}:{version}:{seat}') (the old seeding)": lambda d: random.Random(f"{d.game_id}:{d.version}:{d.seat}"),
    "Random(f'{game}:{id}:{version}:{seat}')": lambda d: random.Random(f"{d.game}:{d.game_id}:{d.version}:{d.seat}"),
    "Random(f'{id}:{version}')": lambda d: random.Random(f"{d.game_id}:{d.version}"),
    "Random(f'{id}:{seat}')": lambda d: random.Random(f"{d.game_id}:{d.seat}"),
    "Random(version)": lambda d: random.Random(d.version),
    "HMAC of the public seed_sha256": lambda d: bot_random(d.seed_sha256, d.version, d.seat),
}


def as_posted(game: str, bot: Callable[..., Any]) -> Callable[..., Any]:
    """The bot, its action loaded by the action's schema as the service does (defaults filled)."""
    schemas = registry.game(game).action_schemas

    def posted(view: Any, legal: Any, rng: random.Random) -> Any:
        action = bot(view, legal, rng)
        return dict(schemas[action["type"]]().load(action))

    return posted


def play_table(game: str, level: str, seats: int, options: dict[str, Any], settings: Settings) -> list[Decision]:
    queue = Queue()
    app = create_app(registry.game(game), settings, dispatcher=queue)
    service = app.extensions["ludoteca"]["service"]
    envelope, _, _ = service.create([f"bot:{level}"] * seats, options, None, None)
    gid = envelope["id"]
    for _ in range(5000):
        if not queue.turns:
            break
        game_id, version = queue.turns.pop(0)
        service.bot_turn(game_id, version)
    replay = app.test_client().get(f"/games/{gid}/replay")
    assert replay.status_code == 200, replay.get_json()
    return rebuild(game, gid, replay.get_json())


def rebuild(game: str, gid: str, replay: dict[str, Any]) -> list[Decision]:
    """Redeal from the revealed seed and list each bot decision with the bot's view and options."""
    engine = registry.game(game).engine
    state = engine.new_game(replay["players"], replay["options"], Rng(replay["seed"]))
    out = []
    for entry in replay["actions"]:
        seat, action = entry["seat"], entry["action"]
        view = engine.view(state, seat)
        listed = engine.legal_actions(state, seat)
        legal = listed + engine.action_templates(state, seat)
        out.append(Decision(game, gid, replay["seed"], replay["seed_sha256"], entry["version"] - 1, seat, view,
                            legal, action, filled=len(legal) > len(listed) and action not in listed))
        state, _ = engine.apply(state, seat, action)
    assert engine.dump(state) == replay["final_state"]
    return out


def test_a_spectator_cannot_reproduce_bot_choices_and_the_seed_does(settings: Settings) -> None:
    decisions: list[tuple[Decision, Callable[..., Any]]] = []
    levels: dict[str, str] = {}  # game id -> its bots' level
    for table in tables():
        bot = as_posted(table.game, registry.game(table.game).bots[table.level])
        played = play_table(table.game, table.level, table.seats, table.options, settings)
        decisions += [(d, bot) for d in played]
        levels.update((d.game_id, table.level) for d in played)
    missed = []
    choice_points: list[tuple[Decision, Callable[..., Any], float]] = []
    chance_draw = random.Random(20261201)
    for d, bot in decisions:
        # with the seed: exactly the bot's choice
        again = bot(d.view, d.legal, bot_random(d.seed, d.version, d.seat))
        if again != d.action:
            missed.append(f"{d.game} {levels[d.game_id]} {d.game_id} v{d.version} seat {d.seat}: played {d.action}, "
                          f"again {again}")
        # the chance that an independent generator makes the same choice
        same = sum(bot(d.view, d.legal, random.Random(chance_draw.getrandbits(64))) == d.action
                   for _ in range(CHANCE_SAMPLES))
        q = same / CHANCE_SAMPLES
        if same < CHANCE_SAMPLES:  # a real choice: the generator mattered
            choice_points.append((d, bot, q))
    n = len(choice_points)
    expected = sum(q for _, _, q in choice_points)
    sigma = math.sqrt(sum(q * (1 - q) for _, _, q in choice_points))
    filled = [c for c in choice_points if c[0].filled]
    filled_expected = sum(q for _, _, q in filled)
    filled_sigma = math.sqrt(sum(q * (1 - q) for _, _, q in filled))
    print(f"\n[secrets] {len(decisions)} bot decisions in {len({d.game_id for d, _ in decisions})} games; "
          f"reproduced with the revealed seed: {len(decisions) - len(missed)} of {len(decisions)}")
    print(f"[secrets] {n} decisions with a real choice (of them {len(filled)} filled into a template, "
          f"{filled_expected:.1f} matched by chance); "
          f"an independent generator matches {expected:.1f} of them by chance (sigma {sigma:.1f})")
    worst = 0.0
    for name, scheme in PUBLIC_SCHEMES.items():
        matches = sum(bot(d.view, d.legal, scheme(d)) == d.action for d, bot, _ in choice_points)
        filled_matches = sum(bot(d.view, d.legal, scheme(d)) == d.action for d, bot, _ in filled)
        print(f"[secrets]   spectator predicting with {name}: {matches} of {n} "
              f"({matches / n:.1%}), filled {filled_matches} of {len(filled)}")
        worst = max(worst, (matches - expected) / max(sigma, 1.0))
        assert matches <= expected + 5 * sigma + 2, f"{name}: {matches} matches, chance {expected:.1f}"
        # a choice filled into a template (a Vexer's rule is drawn among the fitting rules of its
        # band: a few dozen, fewer for some deals): held to the same bound against chance
        assert filled_matches <= filled_expected + 5 * filled_sigma + 2, \
            f"{name}: {filled_matches} filled, chance {filled_expected:.1f}"
    print(f"[secrets] worst public scheme: {worst:+.1f} sigma from chance")
    assert not missed, "\n".join(missed)
    assert n >= 200 and expected < 0.8 * n
    # every game's bots choose somewhere (else its randomness went untested), and the templates
    # offered were filled by real choices
    assert {d.game for d, _, _ in choice_points} == set(registry.names())
    assert len(filled) >= 4 or not any(d.filled for d, _ in decisions), filled


