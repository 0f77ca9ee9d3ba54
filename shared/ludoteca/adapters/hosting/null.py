"""The null endpoint: the floor under a move, for ``make bench`` (``tests/bench/bench_api.py``).

A minimal Flask app built from the same pieces as the game services (Flask, werkzeug's
``ProxyFix``, :func:`ludoteca.adapters.connect.redis_client`, the services' JSON library, gunicorn with
``deploy/gunicorn.conf.py``), doing the least a durable move must do:

``POST /null/<id>``: parse the JSON body, one Redis read of the record's hash (``HGETALL``), one
Lua compare-and-set on its ``version`` field that also ``XADD``s one event (and refreshes the
TTL, as a commit does), a JSON reply. The record is created by its first request.

    REDIS_URL=redis://127.0.0.1:6379/0 gunicorn -c deploy/gunicorn.conf.py 'ludoteca.adapters.hosting.null:make_app()'

Not part of any service and not mounted by ``make run``: only the benchmark starts it.
"""

from __future__ import annotations

import os
from typing import Any

from flask import Flask, Response, request
from ludoteca.adapters.connect import redis_client
from ludoteca.config import Settings
from ludoteca.core import jsontext
from werkzeug.middleware.proxy_fix import ProxyFix

_CAS = """
local cur = redis.call('HGET', KEYS[1], 'version') or '0'
if cur ~= ARGV[1] then return {'stale', cur} end
local new = tostring(tonumber(cur) + 1)
redis.call('HSET', KEYS[1], 'version', new, 'doc', ARGV[2])
redis.call('XADD', KEYS[2], new .. '-1', 'e', ARGV[3])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[4]))
return {'ok', new}
"""

TTL_SECONDS = 3600


def _json(body: Any, status: int = 200) -> Response:
    kind = "application/json" if status < 400 else "application/problem+json"
    return Response(jsontext.dumps(body), status=status, mimetype=kind)


def make_app() -> Flask:
    settings = Settings.from_env()
    client = redis_client(os.environ.get("REDIS_URL", settings.redis_url))
    cas = client.register_script(_CAS)
    app = Flask("ludoteca.null")
    app.wsgi_app = ProxyFix(app.wsgi_app, x_for=settings.trusted_proxies,  # type: ignore[method-assign]
                            x_proto=1, x_host=1, x_prefix=1)

    @app.post("/null/<string:record_id>")
    def null(record_id: str) -> Response:
        try:
            body = jsontext.loads(request.get_data())
        except ValueError:
            return _json({"type": "about:blank", "title": "Malformed JSON", "status": 400}, 400)
        key = f"null:{{{record_id}}}"
        record = client.hgetall(f"{key}:rec")
        version = int(record.get(b"version", b"0"))
        doc = jsontext.dumps({"last": body, "version": version + 1})
        out = cas(keys=[f"{key}:rec", f"{key}:events"],
                  args=[str(version), doc, jsontext.dumps({"type": "Null", "data": body}), TTL_SECONDS])
        status = out[0].decode()
        if status != "ok":
            return _json({"type": "about:blank", "title": "Stale version", "status": 412}, 412)
        return _json({"id": record_id, "version": int(out[1]), "echo": body})

    @app.get("/healthz")
    def healthz() -> Response:
        return _json({"status": "ok"})

    return app
