"""``make bench``: what a move costs, per game and for the null endpoint, straight to the service
and through the front door, measured side by side in one run on the real stack (embedded Redis
with its append-only file, every service and the null endpoint under gunicorn as
``deploy/gunicorn.conf.py`` runs them, the front door in front of them all).

    python tests/bench/bench_api.py            # quick: one table, at most 2 minutes
    python tests/bench/bench_api.py --full     # more rounds, Ludix with 200 long-polls open,
                                               # gunicorn workers 1/2/4, the bot tables
    python tests/bench/bench_api.py --games ludix --flask-path
                                               # Ludix and the null, and Ludix with its hot route
                                               # off (ludix-flask), side by side
    python tests/bench/bench_api.py --games ludic,speculation,ludor --turns --rounds 3
                                               # and each of those games played by clients that
                                               # hold every seat's event stream, listing by request
                                               # (<game>+stream) or from the stream's turn messages
                                               # (<game>+turns, ?turns=true), side by side
    python tests/bench/bench_api.py --games ludix --door-transport both --rounds 9
                                               # the front door to the services over keep-alive
                                               # TCP and over unix sockets, side by side (two
                                               # front doors, the same services; --rounds: no
                                               # 2-minute budget)

Each *system* (a game or the null endpoint, on one path) is played by 20 tables at once, one
keep-alive connection each, from one asyncio client (``driver.py``; the cheapest driver measured,
figures in its docstring). A round plays every system once, one after the other, ``--moves``
moves per table; the systems' order rotates from round to round so the noise of this shared
machine hits them alike; every figure printed is the median over the rounds (at least 3).

- moves/s: accepted moves (for the null: requests) over the phase's wall time;
- p50/p90/p99: round trip of a move, from its first request (``GET .../actions`` where the shape
  needs one: a seat other than the last mover's; the last mover acting again plays from its move's
  answer's ``next``, one request a move) to the POST's answer;
- server CPU per move: ``utime + stime`` (``/proc/<pid>/stat``) of every server process on the
  path, read before and after the phase: the service's gunicorn master and workers, redis-server,
  and the front door's process on the door path, divided by the accepted moves;
- ratio to null: the game's moves/s over the null's requests/s on the same path in the same
  round; req/move is how many requests a move takes in its shape (so req/s = moves/s x req/move);
- CPU ratio: the null's server CPU per request over the system's per move, same path and round;
- driver CPU: the client process's own CPU per request.

The rate limits are on, as in production, at a level no table here reaches
(``LUDOTECA_RATE_LIMIT=1000000`` unless the environment sets it: every seat's moves and reads are
counted in its buckets, and the tables' new games in their one client address's).
``GUNICORN_WORKER_CLASS`` and
``GUNICORN_WORKERS`` (read by ``deploy/gunicorn.conf.py``) apply to every server started here.
What the figures say at scale: ``docs/scaling.md``.

The worker class (``deploy/gunicorn.conf.py`` points here): measured by the previous version of this
benchmark (``git show de7630e:tests/bench/bench_api.py``: one sequential client, moves then views;
its ``--worker-class`` option ran several classes side by side):

Why gevent (``deploy/gunicorn.conf.py``): measured with ``--worker-class gevent,gthread:256,gthread``
on this 2-core machine shared with other sessions (load 4-6), one run, medians in ms, CPU in ms
of server CPU per move (service + gateway + Redis):

    worker class         path     quiet p50  CPU   with 200 long-polls p50  CPU
    gevent (2 x 1000)    direct     5.86    2.92        5.40                2.85
                         gateway   10.34    5.35        8.35                4.85
    gthread 2 x 16       direct     6.07    3.50        5.96 (3 timeouts, 199 of 400 moves in 40 s)
      (the old setting)  gateway    9.39    6.32        none: every move timed out (5 s)
    gthread 2 x 256      direct     5.41    3.25        4.72                2.85
                         gateway    7.25    4.80        5.50                4.17

Moves alone (no views, direct, 1,200 each, side by side): gevent p50 4.10 ms, 2.55 ms CPU;
gthread 2 x 256 4.15 ms, 2.74 ms; gthread 2 x 16 5.26 ms, 3.34 ms. So at 200 long-polls a move
costs the same under gevent and under enough threads, but threads only hold up to their count:
with 600 long-polls (``--longpolls 600 --rounds 2 --moves 200``) gevent still answered every move
(p50 6.98 ms direct, 7.30 ms gateway, 0 timeouts, +35 MB of memory) while gthread 2 x 256 timed
out and completed half the moves in the time. A greenlet costs a few KB, a thread a stack, and
gevent's bound (worker_connections, 1,000 a worker) is far above what a move needs.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import redis  # noqa: E402
import requests  # noqa: E402
from driver import SHAPES, Counters, Table, close_streams, play, run  # noqa: E402
from ludoteca.entrypoints.devstack import Supervisor, embedded_redis  # noqa: E402
from ludoteca.service_layer import registry  # noqa: E402
from stack import (  # noqa: E402
    ROOT,
    Stack,
    cpu_by_group,
    git_revision,
    null_spec,
    service_spec,
    start_door,
    start_servers,
)
from table import render  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))
from longpolls import LongPollCrowd  # noqa: E402

GAMES = registry.names()
"""The games measured by default: every registered game (``--games`` picks some)."""
REFERENCE = "ludix"
"""The game issue 9's targets are set for (a reference, its own targets; the others': 70% of null's)."""
UNIX_PATH = "door-unix"
QUICK_BUDGET_SECONDS = 100
"""The quick mode's wall-time budget, start to end (``make bench`` adds its own few seconds)."""
STOP_SECONDS = 12
"""Kept for stopping the stack and printing: the quick mode's phases end by budget - this."""


