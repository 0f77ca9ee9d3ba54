"""gunicorn settings shared by the game services (the front door before them is Caddy, configured
by ``ludoteca.frontdoor``; it closes idle upstream connections before ``keepalive`` below does).

gevent workers (``ludoteca.gunicorn_workers.GeventWorker``): one greenlet per connection, so a
long-poll (``GET .../events?wait=S``) waiting on Redis costs a few kilobytes and no thread that a
move needs; up to GUNICORN_WORKER_CONNECTIONS connections per worker process.
Chosen by measurement (``make bench``; figures in the module docstring of
``tests/bench/bench_api.py``). gunicorn's own errors (400/414/431/500) are problem+json.

Overrides: GUNICORN_WORKERS, GUNICORN_WORKER_CLASS (``gthread`` selects the threaded worker
with problem+json errors, GUNICORN_THREADS threads each), GUNICORN_WORKER_CONNECTIONS.
"""

import os

WORKER_CLASSES = {
    "gevent": "ludoteca.gunicorn_workers.GeventWorker",
    "gthread": "ludoteca.gunicorn_workers.ThreadWorker",
}
_choice = os.environ.get("GUNICORN_WORKER_CLASS", "gevent")
worker_class = WORKER_CLASSES.get(_choice, _choice)
workers = int(os.environ.get("GUNICORN_WORKERS", "2"))
threads = int(os.environ.get("GUNICORN_THREADS", "16"))  # gthread only
worker_connections = int(os.environ.get("GUNICORN_WORKER_CONNECTIONS", "1000"))
timeout = 90  # above the longest long-poll (30 s) with room to spare
graceful_timeout = 10
keepalive = 15  # above the front door's idle upstream timeout (ludoteca.frontdoor.UPSTREAM_IDLE, 10 s)
accesslog = os.environ.get("GUNICORN_ACCESSLOG") or None
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOGLEVEL", "warning")
