"""deploy/Procfile is honest: honcho (pinned in requirements-dev.txt) accepts it and runs it as is.

Every line is a valid /bin/sh command (honcho and foreman run each through the shell: an unquoted
``make_app()`` was a syntax error there), ``honcho check`` passes, and ``honcho start`` runs the
worker, the sweeper and a game service from it for real, on an embedded Redis: the service
answers, and the worker started from the ``$QUEUES`` line plays a bots' game to the end. The one
change to the copy it runs is the service's port (a free one: the fixed ports are never bound in
tests); ``make run``'s reading of the same file is tests/integration/test_devstack.py's.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import requests
from conftest import wait_until
from ludoteca.entrypoints.devstack import free_port, port_open, wait_http
from ludoteca.entrypoints.frontdoor import FRONT_DOOR, read_procfile
from ludoteca.entrypoints.manifests import objects
from ludoteca.service_layer import registry

ROOT = Path(__file__).resolve().parents[2]
PROCFILE = ROOT / "deploy" / "Procfile"
BIN = Path(sys.executable).parent
HONCHO = str(BIN / "honcho")


def test_every_line_is_a_valid_shell_command() -> None:
    procfile = read_procfile(PROCFILE)
    assert {"worker", "sweeper", FRONT_DOOR, *registry.names()} <= set(procfile)
    for name, line in procfile.items():
        done = subprocess.run(["sh", "-n", "-c", line], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, (name, done.stderr)
    # the check can fail: the line as it was before it was quoted
    broken = "gunicorn -c deploy/gunicorn.conf.py -b 127.0.0.1:8004 ludoteca.entrypoints.wsgi:make_app()"
    assert subprocess.run(["sh", "-n", "-c", broken], capture_output=True, timeout=30).returncode != 0


def test_the_shell_and_make_run_read_the_same_command_lines() -> None:
    """honcho runs a line through /bin/sh, ``make run`` (ludoteca.entrypoints.devstack) splits it with shlex
    after spelling out ``$QUEUES``: both give each process the same argv."""
    queues = ",".join(registry.names())
    for name, line in read_procfile(PROCFILE).items():
        done = subprocess.run(["sh", "-c", f"set -- {line}; printf '%s\\0' \"$@\""],
                              env={**os.environ, "QUEUES": queues}, capture_output=True, timeout=30, check=True)
        assert done.stdout.decode().split("\0")[:-1] == shlex.split(line.replace("$QUEUES", queues)), name


def test_honcho_checks_the_procfile() -> None:
    done = subprocess.run([HONCHO, "-f", str(PROCFILE), "-d", str(ROOT), "check"], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    listed = re.search(r"Valid procfile detected \(([^)]*)\)", done.stderr)
    assert listed is not None, done.stderr
    assert listed.group(1).split(", ") == list(read_procfile(PROCFILE))


def find(kind: str, name: str) -> dict:
    found, = (d for d in objects(ROOT) if d["kind"] == kind and d["metadata"]["name"] == name)
    return found


def finished(base: str, gid: str) -> bool:
    with contextlib.suppress(requests.RequestException, ValueError):
        return bool(requests.get(f"{base}/games/{gid}", timeout=10).json()["status"] == "finished")
    return False


@pytest.mark.integration
@pytest.mark.timeout(400)
def test_honcho_starts_the_worker_the_sweeper_and_a_service(tmp_path: Path, redis_url: str) -> None:
    port = free_port()
    text = PROCFILE.read_text()
    line = read_procfile(PROCFILE)["ludix"]
    assert text.count("-b 127.0.0.1:8004 ") == 1 and "-b 127.0.0.1:8004 " in line
    copy = tmp_path / "Procfile"
    metrics = {"9100": str(free_port()), "9101": str(free_port())}  # the worker's and the sweeper's
    for fixed in metrics:
        assert text.count(f"LUDOTECA_METRICS_PORT={fixed} ") == 1
    text = text.replace("LUDOTECA_METRICS_PORT=9100 ", f"LUDOTECA_METRICS_PORT={metrics['9100']} ")
    text = text.replace("LUDOTECA_METRICS_PORT=9101 ", f"LUDOTECA_METRICS_PORT={metrics['9101']} ")
    copy.write_text(text.replace("-b 127.0.0.1:8004 ", f"-b 127.0.0.1:{port} "))
    env = {**os.environ, "REDIS_URL": redis_url, "QUEUES": "ludix", "PATH": f"{BIN}:{os.environ['PATH']}",
           "PYTHONUNBUFFERED": "1"}
    env.pop("BROKER_URL", None)  # the default: the sessions' server, database 1
    log_path = tmp_path / "honcho.log"
    log = open(log_path, "wb")  # noqa: SIM115 - closed below
    honcho = subprocess.Popen([HONCHO, "--no-colour", "-f", str(copy), "-d", str(tmp_path), "start",
                               "worker", "sweeper", "ludix"],
                              cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def children() -> list[int]:
        return [int(p) for p in re.findall(rb"started \(pid=(\d+)\)", log_path.read_bytes())]

    try:
        base = f"http://127.0.0.1:{port}"
        assert wait_http(f"{base}/readyz", 120), log_path.read_text()[-3000:]
        assert wait_until(lambda: b"ready." in log_path.read_bytes(), 120), log_path.read_text()[-3000:]
        assert wait_until(lambda: b"sweeping ludix" in log_path.read_bytes(), 60), log_path.read_text()[-3000:]
        assert len(children()) == 3
        for fixed, free in metrics.items():  # the worker's and the sweeper's metrics are served (issue 20)
            scraped = requests.get(f"http://127.0.0.1:{free}/metrics", timeout=10)
            assert scraped.status_code == 200 and "ludoteca_" in scraped.text, (fixed, scraped.text[:300])
        created = requests.post(f"{base}/games", json={"seats": ["bot:random", "bot:steady"]}, timeout=10)
        assert created.status_code == 201, created.text
        gid = created.json()["game"]["id"]
        assert wait_until(lambda: finished(base, gid), 240, interval=0.5), log_path.read_text()[-3000:]
        # the workers' liveness probe (docker-compose.yml, deploy/k8s) answers for this worker only
        probe, = find("Deployment", "worker-ludix")["spec"]["template"]["spec"]["containers"][0][
            "livenessProbe"]["exec"]["command"][2:]
        for hostname, expected in ((socket.gethostname(), 0), ("no-such-worker", 1)):
            done = subprocess.run(["sh", "-c", probe], env={**env, "HOSTNAME": hostname}, cwd=ROOT,
                                  capture_output=True, text=True, timeout=120)
            assert (done.returncode != 0) == bool(expected), (hostname, done.stdout, done.stderr)
        assert honcho.poll() is None
        honcho.send_signal(signal.SIGTERM)  # honcho stops every process it started
        honcho.wait(60)
    finally:
        for pid in children():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
        if honcho.poll() is None:
            os.killpg(honcho.pid, signal.SIGKILL)
            honcho.wait(10)
        log.close()
    assert wait_until(lambda: not port_open(port), 30)
