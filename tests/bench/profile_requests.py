"""What one request of a game costs in its service, in process: the server's CPU per request
kind (``GET .../actions``, ``POST .../actions``, ``GET /games/{id}``), without HTTP or gunicorn,
and optionally a cProfile of the server's part only (the client's own work is never counted).

    python tests/bench/profile_requests.py speculation              # CPU per request kind
    python tests/bench/profile_requests.py ludic --moves 500 --profile tottime

The shape is ``bench_api.py``'s (``driver.SHAPES``): human seats, the seat to act lists its actions
and posts one at random (a push-your-luck game, Ludix or Pig: roll or hold at 20 from the answer's
state), a finished game replaced by a new one. The app is ``create_app``'s, hot routes on
(``--flask-path``: off), rate limits on at a level no table reaches, over an embedded real redis-
server. The figures are process CPU (``time.process_time``) around the app's WSGI call: compare
kinds and revisions in one run, not with the HTTP figures of ``make bench`` (which add gunicorn,
the sockets and Redis).

``--engine``: also the game engine's share of it: process CPU inside the engine's methods
(``load``, ``apply``, ``view``, ``legal_actions`` ...; outermost calls only, so an engine method
calling another counts once), per method and in all, beside the server CPU of a move.

``--seed N``: the games' seeds come from ``random.Random(N)`` instead of the service's secret
ones, so two runs (two revisions) play the very same games (the players' choices are seeded
already): without it a game's length, hence its history (Speculation's joker phase), differs from
run to run. The standard error of the mean is over requests (they are not independent: one long
game makes many slow ones).
"""

from __future__ import annotations

import argparse
import cProfile
import math
import pstats
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from driver import SHAPES, hold_at_choice
from ludoteca.adapters.hosting import create_app
from ludoteca.config import Settings
from ludoteca.entrypoints.devstack import Supervisor, embedded_redis
from ludoteca.service_layer import registry
from ludoteca.service_layer import service as service_module


class NoDispatch:
    """Human seats only: nothing is ever due for a worker."""

    def bot_turn(self, game: str, game_id: str, version: int) -> None:
        return None

    def record_result(self, game: str, game_id: str) -> None:
        return None


class Meter:
    """Wraps the app's WSGI callable: process CPU per request kind, and the profiler when on."""

    def __init__(self, app: Any, profile: bool) -> None:
        self.inner = app.wsgi_app
        self.spent: dict[str, list[float]] = {}
        self.profiler = cProfile.Profile() if profile else None
        self.on = False
        app.wsgi_app = self

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        t0 = time.process_time()
        if self.on and self.profiler is not None:
            self.profiler.enable()
        out = b"".join(self.inner(environ, start_response))
        if self.on and self.profiler is not None:
            self.profiler.disable()
        if self.on:
            path = environ["PATH_INFO"]
            what = ".../actions" if path.endswith("/actions") else \
                "/games, .../players" if path == "/games" or path.endswith("/players") else "/games/{id}"
            kind = f"{environ['REQUEST_METHOD']} {what}"
            self.spent.setdefault(kind, []).append(time.process_time() - t0)
        return [out]


ENGINE_METHODS = ("max_actions", "new_game", "to_act", "legal_actions", "action_templates", "apply", "view",
                  "result", "opening_events", "dump", "load")