def percentile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def med(xs: list[float]) -> float:
    xs = [x for x in xs if x == x]
    return statistics.median(xs) if xs else float("nan")


@dataclass
class Phase:
    """One system's figures in one round."""

    moves: int
    seconds: float
    p50: float
    p90: float
    p99: float
    server_cpu: float
    door_cpu: float
    redis_cpu: float
    driver_cpu: float
    requests: int
    setup_requests: int
    errors: int
    bytes_out: int
    bytes_in: int
    commands: dict[str, int]

    @property
    def rate(self) -> float:
        return self.moves / self.seconds if self.seconds else float("nan")


@dataclass
class System:
    game: str
    path: str  # "direct" or "door"
    base: str
    pgids: set[int]
    door_pgids: set[int]
    redis_pgid: int
    tables: list[Table] = field(default_factory=list)
    phases: list[Phase] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.game}/{self.path}"

    def m(self, attr: str) -> float:
        return med([getattr(p, attr) for p in self.phases])

    def per_move(self, attr: str) -> float:
        return med([getattr(p, attr) * 1000 / p.moves for p in self.phases if p.moves])

    def per_request(self, attr: str) -> float:
        return med([getattr(p, attr) * 1000 / p.requests for p in self.phases if p.requests])


def commandstats(client: redis.Redis) -> dict[str, int]:
    stats = client.info("commandstats")
    return {k.removeprefix("cmdstat_"): int(v["calls"]) for k, v in stats.items()}


def measure(system: System, moves: int, seconds: float, rclient: redis.Redis) -> Phase:
    counters = Counters()
    for t in system.tables:
        t.use(counters)
    groups = system.pgids | system.door_pgids
    cmd0 = commandstats(rclient)
    cpu0, drv0, t0 = cpu_by_group(groups), time.process_time(), time.perf_counter()
    run(play(system.tables, moves, seconds))
    elapsed, drv1, cpu1 = time.perf_counter() - t0, time.process_time(), cpu_by_group(groups)
    cmd1 = commandstats(rclient)
    delta = {g: cpu1[g] - cpu0[g] for g in groups}
    lat = counters.moves
    commands = {k: v - cmd0.get(k, 0) for k, v in cmd1.items() if k != "info" and v - cmd0.get(k, 0) > 0}
    return Phase(len(lat), elapsed, percentile(lat, 0.5), percentile(lat, 0.9), percentile(lat, 0.99),
                 sum(delta.values()), sum(delta[g] for g in system.door_pgids), delta[system.redis_pgid],
                 drv1 - drv0,
                 counters.requests, counters.setup_requests, counters.errors, counters.bytes_sent,
                 counters.bytes_received, commands)


