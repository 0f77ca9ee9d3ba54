"""Marshmallow schemas of Ludix: options, one schema per action, the view and the extras' shapes.

The view schema documents exactly what :meth:`ludix.engine.LudixEngine.view` returns (mobile apps
are generated from it); the action schemas validate bodies before the engine judges legality.
"""

from __future__ import annotations

from ludoteca.adapters.hosting.schemas import BoundSchema, SeatEventSchema, TurnLostToBoundSchema
from ludoteca.service_layer.fields import strict_integer
from marshmallow import RAISE, Schema, fields, validate

from ludix.engine import CALL, DEFAULT_TARGET, HOLD, MAX_SEATS, MAX_TARGET, MIN_TARGET, ROLL, EventType
from ludix.numerals import SYMBOLS

THROW_PATTERN = rf"^[{SYMBOLS}]{{4}}$"
"""Four dice symbols in any order (a throw, or a numeral using all four)."""


class _Strict(Schema):
    class Meta:
        unknown = RAISE


# -- options --------------------------------------------------------------------------------
class OptionsSchema(_Strict):
    target = strict_integer(
        load_default=DEFAULT_TARGET,
        validate=validate.Range(min=MIN_TARGET, max=MAX_TARGET),
        metadata={"description": "Points that end the game (the round is then completed)."},
    )


# -- actions --------------------------------------------------------------------------------
class AleaJactaEstSchema(_Strict):
    """Claim the first turn (before play; the first seat to call starts)."""

    type = fields.String(required=True, validate=validate.Equal(CALL))


class _NumeralChoice(_Strict):
    numeral = fields.String(
        validate=validate.Regexp(THROW_PATTERN, error="A numeral of the four symbols of the throw."),
        metadata={
            "description": "Which valid numeral of the current throw counts (default: the best). "
            "Only after a valid throw.",
            "example": "LXIX",
        },
    )


class RollSchema(_NumeralChoice):
    """Throw the four dice (after a valid throw: count it first, then throw again)."""

    type = fields.String(required=True, validate=validate.Equal(ROLL))


class HoldSchema(_NumeralChoice):
    """Count the current throw and bank the turn total; the turn passes to the left."""

    type = fields.String(required=True, validate=validate.Equal(HOLD))


ACTION_SCHEMAS: dict[str, type[Schema]] = {CALL: AleaJactaEstSchema, ROLL: RollSchema, HOLD: HoldSchema}


# -- view -----------------------------------------------------------------------------------
class NumeralSchema(Schema):
    numeral = fields.String(required=True, metadata={"example": "LXVI"})
    value = fields.Integer(required=True, metadata={"description": "Points", "example": 66})


class ThrowSchema(Schema):
    dice = fields.String(required=True, metadata={"description": "The dice as they fell", "example": "IXVL"})
    multiset = fields.String(required=True, metadata={"description": "The symbols, highest first"})
    numerals = fields.List(
        fields.Nested(NumeralSchema),
        required=True,
        metadata={"description": "Every valid numeral of the throw, best first (the default)"},
    )


class ViewSchema(Schema):
    seat = fields.Integer(required=True, allow_none=True, metadata={"description": "Your seat (null: spectator)"})
    phase = fields.String(required=True, validate=validate.OneOf(["calling", "playing", "over"]))
    target = fields.Integer(required=True)
    totals = fields.List(fields.Integer(), required=True, metadata={"description": "Banked points per seat"})
    turns = fields.List(fields.Integer(), required=True, metadata={"description": "Turns finished per seat"})
    first_player = fields.Integer(required=True, allow_none=True, validate=validate.Range(0, MAX_SEATS - 1))
    current = fields.Integer(required=True, allow_none=True, metadata={"description": "Seat whose turn it is"})
    round = fields.Integer(required=True, metadata={"description": "Round in progress (from the first player)"})
    final_round = fields.Boolean(required=True, metadata={"description": "Someone reached the target"})
    turn_total = fields.Integer(
        required=True, metadata={"description": "Points of this turn, the pending throw not counted"}
    )
    at_stake = fields.Integer(
        required=True,
        metadata={
            "description": "Points at stake in the pending throw: the turn total with the pending throw's best "
            "numeral (the default) counted, i.e. what `hold` banks and what the next throw risks; equals "
            "`turn_total` when no throw is pending",
            "example": 88,
        },
    )
    throw = fields.Nested(
        ThrowSchema, required=True, allow_none=True, metadata={"description": "The valid throw awaiting a choice"}
    )


# -- extras ---------------------------------------------------------------------------------
class ExactSchema(Schema):
    fraction = fields.String(required=True, metadata={"example": "23/81"})
    decimal = fields.Float(required=True, metadata={"example": 0.2839506172839506})


