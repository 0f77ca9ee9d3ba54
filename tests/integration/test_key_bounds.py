"""No key without an expiry or a documented bound (see the list in :mod:`ludoteca.adapters.store`).

A random workload over every route of every game (creation, joins, views, actions, moves with
and without ``If-Match``, idempotent posts replayed and misused, long-polls, the lobby, replays,
the leaderboard and stats, the game's extra routes; tables of bots played to the end by a real
worker, humans against bots to the end, results recorded by the worker) runs twice, with a game
TTL of a few seconds and a gap longer than it between the two, over a Redis of this module's own
with a real worker and a real sweeper. Then every key of the sessions database and of the broker
database is SCANned: each has a TTL, or is one of the documented bounded keys, whose bound is
checked.

Run: ``.venv/bin/python -m pytest -s -p no:cacheprovider tests/integration/test_key_bounds.py``
"""

from __future__ import annotations

import random
import re
import secrets
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import redis
from api_client import Api
from conftest import start_sweeper, start_worker, wait_until
from ludoteca.adapters.hosting import create_app
from ludoteca.config import Settings
from ludoteca.entrypoints.devstack import Supervisor, embedded_redis, free_port
from ludoteca.service_layer import registry

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(400)]

TTL = 6  # the game TTL (seconds) of this test: long enough for a move, short enough to expire
IDEM_TTL = 4
PLAYERS = 4  # the leaderboard cap of this test


@dataclass
class World:
    url: str
    broker_url: str
    r: redis.Redis
    broker: redis.Redis
    apis: dict[str, Api]
    bots_tables: list[tuple[str, str]] = field(default_factory=list)
    ended_humans: Counter[str] = field(default_factory=Counter)  # tables of a human and bots that ended
    ended_by_humans: Counter[str] = field(default_factory=Counter)  # humans-only tables their few moves ended
    calls: Counter[str] = field(default_factory=Counter)


@pytest.fixture()
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    """A Redis, a worker and a sweeper of this test's own: a rerun (an integration test that fails
    runs once more) starts from nothing, since the test counts every game it made (a world kept
    for the module carried the first attempt's tables into the rerun, which could then only fail,
    hiding the first attempt's cause)."""
    sup = Supervisor()
    logs = tmp_path_factory.mktemp("keys")
    try:
        with embedded_redis(sup, logs / "redis", free_port()) as url:
            broker_url = url.rsplit("/", 1)[0] + "/1"
            env = {"REDIS_URL": url, "BROKER_URL": broker_url, "LUDOTECA_GAME_TTL": str(TTL),
                   "LUDOTECA_IDEMPOTENCY_TTL": str(IDEM_TTL), "LUDOTECA_LEADERBOARD_PLAYERS": str(PLAYERS),
                   "PYTHONUNBUFFERED": "1"}
            # the worker as the Procfile runs it (gossip, mingle and heartbeats on)
            start_worker(sup, "worker", env, logs / "worker.log", extra=())
            start_sweeper(sup, env, logs / "sweeper.log", grace=1.0)
            settings = Settings(redis_url=url, broker_url=broker_url, game_ttl_seconds=TTL,
                                idempotency_ttl_seconds=IDEM_TTL, rate_limit_per_minute=1_000_000,
                                leaderboard_players=PLAYERS)
            apis = {}
            for game in registry.names():
                app = create_app(registry.game(game), settings)
                app.config["TESTING"] = True
                apis[game] = Api(app.test_client())
            yield World(url, broker_url, redis.Redis.from_url(url), redis.Redis.from_url(broker_url), apis)
    finally:
        sup.stop()


def _call(w: World, game: str, method: str, path: str, **kwargs: Any) -> tuple[int, Any, Any]:
    status, data, headers = w.apis[game].call(method, path, **kwargs)
    assert status < 500, (game, method, path, status, data)
    w.calls[f"{method} {re.sub(r'[0-9a-f]{16}', '{id}', path.split('?')[0])}"] += 1
    return status, data, headers


