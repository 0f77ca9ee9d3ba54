"""The standard routes of every game (the REST surface of docs/api.md), built once for any game.

:class:`GameRoutes` is the routes' one implementation (each calls the service only);
:func:`games_blueprint` and :func:`results_blueprint` serve them through Flask and
flask-smorest (each view documents its operation and parses the request), and
:class:`~ludoteca.adapters.hosting.hotroutes.HotRoutes` serves a move and a seat's reads from the
WSGI environ with the same methods."""

from __future__ import annotations

import http
import re
from collections.abc import Callable, Mapping
from functools import cached_property
from typing import Any

import marshmallow as ma
from flask import Response, request, url_for
from flask.views import MethodView
from flask_smorest import Blueprint
from ludoteca.adapters.hosting import streams
from ludoteca.adapters.hosting.accesslog import note_seat
from ludoteca.adapters.hosting.bodies import json_body
from ludoteca.adapters.hosting.document import query_parameters
from ludoteca.adapters.hosting.identity import GAME_ID, bearer_token
from ludoteca.adapters.hosting.ratelimit import loaded_game, write_quota
from ludoteca.adapters.hosting.schemas import (
    EventsQuerySchema,
    GameSchemas,
    JoinSchema,
    LeaderboardQuerySchema,
    LeaderboardSchema,
    ListActionsQuerySchema,
    LobbyQuerySchema,
    StatsSchema,
    match_schemas,
)
from ludoteca.config import Settings
from ludoteca.core import jsontext
from ludoteca.core.errors import AuthenticationError, BadRequestError, NotFoundError
from ludoteca.service_layer.matching import POLL_TIMEOUT_SECONDS, Matchmaker
from ludoteca.service_layer.mygames import PlayerRef
from ludoteca.service_layer.repository import Quota, Stored
from ludoteca.service_layer.service import GameService, Played

ETAG_RE = re.compile(r'[ \t]*(?:W/)?"?(\d{1,18})"?[ \t]*')
IDEM_RE = re.compile(r"[\x21-\x7e]{1,200}")
ETAG_HEADER: dict[str, Any] = {"description": "The game's version, quoted (`\"7\"`)", "schema": {"type": "string"}}
REQUEST_MATCH = (
    "Queue your player (a player's token) for a game of `seats` seats with these `options`: when enough players "
    "wait for the same, one game is made with a seat bound to each (closest ratings first; the allowed spread "
    "widens as you wait) and `matched` comes on your stream (`GET /players/me/events`). Poll the ticket "
    f"(`GET .../matchmaking/{{ticket}}`) at least every {POLL_TIMEOUT_SECONDS:g} s or it leaves the queue. With "
    "`fill_with_bots`, bots of that level take the other seats once you waited `after_seconds`. 409 when you "
    "wait already.")
"""``requestMatch``'s description (a docstring cannot say the poll timeout from its constant)."""
# the stream's parameters: the route's own `parameters` (for Last-Event-ID) replace the list
# flask-smorest makes from the query schema (issue 21: undeclared), so the query's are made from
# that schema here, as apispec would: declared once, in streams.StreamQuerySchema
STREAM_PARAMETERS = [*query_parameters(streams.StreamQuerySchema), streams.LAST_EVENT_ID_PARAMETER]
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


def check_game_id(game_id: str) -> None:
    if not GAME_ID.fullmatch(game_id):
        raise NotFoundError(f"No game with id {game_id!r}.")


