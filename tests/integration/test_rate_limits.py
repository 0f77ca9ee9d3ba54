"""Rate limits over a real Redis of their own (so every key can be scanned): per verified seat,
never per spelling of the header; token failures per client address, writing nothing per token;
new games per address; the client address from X-Forwarded-For only behind trusted proxies.
The last test runs the real stack (gunicorn behind the front door) with one abusive client of 8
threads and a victim whose moves must never be refused.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from abuse import KINDS, describe, ms, p50, percentile, run_scenario
from api_client import PROBLEM, Api
from ludoteca.adapters.hosting import create_app
from ludoteca.adapters.hosting.ratelimit import Limits, client_address
from ludoteca.adapters.peers import proxy_networks
from ludoteca.config import Settings
from ludoteca.entrypoints.devstack import (
    BEHIND_DOOR,
    Supervisor,
    embedded_redis,
    free_port,
    gunicorn_argv,
    start_front_door,
    wait_http,
)
from ludoteca.service_layer import registry

ROOT = Path(__file__).resolve().parents[2]
PREFIX = "ludix:ratelimit:"


@pytest.fixture(scope="module")
def rl_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A redis-server of this module's own: the scans below see only its keys."""
    sup = Supervisor()
    try:
        with embedded_redis(sup, tmp_path_factory.mktemp("ratelimit-redis")) as url:
            yield url
    finally:
        sup.stop()


@pytest.fixture(scope="module")
def rl_redis(rl_url: str) -> redis.Redis:
    return redis.Redis.from_url(rl_url, decode_responses=True)


def address() -> str:
    """A client address of its own, in a /64 of its own (a string in the WSGI environ: nothing is
    ever sent to it; 2001:db8::/32 is the documentation prefix)."""
    return f"2001:db8:{secrets.token_hex(2)}:{secrets.token_hex(2)}::1"


def api_for(url: str, remote: str, **limits: Any) -> Api:
    app = create_app(registry.game("ludix"), Settings(redis_url=url, **limits))
    app.config["TESTING"] = True
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = remote
    return Api(client)


def keys(r: redis.Redis, match: str = "*") -> dict[str, int]:
    """Rate-limit keys and their TTLs."""
    return {k: int(r.ttl(k)) for k in r.scan_iter(PREFIX + match, count=1000)}


def assert_limited(status: int, data: Any, headers: Any) -> None:
    assert status == 429, (status, data)
    assert headers["Content-Type"] == PROBLEM and data["type"].endswith("/rate-limited")
    assert 1 <= int(headers["Retry-After"]) <= 61
    assert "try again in" in data["detail"]


def started_game(api: Api) -> tuple[str, str, str]:
    gid, t0 = api.create(["human", "human"], {"target": 1000})
    status, joined = api.join(gid)
    assert status == 201 and t0 is not None
    assert api.play(gid, t0, {"type": "alea_jacta_est"})[0] == 200
    return gid, t0, joined["token"]


def test_respelled_schemes_count_in_one_bucket_per_seat(rl_url: str, rl_redis: redis.Redis) -> None:
    api = api_for(rl_url, address(), rate_limit_per_minute=6, rate_limit_create_per_minute=10)
    gid, t0, t1 = started_game(api)  # one write of seat 0 already
    spellings = [f"Bearer {t0}", f"bearer {t0}", f"BEARER {t0}", f"Bearer    {t0}   ", f"bEaReR {t0}"]
    statuses = []
    for i in range(5):
        statuses.append(api.call("POST", f"/games/{gid}/actions", body={"type": "roll"},
                                 headers={"Authorization": spellings[i % len(spellings)]})[0])
    assert 429 not in statuses  # 6 writes of seat 0 so far
    version = api.view(gid)["version"]
    for i in range(10):
        assert_limited(*api.call("POST", f"/games/{gid}/actions", body={"type": "hold"},
                                 headers={"Authorization": spellings[i % len(spellings)]}))
    assert api.view(gid)["version"] == version  # a refused write changed nothing
    assert api.play(gid, t1, {"type": "roll"})[0] != 429  # the other seat has its own bucket
    seat_keys = keys(rl_redis, f"LIMITER/seat/{gid}/*")
    writes = [k for k in seat_keys if k.split("/")[4] == "w"]
    assert sorted(k.split("/")[3] for k in writes) == ["0", "1"]  # one per seat, whatever the spelling
    assert all(ttl > 0 for ttl in seat_keys.values())
    for token in (t0, t1):
        assert not any(token in k or hashlib.sha256(token.encode()).hexdigest()[:32] in k for k in keys(rl_redis))


