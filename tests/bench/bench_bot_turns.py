"""Benchmark: bot turns through the real stack, every game. Prints figures; asserts nothing.

    python tests/bench/bench_bot_turns.py --quick       # 4 tables a game, 6 s measured a game (< 60 s)
    python tests/bench/bench_bot_turns.py               # 1 and then 8 tables a game, 30 s measured each
    python tests/bench/bench_bot_turns.py --games ludix,ludor --tables 4 --seconds 20

The stack is the one ``make run`` starts for bots: an embedded Redis (``ludoteca.entrypoints.devstack``,
sessions in database 0, the Celery broker in database 1) and one real Celery worker process,
``celery -A ludoteca.adapters.worker worker -Q <every game's queue> --concurrency 2`` as in
``deploy/Procfile``. No game service runs: the tables are created through the service layer
(``ludoteca.adapters.worker.service_for(game).create``), which dispatches the first turn to the worker
exactly as a POST /games does; from then on the worker plays every turn (it commits the move,
then dispatches the next turn). No sweeper: no task is lost here (none is killed).

Tables are bots only, their seats cycling through the game's levels (table ``t``, seat ``i``:
level ``(t + i) mod levels``); a table that finishes is replaced by a new one, so ``--tables``
stay in play. The first ``--warmup`` seconds of each game are not measured (the worker's
children fill their lazy caches), then ``--seconds`` are.

The times come from Redis itself: a MONITOR connection sees every commit's write of ``due`` /
``due_at`` into the game hash (``HSET <game>:{<id>}:game due bot:<v> due_at <server ms>``, see
``ludoteca.adapters.store``), stamped by the server to the microsecond. A turn falls due at the commit
that made version ``v`` due (``bot:v``) and is applied at the commit of version ``v + 1``: the
figure is the difference, per turn, p50/p90/p99/max, with the number of turns (a turn due in the
window and not applied by its end is counted apart). It includes the dispatch (the broker
round trip), the wait in the queue, loading the game, the bot's decision and the commit.
Bot moves/s: moves committed in the window / its length. Worker CPU: the worker's main process
and its pool (``/proc``), per move. MONITOR costs Redis a little, and this process reads it on the same
2 cores: the figures are, if anything, pessimistic.

Progress goes to stderr every few seconds.
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import redis
from bot_timing import PROGRESS_SECONDS, percentile
from ludoteca.entrypoints.devstack import EmbeddedRedis, Supervisor
from ludoteca.service_layer import registry

ROOT = Path(__file__).resolve().parents[2]
TICK = os.sysconf("SC_CLK_TCK")

SEATS = {"ludor": 4}  # the table the game's bot benchmark plays; otherwise the game's minimum
_DUE = re.compile(rb'^\+(\d+\.\d+) \[[^\]]*\] "(?i:hset)" "([^"{}]+):\{([^"{}]+)\}:game"(.*)$')
_FIELD_DUE = re.compile(rb' "due" "([^"]*)"')


@dataclass
class Commit:
    at: float  # server time, seconds
    version: int | None  # the version made due (bot:<v>); None: the result is due (the game is over)


class Monitor(threading.Thread):
    """Reads Redis MONITOR and keeps, per game id, every commit's write of ``due``."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.sendall(b"MONITOR\r\n")
        self.lock = threading.Lock()
        self.commits: dict[tuple[str, str], list[Commit]] = {}
        self.finished: set[tuple[str, str]] = set()
        self.bytes = 0

    def run(self) -> None:
        tail = b""
        while True:
            try:
                data = self.sock.recv(1 << 20)
            except OSError:
                return
            if not data:
                return
            self.bytes += len(data)
            *lines, tail = (tail + data).split(b"\r\n")
            for line in lines:
                if b' "due" "' in line:
                    self._line(line)

    def _line(self, line: bytes) -> None:
        m = _DUE.match(line)
        if m is None:
            return
        due = _FIELD_DUE.search(m.group(4))
        if due is None:
            return
        key = (m.group(2).decode(), m.group(3).decode())
        kind, _, version = due.group(1).decode().partition(":")
        commit = Commit(float(m.group(1)), int(version) if kind == "bot" and version else None)
        with self.lock:
            self.commits.setdefault(key, []).append(commit)
            if commit.version is None:
                self.finished.add(key)

    def close(self) -> None:
        self.sock.close()


