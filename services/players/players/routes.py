"""The players service's web layer and app factory (issue 23): the same parts as a game service
(Flask + flask-smorest, problem+json, the shared rate limits, metrics, ``/healthz``,
``/readyz``, its OpenAPI document), over the shared library's players
(:mod:`ludoteca.adapters.players`).

Mounted by the front door at ``/players`` (which it strips, as it strips a game's prefix): the
public ``POST /players`` is this service's ``POST /``, ``GET /players/me`` its ``GET /me``.
``gunicorn 'players.routes:make_app()'`` serves it.

Rate limits (requests a minute, the games' settings): ``POST /players`` per client address (the
new-seat limit, ``LUDOTECA_RATE_LIMIT_CREATE``); a request whose bearer token names no player per
client address (``LUDOTECA_RATE_LIMIT_FAILURES``); a player's reads per player
(``LUDOTECA_RATE_LIMIT_READS``); other reads per client address.
"""

# mypy: disallow-untyped-decorators=False
# (flask-smorest's route decorators are untyped, as for the games' routes: pyproject.toml)
from __future__ import annotations

import http
from typing import Any

import marshmallow as ma
import redis
from flask import Flask, Response, g, request, url_for
from flask.views import MethodView
from flask_smorest import Blueprint
from ludoteca.adapters.connect import blocking_client, redis_client
from ludoteca.adapters.hosting import API_VERSION, ForwardedBy, streams
from ludoteca.adapters.hosting.accesslog import install_access_log
from ludoteca.adapters.hosting.bodies import LIMITS_DOC, install_body_bounds
from ludoteca.adapters.hosting.buckets import install_buckets
from ludoteca.adapters.hosting.cors import install_cors
from ludoteca.adapters.hosting.document import DocumentedApi, exported_servers, query_parameters
from ludoteca.adapters.hosting.identity import bearer_token
from ludoteca.adapters.hosting.ops import ops_blueprint
from ludoteca.adapters.hosting.ratelimit import Bucket, Limits, client_address, document_rate_limits, is_load_test
from ludoteca.adapters.hosting.schemas import EventsQuerySchema
from ludoteca.adapters.observe import configure_logging
from ludoteca.adapters.players import GameLists, Identities, OidcSettings, Player, PlayerEvents, PlayerStore
from ludoteca.adapters.store import LONG_BLOCK_SECONDS, GameStore
from ludoteca.adapters.sweeper import grace_seconds
from ludoteca.config import Settings
from ludoteca.core import jsontext
from ludoteca.core.engine import Hosting
from ludoteca.core.errors import AuthenticationError, LudotecaError, NotFoundError
from ludoteca.service_layer import registry
from ludoteca.service_layer.mygames import MyGames
from ludoteca.service_layer.repository import GameMissing, Stored

from players.schemas import (
    MyGamesQuerySchema,
    MyGamesSchema,
    NewGuestSchema,
    NewPlayerSchema,
    PlayerEventsSchema,
    PlayerSchema,
    ProfileSchema,
)

NAME = "players"
HOSTING = Hosting(port=8006)
"""Where this service is served, declared once here (as a game declares its ``Hosting`` in its
``game.py``): ``make generate`` (:mod:`ludoteca.entrypoints.generate`) writes from it its
Procfile line, its compose service, its front-door route (``/players``, ``POST /players``
included), its Ingress path and its Kubernetes objects."""
TITLE = "Players"
DESCRIPTION = (
    "One identity across the games (issue 23). A guest player is made by `POST /players` (its token "
    "shown once); a deployment that names an OpenID Connect provider also accepts that provider's JWTs "
    "as a player's bearer token (its `sub` is the player, made on first sight). A player's token acts "
    "for the player: `GET /players/me`; everyone sees a player's public profile, `GET /players/{id}`.")
BEARER: list[dict[str, list[str]]] = [{"bearerAuth": []}]
PLAYER_MESSAGE = {"event": "message", "id": "7", "data": (
    '{"seq":7,"type":"your_turn","game":"pig","id":"5f0c2a9e1b7d4c3a","seat":0,"version":12,'
    '"url":"https://ludoteca.example/pig/games/5f0c2a9e1b7d4c3a"}')}
