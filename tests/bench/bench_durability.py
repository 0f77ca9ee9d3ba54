"""What it costs to acknowledge a move only once it is durable, printed (no assertions).

    python tests/bench/bench_durability.py [--moves 400] [--rounds 3]

Issue 20, finding 3: a move whose append-only write failed (a full disk) was answered 200 and
lost when Redis died. The options, each measured here on a redis-server of its own whose
directory is on this machine's disk (not a tmpfs: an fsync there costs nothing):

- ``everysec``: ``appendfsync everysec`` and no check (the code before ``GameStore.confirm``);
- ``everysec+confirm``: the same, and a ``PING`` after each commit (what the services do:
  Redis refuses it with ``MISCONF`` once a write to the file failed, so that move gets a 503);
- ``always``: ``appendfsync always`` and no check (Redis fsyncs before it replies, and exits on a
  failed write: nothing acknowledged is ever missing from the disk, even on a power loss);
- ``always+confirm``: both.

``WAITAOF`` (Redis 7.2: wait until the local file, or replicas, have fsync'd the writes) is not
measured: ``redis-server --version`` here is 6.2, which has no such command.

For each: Ludix moves through the in-process service (Flask's test client, the real store),
one after another; the median over ``--rounds`` rounds of the median latency a move (µs of
wall time), Redis's CPU a move (``INFO cpu``, user + sys) and the service's CPU a move.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import redis
from ludoteca.adapters.hosting import create_app
from ludoteca.adapters.store import GameStore
from ludoteca.config import Settings
from ludoteca.entrypoints.devstack import EmbeddedRedis, Supervisor, redis_server_binary
from ludoteca.service_layer import registry

OPTIONS = {"everysec": ("everysec", False), "everysec+confirm": ("everysec", True),
           "always": ("always", False), "always+confirm": ("always", True)}


class NoDispatch:
    def bot_turn(self, game: str, game_id: str, version: int) -> None:
        pass

    def record_result(self, game: str, game_id: str) -> None:
        pass


@contextmanager
def server(fsync: str, root: Path) -> Iterator[EmbeddedRedis]:
    sup = Supervisor()
    workdir = Path(tempfile.mkdtemp(prefix=f"aof-{fsync}-", dir=root))
    try:
        yield EmbeddedRedis(sup, workdir, extra_args=["--appendfsync", fsync]).start()
    finally:
        sup.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def redis_cpu(client: redis.Redis) -> float:
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def play(client: Any, moves: int, rnd: random.Random) -> list[float]:
    """``moves`` Ludix moves by two humans (new games as they end); each move's latency in s."""
    latencies: list[float] = []
    gid, tokens = "", ["", ""]
    status = "finished"
    while len(latencies) < moves:
        if status == "finished":
            created = client.post("/games", json={"seats": ["human", "human"], "options": {"target": 50}})
            gid, tokens = created.json["game"]["id"], [created.json["token"], ""]
            tokens[1] = client.post(f"/games/{gid}/players", json={}).json["token"]
        view = client.get(f"/games/{gid}").json
        status = view["status"]
        if status == "finished":
            continue
        seat = view["to_act"][0]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        action = rnd.choice(client.get(f"/games/{gid}/actions", headers=auth).json["actions"])
        t0 = time.perf_counter()
        r = client.post(f"/games/{gid}/actions", json=action, headers=auth)
        latencies.append(time.perf_counter() - t0)
        assert r.status_code == 200, r.get_data(as_text=True)
        status = r.json["game"]["status"]
    return latencies


def measure(name: str, moves: int, root: Path) -> tuple[float, float, float]:
    """(median latency, Redis CPU, service CPU) a move, in µs."""
    fsync, confirm = OPTIONS[name]
    with server(fsync, root) as srv:
        settings = Settings.from_env(redis_url=srv.url, broker_url=srv.url, rate_limit_per_minute=0)
        app = create_app(registry.game("ludix"), settings, dispatcher=NoDispatch())
        saved = GameStore.confirm
        if not confirm:
            GameStore.confirm = lambda self, game_id: None  # type: ignore[method-assign]
        try:
            client = app.test_client()
            play(client, 20, random.Random(0))  # warm up
            admin = redis.Redis.from_url(srv.url)
            cpu0, own0 = redis_cpu(admin), time.process_time()
            latencies = play(client, moves, random.Random(1))
            cpu1, own1 = redis_cpu(admin), time.process_time()
        finally:
            GameStore.confirm = saved  # type: ignore[method-assign]
    # the Redis CPU covers the reads of each step too (view, actions): the difference between
    # the options is the commit's and the confirmation's
    return (statistics.median(latencies) * 1e6, (cpu1 - cpu0) / moves * 1e6, (own1 - own0) / moves * 1e6)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path(__file__).resolve().parents[2] / "var",
                        help="where the servers' directories go (a real disk, not a tmpfs)")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    version = subprocess.run([redis_server_binary(), "--version"], capture_output=True, text=True,
                             check=False).stdout.split(" sha=")[0]
    print(f"{version}; {args.moves} Ludix moves a round, {args.rounds} rounds (each option in turn), "
          f"directories under {args.dir}")
    results: dict[str, list[tuple[float, float, float]]] = {name: [] for name in OPTIONS}
    for _ in range(args.rounds):
        for name in OPTIONS:
            results[name].append(measure(name, args.moves, args.dir))
    print(f"{'option':18s} {'move p50 µs':>12s} {'Redis CPU µs/move':>18s} {'service CPU µs/move':>20s}")
    for name, runs in results.items():
        lat, rcpu, scpu = (statistics.median(r[i] for r in runs) for i in range(3))
        print(f"{name:18s} {lat:12.0f} {rcpu:18.0f} {scpu:20.0f}")


if __name__ == "__main__":
    main()
