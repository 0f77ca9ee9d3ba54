"""Operations routes: health, readiness, metrics, interactive docs."""

from __future__ import annotations

import logging
from typing import Any

import redis
import swagger_ui_bundle
from flask import Blueprint, Response, send_from_directory, url_for
from ludoteca.adapters import observe
from ludoteca.core.errors import StoreUnavailableError
from prometheus_client import CONTENT_TYPE_LATEST
from redis.exceptions import RedisClusterException

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


def ops_blueprint(game: str, title: str, client: redis.Redis) -> Blueprint:
    bp = Blueprint("ops", __name__)

    @bp.get("/healthz")
    def healthz() -> Any:
        return {"status": "ok", "game": game}

    @bp.get("/readyz")
    def readyz() -> Any:
        """Ready when Redis answers PING within its timeout (about a second: the client fails
        fast, so this never hangs). A loading Redis answers PING with LOADING: not ready."""
        try:
            client.ping()
        except (redis.RedisError, RedisClusterException) as err:  # the latter: no cluster node answers
            log.warning("not ready: %s: %s", type(err).__name__, err)
            observe.count_redis_error(game, "readyz", err)
            raise StoreUnavailableError(
                f"Redis is not answering ({type(err).__name__}); this instance takes no traffic.") from None
        return {"status": "ready", "game": game}

    @bp.get("/metrics")
    def metrics_route() -> Response:
        """Every family of :mod:`ludoteca.adapters.observe`, summed over this service's gunicorn workers
        (multiprocess mode: see deploy/gunicorn.conf.py)."""
        return Response(observe.render(), mimetype=CONTENT_TYPE_LATEST)

    @bp.get("/docs")
    def docs() -> Response:
        page = DOCS_PAGE.format(title=f"{title} API", static=url_for("ops.docs_static", filename=""),
                                spec=url_for("api-docs.openapi_json"))
        return Response(page, mimetype="text/html")

    @bp.get("/docs/static/<path:filename>")
    def docs_static(filename: str) -> Response:
        return send_from_directory(swagger_ui_bundle.swagger_ui_path, filename)

    return bp