class GameRoutes:
    """Every route of a game's REST surface, one method each: the request's inputs, parsed, in;
    the answer out; the work done by the service (:class:`~ludoteca.service_layer.service.GameService`)
    alone. Flask's views (:func:`games_blueprint`, :func:`results_blueprint`: the documentation
    and the parsing of a Flask request) and the fast path (:class:`~ludoteca.adapters.hosting.hotroutes.HotRoutes`:
    a move and a seat's reads parsed off the WSGI environ) call the same methods, so a route
    has one implementation whichever path answers it. Importable and testable alone (a service
    over the in-memory repository will do); a subclass may replace one route."""

    def __init__(self, service: GameService, settings: Settings | None = None) -> None:
        self.service = service
        self.settings = settings or Settings()

    # -- who asks ---------------------------------------------------------------------------
    def caller(self, game_id: str, token: str | None, stored: Stored | None = None) -> tuple[Stored, int | None]:
        """The game (``stored`` when read already) and the caller's seat (``None``: a
        spectator); 404 and 401 as they apply."""
        check_game_id(game_id)
        stored = stored or self.service.load(game_id)
        return stored, self.service.seat_of(stored, token)

    def mover(self, game_id: str, token: str | None, stored: Stored | None = None) -> tuple[Stored, int]:
        """The game a move starts from (``stored``, else this process's memory of it, else a
        read) and the seat of ``token``; 401 without one."""
        if token is None:  # before the headers and the body: a stranger learns nothing from them
            raise AuthenticationError("Playing needs a seat token (Authorization: Bearer <token>).")
        return self.service.seat_for_move(game_id, token, stored)

    # -- the games --------------------------------------------------------------------------
    def list_games(self, page: int, page_size: int) -> Response:
        return json_response(self.service.lobby(page, page_size))

    def player(self, token: str | None) -> PlayerRef | None:
        """The player a creating or joining request's token names (None: no token, or a seat
        token); 401 for a player's token that does not verify."""
        players = self.service.players
        return players.identify(token) if token is not None and players is not None else None

    def create_game(self, body: Mapping[str, Any], location: Callable[[str], str],
                    token: str | None = None) -> Response:
        """``location``: the URL of the game with that id; ``token``: the request's bearer token
        (a player's binds the creator's seat to the player)."""
        seats = body["seats"]
        seat = body.get("seat")
        if seat is None and "human" in seats:
            seat = seats.index("human")
        envelope, seat, token = self.service.create(seats, body["options"], seat, body.get("name"),
                                                    self.player(token))
        return json_response({"seat": seat, "token": token, "game": envelope}, 201,
                             {"Location": location(envelope["id"]), "ETag": etag(envelope["version"])})

    def get_game(self, stored: Stored, seat: int | None, if_none_match: str | None) -> Response:
        """The caller's view with its ETag, or a 304 when ``If-None-Match`` names the version."""
        tag = etag(stored.version)
        if if_none_match == tag:
            return Response(status=304, headers={"ETag": tag})
        return json_response(self.service.envelope(stored, seat), 200, {"ETag": tag})

    def join_game(self, game_id: str, body: Mapping[str, Any], token: str | None = None) -> Response:
        check_game_id(game_id)
        envelope, seat, token = self.service.join(game_id, body.get("seat"), body.get("name"), self.player(token))
        return json_response({"seat": seat, "token": token, "game": envelope}, 201, {"ETag": etag(envelope["version"])})

    def leave_game(self, stored: Stored, seat: int, body: Mapping[str, Any]) -> Response:
        """The caller's seat is left to a bot (``body``'s ``bot`` level, else the table's timeout bot)."""
        envelope, version, bot = self.service.leave(stored.record.id, seat, body.get("bot"))
        return json_response({"seat": seat, "bot": bot, "game": envelope}, 200, {"ETag": etag(version)})

    def list_actions(self, stored: Stored, seat: int | None, expand: bool = False) -> Response:
        return json_response(self.service.actions(stored, seat, expand), 200, {"ETag": etag(stored.version)})

    def play_action(self, game_id: str, stored: Stored, seat: int, body: Any, if_match: int | None,
                    idempotency_key: str | None, quota: Quota | None) -> Response:
        """A move of ``seat`` from ``stored`` (``If-Match`` and the key parsed:
        :func:`move_conditions`; ``quota``: the seat's write quota, spent by the commit)."""
        played = self.service.play(game_id, seat, body, if_match, idempotency_key, loaded=stored, quota=quota)
        return json_response(played.body, 200, played_headers(played))

    def get_events(self, game_id: str, seat: int | None, after: int, wait: float) -> Response:
        wait = min(wait, self.settings.max_long_poll_seconds)
        return json_response(self.service.events(game_id, seat, after, wait))

    def stream_events(self, stored: Stored, seat: int | None, after: int, turns: bool = False) -> Response:
        return streams.event_stream(self.service, stored, seat, after, self.settings.max_stream_seconds,
                                    self.settings.stream_heartbeat_seconds, turns)

    def get_replay(self, game_id: str) -> Response:
        check_game_id(game_id)
        return json_response(self.service.replay(game_id))

    # -- matchmaking --------------------------------------------------------------------------
    @cached_property
    def matchmaker(self) -> Matchmaker:
        players = self.service.players
        if players is None:  # pragma: no cover - every hosted game has players
            raise NotFoundError("This service has no players: no matchmaking.")
        name = self.service.d.name
        return Matchmaker(self.service, players.queues(name), lambda pid: players.ordinal(pid, name), players.tell)

    def matching_player(self, token: str | None) -> PlayerRef:
        player = self.player(token)
        if player is None:
            raise AuthenticationError("Matchmaking needs a player's token (Authorization: Bearer <token>; "
                                      "POST /players makes a guest player).")
        return player

    def ticket_body(self, ticket: str, body: Mapping[str, Any], game_url: Callable[[str], str]) -> dict[str, Any]:
        game = None
        if body.get("game"):
            game = {"id": body["game"], "seat": body["seat"], "url": game_url(str(body["game"]))}
        fill = None if body.get("fill_level") is None else {"level": body["fill_level"],
                                                             "after_seconds": int(body["fill_after"])}
        return {"ticket": ticket, "status": body["state"], "seats": body["seats"], "options": body["options"],
                "created_at": body["created"], "waited": max(0.0, self.matchmaker.clock() - float(body["created"])),
                "fill_with_bots": fill, "game": game}

    def post_ticket(self, body: Mapping[str, Any], token: str | None, location: Callable[[str], str],
                    game_url: Callable[[str], str]) -> Response:
        player = self.matching_player(token)
        ticket = self.matchmaker.post(player, body["seats"], body["options"], body.get("fill_with_bots"))
        return json_response(self.ticket_body(ticket["ticket"], ticket, game_url), 201,
                             {"Location": location(ticket["ticket"]), "Cache-Control": "no-store"})

    def get_ticket(self, ticket: str, token: str | None, game_url: Callable[[str], str]) -> Response:
        found = self.matchmaker.ticket(self.matching_player(token), ticket)
        return json_response(self.ticket_body(ticket, found, game_url), 200, {"Cache-Control": "no-store"})

    def delete_ticket(self, ticket: str, token: str | None, game_url: Callable[[str], str]) -> Response:
        found = self.matchmaker.cancel(self.matching_player(token), ticket)
        return json_response(self.ticket_body(ticket, found, game_url), 200, {"Cache-Control": "no-store"})

    # -- the results ------------------------------------------------------------------------
    def get_leaderboard(self, limit: int) -> Response:
        return json_response({"players": self.service.leaderboard(limit), "rated": self.service.rated(limit)})

    def get_stats(self) -> Response:
        return json_response(self.service.stats().to_body())