def play_human(w: World, game: str, gid: str, token: str, seat: int, rnd: random.Random, moves: int,
               wait: float = 5.0) -> str:
    """Up to ``moves`` random legal moves of one seat, with every header the API takes."""
    last_seq = 0
    for i in range(moves):
        if not wait_until(lambda: _my_turn(w, game, gid, token, seat), timeout=wait, interval=0.05):
            return f"not my turn after {i} moves: {w.apis[game].call('GET', f'/games/{gid}')[1]}"
        status, acts, _ = _call(w, game, "GET", f"/games/{gid}/actions", token=token)
        if status != 200 or not acts["actions"]:
            return f"no actions after {i} moves"
        action = rnd.choice(acts["actions"])
        version = acts["version"]
        key = secrets.token_hex(4)
        roll = rnd.random()
        if roll < 0.2:  # a stale If-Match: 412
            _call(w, game, "POST", f"/games/{gid}/actions", token=token, body=action,
                  headers={"If-Match": f'"{version - 1}"'})
        status, _, _ = _call(w, game, "POST", f"/games/{gid}/actions", token=token, body=action,
                             headers={"Idempotency-Key": key, "If-Match": f'"{version}"'})
        if roll < 0.5:  # replayed, then misused with another body
            _call(w, game, "POST", f"/games/{gid}/actions", token=token, body=action,
                  headers={"Idempotency-Key": key})
            _call(w, game, "POST", f"/games/{gid}/actions", token=token, body={"type": "nonsense"},
                  headers={"Idempotency-Key": key})
        _, events, _ = _call(w, game, "GET", f"/games/{gid}/events?after={last_seq}&wait=0.1", token=token)
        last_seq = events["last_seq"] if events else last_seq
        _call(w, game, "GET", f"/games/{gid}", headers={"If-None-Match": f'"{version + 1}"'})
        if status != 200:
            return f"move answered {status}"
    return f"{moves} moves"


def _my_turn(w: World, game: str, gid: str, token: str, seat: int) -> bool:
    status, view, _ = _call(w, game, "GET", f"/games/{gid}", token=token)
    return status == 200 and (view["status"] == "finished" or seat in view["to_act"])


def settled(view: dict[str, Any]) -> bool:
    """A table of a human and bots that waits for its human (seat 0) or is over."""
    return view["status"] == "finished" or 0 in view["to_act"]


def workload(w: World, rnd: random.Random, phase: int) -> None:
    for game, api in w.apis.items():
        d = registry.game(game)
        n = d.engine.min_seats
        fast = d.playing_level()
        options = dict(d.tests.quick_options)
        # tables of bots only, played to the end by the worker
        for _ in range(2):
            status, data, _ = _call(w, game, "POST", "/games", body={"seats": [f"bot:{fast}"] * n, "options": options})
            assert status == 201, data
            w.bots_tables.append((game, data["game"]["id"]))
        # a human against bots: a few random moves (Ludix: to the end, names for the leaderboard)
        for i in range(3 if game == "ludix" else 1):
            seats = ["human"] + [f"bot:{fast}"] * (n - 1)
            status, data, _ = _call(w, game, "POST", "/games",
                                    body={"seats": seats, "options": options, "name": f"p{phase}-{i}-{game}"})
            assert status == 201, data
            gid, token = data["game"]["id"], data["token"]
            why = play_human(w, game, gid, token, 0, rnd, 400 if game == "ludix" else 4)
            if game == "ludix":
                assert wait_until(lambda g=gid, a=api: a.view(g)["status"] == "finished", timeout=60), (gid, why)
                _call(w, game, "GET", f"/games/{gid}/replay")
            # the bots play on until the human is to act or the game is over (a short game, as
            # Pig's, may end in a few moves): an ended table is recorded, the others wait as they are
            assert wait_until(lambda g=gid, a=api: settled(a.view(g)), timeout=60), gid
            w.ended_humans[game] += api.view(gid)["status"] == "finished"
        # humans only: created, partly or fully joined, left waiting in the lobby or played a little
        for full in (False, True):
            status, data, _ = _call(w, game, "POST", "/games",
                                    body={"seats": ["human"] * n, "options": options, "name": "host"})
            gid, tokens = data["game"]["id"], [data["token"]]
            for seat in range(1, n if full else n - 1):
                status, joined, _ = _call(w, game, "POST", f"/games/{gid}/players", body={"name": f"guest{seat}"})
                tokens.append(joined["token"])
            _call(w, game, "POST", f"/games/{gid}/players", body={"seat": 0})  # taken: 409
            _call(w, game, "GET", f"/games/{gid}/replay")  # not over: 409
            _call(w, game, "GET", f"/games/{gid}/events?after=0&wait=0.1")
            if full:
                for _ in range(3):
                    for seat, token in enumerate(tokens):
                        play_human(w, game, gid, token, seat, rnd, 1, wait=0.0)
                # a short game may end in these few moves (Ludix to 50: LXXI, then hold), and is
                # recorded: counted (it was not, and about one run in six failed on it, waiting for
                # one Ludix game too many)
                w.ended_by_humans[game] += api.view(gid)["status"] == "finished"
        # reads of every other route
        _call(w, game, "GET", "/games?page=1&page_size=5")
        _call(w, game, "GET", "/leaderboard?limit=10")
        _call(w, game, "GET", "/stats")
        _call(w, game, "GET", f"/games/{secrets.token_hex(8)}")  # 404
        _call(w, game, "POST", "/games", body={"seats": ["dragon"]})  # 422
        rule_map = w.apis[game].c.application.url_map
        for rule in rule_map.iter_rules():
            if rule.arguments or rule.endpoint == "static" or "docs" in rule.rule or not rule.rule.startswith("/"):
                continue
            if rule.rule.startswith("/games") or rule.rule in ("/leaderboard", "/stats"):
                continue
            for method in sorted((rule.methods or set()) & {"GET", "POST"}):
                _call(w, game, method, rule.rule, body={} if method == "POST" else None)


