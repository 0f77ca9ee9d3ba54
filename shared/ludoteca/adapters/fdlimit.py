"""The open-files limit a process runs with.

Every connection, Redis client and log file is a file descriptor; a soft ``RLIMIT_NOFILE`` of
1024 (a common default: systemd, many container runtimes, a login shell) is below what a game
service holds under load (2 workers x up to 1,000 connections, each with Redis connections), and
an ``accept`` or a ``socket`` that fails with EMFILE used to turn load into 500s. A process may
raise its own soft limit up to the hard one: :func:`raise_nofile` does so at start, and the
process says what it runs with (``log.info("open files: %s", raise_nofile())``); the game
services size their connections from the result (:class:`ludoteca.entrypoints.admission.Limits`).

Called by ``deploy/gunicorn.conf.py`` (the game services' master, inherited by its workers), the Celery worker
(:mod:`ludoteca.adapters.worker`), the sweeper and the local stack (:mod:`ludoteca.entrypoints.devstack`).
Standard library only.
"""

from __future__ import annotations

import resource
from typing import NamedTuple

UNLIMITED_TARGET = 1 << 20  # Linux's default fs.nr_open: the most a process may ask for


class NoFile(NamedTuple):
    soft: int
    hard: int
    before: int
    error: str = ""

    def __str__(self) -> str:
        hard = "unlimited" if self.hard == resource.RLIM_INFINITY else str(self.hard)
        if self.error:
            return f"soft limit {self.soft} (hard {hard}); raising it failed: {self.error}"
        if self.before != self.soft:
            return f"soft limit raised from {self.before} to {self.soft} (hard {hard})"
        return f"soft limit {self.soft} (hard {hard})"


def raise_nofile() -> NoFile:
    """Raise the soft open-files limit to the hard one (an unlimited hard limit: to 1,048,576)
    and return what the process now runs with; a refusal (a sandbox) keeps the old limit and
    says why."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = UNLIMITED_TARGET if hard == resource.RLIM_INFINITY else hard
    if soft == resource.RLIM_INFINITY or soft >= target:
        return NoFile(soft, hard, soft)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError) as exc:
        return NoFile(soft, hard, soft, str(exc))
    return NoFile(target, hard, soft)