def test_bogus_and_malformed_tokens_are_limited_per_address_and_write_nothing(
        rl_url: str, rl_redis: redis.Redis) -> None:
    me = address()
    api = api_for(rl_url, me, rate_limit_per_minute=100, rate_limit_failures_per_minute=5)
    gid, t0, _ = started_game(api)
    before = set(keys(rl_redis))
    bogus = [secrets.token_urlsafe(32) for _ in range(15)]
    malformed = ["Basic Zm9vOmJhcg==", "Bearer", f"Token {t0}", f"Bearer{t0}", ""]
    statuses = []
    for i, token in enumerate(bogus):
        statuses.append(api.call("POST", f"/games/{gid}/actions", token, {"type": "roll"})[0])
        statuses.append(api.call("GET", f"/games/{gid}", headers={"Authorization": malformed[i % 5]})[0])
    statuses.append(api.call("GET", f"/games/{'ab' * 16}", secrets.token_urlsafe(32))[0])  # no such game
    assert statuses[:5] == [401] * 5 and set(statuses[5:]) == {429}
    assert_limited(*api.call("GET", f"/games/{gid}/events?after=0", bogus[0]))
    new = {k: v for k, v in keys(rl_redis).items() if k not in before}
    assert list(new) == [k for k in new if k.startswith(f"{PREFIX}LIMITER/fail/{client_address(me)}/")]
    assert len(new) == 1
    assert all(ttl > 0 for ttl in new.values())
    everything = " ".join(rl_redis.scan_iter("*", count=1000))
    for token in bogus:
        digest = hashlib.sha256(token.encode()).hexdigest()
        assert token not in everything and digest[:16] not in everything
    # the same address with its real token is not refused: seat writes have their own bucket
    assert api.play(gid, t0, {"type": "roll"})[0] == 200


def test_a_left_seats_token_counts_as_that_seat_not_as_a_bad_token(rl_url: str, rl_redis: redis.Redis) -> None:
    """After a leave, the seat's token reads as a spectator's and its moves are 409: its
    requests count in the seat's own buckets, not in the address's bad-token bucket (5 here),
    so a phone still holding it does not lock its address out of every game."""
    me = address()
    api = api_for(rl_url, me, rate_limit_per_minute=100, rate_limit_failures_per_minute=5)
    gid, _, t1 = started_game(api)
    assert api.call("POST", f"/games/{gid}/leave", t1, {})[0] == 200
    reads = [api.call("GET", f"/games/{gid}", t1)[0] for _ in range(8)]
    moves = [api.call("POST", f"/games/{gid}/actions", t1, {"type": "roll"})[0] for _ in range(4)]
    again = api.call("POST", f"/games/{gid}/leave", t1, {})[0]
    assert reads == [200] * 8 and moves == [409] * 4 and again == 409
    assert not any(f"/fail/{client_address(me)}/" in k for k in keys(rl_redis))
    assert keys(rl_redis, f"LIMITER/seat/{gid}/1/*")


def test_creating_and_joining_and_anonymous_reads_are_limited_per_address(rl_url: str) -> None:
    a, b = address(), address()
    api = api_for(rl_url, a, rate_limit_per_minute=100, rate_limit_create_per_minute=3,
                  rate_limit_reads_per_minute=4)
    gid, token = api.create(["human", "human", "human"])
    assert api.join(gid)[0] == 201
    api.create(["human", "human"])
    assert_limited(*api.call("POST", "/games", body={"seats": ["human", "human"], "options": {}}))
    assert_limited(*api.call("POST", f"/games/{gid}/players", body={}))
    assert token is not None
    for _ in range(4):
        assert api.call("GET", "/games")[0] == 200
    assert_limited(*api.call("GET", "/games"))
    assert_limited(*api.call("GET", f"/games/{gid}"))  # a spectator is anonymous
    assert api.call("GET", f"/games/{gid}", token)[0] == 200  # a seat reads on its own budget
    assert api.call("GET", "/healthz")[0] == 200 and api.call("GET", "/openapi.json")[0] == 200  # exempt
    other = api_for(rl_url, b, rate_limit_per_minute=100, rate_limit_create_per_minute=3,
                    rate_limit_reads_per_minute=4)
    assert other.join(gid)[0] == 201
    other.create(["human", "human"])


