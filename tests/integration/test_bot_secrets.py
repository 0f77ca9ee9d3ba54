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

A Ludic Vexer's secret rule is one of those choices (among the fitting rules of its band).

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

# (game, level, seats, options, tables): levels whose choices are random among several options
TABLES = [
    ("ludic", "expert", 3, {"short_game": True}, 3),
    ("ludix", "random", 2, {"target": 300}, 4),
    ("ludor", "random", 3, {}, 2),
    ("speculation", "basic", 2, {}, 3),
]
CHANCE_SAMPLES = 8


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
    is_rule: bool


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
        legal = engine.legal_actions(state, seat) + engine.action_templates(state, seat)
        out.append(Decision(game, gid, replay["seed"], replay["seed_sha256"], entry["version"] - 1, seat, view,
                            legal, action, is_rule=action.get("type") == "write_rule"))
        state, _ = engine.apply(state, seat, action)
    assert engine.dump(state) == replay["final_state"]
    return out


def test_a_spectator_cannot_reproduce_bot_choices_and_the_seed_does(settings: Settings) -> None:
    decisions: list[tuple[Decision, Callable[..., Any]]] = []
    for game, level, seats, options, tables in TABLES:
        bot = as_posted(game, registry.game(game).bots[level])
        for _ in range(tables):
            decisions += [(d, bot) for d in play_table(game, level, seats, options, settings)]
    reproduced = 0
    choice_points: list[tuple[Decision, Callable[..., Any], float]] = []
    chance_draw = random.Random(20261201)
    for d, bot in decisions:
        # with the seed: exactly the bot's choice
        if bot(d.view, d.legal, bot_random(d.seed, d.version, d.seat)) == d.action:
            reproduced += 1
        # the chance that an independent generator makes the same choice
        same = sum(bot(d.view, d.legal, random.Random(chance_draw.getrandbits(64))) == d.action
                   for _ in range(CHANCE_SAMPLES))
        q = same / CHANCE_SAMPLES
        if same < CHANCE_SAMPLES:  # a real choice: the generator mattered
            choice_points.append((d, bot, q))
    n = len(choice_points)
    expected = sum(q for _, _, q in choice_points)
    sigma = math.sqrt(sum(q * (1 - q) for _, _, q in choice_points))
    rules = [c for c in choice_points if c[0].is_rule]
    rule_expected = sum(q for _, _, q in rules)
    rule_sigma = math.sqrt(sum(q * (1 - q) for _, _, q in rules))
    print(f"\n[secrets] {len(decisions)} bot decisions in {len({d.game_id for d, _ in decisions})} games; "
          f"reproduced with the revealed seed: {reproduced} of {len(decisions)}")
    print(f"[secrets] {n} decisions with a real choice (of them {len(rules)} Ludic Vexer rules, "
          f"{rule_expected:.1f} matched by chance); "
          f"an independent generator matches {expected:.1f} of them by chance (sigma {sigma:.1f})")
    worst = 0.0
    for name, scheme in PUBLIC_SCHEMES.items():
        matches = sum(bot(d.view, d.legal, scheme(d)) == d.action for d, bot, _ in choice_points)
        rule_matches = sum(bot(d.view, d.legal, scheme(d)) == d.action for d, bot, _ in rules)
        print(f"[secrets]   spectator predicting with {name}: {matches} of {n} "
              f"({matches / n:.1%}), Vexer rules {rule_matches} of {len(rules)}")
        worst = max(worst, (matches - expected) / max(sigma, 1.0))
        assert matches <= expected + 5 * sigma + 2, f"{name}: {matches} matches, chance {expected:.1f}"
        # a Vexer's rule is drawn among the fitting rules of its band (a few dozen, fewer for
        # some deals): held to the same bound against chance as every other choice
        assert rule_matches <= rule_expected + 5 * rule_sigma + 2, \
            f"{name}: {rule_matches} rules, chance {rule_expected:.1f}"
    print(f"[secrets] worst public scheme: {worst:+.1f} sigma from chance")
    assert reproduced == len(decisions)
    assert n >= 200 and expected < 0.8 * n and len(rules) >= 4


