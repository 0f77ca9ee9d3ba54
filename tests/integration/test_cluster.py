"""The game store unchanged on a real Redis Cluster: three masters on loopback (redis-server
``--cluster-enabled yes``, formed by ``redis-cli --cluster create``, :class:`EmbeddedRedisCluster`),
``REDIS_URL=redis+cluster://...`` everywhere, the Celery broker on a plain Redis of its own.

- every game played to its end through its API (Flask test clients of ``create_app`` on the
  cluster URL), a table of humans and a table of bots (the real Celery worker plays them; the
  results are recorded once; leaderboard and stats over HTTP);
- one game played to its end through a real gunicorn service on the cluster, and on every game's
  gunicorn service the ``If-Match`` race (exactly one winner a round) and the ``Idempotency-Key``
  race (applied once), as ``test_races.py``, with the rate limiter on (its counters on the cluster);
- the lobby, a rate limit that bites, long-polls, the sweeper's hint index (a service whose
  dispatches are all lost: the sweeper finishes its games);
- where the keys are, asked of each node itself (``CLUSTER GETKEYSINSLOT``): each game's keys
  in one slot on one master, the games spread over more than one master (so this cannot pass on
  one node), nothing of the broker on the cluster;
- a master killed, then all three: 503 problem+json (never a 500), ``/readyz`` not ready;
  started again on their append-only files, every game goes on from where it was.

Run: ``.venv/bin/python -m pytest -s -n 0 -p no:cacheprovider tests/integration/test_cluster.py``
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis
from api_client import Api
from conftest import start_sweeper, start_worker, wait_until
from ludoteca.adapters.cluster import is_cluster_url
from ludoteca.adapters.hosting import create_app, redis_client
from ludoteca.adapters.store import GameStore
from ludoteca.config import Settings, default_broker_url
from ludoteca.entrypoints.devstack import EmbeddedRedis, EmbeddedRedisCluster, Supervisor, free_port, start_service
from ludoteca.service_layer import registry
from ludoteca.service_layer.service import GameService
from playout import HttpTable, choose, idempotency_races, if_match_races

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[2]
MAX_MOVES = 3000
CLIENTS, RACE_ROUNDS = 30, 5
COPIES, IDEM_ROUNDS = 10, 3


class Dropping:
    """A dispatcher that loses every dispatch (the process died between commit and enqueue)."""

    def bot_turn(self, game: str, game_id: str, version: int) -> None:
        pass

    def record_result(self, game: str, game_id: str) -> None:
        pass


@dataclass
class ClusterStack:
    cluster: EmbeddedRedisCluster
    broker: EmbeddedRedis
    settings: Settings
    r: Any  # the services' own cluster client (ludoteca.adapters.connect.redis_client)
    logs: Path
    bases: dict[str, str] = field(default_factory=dict)  # gunicorn services
    apps: dict[str, Any] = field(default_factory=dict)
    games: list[tuple[str, str]] = field(default_factory=list)  # every game created here

    def api(self, game: str) -> Api:
        if game not in self.apps:
            app = create_app(registry.game(game), self.settings)
            app.config["TESTING"] = True
            self.apps[game] = app
        return Api(self.apps[game].test_client())

    def store(self, game: str) -> GameStore:
        return GameStore(self.r, game, self.settings.game_ttl_seconds, self.settings.idempotency_ttl_seconds)

    def create(self, api: Api, game: str, seats: list[str],
               options: dict[str, Any] | None = None) -> tuple[str, str | None]:
        gid, token = api.create(seats, options or dict(registry.game(game).tests.quick_options))
        self.games.append((game, gid))
        return gid, token

    def node(self, port: int) -> redis.Redis:
        return redis.Redis(port=port, socket_timeout=5)

    def holders(self, key: str) -> list[int]:
        """The ports of the nodes that hold ``key``, asked of every node (not of the client's
        slot table): the keys each node has in the key's slot."""
        slot = int(self.node(self.cluster.ports[0]).execute_command("CLUSTER", "KEYSLOT", key))
        return [p for p in self.cluster.ports
                if key.encode() in self.node(p).execute_command("CLUSTER", "GETKEYSINSLOT", slot, 10_000)]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterStack]:
    sup = Supervisor()
    logs = tmp_path_factory.mktemp("cluster")
    try:
        cluster = EmbeddedRedisCluster(sup, logs / "cluster").start()
        broker = EmbeddedRedis(sup, logs / "broker").start()
        settings = Settings.from_env(redis_url=cluster.url, broker_url=broker.url, rate_limit_per_minute=1_000_000)
        env = {"REDIS_URL": cluster.url, "BROKER_URL": broker.url, "LUDOTECA_BOT_DELAY": "0", "PYTHONUNBUFFERED": "1"}
        s = ClusterStack(cluster, broker, settings, redis_client(cluster.url), logs)
        start_worker(sup, "cluster-worker", env, logs / "worker.log")
        start_sweeper(sup, env, logs / "sweeper.log", grace=1.5)
        for game in registry.names():  # the rate limiter on (conftest's huge limit): its counters on the cluster
            port = free_port()
            start_service(sup, game, port, cluster.url, ROOT, logs / f"{game}.log", env=env)
            s.bases[game] = f"http://127.0.0.1:{port}"
        yield s
    finally:
        sup.stop()


