"""What locust loads: a user class per installed game and scenario, weighted, and the load shape.

    locust -f loadtest/locustfile.py --host http://127.0.0.1:8000 --headless -u 50 -t 2m --shape ramp

(``python -m loadtest`` runs it for you: docs/load-testing.md.) The user classes are made from
the game registry (``ludoteca.games`` entry points), never from a list: a game installed tomorrow
is load-tested tomorrow. Named ``<Game><Scenario>`` (``LudixTable``, ``LudorWatch``), so locust's
own class picking works too. Chosen by the environment, read when locust imports this file (the
master and every worker alike):

* ``LOAD_MIX``: the games and their weights, ``ludix=3,ludic=1`` (unset: every game whose
  definition loads, weight 1; a game left out or weighted 0 is not played; ``python -m loadtest``
  leaves out the games the stack does not serve);
* ``LOAD_SCENARIOS``: the scenarios and their weights, ``table=4,bots=2,follow=2,watch=2,lobby=1`` (the
  default; :mod:`loadtest.scenarios`);
* ``LOAD_THINK``: a factor on every think time (1; 0: none, :class:`loadtest.client.Think`).

A class's weight is its game's times its scenario's. The shape (:mod:`loadtest.shapes`) is
``--shape`` / ``LOAD_SHAPE`` (steady), over ``--users``, ``--spawn-rate`` and ``--run-time``.
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # locust imports this file by its path

from locust import HttpUser, LoadTestShape, events, task

from loadtest import shapes, tally
from loadtest.client import Client, Think
from loadtest.games import loadable, weights
from loadtest.scenarios import DEFAULT_WEIGHTS, SCENARIOS

INSTALLED = loadable()
GAMES = weights(os.environ.get("LOAD_MIX", ""), INSTALLED, dict.fromkeys(INSTALLED, 1), "LOAD_MIX")
PLAYED = weights(os.environ.get("LOAD_SCENARIOS", ""), list(SCENARIOS), DEFAULT_WEIGHTS, "LOAD_SCENARIOS")


class GameUser(HttpUser):
    """One simulated client: visits its game through its scenario, again and again."""

    abstract = True
    game = ""
    scenario = ""

    def on_start(self) -> None:
        self.rnd = random.Random()
        self.player = Client(self.client, self.game, tally.TALLY, self.rnd, Think.from_env())

    def wait_time(self) -> float:  # between two visits (a visit plays a whole game)
        return self.player.think.between_games(self.rnd)

    @task
    def visit(self) -> None:
        outcome = SCENARIOS[self.scenario](self.player)
        tally.TALLY.add(self.game, "visits", f"{self.scenario} {outcome}")


def user_classes() -> dict[str, type[GameUser]]:
    made: dict[str, type[GameUser]] = {}
    for game, game_weight in GAMES.items():
        for scenario, scenario_weight in PLAYED.items():
            name = f"{game.title()}{scenario.title()}"
            made[name] = type(name, (GameUser,), {
                "game": game, "scenario": scenario, "weight": game_weight * scenario_weight,
                "__module__": __name__, "__doc__": f"{game}: {SCENARIOS[scenario].__doc__ or scenario}"})
    return made


globals().update(user_classes())
tally.install(events)


def _flags(parser: Any) -> None:
    parser.add_argument("--shape", choices=sorted(shapes.SHAPES), default=os.environ.get("LOAD_SHAPE", "steady"),
                        help="the load shape (loadtest.shapes): steady, ramp, spike or soak")


cast(Any, events).init_command_line_parser.add_listener(_flags)


class Shape(LoadTestShape):
    """The shape named by ``--shape`` over ``--users``, ``--spawn-rate`` and ``--run-time``."""

    use_common_options = True

    def tick(self) -> tuple[int, float] | None:
        assert self.runner is not None
        options = self.runner.environment.parsed_options
        name = getattr(options, "shape", None) or "steady"
        length = float(getattr(options, "run_time", None) or shapes.default_length(name))
        users = int(getattr(options, "num_users", None) or 1)
        rate = float(getattr(options, "spawn_rate", None) or max(1.0, users / 10))
        return shapes.SHAPES[name](time.perf_counter() - self.start_time, length, users, rate)
