"""Metrics across processes: a real gunicorn service with two workers, a real Celery worker and
the sweeper, each exporting ``ludoteca.adapters.observe``'s families in multiprocess mode.

A scrape reaches one gunicorn worker; its totals must be every worker's (the per-process
counters this replaces read 10, 30, 10, 30). The stack runs on databases of its own (sessions 6,
broker 7), so no other test's worker or sweeper plays its bots or empties its queues.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
import requests
from conftest import wait_until
from ludoteca.entrypoints.devstack import Supervisor, free_port, start_service
from ludoteca.service_layer import registry
from prometheus_client.parser import text_string_to_metric_families

pytestmark = [pytest.mark.integration, pytest.mark.timeout(400)]
ROOT = Path(__file__).resolve().parents[2]
UNCONSUMED = "speculation"  # the worker here leaves this queue alone: its depth is what we push


def database(url: str, db: int) -> str:
    return url.rsplit("/", 1)[0] + f"/{db}"


def scrape(url: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    """Samples by name, each with its labels (a fresh connection: any worker may answer)."""
    r: requests.Response | None = None
    for _ in range(20):  # a process just started may not serve yet; prometheus-client's multiprocess
        # collector may meet a file another process is creating (a 500 once in CI): scrape again, as
        # Prometheus would at its next interval
        try:
            r = requests.get(url, timeout=10, headers={"Connection": "close"})
        except requests.ConnectionError:
            time.sleep(0.25)
            continue
        if r.status_code < 500:
            break
        time.sleep(0.25)
    assert r is not None, f"{url} refused every connection"
    assert r.status_code == 200, r.text
    out: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in text_string_to_metric_families(r.text):
        for sample in family.samples:
            out.setdefault(sample.name, []).append((dict(sample.labels), sample.value))
    return out


def total(samples: dict[str, list[tuple[dict[str, str], float]]], name: str, **labels: str) -> float:
    return sum(v for got, v in samples.get(name, []) if all(got.get(k) == w for k, w in labels.items()))


@dataclass
class Stack:
    service: str
    worker_metrics: str
    sweeper_metrics: str
    multiproc_dir: Path
    broker: redis.Redis
    log_dir: Path
    master_pid: int


@pytest.fixture(scope="module")
def stack(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    logs = tmp_path_factory.mktemp("metrics")
    sessions, broker = database(redis_url, 6), database(redis_url, 7)
    env = {"REDIS_URL": sessions, "BROKER_URL": broker}
    mp = logs / "multiproc"  # given explicitly here, to look at the workers' files
    sup = Supervisor()
    try:
        port, wport, sport = free_port(), free_port(), free_port()
        start_service(sup, "ludix", port, sessions, ROOT, logs / "ludix.log",
                      env={**env, "GUNICORN_WORKERS": "2", "PROMETHEUS_MULTIPROC_DIR": str(mp)})
        queues = ",".join(q for q in registry.names() if q != UNCONSUMED)
        wlog = logs / "worker.log"
        proc = sup.start("worker", [sys.executable, "-m", "celery", "-A", "ludoteca.adapters.worker", "worker",
                                    "-Q", queues, "--concurrency", "2", "--loglevel", "INFO", "--without-gossip",
                                    "--without-mingle", "--without-heartbeat", "-n", f"metrics-{os.getpid()}@%h"],
                         env={**env, "LUDOTECA_METRICS_PORT": str(wport)}, cwd=ROOT, log=wlog)
        assert wait_until(lambda: "ready." in (wlog.read_text() if wlog.exists() else "") or proc.poll() is not None,
                          timeout=120)
        assert proc.poll() is None, wlog.read_text()[-3000:]
        sup.start("sweeper", [sys.executable, "-m", "ludoteca.adapters.sweeper", "--interval", "0.3", "--grace", "1"],
                  env={**env, "LUDOTECA_METRICS_PORT": str(sport)}, cwd=ROOT, log=logs / "sweeper.log")
        yield Stack(f"http://127.0.0.1:{port}", f"http://127.0.0.1:{wport}/metrics",
                    f"http://127.0.0.1:{sport}/metrics", mp, redis.Redis.from_url(broker), logs, sup.procs["ludix"].pid)
    finally:
        sup.stop()


def post(url: str, body: Any, token: str | None = None, **headers: str) -> requests.Response:
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return requests.post(url, json=body, headers={"Connection": "close", **headers}, timeout=10)


def play_moves(base: str, wanted: int) -> dict[str, int]:
    """Two humans play Ludix until ``wanted`` moves applied; one refused and one replayed move on
    the way. Returns the counts by outcome (each request on a fresh connection)."""
    counts = {"applied": 0, "refused": 0, "replayed": 0}
    while counts["applied"] < wanted:
        created = post(f"{base}/games", {"seats": ["human", "human"], "options": {"target": 50}})
        assert created.status_code == 201, created.text
        gid, tokens = created.json()["game"]["id"], [created.json()["token"]]
        joined = post(f"{base}/games/{gid}/players", {})
        tokens.append(joined.json()["token"])
        game = joined.json()["game"]
        while game["status"] == "active" and counts["applied"] < wanted:
            seat = game["to_act"][0]
            legal = requests.get(f"{base}/games/{gid}/actions", timeout=10,
                                 headers={"Authorization": f"Bearer {tokens[seat]}", "Connection": "close"})
            action = legal.json()["actions"][0]
            key = f"k-{gid}-{game['version']}"
            r = post(f"{base}/games/{gid}/actions", action, tokens[seat], **{"Idempotency-Key": key})
            assert r.status_code == 200, r.text
            counts["applied"] += 1
            game = r.json()["game"]
            if counts["replayed"] == 0:
                again = post(f"{base}/games/{gid}/actions", action, tokens[seat], **{"Idempotency-Key": key})
                assert again.headers.get("Idempotent-Replayed") == "true"
                counts["replayed"] += 1
                refused = post(f"{base}/games/{gid}/actions", {"type": "fly"}, tokens[seat])
                assert refused.status_code == 422
                counts["refused"] += 1
    return counts


def media_type(header: str) -> tuple[str, dict[str, str]]:
    """A Content-Type parsed as Prometheus 3 does (Go's ``mime.ParseMediaType``): a parameter
    named twice is an error ("mime: duplicate parameter name"), and the scrape fails."""
    kind, *params = [part.strip() for part in header.split(";")]
    parsed: dict[str, str] = {}
    for param in params:
        name, sep, value = param.partition("=")
        assert sep and name.strip() and value.strip(), f"malformed parameter {param!r} in {header!r}"
        name = name.strip().lower()
        assert name not in parsed, f"duplicate parameter name {name!r} in {header!r}"
        parsed[name] = value.strip().strip('"')
    return kind.lower(), parsed


def up(url: str) -> bool:
    try:
        return requests.get(url, timeout=5).status_code == 200
    except requests.ConnectionError:
        return False


def test_the_metrics_content_type_is_one_prometheus_accepts(stack: Stack) -> None:
    """Prometheus's text format: ``text/plain``, a version it knows, one ``charset=utf-8``; the
    service's /metrics (Flask) said ``...; charset=utf-8; charset=utf-8`` (issue 20, finding 8)."""
    from prometheus_client import CONTENT_TYPE_LATEST

    for url in (f"{stack.service}/metrics", stack.worker_metrics, stack.sweeper_metrics):
        assert wait_until(lambda u=url: up(u), timeout=60), url  # the sweeper may be starting
        header = requests.get(url, timeout=10).headers["Content-Type"]
        kind, params = media_type(header)
        assert kind == "text/plain" and params.get("version") in ("0.0.4", "1.0.0"), (url, header)
        assert params.get("charset", "").lower() == "utf-8", (url, header)
        if url.startswith(stack.service):  # the worker and the sweeper: prometheus-client's own server
            assert header == CONTENT_TYPE_LATEST, (url, header)


def test_series_exist_from_the_start_and_the_heartbeat_only_where_the_sweeper_runs(stack: Stack) -> None:
    """Per-game series are exported at 0 from a process's start, not from a game's first event
    (the documented active-games expression, created minus finished, dropped a game that had
    only one of them); ``ludoteca_sweeper_last_pass_timestamp_seconds`` comes from the sweeper
    only (every service exported a 0, and the heartbeat alert fired on all of them)."""
    service, worker = scrape(f"{stack.service}/metrics"), scrape(stack.worker_metrics)
    for name in ("ludoteca_games_created_total", "ludoteca_games_finished_total"):
        assert any(lab.get("game") == "ludix" for lab, _ in service.get(name, [])), (name, sorted(service))
    assert any(lab.get("outcome") == "applied" for lab, _ in service.get("ludoteca_moves_total", []))
    for game in registry.names():
        assert any(lab.get("game") == game for lab, _ in worker.get("ludoteca_bot_turns_total", [])), game
        assert any(lab.get("game") == game for lab, _ in worker.get("ludoteca_games_finished_total", [])), game
    assert {lab["check"] for lab, v in service.get("ludoteca_store_health", []) if v == 1} == {
        "reachable", "accepts_writes", "aof_last_write", "aof_last_bgrewrite"}
    heartbeat = "ludoteca_sweeper_last_pass_timestamp_seconds"
    assert heartbeat not in service and heartbeat not in worker
    assert wait_until(lambda: total(scrape(stack.sweeper_metrics), heartbeat) > 0, timeout=30)


def test_service_totals_are_every_workers(stack: Stack) -> None:
    metrics = f"{stack.service}/metrics"
    before = scrape(metrics)
    assert total(before, "ludoteca_moves_total") == 0
    counts = play_moves(stack.service, 40)
    # both gunicorn workers served requests (each keeps its histogram file); more /healthz calls
    # until they have, which the kernel's spreading of new connections makes quick
    def pids() -> set[str]:
        return {f.stem.rsplit("_", 1)[1] for f in stack.multiproc_dir.glob("histogram_*.db")}
    assert wait_until(lambda: len(pids()) >= 2 or requests.get(f"{stack.service}/healthz", timeout=5,
                                                                headers={"Connection": "close"}) is None,
                      timeout=60, interval=0), pids()
    scrapes = [scrape(metrics) for _ in range(6)]
    metric_scrapes = [total(s, "ludoteca_http_request_duration_seconds_count", route="/metrics") for s in scrapes]
    # each scrape sees every earlier scrape, whichever worker served it
    assert metric_scrapes == [metric_scrapes[0] + i for i in range(6)], metric_scrapes
    for s in scrapes:
        assert total(s, "ludoteca_moves_total", outcome="applied", status="200") == counts["applied"]
        assert total(s, "ludoteca_moves_total", outcome="replayed") == counts["replayed"]
        assert total(s, "ludoteca_moves_total", outcome="refused", status="422") == counts["refused"]
        assert total(s, "ludoteca_move_duration_seconds_count") == sum(counts.values())
        assert total(s, "ludoteca_games_created_total", game="ludix") >= 1
    last = scrapes[-1]
    # histograms have their buckets, cumulative, the last one the count
    buckets = [(float(lab["le"]), v) for lab, v in last["ludoteca_move_duration_seconds_bucket"]
               if lab["action"] != "other"]
    per_le: dict[float, float] = {}
    for le, v in buckets:
        per_le[le] = per_le.get(le, 0) + v
    values = [per_le[le] for le in sorted(per_le)]
    assert len(values) >= 10 and values == sorted(values) and values[-1] == counts["applied"] + counts["replayed"]
    posts = total(last, "ludoteca_http_request_duration_seconds_count", route="/games/<string:game_id>/actions",
                  method="POST")
    assert posts == sum(counts.values())
    assert total(last, "ludoteca_http_request_duration_seconds_count", route="/games/<string:game_id>/actions",
                 method="POST", status="4xx") == counts["refused"]

    # a worker killed and replaced: what it counted stays in the totals (marked dead by child_exit)
    victim = next(int(p) for p in sorted(pids()) if parent(int(p)) == stack.master_pid)
    os.kill(victim, signal.SIGKILL)
    assert wait_until(lambda: parent(victim) != stack.master_pid and len(workers(stack.master_pid)) == 2, timeout=60)
    assert wait_until(lambda: requests.get(f"{stack.service}/readyz", timeout=5).status_code == 200, timeout=60)
    for _ in range(4):
        after = scrape(metrics)
        assert total(after, "ludoteca_moves_total", outcome="applied") == counts["applied"]
        assert total(after, "ludoteca_move_duration_seconds_count") == sum(counts.values())
    assert "Traceback" not in (stack.log_dir / "ludix.log").read_text()


def parent(pid: int) -> int | None:
    """The parent of a live process (None when it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


def workers(master: int) -> list[int]:
    return [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and parent(int(p.name)) == master]


def test_bot_turns_and_queue_depth_from_the_worker_and_the_sweeper(stack: Stack) -> None:
    created = post(f"{stack.service}/games", {"seats": ["bot:random", "bot:random"], "options": {"target": 50}})
    assert created.status_code == 201
    gid = created.json()["game"]["id"]

    def finished() -> bool:
        return requests.get(f"{stack.service}/games/{gid}", timeout=10).json()["status"] == "finished"

    assert wait_until(finished, timeout=240), (stack.log_dir / "worker.log").read_text()[-3000:]
    replay = requests.get(f"{stack.service}/games/{gid}/replay", timeout=10).json()
    bot_moves = len(replay["actions"])
    # the worker counts a turn after its move is committed: the game can read finished a moment
    # before the last turn is counted
    def counted() -> bool:
        worker = scrape(stack.worker_metrics)
        return (total(worker, "ludoteca_bot_turns_total", game="ludix", outcome="played") >= bot_moves
                and total(worker, "ludoteca_bot_turn_delay_seconds_count", game="ludix") >= bot_moves)

    assert wait_until(counted, timeout=30), scrape(stack.worker_metrics).get("ludoteca_bot_turns_total")
    worker = scrape(stack.worker_metrics)
    assert total(worker, "ludoteca_bot_turn_delay_seconds_count", game="ludix") >= bot_moves
    assert any(lab["le"] == "+Inf" for lab, _ in worker["ludoteca_bot_turn_delay_seconds_bucket"])
    assert total(worker, "ludoteca_games_finished_total", game="ludix") >= 1
    # the sweeper reads the queues' depth from the broker: the queue nobody consumes holds what we push
    key = UNCONSUMED
    stack.broker.delete(key)
    stack.broker.lpush(key, "a", "b", "c")
    try:
        assert wait_until(lambda: total(scrape(stack.sweeper_metrics), "ludoteca_queue_depth", game=key) == 3,
                          timeout=30)
        sweeper = scrape(stack.sweeper_metrics)
        assert total(sweeper, "ludoteca_queue_depth", game="ludix") == 0
        passes = total(sweeper, "ludoteca_sweeps_total", outcome="ok")
        assert passes >= 1 and total(sweeper, "ludoteca_sweeper_last_pass_timestamp_seconds") > 0
        assert wait_until(lambda: total(scrape(stack.sweeper_metrics), "ludoteca_sweeps_total", outcome="ok") > passes,
                          timeout=30)
    finally:
        stack.broker.delete(key)


def test_a_store_error_is_counted_by_operation(settings: Any) -> None:
    """A service whose Redis refuses connections answers 503 and counts the error (in-process:
    no multiprocess directory, the default registry)."""
    from dataclasses import replace

    from ludoteca.adapters import observe
    from ludoteca.adapters.hosting import create_app

    dead = f"redis://127.0.0.1:{free_port()}/0"
    app = create_app(registry.game("ludix"), replace(settings, redis_url=dead, broker_url=dead))
    before = observe.REDIS_ERRORS.labels("ludix", "GET /games/<string:game_id>", "ConnectionError")._value.get()
    r = app.test_client().get("/games/abc123")
    assert r.status_code == 503 and r.json is not None and r.json["request_id"] == r.headers["X-Request-Id"]
    after = observe.REDIS_ERRORS.labels("ludix", "GET /games/<string:game_id>", "ConnectionError")._value.get()
    assert after == before + 1
    assert b"ludoteca_redis_errors_total" in observe.render()