FLASK_PATH = "-flask"
"""A system named ``<game>-flask``: that game's service with every request through Flask
(``LUDOTECA_HOT_ROUTES=0``, :mod:`ludoteca.adapters.hosting.hotroutes` off), for ``--flask-path``."""


TURNS, STREAMS = "+turns", "+stream"
"""Systems named ``<game>+turns`` and ``<game>+stream`` (``--turns``): that game's service played
by clients that hold each seat's event stream, as a client following a game does, with
``turns=true`` taking each listing from its ``turn`` messages, or without, listing by request;
the streams' server CPU is counted as the moves'."""


def shape_of(system: str) -> str:
    return system.removesuffix(FLASK_PATH).removesuffix(TURNS).removesuffix(STREAMS)


def service_of(system: str) -> str:
    """The service a system plays (``<game>-flask`` is a service of its own)."""
    return system.removesuffix(TURNS).removesuffix(STREAMS)


DOOR_PATHS = {"tcp": ("door",), "unix": (UNIX_PATH,), "both": ("door", UNIX_PATH)}
"""``--door-transport``: the door paths measured (``door``: the front door dialing the services
over keep-alive TCP, as ``make run`` does; ``door-unix``: over their unix sockets)."""


def make_systems(stack: Stack, games: list[str], tables: int, warm_moves: int) -> list[System]:
    systems = []
    for game in [*games, "null"]:
        svc = stack.services[service_of(game)]
        systems.append(System(game, "direct", svc.url, set(svc.pgids) | {stack.redis_pgid}, set(),
                              stack.redis_pgid))
        for path, door in stack.doors.items():
            systems.append(System(game, path, f"{door.url}/{service_of(game)}", set(svc.pgids) | {stack.redis_pgid},
                                  set(door.pgids), stack.redis_pgid))
    for i, s in enumerate(systems):
        s.tables = [Table(s.base, SHAPES[shape_of(s.game)], random.Random(f"{i}-{k}"), Counters(),
                          turns=s.game.endswith(TURNS), streams=s.game.endswith(STREAMS)) for k in range(tables)]
        run(play(s.tables, warm_moves, 60))  # warm-up: games created, connections open
    return systems


def run_rounds(systems: list[System], rounds: int, moves: int, seconds: float, rclient: redis.Redis,
               progress: bool, until: float | None = None) -> None:
    """``rounds`` rounds of every system; with ``until`` (a ``time.monotonic()`` deadline) each
    phase's time cap shrinks so that the last round ends by then (the quick mode's budget)."""
    left = rounds * len(systems)
    for r in range(rounds):
        k = r % len(systems)
        order = systems[k:] + systems[:k]  # no system always goes first
        if r % 2:
            order.reverse()
        for s in order:
            cap = seconds if until is None else max(1.0, min(seconds, (until - time.monotonic()) / left))
            s.phases.append(measure(s, moves, cap, rclient))
            left -= 1
        if progress:
            print(f"[bench] round {r + 1}/{rounds} done", file=sys.stderr, flush=True)


def ms(x: float) -> float:
    return x * 1000


def paths_of(systems: list[System]) -> list[str]:
    """The paths measured, in the order first met (``direct``, then the door paths)."""
    return list(dict.fromkeys(s.path for s in systems))


