"""The REST surface's schemas: generic shapes plus, per game, typed subclasses that nest the
game's own view, options and action schemas (so each service's OpenAPI is fully typed)."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import Any

import marshmallow as ma
from ludoteca.adapters.hosting.problems import ProblemSchema
from ludoteca.config import Settings
from ludoteca.core.engine import GameDefinition
from ludoteca.core.names import NAME_MAX, hidden_character
from ludoteca.service_layer import matching
from ludoteca.service_layer.fields import named_enum, strict_integer
from marshmallow import fields, validate

STATUSES = ["waiting_for_players", "active", "finished"]
MAX_SAFE_INTEGER = 2**53 - 1
SEAT = validate.Range(min=0, max=63)
NAME = validate.Length(min=1, max=NAME_MAX)
_QUERY_INT = re.compile(r"-?[0-9]{1,16}")


class QueryInteger(fields.Integer):
    """An integer in a query string: ASCII digits with an optional minus, at most 16 of them (no
    ``1e3``, ``1_000``, full-width or other scripts' digits, spaces)."""

    def _validated(self, value: Any) -> int:
        if isinstance(value, str) and not _QUERY_INT.fullmatch(value):
            raise self.make_error("invalid", input=value)
        return super()._validated(value)


class PlainString(fields.String):
    """A string without characters hidden from its readers (names shown to other players:
    :func:`ludoteca.core.names.hidden_character`)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        hidden = hidden_character(text)
        if hidden is not None:
            raise ma.ValidationError(f"Control, format and invisible characters are not allowed ({hidden}).")
        return text


class ActionRef(fields.Raw):
    """A field holding one action body; documented as a $ref to the game's action ``oneOf``."""

    def __init__(self, component: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.component = component


class EventRef(ActionRef):
    """A field holding one event; documented as a $ref to the game's event union (``oneOf`` its
    variants, discriminated by ``type`` with an explicit mapping), which it registers, with its
    variants, the first time it is documented."""

    def __init__(self, component: str, variants: dict[str, type[ma.Schema]], **kwargs: Any) -> None:
        super().__init__(component, **kwargs)
        self.variants = variants


def register_union(spec: Any, component: str, variants: dict[str, type[ma.Schema]]) -> None:
    """``component``: a ``oneOf`` over ``variants`` (discriminator value -> schema, registered
    under the schema's class name less ``Schema``) with a ``discriminator`` and its ``mapping``:
    the shape every generator tried reads as a tagged union (issue 21)."""
    if component in spec.components.schemas:
        return
    refs: dict[str, str] = {}
    for kind, schema_cls in variants.items():
        name = schema_cls.__name__.removesuffix("Schema")
        if name not in spec.components.schemas:
            spec.components.schema(name, schema=schema_cls)
        refs[kind] = f"#/components/schemas/{name}"
    spec.components.schema(component, {"oneOf": [{"$ref": r} for r in refs.values()],
                                       "discriminator": {"propertyName": "type", "mapping": refs}})


def game_status(**kwargs: Any) -> fields.String:
    return named_enum("GameStatus", STATUSES, **kwargs)


def action_ref_to_property(self: Any, field: fields.Field[Any], ret: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    if isinstance(field, EventRef):
        register_union(self.spec, field.component, field.variants)
    if isinstance(field, ActionRef):
        ref = {"$ref": f"#/components/schemas/{field.component}"}
        return {"allOf": [ref]} if ret else ref  # siblings of a $ref (a description) mean nothing
    return {}


class SeatSchema(ma.Schema):
    seat = fields.Integer(required=True, metadata={"description": "The seat's number, from 0"})
    kind = fields.String(required=True, validate=validate.OneOf(["human", "bot"]),
                         metadata={"description": "Who plays it"})
    level = fields.String(allow_none=True, metadata={"description": "The bot's level (null: a human seat)"})
    name = fields.String(allow_none=True, metadata={"description": "The player's name (null: an open seat)"})
    claimed = fields.Boolean(required=True, metadata={"description": "Taken by a player (bots always are)"})


class TimerSchema(ma.Schema):
    turn_seconds = fields.Integer(required=True, metadata={"description": "Seconds a human seat has to act"})
    bot = fields.String(required=True, metadata={"description": "The bot level that plays a timed-out turn"})
    seats = fields.List(fields.Integer(), required=True,
                        metadata={"description": "The human seats the deadline is for (empty: none is waiting)"})
    deadline = fields.String(required=True, allow_none=True,
                             metadata={"description": "When their turn times out (ISO 8601, UTC)",
                                       "example": "2026-12-01T14:03:07.250Z"})
    seconds_left = fields.Float(required=True, allow_none=True,
                                metadata={"description": "Seconds from this answer to the deadline (0: due now)"})


class ResultSchema(ma.Schema):
    winners = fields.List(fields.Integer(), required=True, metadata={"description": "Seats sharing the win"})
    scores = fields.List(fields.Float(), required=True, metadata={"description": "One score per seat"})
    summary = fields.Dict(required=True, metadata={"description": "The game's own account of the end "
                                                                  "(see its RULES.md)"})


class BoundSchema(ma.Schema):
    """The bound that ended a game (every game's engine declares one; a summary's ``bound``)."""

    reached = fields.String(required=True, metadata={"description": "The bound that ended the game: `actions`, or "
                                                                    "`rounds` where the game has a round bound"})
    limit = fields.Integer(required=True, metadata={"description": "Its limit"})


class SeatEventSchema(ma.Schema):
    """An event's data that names one seat and nothing more (the games' events build on it)."""

    seat = fields.Integer(required=True, metadata={"description": "The seat it concerns"})


class ActionBoundReachedSchema(ma.Schema):
    """``ActionBoundReached``'s data: the game's bound on actions ended it (a game adds what the
    end settled, e.g. :class:`TurnLostToBoundSchema`)."""

    actions = fields.Integer(required=True, metadata={"description": "Actions played: the game's bound"})


class TurnLostToBoundSchema(ActionBoundReachedSchema, SeatEventSchema):
    """``ActionBoundReached`` in a push-your-luck game: the seat playing loses its turn total."""

    lost = fields.Integer(required=True, metadata={"description": "The turn total of the seat playing, lost"})


class SeatClaimedSchema(ma.Schema):
    seat = fields.Integer(required=True, metadata={"description": "The seat claimed"})
    name = fields.String(required=True, metadata={"description": "The player's name at the table"})


class GameStartedSchema(ma.Schema):
    """No more to say: every seat is claimed and the game starts."""

    class Meta:
        unknown = ma.RAISE


class SeatLeftSchema(ma.Schema):
    seat = fields.Integer(required=True, metadata={"description": "The seat whose player left the game"})
    bot = fields.String(required=True, metadata={"description": "The bot level that plays it from now on"})


class TurnTimedOutSchema(ma.Schema):
    seat = fields.Integer(required=True, metadata={"description": "The human seat whose turn timed out"})
    bot = fields.String(required=True, metadata={"description": "The bot level that plays its move (the events "
                                                                "after this one say `by: timeout`)"})
    deadline = fields.String(required=True, allow_none=True, metadata={"description": "The deadline missed "
                                                                                      "(ISO 8601, UTC)"})


class EventSchema(ma.Schema):
    seq = fields.Integer(required=True, metadata={"description": "The event's number among the events the "
                                                                 "caller may see: 1, 2, 3, ... without gaps"})
    version = fields.Integer(required=True, metadata={"description": "Game version the event produced"})
    type = fields.String(required=True, metadata={"description": "Past-tense event name"})
    data = fields.Dict(required=True, metadata={"description": "What happened, as the caller may see it"})
    by = fields.String(validate=validate.OneOf(["timeout"]),
                       metadata={"description": "`timeout`: the move of a human seat whose turn timed out, played "
                                                "by a bot (after a `TurnTimedOut` event); absent otherwise"})


class EventsPageSchema(ma.Schema):
    events = fields.List(fields.Nested(EventSchema), required=True,
                         metadata={"description": "The caller's events, oldest first"})
    last_seq = fields.Integer(required=True, metadata={"description": "The caller's last event number read "
                                                                      "(`after` when none came): pass as `after` "
                                                                      "to continue"})


class EventsQuerySchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    after = QueryInteger(load_default=0, validate=validate.Range(min=0, max=MAX_SAFE_INTEGER),
                           metadata={"description": "Return events with seq greater than this"})
    wait = fields.Float(load_default=0.0, validate=validate.Range(min=0, max=60),
                        metadata={"description": "Long-poll: wait up to this many seconds for an event (the server "
                                                 "waits at most its LUDOTECA_MAX_WAIT, "
                                                 f"{Settings.max_long_poll_seconds:g} s by default, then answers "
                                                 "empty: ask again with the same `after`)"})


class LobbyQuerySchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    page = QueryInteger(load_default=1, validate=validate.Range(min=1, max=100000),
                        metadata={"description": "The page, from 1"})
    page_size = QueryInteger(load_default=20, validate=validate.Range(min=1, max=100),
                             metadata={"description": "Games per page"})


class ListActionsQuerySchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    expand = fields.Boolean(load_default=False, metadata={
        "description": "List every body, even where one template with its `domain` stands for many (Speculation's "
                       "joker guesses: 715 bodies instead of one template)"})


class JoinSchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    seat = strict_integer(load_default=None, allow_none=True, validate=SEAT,
                          metadata={"description": "Default: the first open seat"})
    name = PlainString(load_default=None, allow_none=True, validate=NAME,
                       metadata={"description": "Your name at the table (default: `seat <n>`)"})


class TicketGameSchema(ma.Schema):
    id = fields.String(required=True, metadata={"description": "The game's id"})
    seat = fields.Integer(required=True, metadata={"description": "Your seat"})
    url = fields.String(required=True, metadata={"description": "The game's URL (GET it with your player's token)"})


class LeaderboardRowSchema(ma.Schema):
    player = fields.String(required=True, metadata={"description": "A player's name, or `bot:<level>`"})
    wins = fields.Integer(required=True, metadata={"description": "Finished games won (a shared win counts)"})
    played = fields.Integer(required=True, metadata={"description": "Finished games played"})
    win_rate = fields.Float(required=True, metadata={"description": "wins / played"})
    mean_score = fields.Float(required=True, metadata={"description": "The mean of the player's scores"})


class RatingSchema(ma.Schema):
    mu = fields.Float(required=True, metadata={"description": "OpenSkill's mean skill estimate"})
    sigma = fields.Float(required=True, metadata={"description": "OpenSkill's uncertainty of it"})
    ordinal = fields.Float(required=True, metadata={"description": "mu - 3 sigma: what the ranking is by"})


class RatedRowSchema(ma.Schema):
    player_id = fields.String(required=True, metadata={"description": "The player's id (GET /players/{id})"})
    name = fields.String(required=True, metadata={"description": "The player's name"})
    played = fields.Integer(required=True, metadata={"description": "Rated games of this game finished"})
    rating = fields.Nested(RatingSchema, required=True)


class LeaderboardSchema(ma.Schema):
    players = fields.List(fields.Nested(LeaderboardRowSchema), required=True,
                          metadata={"description": "Most wins first"})
    rated = fields.List(fields.Nested(RatedRowSchema), required=True, metadata={
        "description": "Players (the players service's) by rating, best first: each finished game moves the "
                       "rating of every seat bound to a player (OpenSkill, Plackett-Luce); guests without a "
                       "player and bots count as opponents and stay unrated"})


class LeaderboardQuerySchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    limit = QueryInteger(load_default=20, validate=validate.Range(min=1, max=1000),
                         metadata={"description": "How many players"})


class StatsSchema(ma.Schema):
    games = fields.Integer(required=True, metadata={"description": "Finished games recorded"})
    shared_wins = fields.Integer(required=True, metadata={"description": "Games whose win was shared"})
    seat_wins = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True,
                            metadata={"description": "Wins by seat number"})


@dataclass(frozen=True)
class GameSchemas:
    """The typed schemas of one game's REST surface."""

    action_component: str
    events: type[ma.Schema]
    create: type[ma.Schema]
    created: type[ma.Schema]
    envelope: type[ma.Schema]
    actions: type[ma.Schema]
    played: type[ma.Schema]
    lobby: type[ma.Schema]
    replay: type[ma.Schema]
    conflict: type[ProblemSchema]
    leave: type[ma.Schema]
    left: type[ma.Schema]


def game_schemas(d: GameDefinition, options_schema: type[ma.Schema] | None = None) -> GameSchemas:
    """Build the per-game subclasses; class names become OpenAPI component names.
    ``options_schema``: the options as the service loads them (default: the game's own)."""
    prefix = "".join(part.capitalize() for part in d.name.split("_"))
    action_component = f"{prefix}Action"
    kinds = ["human"] + [f"bot:{level}" for level in d.bots]
    options_schema = options_schema or d.options_schema

    def _opts() -> dict[str, Any]:
        return dict(options_schema().load({}))

    result: type[ma.Schema] = ResultSchema
    declared = declared_schemas(d)
    if declared.summary is not None:
        summary = type(f"{prefix}SummarySchema", (declared.summary,), {})
        result = type(f"{prefix}ResultSchema", (ResultSchema,), {
            "summary": fields.Nested(summary, required=True, metadata={
                "description": "The game's own account of the end (see its RULES.md)"})})
    event = game_events(d, prefix, options_schema)
    events_page = type(f"{prefix}EventsPageSchema", (EventsPageSchema,), {
        "events": fields.List(event(), required=True, metadata={"description": "The caller's events, oldest first"})})

    create = type(f"{prefix}CreateGameSchema", (ma.Schema,), {
        "Meta": type("Meta", (), {"unknown": ma.RAISE}),
        "seats": fields.List(named_enum(f"{prefix}SeatKind", kinds), required=True,
                             validate=validate.Length(min=d.engine.min_seats, max=d.engine.max_seats),
                             metadata={"description": "One entry per seat, in seat order"}),
        "seat": strict_integer(load_default=None, allow_none=True, validate=SEAT,
                               metadata={"description": "The creator's seat (default: the first human seat; "
                                                        "null with no human seat)"}),
        "name": PlainString(load_default=None, allow_none=True, validate=NAME,
                            metadata={"description": "The creator's name at the table (default: `seat <n>`)"}),
        "options": fields.Nested(options_schema, load_default=_opts,
                                 metadata={"description": "The game's options (every one has a default)"}),
    })
    envelope = type(f"{prefix}GameSchema", (ma.Schema,), {
        "id": fields.String(required=True, metadata={"description": "The game's id (hex)"}),
        "game": fields.String(required=True, metadata={"description": f"The game type: `{d.name}`"}),
        "version": fields.Integer(required=True, metadata={"description": "Counts the game's changes; also the "
                                                                          "ETag (send it as If-Match)"}),
        "status": game_status(required=True, metadata={"description": "Waiting for players, active or finished"}),
        "seed_sha256": fields.String(required=True, metadata={"description": "SHA-256 of the secret seed"}),
        "created_at": fields.Float(required=True, metadata={"description": "Unix time of the creation"}),
        "you": fields.Integer(allow_none=True, required=True, metadata={"description": "Your seat (null: spectator)"}),
        "seats": fields.List(fields.Nested(SeatSchema), required=True,
                             metadata={"description": "Every seat, in order"}),
        "to_act": fields.List(fields.Integer(), required=True, metadata={
            "description": "The seats the game waits on (empty unless active)"}),
        "may_act": fields.List(fields.Integer(), required=True, metadata={
            "description": "The seats that may post an action now, as far as you may know: `to_act`, plus your "
                           "own seat when it may act out of turn (Ludor: the holder of the Autoplim, at any moment "
                           "of the play); `GET .../actions` lists what"}),
        "result": fields.Nested(result, allow_none=True, required=True,
                                metadata={"description": "How the game ended (null until it has)"}),
        "timer": fields.Nested(TimerSchema, allow_none=True, required=True,
                               metadata={"description": "The turn timer (option `turn_seconds`; null: none)"}),
        "state": fields.Nested(d.view_schema, required=True, metadata={"description": "Your view of the game"}),
    })
    created = type(f"{prefix}SeatGrantSchema", (ma.Schema,), {
        "seat": fields.Integer(allow_none=True, required=True,
                               metadata={"description": "Your seat (null: you created a table of bots)"}),
        "token": fields.String(allow_none=True, required=True,
                               metadata={"description": "Bearer token for the seat: shown once"}),
        "game": fields.Nested(envelope, required=True, metadata={"description": "The game, as you see it"}),
    })
    actions = type(f"{prefix}LegalActionsSchema", (ma.Schema,), {
        "version": fields.Integer(required=True, metadata={"description": "The version these are legal at"}),
        "seat": fields.Integer(required=True, metadata={"description": "Your seat"}),
        "status": game_status(required=True, metadata={"description": "The game's status"}),
        "actions": fields.List(ActionRef(action_component), required=True,
                               metadata={"description": "Post any of these as is"}),
        "templates": fields.List(ActionRef(action_component), required=True,
                                 metadata={"description": "Free-text actions: fill the placeholders"}),
    })
    played = type(f"{prefix}PlayResultSchema", (ma.Schema,), {
        "action": ActionRef(action_component, required=True, metadata={"description": "The action, as applied"}),
        "seat": fields.Integer(required=True, metadata={"description": "The seat that played it"}),
        "events": fields.List(event(), required=True, metadata={"description": "What it caused, as you may see it"}),
        "game": fields.Nested(envelope, required=True, metadata={"description": "The game after it"}),
        "next": fields.Nested(actions, allow_none=True, required=True, metadata={
            "description": "Your legal actions at the new version, as `GET .../actions` lists them, while you "
                           "may still act (your turn again, or out of turn); null when you may not (wait for "
                           "the game's events, then list them). One request a move: no listing needed"}),
    })
    lobby_item = type(f"{prefix}OpenGameSchema", (ma.Schema,), {
        "id": fields.String(required=True, metadata={"description": "The game's id"}),
        "version": fields.Integer(required=True, metadata={"description": "The game's version"}),
        "created_at": fields.Float(required=True, metadata={"description": "Unix time of the creation"}),
        "seats": fields.Integer(required=True, metadata={"description": "How many seats"}),
        "open_seats": fields.List(fields.Integer(), required=True, metadata={"description": "The seats to join"}),
        "players": fields.List(fields.String(), required=True,
                               metadata={"description": "Each seat's kind: `human` or `bot:<level>`"}),
        "options": fields.Nested(options_schema, required=True, metadata={"description": "The game's options"}),
    })
    lobby = type(f"{prefix}LobbySchema", (ma.Schema,), {
        "items": fields.List(fields.Nested(lobby_item), required=True,
                             metadata={"description": "This page's open games, oldest first"}),
        "page": fields.Integer(required=True, metadata={"description": "The page, from 1"}),
        "page_size": fields.Integer(required=True, metadata={"description": "Games per page"}),
        "total": fields.Integer(required=True, metadata={"description": "Open games in all"}),
    })
    logged = type(f"{prefix}LoggedActionSchema", (ma.Schema,), {
        "version": fields.Integer(required=True, metadata={"description": "The version it made"}),
        "seat": fields.Integer(required=True, metadata={"description": "Who played it"}),
        "action": ActionRef(action_component, required=True, metadata={"description": "The action"}),
    })
    replay = type(f"{prefix}ReplaySchema", (ma.Schema,), {
        "id": fields.String(required=True, metadata={"description": "The game's id"}),
        "game": fields.String(required=True, metadata={"description": f"The game type: `{d.name}`"}),
        "seed": fields.String(required=True, metadata={"description": "The secret seed, revealed"}),
        "seed_sha256": fields.String(required=True, metadata={"description": "SHA-256 of the seed's bytes"}),
        "players": fields.List(fields.String(), required=True,
                               metadata={"description": "Each seat's kind: `human` or `bot:<level>`"}),
        "names": fields.List(fields.String(), required=True, metadata={"description": "Each seat's name"}),
        "options": fields.Nested(options_schema, required=True, metadata={"description": "The game's options"}),
        "actions": fields.List(fields.Nested(logged), required=True,
                               metadata={"description": "Every action, in order"}),
        "events": fields.List(event(), required=True, metadata={
            "description": "Every event, hidden ones included, numbered in the game's own order, each with its "
                           "`audience`"}),
        "final_state": fields.Dict(required=True, metadata={"description": "The engine's whole final state"}),
        "result": fields.Nested(result, allow_none=True, required=True,
                                metadata={"description": "How the game ended"}),
    })
    conflict = type(f"{prefix}ConflictProblemSchema", (ProblemSchema,), {
        "__doc__": "409: the game's state does not allow this now.",
        "legal": fields.List(ActionRef(action_component), metadata={
            "description": "Your legal actions now (an illegal action)"}),
        "legal_count": fields.Integer(metadata={
            "description": "How many legal actions you have, instead of `legal` when they are too many to list "
                           "in an error (`GET /games/{id}/actions` lists them)"}),
        "templates": fields.List(ActionRef(action_component), metadata={
            "description": "Your free-text actions, with placeholders (beside `legal`)"}),
        "to_act": fields.List(fields.Integer(), metadata={"description": "The seats the game waits on "
                                                                         "(not your turn)"}),
        "open_seats": fields.List(fields.Integer(), metadata={"description": "The seats still open (a join)"}),
        "game_status": game_status(metadata={"description": "The game's status (when it does not allow this)"}),
        "seat": fields.Integer(metadata={"description": "Your seat of this game (a player's second join), or the "
                                                        "seat you left"}),
        "bot": fields.String(metadata={"description": "The bot level that plays the seat you left"}),
    })
    leave = type(f"{prefix}LeaveSchema", (ma.Schema,), {
        "Meta": type("Meta", (), {"unknown": ma.RAISE}),
        "bot": named_enum(f"{prefix}BotLevel", list(d.bots), load_default=None, allow_none=True, metadata={
            "description": "The bot level that plays your seat from now on (default: the table's timeout bot)"}),
    })
    left = type(f"{prefix}SeatLeftSchema", (ma.Schema,), {
        "seat": fields.Integer(required=True, metadata={"description": "The seat you left"}),
        "bot": fields.String(required=True, metadata={"description": "The bot level that plays it from now on"}),
        "game": fields.Nested(envelope, required=True, metadata={"description": "The game, as a spectator sees it"}),
    })
    return GameSchemas(action_component, events_page, create, created, envelope, actions, played, lobby, replay,
                       conflict, leave, left)


def match_schemas(d: GameDefinition, options_schema: type[ma.Schema]) -> tuple[type[ma.Schema], type[ma.Schema]]:
    """``POST /matchmaking``'s body (the seat count, the options, the bots to fill with) and the
    ticket its player sees, both typed with the game's options and bot levels."""
    prefix = "".join(part.capitalize() for part in d.name.split("_"))

    def _opts() -> dict[str, Any]:
        return dict(options_schema().load({}))

    fill = type(f"{prefix}FillWithBotsSchema", (ma.Schema,), {
        "Meta": type("Meta", (), {"unknown": ma.RAISE}),
        "level": named_enum(f"{prefix}BotLevel", list(d.bots), required=True,
                            metadata={"description": "The bots' level"}),
        "after_seconds": strict_integer(required=True, validate=validate.Range(min=0, max=3600), metadata={
            "description": "How long to wait for players first"}),
    })
    match = type(f"{prefix}MatchRequestSchema", (ma.Schema,), {
        "Meta": type("Meta", (), {"unknown": ma.RAISE}),
        "seats": strict_integer(required=True, validate=validate.Range(min=d.engine.min_seats,
                                                                        max=d.engine.max_seats),
                                metadata={"description": "How many seats the game has (every one a player's)"}),
        "options": fields.Nested(options_schema, load_default=_opts, metadata={
            "description": "The game's options (tickets match only with the same seats and options)"}),
        "fill_with_bots": fields.Nested(fill, load_default=None, allow_none=True, metadata={
            "description": "Unmatched after `after_seconds`: play against bots of `level` (default: wait)"}),
    })
    ticket = type(f"{prefix}TicketSchema", (ma.Schema,), {
        "__doc__": "A matchmaking ticket, as its player sees it.",
        "ticket": fields.String(required=True, metadata={"description": "The ticket's id"}),
        "status": fields.String(required=True, validate=validate.OneOf(matching.STATES), metadata={
            "description": f"`waiting` in the queue (poll it: a ticket not polled for "
                           f"{matching.POLL_TIMEOUT_SECONDS:g} s leaves), `claimed` (its "
                           "game is being made), `matched` (see `game`), `cancelled`, `expired`"}),
        "seats": fields.Integer(required=True),
        "options": fields.Nested(options_schema, required=True, metadata={"description": "The game's options"}),
        "created_at": fields.Float(required=True, metadata={"description": "When the ticket was made, Unix seconds"}),
        "waited": fields.Float(required=True, metadata={"description": "Seconds waited so far"}),
        "fill_with_bots": fields.Nested(fill, allow_none=True, required=True, metadata={
            "description": "The bots to play against after a wait, or null"}),
        "game": fields.Nested(TicketGameSchema, allow_none=True, required=True, metadata={
            "description": "The game made for the ticket (null until `matched`)"}),
    })
    return match, ticket


@dataclass(frozen=True)
class Declared:
    events: dict[str, type[ma.Schema]]
    summary: type[ma.Schema] | None


def declared_schemas(d: GameDefinition) -> Declared:
    """The schemas of the game's events' ``data`` and of its result's ``summary``, declared beside
    its view schema (``<game>.schemas``: ``EVENT_SCHEMAS``, ``SummarySchema``; checked against
    played games by tests/clients/test_event_schemas.py). Found through the view schema's module
    (the definition names no module of its own)."""
    module = sys.modules[d.view_schema.__module__]
    return Declared(dict(getattr(module, "EVENT_SCHEMAS", {})), getattr(module, "SummarySchema", None))


SEQ = ("The event's number: in `GET .../events`, a move's answer and the stream, among the events the caller may "
       "see (1, 2, 3, ... without gaps); in a replay, its position in the game's whole log (every event, private "
       "ones included)")


def game_events(d: GameDefinition, prefix: str, options_schema: type[ma.Schema]) -> Any:
    """A factory of fields holding one of the game's events: the service's own (``GameCreated``,
    ``SeatClaimed``, ``GameStarted``, ``TurnTimedOut``, ``SeatLeft``) and the engine's (``d.event_schemas``),
    each a variant ``<Game>Event<Type>`` whose ``data`` is ``<Game><Type>Data``."""
    created = type("GameCreatedSchema", (ma.Schema,), {
        "seats": fields.List(fields.String(), required=True, metadata={"description": "Each seat's kind: `human` "
                                                                                     "or `bot:<level>`"}),
        "options": fields.Nested(options_schema, required=True, metadata={"description": "The game's options"}),
        "seed_sha256": fields.String(required=True, metadata={"description": "SHA-256 of the secret seed"}),
    })
    data = {"GameCreated": created, "SeatClaimed": SeatClaimedSchema, "GameStarted": GameStartedSchema,
            "TurnTimedOut": TurnTimedOutSchema, "SeatLeft": SeatLeftSchema,
            **{str(k): v for k, v in declared_schemas(d).events.items()}}
    variants: dict[str, type[ma.Schema]] = {}
    for kind, schema_cls in data.items():
        data_cls = type(f"{prefix}{kind}DataSchema", (schema_cls,), {})
        variants[kind] = type(f"{prefix}Event{kind}Schema", (EventSchema,), {
            "seq": fields.Integer(required=True, metadata={"description": SEQ}),
            "audience": fields.List(fields.Integer(), allow_none=True, metadata={
                "description": "In a replay only: the seats that saw it live (null: everyone)"}),
            "type": fields.String(required=True, validate=validate.OneOf([kind]),
                                  metadata={"description": "Past-tense event name"}),
            "data": fields.Nested(data_cls, required=True, metadata={"description": "What happened, as the caller "
                                                                                    "may see it"}),
        })
    component = f"{prefix}Event"

    def field(**kwargs: Any) -> EventRef:
        return EventRef(component, variants, **kwargs)

    return field
