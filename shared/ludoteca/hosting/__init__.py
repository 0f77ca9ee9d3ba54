"""The generic hosting layer: any :class:`~ludoteca.engine.GameDefinition` becomes a Flask
service with the whole REST surface of DESIGN.md and a typed OpenAPI document.

``create_app(definition, settings)`` is the only entry point; tests inject their settings and
dispatcher. The web layer parses, calls :class:`~ludoteca.service.GameService`, renders.
"""

from __future__ import annotations

from typing import Any

import redis
from flask import Flask
from ludoteca.config import Settings
from ludoteca.engine import GameDefinition
from ludoteca.hosting.ops import ops_blueprint
from ludoteca.hosting.problems import ProblemApi
from ludoteca.hosting.ratelimit import install_rate_limit
from ludoteca.hosting.routes import games_blueprint, results_blueprint
from ludoteca.hosting.schemas import action_ref_to_property, game_schemas
from ludoteca.service import Dispatcher, GameService
from ludoteca.store import GameStore
from werkzeug.middleware.proxy_fix import ProxyFix

API_VERSION = "1.0.0"


def redis_client(url: str, max_connections: int | None = None) -> redis.Redis:
    """``max_connections`` (default ``Settings.redis_max_connections``): under the gevent worker
    every request in flight, a long-poll included, may hold a connection of the pool at once;
    redis-py's default of 100 would fail the 101st with MaxConnectionsError."""
    if max_connections is None:
        max_connections = Settings.from_env().redis_max_connections
    return redis.Redis.from_url(url, socket_timeout=None, socket_connect_timeout=5, health_check_interval=30,
                                max_connections=max_connections)


def create_app(definition: GameDefinition, settings: Settings | None = None,
               dispatcher: Dispatcher | None = None, client: redis.Redis | None = None) -> Flask:
    settings = settings or Settings.from_env()
    client = client or redis_client(settings.redis_url, settings.redis_max_connections)
    if dispatcher is None:
        from ludoteca.worker import CeleryDispatcher
        dispatcher = CeleryDispatcher.for_url(settings.redis_url)
    store = GameStore(client, definition.name, settings.game_ttl_seconds, settings.idempotency_ttl_seconds)
    service = GameService(definition, store, dispatcher)

    app = Flask(f"ludoteca.{definition.name}")
    app.wsgi_app = ProxyFix(app.wsgi_app, x_for=1, x_proto=1, x_host=1, x_prefix=1)  # type: ignore[method-assign]
    app.config.update(
        LUDOTECA=settings,
        API_TITLE=f"Ludoteca {definition.title}",
        API_VERSION=API_VERSION,
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        JSON_SORT_KEYS=False,
        API_SPEC_OPTIONS={
            "info": {"description": definition.description or f"The {definition.title} game service."},
            "components": {"securitySchemes": {"bearerAuth": {
                "type": "http", "scheme": "bearer",
                "description": "The seat token returned once by POST /games or POST /games/{id}/players"}}},
        },
    )
    api = ProblemApi(app)
    app.extensions["ludoteca"] = {"service": service, "definition": definition, "api": api}
    api.ma_plugin.converter.add_attribute_function(action_ref_to_property)
    schemas = game_schemas(definition)
    _register_actions(api, definition, schemas.action_component)
    api.register_blueprint(games_blueprint(service, schemas))
    api.register_blueprint(results_blueprint(service))
    if definition.extras is not None:
        api.register_blueprint(definition.extras())
    app.register_blueprint(ops_blueprint(app, definition.name, definition.title, client))
    install_rate_limit(app, client, definition.name, settings.rate_limit_per_minute)
    return app


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
