"""Operations routes: health, readiness, metrics, interactive docs."""

from __future__ import annotations

import logging
from typing import Any

import redis
import swagger_ui_bundle
from flask import Blueprint, Response, request, send_from_directory, url_for
from ludoteca.adapters import observe
from ludoteca.adapters.durability import Health, PersistenceProbe
from ludoteca.core.errors import StoreUnavailableError
from prometheus_client import CONTENT_TYPE_LATEST

log = logging.getLogger("ludoteca.ops")

# Swagger UI from the swagger-ui-bundle package, served by the service itself: the page needs no
# network beyond the service (validatorUrl null: no badge from the online validator either).
DOCS_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>{title}</title>
<link rel="stylesheet" href="{static}swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="{static}swagger-ui-bundle.js"></script>
<script>SwaggerUIBundle({{url: "{spec}", dom_id: "#ui", deepLinking: true, validatorUrl: null}});</script>
</body></html>"""


STORE_FAILED = "ludoteca.store_failed"
"""The WSGI environ's key for the store error the fast path (:mod:`~ludoteca.adapters.hosting.hotroutes`)
met reading the caller's game before it handed the request to Flask: Flask's path answers it
(503) without asking the store again, so a hung Redis costs a move one timeout, not two (it was
2.0 s with the 1 s timeout: issue 20, finding 7)."""


def ops_blueprint(game: str, title: str, client: redis.Redis) -> Blueprint:
    bp = Blueprint("ops", __name__)

    @bp.before_app_request
    def _store_failed_on_the_fast_path() -> None:
        failed = request.environ.get(STORE_FAILED)
        if isinstance(failed, BaseException):
            raise failed

    @bp.get("/healthz")
    def healthz() -> Any:
        return {"status": "ok", "game": game}

    probe = PersistenceProbe(client, f"{game}:readyz")
    observe.start_series(game)

    def health() -> Health:
        found = probe.check()
        observe.record_store_health(game, found.checks())
        return found

    @bp.get("/readyz")
    def readyz() -> Any:
        """Ready when Redis answers within its timeout (about a second: the client fails fast, so
        this never hangs) and takes writes (:mod:`ludoteca.adapters.durability`: not over
        ``maxmemory``, its last append-only write not failed). A loading Redis is not ready; nor
        is one that refuses writes, though reads would still be served: a load balancer sends the
        moves to another instance. One round trip, at most once a second per process."""
        found = health()
        if not found.ready:
            log.warning("not ready: %s", found.describe())
            observe.REDIS_ERRORS.labels(game, "readyz", found.refusal or (found.error or "").split(":", 1)[0]).inc()
            raise StoreUnavailableError(f"{found.describe()}; this instance takes no traffic.")
        return {"status": "ready", "game": game}

    @bp.get("/metrics")
    def metrics_route() -> Response:
        """Every family of :mod:`ludoteca.adapters.observe`, summed over this service's gunicorn workers
        (multiprocess mode: see deploy/gunicorn.conf.py), the store's health probed first (cached).

        ``content_type``, not ``mimetype``: Flask adds ``; charset=utf-8`` to a ``text/*``
        mimetype, and prometheus-client's ``CONTENT_TYPE_LATEST`` has its charset already (it
        was ``...; charset=utf-8; charset=utf-8``, which Prometheus 3 refuses)."""
        health()
        return Response(observe.render(), content_type=CONTENT_TYPE_LATEST)

    @bp.get("/docs")
    def docs() -> Response:
        page = DOCS_PAGE.format(title=f"{title} API", static=url_for("ops.docs_static", filename=""),
                                spec=url_for("api-docs.openapi_json"))
        return Response(page, mimetype="text/html")

    @bp.get("/docs/static/<path:filename>")
    def docs_static(filename: str) -> Response:
        return send_from_directory(swagger_ui_bundle.swagger_ui_path, filename)

    return bp