class EngineMeter:
    """Process CPU inside an engine's methods (:data:`ENGINE_METHODS`), outermost calls only,
    counted while :attr:`on`; the methods are wrapped on the engine instance itself, so every
    caller (the service, the codec, the presenter) goes through them."""

    def __init__(self, engine: Any) -> None:
        self.spent: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self.depth = 0
        self.on = False
        for name in ENGINE_METHODS:
            if hasattr(engine, name):
                object.__setattr__(engine, name, self._wrap(name, getattr(engine, name)))

    def _wrap(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            if self.depth or not self.on:
                return method(*args, **kwargs)
            self.depth = 1
            t0 = time.process_time()
            try:
                return method(*args, **kwargs)
            finally:
                self.spent[name] = self.spent.get(name, 0.0) + time.process_time() - t0
                self.calls[name] = self.calls.get(name, 0) + 1
                self.depth = 0

        return timed

    def report(self, moves: int, server: float) -> None:
        total = sum(self.spent.values()) / moves
        print(f"  engine, per move: {total * 1000:.3f} ms = {total / server:.0%} of the server's "
              f"{server * 1000:.3f} ms")
        for name, spent in sorted(self.spent.items(), key=lambda kv: -kv[1]):
            print(f"    {name:<18} {self.calls[name] / moves:5.2f} a move   {spent / moves * 1000:7.3f} ms a move"
                  f"   {spent / self.calls[name] * 1e6:8.1f} µs a call")


def play(game: str, moves: int, profile: str | None, flask_path: bool, redis_url: str, seed: int | None,
         engine_share: bool = False) -> None:
    shape = SHAPES[game]
    if seed is not None:
        seeds = random.Random(seed)
        service_module.new_seed = lambda: seeds.randbytes(32).hex()
    settings = replace(Settings.from_env(), redis_url=redis_url, rate_limit_per_minute=1_000_000,
                       hot_routes=not flask_path)
    engine_meter = EngineMeter(registry.game(game).engine) if engine_share else None
    app = create_app(registry.game(game), settings, dispatcher=NoDispatch())
    meter = Meter(app, profile is not None)
    client = app.test_client()
    rnd = random.Random(1)
    bot = registry.game(game).bots["random"]
    table: dict[str, Any] = {}

    def new_game() -> None:
        made = client.post("/games", json={"seats": ["human"] * shape.seats, "options": shape.options}).get_json()
        table["gid"], table["tokens"] = made["game"]["id"], [made["token"]]
        for _ in range(shape.seats - 1):
            table["tokens"].append(client.post(f"/games/{table['gid']}/players", json={}).get_json()["token"])
        table["game"] = client.get(f"/games/{table['gid']}").get_json()
        while shape.hold_at is not None:  # the moves before the first roll (Ludix's call), at random
            auth = {"Authorization": f"Bearer {table['tokens'][table['game']['to_act'][0]]}"}
            listed = client.get(f"/games/{table['gid']}/actions", headers=auth).get_json()["actions"]
            if any(a["type"] == "roll" for a in listed):
                break
            table["game"] = client.post(f"/games/{table['gid']}/actions", json=rnd.choice(listed),
                                        headers=auth).get_json()["game"]

    def choose(seat: int, auth: dict[str, str]) -> dict[str, Any]:
        if shape.hold_at is not None:
            return hold_at_choice(table["game"]["state"], shape.hold_at)
        listed = client.get(f"/games/{table['gid']}/actions", headers=auth).get_json()
        if listed["actions"]:
            action: dict[str, Any] = rnd.choice(listed["actions"])
            return action
        view = client.get(f"/games/{table['gid']}", headers=auth).get_json()
        filled: dict[str, Any] = bot(view["state"], listed["templates"], rnd)
        return filled

    def move() -> None:
        if not table or table["game"]["status"] == "finished":
            new_game()
        seat = table["game"]["to_act"][0]
        auth = {"Authorization": f"Bearer {table['tokens'][seat]}"}
        answer = client.post(f"/games/{table['gid']}/actions", json=choose(seat, auth), headers=auth)
        table["game"] = answer.get_json()["game"] if answer.status_code == 200 else \
            client.get(f"/games/{table['gid']}").get_json()

    for _ in range(min(200, moves)):  # warm: caches, connections, the first games
        move()
    meter.on = True
    if engine_meter is not None:
        engine_meter.on = True
    for _ in range(moves):
        move()
    meter.on = False
    if engine_meter is not None:
        engine_meter.on = False
    seeded = "" if seed is None else f", game seeds from {seed}"
    print(f"{game} ({'Flask path' if flask_path else 'hot routes'}), {moves} moves, server CPU per request "
          f"(process time around the WSGI call; median, mean ± its standard error){seeded}:")
    for kind, xs in sorted(meter.spent.items()):
        xs.sort()
        sem = statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0
        print(f"  {kind:<26} {len(xs) / moves:5.2f} a move   {xs[len(xs) // 2] * 1000:7.3f} ms"
              f"   {sum(xs) / len(xs) * 1000:7.3f} ± {sem * 1000:.3f} ms")
    total = sum(sum(xs) for xs in meter.spent.values()) / moves
    print(f"  {'all, per move':<26} {'':13}           {total * 1000:7.3f} ms")
    if engine_meter is not None:
        engine_meter.report(moves, total)
    if meter.profiler is not None:
        pstats.Stats(meter.profiler).sort_stats(profile or "cumulative").print_stats(50)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=[g for g in SHAPES if g != "null"])
    parser.add_argument("--moves", type=int, default=1000)
    parser.add_argument("--profile", nargs="?", const="cumulative", default=None,
                        help="cProfile the server's part, sorted by this key (cumulative, tottime ...)")
    parser.add_argument("--flask-path", action="store_true", help="hot routes off: every request through Flask")
    parser.add_argument("--seed", type=int, default=None,
                        help="the games' seeds from random.Random(SEED): two runs play the same games")
    parser.add_argument("--engine", action="store_true",
                        help="also the engine's share: CPU inside its methods, per method and per move")
    args = parser.parse_args()
    sup = Supervisor()
    try:
        with tempfile.TemporaryDirectory() as tmp, embedded_redis(sup, Path(tmp) / "redis") as url:
            play(args.game, args.moves, args.profile, args.flask_path, url, args.seed, args.engine)
    finally:
        sup.stop()


if __name__ == "__main__":
    main()
