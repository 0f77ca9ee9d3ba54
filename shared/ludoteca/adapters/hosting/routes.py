"""The standard routes of every game (DESIGN.md's REST surface), built once for any game."""

from __future__ import annotations

import http
import re
from typing import Any

import marshmallow as ma
from flask import Response, current_app, request, url_for
from flask.views import MethodView
from flask_smorest import Blueprint
from ludoteca.adapters.hosting import streams
from ludoteca.adapters.hosting.accesslog import note_seat
from ludoteca.adapters.hosting.bodies import json_body
from ludoteca.adapters.hosting.identity import GAME_ID, bearer_token
from ludoteca.adapters.hosting.ratelimit import loaded_game, write_quota
from ludoteca.adapters.hosting.schemas import (
    EventsPageSchema,
    EventsQuerySchema,
    GameSchemas,
    JoinSchema,
    LeaderboardQuerySchema,
    LeaderboardSchema,
    LobbyQuerySchema,
    StatsSchema,
)
from ludoteca.config import Settings
from ludoteca.core import jsontext
from ludoteca.core.errors import AuthenticationError, BadRequestError, NotFoundError
from ludoteca.service_layer.repository import Stored
from ludoteca.service_layer.service import GameService, Played

ETAG_RE = re.compile(r'[ \t]*(?:W/)?"?(\d{1,18})"?[ \t]*')
IDEM_RE = re.compile(r"[\x21-\x7e]{1,200}")
ETAG_HEADER: dict[str, Any] = {"description": "The game's version, quoted (`\"7\"`)", "schema": {"type": "string"}}
IF_NONE_MATCH: dict[str, Any] = {
    "name": "If-None-Match", "in": "header", "required": False, "schema": {"type": "string"},
    "description": "The ETag you have: 304 (no body) while the game is still at that version"}


def _errors(*codes: int) -> dict[int, str]:
    return {c: http.HTTPStatus(c).name for c in codes}


def _document(blp: Blueprint, *codes: int) -> Any:
    """Document the problem+json responses a route may give."""
    def deco(func: Any) -> Any:
        for code, name in _errors(*codes).items():
            func = blp.alt_response(code, response=name)(func)
        return func
    return deco


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(jsontext.dumps(body), status=status, headers=headers, mimetype="application/json")


def etag(version: int) -> str:
    return f'"{version}"'


def parse_if_match(value: str | None) -> int | None:
    if value is None:
        return None
    m = ETAG_RE.fullmatch(value)
    if not m:
        raise BadRequestError("If-Match must be the ETag of GET /games/{id}, e.g. \"7\".")
    return int(m.group(1))


def move_conditions(if_match: str | None, key: str | None) -> tuple[int | None, str | None]:
    """A move's ``If-Match`` version and ``Idempotency-Key`` from their headers; 400 if malformed."""
    version = parse_if_match(if_match)
    if key is not None and not IDEM_RE.fullmatch(key):
        raise BadRequestError("Idempotency-Key must be 1 to 200 visible ASCII characters.")
    return version, key


def played_headers(played: Played) -> dict[str, str]:
    """The headers of a played move's answer (besides its content's)."""
    headers = {"ETag": etag(played.version)}
    if played.replayed:
        headers["Idempotent-Replayed"] = "true"
    return headers


def game_view(service: GameService, stored: Stored, seat: int | None, if_none_match: str | None) -> Response:
    """The answer to ``GET /games/{id}`` (Flask's route and the hot route): the caller's view
    with its ETag, or a 304 when ``If-None-Match`` names the version."""
    tag = etag(stored.version)
    if if_none_match == tag:
        return Response(status=304, headers={"ETag": tag})
    return json_response(service.envelope(stored, seat), 200, {"ETag": tag})


def action_list(service: GameService, stored: Stored, seat: int | None) -> Response:
    """The answer to ``GET /games/{id}/actions`` (Flask's route and the hot route)."""
    return json_response(service.actions(stored, seat), 200, {"ETag": etag(stored.version)})


def check_game_id(game_id: str) -> None:
    if not GAME_ID.fullmatch(game_id):
        raise NotFoundError(f"No game with id {game_id!r}.")


