"""Every scenario of the load kit, for every game, for about 20 seconds against a real stack:
its own Redis, a real Celery worker (its metrics on a port of its own) and every game under
gunicorn behind the front door, in load-test mode with the default rate limits
(``LUDOTECA_LOAD_TEST_ADDRESSES=127.0.0.1``). Run by the very command ``make load`` runs
(``python -m loadtest``), one simulated client per game and scenario.

Then: no simulated client crashed, no answer was unexpected (wrong status, wrong shape, a problem
without its type, a 429 or 503 without ``Retry-After``, a gap in a spectator's events), no 429
(the load-test mode), and every game progressed: moves applied (as many on the server's counter as
the clients saw), its bots played by the worker, its tables watched and its lobby used; the
report, the CSV files and the summary were written.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import served_games, start_worker
from ludoteca.entrypoints.devstack import Supervisor, embedded_redis, free_port

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SECONDS = 20
SCENARIOS = ("table", "bots", "follow", "watch", "lobby")


@dataclass(frozen=True)
class Stack:
    door: str
    services: dict[str, str]
    worker_metrics: str


def loadable_games() -> list[str]:
    sys.path.insert(0, str(ROOT))
    from loadtest.games import loadable

    return loadable()


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    logs = tmp_path_factory.mktemp("load-stack")
    sup = Supervisor()
    try:
        with embedded_redis(sup, logs / "redis") as url:
            port = free_port()
            start_worker(sup, "load-worker", {"REDIS_URL": url, "LUDOTECA_METRICS_PORT": str(port),
                                              "LUDOTECA_METRICS_ADDR": "127.0.0.1"}, logs / "worker.log")
            env = {"LUDOTECA_RATE_LIMIT": "600", "LUDOTECA_LOAD_TEST_ADDRESSES": "127.0.0.1"}
            with served_games(tuple(loadable_games()), url, logs, env) as (door, services):
                yield Stack(door, services, f"http://127.0.0.1:{port}/metrics")
    finally:
        sup.stop()


def test_every_scenario_of_every_game(stack: Stack, tmp_path: Path) -> None:
    games = sorted(stack.services)
    sources = [f"{url}/metrics" for url in stack.services.values()] + [stack.worker_metrics]
    users = len(games) * len(SCENARIOS)
    argv = [sys.executable, "-m", "loadtest", "--host", stack.door, "--metrics", ",".join(sources),
            "--users", str(users), "--spawn-rate", str(users), "--duration", f"{SECONDS}s", "--think", "0.2",
            "--scenarios", ",".join(f"{s}=1" for s in SCENARIOS), "--out", str(tmp_path), "--name", "run"]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
    run = tmp_path / "run"
    log = (run / "locust.log").read_text()[-3000:] if (run / "locust.log").exists() else ""
    assert done.returncode == 0, done.stdout + done.stderr + log
    summary = json.loads((run / "summary.json").read_text())
    assert summary["crashed_users"] == 0, summary["crashes"]
    assert summary["unexpected"] == 0, summary["unexpected_samples"]
    assert summary["metrics_unreadable"] == {}
    assert sorted(summary["games"]) == games
    for game, g in summary["games"].items():
        server = g["server"]
        assert g["moves_applied"] > 0, (game, g)
        assert server["moves"].get("applied 200", 0) >= g["moves_applied"], (game, server["moves"])
        assert "429" not in g["statuses"] and not any(s.startswith("5") and s != "503" for s in g["statuses"]), g
        assert server["games_created"] > 0 and server["bot_turns"].get("played", 0) > 0, (game, server)
        assert g["watched"].get("tables", 0) > 0 and g["watched"].get("events", 0) > 0, (game, g["watched"])
        assert g["lobby"].get("hosted", 0) + g["lobby"].get("joined", 0) > 0, (game, g["lobby"])
        assert g["tables"].get("started", 0) > 0, (game, g["tables"])
        assert g["tables"].get("following its stream", 0) > 0, (game, g["tables"])  # the follow scenario
        assert g["listings"].get("from a turn message", 0) > 0, (game, g.get("listings"))
        assert g["move_ms"]["p50"] is not None and server["move_seconds"]["p50"] is not None
    for name in ("report.html", "locust_stats.csv", "summary.md", "metrics.json"):
        assert (run / name).stat().st_size > 0, name
    assert (tmp_path / "latest").resolve() == run.resolve()
    assert "| game | moves applied |" in done.stdout
