"""Turn timers on the real machinery: a Redis of this module's own (sessions in database 0, the
broker in 1), a real Celery worker process and a real sweeper process (grace 0.3 s, a pass every
0.2 s); the services in process (the Flask test client) publish to that worker. Timers are 1 s
here (``Settings.min_turn_seconds`` lowered; the public bound, 5 s, is checked in
tests/api/test_turn_timers.py).

- every game: an idle human's turn is played by the timeout bot once, after its deadline, never
  before; the events say ``by: timeout`` after a ``TurnTimedOut``; the view shows the deadline;
- a human who moves in time is never overridden;
- a human move racing the timeout (posted around the deadline with ``If-Match``): exactly one of
  the two applies, round after round.
"""

from __future__ import annotations

import datetime
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from api_client import Api
from conftest import start_sweeper, start_worker, wait_until
from flask import Flask
from ludoteca.adapters.hosting import create_app
from ludoteca.adapters.worker import CeleryDispatcher, app_for
from ludoteca.config import Settings
from ludoteca.entrypoints.devstack import Supervisor, embedded_redis, free_port
from ludoteca.service_layer import registry

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
TURN = 1
OPTIONS: dict[str, dict[str, Any]] = {"ludic": {"short_game": True}}


@dataclass
class Stack:
    apps: dict[str, Flask]

    def api(self, game: str) -> Api:
        return Api(self.apps[game].test_client())


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    sup = Supervisor()
    logs = tmp_path_factory.mktemp("turn-timers")
    try:
        with embedded_redis(sup, logs / "redis", free_port()) as url:
            broker = url.rsplit("/", 1)[0] + "/1"
            env = {"REDIS_URL": url, "BROKER_URL": broker, "LUDOTECA_BOT_DELAY": "0"}
            start_worker(sup, "worker", env, logs / "worker.log")
            start_sweeper(sup, env, logs / "sweeper.log", grace=0.3, interval=0.2)
            settings = Settings.from_env(redis_url=url, broker_url=broker, rate_limit_per_minute=0, min_turn_seconds=1)
            dispatcher = CeleryDispatcher(app_for(broker))
            apps = {g: create_app(registry.game(g), settings, dispatcher=dispatcher) for g in registry.names()}
            yield Stack(apps)
    finally:
        sup.stop()


def epoch(iso: str) -> float:
    return datetime.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def events(api: Api, gid: str, token: str | None = None) -> list[dict[str, Any]]:
    status, data, _ = api.call("GET", f"/games/{gid}/events?after=0", token)
    assert status == 200, data
    return list(data["events"])


def timeouts(api: Api, gid: str) -> list[dict[str, Any]]:
    return [e for e in events(api, gid) if e["type"] == "TurnTimedOut"]


def waiting_on(api: Api, gid: str, seat: int, token: str | None = None, timeout: float = 30) -> dict[str, Any]:
    """The view once the game waits on ``seat`` (the bots have played)."""
    assert wait_until(lambda: seat in api.view(gid)["to_act"], timeout=timeout, interval=0.05), api.view(gid)
    return api.view(gid, token)


