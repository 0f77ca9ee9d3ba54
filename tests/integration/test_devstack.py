"""``make run``'s supervisor (``python -m ludoteca.entrypoints.devstack``) on a Procfile of its own: the Ludix
service and the front door, on free ports (the embedded Redis too). The front door comes up once
the service answers and routes only the games the Procfile serves; killed, it is started again
(``RESTARTED``); Ctrl-C (SIGINT) stops everything and frees every port.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import requests
from conftest import wait_until
from ludoteca.entrypoints.devstack import free_port, port_open, wait_http
from ludoteca.entrypoints.frontdoor import read_procfile

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
ROOT = Path(__file__).resolve().parents[2]


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
    except OSError:
        return ""


def caddy_pid(root: Path) -> int | None:
    pidfile = root / "var" / "devstack.pids"
    pids = [int(p) for p in pidfile.read_text().split()] if pidfile.exists() else []
    alive = [p for p in pids if "caddy" in cmdline(p).split(" ", 1)[0]]
    return alive[-1] if alive else None


def post_from(source: str, port: int, path: str, forwarded_for: str) -> int:
    """A new game, from the loopback address ``source`` (all of 127/8 is loopback)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    try:
        conn.request("POST", path, body=json.dumps({"seats": ["human", "human"]}),
                     headers={"Content-Type": "application/json", "X-Forwarded-For": forwarded_for})
        return conn.getresponse().status
    finally:
        conn.close()


def test_make_run_starts_restarts_and_stops_the_front_door(tmp_path: Path) -> None:
    ludix, door, redis_port = free_port(), free_port(), free_port()
    (tmp_path / "deploy").mkdir()
    shutil.copy(ROOT / "deploy" / "gunicorn.conf.py", tmp_path / "deploy")
    metrics = free_port()
    procfile = read_procfile(ROOT / "deploy" / "Procfile")  # the real lines, on free ports
    (tmp_path / "deploy" / "Procfile").write_text(
        f"ludix: {procfile['ludix'].replace('127.0.0.1:8004', f'127.0.0.1:{ludix}')}\n"
        f"worker: {procfile['worker'].replace('PORT=9100', f'PORT={metrics}')}\n"
        f"front-door: python -m ludoteca.entrypoints.frontdoor --serve 127.0.0.1:{door}\n")
    log = open(tmp_path / "devstack.log", "wb")  # noqa: SIM115 - closed below
    stack = subprocess.Popen([sys.executable, "-m", "ludoteca.entrypoints.devstack", "--root", str(tmp_path)],
                             env={**os.environ, "LUDOTECA_REDIS_PORT": str(redis_port)}, cwd=tmp_path,
                             stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        # the devstack says so once the front door answers (and not before the service does)
        assert wait_until(lambda: b"Stop: Ctrl-C" in (tmp_path / "devstack.log").read_bytes(), 120), \
            (tmp_path / "devstack.log").read_text()
        console = (tmp_path / "devstack.log").read_text()
        # issue 25: a console a person can read: a line a step, the summary, no access log
        assert f"Play in a browser: http://127.0.0.1:{door}/" in console and "ludoteca.access" not in console
        assert len(console.splitlines()) < 30, console
        base = f"http://127.0.0.1:{door}"
        assert requests.get(f"{base}/", timeout=10).json() == {"games": {"ludix": "/ludix/"}}
        assert requests.get(f"{base}/ludix/odds", timeout=10).status_code == 200
        assert requests.get(f"{base}/ludic/games", timeout=10).status_code == 404  # not in this Procfile
        # issue 20: the service reads X-Forwarded-For from the front door only (it dials from its
        # own loopback address), a direct client's is ignored; the worker serves its metrics
        assert post_from("127.0.1.5", door, "/ludix/games", "203.0.113.9") == 201
        assert post_from("127.0.1.6", ludix, "/games", "198.51.100.7") == 201
        service_log = tmp_path / "var" / "log" / "ludix.log"  # every process's output is in var/log
        assert wait_until(lambda: b"client=127.0.1.6" in service_log.read_bytes(), 10)
        out = (tmp_path / "devstack.log").read_text()
        served = "\n".join(line for line in service_log.read_text().splitlines()
                           if "ludoteca.access: POST /games " in line)
        assert "client=127.0.1.5" in served and "client=127.0.1.6" in served, served
        assert "203.0.113.9" not in served and "198.51.100.7" not in served, served
        assert "[devstack] open files: soft limit" in out
        assert wait_until(lambda: port_open(metrics), 60), out[-3000:]
        assert "ludoteca_" in requests.get(f"http://127.0.0.1:{metrics}/metrics", timeout=10).text
        first = caddy_pid(tmp_path)
        assert first is not None
        assert (tmp_path / "var" / f"front-door-{door}" / "Caddyfile").is_file()
        os.kill(first, signal.SIGKILL)
        assert wait_until(lambda: caddy_pid(tmp_path) not in (None, first), timeout=30)
        assert wait_http(f"{base}/healthz", 30)
        assert requests.get(f"{base}/ludix/odds", timeout=10).status_code == 200
        assert stack.poll() is None  # the rest went on
        stack.send_signal(signal.SIGINT)
        assert stack.wait(60) == 0
    finally:
        if stack.poll() is None:
            os.killpg(stack.pid, signal.SIGKILL)
            stack.wait(10)
        log.close()
    assert not any(port_open(p) for p in (ludix, door, redis_port)), (tmp_path / "devstack.log").read_text()
