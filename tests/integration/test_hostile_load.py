"""No single client takes a game service offline (issue 20, findings 1 and 5).

A real Ludix service under gunicorn as ``deploy/gunicorn.conf.py`` runs it (2 gevent workers), over
the suite's Redis, attacked straight at its port by raw sockets (:class:`abuse.SocketCrowd`) from
other loopback addresses than the victim's (127.0.0.2, or 127.0.1.1-100), while a victim on
127.0.0.1 views its game, moves and calls ``/readyz`` in a loop: every answer must be a 200
within ``LIVENESS`` (a check that nothing hangs behind the attack, not a benchmark), and every
attacking connection must be answered (408, 429 or 503 with ``Retry-After``, or 200 for a stream
the service admitted), none left hanging. The victim's p50/max and the answers the crowd got are
printed (``pytest -s tests/integration/test_hostile_load.py``).

Before the worker's admission (:mod:`ludoteca.entrypoints.admission`) each of these attacks left
the victim without an answer: 2,100 connections filled both workers' 1,000-connection pools.
"""

from __future__ import annotations

import contextlib
import re
import socket
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from abuse import Bystander, SocketCrowd, auth, new_game
from ludoteca.adapters.fdlimit import raise_nofile
from ludoteca.entrypoints.devstack import Supervisor, free_port, gunicorn_argv, wait_http
from prometheus_client.parser import text_string_to_metric_families

pytestmark = [pytest.mark.integration, pytest.mark.hostile, pytest.mark.timeout(240)]
ROOT = Path(__file__).resolve().parents[2]
LIVENESS = 10.0
"""Seconds: an answer, not a hang (before, the victim got none in 20 s; now p50 is 4-40 ms and the
worst, while a burst of 3,000 connections is accepted on a loaded 2-core machine, about 6 s)."""
ATTACKER = "127.0.0.2"
CROWD = [f"127.0.1.{i}" for i in range(1, 101)]


@dataclass
class Service:
    port: int
    log: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextlib.contextmanager
def service(redis_url: str, logs: Path, nofile: str | None = None) -> Iterator[Service]:
    """Ludix under gunicorn; ``nofile``: run it under ``prlimit --nofile=SOFT:HARD``."""
    sup = Supervisor()
    port = free_port()
    log = logs / f"ludix-{port}.log"
    argv = gunicorn_argv("ludoteca.entrypoints.wsgi:make_app()", port, ROOT)
    if nofile is not None:
        argv = ["prlimit", f"--nofile={nofile}", "--", *argv]
    try:
        sup.start("ludix", argv, env={"LUDOTECA_GAME": "ludix", "REDIS_URL": redis_url,
                                      "GUNICORN_LOGLEVEL": "info",
                                      # a stream whose client left is noticed at its next heartbeat:
                                      # one test's streams are gone before the next test counts its own
                                      "LUDOTECA_STREAM_HEARTBEAT": "1"}, cwd=ROOT, log=log)
        if not wait_http(f"http://127.0.0.1:{port}/readyz", 120):
            raise RuntimeError("ludix did not become ready:\n" + log.read_text()[-2000:])
        yield Service(port, log)
    finally:
        sup.stop()


@pytest.fixture(scope="module", autouse=True)
def many_sockets() -> None:
    raise_nofile()  # this process opens up to 3,000 sockets


