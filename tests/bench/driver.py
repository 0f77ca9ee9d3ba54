"""The load driver of ``make bench``: a lean HTTP/1.1 keep-alive client over asyncio streams, one
connection per table, all tables in one event loop, and the game shapes it plays.

Why this client: it costs the least CPU per request of the candidates measured against the null
endpoint (``python tests/bench/driver.py --compare``: 20 keep-alive connections, 2,000 POSTs of
a small JSON body, the null endpoint under gunicorn (2 gevent workers) over embedded Redis, 3
rounds interleaved, medians; one run on this 2-core machine shared with other sessions, load
average 4.7-6.4; driver CPU = the driver process's user + system time divided by its requests):

    candidate                                       driver CPU ms/request   requests/s
    asyncio streams, this module (one thread)              0.28                 269
    requests.Session, 20 threads                           1.67                 202
    locust FastHttpSession (geventhttpclient),
      20 greenlets, in a process of its own                0.56                 302

(a first run at load 4.9 gave asyncio 0.24 and requests 1.45 ms/request). The throughput column
is what the loaded machine gave each; the driver shares the 2 cores with the servers, so the
cheaper the driver, the less it takes from what is measured. locust's runner (its stats and
events, on top of this session) was not measured.

The client keeps each connection open (HTTP/1.1 keep-alive), sends a request, reads the status
line, the headers and a ``Content-Length`` or chunked body, and counts the bytes both ways. No
pipelining: one request in flight per connection, as a player's app would.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ludoteca.service_layer import registry

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: its reader of event streams
from sse import Decoder, Message, request_bytes


class HttpError(Exception):
    pass


@dataclass
class Counters:
    """What one phase of one system did (latencies in seconds)."""

    moves: list[float] = field(default_factory=list)
    requests: int = 0
    setup_requests: int = 0
    errors: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    bytes_sent: int = 0
    bytes_received: int = 0
    games_finished: int = 0


class Connection:
    """One keep-alive HTTP/1.1 connection to ``host:port``."""

    def __init__(self, base: str, counters: Counters) -> None:
        parts = urlsplit(base)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.prefix = parts.path.rstrip("/")
        self.hostheader = f"{self.host}:{self.port}".encode()
        self.c = counters
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def _open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.reader = self.writer = None

    async def request(self, method: str, path: str, body: Any = None, token: str | None = None,
                      timeout: float = 10.0) -> tuple[int, Any]:
        """One request; returns (status, parsed JSON body or None). Reconnects once when the
        server had closed the idle connection."""
        payload = b"" if body is None else json.dumps(body, separators=(",", ":")).encode()
        head = [f"{method} {self.prefix}{path} HTTP/1.1".encode(), b"Host: " + self.hostheader]
        if token:
            head.append(b"Authorization: Bearer " + token.encode())
        if body is not None:
            head.append(b"Content-Type: application/json")
            head.append(b"Content-Length: " + str(len(payload)).encode())
        raw = b"\r\n".join(head) + b"\r\n\r\n" + payload
        for attempt in (0, 1):
            if self.writer is None:
                await self._open()
            assert self.reader is not None and self.writer is not None
            try:
                self.writer.write(raw)
                status, data = await asyncio.wait_for(self._response(self.reader), timeout)
            except (ConnectionError, asyncio.IncompleteReadError) as err:
                self.close()
                if attempt:
                    raise HttpError(str(err)) from err
                continue
            except TimeoutError as err:
                self.close()
                raise HttpError("timeout") from err
            self.c.requests += 1
            self.c.bytes_sent += len(raw)
            self.c.bytes_received += len(data)
            self.c.statuses[status] = self.c.statuses.get(status, 0) + 1
            return status, (json.loads(data) if data else None)
        raise HttpError("unreachable")

    async def _response(self, reader: asyncio.StreamReader) -> tuple[int, bytes]:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        status = int(lines[0].split(b" ", 2)[1])
        length, chunked, close = None, False, False
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"transfer-encoding" and b"chunked" in value.lower():
                chunked = True
            elif name == b"connection" and b"close" in value.lower():
                close = True
        if chunked:
            parts = []
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                chunk = await reader.readexactly(size + 2)
                if size == 0:
                    break
                parts.append(chunk[:-2])
            data = b"".join(parts)
        elif length is not None:
            data = await reader.readexactly(length) if length else b""
        elif status in (204, 304):
            data = b""
        else:
            data = await reader.read()
            close = True
        if close:
            self.close()
        return status, data


class TurnStream:
    """A seat's event stream with ``turns=true`` (``GET .../stream?turns=true``) on a connection
    of its own, read by a task: the listings its ``turn`` messages bring, by version, so the seat
    plays without a listing request (a table played ``turns``); without ``turns``, the stream a
    client holds to follow the game, its listings by request (a table played ``stream``).
    Reopened where it was (after the last event's id) when the server closes it; over at the
    game's ``end``."""

    def __init__(self, base: str, gid: str, token: str, counters: Counters, turns: bool = True) -> None:
        self.url = f"{base.rstrip('/')}/games/{gid}/stream" + ("?turns=true" if turns else "")
        self.token = token
        self.c = counters
        self.turns: dict[int, dict[str, Any]] = {}
        self.arrived = asyncio.Event()
        self.last_id: str | None = None
        self.over = False
        self.task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        """Each connection's answer read by the tests' reader of streams (``sse.Decoder``: the
        status line, the chunked body, the messages)."""
        while not self.over:
            headers = {"Authorization": f"Bearer {self.token}"}
            if self.last_id is not None:
                headers["Last-Event-ID"] = self.last_id
            (host, port), request = request_bytes(self.url, headers)
            try:
                reader, writer = await asyncio.open_connection(host, port)
            except OSError:  # refused (a service shedding load): try again, as a client would
                self.c.errors += 1
                await asyncio.sleep(0.05)
                continue
            http, handled = Decoder(), 0
            try:
                writer.write(request)
                self.c.requests += 1
                self.c.setup_requests += 1
                while not (self.over or http.ended):
                    chunk = await reader.read(65536)
                    if not chunk:
                        break
                    self.c.bytes_received += len(chunk)
                    http.feed(chunk)
                    if http.status and http.status != 200:  # 204: the game is over and was read to its end
                        self.over = True
                    for m in http.messages[handled:]:
                        self._message(m)
                    handled = len(http.messages)
            except ConnectionError:
                await asyncio.sleep(0.05)
            finally:
                writer.close()

    def _message(self, m: Message) -> None:
        if m.id is not None:
            self.last_id = m.id
        if m.event == "turn":
            self.turns[m.data["next"]["version"]] = m.data  # the seat's game and its listing
            self.arrived.set()
        elif m.event == "end":
            self.over = True

    async def turn(self, version: int, timeout: float = 10.0) -> dict[str, Any]:
        """The turn of ``version`` (``game``: the seat's view, ``next``: its listing), once its
        ``turn`` message has come (older ones dropped)."""
        deadline = time.monotonic() + timeout
        while version not in self.turns:
            self.arrived.clear()
            left = deadline - time.monotonic()
            if left <= 0 or self.over:
                raise HttpError(f"no turn message for version {version}")
            try:
                await asyncio.wait_for(self.arrived.wait(), left)
            except TimeoutError:
                continue
        turn = self.turns.pop(version)
        for v in [v for v in self.turns if v < version]:
            del self.turns[v]
        return turn

    def close(self) -> None:
        self.over = True
        self.task.cancel()


# ---- the shapes: one table, one game, every seat's token, one connection ----

@dataclass
class Shape:
    game: str
    seats: int
    options: dict[str, Any]
    describe: str
    hold_at: int | None = None
    """The hold-at policy's threshold, for a game whose moves are roll and hold; None: a listed
    action at random."""


HOLD_AT = 20
"""The hold-at policy (a push-your-luck game's: its actions are ``roll`` and ``hold``, Pig's and
Ludix's): roll, and hold once the turn total reaches this (with a pending throw's best numeral,
Ludix's), as the peer's driver does (tests/bench/peer)."""
PUSH_YOUR_LUCK = frozenset({"roll", "hold"})


def shape(game: str) -> Shape:
    """The registered game's shape: its fewest seats, all human, its ``bench_options`` (TestFacts); the hold-at
    policy for a push-your-luck game, else a listed action at random."""
    definition = registry.game(game)
    seats = definition.engine.min_seats
    options = dict(definition.tests.bench_options)
    said = f"options {options}" if options else "default options"
    if set(definition.action_schemas) >= PUSH_YOUR_LUCK:
        return Shape(game, seats, options, f"{seats} human seats, {said}; roll, hold once the turn total (with a "
                     f"pending throw's best numeral) reaches {HOLD_AT} (hold-at-{HOLD_AT}, as the peer's driver: "
                     "tests/bench/peer), decided from the POST response's game.state; 1 POST a move (the moves "
                     "before the first roll, Ludix's call, played at random in the setup)", hold_at=HOLD_AT)
    return Shape(game, seats, options, f"{seats} human seats, {said}; the seat to act (from the POST response's "
                 "to_act) takes its listing from the POST response's next when it moved last, else GET .../actions; "
                 "POST a listed action at random; when only templates are listed (Ludic's Vexer writes a rule), the "
                 "game's random bot fills one in from the seat's view (the POST response's game when it moved last, "
                 "else GET)")


def hold_at_choice(state: dict[str, Any], hold_at: int) -> dict[str, Any]:
    """The hold-at policy's move from a push-your-luck game's state (its view): hold once the turn
    total, with a pending throw's best numeral (Ludix's), reaches ``hold_at``, else roll."""
    pending = state.get("throw") or {}
    best = max((n["value"] for n in pending.get("numerals") or []), default=0)
    return {"type": "hold"} if state["turn_total"] + best >= hold_at else {"type": "roll"}


SHAPES = {**{game: shape(game) for game in registry.names()},
          "null": Shape("null", 0, {}, "POST /null/<id> {\"n\": i}: one request a 'move'")}
"""Every registered game's shape, and the null endpoint's."""


class Table:
    """One table of one game played by one client over one keep-alive connection."""

    def __init__(self, base: str, shape: Shape, rnd: random.Random, counters: Counters, turns: bool = False,
                 streams: bool = False) -> None:
        self.conn = Connection(base, counters)
        self.conn_base = base
        self.shape, self.rnd, self.c = shape, rnd, counters
        self.turns = turns  # each seat holds its stream with turns=true: no listing request
        self.follow = streams or turns  # each seat holds its event stream
        self.streams: list[TurnStream] = []
        self.gid = ""
        self.tokens: list[str] = []
        self.game: dict[str, Any] = {}
        self.next: dict[str, Any] | None = None  # the last move's `next`: its mover's listing
        self.n = 0

    def use(self, counters: Counters) -> None:
        self.c = self.conn.c = counters
        for s in self.streams:
            s.c = counters

    async def new_game(self) -> None:
        before = self.c.requests
        if self.shape.game == "null":
            self.gid = f"{self.rnd.getrandbits(64):016x}"
            return
        status, body = await self.conn.request("POST", "/games", {"seats": ["human"] * self.shape.seats,
                                                                 "options": self.shape.options})
        if status != 201:
            raise HttpError(f"create: {status} {str(body)[:200]}")
        self.gid, self.tokens = body["game"]["id"], [body["token"]]
        for _ in range(self.shape.seats - 1):
            status, body = await self.conn.request("POST", f"/games/{self.gid}/players", {})
            self.tokens.append(body["token"])
        self.game, self.next = body["game"], None
        if self.follow:
            for s in self.streams:
                s.close()
            self.streams = [TurnStream(self.conn_base, self.gid, t, self.c, self.turns) for t in self.tokens]
        if self.shape.hold_at is not None:  # the moves before the first roll (Ludix's call), at random
            for _ in range(10):
                seat = self.game["to_act"][0]
                _, listed = await self.conn.request("GET", f"/games/{self.gid}/actions", token=self.tokens[seat])
                if any(a["type"] == "roll" for a in listed["actions"]):
                    break
                _, body = await self.conn.request("POST", f"/games/{self.gid}/actions",
                                                  self.rnd.choice(listed["actions"]), self.tokens[seat])
                self.game = body["game"]
        self.c.setup_requests += self.c.requests - before

    async def move(self) -> None:
        """One accepted move (or, for the null, one request), timed from its first request."""
        if not self.gid or (self.shape.game != "null" and self.game.get("status") == "finished"):
            if self.gid:
                self.c.games_finished += 1
            await self.new_game()
        t0 = time.perf_counter()
        if self.shape.game == "null":
            self.n += 1
            status, body = await self.conn.request("POST", f"/null/{self.gid}", {"n": self.n})
        else:
            seat = self.game["to_act"][0]
            action = await self.choose(seat)
            status, body = await self.conn.request("POST", f"/games/{self.gid}/actions", action, self.tokens[seat])
        if status != 200:
            self.c.errors += 1
            if self.shape.game != "null":
                _, self.game = await self.conn.request("GET", f"/games/{self.gid}")
                self.next = None
            return
        self.c.moves.append(time.perf_counter() - t0)
        if self.shape.game != "null":
            self.game, self.next = body["game"], body.get("next")

    async def choose(self, seat: int) -> dict[str, Any]:
        if self.shape.hold_at is not None:
            return hold_at_choice(self.game["state"], self.shape.hold_at)
        # one request a move: the seat that moved last and acts again has its listing (and its
        # view) in that move's answer; another seat lists its own
        listed, view = self.next, self.game
        if listed is None or listed["seat"] != seat or listed["version"] != self.game["version"]:
            if self.turns:  # the seat's stream brings both
                turn = await self.streams[seat].turn(self.game["version"])
                listed, view = turn["next"], turn["game"]
            else:
                _, listed = await self.conn.request("GET", f"/games/{self.gid}/actions", token=self.tokens[seat])
                view = {}
        if listed["actions"]:
            action: dict[str, Any] = self.rnd.choice(listed["actions"])
            return action
        # nothing listed, only templates (Ludic's Vexer writes a rule that must fit the initial
        # sets): the game's own random bot fills one in from that seat's view
        if view.get("you") != seat:
            _, view = await self.conn.request("GET", f"/games/{self.gid}", token=self.tokens[seat])
        definition = registry.game(self.shape.game)
        bot = definition.bots.get("random") or definition.bots[definition.playing_level()]
        filled: dict[str, Any] = bot(view["state"], listed["templates"], self.rnd)
        return filled


def close_streams(tables: Sequence[Table]) -> None:
    """Close the tables' event streams (their reading tasks end on the driver's loop)."""
    tasks = [s.task for t in tables for s in t.streams]
    for t in tables:
        for s in t.streams:
            s.close()
    if tasks:
        run(asyncio.gather(*tasks, return_exceptions=True))


_LOOP: asyncio.AbstractEventLoop | None = None


def run(coro: Any) -> Any:
    """Run ``coro`` on the driver's one event loop (its connections live on it between phases)."""
    global _LOOP
    if _LOOP is None:
        _LOOP = asyncio.new_event_loop()
    return _LOOP.run_until_complete(coro)


async def play(tables: Sequence[Table], moves_each: int, seconds: float) -> None:
    """Every table plays up to ``moves_each`` moves, all at once, within ``seconds``."""
    deadline = time.monotonic() + seconds

    async def one(t: Table) -> None:
        for _ in range(moves_each):
            if time.monotonic() > deadline:
                return
            try:
                await t.move()
            except HttpError:
                t.c.errors += 1
                t.conn.close()
            except (KeyError, IndexError, TypeError):  # an answer not shaped as expected: a new game
                t.c.errors += 1
                t.gid = ""

    await asyncio.gather(*(one(t) for t in tables))


# ---- driver candidates, measured against one URL of the null endpoint ----

def _cpu() -> float:
    return time.process_time()


def measure_asyncio(base: str, conns: int, total: int) -> tuple[float, float]:
    c = Counters()
    tables = [Table(base, SHAPES["null"], random.Random(i), c) for i in range(conns)]
    run(play(tables, 20, 60))  # warm-up
    c2 = Counters()
    for t in tables:
        t.use(c2)
    cpu0, t0 = _cpu(), time.perf_counter()
    run(play(tables, total // conns, 120))
    return (_cpu() - cpu0) / max(1, c2.requests), c2.requests / (time.perf_counter() - t0)


def measure_requests(base: str, conns: int, total: int) -> tuple[float, float]:
    import threading

    import requests

    def worker(n: int, out: list[int]) -> None:
        s = requests.Session()
        gid = f"{random.getrandbits(64):016x}"
        for i in range(n):
            s.post(f"{base}/null/{gid}", json={"n": i}, timeout=10)
            out.append(1)

    warm: list[int] = []
    worker(20, warm)
    done: list[int] = []
    threads = [threading.Thread(target=worker, args=(total // conns, done)) for _ in range(conns)]
    cpu0, t0 = _cpu(), time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return (_cpu() - cpu0) / max(1, len(done)), len(done) / (time.perf_counter() - t0)


LOCUST_SNIPPET = """
import gevent.monkey; gevent.monkey.patch_all()
import json, sys, time, random, gevent
from locust.contrib.fasthttp import FastHttpSession
from locust.env import Environment
base, conns, total = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
env = Environment()
def worker(n, out):
    s = FastHttpSession(base_url=base, request_event=env.events.request, user=None)
    gid = "%016x" % random.getrandbits(64)
    for i in range(n):
        s.post("/null/" + gid, json={"n": i})
        out.append(1)
worker(20, [])
done = []
c0, t0 = time.process_time(), time.perf_counter()
gevent.joinall([gevent.spawn(worker, total // conns, done) for _ in range(conns)])
print(json.dumps([(time.process_time() - c0) / len(done), len(done) / (time.perf_counter() - t0)]))
"""


def measure_locust(base: str, conns: int, total: int) -> tuple[float, float]:
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", LOCUST_SNIPPET, base, str(conns), str(total)],
                         capture_output=True, text=True, timeout=300)
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    cpu, rate = json.loads(out.stdout.strip().splitlines()[-1])
    return float(cpu), float(rate)


def compare(base: str, conns: int, total: int, rounds: int) -> None:
    """Each candidate ``rounds`` times, interleaved; medians printed."""
    import statistics

    candidates = {"asyncio streams": measure_asyncio, "requests, threads": measure_requests,
                  "locust FastHttpSession": measure_locust}
    got: dict[str, list[tuple[float, float]]] = {name: [] for name in candidates}
    for r in range(rounds):
        for name, fn in (list(candidates.items()) if r % 2 == 0 else list(candidates.items())[::-1]):
            try:
                got[name].append(fn(base, conns, total))
            except Exception as err:  # a candidate that cannot run is reported, not fatal
                print(f"{name}: {type(err).__name__}: {str(err)[:300]}")
    print(f"{'candidate':28} {'driver CPU ms/request':>22} {'requests/s':>11}")
    for name, xs in got.items():
        if xs:
            print(f"{name:28} {statistics.median(c for c, _ in xs) * 1000:22.3f} "
                  f"{statistics.median(r for _, r in xs):11.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description="measure the driver candidates on the null endpoint")
    parser.add_argument("--compare", action="store_true")
    parser.add_argument("--url", help="a running null endpoint; default: start one (embedded Redis)")
    parser.add_argument("--conns", type=int, default=20)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.url:
        compare(args.url, args.conns, args.requests, args.rounds)
        return
    import tempfile
    from pathlib import Path

    from ludoteca.entrypoints.devstack import Supervisor, embedded_redis, free_port
    from stack import start_null

    sup = Supervisor()
    try:
        with tempfile.TemporaryDirectory() as tmp, embedded_redis(sup, Path(tmp) / "redis") as redis_url:
            port = free_port()
            start_null(sup, port, redis_url, Path(tmp) / "null.log")
            compare(f"http://127.0.0.1:{port}", args.conns, args.requests, args.rounds)
    finally:
        sup.stop()


if __name__ == "__main__":
    main()
