"""Operations routes: health, readiness, metrics, interactive docs."""

from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict
from typing import Any

import redis
import swagger_ui_bundle
from flask import Blueprint, Flask, Response, g, request, send_from_directory, url_for
from ludoteca.errors import StoreUnavailableError
from redis.exceptions import RedisClusterException

log = logging.getLogger("ludoteca.ops")

DOCS_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>{title}</title>
<link rel="stylesheet" href="{static}swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="{static}swagger-ui-bundle.js"></script>
<script>SwaggerUIBundle({{url: "{spec}", dom_id: "#ui", deepLinking: true}});</script>
</body></html>"""


class Metrics:
    """Per-process request counters in the Prometheus text format."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.count: dict[tuple[str, str, int], int] = defaultdict(int)
        self.seconds: dict[tuple[str, str], float] = defaultdict(float)

    def observe(self, method: str, endpoint: str, status: int, seconds: float) -> None:
        with self.lock:
            self.count[(method, endpoint, status)] += 1
            self.seconds[(method, endpoint)] += seconds

    def render(self, game: str) -> str:
        lines = ["# TYPE ludoteca_requests_total counter"]
        with self.lock:
            for (m, e, s), n in sorted(self.count.items()):
                lines.append(f'ludoteca_requests_total{{game="{game}",method="{m}",endpoint="{e}",status="{s}"}} {n}')
            lines.append("# TYPE ludoteca_request_seconds_total counter")
            for (m, e), t in sorted(self.seconds.items()):
                lines.append(f'ludoteca_request_seconds_total{{game="{game}",method="{m}",endpoint="{e}"}} {t:.6f}')
        return "\n".join(lines) + "\n"


def ops_blueprint(app: Flask, game: str, title: str, client: redis.Redis) -> Blueprint:
    bp = Blueprint("ops", __name__)
    metrics = Metrics()

    @app.before_request
    def _start() -> None:
        g.ludoteca_t0 = time.perf_counter()

    @app.after_request
    def _observe(resp: Response) -> Response:
        t0 = getattr(g, "ludoteca_t0", None)
        if t0 is not None:
            metrics.observe(request.method, request.endpoint or "unmatched", resp.status_code,
                            time.perf_counter() - t0)
        return resp

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
            raise StoreUnavailableError(
                f"Redis is not answering ({type(err).__name__}); this instance takes no traffic.") from None
        return {"status": "ready", "game": game}

    @bp.get("/metrics")
    def metrics_route() -> Response:
        return Response(metrics.render(game), mimetype="text/plain; version=0.0.4")

    @bp.get("/docs")
    def docs() -> Response:
        page = DOCS_PAGE.format(title=f"{title} API", static=url_for("ops.docs_static", filename=""),
                                spec=url_for("api-docs.openapi_json"))
        return Response(page, mimetype="text/html")

    @bp.get("/docs/static/<path:filename>")
    def docs_static(filename: str) -> Response:
        return send_from_directory(swagger_ui_bundle.swagger_ui_path, filename)

    return bp
