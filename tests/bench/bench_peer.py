"""``make bench-peer``: Pig beside boardgame.io's Pig (issue 24, item 8), side by side in one run.

    python tests/bench/bench_peer.py                       # 20 tables x 100 moves, 3 rounds
    python tests/bench/bench_peer.py --tables 20 --moves 100 --rounds 5

The same game, the same players: Pig (roll/hold, a 1 loses the turn, first to 100) played by
``--tables`` tables of two players at once, each holding once its turn total reaches 20, ``--moves``
moves a table a round, on

- **boardgame.io** (``tests/bench/peer``: its Pig, with the rules constants of ``services/pig``
  (``rules.json``, checked by ``tests/bench/test_peer.py``), its server as it serves by default: in
  memory, socket.io, one Node process), played by ``peer/driver.js``: boardgame.io's own client, one
  socket.io connection a player, a move done once both players' clients hold its new state;
- **our Pig**, through the front door and straight to its service, and **Ludix** and the **null
  endpoint** the same two ways (the stack of ``make bench``: embedded Redis with its append-only
  file, gunicorn as ``deploy/gunicorn.conf.py`` runs it, Caddy), played by ``driver.py`` (one
  keep-alive connection a table, one request a move, hold-at-20 decided from the move's answer).

Server CPU per move: ``utime + stime`` of every server process of the system (``/proc``, as
``bench_api.py`` reads it): boardgame.io's Node process; for ours the service's gunicorn master and
workers, redis-server and, through the door, Caddy; the drivers are not counted. moves/s: accepted
moves over the phase's wall time (a finished game is replaced by a new one, its setup counted, in
both drivers). A round plays every system once, the order rotating from round to round; every
figure is the median of the rounds, each ratio the median of the per-round ratios (the machine is
shared: quote ratios from one run).

Needs Node and npm: ``npm ci`` installs boardgame.io into ``tests/bench/peer/node_modules`` on the
first run (from the lock file). Not part of ``make test`` (network at install time); the harness's
consistency is (``tests/bench/test_peer.py``). The Makefile's target (its recipe line starts with
a tab)::

    bench-peer: install policy
            $(BIN)/python tests/bench/bench_peer.py $(BENCH_ARGS)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import redis  # noqa: E402
from bench_api import System, measure, med, ms  # noqa: E402
from driver import SHAPES, Counters, Table, play, run  # noqa: E402
from ludoteca.entrypoints.devstack import Supervisor, embedded_redis, free_port, wait_http  # noqa: E402
from stack import cpu_by_group, git_revision, null_spec, service_spec, start_door, start_servers  # noqa: E402
from table import render  # noqa: E402

PEER = HERE / "peer"
PEER_NAME = "boardgame.io"
GAMES = ("pig", "ludix")


def install_peer() -> None:
    """boardgame.io from the lock file (``npm ci``), unless it is installed already."""
    stamp = PEER / "node_modules" / ".package-lock.json"
    lock = PEER / "package-lock.json"
    if stamp.exists() and stamp.stat().st_mtime >= lock.stat().st_mtime:
        return
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("bench_peer needs Node.js and npm (boardgame.io runs on Node)")
    print("[bench] installing boardgame.io (npm ci in tests/bench/peer)", file=sys.stderr, flush=True)
    subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=PEER, check=True,
                   stdout=sys.stderr)


@dataclass
class PeerRound:
    moves: int
    seconds: float
    p50: float
    server_cpu: float
    games_finished: int

    @property
    def rate(self) -> float:
        return self.moves / self.seconds if self.seconds else float("nan")


@dataclass
class Peer:
    """boardgame.io's server (one Node process, its own process group) and its driver."""

    pgid: int
    driver: subprocess.Popen[str]
    phases: list[PeerRound] = field(default_factory=list)
    game: str = PEER_NAME
    path: str = "its server"

    def measure(self, moves: int) -> PeerRound:
        assert self.driver.stdin is not None and self.driver.stdout is not None
        cpu0 = cpu_by_group({self.pgid})[self.pgid]
        self.driver.stdin.write(f"play {moves}\n")
        self.driver.stdin.flush()
        line = self.driver.stdout.readline()
        cpu1 = cpu_by_group({self.pgid})[self.pgid]
        if not line:
            raise RuntimeError(f"the boardgame.io driver stopped (exit {self.driver.poll()})")
        out = json.loads(line)
        return PeerRound(out["moves"], out["seconds"], out["p50_ms"] / 1000, cpu1 - cpu0, out["finished"])


