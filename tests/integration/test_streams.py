"""Event streams (``GET /games/{id}/stream``) on the real stack: two game services under gunicorn's
gevent worker as deploy/gunicorn.conf.py runs them, the front door (Caddy) before them, the
suite's real Redis. Streams live 6 s here (``LUDOTECA_MAX_STREAM``; 300 s by default) and beat
every second, so the tests cross the server's own closes too.

- each seat's stream carries exactly that seat's events (Ludic's hands), live, through the door;
- nothing is buffered: an event reaches the client while its stream is still open;
- a client that cuts its connection again and again (and meets the server's closes) and
  reconnects with ``Last-Event-ID`` gets every event of a whole game exactly once, then ``end``
  and a 204;
- 200 open streams (3/4 through the front door) cost no request thread a move needs: a victim's
  moves and ``/healthz`` answer within a liveness bound while they are open, and the streams of
  the tables a player joins get the join exactly once. Figures printed with ``-s``;
- with ``?turns=true`` the seat to act learns its listing from its stream (``turn``), so a move
  is one request: the game and the listing equal ``GET /games/{id}`` and ``GET .../actions``, once a
  version, to the seats that may act.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import requests
from conftest import served_games
from sse import RawStream, StreamCrowd, events_of

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
GAMES = ("ludix", "ludic")
LIFETIME = 6
STREAMS = 200
TABLES = 20
MOVES = 60
LIVENESS = 5.0  # seconds: only a request stuck behind the streams takes this long


@dataclass
class Stack:
    front_door: str
    services: dict[str, str]


@pytest.fixture(scope="module")
def stack(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    env = {"LUDOTECA_RATE_LIMIT": "0",  # every request here comes from one address, allowed its 200 streams
           "LUDOTECA_MAX_HOLDS_PER_ADDRESS": "1000", "LUDOTECA_MAX_CONNECTIONS_PER_ADDRESS": "1000",
           "LUDOTECA_MAX_STREAM": str(LIFETIME), "LUDOTECA_STREAM_HEARTBEAT": "1", "GUNICORN_WORKER_CLASS": "gevent"}
    with served_games(GAMES, redis_url, tmp_path_factory.mktemp("streams"), env) as (front_door, services):
        yield Stack(front_door, services)


class Table:
    """A table of human seats only, every seat played from here (no worker needed)."""

    def __init__(self, base: str, seats: int, options: dict[str, Any] | None = None) -> None:
        self.base = base
        self.s = requests.Session()
        r = self.s.post(f"{base}/games", json={"seats": ["human"] * seats, "options": options or {}}, timeout=30)
        assert r.status_code == 201, r.text
        self.gid = r.json()["game"]["id"]
        self.tokens = [r.json()["token"]]
        for _ in range(seats - 1):
            r = self.s.post(f"{base}/games/{self.gid}/players", json={}, timeout=30)
            assert r.status_code == 201, r.text
            self.tokens.append(r.json()["token"])
        self.game = self.view()

    def auth(self, seat: int | None) -> dict[str, str]:
        return {} if seat is None else {"Authorization": f"Bearer {self.tokens[seat]}"}

    def view(self) -> dict[str, Any]:
        r = self.s.get(f"{self.base}/games/{self.gid}", timeout=30)
        assert r.status_code == 200, r.text
        return dict(r.json())

    def play(self, seat: int, action: dict[str, Any]) -> float:
        t0 = time.perf_counter()
        r = self.s.post(f"{self.base}/games/{self.gid}/actions", json=action, headers=self.auth(seat), timeout=30)
        took = time.perf_counter() - t0
        assert r.status_code == 200, r.text
        self.game = r.json()["game"]
        return took

    def play_first_legal(self) -> None:
        seat = self.game["to_act"][0]
        r = self.s.get(f"{self.base}/games/{self.gid}/actions", headers=self.auth(seat), timeout=30)
        self.play(seat, r.json()["actions"][0])

    def ludix_move(self) -> float:
        """Roll; after a valid throw, hold (a bust leaves nothing to hold)."""
        if self.game["status"] == "active" and self.game["state"]["phase"] == "calling":
            return self.play(0, {"type": "alea_jacta_est"})
        seat = self.game["to_act"][0]
        return self.play(seat, {"type": "hold"} if self.game["state"]["throw"] else {"type": "roll"})

    def polled(self, seat: int | None) -> list[dict[str, Any]]:
        r = self.s.get(f"{self.base}/games/{self.gid}/events", params={"after": 0}, headers=self.auth(seat),
                       timeout=30)
        return list(r.json()["events"])

    def stream(self, seat: int | None, last_event_id: int | None = None, base: str | None = None) -> RawStream:
        headers = self.auth(seat)
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        return RawStream(f"{base or self.base}/games/{self.gid}/stream", headers)


def test_each_seat_streams_its_own_events_live_through_the_front_door(stack: Stack) -> None:
    table = Table(f"{stack.front_door}/ludic", 3)
    streams = {who: table.stream(who) for who in (None, 0, 1, 2)}
    try:
        for s in streams.values():
            assert s.status == 200 and s.headers["content-type"].startswith("text/event-stream")
        for _ in range(12):  # the cuts (a tie cuts again); then each seeker is dealt a hand only it may see
            if any(e["type"] == "RoundStarted" for e in table.polled(None)):
                break
            table.play_first_legal()
        for who, s in streams.items():
            expected = table.polled(who)
            count = len(expected)
            got = s.read_until(lambda ms, n=count: len(events_of(ms)) >= n, timeout=LIFETIME - 1)
            assert not s.closed  # arrived while the stream was open: nothing held back on the way
            assert [m.data for m in events_of(got)] == expected
            hands = [e["data"]["seat"] for e in expected if e["type"] == "HandDealt"]
            assert hands == ([] if who is None or who == table.view()["state"]["vexer"] else [who]), (who, hands)
    finally:
        for s in streams.values():
            s.close()


def test_an_event_arrives_before_the_stream_closes(stack: Stack) -> None:
    """Caddy flushes at once (flush_interval -1): the first bytes come with the headers, and a
    move's events come while the stream is open, not when it closes."""
    table = Table(f"{stack.front_door}/ludix", 2)
    last = table.polled(None)[-1]["seq"]
    s = table.stream(None, last)
    try:
        t0 = time.monotonic()
        first = s.read_until(lambda ms: len(ms) >= 1, timeout=LIFETIME - 1)
        assert first[0].retry == 1000 and not s.closed
        table.play(0, {"type": "alea_jacta_est"})
        moved = time.monotonic()
        got = s.read_until(lambda ms: bool(events_of(ms)), timeout=LIFETIME - 1)
        arrived = time.monotonic()
        assert not s.closed and arrived - t0 < LIFETIME
        assert events_of(got)[0].seq == last + 1
        print(f"\n[streams] first bytes {1000 * (moved - t0):.0f} ms after the request (at most), "
              f"an event {1000 * (arrived - moved):.1f} ms after its move's answer, through the front door")
    finally:
        s.close()