def games_blueprint(service: GameService, schemas: GameSchemas) -> Blueprint:
    d = service.d
    blp = Blueprint("games", __name__, url_prefix="/games",
                    description=f"{d.title}: create, join, watch and play games.")
    def caller(game_id: str) -> tuple[Stored, int | None]:
        """The game and the caller's seat (None: spectator); 404 and 401 as they apply."""
        check_game_id(game_id)
        stored = loaded_game(game_id) or service.load(game_id)  # the limiter may have read it
        seat = service.seat_of(stored, bearer_token())
        note_seat(seat)
        return stored, seat

    bearer: list[dict[str, list[str]]] = [{"bearerAuth": []}]
    optional_bearer: list[dict[str, list[str]]] = [{}, {"bearerAuth": []}]

    @blp.route("")
    class Games(MethodView):
        @blp.arguments(LobbyQuerySchema, location="query", unknown=ma.RAISE)
        @blp.response(200, schemas.lobby)
        @_document(blp, 422)
        @blp.doc(operationId="listGames")
        def get(self, query: dict[str, Any]) -> Response:
            """List the open games (the lobby)

            The games still waiting for players, oldest first, a page at a time: join one with
            `POST /games/{game_id}/players`."""
            return json_response(service.lobby(query["page"], query["page_size"]))

        @blp.arguments(schemas.create)
        @blp.response(201, schemas.created, headers={
            "Location": {"description": "The new game's URL", "schema": {"type": "string"}},
            "ETag": {"description": "The game's version", "schema": {"type": "string"}}})
        @_document(blp, 400, 422, 429)
        @blp.doc(operationId="createGame")
        def post(self, body: dict[str, Any]) -> Response:
            """Create a game

            Seats are `human` or `bot:<level>`, one per seat in order; `options` default to the
            game's defaults. The creator takes a human seat (`seat`, default the first) and
            receives its bearer token, shown once: keep it. The other human seats stay open until
            someone joins; the game starts when every seat is taken."""
            seats = body["seats"]
            seat = body.get("seat")
            if seat is None and "human" in seats:
                seat = seats.index("human")
            envelope, seat, token = service.create(seats, body["options"], seat, body.get("name"))
            location = url_for("games.Game", game_id=envelope["id"])
            return json_response({"seat": seat, "token": token, "game": envelope}, 201,
                                 {"Location": location, "ETag": etag(envelope["version"])})

    @blp.route("/<string:game_id>")
    class Game(MethodView):
        @blp.response(200, schemas.envelope, headers={"ETag": ETAG_HEADER})
        @blp.alt_response(304, description="Not modified (If-None-Match matched the version)",
                          headers={"ETag": ETAG_HEADER})
        @_document(blp, 401, 404)
        @blp.doc(security=optional_bearer, operationId="getGame", parameters=[IF_NONE_MATCH])
        def get(self, game_id: str) -> Response:
            """Get a game as you see it

            Your view of the game: your seat comes from the bearer token; without one you are a
            spectator and see only what is public. The ETag is the version: send it back as
            `If-None-Match` to get a 304 while nothing changed, or as `If-Match` with a move."""
            stored, seat = caller(game_id)
            return game_view(service, stored, seat, request.headers.get("If-None-Match"))

    @blp.route("/<string:game_id>/players")
    class Players(MethodView):
        @blp.arguments(JoinSchema, required=False)
        @blp.response(201, schemas.created, headers={"ETag": ETAG_HEADER})
        @_document(blp, 400, 404, 409, 422, 429)
        @blp.doc(operationId="joinGame")
        def post(self, body: dict[str, Any], game_id: str) -> Response:
            """Join a game

            Claim an open human seat (`seat`, default the first open one) and receive its bearer
            token, shown once. 409 when no seat is open (`open_seats` lists them)."""
            check_game_id(game_id)
            envelope, seat, token = service.join(game_id, body.get("seat"), body.get("name"))
            return json_response({"seat": seat, "token": token, "game": envelope}, 201,
                                 {"ETag": etag(envelope["version"])})

    action_body = {
        "required": True,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schemas.action_component}"}}},
    }
    action_headers = [
        {"name": "If-Match", "in": "header", "required": False, "schema": {"type": "string"},
         "description": "The version (ETag) you saw; 412 if the game has moved on"},
        {"name": "Idempotency-Key", "in": "header", "required": False,
         "schema": {"type": "string", "maxLength": 200},
         "description": "Repeat a request safely: the stored response comes back; another body gives 422"},
    ]

    @blp.route("/<string:game_id>/actions")
    class Actions(MethodView):
        @blp.response(200, schemas.actions, headers={"ETag": ETAG_HEADER})
        @_document(blp, 401, 404)
        @blp.doc(security=bearer, operationId="listActions")
        def get(self, game_id: str) -> Response:
            """List your legal actions

            Every action your seat may post now, each exactly as `POST .../actions` accepts it,
            and the free-text ones as templates with placeholders to fill. Empty when you may
            not act."""
            stored, seat = caller(game_id)
            return action_list(service, stored, seat)

        @blp.response(200, schemas.played, headers={
            "ETag": ETAG_HEADER,
            "Idempotent-Replayed": {"description": "`true` when this is the stored response of an earlier "
                                                   "request with the same Idempotency-Key (nothing was played again)",
                                    "schema": {"type": "string", "enum": ["true"]}}})
        @_document(blp, 400, 401, 404, 409, 412, 422, 429)
        @blp.doc(security=bearer, requestBody=action_body, parameters=action_headers, operationId="playAction")
        def post(self, game_id: str) -> Response:
            """Play an action

            Post one of your legal actions (`GET .../actions`). 409 when it is not legal now
            (the problem lists your legal ones) or not your turn; 412 when `If-Match` names a
            version the game has moved on from. With an `Idempotency-Key`, sending the same
            request again returns the stored response (`Idempotent-Replayed: true`)."""
            check_game_id(game_id)
            # the limiter may have read it; a move may start from this process's memory of it
            stored = loaded_game(game_id) or service.load(game_id, recent=True)
            token = bearer_token()
            if token is None:  # before the headers and the body: a stranger learns nothing from them
                raise AuthenticationError("Playing needs a seat token (Authorization: Bearer <token>).")
            stored, seat = service.seat_for_move(game_id, token, stored)
            note_seat(seat)
            body = json_body()
            if_match, key = move_conditions(request.headers.get("If-Match"), request.headers.get("Idempotency-Key"))
            played = service.play(game_id, seat, body, if_match, key, loaded=stored, quota=write_quota())
            return json_response(played.body, 200, played_headers(played))

    @blp.route("/<string:game_id>/events")
    class Events(MethodView):
        @blp.arguments(EventsQuerySchema, location="query", unknown=ma.RAISE)
        @blp.response(200, EventsPageSchema)
        @_document(blp, 401, 404, 422)
        @blp.doc(security=optional_bearer, operationId="getEvents")
        def get(self, query: dict[str, Any], game_id: str) -> Response:
            """Get the game's events

            Your events after `after` (the events you may see: a spectator, the public ones).
            With `wait`, a long-poll: the answer comes as soon as one arrives, or empty when the
            wait runs out. Pass `last_seq` as the next `after`."""
            _, seat = caller(game_id)
            wait = min(query["wait"], current_app.config["LUDOTECA"].max_long_poll_seconds)
            return json_response(service.events(game_id, seat, query["after"], wait))

    @blp.route("/<string:game_id>/stream")
    class Stream(MethodView):
        @blp.arguments(streams.StreamQuerySchema, location="query", unknown=ma.RAISE)
        @blp.response(200, {"type": "string"}, content_type=streams.MEDIA_TYPE, example=streams.EXAMPLE,
                      description="The event stream (see the operation's description)")
        @blp.alt_response(204, description="The game is over and no event is left after the cursor")
        @_document(blp, 400, 401, 404, 422)
        @blp.doc(security=optional_bearer, parameters=[streams.LAST_EVENT_ID_PARAMETER], operationId="streamEvents",
                 summary="Stream the game's events",
                 description=streams.DESCRIPTION.format(max_stream=Settings.max_stream_seconds))
        def get(self, query: dict[str, Any], game_id: str) -> Response:
            """Stream the game's events

            The caller's events as they happen (server-sent events), resumable."""
            stored, seat = caller(game_id)
            settings = current_app.config["LUDOTECA"]
            after = streams.cursor(query["after"], request.headers.get("Last-Event-ID"))
            return streams.event_stream(service, stored, seat, after, settings.max_stream_seconds,
                                        settings.stream_heartbeat_seconds)

    @blp.route("/<string:game_id>/replay")
    class Replay(MethodView):
        @blp.response(200, schemas.replay)
        @_document(blp, 404, 409)
        @blp.doc(operationId="getReplay")
        def get(self, game_id: str) -> Response:
            """Get a finished game's replay

            After the end: every action, every event, every hidden value and the secret seed,
            whose SHA-256 is the `seed_sha256` shown from the start. 409 while the game goes on."""
            check_game_id(game_id)
            return json_response(service.replay(game_id))

    return blp


def results_blueprint(service: GameService) -> Blueprint:
    blp = Blueprint("results", __name__, url_prefix="", description="Leaderboard and statistics.")

    @blp.route("/leaderboard")
    class Leaderboard(MethodView):
        @blp.arguments(LeaderboardQuerySchema, location="query", unknown=ma.RAISE)
        @blp.response(200, LeaderboardSchema)
        @_document(blp, 422)
        @blp.doc(operationId="getLeaderboard")
        def get(self, query: dict[str, Any]) -> Response:
            """Get the leaderboard

            Players by name (bots by level) ranked by wins over the finished games."""
            return json_response({"players": service.store.leaderboard(query["limit"])})

    @blp.route("/stats")
    class Stats(MethodView):
        @blp.response(200, StatsSchema)
        @blp.doc(operationId="getStats")
        def get(self) -> Response:
            """Get the statistics

            Counts over every finished game: how many, how many wins were shared, wins by seat."""
            raw = service.store.stats()
            seat_wins = {k.split(":", 1)[1]: v for k, v in raw.items() if k.startswith("seat_wins:")}
            return json_response({"games": raw.get("games", 0), "shared_wins": raw.get("shared_wins", 0),
                                  "seat_wins": seat_wins})

    return blp