def _caller(routes: GameRoutes, game_id: str) -> tuple[Stored, int | None]:
    """:meth:`GameRoutes.caller` for a Flask request (the limiter may have read the game), the
    seat noted for the access log."""
    stored, seat = routes.caller(game_id, bearer_token(), loaded_game(game_id))
    note_seat(seat)
    return stored, seat


def games_blueprint(routes: GameRoutes, schemas: GameSchemas) -> Blueprint:
    """The game routes as Flask serves them: each view documents its operation and parses the
    request, then calls its :class:`GameRoutes` method."""
    d = routes.service.d
    blp = Blueprint("games", __name__, url_prefix="/games",
                    description=f"{d.title}: create, join, watch and play games.")
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
            return routes.list_games(query["page"], query["page_size"])

        @blp.arguments(schemas.create)
        @blp.response(201, schemas.created, headers={
            "Location": {"description": "The new game's URL", "schema": {"type": "string"}},
            "ETag": {"description": "The game's version", "schema": {"type": "string"}}})
        @_document(blp, 400, 401, 422, 429)
        @blp.doc(security=optional_bearer, operationId="createGame")
        def post(self, body: dict[str, Any]) -> Response:
            """Create a game

            Seats are `human` or `bot:<level>`, one per seat in order; `options` default to the
            game's defaults. The creator takes a human seat (`seat`, default the first) and
            receives its bearer token, shown once: keep it. The other human seats stay open until
            someone joins; the game starts when every seat is taken. With a player's token (the
            players service's), the creator's seat is bound to the player: that token then acts
            for the seat too, and the seat shows the player's name."""
            return routes.create_game(body, lambda game_id: url_for("games.Game", game_id=game_id),
                                      bearer_token())

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
            stored, seat = _caller(routes, game_id)
            return routes.get_game(stored, seat, request.headers.get("If-None-Match"))

    @blp.route("/<string:game_id>/players")
    class Players(MethodView):
        @blp.arguments(JoinSchema, required=False)
        @blp.response(201, schemas.created, headers={"ETag": ETAG_HEADER})
        @_document(blp, 400, 401, 404, 409, 422, 429)
        @blp.doc(security=optional_bearer, operationId="joinGame")
        def post(self, body: dict[str, Any], game_id: str) -> Response:
            """Join a game

            Claim an open human seat (`seat`, default the first open one) and receive its bearer
            token, shown once. 409 when no seat is open (`open_seats` lists them). With a
            player's token (the players service's), the seat is bound to the player, as when
            creating; 409 when the player has a seat of this game already."""
            return routes.join_game(game_id, body, bearer_token())

    @blp.route("/<string:game_id>/leave")
    class Leave(MethodView):
        @blp.arguments(schemas.leave, required=False)
        @blp.response(200, schemas.left, headers={"ETag": ETAG_HEADER})
        @_document(blp, 400, 401, 404, 409, 422, 429)
        @blp.doc(security=bearer, operationId="leaveGame")
        def post(self, body: dict[str, Any], game_id: str) -> Response:
            """Leave a game

            A bot takes your seat at once and plays it to the end: the level named in `bot` (one
            of the game's bot levels), else the table's timeout bot. A public `SeatLeft` event
            (seat, bot) says so; your seat's token and your player's token no longer act for the
            seat (409 when used for it), and your player's games show the game as left. 409 when
            the game is over or the seat was left already."""
            check_game_id(game_id)
            token = bearer_token()
            if token is None:
                raise AuthenticationError("Leaving needs your seat's token or your player's (Authorization: "
                                          "Bearer <token>).")
            stored = loaded_game(game_id) or routes.service.load(game_id)
            seat = routes.service.seat_of(stored, token, acting=True)
            assert seat is not None  # a token was given: a seat, or refused
            note_seat(seat)
            return routes.leave_game(stored, seat, body or {})

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
        @blp.arguments(ListActionsQuerySchema, location="query", unknown=ma.RAISE)
        @blp.response(200, schemas.actions, headers={"ETag": ETAG_HEADER})
        @_document(blp, 401, 404, 422)
        @blp.doc(security=bearer, operationId="listActions")
        def get(self, query: dict[str, Any], game_id: str) -> Response:
            """List your legal actions

            Every action your seat may post now, each exactly as `POST .../actions` accepts it,
            and the free-text ones as templates with placeholders to fill. Where they are many
            (Speculation's joker guesses), one template with its `domain` stands for them, unless
            `expand=true`. Empty when you may not act."""
            stored, seat = _caller(routes, game_id)
            return routes.list_actions(stored, seat, query["expand"])

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
            request again returns the stored response (`Idempotent-Replayed: true`). The answer's
            `next` lists your legal actions at the new version while you may still act (as
            `GET .../actions` would), so a move needs one request; null when you may not."""
            check_game_id(game_id)
            # the limiter may have read it; else a move starts from this process's memory of it
            stored, seat = routes.mover(game_id, bearer_token(), loaded_game(game_id))
            note_seat(seat)
            body = json_body()
            if_match, key = move_conditions(request.headers.get("If-Match"), request.headers.get("Idempotency-Key"))
            return routes.play_action(game_id, stored, seat, body, if_match, key, write_quota())

    @blp.route("/<string:game_id>/events")
    class Events(MethodView):
        @blp.arguments(EventsQuerySchema, location="query", unknown=ma.RAISE)
        @blp.response(200, schemas.events)
        @_document(blp, 401, 404, 422)
        @blp.doc(security=optional_bearer, operationId="getEvents")
        def get(self, query: dict[str, Any], game_id: str) -> Response:
            """Get the game's events

            Your events after `after` (the events you may see: a spectator, the public ones),
            numbered 1, 2, 3, ... from your side: another seat's private events take no number of
            yours. With `wait`, a long-poll: the answer comes as soon as one arrives, or empty when
            the wait runs out. Pass `last_seq` as the next `after`."""
            _, seat = _caller(routes, game_id)
            return routes.get_events(game_id, seat, query["after"], query["wait"])

    @blp.route("/<string:game_id>/stream")
    class Stream(MethodView):
        @blp.arguments(streams.StreamQuerySchema, location="query", unknown=ma.RAISE)
        @blp.response(200, streams.MESSAGE_SCHEMA, content_type=streams.MEDIA_TYPE, example=streams.EXAMPLE,
                      description=streams.RESPONSE_DESCRIPTION)
        @blp.alt_response(204, description="The game is over and no event is left after the cursor")
        @_document(blp, 400, 401, 404, 422)
        @blp.doc(security=optional_bearer,
                 parameters=STREAM_PARAMETERS,
                 operationId="streamEvents",
                 summary="Stream the game's events",
                 description=streams.DESCRIPTION.format(max_stream=Settings.max_stream_seconds))
        def get(self, query: dict[str, Any], game_id: str) -> Response:
            """Stream the game's events

            The caller's events as they happen (server-sent events), resumable."""
            stored, seat = _caller(routes, game_id)
            after = streams.cursor(query["after"], request.headers.get("Last-Event-ID"))
            return routes.stream_events(stored, seat, after, query["turns"])

    @blp.route("/<string:game_id>/replay")
    class Replay(MethodView):
        @blp.response(200, schemas.replay)
        @_document(blp, 404, 409)
        @blp.doc(operationId="getReplay")
        def get(self, game_id: str) -> Response:
            """Get a finished game's replay

            After the end: every action, every event, every hidden value and the secret seed,
            whose SHA-256 is the `seed_sha256` shown from the start. The events are numbered in
            the game's own order (every event counts, private ones included), not a viewer's:
            after the end nothing is hidden. 409 while the game goes on."""
            return routes.get_replay(game_id)

    return blp