"""One message of a player's event stream (the document's example)."""
PLAYER_KEY = "ludoteca_player"
"""The ``flask.g`` attribute of the verified caller (a :class:`Player`), or the error verifying it."""


def _errors(blp: Blueprint, *codes: int) -> Any:
    def deco(func: Any) -> Any:
        for code in codes:
            func = blp.alt_response(code, response=http.HTTPStatus(code).name)(func)
        return func
    return deco


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(jsontext.dumps(body), status=status, headers=headers, mimetype="application/json")


def player_body(player: Player) -> dict[str, Any]:
    return {"id": player.id, "name": player.name, "kind": player.kind, "created": player.created}


def caller(identities: Identities) -> Player | None:
    """The player the request's bearer token names (None without one), verified once per request;
    401 for a token that names no player."""
    if PLAYER_KEY not in g:
        try:
            token = bearer_token()
            setattr(g, PLAYER_KEY, None if token is None else identities.verify(token))
        except LudotecaError as err:
            setattr(g, PLAYER_KEY, err)
    found = g.get(PLAYER_KEY)
    if isinstance(found, LudotecaError):
        raise found
    return found if isinstance(found, Player) else None


def me(identities: Identities) -> Player:
    player = caller(identities)
    if player is None:
        raise AuthenticationError("This needs a player's token: 'Authorization: Bearer <token>' (POST /players "
                                  "makes a guest player and its token).")
    return player


def profile(store: PlayerStore, player: Player) -> dict[str, Any]:
    games = {game: {"played": r.played, "rating": r.body()} for game, r in store.ratings(player.id).items()}
    return {"id": player.id, "name": player.name, "kind": player.kind, "games": games}


def my_games(client: redis.Redis, settings: Settings) -> MyGames:
    """The player's games over every installed game's store (read only)."""
    definitions = {name: registry.game(name) for name in registry.names()}
    stores = {name: GameStore(client, name, settings.game_ttl_seconds, settings.idempotency_ttl_seconds)
              for name in definitions}

    def load(game: str, game_id: str) -> Stored | None:
        try:
            return stores[game].load(game_id)
        except GameMissing:
            return None

    return MyGames(GameLists(client), load, definitions, grace_seconds())


EVENTS_DESCRIPTION = (
    "One stream for every game of yours: `your_turn`, `game_started`, `game_finished`, `turn_timed_out`, "
    "`matched` and `seat_left`, each with the game's type, id, URL and your seat, numbered 1, 2, 3, ... in "
    "your stream.\n\n"
    "As a long-poll (JSON): the notices after `after`; with `wait`, the answer comes as soon as one arrives, "
    "or empty when the wait runs out; pass `last_seq` as the next `after`.\n\n"
    "As server-sent events (`Accept: text/event-stream`, as an EventSource sends): each message's `id` is the "
    "notice's `seq`, its `data` the notice; reconnect with `Last-Event-ID` (an EventSource sends it by itself) "
    "or `?after=` to resume with nothing lost or repeated. Comments (`: keep-alive`) keep an idle stream open; "
    "the server closes a stream after at most {max_stream:g} s: reconnect where you were.\n\n"
    "Your stream keeps your last {cap} notices, for {days:g} days after the last one.")


