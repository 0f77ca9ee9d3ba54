"""Benchmark: the time of a move and of a view, straight to the Ludix service and through the
gateway, without and then with 200 idle long-polls open, measured in one run on the real stack
(embedded Redis, the services and the gateway under gunicorn as deploy/gunicorn.conf.py runs them).

    python tests/bench/bench_api.py [--moves 400] [--longpolls 200] [--worker-class gevent,gthread]

One client, keep-alive connections, alternating two human seats so every request is a real,
accepted move. Prints, per path and phase, the move p50/p90 and the view p50/p90 in ms, the
server CPU per move (every process of the service, the gateway and Redis, divided by the moves
and views of the phase), then the move p50 with the long-polls against the quiet one (goal:
within 20%) and the gateway's added cost. The long-polls are anonymous spectators of idle Ludix
tables (``wait=30``, sent again when one returns), 3/4 through the gateway and 1/4 straight to
the service, held by one client thread (tests/longpolls.py). A request that takes more than
``--request-timeout`` seconds counts as a timeout; a phase stops after ``--phase-seconds``.

``--worker-class gevent,gthread`` measures several gunicorn worker classes side by side (one stack
each over one Redis, their rounds interleaved; ``gthread:256`` = gthread with 256 threads a worker);
the default is the configured one.

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
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import requests
from ludoteca.devstack import Supervisor, embedded_redis, free_port, start_gateway, start_service

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from longpolls import CrowdReport, LongPollCrowd  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def percentile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def group_cpu(pgids: set[int]) -> float:
    """CPU seconds (user + system) used so far by every live process in these process groups."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) in pgids:  # fields[2] is the process group (the 5th field of stat)
            total += int(fields[11]) + int(fields[12])
    return total / TICK


def group_rss_mb(pgids: set[int]) -> float:
    """Resident memory (MB) of every live process in these process groups."""
    pages = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                pgrp = int(f.read().rsplit(")", 1)[1].split()[2])
            if pgrp in pgids:
                with open(f"/proc/{entry}/statm") as f:
                    pages += int(f.read().split()[1])
        except (OSError, ValueError, IndexError):
            continue
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


@dataclass
class Sample:
    moves: list[float] = field(default_factory=list)
    views: list[float] = field(default_factory=list)
    timeouts: int = 0
    errors: int = 0
    move_cpu: float = 0.0
    view_cpu: float = 0.0

    def extend(self, other: Sample) -> None:
        self.moves += other.moves
        self.views += other.views
        self.timeouts += other.timeouts
        self.errors += other.errors
        self.move_cpu += other.move_cpu
        self.view_cpu += other.view_cpu


