"""The generic hosting layer: any :class:`~ludoteca.engine.GameDefinition` becomes a Flask
service with the whole REST surface of DESIGN.md and a typed OpenAPI document.

``create_app(definition, settings)`` is the only entry point; tests inject their settings and
dispatcher. The web layer parses, calls :class:`~ludoteca.service.GameService`, renders.
"""

from __future__ import annotations

import inspect
from typing import Any, cast

import redis
from flask import Flask
from ludoteca.cluster import cluster_client, is_cluster_url
from ludoteca.config import Settings
from ludoteca.engine import GameDefinition
from ludoteca.hosting.bodies import LIMITS_DOC, install_body_bounds
from ludoteca.hosting.cors import install_cors
from ludoteca.hosting.document import DocumentedApi, exported_servers
from ludoteca.hosting.ops import ops_blueprint
from ludoteca.hosting.ratelimit import document_rate_limits, install_rate_limit
from ludoteca.hosting.routes import games_blueprint, results_blueprint
from ludoteca.hosting.schemas import game_schemas
from ludoteca.service import Dispatcher, GameService
from ludoteca.store import GameStore
from redis.backoff import NoBackoff
from redis.retry import Retry
from werkzeug.middleware.proxy_fix import ProxyFix

API_VERSION = "1.0.0"


def redis_client(url: str, timeout: float | None = None, max_connections: int | None = None) -> redis.Redis:
    """The one way to build a Redis client: every call fails within about ``timeout`` seconds
    (default ``Settings.redis_timeout_seconds``, env ``LUDOTECA_REDIS_TIMEOUT``, 1 s).

    No retries inside the client (redis-py's default is ten, with backoff: a hung Redis would
    hold a request for ten-odd seconds). A failed call becomes a 503 with ``Retry-After`` and the
    client retries; that is also the only safe retry for a move, since a commit whose reply was
    lost may have landed (the client's ``Idempotency-Key`` makes its retry exact, a blind retry
    here could not). A connection that died with a Redis restart is noticed when the pool hands
    it out (redis-py reconnects then), so recovery needs no retry and no service restart.
    Long-polls block in slices shorter than the timeout (``GameStore.events_after``).

    ``max_connections`` (default ``Settings.redis_max_connections``): under the gevent worker
    every request in flight, a long-poll included, may hold a connection of the pool at once;
    redis-py's default of 100 would fail the 101st with MaxConnectionsError.

    A ``redis+cluster://host:port[,host:port...]`` URL gives a Redis Cluster client with the same
    timeouts and no retries (:mod:`ludoteca.cluster`; ``max_connections`` per node). It has the
    commands the store uses, so it is typed as the plain client here."""
    settings = Settings.from_env()
    if timeout is None:
        timeout = settings.redis_timeout_seconds
    if max_connections is None:
        max_connections = settings.redis_max_connections
    if is_cluster_url(url):
        return cast(redis.Redis, cluster_client(url, timeout, max_connections))
    return redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout,
                                retry=Retry(NoBackoff(), 0), health_check_interval=30,
                                max_connections=max_connections)


def create_app(definition: GameDefinition, settings: Settings | None = None,
               dispatcher: Dispatcher | None = None, client: redis.Redis | None = None) -> Flask:
    settings = settings or Settings.from_env()
    client = client or redis_client(settings.redis_url, settings.redis_timeout_seconds,
                                    settings.redis_max_connections)
    if dispatcher is None:  # tests and tools; the process entry points (wsgi.py) pass theirs
        from ludoteca.worker import CeleryDispatcher
        dispatcher = CeleryDispatcher.for_url(settings.broker_url)
    store = GameStore(client, definition.name, settings.game_ttl_seconds, settings.idempotency_ttl_seconds,
                      settings.leaderboard_players)
    service = GameService(definition, store, dispatcher)

    app = Flask(f"ludoteca.{definition.name}")
    # the client address (rate limits) comes from X-Forwarded-For only behind trusted proxies
    app.wsgi_app = ProxyFix(app.wsgi_app, x_for=settings.trusted_proxies,  # type: ignore[method-assign]
                            x_proto=1, x_host=1, x_prefix=1)
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
                "description": "The seat token returned once by POST /games or POST /games/{id}/players"}}},
        },
    )
    schemas = game_schemas(definition)
    api = DocumentedApi(app, conflict=schemas.conflict)
    api.definition = definition
    document_rate_limits(api)
    app.extensions["ludoteca"] = {"service": service, "definition": definition, "api": api}
    _register_actions(api, definition, schemas.action_component)
    api.register_blueprint(games_blueprint(service, schemas))
    _undecorate_move(app)
    api.register_blueprint(results_blueprint(service))
    if definition.extras is not None:
        api.register_blueprint(definition.extras())
    app.register_blueprint(ops_blueprint(app, definition.name, definition.title, client, definition.action_schemas))
    install_cors(app, settings.cors_origins)
    install_rate_limit(app, client, definition.name, settings)
    install_body_bounds(app, settings.max_body_bytes)
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