def test_forwarded_for_is_ignored_without_trusted_proxies(rl_url: str, rl_redis: redis.Redis) -> None:
    me = address()
    api = api_for(rl_url, me, rate_limit_per_minute=100, rate_limit_create_per_minute=2)
    body = {"seats": ["human", "human"], "options": {}}
    statuses = [api.call("POST", "/games", body=body, headers={"X-Forwarded-For": f"198.51.100.{i}"})[0]
                for i in range(1, 6)]
    assert statuses == [201, 201, 429, 429, 429]
    assert not [k for k in keys(rl_redis) if "198.51.100." in k]
    assert [k for k in keys(rl_redis, f"LIMITER/new/{client_address(me)}/*")]


def test_with_one_trusted_proxy_the_last_hop_decides(rl_url: str, rl_redis: redis.Redis) -> None:
    proxy, c, d = address(), address(), address()
    api = api_for(rl_url, proxy, rate_limit_per_minute=100, rate_limit_create_per_minute=2, trusted_proxies=1,
                  proxy_networks=proxy_networks({"LUDOTECA_PROXY_ADDRESSES": proxy}))
    body = {"seats": ["human", "human"], "options": {}}

    def create(xff: str | None) -> int:
        return int(api.call("POST", "/games", body=body, headers={"X-Forwarded-For": xff} if xff else {})[0])

    assert [create(f"198.51.100.{i}, {c}") for i in range(1, 5)] == [201, 201, 429, 429]  # spoofed first hops
    assert create(d) == 201 and create(f"{c}, {d}") == 201 and create(d) == 429
    assert create(None) == 201  # no header: the proxy's own address
    assert not [k for k in keys(rl_redis) if "198.51.100." in k]


def test_forwarded_for_is_ignored_from_a_peer_that_is_no_proxy(rl_url: str, rl_redis: redis.Redis) -> None:
    """Issue 20, finding 7: with a trusted hop configured, a client that is not one of the
    proxies' addresses (it reached the service's port directly) cannot name its address."""
    proxy, me = address(), address()
    api = api_for(rl_url, me, rate_limit_per_minute=100, rate_limit_create_per_minute=2, trusted_proxies=1,
                  proxy_networks=proxy_networks({"LUDOTECA_PROXY_ADDRESSES": f"{proxy}/128"}))
    body = {"seats": ["human", "human"], "options": {}}
    statuses = [api.call("POST", "/games", body=body, headers={"X-Forwarded-For": f"198.51.100.{i}"})[0]
                for i in range(1, 6)]
    assert statuses == [201, 201, 429, 429, 429]
    assert not [k for k in keys(rl_redis) if "198.51.100." in k]


def test_a_limit_of_zero_turns_every_limit_off(rl_url: str, rl_redis: redis.Redis) -> None:
    me = address()
    api = api_for(rl_url, me, rate_limit_per_minute=0)
    gid, _ = api.create(["human", "human"])
    for _ in range(40):
        assert api.call("GET", f"/games/{gid}", secrets.token_urlsafe(32))[0] == 401
        api.create(["human", "human"])
    assert not [k for k in keys(rl_redis) if client_address(me) in k]


def test_an_ipv6_client_counts_by_its_64_network() -> None:
    assert client_address("192.0.2.7") == "192.0.2.7"
    assert client_address("::ffff:192.0.2.7") == "192.0.2.7"
    assert client_address("2001:db8:1:2:aaaa::1") == client_address("2001:db8:1:2:ffff:1:2:3") == "2001:db8:1:2::/64"
    assert client_address("2001:db8:1:3::1") != client_address("2001:db8:1:2::1")
    assert client_address(None) == "unknown" and client_address("x" * 500) == "x" * 64