def players_blueprint(store: PlayerStore, identities: Identities, games: MyGames, events: PlayerEvents,
                      settings: Settings) -> Blueprint:
    blp = Blueprint("players", __name__, url_prefix="", description="Players: identity and profiles")

    @blp.route("/")
    class Players(MethodView):
        @blp.arguments(NewPlayerSchema)
        @blp.response(201, NewGuestSchema, headers={"Location": {"description": "The player's profile",
                                                                 "schema": {"type": "string"}}})
        @_errors(blp, 400, 422, 429)
        @blp.doc(operationId="createGuestPlayer")
        def post(self, body: dict[str, Any]) -> Response:
            """Make a guest player

            A new player named `name`, and its bearer token, shown once (only its hash is kept):
            keep it, it is the player. Limited per client address."""
            player, token = store.create_guest(body["name"].strip())
            return json_response({"player": player_body(player), "token": token}, 201, {
                "Location": url_for("players.Profile", player_id=player.id), "Cache-Control": "no-store"})

    @blp.route("/me")
    class Me(MethodView):
        @blp.response(200, PlayerSchema)
        @_errors(blp, 401, 429, 503)
        @blp.doc(security=BEARER, operationId="getMe")
        def get(self) -> Response:
            """Who you are

            The player your bearer token names: a guest token, or (when the deployment names an
            OpenID Connect provider) a JWT of that provider, whose subject is made a player the
            first time it is seen. 401 for a token that names no player (malformed, unknown,
            expired, signed with a refused algorithm, for another audience or issuer)."""
            return json_response(player_body(me(identities)), 200, {"Cache-Control": "private, no-store"})

    @blp.route("/me/games")
    class Games(MethodView):
        @blp.arguments(MyGamesQuerySchema, location="query", unknown=ma.RAISE)
        @blp.response(200, MyGamesSchema)
        @_errors(blp, 401, 422, 429, 503)
        @blp.doc(security=BEARER, operationId="getMyGames")
        def get(self, query: dict[str, Any]) -> Response:
            """Your games

            Every game of every kind in which a seat is yours (bound to your player by creating
            or joining the game with your token), newest first, a page at a time: its type, id,
            status, your seat, whether it is your turn, and its URL."""
            player = me(identities)
            total, found = games.page(player.id, query["page"], query["page_size"])
            base = request.host_url.rstrip("/")
            rows = [{"game": g.game, "id": g.game_id, "status": g.status, "seat": g.seat, "your_turn": g.your_turn,
                     "left": g.left, "created_at": g.created_at, "url": f"{base}/{g.game}/games/{g.game_id}"}
                    for g in found]
            return json_response({"games": rows, "total": total, "page": query["page"],
                                  "page_size": query["page_size"]}, 200, {"Cache-Control": "private, no-store"})

    @blp.route("/me/events")
    class Events(MethodView):
        @blp.arguments(EventsQuerySchema, location="query", unknown=ma.RAISE)
        @blp.response(200, PlayerEventsSchema)
        @_errors(blp, 400, 401, 422, 429, 503)
        @blp.doc(security=BEARER, operationId="getMyEvents",
                 parameters=[*query_parameters(EventsQuerySchema), streams.LAST_EVENT_ID_PARAMETER],
                 summary="Your events, every game's",
                 description=EVENTS_DESCRIPTION.format(max_stream=settings.max_stream_seconds, cap=events.cap,
                                                       days=events.game_ttl / 86400),
                 responses={"200": {"description": "Your notices (JSON), or their stream (`text/event-stream`)",
                                     "content": {
                                         "application/json": {"schema": {"$ref": "#/components/schemas/PlayerEvents"}},
                                         streams.MEDIA_TYPE: {"schema": streams.PLAYER_MESSAGE_SCHEMA,
                                                              "example": PLAYER_MESSAGE}}}})
        def get(self, query: dict[str, Any]) -> Response:
            """Your events, every game's"""
            player = me(identities)
            base = request.host_url.rstrip("/")

            def read(after: int, wait: float) -> tuple[list[dict[str, Any]], int]:
                page = events.page(player.id, after, wait)
                for e in page["events"]:
                    e["url"] = f"{base}/{e['game']}/games/{e['id']}"
                return page["events"], page["last_seq"]

            if request.accept_mimetypes.best_match(["application/json", streams.MEDIA_TYPE]) == streams.MEDIA_TYPE:
                after = streams.cursor(query["after"], request.headers.get("Last-Event-ID"))
                return streams.player_stream(f"player {player.id}", after, settings.max_stream_seconds,
                                             settings.stream_heartbeat_seconds, read)
            found, last = read(query["after"], min(query["wait"], settings.max_long_poll_seconds))
            return json_response({"events": found, "last_seq": last}, 200, {"Cache-Control": "private, no-store"})

    @blp.route("/<string:player_id>")
    class Profile(MethodView):
        @blp.response(200, ProfileSchema)
        @_errors(blp, 404, 429)
        @blp.doc(operationId="getPlayer")
        def get(self, player_id: str) -> Response:
            """A player's public profile

            The name, and per game the player has played rated games of: how many, and the
            rating."""
            player = store.get(player_id)
            if player is None:
                raise NotFoundError(f"No player {player_id[:64]!r}.")
            return json_response(profile(store, player))

    return blp