def _s(x: Any) -> str:
    return x.decode() if isinstance(x, bytes) else str(x)


def test_every_key_expires_or_is_bounded(world: World) -> None:
    w = world
    rnd = random.Random(8)
    t0 = time.monotonic()
    workload(w, rnd, 1)
    time.sleep(TTL + 1.5)  # everything of phase 1 not written since expires
    workload(w, rnd, 2)
    # every table of bots finishes, and so does every Ludix human table (played to the end) and any
    # other human table a few moves ended (a short game): each is recorded once (finished games
    # expire TTL seconds after their last move: the stats, which last, count them)
    expected = Counter(g for g, _ in w.bots_tables) + w.ended_humans + w.ended_by_humans
    assert w.ended_humans["ludix"] == 6, w.ended_humans

    def recorded() -> dict[str, int]:
        return {g: int(w.apis[g].call("GET", "/stats")[1]["games"]) for g in registry.names()}

    assert wait_until(lambda: recorded() == dict(expected), timeout=120, interval=0.5), (recorded(), expected)
    hint_keys = [f"{g}:{{due}}" for g in registry.names()]

    def quiet() -> bool:  # the sweeper has dropped the hints of games with nothing due
        return all(w.r.zcard(k) == 0 for k in hint_keys) and all(w.broker.llen(g) == 0 for g in registry.names())

    assert wait_until(quiet, timeout=60, interval=0.5), {k: w.r.zrange(k, 0, -1) for k in hint_keys}
    workload_s = time.monotonic() - t0

    # -- the scan -------------------------------------------------------------------------------
    bounded = {
        r"^(?P<g>\w+):\{board\}:wins$": "leaderboard wins",
        r"^(?P<g>\w+):\{board\}:players$": "leaderboard players",
        r"^(?P<g>\w+):\{board\}:stats$": "stats",
    }
    broker_bounded = {
        r"^_kombu\.binding(_permanent)?\..+$": "kombu binding",
        r"^_kombu\.binding_deadlines$": "kombu binding",
        "^({})$".format("|".join(registry.names())): "queue",
        r"^unacked$": "unacked",
        r"^unacked_index$": "unacked index",
    }
    violations: list[str] = []
    figures: Counter[str] = Counter()
    sizes: dict[str, int] = {}
    for db, client, allowed in (("sessions", w.r, bounded), ("broker", w.broker, broker_bounded)):
        for raw in client.scan_iter(count=1000):
            key = _s(raw)
            ttl = client.pttl(key)  # TTL says 0 for a key with less than half a second to live
            if ttl >= 0:
                figures[f"{db}: with a TTL"] += 1
                continue
            if ttl == -2:
                continue  # expired between the scan and the look
            kind = next((name for pattern, name in allowed.items() if re.match(pattern, key)), None)
            if kind is None:
                info = client.hmget(key, ["version", "due"]) if _s(client.type(key)) == "hash" else ""
                violations.append(f"{db} {key} ({_s(client.type(key))}): no TTL, no documented bound {info}")
                continue
            figures[f"{db}: bounded ({kind})"] += 1
            size = _size(client, key)
            sizes[f"{db} {key}"] = size
            limit = {"leaderboard wins": PLAYERS, "leaderboard players": 2 * PLAYERS, "stats": 0,
                     "kombu binding": 64, "queue": 200, "unacked": 4, "unacked index": 4}[kind]
            if kind == "stats":
                game = key.split(":")[0]
                allowed_fields = {"games", "shared_wins"} | {
                    f"seat_wins:{i}" for i in range(registry.game(game).engine.max_seats)}
                extra = {_s(f) for f in client.hkeys(key)} - allowed_fields
                if extra:
                    violations.append(f"{db} {key}: fields {sorted(extra)} beyond the documented ones")
            elif size > limit:
                violations.append(f"{db} {key}: {size} entries, over its bound {limit}")
            if kind == "leaderboard players":
                names = {_s(f).rsplit(":", 1)[0] for f in client.hkeys(key)}
                wins = {_s(m) for m in client.zrange(key.replace(":players", ":wins"), 0, -1)}
                if not names <= wins:
                    violations.append(f"{db} {key}: names {sorted(names - wins)} trimmed from wins but kept")
    # the trimmed sorted sets that also expire: the trim keeps them within one TTL
    for game in registry.names():
        for key, what in ((f"{game}:lobby", "lobby"), (f"{game}:{{board}}:recorded", "recorded")):
            scores = [s for _, s in w.r.zrange(key, 0, -1, withscores=True)]
            sizes[f"sessions {key}"] = len(scores)
            span = (max(scores) - min(scores)) / (1000 if what == "recorded" else 1) if scores else 0
            if span > TTL:
                violations.append(f"{key}: {what} entries span {span:.0f} s > TTL {TTL} s")
    stats = recorded()
    names = {g: len(w.apis[g].call("GET", "/leaderboard?limit=100")[1]["players"]) for g in registry.names()}
    print(f"\n[keys] workload: {sum(w.calls.values())} requests over {len(w.calls)} routes of "
          f"{len(w.apis)} games in {workload_s:.0f} s; results recorded {stats}; leaderboard names {names}")
    print(f"[keys] routes: {dict(sorted(w.calls.items()))}")
    for name, count in sorted(figures.items()):
        print(f"[keys] {name}: {count} keys")
    print(f"[keys] bounded key sizes: {dict(sorted(sizes.items()))}")
    print(f"[keys] keys without a TTL or a documented bound: {len(violations)}")
    for v in violations:
        print(f"[keys]   {v}")
    assert not violations
    assert max(names.values()) == PLAYERS  # the cap was reached (and trimmed)