@dataclass
class Measure:
    game: str
    tables: int
    seats: list[list[str]]
    seconds: float = 0.0
    moves: int = 0
    latencies: list[float] = field(default_factory=list)  # seconds, due -> applied
    pending: int = 0
    games_started: int = 0
    games_finished: int = 0
    worker_cpu: float = 0.0
    stopped: list[str] = field(default_factory=list)  # the ids deleted at the end


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) used so far by ``pid`` and its live descendants (the worker's
    main process and its pool)."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            continue
    return total / TICK


def analyse(commits: dict[tuple[str, str], list[Commit]], game: str, start: float, end: float, out: Measure) -> None:
    for (name, _gid), seq in commits.items():
        if name != game:
            continue
        seq = sorted(seq, key=lambda c: c.at)
        for i, c in enumerate(seq):
            if i > 0 and start <= c.at <= end:
                out.moves += 1
            if c.version is None or not start <= c.at <= end:
                continue
            nxt = seq[i + 1] if i + 1 < len(seq) else None
            if nxt is not None and nxt.at <= end and (nxt.version is None or nxt.version == c.version + 1):
                out.latencies.append(nxt.at - c.at)
            else:
                out.pending += 1


def start_worker(sup: Supervisor, url: str, log: Path) -> int:
    """The worker as the Procfile runs it (and as tests/conftest.py's ``start_worker``); returns
    its pid once it says ready."""
    argv = [sys.executable, "-m", "celery", "-A", "ludoteca.adapters.worker", "worker",
            "-Q", ",".join(registry.names()), "--concurrency", "2", "--loglevel", "INFO",
            "--without-gossip", "--without-mingle",
            "--without-heartbeat", "-n", f"botbench-{os.getpid()}@%h"]
    proc = sup.start("worker", argv, env={"REDIS_URL": url}, cwd=ROOT, log=log)
    deadline = time.monotonic() + 120
    while "ready." not in (log.read_text() if log.exists() else ""):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("the Celery worker did not start:\n" + (log.read_text()[-3000:] if log.exists() else ""))
        time.sleep(0.1)
    return proc.pid


def server_time(r: redis.Redis) -> float:
    sec, usec = r.time()
    return int(sec) + int(usec) / 1e6


def seating(game: str, table: int) -> list[str]:
    definition = registry.game(game)
    levels = list(definition.bots)
    n = SEATS.get(game, definition.engine.min_seats)
    return [f"bot:{levels[(table + i) % len(levels)]}" for i in range(n)]


def run_game(game: str, tables: int, warmup: float, seconds: float, monitor: Monitor, r: redis.Redis,
             worker_pid: int) -> Measure:
    from ludoteca.adapters.worker import service_for

    service = service_for(game)
    out = Measure(game, tables, [seating(game, t) for t in range(tables)])
    live: dict[int, str] = {}  # table slot -> game id
    created = 0

    def fill() -> None:
        nonlocal created
        for slot in range(tables):
            gid = live.get(slot)
            if gid is None or (game, gid) in monitor.finished:
                envelope, _, _ = service.create(out.seats[slot], None, None, None)
                live[slot] = envelope["id"]
                created += 1

    t0 = time.time()
    fill()
    start = end = 0.0
    cpu0 = 0.0
    last = time.monotonic()
    while True:
        now = time.time()
        if not start and now - t0 >= warmup:
            start, cpu0 = server_time(r), tree_cpu(worker_pid)
            finished0 = created - len(live)
        if start and now - t0 >= warmup + seconds:
            end = server_time(r)
            out.worker_cpu = tree_cpu(worker_pid) - cpu0
            break
        fill()
        if time.monotonic() - last >= PROGRESS_SECONDS:
            last = time.monotonic()
            with monitor.lock:
                moves = sum(len(v) - 1 for k, v in monitor.commits.items() if k[0] == game)
            phase = "warm-up" if not start else f"measuring {now - t0 - warmup:.0f}/{seconds:.0f} s"
            print(f"   ... {game}, {tables} tables, {phase}: {moves} bot moves so far, {created} tables started",
                  file=sys.stderr, flush=True)
        time.sleep(0.1)
    out.seconds = end - start
    out.games_started = created
    out.games_finished = created - len(live) - finished0
    # stop this game's tables (the worker's next turn of each finds no game and does nothing)
    for gid in live.values():
        r.delete(*(f"{game}:{{{gid}}}:{what}" for what in ("game", "events", "log")))
        out.stopped.append(gid)
    with monitor.lock:
        commits = {k: list(v) for k, v in monitor.commits.items() if k[0] == game}
    analyse(commits, game, start, end, out)
    quiet_until = time.monotonic() + 0.5  # let the in-flight turns drain before the next game
    while time.monotonic() < quiet_until:
        time.sleep(0.1)
    return out