def test_the_cluster_is_three_masters_sharing_the_slots(stack: ClusterStack) -> None:
    assert is_cluster_url(stack.settings.redis_url) and not is_cluster_url(stack.settings.broker_url)
    assert isinstance(stack.r, redis.RedisCluster)
    lines = stack.node(stack.cluster.ports[0]).execute_command("CLUSTER", "NODES").decode().splitlines()
    masters = [line.split() for line in lines if "master" in line.split()[2]]
    assert sorted(int(m[1].split(":")[1].split("@")[0]) for m in masters) == sorted(stack.cluster.ports)
    assert all(len(m) > 8 for m in masters), "every master owns slots"
    with pytest.raises(ValueError, match="BROKER_URL"):  # the broker is never derived from a cluster URL
        default_broker_url(stack.cluster.url)


@pytest.mark.parametrize("game", registry.names())
def test_humans_play_every_game_to_the_end(game: str, stack: ClusterStack) -> None:
    api = stack.api(game)
    n = registry.game(game).engine.min_seats
    gid, first = stack.create(api, game, ["human"] * n, {})
    tokens = [first] + [api.join(gid)[1]["token"] for _ in range(n - 1)]
    rnd = random.Random(f"cluster-{game}")
    moves = 0
    while moves < MAX_MOVES and api.view(gid)["status"] != "finished":
        seat = rnd.choice(api.view(gid)["to_act"])
        listed = api.actions(gid, tokens[seat])
        action = choose(game, api.view(gid, tokens[seat])["state"], listed, rnd, moves)
        status, data, _ = api.play(gid, tokens[seat], action)
        assert status == 200, (action, data)
        moves += 1
    final = api.view(gid)
    assert final["status"] == "finished", f"{game}: not over after {MAX_MOVES} moves"
    status, replay, _ = api.call("GET", f"/games/{gid}/replay")
    assert status == 200 and len(replay["actions"]) == moves
    status, page, _ = api.call("GET", f"/games/{gid}/events?after=0")  # the stream, on the game's node
    assert status == 200 and page["events"]
    last = page["events"][-1]["seq"]
    t0 = time.monotonic()  # a long-poll past the end blocks on the game's node (XREAD BLOCK) and comes back empty
    status, page, _ = api.call("GET", f"/games/{gid}/events?after={last + 1000}&wait=1")
    assert status == 200 and page["events"] == [] and time.monotonic() - t0 >= 0.9
    # the result: recorded once by the worker (the boards' slot), on the leaderboard and in the stats
    assert wait_until(lambda: stack.store(game).is_recorded(gid), timeout=60), stack.logs / "worker.log"
    status, board, _ = api.call("GET", "/leaderboard?limit=1000")
    assert status == 200 and {"seat 0", "seat 1"} <= {row["player"] for row in board["players"]}, board
    status, stats, _ = api.call("GET", "/stats")
    assert status == 200 and stats["games"] >= 1
    print(f"\n{game}: {moves} moves by humans on the cluster, result recorded; stats {stats}")


@pytest.mark.parametrize("game", registry.names())
def test_bots_play_every_game_to_the_end_through_the_worker(game: str, stack: ClusterStack) -> None:
    d = registry.game(game)
    api = stack.api(game)
    level = d.playing_level()
    before = stack.store(game).stats().get("games", 0)
    gid, _ = stack.create(api, game, [f"bot:{level}"] * d.engine.min_seats)
    assert wait_until(lambda: api.view(gid)["status"] == "finished", timeout=300, interval=0.5), (
        f"{game}: bots stalled at version {api.view(gid)['version']}")
    assert wait_until(lambda: stack.store(game).is_recorded(gid), timeout=60)
    assert stack.store(game).stats()["games"] == before + 1
    versions = [e["version"] for e in stack.store(game).action_log(gid)]
    assert versions == list(range(2, api.view(gid)["version"] + 1)), "every bot turn applied exactly once"
    status, board, _ = api.call("GET", "/leaderboard?limit=1000")
    assert status == 200 and board["players"]
    print(f"\n{game}: bots ({level}) played {len(versions)} turns on the cluster, result recorded once")