def test_reconnecting_with_last_event_id_loses_and_repeats_nothing(stack: Stack) -> None:
    """A whole Ludix game to 300 between two humans, played from a thread, while seat 0's reader
    cuts its connection after every few events (mid-burst: a partial message is dropped with it)
    8 times, then holds its connections: the player pauses for longer than a stream lives, so the
    server closes one. The reader reconnects with Last-Event-ID each time."""
    table = Table(f"{stack.front_door}/ludix", 2, {"target": 300})
    failures: list[BaseException] = []
    holding = threading.Event()

    def play() -> None:
        try:
            paused = False
            while table.game["status"] != "finished":
                table.ludix_move()
                time.sleep(0.05)
                if holding.is_set() and not paused:
                    paused = True
                    time.sleep(LIFETIME + 1)
        except BaseException as err:  # reported by the test
            failures.append(err)

    player = threading.Thread(target=play, daemon=True)
    player.start()
    got: list[int] = []
    connections = cuts = server_closes = 0
    last: int | None = None
    end = None
    over = False  # a 204: the game is over and nothing is left (the end event was cut off)
    deadline = time.monotonic() + 180
    try:
        while end is None and not over and time.monotonic() < deadline:
            s = table.stream(0, last)
            connections += 1
            if s.status == 204:
                s.close()
                over = True
                break
            assert s.status == 200, (s.status, s.http.raw[:300])
            want = 1 + cuts % 5 if cuts < 8 else 10**9  # cut after 1 to 5 more events, 8 times
            if cuts >= 8:
                holding.set()
            try:
                messages = s.read_until(lambda ms, w=want: len(events_of(ms)) >= w
                                        or any(m.event == "end" for m in ms), timeout=LIFETIME * 3)
            finally:
                s.close()
            got += [m.seq for m in events_of(messages)]
            ends = [m for m in messages if m.event == "end"]
            end = ends[0] if ends else None
            if events_of(messages):
                last = events_of(messages)[-1].seq
            if s.closed and end is None:
                server_closes += 1
            elif end is None:
                cuts += 1
        player.join(60)
        assert not failures, failures
        assert end is not None or over, f"no end within the deadline ({len(got)} events)"
        expected = [e["seq"] for e in table.polled(0)]
        assert got == expected  # every event once, in order: nothing lost, nothing repeated
        assert table.view()["status"] == "finished"
        if end is not None:
            assert end.data["last_seq"] == expected[-1] and end.data["status"] == "finished"
        again = table.stream(0, expected[-1])
        assert again.status == 204
        again.close()
        print(f"\n[streams] a Ludix game of {len(expected)} events read over {connections} connections "
              f"({cuts} cut by the client, {server_closes} closed by the server): each event once")
        assert cuts == 8 and server_closes >= 1
    finally:
        player.join(5)


