"""The metrics directory of a process group (prometheus-client's multiprocess mode).

Kept apart from :mod:`ludoteca.adapters.observe` because it must run before prometheus-client is
imported (the client chooses its mode then): ``deploy/gunicorn.conf.py`` calls
:func:`prepare_multiprocess` in the master before anything imports it.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def prepare_multiprocess(name: str) -> str:
    """Put this process group's metrics directory in the environment and return it.

    Unset: a fresh directory under ``LUDOTECA_METRICS_DIR`` (else the temporary directory: the
    stack's own with ``TMPDIR``), removed when the process that made it exits. Set (an operator's
    choice, one directory per process group): used as it is, emptied of earlier runs' files."""
    given = os.environ.get(MULTIPROC_ENV)
    if given:
        path = Path(given)
        path.mkdir(parents=True, exist_ok=True)
        for stale in path.glob("*.db"):
            stale.unlink(missing_ok=True)
        return str(path)
    base = os.environ.get("LUDOTECA_METRICS_DIR") or None
    if base:
        Path(base).mkdir(parents=True, exist_ok=True)
    made = tempfile.mkdtemp(prefix=f"ludoteca-metrics-{name}-{os.getpid()}-", dir=base)
    os.environ[MULTIPROC_ENV] = made
    owner = os.getpid()
    atexit.register(_remove_dir, made, owner)  # forked children inherit the hook: only the owner removes
    return made


def _remove_dir(path: str, owner: int) -> None:
    if os.getpid() == owner:
        shutil.rmtree(path, ignore_errors=True)


def metrics_port() -> int | None:
    port = os.environ.get("LUDOTECA_METRICS_PORT", "").strip()
    return int(port) if port else None