class NumeralsQuerySchema(_Strict):
    dice = fields.String(
        required=True,
        validate=validate.Regexp(THROW_PATTERN, error="Four symbols among L, X, V, I, e.g. LXVI."),
        metadata={"description": "A throw: four symbols in any order", "example": "LXVI"},
    )


class ThrowOddsSchema(Schema):
    multiset = fields.String(required=True, metadata={"example": "LXXI"})
    probability = fields.Nested(ExactSchema, required=True)
    numerals = fields.List(fields.Nested(NumeralSchema), required=True, metadata={"description": "Best first"})
    best = fields.Nested(NumeralSchema, required=True, allow_none=True, metadata={"description": "null: bust"})


class NumeralsSchema(ThrowOddsSchema):
    dice = fields.String(required=True, metadata={"example": "IVXL"})
    valid = fields.Boolean(required=True)


class OddsSchema(Schema):
    faces = fields.List(fields.String(), required=True, metadata={"description": "Faces of each of the 4 dice"})
    multisets = fields.Integer(required=True, metadata={"description": "Distinct throws (35)"})
    valid = fields.List(
        fields.Nested(ThrowOddsSchema), required=True, metadata={"description": "The 14 scoring throws, best first"}
    )
    busts = fields.List(fields.Nested(ThrowOddsSchema), required=True, metadata={"description": "The 21 busts"})
    bust = fields.Nested(ExactSchema, required=True, metadata={"description": "Chance of a bust (23/81)"})
    expected_points = fields.Nested(
        ExactSchema, required=True, metadata={"description": "Of one throw, best numeral, bust = 0"}
    )
    expected_points_given_valid = fields.Nested(ExactSchema, required=True)


# -- events and result (what GET .../events, the replay and the result say) --------------------------


class TurnStartedSchema(SeatEventSchema):
    round = fields.Integer(required=True, metadata={"description": "The round (from the first player)"})


class NumeralChosenSchema(SeatEventSchema):
    numeral = fields.String(required=True, metadata={"example": "LXVI"})
    value = fields.Integer(required=True, metadata={"description": "Its points"})
    turn_total = fields.Integer(required=True, metadata={"description": "The turn total with it counted"})


class DiceThrownSchema(SeatEventSchema):
    dice = fields.String(required=True, metadata={"description": "The dice as they fell", "example": "IXVL"})
    multiset = fields.String(required=True, metadata={"description": "The symbols, highest first"})
    numerals = fields.List(fields.Nested(NumeralSchema), required=True,
                           metadata={"description": "Its valid numerals, best first (empty: a bust)"})
    turn_total = fields.Integer(required=True, metadata={"description": "The turn total before it"})


class BustedSchema(SeatEventSchema):
    dice = fields.String(required=True, metadata={"description": "The throw that made no numeral"})
    lost = fields.Integer(required=True, metadata={"description": "The turn total lost"})


class PointsBankedSchema(SeatEventSchema):
    points = fields.Integer(required=True, metadata={"description": "The turn total banked"})
    total = fields.Integer(required=True, metadata={"description": "The seat's total now"})


class FinalRoundStartedSchema(SeatEventSchema):
    total = fields.Integer(required=True, metadata={"description": "The total that reached the target"})
    remaining = fields.List(fields.Integer(), required=True, metadata={"description": "The seats still to play"})


class GameEndedSchema(Schema):
    winners = fields.List(fields.Integer(), required=True, metadata={"description": "Seats sharing the win"})
    totals = fields.List(fields.Integer(), required=True, metadata={"description": "Banked points per seat"})
    rounds = fields.Integer(required=True, metadata={"description": "Rounds played"})
    bound = fields.Nested(BoundSchema, metadata={"description": "The bound that ended it (absent: the target did)"})


EVENT_SCHEMAS: dict[str, type[Schema]] = {
    EventType.CALLED: SeatEventSchema, EventType.TURN_STARTED: TurnStartedSchema,
    EventType.NUMERAL_CHOSEN: NumeralChosenSchema, EventType.DICE_THROWN: DiceThrownSchema,
    EventType.BUSTED: BustedSchema, EventType.POINTS_BANKED: PointsBankedSchema,
    EventType.FINAL_ROUND_STARTED: FinalRoundStartedSchema, EventType.ACTION_BOUND_REACHED: TurnLostToBoundSchema,
    EventType.GAME_ENDED: GameEndedSchema,
}
"""Each event's ``data``, by its ``type`` (every :class:`~ludix.engine.EventType`)."""


class SummarySchema(Schema):
    totals = fields.List(fields.Integer(), required=True, metadata={"description": "Banked points per seat"})
    target = fields.Integer(required=True, metadata={"description": "The game's target"})
    first_player = fields.Integer(required=True, allow_none=True, metadata={"description": "Who called first"})
    rounds = fields.Integer(required=True, metadata={"description": "Rounds played"})
    bound = fields.Nested(BoundSchema, required=True, allow_none=True,
                          metadata={"description": "The bound that ended the game (null: the target did)"})