def test_a_game_to_the_end_through_gunicorn(stack: ClusterStack) -> None:
    table = HttpTable.open(stack.bases["ludix"], "ludix", "cluster-gunicorn")
    stack.games.append(("ludix", table.gid))
    table.play(time.monotonic() + 240)
    assert table.step() == "finished", f"not finished after {table.moves} moves: {table.statuses}"
    assert set(table.statuses) == {200}, table.statuses
    print(f"\nludix through gunicorn on the cluster: {table.moves} moves, statuses {table.statuses}")


@pytest.mark.parametrize("game", registry.names())
def test_if_match_race_has_exactly_one_winner(game: str, stack: ClusterStack) -> None:
    statuses = if_match_races(stack.bases[game], game, f"cluster-race-{game}", RACE_ROUNDS, CLIENTS)
    assert statuses[200] == RACE_ROUNDS
    print(f"\n{game} on the cluster: If-Match race, {RACE_ROUNDS} rounds x {CLIENTS} clients: "
          f"{dict(sorted(statuses.items()))}")


@pytest.mark.parametrize("game", registry.names())
def test_idempotency_key_race_applies_once(game: str, stack: ClusterStack) -> None:
    applied, replayed = idempotency_races(stack.bases[game], game, f"cluster-idem-{game}", IDEM_ROUNDS, COPIES)
    assert (applied, replayed) == (IDEM_ROUNDS, IDEM_ROUNDS * (COPIES - 1))
    print(f"\n{game} on the cluster: Idempotency-Key race, {IDEM_ROUNDS} rounds x {COPIES} copies: "
          f"{applied} applied, {replayed} replayed")


def test_the_lobby_lists_waiting_games_and_drops_full_ones(stack: ClusterStack) -> None:
    api = stack.api("ludix")
    gid, _ = stack.create(api, "ludix", ["human", "human"], {})
    status, lobby, _ = api.call("GET", "/games?page_size=100")
    assert status == 200 and gid in [g["id"] for g in lobby["items"]], lobby
    assert api.join(gid)[0] == 201
    status, lobby, _ = api.call("GET", "/games?page_size=100")
    assert status == 200 and gid not in [g["id"] for g in lobby["items"]]


def test_a_rate_limit_bites_with_its_counters_on_the_cluster(stack: ClusterStack) -> None:
    settings = Settings.from_env(redis_url=stack.cluster.url, broker_url=stack.broker.url,
                                 rate_limit_per_minute=1_000_000, rate_limit_create_per_minute=2)
    app = create_app(registry.game("ludix"), settings)
    api = Api(app.test_client())
    answers = [api.call("POST", "/games", body={"seats": ["human", "bot:steady"]}) for _ in range(3)]
    assert [a[0] for a in answers] == [201, 201, 429]
    assert int(answers[2][2]["Retry-After"]) >= 1
    stack.games += [("ludix", a[1]["game"]["id"]) for a in answers[:2]]
    counters = [k for p in stack.cluster.ports for k in stack.node(p).keys("ludix:ratelimit:*new*/2/1/minute")]
    assert counters, "the limiter's counter lives on the cluster"
    assert not redis.Redis.from_url(stack.broker.url).keys("*ratelimit*")


def test_the_sweeper_finishes_games_whose_dispatches_were_lost(stack: ClusterStack) -> None:
    tables = []
    for game in registry.names():
        d = registry.game(game)
        level = d.playing_level()
        service = GameService(d, stack.store(game), Dropping())
        envelope, _, _ = service.create([f"bot:{level}"] * d.engine.min_seats, dict(d.tests.quick_options), None, None)
        tables.append((game, envelope["id"]))
        stack.games.append((game, envelope["id"]))
    hints = [stack.store(g).hints_key for g, _ in tables]
    assert all(len(stack.holders(h)) == 1 for h in hints if stack.r.exists(h))
    assert wait_until(lambda: all(stack.store(g).load(i).doc["status"] == "finished" for g, i in tables),
                      timeout=300, interval=0.5), (stack.logs / "sweeper.log").read_text()[-2000:]
    assert wait_until(lambda: all(stack.store(g).is_recorded(i) for g, i in tables), timeout=60)
    log = (stack.logs / "sweeper.log").read_text()
    assert all(f"of {g} {i}" in log for g, i in tables), "the sweeper re-dispatched every lost first turn"
    print(f"\nsweeper on the cluster: {len(tables)} games whose every dispatch was lost, all finished and "
          f"recorded; {log.count('re-dispatched')} re-dispatches")


