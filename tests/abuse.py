"""An abusive client and a victim of the Ludix service, for the rate-limit test and for
``tests/bench/bench_abuse.py`` (``make bench``).

The abuser hammers from 8 threads with everything that used to get around the limiter: its own
seat token under respelled schemes (``bearer``, ``BEARER``, extra spaces), random bogus tokens,
malformed ``Authorization`` headers, game creation, and a spoofed ``X-Forwarded-For`` on every
request. The victim plays accepted moves in its own games, timing each one.

Every loop here is bounded in count and in time, and talks only to the loopback address it is given.
"""

from __future__ import annotations

import multiprocessing as mp
import secrets
import statistics
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import requests

PROBLEM = "application/problem+json"
KINDS = ("own-token", "bogus-token", "malformed", "create")


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_game(s: requests.Session, base: str, timeout: float = 30) -> tuple[str, list[str]]:
    """A started two-human Ludix game (target 1000, so it lasts) and both seats' tokens."""
    r = s.post(f"{base}/games", json={"seats": ["human", "human"], "options": {"target": 1000}}, timeout=timeout)
    assert r.status_code == 201, r.text
    gid, t0 = r.json()["game"]["id"], r.json()["token"]
    r = s.post(f"{base}/games/{gid}/players", json={}, timeout=timeout)
    assert r.status_code == 201, r.text
    t1 = r.json()["token"]
    r = s.post(f"{base}/games/{gid}/actions", json={"type": "alea_jacta_est"}, headers=auth(t0), timeout=timeout)
    assert r.status_code == 200, r.text
    return gid, [t0, t1]


@dataclass
class Victim:
    """Plays accepted moves in its own games (created up front), alternating their two seats."""

    base: str
    games: list[tuple[str, list[str]]]
    statuses: Counter[int] = field(default_factory=Counter)

    def moves(self, n: int, timeout: float = 30) -> list[float]:
        s = requests.Session()
        times: list[float] = []
        gid, tokens = self.games[0]
        state = s.get(f"{self.base}/games/{gid}", headers=auth(tokens[0]), timeout=timeout).json()
        while len(times) < n:
            if state["status"] == "finished":
                self.games.pop(0)
                assert self.games, "the victim ran out of games"
                gid, tokens = self.games[0]
                state = s.get(f"{self.base}/games/{gid}", headers=auth(tokens[0]), timeout=timeout).json()
                continue
            seat = state["to_act"][0]
            action = {"type": "hold"} if state["state"]["throw"] else {"type": "roll"}
            t0 = time.perf_counter()
            r = s.post(f"{self.base}/games/{gid}/actions", json=action, headers=auth(tokens[seat]), timeout=timeout)
            times.append(time.perf_counter() - t0)
            self.statuses[r.status_code] += 1
            if r.status_code != 200:
                state = s.get(f"{self.base}/games/{gid}", headers=auth(tokens[0]), timeout=timeout).json()
                continue
            state = r.json()["game"]
        return times