def test_a_games_own_routes_have_a_tighter_bucket(rl_url: str, rl_redis: redis.Redis) -> None:
    """Ludic's rule checker is a computation (a refused rule's suggestion costs up to ~30 ms of
    CPU): its POSTs count per address in a bucket of a fifth of the writes (issue 20, finding 7),
    apart from the anonymous writes, and another address has its own."""
    me, other = address(), address()

    def ludic(remote: str) -> Api:
        app = create_app(registry.game("ludic"), Settings(redis_url=rl_url, rate_limit_per_minute=50))
        app.config["TESTING"] = True
        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = remote
        return Api(client)

    api = ludic(me)
    body = {"rule": "the top card is purple"}
    statuses = [api.call("POST", "/rules/check", body=body)[0] for _ in range(10)]
    assert statuses == [200] * 10  # 50 / 5
    assert_limited(*api.call("POST", "/rules/check", body=body))
    assert [k for k in rl_redis.scan_iter(f"ludic:ratelimit:LIMITER/extra/{client_address(me)}/*")]
    assert api.call("POST", "/games", body={"seats": ["human", "bot:easy", "bot:easy"]})[0] == 201  # its own bucket
    assert ludic(other).call("POST", "/rules/check", body=body)[0] == 200

def test_limits_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LUDOTECA_RATE_LIMIT", "LUDOTECA_RATE_LIMIT_READS", "LUDOTECA_RATE_LIMIT_CREATE",
                 "LUDOTECA_RATE_LIMIT_FAILURES", "LUDOTECA_TRUSTED_PROXIES"):
        monkeypatch.delenv(name, raising=False)
    assert Limits.from_settings(Settings.from_env()) == Limits(writes=600, reads=1200, create=30, failures=10,
                                                               extras=120)
    assert Settings.from_env().trusted_proxies == 0
    monkeypatch.setenv("LUDOTECA_RATE_LIMIT", "120")
    monkeypatch.setenv("LUDOTECA_RATE_LIMIT_FAILURES", "3")
    monkeypatch.setenv("LUDOTECA_TRUSTED_PROXIES", "1")
    settings = Settings.from_env()
    assert Limits.from_settings(settings) == Limits(writes=120, reads=240, create=6, failures=3, extras=24)
    assert settings.trusted_proxies == 1


@pytest.mark.integration
@pytest.mark.timeout(300)
def test_an_abusive_client_is_limited_and_never_starves_another(
        rl_url: str, rl_redis: redis.Redis, tmp_path: Path) -> None:
    """One abuser (8 threads: its own token respelled, bogus tokens, malformed headers, creation,
    a spoofed X-Forwarded-For on everything) through the front door, as `make run` stacks it; the
    victim's moves in its own game are never refused."""
    sup = Supervisor()
    limits = {"LUDOTECA_RATE_LIMIT": "120", "LUDOTECA_RATE_LIMIT_READS": "", "LUDOTECA_RATE_LIMIT_CREATE": "10",
              "LUDOTECA_RATE_LIMIT_FAILURES": "20"}
    try:
        svc, door = free_port(), free_port()
        sup.start("ludix", gunicorn_argv("ludoteca.entrypoints.wsgi:make_app()", svc, ROOT),
                  env={"LUDOTECA_GAME": "ludix", "REDIS_URL": rl_url, **BEHIND_DOOR, **limits},
                  cwd=ROOT, log=tmp_path / "ludix.log")
        assert wait_http(f"http://127.0.0.1:{svc}/readyz", 60), (tmp_path / "ludix.log").read_text()
        start_front_door(sup, door, {"ludix": f"http://127.0.0.1:{svc}"}, ROOT, tmp_path / "front-door.log")
        result = run_scenario(f"http://127.0.0.1:{door}/ludix", victim_moves=30, abuse_wait=60)
    finally:
        sup.stop()
    victim, abuser = result["victim"], result["abuser"]
    quiet, loud = result["quiet"], result["loud"]
    print(f"\nabuser (8 threads, {abuser.total()} requests, {result['abuse_rate']:.0f}/s while the victim "
          f"played): {abuser.total(429)} answered 429; {describe(abuser)}")
    print(f"victim: {sum(victim.statuses.values())} moves, {victim.statuses[429]} refused with 429; "
          f"move p50 {ms(p50(quiet))} ms quiet, {ms(p50(loud))} ms under abuse "
          f"(p90 {ms(percentile(quiet, 0.9))} / {ms(percentile(loud, 0.9))} ms)")
    assert result["limited"], describe(abuser)
    assert not abuser.errors and not abuser.bad_429s, (abuser.errors, abuser.bad_429s[:3])
    assert victim.statuses[429] == 0 and set(victim.statuses) == {200}, victim.statuses
    summary = abuser.summary()
    assert all(summary[k].get(429, 0) > 0 for k in KINDS), summary
    # accepted at most the limits (fixed windows of 60 s: two windows at most in this test)
    accepted = {k: sum(n for st, n in summary[k].items() if st != 429) for k in KINDS}
    assert accepted["own-token"] <= 2 * 120 and accepted["create"] <= 2 * 10
    assert accepted["bogus-token"] + accepted["malformed"] <= 2 * 20
    found = keys(rl_redis)
    assert all(ttl > 0 for ttl in found.values()), found
    joined = " ".join(found)
    assert "203.0.113." not in joined  # spoofed addresses never became buckets
    assert len([k for k in found if "/fail/127.0.0.1/" in k]) == 1
    for token in abuser.bogus_tokens:
        assert token not in joined and hashlib.sha256(token.encode()).hexdigest()[:16] not in joined


