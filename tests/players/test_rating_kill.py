"""Ratings exactly once with the worker killed mid-record (issue 23, item 6): a finished Pig game
between two players; a real process runs the worker's result task (``ludoteca.adapters.worker.record_result``,
the task body the Celery worker runs) and is SIGKILLed after the first player's rating moved and
before the second's; the task run again (as the broker redelivers a killed worker's task) rates
the second player once and the first not again, and a third run changes nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import redis
from flask.testing import FlaskClient
from ludoteca.adapters.players import PlayerStore
from ludoteca.core.engine import GameResult
from ludoteca.service_layer.ratings import Rating, rate

# The task in a process of its own, which stops (to be killed) once the first player's rating moved
TASK = textwrap.dedent("""
    import sys, time
    from ludoteca.adapters import players
    from ludoteca.adapters.worker import record_result

    made = players.Ratings.__init__

    def pausing(self, *args, **kwargs):
        made(self, *args, **kwargs)
        apply = self._apply

        def applied_then_wait(*a, **k):
            found = apply(*a, **k)
            print("applied", flush=True)
            time.sleep(600)  # killed here
            return found

        self._apply = applied_then_wait

    players.Ratings.__init__ = pausing
    record_result("pig", sys.argv[1])
""")


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def finished_game(pig: FlaskClient, players: FlaskClient, play: Any) -> tuple[str, list[str]]:
    """A Pig game to 10 between two new players, played to its end: its id and the players by seat."""
    made = [players.post("/", json={"name": n}).get_json() for n in ("Kit", "Lee")]
    tokens = [m["token"] for m in made]
    game_id = pig.post("/games", json={"seats": ["human", "human"], "options": {"target": 10}},
                       headers=bearer(tokens[0])).get_json()["game"]["id"]
    pig.post(f"/games/{game_id}/players", json={}, headers=bearer(tokens[1]))
    play(pig, game_id, dict(enumerate(tokens)))
    return game_id, [m["player"]["id"] for m in made]


def test_the_worker_killed_mid_record_rates_each_player_once(client_factory: Callable[[str], FlaskClient],
                                                             players_client: FlaskClient, redis_url: str,
                                                             redis_client: redis.Redis, play_to_the_end: Any) -> None:
    from ludoteca.adapters.worker import record_result  # after the session's Redis is named

    pig = client_factory("pig")
    game_id, seated = finished_game(pig, players_client, play_to_the_end)
    env: dict[str, Any] = {**os.environ, "REDIS_URL": redis_url}
    task = subprocess.Popen([sys.executable, "-c", TASK, game_id], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert task.stdout is not None and task.stdout.readline().strip() == "applied"
    finally:
        task.send_signal(signal.SIGKILL)
        task.wait()
    store = PlayerStore(redis_client)
    assert sorted(store.rating(p, "pig").played for p in seated) == [0, 1]  # killed between the two

    record_result("pig", game_id)  # redelivered
    after = [store.rating(p, "pig") for p in seated]
    record_result("pig", game_id)  # and again
    assert [store.rating(p, "pig") for p in seated] == after
    result = pig.get(f"/games/{game_id}").get_json()["result"]
    expected = rate([Rating(), Rating()], GameResult(tuple(result["winners"]), tuple(result["scores"])))
    assert [(r.played, round(r.mu, 9), round(r.sigma, 9)) for r in after] == \
           [(1, round(e.mu, 9), round(e.sigma, 9)) for e in expected if e is not None]