@dataclass
class Bystander:
    """A client beside an attack (tests/integration/test_hostile_load.py, test_door_bounds.py):
    views its Ludix game, moves and calls /readyz, each on a new connection (a new client's: one
    kept from before the attack would be served by its greenlet whatever the worker's pool
    holds), timing each answer; an answer that is not 200 or takes over ``liveness`` seconds is
    noted in ``bad``."""

    base: str
    liveness: float
    times: list[float] = field(default_factory=list)
    bad: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.s = requests.Session()
        self.game = new_game(self.s, self.base)

    def one_round(self) -> None:
        gid, tokens = self.game
        view = self.timed("GET", f"/games/{gid}", auth(tokens[0]))
        self.timed("GET", "/readyz", {})
        if view is None:
            return
        if view["status"] == "finished":
            self.game = new_game(self.s, self.base)
            return
        action = {"type": "hold"} if view["state"]["throw"] else {"type": "roll"}
        self.timed("POST", f"/games/{gid}/actions", auth(tokens[view["to_act"][0]]), action)

    def timed(self, method: str, path: str, headers: dict[str, str], body: Any = None) -> Any:
        t0 = time.perf_counter()
        try:
            r = self.s.request(method, self.base + path, json=body, headers={**headers, "Connection": "close"},
                               timeout=self.liveness * 2)
            status, doc = r.status_code, r.json()
        except (requests.RequestException, ValueError) as err:
            status, doc = 0, None
            self.bad.append(f"{method} {path}: {type(err).__name__}")
        took = time.perf_counter() - t0
        self.times.append(took)
        if status != 200 or took > self.liveness:
            self.bad.append(f"{method} {path}: {status} after {took:.1f} s")
        return doc if status == 200 else None

    def play_while(self, busy: Callable[[], bool], seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and busy():
            self.one_round()
            time.sleep(0.1)

    def figures(self) -> str:
        xs = sorted(self.times)
        return (f"victim: {len(xs)} answers, p50 {statistics.median(xs) * 1000:.0f} ms, "
                f"max {xs[-1] * 1000:.0f} ms, {len(self.bad)} late or failed")

@dataclass
class Abuser:
    """``threads`` threads hammering until stopped (or ``max_seconds``), counting (kind, status)."""

    base: str
    game: tuple[str, list[str]]
    threads: int = 8
    max_seconds: float = 60.0
    max_requests_per_thread: int = 20_000
    counts: Counter[tuple[str, int]] = field(default_factory=Counter)
    bad_429s: list[str] = field(default_factory=list)  # 429s that are not problem+json with Retry-After
    bogus_tokens: list[str] = field(default_factory=list)
    spoofed: list[str] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _workers: list[threading.Thread] = field(default_factory=list)
    sent: Any = None  # a multiprocessing.Value counting requests, when run in a process of its own

    def start(self) -> None:
        for i in range(self.threads):
            t = threading.Thread(target=self._run, args=(i,), daemon=True)
            t.start()
            self._workers.append(t)

    def stop(self) -> None:
        self._stop.set()
        for t in self._workers:
            t.join(timeout=60)

    def limited(self, kinds: tuple[str, ...] = KINDS) -> bool:
        with self._lock:
            return all(self.counts[(k, 429)] > 0 for k in kinds)

    def wait_limited(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self._stop.is_set():
            if self.limited():
                return True
            time.sleep(0.05)
        return self.limited()

    def total(self, status: int | None = None) -> int:
        with self._lock:
            return sum(n for (_, st), n in self.counts.items() if status is None or st == status)

    def _run(self, index: int) -> None:
        s = requests.Session()
        gid, tokens = self.game
        own = tokens[0]
        spellings = [f"Bearer {own}", f"bearer {own}", f"BEARER {own}", f"Bearer    {own}   ", f"bEaReR {own}"]
        malformed = ["Basic Zm9vOmJhcg==", "Bearer", "Token " + own, f"Bearer{own}", "Bearer \t"]
        deadline = time.monotonic() + self.max_seconds
        i = index
        sent = 0
        while not self._stop.is_set() and time.monotonic() < deadline and sent < self.max_requests_per_thread:
            kind = KINDS[i % len(KINDS)]
            spoof = f"203.0.113.{secrets.randbelow(254) + 1}"
            headers = {"X-Forwarded-For": spoof}
            try:
                if kind == "own-token":
                    headers["Authorization"] = spellings[i % len(spellings)]
                    r = s.post(f"{self.base}/games/{gid}/actions", json={"type": "roll"}, headers=headers, timeout=30)
                elif kind == "bogus-token":
                    bogus = secrets.token_urlsafe(32)
                    headers["Authorization"] = f"Bearer {bogus}"
                    with self._lock:
                        if len(self.bogus_tokens) < 2000:
                            self.bogus_tokens.append(bogus)
                    r = s.post(f"{self.base}/games/{gid}/actions", json={"type": "roll"}, headers=headers, timeout=30)
                elif kind == "malformed":
                    headers["Authorization"] = malformed[i % len(malformed)]
                    r = s.get(f"{self.base}/games/{gid}", headers=headers, timeout=30)
                else:
                    r = s.post(f"{self.base}/games", json={"seats": ["human", "human"]}, headers=headers, timeout=30)
            except requests.RequestException as err:
                with self._lock:
                    self.errors[type(err).__name__] += 1
                i += self.threads
                continue
            with self._lock:
                self.counts[(kind, r.status_code)] += 1
                if len(self.spoofed) < 2000:
                    self.spoofed.append(spoof)
                if r.status_code == 429 and not (
                        r.headers.get("Content-Type") == PROBLEM and r.headers.get("Retry-After", "").isdigit()
                        and int(r.headers["Retry-After"]) >= 1 and r.json().get("status") == 429):
                    self.bad_429s.append(f"{r.headers} {r.text[:200]}")
            sent += 1
            i += self.threads
            if self.sent is not None:
                with self.sent.get_lock():
                    self.sent.value += 1

    def summary(self) -> dict[str, dict[int, int]]:
        with self._lock:
            out: dict[str, dict[int, int]] = {k: {} for k in KINDS}
            for (kind, status), n in sorted(self.counts.items()):
                out[kind][status] = n
            return out


def _abuse_main(base: str, game: tuple[str, list[str]], threads: int, max_seconds: float, stop: Any,
                limited: Any, sent: Any, out: Any) -> None:
    abuser = Abuser(base, game, threads=threads, max_seconds=max_seconds, sent=sent)
    abuser.start()
    deadline = time.monotonic() + max_seconds
    while not stop.wait(0.05) and time.monotonic() < deadline:
        if not limited.is_set() and abuser.limited():
            limited.set()
    abuser.stop()
    out.put({"counts": list(abuser.counts.items()), "bad_429s": abuser.bad_429s[:20],
             "bogus_tokens": abuser.bogus_tokens, "errors": dict(abuser.errors)})


class AbuserProcess:
    """The abuser in a process of its own, so its threads never share the victim's interpreter
    (the victim's timings are then the server's, not the client's GIL)."""

    def __init__(self, base: str, game: tuple[str, list[str]], threads: int = 8, max_seconds: float = 90.0) -> None:
        ctx = mp.get_context("fork")
        self.threads = threads
        self._stop, self._limited, self._sent, self._out = ctx.Event(), ctx.Event(), ctx.Value("q", 0), ctx.Queue()
        self._proc = ctx.Process(target=_abuse_main, daemon=True,
                                 args=(base, game, threads, max_seconds, self._stop, self._limited, self._sent,
                                       self._out))
        self.result = Abuser(base, game, threads=threads)

    def start(self) -> None:
        self._proc.start()

    def wait_limited(self, timeout: float) -> bool:
        return bool(self._limited.wait(timeout))

    def sent(self) -> int:
        return int(self._sent.value)

    @property
    def pid(self) -> int:
        return int(self._proc.pid or 0)

    def stop(self) -> Abuser:
        self._stop.set()
        try:
            data = self._out.get(timeout=120)
        finally:
            self._proc.join(30)
            if self._proc.is_alive():
                self._proc.kill()
        self.result.counts.update(dict(data["counts"]))
        self.result.bad_429s.extend(data["bad_429s"])
        self.result.bogus_tokens.extend(data["bogus_tokens"])
        self.result.errors.update(data["errors"])
        return self.result


def p50(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def percentile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def ms(x: float) -> str:
    return f"{x * 1000:.2f}"


def describe(abuser: Abuser) -> str:
    parts = []
    for kind, statuses in abuser.summary().items():
        parts.append(f"{kind}: " + ", ".join(f"{st} x{n}" for st, n in statuses.items()))
    return "; ".join(parts)


def games_needed(moves: int) -> int:
    """Games the victim creates up front for ``moves`` moves a phase (a game to 1000 lasts about
    100 moves, rarely under 50; during the abuse, creation from the victim's address is limited too)."""
    return 2 + (20 + 2 * moves) // 50


def run_scenario(base: str, victim_moves: int, abuse_wait: float = 30.0, threads: int = 8, rounds: int = 1,
                 probe: Callable[[int], Any] | None = None) -> dict[str, Any]:
    """The victim's moves quiet, then as many while the abuser (limited first) hammers, in one run;
    in ``rounds`` alternations (so that the machine's other load weighs on both alike).
    ``probe(abuser_pid)`` (optional) is called as each abused phase starts and ends."""
    s = requests.Session()
    victim = Victim(base, [new_game(s, base) for _ in range(games_needed(victim_moves))])
    abuser_game = new_game(s, base)
    victim.moves(min(20, victim_moves))  # warm-up: connections, caches
    quiet: list[float] = []
    loud: list[float] = []
    abuser = Abuser(base, abuser_game, threads=threads)
    limited, seconds, during = True, 0.0, 0
    probes: list[tuple[Any, Any]] = []
    for r in range(rounds):
        n = victim_moves // rounds + (1 if r < victim_moves % rounds else 0)
        quiet += victim.moves(n)
        process = AbuserProcess(base, abuser_game, threads=threads, max_seconds=abuse_wait + 60)
        process.start()
        try:
            limited = process.wait_limited(abuse_wait) and limited
            first = probe(process.pid) if probe else None
            before = process.sent()
            t0 = time.perf_counter()
            loud += victim.moves(n)
            seconds += time.perf_counter() - t0
            during += process.sent() - before
            if probe:
                probes.append((first, probe(process.pid)))
        finally:
            got = process.stop()
        abuser.counts.update(got.counts)
        abuser.bad_429s.extend(got.bad_429s)
        abuser.bogus_tokens.extend(got.bogus_tokens)
        abuser.errors.update(got.errors)
    return {"victim": victim, "abuser": abuser, "quiet": quiet, "loud": loud, "limited": limited,
            "abuse_rate": during / seconds if seconds > 0 else 0.0, "seconds": seconds, "probes": probes}


@dataclass
class SocketCrowd:
    """Many raw connections, each from one of ``sources`` (loopback accepts any 127/8 source:
    bind before connect), sending ``head`` and then, when ``drip`` is given, one byte of it every
    ``every`` seconds (a slow body). One thread, non-blocking sockets: thousands are cheap.

    Each connection's answer is its status line (None: no answer yet) and whether it carried
    ``Retry-After``; ``hung()`` counts the ones still open without any answer."""

    host: str
    port: int
    sources: list[str]
    n: int
    head: bytes
    drip: bytes = b""
    every: float = 3.0
    statuses: list[int | None] = field(default_factory=list)
    retry_after: list[bool] = field(default_factory=list)
    closed: list[bool] = field(default_factory=list)
    connected: int = 0
    unanswered: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=60)

    def counts(self) -> Counter[int | None]:
        return Counter(self.statuses)

    def hung(self) -> int:
        """Connections open without an answer (when stopped: at the moment it stopped)."""
        if self._stop.is_set():
            return self.unanswered
        return sum(1 for st, c in zip(self.statuses, self.closed, strict=True) if st is None and not c)

    def _run(self) -> None:
        import errno
        import selectors
        import socket

        sel = selectors.DefaultSelector()
        socks: list[socket.socket | None] = []
        bufs: list[bytes] = []
        sent_drip: list[int] = []
        self.statuses = [None] * self.n
        self.retry_after = [False] * self.n
        self.closed = [False] * self.n

        def close(i: int) -> None:
            s = socks[i]
            if s is not None:
                with _suppress():
                    sel.unregister(s)
                s.close()
                socks[i] = None
            self.closed[i] = True

        for i in range(self.n):
            if self._stop.is_set():
                break
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                s.bind((self.sources[i % len(self.sources)], 0))
                s.setblocking(False)
                rc = s.connect_ex((self.host, self.port))
            except OSError as err:
                self.errors[type(err).__name__] += 1
                s.close()
                socks.append(None)
                bufs.append(b"")
                sent_drip.append(0)
                self.closed[i] = True
                continue
            if rc not in (0, errno.EINPROGRESS):
                self.errors[errno.errorcode.get(rc, str(rc))] += 1
            socks.append(s)
            bufs.append(b"")
            sent_drip.append(-1)  # -1: the head is not sent yet
            sel.register(s, selectors.EVENT_WRITE | selectors.EVENT_READ, i)
        next_drip = time.monotonic() + self.every
        while not self._stop.is_set():
            for key, events in sel.select(timeout=0.2):
                i = key.data
                s = socks[i]
                if s is None:
                    continue
                if events & selectors.EVENT_WRITE and sent_drip[i] < 0:
                    try:
                        s.send(self.head)
                        sent_drip[i] = 0
                        self.connected += 1
                        sel.modify(s, selectors.EVENT_READ, i)
                    except OSError as err:
                        self.errors[type(err).__name__] += 1
                        close(i)
                    continue
                if events & selectors.EVENT_READ:
                    try:
                        data = s.recv(65536)
                    except OSError as err:
                        self.errors[type(err).__name__] += 1
                        close(i)
                        continue
                    if not data:
                        close(i)
                        continue
                    if self.statuses[i] is None:
                        bufs[i] += data
                        if b"\r\n\r\n" in bufs[i]:
                            head = bufs[i].split(b"\r\n\r\n", 1)[0].decode("latin-1").lower()
                            self.statuses[i] = int(head.split(" ", 2)[1])
                            self.retry_after[i] = "\r\nretry-after:" in head
                            bufs[i] = b""
            if self.drip and time.monotonic() >= next_drip:
                next_drip = time.monotonic() + self.every
                for i, dripping in enumerate(socks):
                    if dripping is not None and self.statuses[i] is None and 0 <= sent_drip[i] < len(self.drip):
                        try:
                            dripping.send(self.drip[sent_drip[i]:sent_drip[i] + 1])
                            sent_drip[i] += 1
                        except OSError:
                            close(i)
        self.unanswered = sum(1 for i, st in enumerate(self.statuses) if st is None and not self.closed[i])
        for i in range(len(socks)):
            close(i)
        sel.close()


def _suppress() -> Any:
    import contextlib

    return contextlib.suppress(KeyError, ValueError, OSError)
