"""The players service's request and response bodies (marshmallow; typed in the OpenAPI document)."""

from __future__ import annotations

import marshmallow as ma
from ludoteca.adapters.hosting.schemas import RatingSchema
from ludoteca.core.names import NAME_MAX, plain_name
from ludoteca.service_layer import notices
from ludoteca.service_layer.record import Status
from marshmallow import fields, validate

KINDS = ("guest", "oidc")


def _is_name(value: str) -> bool:
    if plain_name(value) is None:
        raise ma.ValidationError(f"1 to {NAME_MAX} characters (spaces around them dropped), no control, format or "
                                 "invisible characters.")
    return True


class NewPlayerSchema(ma.Schema):
    """``POST /players``: a guest player's name."""

    class Meta:
        unknown = ma.RAISE

    name = fields.String(required=True, validate=lambda v: _is_name(v),
                         metadata={"description": "The name shown at tables and on leaderboards (1 to "
                                                  f"{NAME_MAX} characters, no control, format or invisible "
                                                  "characters)", "example": "Ada"})


class PlayerSchema(ma.Schema):
    id = fields.String(required=True, metadata={"description": "The player's id (32 hex digits)"})
    name = fields.String(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(KINDS), metadata={
        "description": "`guest` (made by POST /players, known by its guest token) or `oidc` (a subject of the "
                       "deployment's OpenID Connect provider, known by its JWTs)"})
    created = fields.Integer(required=True, metadata={"description": "When the player was made, Unix seconds"})


class NewGuestSchema(ma.Schema):
    player = fields.Nested(PlayerSchema, required=True)
    token = fields.String(required=True, metadata={
        "description": "The guest's bearer token: shown this once (only its hash is kept). It acts for the "
                       "player in every game: `Authorization: Bearer <token>`"})


class GameRecordSchema(ma.Schema):
    played = fields.Integer(required=True, metadata={"description": "Rated games finished in this game"})
    rating = fields.Nested(RatingSchema, required=True)


class ProfileSchema(ma.Schema):
    """A player's public profile."""

    id = fields.String(required=True)
    name = fields.String(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(KINDS))
    games = fields.Dict(keys=fields.String(), values=fields.Nested(GameRecordSchema), required=True, metadata={
        "description": "Per game (its name) the player has a rating in: games played and the rating"})


class MyGamesQuerySchema(ma.Schema):
    page = fields.Integer(load_default=1, validate=validate.Range(min=1, max=100000),
                          metadata={"description": "The page, from 1"})
    page_size = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100),
                               metadata={"description": "Games per page"})


class MyGameSchema(ma.Schema):
    game = fields.String(required=True, metadata={"description": "The game's type: its service's name"})
    id = fields.String(required=True, metadata={"description": "The game's id"})
    status = fields.String(required=True, validate=validate.OneOf([s.value for s in Status]), metadata={
        "description": "The game's status, as the game says it"})
    seat = fields.Integer(required=True, metadata={"description": "Your seat"})
    your_turn = fields.Boolean(required=True, metadata={"description": "Whether you may act now"})
    left = fields.Boolean(required=True, metadata={
        "description": "You left the game (POST .../leave): a bot plays your seat"})
    created_at = fields.Float(required=True, metadata={"description": "When the game was made, Unix seconds"})
    url = fields.String(required=True, metadata={"description": "The game's URL (GET it with your token)"})


class MyGamesSchema(ma.Schema):
    games = fields.List(fields.Nested(MyGameSchema), required=True, metadata={
        "description": "Your games, newest first"})
    total = fields.Integer(required=True, metadata={"description": "How many games you have"})
    page = fields.Integer(required=True)
    page_size = fields.Integer(required=True)


class PlayerEventSchema(ma.Schema):
    """One notice of a player's event stream (``ludoteca.service_layer.notices``)."""

    seq = fields.Integer(required=True, metadata={
        "description": "Its number in your stream, 1, 2, 3, ...: pass the last one as `after` (or "
                       "`Last-Event-ID`)"})
    type = fields.String(required=True, validate=validate.OneOf(notices.KINDS), metadata={
        "description": "`your_turn` (you may act now), `game_started` (every seat is taken), `game_finished` "
                       "(`won`: whether you are among the winners), `turn_timed_out` (your timed turn ran out: "
                       "the table's bot played it), `matched` (matchmaking made this game: `ticket`), "
                       "`seat_left` (you left the game: `bot` plays your seat)"})
    game = fields.String(required=True, metadata={"description": "The game's type: its service's name"})
    id = fields.String(required=True, metadata={"description": "The game's id"})
    seat = fields.Integer(required=True, metadata={"description": "Your seat there"})
    version = fields.Integer(required=True, metadata={"description": "The game's version that made the notice"})
    url = fields.String(required=True, metadata={"description": "The game's URL (GET it with your token)"})
    won = fields.Boolean(metadata={"description": "`game_finished`: whether you are among the winners"})
    bot = fields.String(metadata={"description": "`seat_left`: the bot level that plays your seat now"})
    ticket = fields.String(metadata={"description": "`matched`: your matchmaking ticket"})


class PlayerEventsSchema(ma.Schema):
    events = fields.List(fields.Nested(PlayerEventSchema), required=True, metadata={
        "description": "Your notices after `after`, oldest first"})
    last_seq = fields.Integer(required=True, metadata={"description": "Pass it as the next `after`"})
