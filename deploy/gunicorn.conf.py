"""gunicorn settings shared by the game services (the front door before them is Caddy, configured
by ``ludoteca.entrypoints.frontdoor``; it closes idle upstream connections before ``keepalive`` below does).

gevent workers (``ludoteca.entrypoints.gunicorn_workers.GeventWorker``): one greenlet per connection, so a
long-poll (``GET .../events?wait=S``) waiting on Redis costs a few kilobytes and no thread that a
move needs; up to GUNICORN_WORKER_CONNECTIONS connections per worker process.
Chosen by measurement (``make bench``; figures in the module docstring of
``tests/bench/bench_api.py``). gunicorn's own errors (400/414/431/500) are problem+json.

Overrides: GUNICORN_WORKERS, GUNICORN_WORKER_CLASS (``gthread`` selects the threaded worker
with problem+json errors, GUNICORN_THREADS threads each), GUNICORN_WORKER_CONNECTIONS.

Metrics (``GET /metrics``, :mod:`ludoteca.adapters.observe`): prometheus-client in multiprocess mode, so
a scrape that reaches any worker reads the sum over all of them. The master prepares
``PROMETHEUS_MULTIPROC_DIR`` here, when this file is read and before any worker forks or the
app (and prometheus-client) is imported: unset, a fresh directory of this master's own under
``LUDOTECA_METRICS_DIR`` or the temporary directory, removed when the master exits; set, that
directory (give each master its own), emptied of an earlier run's files. ``child_exit`` marks a
worker that exited dead (its counters stay in the totals, its live gauges go).

Open files: the master raises its soft ``RLIMIT_NOFILE`` to the hard limit when this file is
read (:mod:`ludoteca.adapters.fdlimit`; the workers inherit it) and logs it; each worker sizes its
connections from it and logs its limits (:mod:`ludoteca.entrypoints.admission`: 298 connections
a worker under a limit of 1024, ``GUNICORN_WORKER_CONNECTIONS`` from 3,128 up).

Logs: gunicorn's own lines and the app's say which service and pid they come from
(``ludix[4242]``; JSON with ``LUDOTECA_LOG_FORMAT=json``); the app writes one access-log line per
request with its request id (:mod:`ludoteca.adapters.hosting.accesslog`), so gunicorn's access log
(``GUNICORN_ACCESSLOG``) stays off by default.
"""

import os

from gunicorn.glogging import Logger

_owner = os.environ.get("LUDOTECA_METRICS_MASTER")
if _owner != str(os.getpid()):  # read once per master (a reload on HUP keeps the directory)
    from ludoteca.adapters.metricsdir import prepare_multiprocess

    prepare_multiprocess(os.environ.get("LUDOTECA_GAME") or "gunicorn")
    os.environ["LUDOTECA_METRICS_MASTER"] = str(os.getpid())

from ludoteca.adapters.fdlimit import raise_nofile  # noqa: E402
from ludoteca.adapters.observe import ProcessFormatter, process_dead  # noqa: E402 - after the directory is set

_NOFILE = raise_nofile()  # before any socket: the workers inherit it (and size their connections from it)


def on_starting(server):
    (server.log.warning if _NOFILE.error else server.log.info)("open files: %s", _NOFILE)


def child_exit(server, worker):
    process_dead(worker.pid)


class ProcessLogger(Logger):
    """gunicorn's error log in the format of every Ludoteca process (service name and pid)."""

    def setup(self, cfg):
        super().setup(cfg)
        formatter = ProcessFormatter(os.environ.get("LUDOTECA_GAME") or "gunicorn",
                                     os.environ.get("LUDOTECA_LOG_FORMAT", "").lower() == "json")
        for handler in self.error_log.handlers:
            handler.setFormatter(formatter)


logger_class = ProcessLogger

WORKER_CLASSES = {
    "gevent": "ludoteca.entrypoints.gunicorn_workers.GeventWorker",
    "gthread": "ludoteca.entrypoints.gunicorn_workers.ThreadWorker",
}
_choice = os.environ.get("GUNICORN_WORKER_CLASS", "gevent")
worker_class = WORKER_CLASSES.get(_choice, _choice)
workers = int(os.environ.get("GUNICORN_WORKERS", "2"))
threads = int(os.environ.get("GUNICORN_THREADS", "16"))  # gthread only
worker_connections = int(os.environ.get("GUNICORN_WORKER_CONNECTIONS", "1000"))
timeout = 90  # above the longest long-poll (30 s) with room to spare
graceful_timeout = 10
keepalive = 15  # above the front door's idle upstream timeout (ludoteca.entrypoints.frontdoor.UPSTREAM_IDLE, 10 s)
accesslog = os.environ.get("GUNICORN_ACCESSLOG") or None
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOGLEVEL", "warning")