@pytest.mark.parametrize("game", registry.names())
def test_an_idle_human_gets_one_bot_move_after_its_deadline(stack: Stack, game: str) -> None:
    d = registry.game(game)
    api = stack.api(game)
    seats = ["human"] + [f"bot:{d.basic_bot}"] * (d.engine.min_seats - 1)
    gid, token = api.create(seats, {**OPTIONS.get(game, {}), "turn_seconds": 2})
    assert token is not None
    # the bots play first where they must; then the game waits on the human alone
    assert wait_until(lambda: api.view(gid)["to_act"] == [0] or bool(timeouts(api, gid)), timeout=30, interval=0.05)
    view = api.view(gid, token)
    timer = view["timer"]
    assert timer["turn_seconds"] == 2 and timer["bot"] == d.basic_bot
    early_checked = False
    if not timeouts(api, gid):
        assert timer["seats"] == [0] and 0 < timer["seconds_left"] <= 2
        deadline = epoch(timer["deadline"])
        assert abs(deadline - time.time() - timer["seconds_left"]) < 0.5
        if deadline - time.time() > 0.3:
            time.sleep(deadline - time.time() - 0.25)
            assert timeouts(api, gid) == [], "a timeout before the deadline"
            early_checked = True
    assert wait_until(lambda: bool(timeouts(api, gid)), timeout=15, interval=0.05), "no timeout"
    first = timeouts(api, gid)[0]
    version = first["version"] - 1
    assert first["data"]["seat"] == 0 and first["by"] == "timeout" and first["data"]["bot"] == d.basic_bot
    move = [e for e in events(api, gid) if e["version"] == version + 1]
    assert move[0] == first and len(move) >= 2 and all(e["by"] == "timeout" for e in move)
    assert all("by" not in e for e in events(api, gid) if e["version"] <= version)
    # exactly once: one action at that version, by seat 0; one TurnTimedOut per timed-out version
    log = stack.apps[game].extensions["ludoteca"]["service"].store.action_log(gid)
    versions = [entry["version"] for entry in log]
    assert versions == list(range(2, len(versions) + 2))
    assert [entry["seat"] for entry in log if entry["version"] == version + 1] == [0]
    later = timeouts(api, gid)
    assert len({e["version"] for e in later}) == len(later)
    print(f"\n[timers] {game}: seat 0's turn at v{version} timed out, played by the {d.basic_bot} bot "
          f"(checked none came early: {early_checked})")


def test_a_human_who_moves_in_time_is_not_overridden(stack: Stack) -> None:
    api = stack.api("ludix")
    gid, t0 = api.create(["human", "human"], {"turn_seconds": 2, "target": 1000})
    _, joined = api.join(gid)
    tokens = [t0, joined["token"]]
    moves = 0
    while moves < 6:
        view = api.view(gid)
        seat = view["to_act"][0]
        assert view["timer"]["seats"] == view["to_act"]
        time.sleep(1.2)  # well inside the 2 s, past a sweeper's passes
        if view["state"]["phase"] == "calling":
            action = {"type": "alea_jacta_est"}
        else:
            action = {"type": "hold"} if view["state"]["throw"] else {"type": "roll"}
        status, data, _ = api.play(gid, tokens[seat], action, If_Match=f'"{view["version"]}"')
        assert status == 200, data
        assert all("by" not in e for e in data["events"])
        moves += 1
    assert timeouts(api, gid) == []
    # then nobody moves: the next deadline passes and the bot plays, once
    version = api.view(gid)["version"]
    assert wait_until(lambda: bool(timeouts(api, gid)), timeout=15, interval=0.05)
    assert next(e["version"] for e in timeouts(api, gid)) == version + 1


def test_a_human_move_racing_the_timeout_applies_exactly_one_of_them(stack: Stack) -> None:
    api = stack.api("ludix")
    service = stack.apps["ludix"].extensions["ludoteca"]["service"]
    gid, t0 = api.create(["human", "human"], {"turn_seconds": TURN, "target": 1000})
    _, joined = api.join(gid)
    tokens = [t0, joined["token"]]
    pick = random.Random(7)
    outcomes: dict[str, int] = {"human": 0, "timeout": 0}
    for _ in range(10):
        view = api.view(gid)
        seat, version = view["to_act"][0], view["version"]
        deadline = epoch(view["timer"]["deadline"])
        if view["state"]["phase"] == "calling":
            action = {"type": "alea_jacta_est"}
        else:
            action = {"type": "hold"} if view["state"]["throw"] else {"type": "roll"}
        time.sleep(max(0.0, deadline + pick.uniform(-0.05, 0.35) - time.time()))
        status, data, _ = api.play(gid, tokens[seat], action, If_Match=f'"{version}"')
        assert status in (200, 412), data
        assert wait_until(lambda v=version: api.view(gid)["version"] > v, timeout=15, interval=0.05)
        applied = [e for e in events(api, gid) if e["version"] == version + 1]
        timed_out = applied[0]["type"] == "TurnTimedOut"
        assert (status == 200) != timed_out, (status, applied[:2])  # the human's or the bot's, never both
        log = [entry for entry in service.store.action_log(gid) if entry["version"] == version + 1]
        assert len(log) == 1 and log[0]["seat"] == seat
        outcomes["timeout" if timed_out else "human"] += 1
    print(f"\n[timers] 10 races of a human move (If-Match) with its timeout: {outcomes}")
    assert sum(outcomes.values()) == 10
