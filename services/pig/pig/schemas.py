"""Pig's marshmallow schemas: what the REST API accepts and what it documents.

The hosting layer reads them to validate requests and to write the OpenAPI document
(``openapi/pig.json``, from which mobile apps are generated), so each field says what it means.

- :class:`OptionsSchema` loads ``POST /games``'s ``options`` (every option has a default).
- :data:`ACTION_SCHEMAS`: one schema per action ``type``, the whole body; the document's request
  body is their ``oneOf`` with ``type`` as the discriminator. A body is validated here first
  (422 on a bad field), then judged legal by the engine (409).
- :class:`ViewSchema` documents exactly what :meth:`pig.engine.PigEngine.view` returns (the
  contract suite loads every view it sees through it).
- :data:`EVENT_SCHEMAS` (each event's ``data``) and :class:`SummarySchema` (the result's
  ``summary``): the hosting layer finds them by these names in the module of the view schema.
"""

from __future__ import annotations

from ludoteca.adapters.hosting.schemas import BoundSchema, SeatEventSchema, TurnLostToBoundSchema
from ludoteca.service_layer.fields import strict_integer
from marshmallow import RAISE, Schema, fields, validate

from pig.engine import DEFAULT_TARGET, HOLD, MAX_TARGET, MIN_TARGET, ROLL, EventType


class _Strict(Schema):
    """Unknown fields are refused (422), not ignored."""

    class Meta:
        unknown = RAISE


# -- options -----------------------------------------------------------------------------------------
class OptionsSchema(_Strict):
    target = strict_integer(load_default=DEFAULT_TARGET, validate=validate.Range(min=MIN_TARGET, max=MAX_TARGET),
                            metadata={"description": "The score that wins: the first seat to bank it wins."})


# -- actions: one schema per `type` ------------------------------------------------------------------
class RollSchema(_Strict):
    """Throw the die: a 1 loses the turn total and passes the turn, any other face adds to it."""

    type = fields.String(required=True, validate=validate.Equal(ROLL))


class HoldSchema(_Strict):
    """Bank the turn total and pass the turn (once the turn has gathered points)."""

    type = fields.String(required=True, validate=validate.Equal(HOLD))


ACTION_SCHEMAS: dict[str, type[Schema]] = {ROLL: RollSchema, HOLD: HoldSchema}


# -- the view -----------------------------------------------------------------------------------------
class LastRollSchema(Schema):
    seat = fields.Integer(required=True, metadata={"description": "Who threw it"})
    die = fields.Integer(required=True, validate=validate.Range(1, 6), metadata={"description": "The face, 1 to 6"})


class ViewSchema(Schema):
    seat = fields.Integer(required=True, allow_none=True, metadata={"description": "Your seat (null: spectator)"})
    phase = fields.String(required=True, validate=validate.OneOf(["playing", "over"]))
    target = fields.Integer(required=True, metadata={"description": "The score that wins"})
    scores = fields.List(fields.Integer(), required=True, metadata={"description": "Banked points per seat"})
    first_player = fields.Integer(required=True, metadata={"description": "The seat that played first (drawn)"})
    current = fields.Integer(required=True, allow_none=True,
                             metadata={"description": "The seat whose turn it is (null: the game is over)"})
    turn_total = fields.Integer(required=True, metadata={"description": "Points of this turn, not banked yet"})
    last_roll = fields.Nested(LastRollSchema, required=True, allow_none=True,
                              metadata={"description": "The last throw of the game (null: none yet)"})


# -- events (GET .../events, a move's answer, the replay) and the result's summary --------------------
class DieRolledSchema(SeatEventSchema):
    die = fields.Integer(required=True, metadata={"description": "The face, 1 to 6", "example": 4})
    turn_total = fields.Integer(required=True, metadata={"description": "The turn total after it (0 after a 1)"})


class BustedSchema(SeatEventSchema):
    lost = fields.Integer(required=True, metadata={"description": "The turn total lost to a 1"})


class PointsBankedSchema(SeatEventSchema):
    points = fields.Integer(required=True, metadata={"description": "The turn total banked"})
    score = fields.Integer(required=True, metadata={"description": "The seat's score now"})


class GameEndedSchema(Schema):
    winners = fields.List(fields.Integer(), required=True, metadata={"description": "Seats sharing the win"})
    scores = fields.List(fields.Integer(), required=True, metadata={"description": "Banked points per seat"})
    bound = fields.Nested(BoundSchema, required=True, allow_none=True,
                          metadata={"description": "The bound that ended the game (null: the target did)"})


EVENT_SCHEMAS: dict[str, type[Schema]] = {
    EventType.DIE_ROLLED: DieRolledSchema, EventType.BUSTED: BustedSchema,
    EventType.POINTS_BANKED: PointsBankedSchema, EventType.TURN_STARTED: SeatEventSchema,
    EventType.ACTION_BOUND_REACHED: TurnLostToBoundSchema, EventType.GAME_ENDED: GameEndedSchema,
}
"""Each event's ``data``, by its ``type`` (every :class:`~pig.engine.EventType`)."""


class SummarySchema(Schema):
    scores = fields.List(fields.Integer(), required=True, metadata={"description": "Banked points per seat"})
    target = fields.Integer(required=True, metadata={"description": "The game's target"})
    first_player = fields.Integer(required=True, metadata={"description": "The seat that played first"})
    bound = fields.Nested(BoundSchema, required=True, allow_none=True,
                          metadata={"description": "The bound that ended the game (null: the target did)"})
