"""The generic hosting layer: any :class:`~ludoteca.core.engine.GameDefinition` becomes a Flask
service with the whole REST surface (docs/api.md) and a typed OpenAPI document.

``create_app(definition, settings)`` is the only entry point; tests inject their settings and
dispatcher. The web layer parses, calls :class:`~ludoteca.service_layer.service.GameService`
(through :class:`~ludoteca.adapters.hosting.routes.GameRoutes`, the routes' one implementation),
renders; docs/architecture.md describes the layers.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Iterable
from typing import Any

import redis
from flask import Flask
from ludoteca.adapters import observe
from ludoteca.adapters.connect import blocking_client, redis_client
from ludoteca.adapters.hosting.accesslog import install_access_log
from ludoteca.adapters.hosting.bodies import LIMITS_DOC, install_body_bounds
from ludoteca.adapters.hosting.cors import install_cors
from ludoteca.adapters.hosting.document import DocumentedApi, exported_servers
from ludoteca.adapters.hosting.hotroutes import HotRoutes
from ludoteca.adapters.hosting.ops import ops_blueprint
from ludoteca.adapters.hosting.ratelimit import Limits, document_rate_limits, install_rate_limit
from ludoteca.adapters.hosting.routes import GameRoutes, games_blueprint, results_blueprint
from ludoteca.adapters.hosting.schemas import game_schemas
from ludoteca.adapters.peers import Network, is_proxy
from ludoteca.adapters.players import OidcSettings, Seating
from ludoteca.adapters.store import LONG_BLOCK_SECONDS, GameStore
from ludoteca.config import Settings
from ludoteca.core.engine import GameDefinition
from ludoteca.service_layer.service import Dispatcher, GameService
from werkzeug.middleware.proxy_fix import ProxyFix

API_VERSION = "1.0.0"
logger = logging.getLogger(__name__)


class ForwardedBy:
    """werkzeug's ``ProxyFix``, with ``X-Forwarded-For`` read only on a connection from one of the
    proxies ``nets`` (``LUDOTECA_PROXY_ADDRESSES``): a client that reaches the service's port
    directly keeps its own address, whatever header it sends, so it cannot pick a fresh
    rate-limit bucket per request. ``X-Forwarded-Proto``, ``-Host`` and ``-Prefix`` are read
    from anyone, as before: they shape only the links of the caller's own answer."""

    def __init__(self, app: Any, hops: int, nets: Iterable[Network]) -> None:
        self.nets = tuple(nets)
        self.direct = ProxyFix(app, x_for=0, x_proto=1, x_host=1, x_prefix=1)
        self.proxied = ProxyFix(app, x_for=hops, x_proto=1, x_host=1, x_prefix=1) if hops and self.nets else self.direct

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if self.proxied is not self.direct and is_proxy(environ.get("REMOTE_ADDR"), self.nets):
            return self.proxied(environ, start_response)
        return self.direct(environ, start_response)