def ms(xs: list[float]) -> str:
    return f"p50 {statistics.median(xs) * 1000:.1f} ms, max {max(xs) * 1000:.1f} ms"


def test_200_open_streams_do_not_starve_moves(stack: Stack) -> None:
    victims = [Table(f"{stack.front_door}/ludix", 2, {"target": 1000})]
    health = requests.Session()

    def play(moves: int) -> tuple[list[float], list[float]]:
        move_times, health_times = [], []
        for i in range(moves):
            if victims[-1].game["status"] == "finished":  # 30-odd rounds of roll-then-hold reach 1000
                victims.append(Table(f"{stack.front_door}/ludix", 2, {"target": 1000}))
            move_times.append(victims[-1].ludix_move())
            if i % 5 == 4:
                for url in [stack.front_door, *stack.services.values()]:
                    t0 = time.perf_counter()
                    r = health.get(f"{url}/healthz", timeout=20)
                    health_times.append(time.perf_counter() - t0)
                    assert r.status_code == 200, (url, r.status_code, r.text)
        return move_times, health_times

    quiet_moves, quiet_health = play(MOVES)
    s = requests.Session()
    tables = []
    for _ in range(TABLES):  # tables waiting for their second player
        r = s.post(f"{stack.services['ludix']}/games", json={"seats": ["human", "human"]}, timeout=30)
        assert r.status_code == 201, r.text
        tables.append(r.json()["game"]["id"])
    urls = [f"{stack.services['ludix'] if i % 4 == 3 else stack.front_door + '/ludix'}/games/"
            f"{tables[i % TABLES]}/stream" for i in range(STREAMS)]
    crowd = StreamCrowd(urls)
    crowd.start()
    try:
        deadline = time.monotonic() + 10
        while crowd.open_count() < STREAMS and time.monotonic() < deadline:
            time.sleep(0.05)
        assert crowd.open_count() == STREAMS, f"only {crowd.open_count()} streams are open"
        opened = time.monotonic()
        loaded_moves, loaded_health = play(MOVES)
        playing = time.monotonic() - opened
        for gid in tables[::2]:  # a player joins half of the tables: their streams get it at once
            r = s.post(f"{stack.services['ludix']}/games/{gid}/players", json={}, timeout=30)
            assert r.status_code == 201, r.text
        time.sleep(LIFETIME + 2)  # every stream met the server's close at least once more
        open_at_end = crowd.open_count()
    finally:
        crowd.stop()
    joined = set(tables[::2])
    for m in crowd.members:
        gid = m.url.rsplit("/", 2)[-2]
        types = [msg.data["type"] for msg in events_of(m.seen)]
        seqs = [msg.seq for msg in events_of(m.seen)]
        assert seqs == list(range(1, len(seqs) + 1)), (m.url, seqs)  # from the first, once each
        assert types == (["GameCreated", "SeatClaimed", "GameStarted"] if gid in joined else ["GameCreated"]), \
            (m.url, types)
        assert any(msg.comment == "keep-alive" for msg in m.seen)
        assert m.connections >= 2  # reconnected after the server's close (6 s)
    reconnections = sum(m.connections for m in crowd.members) - STREAMS
    print(f"\n[streams] victim's Ludix moves through the front door, {MOVES} each: quiet {ms(quiet_moves)}; "
          f"with {STREAMS} streams open {ms(loaded_moves)} ({playing:.1f} s)")
    print(f"[streams] /healthz of the front door and the services: quiet {ms(quiet_health)}; "
          f"with the streams {ms(loaded_health)}; {reconnections} reconnections after the server's closes, "
          f"{open_at_end} of {STREAMS} open at the end")
    assert max(loaded_moves) < LIVENESS, ms(loaded_moves)
    assert max(loaded_health) < LIVENESS, ms(loaded_health)
    assert crowd.errors == []
    assert set(crowd.statuses) <= {200}