def _size(client: redis.Redis, key: str) -> int:
    kind = _s(client.type(key))
    return int({"zset": client.zcard, "hash": client.hlen, "set": client.scard, "list": client.llen,
                "string": lambda k: 1, "stream": client.xlen}[kind](key))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-s"]))


def test_the_trims_keep_their_bounds(redis_client: redis.Redis) -> None:
    """The lobby and the recorded set are trimmed to one TTL while writes keep their key alive;
    the leaderboard keeps its top ``max_players`` names."""
    from ludoteca.adapters.store import GameStore

    store = GameStore(redis_client, f"trim{secrets.token_hex(3)}", 3, 3, max_players=3)
    now = time.time()
    store.lobby_add("old", now - 10)
    store.lobby_add("new", now)
    assert [_s(m) for m in redis_client.zrange(store.lobby_key, 0, -1)] == ["new"]
    store.record_result("g1", [("a", True, 1.0), ("b", False, 0.0)], shared=False)
    time.sleep(1.6)
    store.record_result("g2", [("c", True, 1.0), ("d", False, 0.0)], shared=False)
    time.sleep(1.6)  # g1 is now older than the TTL; g2 kept the key alive
    store.record_result("g3", [("a", True, 1.0), ("e", False, 0.0)], shared=False)
    recorded = f"{store.game}:{{board}}:recorded"
    assert [_s(m) for m in redis_client.zrange(recorded, 0, -1)] == ["g2", "g3"]
    assert 0 < redis_client.ttl(recorded) <= 3
    board = {row["player"]: row for row in store.leaderboard(10)}
    assert len(board) == 3 and board["a"]["wins"] == 2 and "c" in board  # the fewest wins went first
    fields = {_s(f) for f in redis_client.hkeys(f"{store.game}:{{board}}:players")}
    assert fields == {f"{n}:{w}" for n in board for w in ("played", "points")}