def create_app(definition: GameDefinition, settings: Settings | None = None,
               dispatcher: Dispatcher | None = None, client: redis.Redis | None = None,
               routes: type[GameRoutes] = GameRoutes) -> Flask:
    """The service of ``definition``; ``routes``: the class of its routes (a subclass of
    :class:`GameRoutes` may replace one), served by Flask and by the fast path alike."""
    settings = settings or Settings.from_env()
    blocking = None
    if client is None:  # a client of the caller's is its own business: it blocks in short slices
        client = redis_client(settings.redis_url, settings.redis_timeout_seconds, settings.redis_max_connections)
        blocking = blocking_client(settings.redis_url, LONG_BLOCK_SECONDS, settings.redis_timeout_seconds,
                                   settings.redis_max_connections)
    if dispatcher is None:  # tests and tools; the process entry points (wsgi.py) pass theirs
        from ludoteca.adapters.worker import CeleryDispatcher
        dispatcher = CeleryDispatcher.for_url(settings.broker_url)
    store = GameStore(client, definition.name, settings.game_ttl_seconds, settings.idempotency_ttl_seconds,
                      settings.leaderboard_players, blocking=blocking)
    service = GameService(definition, store, dispatcher, observer=observe.GAMES,
                          min_turn_seconds=settings.min_turn_seconds,
                          players=Seating.for_client(client, OidcSettings.from_env(), settings.game_ttl_seconds))

    app = Flask(f"ludoteca.{definition.name}")
    app.config.update(
        LUDOTECA=settings,
        API_TITLE=f"Ludoteca {definition.title}",
        API_VERSION=API_VERSION,
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        JSON_SORT_KEYS=False,
        API_SPEC_OPTIONS={
            "info": {"description": (definition.description or f"The {definition.title} game service.") + LIMITS_DOC},
            "servers": exported_servers(definition.name),
            "components": {"securitySchemes": {"bearerAuth": {
                "type": "http", "scheme": "bearer",
                "description": "The seat token returned once by POST /games or POST /games/{id}/players, or a "
                               "player's token (the players service's) for the seats bound to that player"}}},
        },
    )
    schemas = game_schemas(definition, service.options_schema)
    api = DocumentedApi(app, conflict=schemas.conflict)
    api.definition = definition
    document_rate_limits(api)
    app.extensions["ludoteca"] = {"service": service, "definition": definition, "api": api}
    _register_actions(api, definition, schemas.action_component)
    served = routes(service, settings)
    api.register_blueprint(games_blueprint(served, schemas))
    _undecorate_move(app)
    api.register_blueprint(results_blueprint(served))
    if definition.extras is not None:
        api.register_blueprint(definition.extras())
    log = install_access_log(app, definition.name, definition.action_schemas)
    app.register_blueprint(ops_blueprint(definition.name, definition.title, client))
    cors = install_cors(app, settings.cors_origins)
    limiter = install_rate_limit(app, client, definition.name, settings)
    install_body_bounds(app, settings.max_body_bytes)
    wsgi: Any = app.wsgi_app
    if settings.hot_routes:  # the common move and reads outside Flask's request machinery, same answers
        rules = tuple(next(rule.rule for rule in app.url_map.iter_rules(endpoint))
                      for endpoint in ("games.Game", "games.Actions"))
        limits = Limits.from_settings(settings)
        writes, reads = (limits.writes, limits.reads) if limiter is not None else (0, 0)
        wsgi = HotRoutes(wsgi, served, (rules[0], rules[1]), log, cors, settings.max_body_bytes, writes, reads)
    # the client address (rate limits) comes from X-Forwarded-For only from the proxies' addresses
    if settings.trusted_proxies and not settings.proxy_networks:
        logger.warning("LUDOTECA_TRUSTED_PROXIES=%d but LUDOTECA_PROXY_ADDRESSES is empty: X-Forwarded-For is "
                    "ignored, every client of a proxy counts as the proxy's address", settings.trusted_proxies)
    app.wsgi_app = ForwardedBy(wsgi, settings.trusted_proxies, settings.proxy_networks)  # type: ignore[method-assign]
    return app


def _undecorate_move(app: Flask) -> None:
    """Serve ``POST /games/{id}/actions`` with the route function itself. flask-smorest's
    decorators document it (the document is built when the blueprint is registered, just
    before this) and at run time only pass the Response through, nine wrappers deep, each
    looking up the app and asking whether the function is a coroutine: a few percent of a move."""
    view_class: Any = getattr(app.view_functions["games.Actions"], "view_class")  # noqa: B009 - typed as a plain view
    view_class.post = inspect.unwrap(view_class.post)


def _register_actions(api: Any, d: GameDefinition, component: str) -> None:
    """Document the action body as a ``oneOf`` over the game's action schemas."""
    refs: dict[str, str] = {}
    prefix = component
    for kind, schema_cls in d.action_schemas.items():
        name = prefix + "".join(p.capitalize() for p in kind.split("_"))
        api.spec.components.schema(name, schema=schema_cls)
        refs[kind] = f"#/components/schemas/{name}"
    api.spec.components.schema(component, {
        "oneOf": [{"$ref": r} for r in refs.values()],
        "discriminator": {"propertyName": "type", "mapping": refs},
    })