def print_main_table(systems: list[System]) -> None:
    by = {(s.game, s.path): s for s in systems}
    paths = paths_of(systems)
    null_rate = {path: [p.rate for p in by[("null", path)].phases] for path in paths}
    null_cpu = {path: [p.server_cpu / p.moves if p.moves else float("nan") for p in by[("null", path)].phases]
                for path in paths}
    headers = ["system", "path", "moves/s", "p50 ms", "p90 ms", "p99 ms", "server CPU ms/move",
               "of it door", "ratio to null", "CPU ratio", "req/move", "driver CPU ms/req", "errors"]
    rows = []
    for s in systems:
        ratio = med([p.rate / n for p, n in zip(s.phases, null_rate[s.path], strict=True) if n])
        cpu_ratio = med([n / (p.server_cpu / p.moves) for p, n in zip(s.phases, null_cpu[s.path], strict=True)
                         if p.moves and p.server_cpu])
        rows.append([s.game, s.path, s.m("rate"), ms(s.m("p50")), ms(s.m("p90")), ms(s.m("p99")),
                     s.per_move("server_cpu"), s.per_move("door_cpu") if s.path != "direct" else None,
                     ratio if s.game != "null" else None, cpu_ratio if s.game != "null" else None,
                     med([p.requests / p.moves for p in s.phases if p.moves]),
                     s.per_request("driver_cpu"), sum(p.errors for p in s.phases)])
    print(render(headers, rows))
    print("ratio to null: the system's moves/s over the null's requests/s on the same path in the same round "
          "(median of the rounds; a shape of 2 requests a move serves req/move x moves/s requests); CPU ratio: "
          "the null's server CPU per request over the system's per move, the same way (less sensitive to the "
          "machine's load than the rates)")
    print()
    added = []
    for game in [*{s.game for s in systems}]:
        d = by[(game, "direct")]
        for path in paths[1:]:
            g = by[(game, path)]
            cpu_d, cpu_g = d.per_move("server_cpu"), g.per_move("server_cpu")
            added.append([game, path, cpu_g - cpu_d, 100 * (cpu_g - cpu_d) / cpu_d if cpu_d else None,
                          ms(g.m("p50") - d.m("p50")), g.per_move("door_cpu")])
    order = {(s.game, s.path): i for i, s in enumerate(systems)}
    added.sort(key=lambda row: order[(str(row[0]), str(row[1]))])
    print("what the front door adds (door path minus direct, medians over the rounds):")
    print(render(["system", "path", "server CPU ms/move", "%", "p50 ms", "door process CPU ms/move"], added))
    if UNIX_PATH in paths and "door" in paths:
        print_transports(systems)


def print_transports(systems: list[System]) -> None:
    """The front door to the services over unix sockets against keep-alive TCP: the same services,
    two front doors, side by side in the same rounds; ratios per round, then their median."""
    by = {(s.game, s.path): s for s in systems}
    rows = []
    for game in dict.fromkeys(s.game for s in systems):
        tcp, unix = by[(game, "door")], by[(game, UNIX_PATH)]

        def per_round(attr: str, t: System = tcp, u: System = unix) -> list[tuple[float, float]]:
            return [(getattr(a, attr) / a.moves, getattr(b, attr) / b.moves)
                    for a, b in zip(t.phases, u.phases, strict=True) if a.moves and b.moves]

        cpu, door = per_round("server_cpu"), per_round("door_cpu")
        rows.append([game, tcp.per_move("server_cpu"), unix.per_move("server_cpu"),
                     med([b / a for a, b in cpu if a]), tcp.per_move("door_cpu"), unix.per_move("door_cpu"),
                     med([b / a for a, b in door if a]), tcp.m("rate"), unix.m("rate"),
                     med([b.rate / a.rate for a, b in zip(tcp.phases, unix.phases, strict=True) if a.rate]),
                     ms(tcp.m("p50")), ms(unix.m("p50"))])
    print("\nthe front door to the services: keep-alive TCP (door) against unix sockets (door-unix), the same "
          "services, medians over the rounds; unix/tcp ratios per round, then their median:")
    print(render(["system", "tcp CPU ms/move", "unix CPU ms/move", "unix/tcp", "tcp door ms", "unix door ms",
                  "unix/tcp", "tcp moves/s", "unix moves/s", "unix/tcp", "tcp p50 ms", "unix p50 ms"], rows))