def test_the_keys_are_spread_over_the_masters_one_slot_a_game(stack: ClusterStack) -> None:
    """Asked of every node itself: a game's keys share one slot on one master; the games are
    spread over more than one master; the hint indexes and the boards are on the cluster; no
    broker key is."""
    api = stack.api("ludix")
    for _ in range(12):  # with the games of the other tests: a chance of 3 x 3^-12 or less that all share one
        stack.create(api, "ludix", ["human", "bot:steady"], {})
    per_node: Counter[int] = Counter()
    for game, gid in stack.games:
        keys = [f"{game}:{{{gid}}}:{what}" for what in ("game", "events", "log")]
        slots = {stack.r.keyslot(k) for k in keys}
        assert len(slots) == 1, f"{game} {gid}: keys in slots {slots}"
        holders = {p for k in keys for p in stack.holders(k) if stack.node(p).exists(k)}
        assert len(holders) == 1, f"{game} {gid}: keys on nodes {holders}"
        per_node[holders.pop()] += 1
    print(f"\n{len(stack.games)} games on the cluster, per master (port: games): {dict(per_node)}")
    assert len(per_node) > 1, "every game on one master: the test would pass on a single Redis"
    for game in registry.names():
        store = stack.store(game)
        for key in (store._board("stats"), store._board("wins")):
            assert len(stack.holders(key)) == 1, key
    broker_keys = [k for p in stack.cluster.ports for k in stack.node(p).keys("_kombu*")]
    broker_keys += [k for p in stack.cluster.ports for k in stack.node(p).keys("unacked*")]
    assert not broker_keys, broker_keys
    assert redis.Redis.from_url(stack.broker.url).keys("_kombu*"), "the broker's tables are on the broker"


def test_masters_killed_then_restarted(stack: ClusterStack) -> None:
    """One master SIGKILLed: requests for its games answer 503 problem+json with Retry-After,
    never a 500. Every master down (the client's own "cannot be connected"): every route that
    needs the store, the rate limiter's included, answers 503 too, and ``/readyz`` says not
    ready. Started again on their append-only files, the games are all there and go on."""
    api = stack.api("ludix")
    port = stack.cluster.ports[0]
    gids: list[tuple[str, str | None]] = []
    # 12 games, more until one lives on the first master (a random id misses it with p = 2/3)
    while len(gids) < 12 or (len(gids) < 60 and not any(
            stack.holders(f"ludix:{{{gid}}}:game") == [port] for gid, _ in gids)):
        gids.append(stack.create(api, "ludix", ["human", "human"], {}))
    tokens = {gid: [tok, api.join(gid)[1]["token"]] for gid, tok in gids}
    before = {gid: api.view(gid)["version"] for gid in tokens}
    mine = [gid for gid in tokens if stack.holders(f"ludix:{{{gid}}}:game") == [port]]
    assert mine, f"none of {len(gids)} games on the first master"
    stack.cluster.nodes[0].kill()
    statuses: Counter[int] = Counter()
    for gid in mine:
        status, data, headers = api.call("GET", f"/games/{gid}")
        statuses[status] += 1
        assert status == 503 and headers.get("Retry-After"), (status, data)
    for node in stack.cluster.nodes[1:]:
        node.kill()
    gid, token = next(iter(tokens)), next(iter(tokens.values()))[0]
    calls = [("GET", f"/games/{gid}", None, None), ("POST", f"/games/{gid}/actions", token, {"type": "roll"}),
             ("POST", "/games", None, {"seats": ["human", "human"]}), ("GET", "/readyz", None, None),
             ("GET", "/leaderboard", None, None)]
    for method, path, tok, body in calls * 2:  # twice: the failed call left the client to reconnect
        status, data, headers = api.call(method, path, tok, body)
        statuses[status] += 1
        assert status == 503 and headers.get("Retry-After"), (method, path, status, data)
    print(f"\nmasters down: {dict(statuses)} ({len(mine)} games on the first master, then every master)")
    for node in stack.cluster.nodes:
        node.start()
    stack.cluster.wait_ok()
    for gid in tokens:  # the client notices the nodes are back on its next calls (no restart)
        assert wait_until(lambda g=gid: api.call("GET", f"/games/{g}")[0] == 200, timeout=30)
        assert api.view(gid)["version"] == before[gid]
        seat = api.view(gid)["to_act"][0]
        listed = api.actions(gid, tokens[gid][seat])
        assert api.play(gid, tokens[gid][seat], listed["actions"][0])[0] == 200