def create_from(port: int, source: str | None = None, forwarded_for: str | None = None,
                path: str = "/games") -> int:
    """``POST {path}`` on 127.0.0.1:``port`` from the loopback address ``source`` (Linux routes
    all of 127.0.0.0/8 to loopback: each is a client address of its own)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30,
                                      source_address=(source, 0) if source else None)
    try:
        headers = {"Content-Type": "application/json", **({"X-Forwarded-For": forwarded_for} if forwarded_for else {})}
        conn.request("POST", path, body=json.dumps({"seats": ["human", "human"]}), headers=headers)
        return conn.getresponse().status
    finally:
        conn.close()


@pytest.mark.integration
@pytest.mark.timeout(300)
def test_only_the_front_door_names_the_client(rl_url: str, rl_redis: redis.Redis, tmp_path: Path) -> None:
    """Issue 20, finding 7, as ``make run`` stacks it: the front door dials the service from its own
    loopback address (LUDOTECA_PROXY_ADDRESSES), so a client calling the service's port directly
    from 127.0.0.1 gets no fresh bucket from a forged ``X-Forwarded-For`` (was: a new bucket per
    value), while two clients of the front door (127.0.1.1, 127.0.1.2) keep separate buckets,
    whatever they forge."""
    sup = Supervisor()
    try:
        svc, door = free_port(), free_port()
        sup.start("ludix", gunicorn_argv("ludoteca.entrypoints.wsgi:make_app()", svc, ROOT),
                  env={"LUDOTECA_GAME": "ludix", "REDIS_URL": rl_url, **BEHIND_DOOR,
                       "LUDOTECA_RATE_LIMIT": "100", "LUDOTECA_RATE_LIMIT_CREATE": "3"},
                  cwd=ROOT, log=tmp_path / "ludix.log")
        assert wait_http(f"http://127.0.0.1:{svc}/readyz", 60), (tmp_path / "ludix.log").read_text()
        start_front_door(sup, door, {"ludix": f"http://127.0.0.1:{svc}"}, ROOT, tmp_path / "front-door.log")
        forged = [create_from(svc, forwarded_for=f"198.51.100.{i}") for i in range(1, 7)]
        assert forged == [201] * 3 + [429] * 3, forged
        one = [create_from(door, "127.0.1.1", f"203.0.113.{i}", "/ludix/games") for i in range(1, 6)]
        two = [create_from(door, "127.0.1.2", None, "/ludix/games") for _ in range(5)]
    finally:
        sup.stop()
    assert one == [201] * 3 + [429] * 2 and two == [201] * 3 + [429] * 2, (one, two)
    found = " ".join(keys(rl_redis, "LIMITER/new/*"))
    assert "/new/127.0.1.1/" in found and "/new/127.0.1.2/" in found and "/new/127.0.0.1/" in found
    assert "198.51.100." not in found and "203.0.113." not in found