def print_costs(systems: list[System], rclient: redis.Redis) -> None:
    print("\nper move, straight to the service (medians over the rounds): server CPU split into the service's "
          "gunicorn processes and redis-server, Redis commands (INFO commandstats deltas; a script's inner "
          "commands count too), bytes on the wire (request, response), what one game holds in Redis")
    rows = []
    for s in systems:
        if s.path != "direct":
            continue
        per: dict[str, list[float]] = {}
        for p in s.phases:
            for cmd, n in p.commands.items():
                per.setdefault(cmd, []).append(n / max(1, p.moves))
        calls = {cmd: med(xs) for cmd, xs in per.items()}
        top = ", ".join(f"{c} {n:.2f}" for c, n in sorted(calls.items(), key=lambda kv: -kv[1]) if n >= 0.05)
        stored = stored_bytes(rclient, s)
        rows.append([s.game, s.per_move("server_cpu") - s.per_move("redis_cpu"), s.per_move("redis_cpu"),
                     sum(calls.values()), med([p.bytes_out / p.moves for p in s.phases if p.moves]),
                     med([p.bytes_in / p.moves for p in s.phases if p.moves]), stored[0], stored[1], top])
    print(render(["system", "service CPU ms", "Redis CPU ms", "Redis cmds", "bytes sent", "bytes received",
                  "stored B/game", "at version", "commands"], rows))


def stored_bytes(rclient: redis.Redis, s: System) -> tuple[float | None, float | None]:
    """MEMORY USAGE of every key of the first table's game, and that game's version."""
    t = s.tables[0]
    if not t.gid:
        return None, None
    pattern = f"null:{{{t.gid}}}:*" if s.game == "null" else f"{s.game}:{{{t.gid}}}:*"
    total = sum(int(rclient.memory_usage(k) or 0) for k in rclient.scan_iter(match=pattern, count=1000))
    if not total:  # the store's key layout changed: nothing to report
        return None, None
    version = t.n if s.game == "null" else t.game.get("version")
    return float(total), (float(version) if version is not None else None)


def print_targets(systems: list[System]) -> None:
    by = {(s.game, s.path): s for s in systems}
    null_rate = {path: [p.rate for p in by[("null", path)].phases] for path in ("direct", "door")}

    def ratio(game: str, path: str) -> float:
        return med([p.rate / n for p, n in zip(by[(game, path)].phases, null_rate[path], strict=True) if n])

    lx_d, lx_g = by[(REFERENCE, "direct")], by[(REFERENCE, "door")]
    lines = [
        ("1. Ludix server CPU ms/move: door <= 1.0, direct <= 0.9",
         f"door {lx_g.per_move('server_cpu'):.2f}, direct {lx_d.per_move('server_cpu'):.2f}",
         lx_g.per_move("server_cpu") <= 1.0 and lx_d.per_move("server_cpu") <= 0.9),
        ("2. Ludix moves/s >= 85% of null's (door path)", f"{ratio(REFERENCE, 'door'):.0%}",
         ratio(REFERENCE, "door") >= 0.85),
    ]
    for game in GAMES:
        if game != REFERENCE and (game, "door") in by:
            lines.append((f"2. {game} moves/s >= 70% of null's (door path)", f"{ratio(game, 'door'):.0%}",
                          ratio(game, "door") >= 0.70))
    add_cpu = lx_g.per_move("server_cpu") / lx_d.per_move("server_cpu") - 1
    add_p50 = ms(lx_g.m("p50") - lx_d.m("p50"))
    lines.append(("3. door adds <= 10% CPU/move and <= 1 ms p50 (Ludix)", f"{add_cpu:+.0%}, {add_p50:+.2f} ms",
                  add_cpu <= 0.10 and add_p50 <= 1.0))
    lines.append(("4. Ludix p99 < 40 ms (door path)", f"{ms(lx_g.m('p99')):.1f} ms", ms(lx_g.m("p99")) < 40))
    print("\nissue 9's targets:")
    print(render(["target", "measured", "met"], [[a, b, "yes" if ok else "NO"] for a, b, ok in lines]))


GAMES_LIVE = 100_000
MOVES_PER_GAME_MINUTE = 10
UTILISATION = 0.7