def report(rows: Sequence[Measure]) -> None:
    print(f"\n{'game':<12} {'tables':>6} {'moves':>6} {'s':>5} {'moves/s':>8}   due -> applied, ms: "
          f"{'p50':>7} {'p90':>7} {'p99':>7} {'max':>7} {'turns':>6} {'open':>5}   worker CPU ms/move  games done")
    for m in rows:
        ms = [1000 * t for t in m.latencies]
        if ms:
            lat = (f"{statistics.median(ms):7.1f} {percentile(ms, 0.90):7.1f} {percentile(ms, 0.99):7.1f} "
                   f"{max(ms):7.1f}")
        else:
            lat = " ".join(f"{'-':>7}" for _ in range(4))
        rate = m.moves / m.seconds if m.seconds else float("nan")
        cpu = 1000 * m.worker_cpu / m.moves if m.moves else float("nan")
        print(f"{m.game:<12} {m.tables:>6} {m.moves:>6} {m.seconds:>5.1f} {rate:>8.1f}   {'':>20}"
              f"{lat} {len(ms):>6} {m.pending:>5}   {cpu:18.2f}  {m.games_finished:>10}")
    print("\nseats per table (cycling through the levels):")
    widest: dict[str, Measure] = {}
    for m in rows:
        if m.tables > widest.setdefault(m.game, m).tables:
            widest[m.game] = m
    for m in widest.values():
        print(f"   {m.game:<12} " + "; ".join(" ".join(s[4:] for s in seats) for seats in m.seats))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="4 tables a game, 2 s warm-up, 6 s measured")
    parser.add_argument("--games", default=",".join(registry.names()), help="comma-separated")
    parser.add_argument("--tables", default=None, help="comma-separated table counts (default 1,8; quick 4)")
    parser.add_argument("--warmup", type=float, default=None, help="seconds not measured (default 5; quick 2)")
    parser.add_argument("--seconds", type=float, default=None, help="seconds measured (default 30; quick 6)")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    tables = [int(t) for t in (args.tables or ("4" if args.quick else "1,8")).split(",")]
    warmup = args.warmup if args.warmup is not None else (2.0 if args.quick else 5.0)
    seconds = args.seconds if args.seconds is not None else (6.0 if args.quick else 30.0)
    games = args.games.split(",")
    mode = "QUICK MODE" if args.quick else "full mode"
    print(f"{mode}: games {', '.join(games)}; tables {tables}; {warmup:.0f} s warm-up then {seconds:.0f} s "
          "measured per game and table count; one Celery worker (--concurrency 2), embedded Redis")
    began = time.monotonic()
    sup = Supervisor()
    rows: list[Measure] = []
    monitor: Monitor | None = None
    try:
        with tempfile.TemporaryDirectory(prefix="bench-bot-turns-") as tmp:
            server = EmbeddedRedis(sup, Path(tmp) / "redis").start()
            os.environ["REDIS_URL"] = server.url  # service_for() reads it
            r = redis.Redis.from_url(server.url)
            log = Path(tmp) / "worker.log"
            t = time.monotonic()
            pid = start_worker(sup, server.url, log)
            print(f"worker ready in {time.monotonic() - t:.1f} s (log: {log}, removed at the end)")
            monitor = Monitor(server.port)
            monitor.start()
            for game in games:
                for n in tables:
                    rows.append(run_game(game, n, warmup, seconds, monitor, r, pid))
                    m = rows[-1]
                    print(f"   {game}, {n} tables: {m.moves} bot moves in {m.seconds:.1f} s", file=sys.stderr,
                          flush=True)
            monitor.close()
            stopped = {gid for m in rows for gid in m.stopped}
            errors, cut_short = [], 0
            for line in log.read_text().splitlines():
                if ": ERROR/" in line or ": CRITICAL/" in line:  # one per record (its traceback follows)
                    ids = set(re.findall(r"'([0-9a-f]{16})'", line))
                    if ids & stopped:  # a turn or result in flight when its table was deleted
                        cut_short += 1
                    else:
                        errors.append(line)
            sup.stop()
    finally:
        if monitor is not None:
            monitor.close()
        sup.stop()
    report(rows)
    print(f"\nthe worker logged {len(errors)} error lines" + (f", the first: {errors[0]}" if errors else "")
          + f" (and {cut_short} about tasks in flight when their table was deleted at the end of a game)")
    read = monitor.bytes / 1e6 if monitor else 0
    print(f"\n(MONITOR read {read:.0f} MB; whole run {time.monotonic() - began:.0f} s)")


if __name__ == "__main__":
    main()