class Player:
    """One keep-alive client playing Ludix tables with both seats (every move accepted)."""

    def __init__(self, base: str, timeout: float) -> None:
        self.base, self.timeout = base, timeout
        self.s = requests.Session()
        self.gid = ""
        self.tokens: list[str] = []
        self.state: dict = {}

    def new_game(self) -> None:
        base, t = self.base, self.timeout
        r = self.s.post(f"{base}/games", json={"seats": ["human", "human"], "options": {"target": 1000}}, timeout=t)
        self.gid, t0 = r.json()["game"]["id"], r.json()["token"]
        t1 = self.s.post(f"{base}/games/{self.gid}/players", json={}, timeout=t).json()["token"]
        self.s.post(f"{base}/games/{self.gid}/actions", json={"type": "alea_jacta_est"},
                    headers={"Authorization": f"Bearer {t0}"}, timeout=t)
        self.tokens = [t0, t1]
        self.refresh()

    def refresh(self) -> None:
        self.state = self.s.get(f"{self.base}/games/{self.gid}", timeout=self.timeout).json()

    def moves(self, n: int, deadline: float, out: Sample) -> None:
        """Up to n accepted moves (roll, then hold when a throw is pending), timed."""
        done = 0
        while done < n and time.monotonic() < deadline:
            try:
                if not self.gid or self.state.get("status") == "finished":
                    self.new_game()
                if not self.state.get("to_act"):
                    print(f"unexpected answer: {str(self.state)[:300]}", file=sys.stderr)
                    out.errors += 1
                    self.gid = ""
                    continue
                seat = self.state["to_act"][0]
                action = {"type": "hold"} if self.state["state"]["throw"] else {"type": "roll"}
                auth = {"Authorization": f"Bearer {self.tokens[seat]}"}
                t0 = time.perf_counter()
                r = self.s.post(f"{self.base}/games/{self.gid}/actions", json=action, headers=auth,
                                timeout=self.timeout)
                out.moves.append(time.perf_counter() - t0)
                done += 1
                if r.status_code == 200:
                    self.state = r.json()["game"]
                else:
                    out.errors += 1
                    self.refresh()
            except requests.RequestException:
                out.timeouts += 1
                self.s = requests.Session()
                done += 1
                with contextlib.suppress(requests.RequestException):
                    self.refresh()

    def views(self, n: int, deadline: float, out: Sample) -> None:
        """n views of the current table by the seat to act, timed."""
        for _ in range(n):
            if time.monotonic() >= deadline or not self.gid:
                return
            seat = (self.state.get("to_act") or [0])[0]
            t0 = time.perf_counter()
            try:
                v = self.s.get(f"{self.base}/games/{self.gid}",
                               headers={"Authorization": f"Bearer {self.tokens[seat]}"}, timeout=self.timeout)
            except requests.RequestException:
                out.timeouts += 1
                self.s = requests.Session()
                continue
            out.views.append(time.perf_counter() - t0)
            if v.status_code != 200:
                out.errors += 1


def measure_round(players: dict[str, Player], moves: int, seconds: float, pgids: set[int],
                  results: dict[str, Sample]) -> None:
    """One round of moves then views on each path; the server CPU of each batch is read from
    /proc before and after it."""
    deadline = time.monotonic() + seconds
    for name, player in players.items():
        out = results[name]
        cpu0 = group_cpu(pgids)
        player.moves(moves, deadline, out)
        cpu1 = group_cpu(pgids)
        player.views(moves, deadline, out)
        out.move_cpu += cpu1 - cpu0
        out.view_cpu += group_cpu(pgids) - cpu1


def idle_tables(base: str, count: int) -> list[tuple[str, int]]:
    """``count`` Ludix tables waiting for a second player: (game id, last_seq)."""
    s = requests.Session()
    out = []
    for _ in range(count):
        gid = s.post(f"{base}/games", json={"seats": ["human", "human"]}, timeout=60).json()["game"]["id"]
        last = s.get(f"{base}/games/{gid}/events", timeout=60).json()["last_seq"]
        out.append((gid, last))
    return out


def open_crowd(direct: str, via: str, count: int) -> tuple[LongPollCrowd, list[str]]:
    """``count`` anonymous long-polls (wait=30) on 20 fresh idle tables, 3/4 through the gateway."""
    tables = idle_tables(direct, 20)
    urls = []
    for i in range(count):
        gid, last = tables[i % len(tables)]
        base = direct if i % 4 == 3 else via
        urls.append((f"{base}/games/{gid}/events", last))
    crowd = LongPollCrowd(urls, wait=30, reissue=False)
    crowd.start()
    return crowd, [gid for gid, _ in tables]


def wake(direct: str, gids: list[str]) -> None:
    """A second player joins each table: every long-poll on it returns at once with that event."""
    s = requests.Session()
    for gid in gids:
        with contextlib.suppress(requests.RequestException):
            s.post(f"{direct}/games/{gid}/players", json={}, timeout=60)