def print_sizing(systems: list[System]) -> None:
    """What 100,000 concurrent games at 10 moves a game-minute need, from this run's CPU per move
    through the front door (docs/scaling.md explains the arithmetic)."""
    rate = GAMES_LIVE * MOVES_PER_GAME_MINUTE / 60
    print(f"\nsizing: {GAMES_LIVE:,} games x {MOVES_PER_GAME_MINUTE} moves a game-minute = {rate:,.0f} moves/s, "
          f"each part kept at {UTILISATION:.0%} busy; a Redis shard is one core (redis-server runs commands on one "
          "thread); all games of one kind:")
    rows = []
    for s in systems:
        if s.path != "door" or s.game == "null":
            continue
        door, redis_ms = s.per_move("door_cpu"), s.per_move("redis_cpu")
        service = s.per_move("server_cpu") - door - redis_ms
        sent = med([p.bytes_out / p.moves for p in s.phases if p.moves])
        received = med([p.bytes_in / p.moves for p in s.phases if p.moves])
        cores = [rate * x / 1000 / UTILISATION for x in (service, door, redis_ms)]
        rows.append([s.game, service, door, redis_ms, cores[0], cores[1], math.ceil(cores[2]), sum(cores),
                     rate * (sent + received) * 8 / 1e6])
    print(render(["game", "service ms/move", "door ms/move", "Redis ms/move", "service cores", "door cores",
                  "Redis shards", "cores in all", "Mbit/s at the door"], rows))


def print_shapes(games: list[str], moves: int, tables: int) -> None:
    print(f"\nshapes ({tables} tables a system, up to {moves} moves a table a round, a phase also "
          "stopping at its time cap (quick mode: the 2-minute budget shared among the phases); a finished "
          "game is replaced by a new one on the same table, its setup requests counted in req/move):")
    for game in [*games, "null"]:
        print(f"  {game}: {SHAPES[shape_of(game)].describe}" + VARIANTS.get(game.removeprefix(shape_of(game)), ""))


VARIANTS = {FLASK_PATH: " (every request through Flask: LUDOTECA_HOT_ROUTES=0)",
            STREAMS: " (and every seat holds its event stream, as a client following the game does; the streams' "
                     "opening counted as setup)",
            TURNS: " (every seat holds its event stream with turns=true: a listing comes from the seat's turn "
                   "message instead of GET .../actions)"}
"""What a system's name suffix adds to its game's shape."""


def header(args: argparse.Namespace, stack: Stack, mode: str) -> None:
    workers = os.environ.get("GUNICORN_WORKERS", "2")
    wc = os.environ.get("GUNICORN_WORKER_CLASS", "gevent")
    print(f"make bench ({mode}): moves/s, round trip, server CPU per move, Redis commands and bytes "
          "per move, per game and for the null endpoint, straight and through the front door")
    print(f"  revision {git_revision()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
          f"{os.cpu_count()} cores; Python "
          f"{platform.python_version()}; load average {os.getloadavg()[0]:.1f} at the end")
    print(f"  gunicorn {workers} x {wc} workers (deploy/gunicorn.conf.py) per service; {stack.door_kind}; "
          f"embedded redis-server (AOF, fsync every second); LUDOTECA_RATE_LIMIT={os.environ['LUDOTECA_RATE_LIMIT']}; "
          f"{args.rounds} rounds, medians; driver: asyncio keep-alive client, one process")
    print()


def scaling(sup: Supervisor, redis_url: str, redis_pgid: int, logs: Path, args: argparse.Namespace,
            rclient: redis.Redis) -> None:
    """Ludix and the null endpoint, straight, under 1, 2 and 4 gunicorn workers, side by side."""
    counts = [int(w) for w in args.workers.split(",")]
    specs = {}
    for w in counts:
        specs[f"{REFERENCE}-w{w}"] = service_spec(REFERENCE, redis_url, w)
        specs[f"null-w{w}"] = null_spec(redis_url, w)
    servers = start_servers(sup, specs, logs)
    systems = []
    for w in counts:
        for game in (REFERENCE, "null"):
            srv = servers[f"{game}-w{w}"]
            s = System(game, f"{w} workers", srv.url, set(srv.pgids) | {redis_pgid}, set(), redis_pgid)
            s.tables = [Table(s.base, SHAPES[game], random.Random(f"w{w}-{k}"), Counters())
                        for k in range(args.tables)]
            run(play(s.tables, 3, 60))
            systems.append(s)
    run_rounds(systems, args.rounds, args.moves, args.phase_seconds, rclient, progress=True)
    print("\ngunicorn workers (straight to the service; Ludix in its shape, the null endpoint):")
    rows = []
    base = {g: systems[i].m("rate") for i, g in enumerate((REFERENCE, "null"))}
    for s in systems:
        rows.append([s.game, s.path, s.m("rate"), s.m("rate") / base[s.game], ms(s.m("p50")), ms(s.m("p99")),
                     s.per_move("server_cpu")])
    print(render(["system", "workers", "moves/s", "x 1 worker", "p50 ms", "p99 ms", "server CPU ms/move"], rows))


