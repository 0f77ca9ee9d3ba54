"""``make run``'s supervisor (``python -m ludoteca.entrypoints.devstack``) on a Procfile of its own: the Ludix
service and the front door, on free ports (the embedded Redis too). The front door comes up once
the service answers and routes only the games the Procfile serves; killed, it is started again
(``RESTARTED``); Ctrl-C (SIGINT) stops everything and frees every port.
"""

from __future__ import annotations

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


def test_make_run_starts_restarts_and_stops_the_front_door(tmp_path: Path) -> None:
    ludix, door, redis_port = free_port(), free_port(), free_port()
    (tmp_path / "deploy").mkdir()
    shutil.copy(ROOT / "deploy" / "gunicorn.conf.py", tmp_path / "deploy")
    (tmp_path / "deploy" / "Procfile").write_text(
        f"ludix: env LUDOTECA_GAME=ludix LUDOTECA_TRUSTED_PROXIES=1 gunicorn -c deploy/gunicorn.conf.py "
        f"-b 127.0.0.1:{ludix} ludoteca.entrypoints.wsgi:make_app()\n"
        f"front-door: python -m ludoteca.entrypoints.frontdoor --serve 127.0.0.1:{door}\n")
    log = open(tmp_path / "devstack.log", "wb")  # noqa: SIM115 - closed below
    stack = subprocess.Popen([sys.executable, "-m", "ludoteca.entrypoints.devstack", "--root", str(tmp_path)],
                             env={**os.environ, "LUDOTECA_REDIS_PORT": str(redis_port)}, cwd=tmp_path,
                             stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        # the devstack says so once the front door answers (and not before the service does)
        assert wait_until(lambda: b"Ctrl-C stops everything" in (tmp_path / "devstack.log").read_bytes(), 120), \
            (tmp_path / "devstack.log").read_text()
        base = f"http://127.0.0.1:{door}"
        assert requests.get(f"{base}/", timeout=10).json() == {"games": {"ludix": "/ludix/"}}
        assert requests.get(f"{base}/ludix/odds", timeout=10).status_code == 200
        assert requests.get(f"{base}/ludic/games", timeout=10).status_code == 404  # not in this Procfile
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