class Follower:
    """A seat's stream with ``?turns=true`` followed across the server's closes (streams live
    ``LIFETIME`` seconds here): reopened after the last event's id, as a client does."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        self.url, self.headers = url, headers
        self.connections = [RawStream(url, headers)]

    def until(self, done: Any, timeout: float) -> list[Any]:
        """The current connection's messages once ``done(them)``; reopened when the server closed it."""
        deadline = time.monotonic() + timeout
        while True:
            s = self.connections[-1]
            got = s.read_until(done, timeout=max(0.1, deadline - time.monotonic()))
            if done(got):
                return got
            ids = [m.id for c in self.connections for m in c.http.messages if m.id is not None]
            resume = {"Last-Event-ID": ids[-1]} if ids else {}
            self.connections.append(RawStream(self.url, {**self.headers, **resume}))

    def close(self) -> None:
        for s in self.connections:
            s.close()


def test_a_seat_streaming_its_turns_plays_with_one_request_a_move(stack: Stack) -> None:
    """``?turns=true``: the seat to act learns its listing from its own stream (a ``turn``
    message, once a version a connection, without an ``id``), so each move is one request, its
    POST; the listing is the one ``GET .../actions`` gives; a seat that may not act at a version
    gets no turn for it; a turn never comes before its version's events; a spectator asking for
    turns gets a 401 problem."""
    table = Table(f"{stack.front_door}/ludix", 2, {"target": 1000})
    stream_url = f"{table.base}/games/{table.gid}/stream"
    r = table.s.get(stream_url, params={"turns": "true"}, timeout=30)
    assert r.status_code == 401 and r.headers["content-type"] == "application/problem+json", r.text
    streams = {seat: Follower(stream_url + "?turns=true", table.auth(seat)) for seat in (0, 1)}
    to_act = {table.game["version"]: set(table.game["to_act"])}
    try:
        for move in range(16):
            version, seat = table.game["version"], table.game["to_act"][0]

            def turned(ms: list[Any], v: int = version) -> bool:
                return any(m.event == "turn" and m.data["next"]["version"] == v for m in ms)

            got = streams[seat].until(turned, timeout=3 * LIFETIME)
            turn = next(m.data for m in got if m.event == "turn" and m.data["next"]["version"] == version)
            listing = turn["next"]
            assert listing["seat"] == seat and listing["status"] == "active" and turn["game"]["you"] == seat
            if move < 6:  # the game and the listing requests would have given, at the same version
                listed = table.s.get(f"{table.base}/games/{table.gid}/actions", headers=table.auth(seat), timeout=30)
                assert listed.json() == listing
                viewed = table.s.get(f"{table.base}/games/{table.gid}", headers=table.auth(seat), timeout=30)
                assert viewed.json() == turn["game"]
            kinds = {a["type"]: a for a in listing["actions"]}
            action = kinds.get("hold") if move % 3 == 2 and "hold" in kinds else listing["actions"][0]
            r = table.s.post(f"{table.base}/games/{table.gid}/actions", json=action, timeout=30,
                             headers={**table.auth(seat), "If-Match": f'"{version}"'})
            assert r.status_code == 200, r.text
            table.game = r.json()["game"]
            to_act[table.game["version"]] = set(table.game["to_act"])
        last = table.game["version"]
        for seat, f in streams.items():
            f.until(lambda ms, f=f: any(m.data["version"] == last for c in f.connections
                                        for m in events_of(c.http.messages)), timeout=3 * LIFETIME)
            events = [m for c in f.connections for m in events_of(c.http.messages)]
            assert [m.seq for m in events] == list(range(1, len(events) + 1))  # resumed without a gap or a repeat
            held = 0  # the newest version whose events the seat had received (every Ludix version has one)
            for c in f.connections:
                turns = [m for m in c.http.messages if m.event == "turn"]
                versions = [m.data["next"]["version"] for m in turns]
                assert len(versions) == len(set(versions)), versions  # once a version
                assert all(m.id is None for m in turns)  # not an event: resuming goes by the events' ids
                assert all(seat in to_act[v] for v in versions), (seat, versions, to_act)
                for m in c.http.messages:
                    if m.event == "message" and m.id is not None:  # an event
                        held = m.data["version"]
                    elif m.event == "turn":  # never ahead of the events of its version
                        assert m.data["next"]["version"] <= held, (seat, m.data["next"]["version"], held)
    finally:
        for f in streams.values():
            f.close()