def idle_crowd(direct: str, door: str, count: int) -> tuple[LongPollCrowd, list[str]]:
    """``count`` anonymous long-polls (``wait=30``, longer than the loaded phases) on 20 fresh
    Ludix tables waiting for their second player, 3/4 through the front door."""
    s = requests.Session()
    tables = []
    for _ in range(20):
        gid = s.post(f"{direct}/games", json={"seats": ["human", "human"]}, timeout=60).json()["game"]["id"]
        tables.append((gid, s.get(f"{direct}/games/{gid}/events", timeout=60).json()["last_seq"]))
    urls = [(f"{direct if i % 4 == 3 else door}/games/{tables[i % 20][0]}/events", tables[i % 20][1])
            for i in range(count)]
    crowd = LongPollCrowd(urls, wait=30, reissue=False)
    crowd.start()
    return crowd, [gid for gid, _ in tables]


def longpolls(systems: list[System], args: argparse.Namespace, rclient: redis.Redis) -> None:
    """Ludix moves, straight and through the door, quiet and with ``--longpolls`` idle long-polls
    open, interleaved round by round (a fresh crowd each round, woken and closed at its end)."""
    ludix = [s for s in systems if s.game == REFERENCE]
    loaded = [System(s.game, f"{s.path} +{args.longpolls} polls", s.base, s.pgids, s.door_pgids, s.redis_pgid,
                     s.tables) for s in ludix]
    quiet = [System(s.game, s.path, s.base, s.pgids, s.door_pgids, s.redis_pgid, s.tables) for s in ludix]
    still_open = []
    for r in range(args.rounds):
        for s in quiet if r % 2 == 0 else quiet[::-1]:
            s.phases.append(measure(s, args.moves, args.phase_seconds, rclient))
        crowd, gids = idle_crowd(ludix[0].base, ludix[1].base, args.longpolls)
        deadline = time.monotonic() + 20
        while crowd.open_count() < args.longpolls and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1.0)  # they reach the service and park there
        for s in loaded if r % 2 == 0 else loaded[::-1]:
            s.phases.append(measure(s, args.moves, args.phase_seconds, rclient))
        still_open.append(crowd.open_count())
        s2 = requests.Session()
        for gid in gids:  # a second player joins: every long-poll on the table returns at once
            s2.post(f"{ludix[0].base}/games/{gid}/players", json={}, timeout=60)
        crowd.stop(timeout=40)
    print(f"\nLudix with {args.longpolls} idle long-polls open (3/4 through the door; still open at the end "
          f"of each loaded phase: {still_open}):")
    rows = [[s.path, s.m("rate"), ms(s.m("p50")), ms(s.m("p99")), s.per_move("server_cpu"),
             sum(p.errors for p in s.phases)] for s in quiet + loaded]
    print(render([REFERENCE, "moves/s", "p50 ms", "p99 ms", "server CPU ms/move", "errors"], rows))