def wait_until(predicate: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def settle(pgids: set[int], timeout: float = 15.0) -> None:
    """Wait until the servers are idle again (under 5% of a core over 0.3 s)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        c0 = group_cpu(pgids)
        time.sleep(0.3)
        if group_cpu(pgids) - c0 < 0.015:
            return


def ms(x: float) -> str:
    return f"{x * 1000:.2f}"


@dataclass
class Stack:
    """One Ludix service and a gateway in front of it, under one gunicorn worker class."""

    worker_class: str
    direct: str
    via: str
    pgids: set[int]
    players: dict[str, Player]
    quiet: dict[str, Sample] = field(default_factory=dict)
    loaded: dict[str, Sample] = field(default_factory=dict)
    opened: list[int] = field(default_factory=list)
    answers: CrowdReport = field(default_factory=CrowdReport)
    rss_quiet: list[float] = field(default_factory=list)
    rss_loaded: list[float] = field(default_factory=list)


def start_stack(sup: Supervisor, worker_class: str, redis_url: str, redis_pgid: int, logs: Path,
                args: argparse.Namespace) -> Stack:
    choice, _, threads = worker_class.partition(":")
    os.environ["GUNICORN_WORKER_CLASS"] = choice  # read by deploy/gunicorn.conf.py at start
    if threads:
        os.environ["GUNICORN_THREADS"] = threads
    else:
        os.environ.pop("GUNICORN_THREADS", None)
    before = set(sup.procs)
    svc, gw = free_port(), free_port()
    tag = worker_class.replace(":", "-")
    start_service(sup, "ludix", svc, redis_url, ROOT, logs / f"svc-{tag}.log")
    sup.procs[f"ludix-{tag}"] = sup.procs.pop("ludix")
    start_gateway(sup, gw, {"ludix": f"http://127.0.0.1:{svc}"}, ROOT, logs / f"gw-{tag}.log")
    sup.procs[f"gateway-{tag}"] = sup.procs.pop("gateway")
    pgids = {p.pid for name, p in sup.procs.items() if name not in before} | {redis_pgid}
    direct, via = f"http://127.0.0.1:{svc}", f"http://127.0.0.1:{gw}/ludix"
    players = {"direct": Player(direct, args.request_timeout), "gateway": Player(via, args.request_timeout)}
    for player in players.values():  # warm-up both paths
        player.moves(100, time.monotonic() + 30, Sample())
    return Stack(worker_class, direct, via, pgids, players, {n: Sample() for n in players},
                 {n: Sample() for n in players})


def stack_round(st: Stack, args: argparse.Namespace) -> None:
    """A quiet round, then a round with the long-polls open (opened on fresh idle tables, woken
    and closed at its end), on both paths of one stack."""
    per_round, budget = args.moves // args.rounds, args.phase_seconds / args.rounds
    measure_round(st.players, per_round, budget, st.pgids, st.quiet)
    st.rss_quiet.append(group_rss_mb(st.pgids))
    crowd, gids = open_crowd(st.direct, st.via, args.longpolls)
    if not wait_until(lambda: crowd.open_count() == args.longpolls, 10):
        print("[bench] not every long-poll was sent", file=sys.stderr)
    settle(st.pgids)  # they reach the service and block there: ~1 s of CPU for 200, not counted
    measure_round(st.players, per_round, budget, st.pgids, st.loaded)
    st.opened.append(crowd.open_count())
    st.rss_loaded.append(group_rss_mb(st.pgids))
    wake(st.direct, gids)
    report = crowd.stop(timeout=40)
    for status, n in report.statuses.items():
        st.answers.statuses[status] = st.answers.statuses.get(status, 0) + n
    st.answers.errors += report.errors


def run(args: argparse.Namespace) -> list[Stack]:
    """Every worker class's stack at once, over one Redis; their rounds interleave, so the noise
    of a shared machine hits each alike."""
    os.environ.setdefault("LUDOTECA_RATE_LIMIT", "0")  # one client address makes every request here
    sup = Supervisor()
    try:
        with tempfile.TemporaryDirectory() as tmpdir, embedded_redis(sup, Path(tmpdir) / "redis") as redis_url:
            logs = args.logs or Path(tmpdir)
            redis_pgid = next(iter(sup.procs.values())).pid
            stacks = [start_stack(sup, wc, redis_url, redis_pgid, logs, args) for wc in args.worker_class.split(",")]
            for r in range(args.rounds):
                for st in stacks if r % 2 == 0 else stacks[::-1]:  # no stack always goes first
                    stack_round(st, args)
            return stacks
    finally:
        sup.stop()


def print_table(st: Stack, longpolls: int) -> None:
    worker_class = st.worker_class
    phases = {"quiet": st.quiet, f"{longpolls} long-polls": st.loaded}
    print(f"\n[{worker_class}] long-polls still open at the end of each loaded round: {st.opened}; "
          f"their answers {dict(st.answers.statuses)}" + (f"; errors {st.answers.errors[:3]}" if st.answers.errors
                                                          else ""))
    print(f"[{worker_class}] server memory (RSS of service, gateway and Redis): "
          f"{statistics.median(st.rss_quiet):.0f} MB quiet, {statistics.median(st.rss_loaded):.0f} MB with "
          f"the long-polls open")
    print(f"Ludix API, worker class {worker_class}, one keep-alive client (ms; CPU = server CPU ms a "
          f"request: service, gateway and Redis processes)")
    print(f"{'phase':16} {'path':8} {'moves':>6} {'move p50':>9} {'move p90':>9} {'move max':>9} {'CPU/move':>9} "
          f"{'view p50':>9} {'view p90':>9} {'CPU/view':>9} {'timeouts':>8}")
    for phase, results in phases.items():
        for name, s in results.items():
            print(f"{phase:16} {name:8} {len(s.moves):6d} {ms(statistics.median(s.moves) if s.moves else 0):>9} "
                  f"{ms(percentile(s.moves, 0.9)):>9} {ms(max(s.moves, default=0)):>9} "
                  f"{s.move_cpu * 1000 / max(1, len(s.moves)):9.2f} "
                  f"{ms(statistics.median(s.views) if s.views else 0):>9} {ms(percentile(s.views, 0.9)):>9} "
                  f"{s.view_cpu * 1000 / max(1, len(s.views)):9.2f} {s.timeouts:8d}")
    quiet, loaded = list(phases.values())
    for name in quiet:
        if quiet[name].moves and loaded[name].moves:
            q, m = statistics.median(quiet[name].moves), statistics.median(loaded[name].moves)
            verdict = "within 20%" if m <= 1.2 * q else "NOT within 20%"
            print(f"{name}: move p50 {ms(q)} ms quiet, {ms(m)} ms with the long-polls open "
                  f"(ratio {m / q:.2f}, {verdict})")
        else:
            print(f"{name}: no move completed in one phase (timeouts: quiet {quiet[name].timeouts}, "
                  f"loaded {loaded[name].timeouts})")
    d, g = quiet["direct"], quiet["gateway"]
    if d.moves and g.moves and d.views and g.views:
        dm, gm = statistics.median(d.moves), statistics.median(g.moves)
        dv, gv = statistics.median(d.views), statistics.median(g.views)
        print(f"gateway adds {ms(gm - dm)} ms per move (ratio {gm / dm:.2f}) and {ms(gv - dv)} ms per view "
              f"(ratio {gv / dv:.2f}), quiet medians")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--moves", type=int, default=400, help="moves per path and phase")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--longpolls", type=int, default=200)
    parser.add_argument("--phase-seconds", type=float, default=40.0, help="time budget of each phase")
    parser.add_argument("--request-timeout", type=float, default=5.0)
    parser.add_argument("--logs", type=Path, help="keep the servers' logs in this directory")
    parser.add_argument("--worker-class", default=os.environ.get("GUNICORN_WORKER_CLASS", "gevent"),
                        help="comma-separated, measured side by side: gevent, gthread, gthread:<threads>")
    args = parser.parse_args()
    for st in run(args):
        print_table(st, args.longpolls)


if __name__ == "__main__":
    main()