def results_blueprint(routes: GameRoutes) -> Blueprint:
    """The game's routes outside ``/games``: the leaderboard, the statistics and matchmaking."""
    blp = Blueprint("results", __name__, url_prefix="", description="Leaderboard, statistics and matchmaking.")
    bearer: list[dict[str, list[str]]] = [{"bearerAuth": []}]
    match, ticket_schema = match_schemas(routes.service.d, routes.service.options_schema)

    def game_url(game_id: str) -> str:
        return url_for("games.Game", game_id=game_id, _external=True)

    @blp.route("/matchmaking")
    class Matchmaking(MethodView):
        @blp.arguments(match)
        @blp.response(201, ticket_schema, headers={"Location": {"description": "The ticket's URL: poll it",
                                                               "schema": {"type": "string"}}})
        @_document(blp, 400, 401, 409, 422, 429, 503)
        @blp.doc(security=bearer, operationId="requestMatch", description=REQUEST_MATCH)
        def post(self, body: dict[str, Any]) -> Response:
            """Find opponents"""
            return routes.post_ticket(body, bearer_token(), lambda t: url_for("results.Ticket", ticket=t), game_url)

    @blp.route("/matchmaking/<string:ticket>")
    class Ticket(MethodView):
        @blp.response(200, ticket_schema)
        @_document(blp, 401, 404)
        @blp.doc(security=bearer, operationId="getMatch")
        def get(self, ticket: str) -> Response:
            """Poll your ticket

            Your ticket: still waiting, or matched (`game`: its id, your seat, its URL). Polling
            keeps you in the queue."""
            return routes.get_ticket(ticket, bearer_token(), game_url)

        @blp.response(200, ticket_schema)
        @_document(blp, 401, 404, 409)
        @blp.doc(security=bearer, operationId="cancelMatch")
        def delete(self, ticket: str) -> Response:
            """Stop waiting

            Leave the queue: the ticket, `cancelled`. 409 when it was matched (or cancelled, or
            expired) already."""
            return routes.delete_ticket(ticket, bearer_token(), game_url)

    @blp.route("/leaderboard")
    class Leaderboard(MethodView):
        @blp.arguments(LeaderboardQuerySchema, location="query", unknown=ma.RAISE)
        @blp.response(200, LeaderboardSchema)
        @_document(blp, 422)
        @blp.doc(operationId="getLeaderboard")
        def get(self, query: dict[str, Any]) -> Response:
            """Get the leaderboard

            Players by name (bots by level) ranked by wins over the finished games."""
            return routes.get_leaderboard(query["limit"])

    @blp.route("/stats")
    class Stats(MethodView):
        @blp.response(200, StatsSchema)
        @blp.doc(operationId="getStats")
        def get(self) -> Response:
            """Get the statistics

            Counts over every finished game: how many, how many wins were shared, wins by seat."""
            return routes.get_stats()

    return blp