def bot_tables() -> None:
    for script in [*sorted(HERE.glob("bench_*_bots.py")), HERE / "bench_bot_turns.py"]:
        print(f"\n== {script.name} --quick", flush=True)
        code = subprocess.run([sys.executable, str(script), "--quick"], cwd=ROOT, check=False).returncode
        if code:
            print(f"({script.name} exited with {code})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="more rounds, gunicorn workers 1/2/4, the bot tables")
    parser.add_argument("--rounds", type=int, help="default 3 (quick), 5 (full); given, the quick mode's "
                                                   "2-minute budget no longer caps the phases")
    parser.add_argument("--moves", type=int, help="moves a table a round; default 12 (quick), 40 (full)")
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--phase-seconds", type=float, default=8.0,
                        help="time cap of one system's phase (quick mode: less, to end within 2 minutes)")
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--workers", default="1,2,4", help="gunicorn worker counts measured by --full ('' for none)")
    parser.add_argument("--longpolls", type=int, default=200, help="idle long-polls open in --full's Ludix phases")
    parser.add_argument("--logs", type=Path, help="keep the servers' logs in this directory")
    parser.add_argument("--flask-path", action="store_true",
                        help="also Ludix with the hot route off (every request through Flask), side by side")
    parser.add_argument("--turns", action="store_true",
                        help="also each game whose clients list their actions, played with every seat holding "
                             "its event stream with turns=true (<game>+turns), side by side")
    parser.add_argument("--door-transport", choices=sorted(DOOR_PATHS), default="tcp",
                        help="how the front door reaches the services: keep-alive TCP (as make run), unix "
                             "sockets, or both side by side (two front doors in front of the same services)")
    args = parser.parse_args()
    budget = not args.full and args.rounds is None
    args.rounds = args.rounds or (5 if args.full else 3)
    args.moves = args.moves or (40 if args.full else 12)
    games = [g for g in args.games.split(",") if g]
    os.environ.setdefault("LUDOTECA_RATE_LIMIT", "1000000")  # counted as in production, never reached
    # the driver and the idle long-poll crowd are one client: the per-client holds and connections
    # (ludoteca.entrypoints.admission) are tested in tests/integration/test_hostile_load.py, not here
    os.environ.setdefault("LUDOTECA_MAX_HOLDS_PER_ADDRESS", "1000")
    os.environ.setdefault("LUDOTECA_MAX_CONNECTIONS_PER_ADDRESS", "1000")
    started = time.monotonic()
    sup = Supervisor()
    try:
        with tempfile.TemporaryDirectory() as tmp, embedded_redis(sup, Path(tmp) / "redis") as redis_url:
            logs = args.logs or Path(tmp)
            logs.mkdir(parents=True, exist_ok=True)
            redis_pgid = next(iter(sup.procs.values())).pid
            stack = Stack(redis_url, redis_pgid)
            specs = {**{g: service_spec(g, redis_url) for g in games}, "null": null_spec(redis_url)}
            if args.flask_path and REFERENCE in games:
                target, env = service_spec(REFERENCE, redis_url)
                specs[REFERENCE + FLASK_PATH] = (target, {**env, "LUDOTECA_HOT_ROUTES": "0"})
                games = [*games, REFERENCE + FLASK_PATH]
            if args.turns:
                games = [*games, *(g + kind for kind in (STREAMS, TURNS) for g in games if SHAPES[g].hold_at is None)]
            unix = args.door_transport != "tcp"
            stack.services = start_servers(sup, specs, logs, sockets=Path(tmp) if unix else None)
            for path in DOOR_PATHS[args.door_transport]:
                routes = {n: (s.unix if path == UNIX_PATH else s.url) or s.url for n, s in stack.services.items()}
                stack.doors[path], stack.door_kind = start_door(sup, routes, logs, name=path)
            stack.door = stack.doors.get("door") or stack.doors[UNIX_PATH]
            rclient = redis.Redis.from_url(redis_url)
            systems = make_systems(stack, games, args.tables, 2)
            print(f"[bench] stack up and warm in {time.monotonic() - started:.0f} s; measuring", file=sys.stderr,
                  flush=True)
            until = started + QUICK_BUDGET_SECONDS - STOP_SECONDS if budget else None
            run_rounds(systems, args.rounds, args.moves, args.phase_seconds, rclient, progress=True, until=until)
            header(args, stack, "full" if args.full else "quick")
            print_main_table(systems)
            print_costs(systems, rclient)
            if REFERENCE in games and "door" in stack.doors:
                print_targets(systems)
            print_sizing(systems)
            print_shapes(games, args.moves, args.tables)
            close_streams([t for s in systems for t in s.tables])
            if args.full:
                if REFERENCE in games and args.longpolls:
                    longpolls(systems, args, rclient)
                if args.workers:
                    scaling(sup, redis_url, redis_pgid, logs, args, rclient)
    finally:
        sup.stop()
    if args.full:
        bot_tables()
    wall = time.monotonic() - started
    print(f"\nwall time {wall:.0f} s" + ("" if not budget or wall <= QUICK_BUDGET_SECONDS
                                        else f" (over the quick mode's {QUICK_BUDGET_SECONDS} s budget)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