@pytest.fixture(scope="module")
def ludix(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    with service(redis_url, tmp_path_factory.mktemp("hostile")) as svc:
        yield svc


def attack(svc: Service, crowd: SocketCrowd, seconds: float, settle: float = 0.0,
           during: Callable[[], None] | None = None) -> Bystander:
    """Run ``crowd`` against ``svc`` while the victim plays for ``seconds`` (then ``during``,
    the crowd still there); returns the victim."""
    victim = Bystander(svc.base, LIVENESS)
    crowd.start()
    try:
        deadline = time.monotonic() + 30
        while crowd.connected + sum(crowd.closed) < crowd.n and time.monotonic() < deadline:
            victim.one_round()  # the victim plays while the crowd connects, too
        time.sleep(settle)
        victim.play_while(lambda: True, seconds)
        if during is not None:
            during()
    finally:
        crowd.stop()
    print(f"\n{victim.figures()}; crowd: {crowd.connected} connected, answers {dict(crowd.counts())}, "
          f"hung {crowd.hung()}, errors {dict(crowd.errors)}")
    return victim


def metrics(svc: Service) -> dict[str, float]:
    """The service's samples, ``name{label="value",...}`` -> value."""
    text = requests.get(svc.base + "/metrics", timeout=LIVENESS).text
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
            out[f"{sample.name}{{{labels}}}"] = sample.value
    return out


def refusals_say_when(crowd: SocketCrowd) -> None:
    for st, retry in zip(crowd.statuses, crowd.retry_after, strict=True):
        if st in (429, 503):
            assert retry, "a 429/503 without Retry-After"


def answered(crowd: SocketCrowd, n: int, seconds: float = 20) -> Counter[int | None]:
    """Start ``crowd`` and wait, at most ``seconds``, until each of its ``n`` connections has its
    status line; the statuses' counts."""
    crowd.start()
    try:
        deadline = time.monotonic() + seconds
        while None in crowd.statuses or len(crowd.statuses) < n:
            assert time.monotonic() < deadline, crowd.counts()
            time.sleep(0.1)
    finally:
        crowd.stop()
    return crowd.counts()


def test_bodies_are_bounded_and_seats_hold_few_streams(ludix: Service) -> None:
    """A declared body over LUDOTECA_MAX_BODY: 413 at once; a chunked move is served; 20 streams
    of one seat from 20 addresses: at most 8 a worker, the rest 429."""
    s = requests.Session()
    gid, tokens = new_game(s, ludix.base)
    with socket.create_connection(("127.0.0.1", ludix.port), timeout=10) as sock:
        sock.sendall(f"POST /games/{gid}/actions HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n".encode())
        assert sock.recv(4096).startswith(b"HTTP/1.1 413 ")
    state = s.get(f"{ludix.base}/games/{gid}", headers=auth(tokens[0]), timeout=10).json()
    seat = state["to_act"][0]
    r = s.post(f"{ludix.base}/games/{gid}/actions", data=iter([b'{"type": ', b'"roll"}']),
               headers={**auth(tokens[seat]), "Content-Type": "application/json"}, timeout=10)
    assert r.status_code == 200, r.text
    head = (f"GET /games/{gid}/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {tokens[0]}\r\n\r\n").encode()
    crowd = SocketCrowd("127.0.0.1", ludix.port, CROWD[:20], 20, head)
    counts = answered(crowd, 20)
    assert counts[200] <= 16 and counts[429] >= 4, counts
    refusals_say_when(crowd)


@pytest.mark.parametrize("request_line", [
    "HEAD /games/{gid}/stream",  # HEAD runs the GET view
    "GET /games/{gid}/strea%6D",  # the app routes on the decoded path
    "GET /games/{gid}/even%74s?after=500&wait=5",
    "GET /games/{gid}/events?after=500&wait=5&wait=0",  # the app reads the first `wait`
])
def test_every_spelling_of_a_hold_is_counted(ludix: Service, request_line: str) -> None:
    """A seat's long-polls and streams however they are spelt: at most 8 a worker (2 workers),
    the rest 429 (a hostile client's probe held 100 from one address, and 2,039 at once, this way)."""
    s = requests.Session()
    gid, tokens = new_game(s, ludix.base)
    head = f"{request_line.format(gid=gid)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {tokens[0]}\r\n\r\n"
    crowd = SocketCrowd("127.0.0.1", ludix.port, CROWD[:20], 20, head.encode())
    counts = answered(crowd, 20)
    assert counts[200] <= 16 and counts[429] >= 4, counts
    refusals_say_when(crowd)


def test_slow_bodies_from_one_address_do_not_starve_other_clients(ludix: Service) -> None:
    """2,100 POSTs of ``Content-Length: 40`` sending one byte every 3 s, from one address: the
    address gets 64 connections a worker (the rest 429 at once), those get 408 after the 10 s
    body deadline; the victim is answered throughout."""
    gid = new_game(requests.Session(), ludix.base)[0]
    head = (f"POST /games/{gid}/actions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "Content-Length: 40\r\n\r\n").encode()
    crowd = SocketCrowd("127.0.0.1", ludix.port, [ATTACKER], 2100, head, drip=b"x" * 40, every=3.0)
    victim = attack(ludix, crowd, seconds=14)
    assert not victim.bad, victim.bad[:10]
    assert crowd.hung() == 0, crowd.counts()
    assert set(crowd.counts()) <= {408, 429, 503}, crowd.counts()
    assert crowd.counts()[408] > 0
    refusals_say_when(crowd)


def stream_head(gid: str) -> bytes:
    return f"GET /games/{gid}/stream HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n".encode()


def test_streams_from_one_address_do_not_starve_other_clients(ludix: Service) -> None:
    """2,100 event streams from one address: 32 a worker are served (200), the rest 429 at once."""
    gid = new_game(requests.Session(), ludix.base)[0]
    crowd = SocketCrowd("127.0.0.1", ludix.port, [ATTACKER], 2100, stream_head(gid))
    holds = 'ludoteca_open_holds{game="ludix",kind="stream"}'
    deadline = time.monotonic() + 20  # an earlier test's streams are closed, noticed at a heartbeat
    while metrics(ludix).get(holds, 0) and time.monotonic() < deadline:
        time.sleep(0.2)
    before, seen = metrics(ludix), dict[str, float]()
    victim = attack(ludix, crowd, seconds=8, settle=1.0, during=lambda: seen.update(metrics(ludix)))
    assert not victim.bad, victim.bad[:10]
    assert crowd.hung() == 0, crowd.counts()
    counts = crowd.counts()
    assert set(counts) <= {200, 429, 503}, counts
    assert 0 < counts[200] <= 64, counts  # 32 streams per address in each of 2 workers
    refusals_say_when(crowd)
    assert seen[holds] - before.get(holds, 0) == counts[200], (seen[holds], before.get(holds))
    refused = {r: seen.get(key, 0) - before.get(key, 0) for r in ("address", "client_holds")
               for key in [f'ludoteca_refused_requests_total{{game="ludix",reason="{r}"}}']}
    assert sum(refused.values()) == counts[429], refused


def test_streams_from_100_addresses_leave_room_for_moves(ludix: Service) -> None:
    """3,000 streams from 100 addresses (30 each): the service holds three quarters of its
    connections as streams and refuses the rest with 503; moves and /readyz keep the last quarter."""
    gid = new_game(requests.Session(), ludix.base)[0]
    crowd = SocketCrowd("127.0.0.1", ludix.port, CROWD, 3000, stream_head(gid))
    victim = attack(ludix, crowd, seconds=12, settle=1.0)
    assert not victim.bad, victim.bad[:10]
    assert crowd.hung() == 0, crowd.counts()
    counts = crowd.counts()
    assert set(counts) <= {200, 429, 503}, counts
    assert counts[503] > 0 and counts[200] > 0, counts
    refusals_say_when(crowd)


@pytest.mark.parametrize("nofile", ["1024:20000", "1024:1024"], ids=["soft-1024", "hard-1024"])
def test_an_open_files_limit_of_1024_gives_no_500(redis_url: str, tmp_path: Path, nofile: str) -> None:
    """1,000 streams from 100 addresses against a service started under an open-files limit of
    1024 (soft only: the service raises it; hard: the service sizes its connections to it): no
    500, every stream answered (200, or 503/429 with Retry-After), moves and /readyz answer."""
    if subprocess.run(["prlimit", "--version"], capture_output=True, check=False).returncode != 0:
        pytest.skip("prlimit (util-linux) is not installed")
    with service(redis_url, tmp_path, nofile) as svc:
        gid = new_game(requests.Session(), svc.base)[0]
        crowd = SocketCrowd("127.0.0.1", svc.port, CROWD, 1000, stream_head(gid))
        victim = attack(svc, crowd, seconds=10, settle=1.0)
        log = svc.log.read_text()
    # with a hard limit of 1024 a worker holds 298 connections: on a loaded machine the crowd's
    # refusals in flight may fill them for a moment, and then the bystander too is told 503 +
    # Retry-After at once (shed, as promised); never a 500, a hang or an error, and mostly served
    shed = [b for b in victim.bad if re.search(r": 503 after \d+\.\d s$", b)]
    assert [b for b in victim.bad if b not in shed] == [], victim.bad[:10]
    assert len(shed) <= 0.2 * len(victim.times), (len(shed), len(victim.times), shed[:10])
    assert crowd.hung() == 0, crowd.counts()
    counts = crowd.counts()
    assert set(counts) <= {200, 429, 503}, counts
    refusals_say_when(crowd)
    assert "open files: soft limit" in log
    assert "Too many open files" not in log, log[-3000:]


def test_who_a_connection_counts_for() -> None:
    """The proxies of LUDOTECA_PROXY_ADDRESSES are believed, nobody else; IPv6 counts by /64."""
    from ludoteca.adapters.peers import address_key, client_of, is_proxy, proxy_networks

    nets = proxy_networks({"LUDOTECA_PROXY_ADDRESSES": "127.0.80.1, 10.0.0.0/8,fd00::/8"})
    assert is_proxy("10.1.2.3", nets) and is_proxy("::ffff:127.0.80.1", nets) and is_proxy("fd00::7", nets)
    assert not is_proxy("127.0.0.1", nets) and not is_proxy("garbage", nets)
    assert client_of("10.0.0.5", "198.51.100.7, 203.0.113.9", 1, nets) == "203.0.113.9"
    assert client_of("10.0.0.5", "198.51.100.7, 203.0.113.9", 2, nets) == "198.51.100.7"
    assert client_of("10.0.0.5", "203.0.113.9", 2, nets) == "10.0.0.5"  # fewer hops than trusted
    assert client_of("192.0.2.1", "203.0.113.9", 1, nets) == "192.0.2.1"  # not a proxy: its header is ignored
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:bbbb::2") == "2001:db8:1:2::/64"
    assert address_key("::ffff:192.0.2.7") == "192.0.2.7"
    with pytest.raises(ValueError, match="LUDOTECA_PROXY_ADDRESSES"):
        proxy_networks({"LUDOTECA_PROXY_ADDRESSES": "10.0.0.0/33"})