def player_bucket(identities: Identities, limits: Limits, exempt: Any) -> Bucket | None:
    """The rate-limit bucket of this request (see the module docstring)."""
    if request.blueprint in ("ops", "api-docs") or request.endpoint in (None, "static"):
        return None
    address = client_address(request.remote_addr)
    load_test = is_load_test(request.remote_addr, exempt)
    writes = request.method not in ("GET", "HEAD", "OPTIONS")
    if request.endpoint == "players.Players" and writes:
        return None if load_test else Bucket(f"new/{address}", limits.create,
                                              "new players a minute per client address")
    if "Authorization" in request.headers:
        try:
            player = caller(identities)
        except AuthenticationError:
            return None if load_test else Bucket(
                f"fail/{address}", limits.failures,
                "requests with a malformed or unknown player token a minute per client address")
        if player is not None:
            kind, per_minute = ("w", limits.writes) if writes else ("r", limits.reads)
            return Bucket(f"player/{player.id}/{kind}", per_minute,
                          f"{'writes' if writes else 'reads'} a minute per player")
    if load_test:
        return None
    return Bucket(f"anon/{address}/{'w' if writes else 'r'}", limits.writes if writes else limits.reads,
                  f"{'writes' if writes else 'reads'} a minute per client address without a player token")


def create_app(settings: Settings | None = None, oidc: OidcSettings | None = None,
               client: redis.Redis | None = None) -> Flask:
    """The players service over ``settings``' Redis; ``oidc``: the OpenID Connect provider whose
    JWTs are accepted too (None: guests only)."""
    settings = settings or Settings.from_env()
    blocking = None
    if client is None:
        client = redis_client(settings.redis_url, settings.redis_timeout_seconds, settings.redis_max_connections)
        blocking = blocking_client(settings.redis_url, LONG_BLOCK_SECONDS, settings.redis_timeout_seconds,
                                   settings.redis_max_connections)
    store = PlayerStore(client)
    identities = Identities(store, oidc)
    events = PlayerEvents(client, settings.game_ttl_seconds, store.ttl, blocking=blocking)
    app = Flask(f"ludoteca.{NAME}")
    oidc_doc = ("" if oidc is None else f" This deployment also accepts the JWTs of {oidc.issuer} "
                f"(audience {oidc.audience}).")
    app.config.update(
        LUDOTECA=settings, API_TITLE=f"Ludoteca {TITLE}", API_VERSION=API_VERSION, OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/", OPENAPI_JSON_PATH="openapi.json", JSON_SORT_KEYS=False,
        API_SPEC_OPTIONS={
            "info": {"description": DESCRIPTION + oidc_doc + LIMITS_DOC},
            "servers": exported_servers(NAME),
            "components": {"securitySchemes": {"bearerAuth": {
                "type": "http", "scheme": "bearer",
                "description": "A player's token: the guest token returned once by POST /players, or a JWT of "
                               "the deployment's OpenID Connect provider"}}},
        },
    )
    api = DocumentedApi(app)
    document_rate_limits(api)
    app.extensions["ludoteca"] = {"players": store, "identities": identities, "api": api}
    api.register_blueprint(players_blueprint(store, identities, my_games(client, settings), events, settings))
    install_access_log(app, NAME, {})
    app.register_blueprint(ops_blueprint(NAME, TITLE, client))
    install_cors(app, settings.cors_origins)
    limits, exempt = Limits.from_settings(settings), settings.load_test_networks
    install_buckets(app, client, NAME, settings, lambda: player_bucket(identities, limits, exempt))
    install_body_bounds(app, settings.max_body_bytes)
    app.wsgi_app = ForwardedBy(app.wsgi_app, settings.trusted_proxies,  # type: ignore[method-assign]
                               settings.proxy_networks)
    return app


def make_app() -> Flask:
    """The app gunicorn serves (``gunicorn 'ludoteca.entrypoints.wsgi:make_app()'`` with
    ``LUDOTECA_GAME=players``, the Procfile's line), configured from the environment
    (the games' settings, and ``LUDOTECA_OIDC_*``: :class:`~ludoteca.adapters.players.OidcSettings`)."""
    configure_logging(NAME)
    return create_app(Settings.from_env(), OidcSettings.from_env())