def start_peer(sup: Supervisor, tables: int, logs: Path) -> Peer:
    port = free_port()
    node = shutil.which("node") or "node"
    proc = sup.start(PEER_NAME, [node, "server.js", str(port)], cwd=PEER, log=logs / "boardgame.io.log")
    if not wait_http(f"http://127.0.0.1:{port}/games", 60):
        raise RuntimeError(f"boardgame.io's server did not start; see {logs / 'boardgame.io.log'}")
    driver = subprocess.Popen([node, "driver.js", str(port), str(tables)], cwd=PEER, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert driver.stdout is not None
    if driver.stdout.readline().strip() != "ready":
        raise RuntimeError("the boardgame.io driver did not connect its tables")
    return Peer(proc.pid, driver)


def ratio_to(xs: list[float], base: list[float]) -> float:
    return med([x / b for x, b in zip(xs, base, strict=True) if b and x == x])


def report(peer: Peer, systems: list[System], finished: dict[tuple[str, str], int],
           args: argparse.Namespace) -> None:
    cpu = {(s.game, s.path): [p.server_cpu / p.moves if p.moves else float("nan") for p in s.phases]
           for s in systems}
    rate = {(s.game, s.path): [p.rate for p in s.phases] for s in systems}
    peer_cpu = [p.server_cpu / p.moves if p.moves else float("nan") for p in peer.phases]
    peer_rate = [p.rate for p in peer.phases]
    def per_game(moves: int, finished: int) -> float | None:
        return moves / finished if finished else None

    peer_moves, peer_games = sum(p.moves for p in peer.phases), sum(p.games_finished for p in peer.phases)
    rows: list[list[object]] = [[PEER_NAME, "its server (in memory, socket.io)", med(peer_rate),
                                 ms(med([p.p50 for p in peer.phases])), ms(med(peer_cpu)), 1.0, 1.0, None,
                                 per_game(peer_moves, peer_games)]]
    for s in systems:
        key = (s.game, s.path)
        null = cpu.get(("null", s.path))
        rows.append([s.game, s.path, med(rate[key]), ms(s.m("p50")), s.per_move("server_cpu"),
                     ratio_to(cpu[key], peer_cpu), ratio_to(rate[key], peer_rate),
                     ratio_to(cpu[key], null) if null and s.game != "null" else None,
                     per_game(sum(p.moves for p in s.phases), finished.get(key, 0)) if s.game != "null" else None])
    print(f"Pig beside boardgame.io (issue 24, item 8): {args.tables} tables x {args.moves} moves a round, "
          f"hold-at-20, {args.rounds} rounds, medians (ratios: medians of the per-round ratios)")
    print(f"  revision {git_revision()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} "
          f"cores; load average {os.getloadavg()[0]:.1f} at the end; boardgame.io "
          f"{json.loads((PEER / 'node_modules' / 'boardgame.io' / 'package.json').read_text())['version']}, "
          f"Node {subprocess.run(['node', '--version'], capture_output=True, text=True).stdout.strip()}")
    print()
    print(render(["system", "path", "moves/s", "p50 ms", "server CPU ms/move", "CPU x boardgame.io",
                  "moves/s x boardgame.io", "CPU x null", "moves a game"], rows))
    print("\nserver CPU: every server process of the system (boardgame.io: its Node process; ours: the service's "
          "gunicorn processes and redis-server, and Caddy through the door), per accepted move; the drivers are "
          "not counted. CPU x null: the system's CPU per move over the null endpoint's per request, same path. "
          "moves a game: the rounds' moves over the games they finished, the check that both sides play the same "
          "game.")
    for game in ("pig", "ludix"):
        shapes = SHAPES[game].describe
        print(f"  {game}: {shapes}")
    print(f"  {PEER_NAME}: peer/driver.js, boardgame.io's Client over socket.io, two a table, hold-at-20")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--moves", type=int, default=100, help="moves a table a round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--phase-seconds", type=float, default=120.0, help="time cap of one of our systems' phase")
    parser.add_argument("--logs", type=Path, help="keep the servers' logs in this directory")
    args = parser.parse_args()
    os.environ.setdefault("LUDOTECA_RATE_LIMIT", "1000000")  # counted as in production, never reached
    os.environ.setdefault("LUDOTECA_MAX_HOLDS_PER_ADDRESS", "1000")
    os.environ.setdefault("LUDOTECA_MAX_CONNECTIONS_PER_ADDRESS", "1000")
    install_peer()
    started = time.monotonic()
    sup = Supervisor()
    peer = None
    try:
        with tempfile.TemporaryDirectory() as tmp, embedded_redis(sup, Path(tmp) / "redis") as redis_url:
            logs = args.logs or Path(tmp)
            logs.mkdir(parents=True, exist_ok=True)
            redis_pgid = next(iter(sup.procs.values())).pid
            specs = {**{g: service_spec(g, redis_url) for g in GAMES}, "null": null_spec(redis_url)}
            services = start_servers(sup, specs, logs)
            door, _ = start_door(sup, {n: s.url for n, s in services.items()}, logs)
            peer = start_peer(sup, args.tables, logs)
            rclient = redis.Redis.from_url(redis_url)
            systems = []
            for i, game in enumerate([*GAMES, "null"]):
                svc = services[game]
                for path, base, door_pgids in (("door", f"{door.url}/{game}", set(door.pgids)),
                                               ("direct", svc.url, set())):
                    s = System(game, path, base, set(svc.pgids) | {redis_pgid}, door_pgids, redis_pgid)
                    s.tables = [Table(base, SHAPES[game], random.Random(f"peer-{i}-{path}-{k}"), Counters())
                                for k in range(args.tables)]
                    run(play(s.tables, 2, 60))  # warm-up: games created, connections open
                    systems.append(s)
            peer.measure(2)  # its warm-up
            print(f"[bench] stack up and warm in {time.monotonic() - started:.0f} s; measuring", file=sys.stderr,
                  flush=True)
            everyone: list[System | Peer] = [peer, *systems]
            finished: dict[tuple[str, str], int] = {}
            for r in range(args.rounds):
                k = r % len(everyone)
                order = everyone[k:] + everyone[:k]
                if r % 2:
                    order.reverse()
                for one in order:
                    if isinstance(one, Peer):
                        one.phases.append(one.measure(args.moves))
                    else:
                        one.phases.append(measure(one, args.moves, args.phase_seconds, rclient))
                        key = (one.game, one.path)  # the phase's games (one Counters a phase, shared by its tables)
                        finished[key] = finished.get(key, 0) + one.tables[0].c.games_finished
                print(f"[bench] round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
            report(peer, systems, finished, args)
    finally:
        if peer is not None:
            peer.driver.kill()
            peer.driver.wait()
        sup.stop()
    print(f"\nwall time {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
