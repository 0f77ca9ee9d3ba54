"""The processes of the image write nothing but temporary files: a game service (gunicorn) and a
Celery worker run here with the source tree, the venv, the Python installation and the bots'
tables read-only (read-only bind mounts in a mount namespace of their own, as the containers' read-only
root filesystem), HOME and TMPDIR on a writable directory (the containers' /tmp), and still serve
and play a bots' game to the end. Needs root and util-linux's unshare (the CI machine has both);
elsewhere it is skipped, saying why."""

from __future__ import annotations

import contextlib
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

pytestmark = [pytest.mark.integration, pytest.mark.timeout(400)]
ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
# the tree (and the venv in it), the interpreter the venv points at, the bots' tables
READ_ONLY = [ROOT, Path(os.path.realpath(sys.executable)).parents[1],
             Path(os.environ.get("LUDOTECA_CACHE") or Path.home() / ".cache" / "ludoteca")]
# mount each read-only in a private mount namespace (the rest of the machine sees no change),
# check that it is, then run the command
NAMESPACE = """set -e
mount --make-rprivate /
for dir in $LUDOTECA_RO; do mount --bind "$dir" "$dir"; mount -o remount,bind,ro "$dir"; done
for dir in $LUDOTECA_RO; do if touch "$dir/.rw-probe" 2>/dev/null; then echo "$dir is writable" >&2; exit 97; fi; done
exec "$@"
"""


def can_isolate() -> str:
    if os.geteuid() != 0:
        return "needs root (read-only bind mounts)"
    if shutil.which("unshare") is None:
        return "needs unshare (util-linux)"
    done = subprocess.run(["unshare", "-m", "true"], capture_output=True, timeout=30)
    return "" if done.returncode == 0 else f"unshare -m fails here: {done.stderr.decode()[:200]}"


def test_a_service_and_a_worker_run_on_a_read_only_root(tmp_path: Path, redis_url: str) -> None:
    reason = can_isolate()
    if reason:
        pytest.skip(reason)
    writable = tmp_path / "tmp"
    writable.mkdir()
    cache = READ_ONLY[2]
    assert (cache / "ludix-policy-t300-v1.npz").exists() or any(cache.glob("ludix-policy-*.npz")), \
        "run `make policy` first"
    env = {**os.environ, "REDIS_URL": redis_url, "HOME": str(writable), "TMPDIR": str(writable),
           "LUDOTECA_CACHE": str(cache), "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1",
           "LUDOTECA_RO": " ".join(str(p) for p in READ_ONLY)}
    env.pop("BROKER_URL", None)
    port = free_port()
    commands = {
        "ludix": [str(BIN / "gunicorn"), "-c", "deploy/gunicorn.conf.py", "-b", f"127.0.0.1:{port}",
                  "ludoteca.entrypoints.wsgi:make_app()"],
        "worker": [str(BIN / "celery"), "-A", "ludoteca.adapters.worker", "worker", "-Q", "ludix",
                   "--concurrency", "2"],
    }
    procs: dict[str, subprocess.Popen[bytes]] = {}
    logs = {name: tmp_path / f"{name}.log" for name in commands}
    try:
        for name, argv in commands.items():
            with open(logs[name], "wb") as log:
                procs[name] = subprocess.Popen(["unshare", "-m", "sh", "-c", NAMESPACE, "sh", *argv], cwd=ROOT,
                                               env={**env, "LUDOTECA_GAME": "ludix"}, stdout=log,
                                               stderr=subprocess.STDOUT, start_new_session=True)
        base = f"http://127.0.0.1:{port}"
        assert wait_http(f"{base}/readyz", 120), logs["ludix"].read_text()[-3000:]
        created = requests.post(f"{base}/games", json={"seats": ["bot:expert", "bot:random"]}, timeout=10)
        assert created.status_code == 201, created.text
        gid = created.json()["game"]["id"]

        def finished() -> bool:
            with contextlib.suppress(requests.RequestException, ValueError):
                return bool(requests.get(f"{base}/games/{gid}", timeout=10).json()["status"] == "finished")
            return False

        assert wait_until(finished, 240, interval=0.5), logs["worker"].read_text()[-3000:]
        for name, proc in procs.items():
            assert proc.poll() is None, (name, logs[name].read_text()[-3000:])
        for name, log in logs.items():
            text = log.read_text()
            assert "Read-only file system" not in text and "is writable" not in text, (name, text[-3000:])
    finally:
        for proc in procs.values():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs.values():
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)
    assert not port_open(port)
    assert not any(p.name == ".rw-probe" for d in READ_ONLY for p in d.iterdir())
