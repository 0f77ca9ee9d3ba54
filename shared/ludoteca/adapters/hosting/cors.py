"""CORS for browser clients on other origins: off unless the deployment names the origins.

``LUDOTECA_CORS_ORIGINS`` (``Settings.cors_origins``): a comma-separated list of origins
(``https://app.example,http://localhost:5173``), or ``*`` for any. Unset or empty: no CORS header
is ever sent and a preflight gets what it always got (a browser on another origin then refuses to
read the answers, which is the safe default). When set, for a request whose ``Origin`` is allowed:

* a preflight (``OPTIONS`` with ``Access-Control-Request-Method``) is answered here, ``204``,
  before the rate limits and the routes: the methods of the route at that path (its rules say
  them: ``DELETE`` for a matchmaking ticket, ``GET, POST`` for a game's actions), the request
  headers the API reads
  (``Authorization``, ``Content-Type``, ``If-Match``, ``If-None-Match``, ``Idempotency-Key``,
  ``X-Request-Id``) and ``Access-Control-Max-Age: 600``;
* every answer, problems included, carries ``Access-Control-Allow-Origin`` (the origin itself, or
  ``*``) and exposes the headers a client needs (``ETag``, ``Location``, ``Idempotent-Replayed``,
  ``Retry-After``, ``X-Request-Id``).

No credentials mode: the API's only credential is the seat token, sent as a header the page sets
itself, never a cookie. Answers vary on ``Origin`` when the list is not ``*``.
"""

from __future__ import annotations

from flask import Flask, Response, request

ALLOWED_HEADERS = "Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key, X-Request-Id"
EXPOSED_HEADERS = "ETag, Location, Idempotent-Replayed, Retry-After, X-Request-Id"
MAX_AGE = "600"


class CorsPolicy:
    """What CORS adds to the answers for ``origins`` (not empty): the Flask hooks of
    :func:`install_cors` and the hot routes (:mod:`ludoteca.adapters.hosting.hotroutes`) use it."""

    def __init__(self, origins: tuple[str, ...]) -> None:
        self.any_origin = "*" in origins
        self.allowed = frozenset(origins)

    def allow(self, origin: str | None) -> str | None:
        if origin is None:
            return None
        if self.any_origin:
            return "*"
        return origin if origin in self.allowed else None

    def marks(self, origin: str | None) -> list[tuple[str, str]]:
        """The headers an answer to a request from ``origin`` gets (``Vary`` first: merged into
        the answer's own ``Vary``, if it has one)."""
        out = [] if self.any_origin else [("Vary", "Origin")]
        value = self.allow(origin)
        if value is not None:
            out += [("Access-Control-Allow-Origin", value), ("Access-Control-Expose-Headers", EXPOSED_HEADERS)]
        return out

    def mark(self, response: Response, origin: str | None) -> Response:
        """``response`` with the :meth:`marks` of an answer to ``origin``."""
        for name, value in self.marks(origin):
            if name == "Vary":
                response.vary.add(value)
            else:
                response.headers[name] = value
        return response


def methods_at(app: Flask) -> str:
    """The methods the app's rules take at the request's path (``OPTIONS`` always; ``HEAD``
    goes with ``GET`` without being named), as a preflight lists them."""
    allowed = set(app.url_map.bind_to_environ(request.environ).allowed_methods()) - {"HEAD"}
    return ", ".join(sorted(allowed | {"OPTIONS"}))


def install_cors(app: Flask, origins: tuple[str, ...]) -> CorsPolicy | None:
    """Answer preflights and mark answers for ``origins`` (nothing at all when empty: None).
    Install before the rate limits: a preflight is answered before they count it."""
    if not origins:
        return None
    policy = CorsPolicy(origins)

    def preflight() -> Response | None:
        if request.method != "OPTIONS" or "Access-Control-Request-Method" not in request.headers:
            return None
        value = policy.allow(request.headers.get("Origin"))
        if value is None:
            return None  # not ours to allow: Flask's own OPTIONS answer, without CORS headers
        response = Response(status=204)
        response.headers["Access-Control-Allow-Methods"] = methods_at(app)
        response.headers["Access-Control-Allow-Headers"] = ALLOWED_HEADERS
        response.headers["Access-Control-Max-Age"] = MAX_AGE
        return response

    def mark(response: Response) -> Response:
        return policy.mark(response, request.headers.get("Origin"))

    app.before_request(preflight)
    app.after_request(mark)
    return policy
