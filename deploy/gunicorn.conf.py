"""gunicorn settings shared by the game services and the gateway.

Threaded workers: long-polls (GET .../events?wait=S) hold a thread, not a process. Override with
GUNICORN_WORKERS / GUNICORN_THREADS.
"""

import os

worker_class = "gthread"
workers = int(os.environ.get("GUNICORN_WORKERS", "2"))
threads = int(os.environ.get("GUNICORN_THREADS", "16"))
timeout = 90  # above the longest long-poll (30 s) with room to spare
graceful_timeout = 10
keepalive = 15
accesslog = os.environ.get("GUNICORN_ACCESSLOG") or None
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOGLEVEL", "warning")
