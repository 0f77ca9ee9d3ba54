"""Marshmallow schemas of Speculation: options, one schema per action type, and the view.

They document :mod:`speculation.engine` exactly (the OpenAPI document and the mobile apps are
generated from them); the engine still checks every action itself.
"""

from __future__ import annotations

import dataclasses
from enum import StrEnum

from ludoteca.adapters.hosting.schemas import ActionBoundReachedSchema, BoundSchema, SeatEventSchema
from ludoteca.service_layer.fields import named_enum
from marshmallow import RAISE, Schema, fields, validate

from speculation.board import VALUES, Tier
from speculation.engine import MAX_ITEMS, ActionType, Answer, DecidedBy, EventType, Phase, SpeculationOptions
from speculation.joker import JOKER_SIZE

TIERS = [t.value for t in Tier]
VALUE_RANGE = validate.Range(min=VALUES[0], max=VALUES[-1])


def _option(name: str) -> fields.String:
    """The schema field of one option, read off its declaration (:class:`SpeculationOptions`)."""
    declared = next(f for f in dataclasses.fields(SpeculationOptions) if f.name == name)
    default = declared.default
    assert isinstance(default, StrEnum)
    return fields.String(load_default=default.value, validate=validate.OneOf([c.value for c in type(default)]),
                         metadata={"description": declared.metadata["description"]})


def _type(name: str, doc: str) -> fields.String:
    return fields.String(required=True, validate=validate.Equal(name), metadata={"description": doc})


class OptionsSchema(Schema):
    class Meta:
        unknown = RAISE

    first_guesser = _option("first_guesser")
    joker_guesses = _option("joker_guesses")


# -- actions ------------------------------------------------------------------------------------
class ReportClothingSchema(Schema):
    class Meta:
        unknown = RAISE

    type = _type(ActionType.REPORT_CLOTHING,
                 "Report how many items of clothing you have on (sealed until both report)")
    items = fields.Integer(required=True, strict=True, validate=validate.Range(min=0, max=MAX_ITEMS))


class PutOnItemSchema(Schema):
    class Meta:
        unknown = RAISE

    type = _type(ActionType.PUT_ON_ITEM,
                 "Declare that you have put on another item (tie race: first one guesses first)")


class GuessSchema(Schema):
    class Meta:
        unknown = RAISE

    type = _type(ActionType.GUESS,
                 "Ask whether the tier you attack (jacks, then queens, then kings) hides this value")
    value = fields.Integer(required=True, strict=True, validate=VALUE_RANGE,
                           metadata={"description": "A card value: Ace = 1 up to 10"})


class JokerDomainSchema(Schema):
    """What a joker template stands for (:mod:`speculation.listing`)."""

    field = fields.String(required=True, validate=validate.Equal("values"),
                          metadata={"description": "The field to fill: `values`"})
    size = fields.Integer(required=True, metadata={"description": "How many values: 4"})
    min = fields.Integer(required=True, metadata={"description": "The lowest value: 1"})
    max = fields.Integer(required=True, metadata={"description": "The highest value: 10"})
    max_repeats = fields.Integer(required=True, metadata={
        "description": "How many times one value may be named: 4, or 2 with the option `joker_guesses: hands`"})
    count = fields.Integer(required=True, metadata={
        "description": "How many bodies the template stands for: 715, or 615 with `joker_guesses: hands`"})


class GuessJokerSchema(Schema):
    class Meta:
        unknown = RAISE

    type = _type(ActionType.GUESS_JOKER, "Guess the joker's four values (once both kings are down)")
    values = fields.List(fields.Integer(strict=True, validate=VALUE_RANGE), required=True,
                         validate=validate.Length(equal=JOKER_SIZE),
                         metadata={"description": "Four values, a multiset: order does not matter"})
    domain = fields.Nested(JokerDomainSchema, dump_only=True, metadata={
        "description": "Only in a listing's `templates` (never posted): the guess as a template, standing for "
                       "every body whose `values` are `size` values from `min` to `max`, in any order, none more "
                       "than `max_repeats` times (`count` bodies; `values` shows the first). At the joker "
                       "`GET .../actions` and a move's `next` list this one template instead of the 715 (615) "
                       "guesses"})


ACTION_SCHEMAS: dict[str, type[Schema]] = {
    ActionType.REPORT_CLOTHING: ReportClothingSchema,
    ActionType.PUT_ON_ITEM: PutOnItemSchema,
    ActionType.GUESS: GuessSchema,
    ActionType.GUESS_JOKER: GuessJokerSchema,
}


# -- the view -----------------------------------------------------------------------------------
class ClothingSchema(Schema):
    reported = fields.List(fields.Boolean(), required=True, metadata={"description": "Per seat"})
    items = fields.List(fields.Integer(allow_none=True), required=True,
                        metadata={"description": "Per seat; another seat's count stays null until both reported"})
    tied = fields.List(fields.Integer(), required=True, metadata={"description": "Seats in the dressing race"})
    decided_by = named_enum("DecidedBy", [d.value for d in DecidedBy], required=True, allow_none=True,
                            metadata={"description": "How the first guesser was chosen"})


class ValueCardSchema(Schema):
    card = fields.String(required=True, allow_none=True,
                         metadata={"description": "Card code ('5S', 'AC', '10C'); null when hidden from you"})
    value = fields.Integer(required=True, allow_none=True, validate=VALUE_RANGE)
    found = fields.Boolean(required=True, metadata={"description": "Found by the opponent"})


class FaceCardSchema(Schema):
    card = fields.String(required=True, metadata={"description": "JC, JS, QC, QS, KC, KS or JK1 (black joker)"})
    tier = fields.String(required=True, validate=validate.OneOf(TIERS))
    down = fields.Boolean(required=True, metadata={"description": "Every value beneath it found"})
    cards = fields.List(fields.Nested(ValueCardSchema), required=True,
                        metadata={"description": "The value cards beneath it"})


class BoardSchema(Schema):
    owner = fields.Integer(required=True)
    target = fields.String(required=True, validate=validate.OneOf(TIERS),
                           metadata={"description": "The tier the opponent attacks now"})
    faces = fields.List(fields.Nested(FaceCardSchema), required=True, metadata={"description": "Left to right"})
    set_aside = fields.List(fields.String(), required=True, allow_none=True,
                            metadata={"description": "The 4 cards set aside: shown to the board's owner, to the others "
                                                    "null until the game is over"})


class RecordFaceSchema(Schema):
    card = fields.String(required=True, metadata={"description": "JH, JD, QH, QD, KH, KD or JK2 (red joker)"})
    tier = fields.String(required=True, validate=validate.OneOf(TIERS))
    cards = fields.List(fields.String(allow_none=True), required=True,
                        metadata={"description": "Red value cards placed for found values (null: not found)"})


class RecordSchema(Schema):
    keeper = fields.Integer(required=True, metadata={"description": "The seat keeping this record"})
    faces = fields.List(fields.Nested(RecordFaceSchema), required=True)
    hand = fields.List(fields.String(), required=True, metadata={"description": "Red value cards not placed"})


class GuessEntrySchema(Schema):
    seat = fields.Integer(required=True, metadata={"description": "The guesser"})
    tier = fields.String(required=True, validate=validate.OneOf(TIERS))
    values = fields.List(fields.Integer(validate=VALUE_RANGE), required=True,
                         metadata={"description": "One value on a tier, four (sorted) at the joker"})
    answer = named_enum("Answer", [a.value for a in Answer], required=True, allow_none=True,
                        metadata={"description": "Tier guesses; null for joker guesses"})
    card = fields.String(required=True, allow_none=True, metadata={"description": "The card a 'yes' found"})
    right = fields.Integer(required=True, allow_none=True, validate=validate.Range(min=0, max=JOKER_SIZE),
                           metadata={"description": "Joker guesses: how many values were right"})


class ViewSchema(Schema):
    phase = fields.String(required=True, validate=validate.OneOf([p.value for p in Phase]),
                          metadata={"description": "Where the game is"})
    seat = fields.Integer(required=True, allow_none=True, metadata={"description": "Your seat (null: spectator)"})
    clothing = fields.Nested(ClothingSchema, required=True, metadata={"description": "Who guesses first, and why"})
    first_guesser = fields.Integer(required=True, allow_none=True,
                                   metadata={"description": "The seat that guesses first (null: not decided yet)"})
    guesser = fields.Integer(required=True, allow_none=True, metadata={"description": "Whose turn to guess"})
    winner = fields.Integer(required=True, allow_none=True, metadata={"description": "The winner (null until the "
                                                                                    "end)"})
    boards = fields.List(fields.Nested(BoardSchema), required=True,
                         metadata={"description": "Per seat: your own in full, the other's found cards only"})
    records = fields.List(fields.Nested(RecordSchema), required=True,
                          metadata={"description": "Per seat: its red record of the opponent's board"})
    history = fields.List(fields.Nested(GuessEntrySchema), required=True,
                          metadata={"description": "Every guess and its answer, oldest first"})


# -- events and result (what GET .../events, the replay and the result say) --------------------------


class ClothingComparedSchema(Schema):
    items = fields.List(fields.Integer(), required=True, metadata={"description": "Each seat's count, now unsealed"})
    leaders = fields.List(fields.Integer(), required=True, metadata={"description": "The seats with the most"})


class DressingRaceStartedSchema(Schema):
    seats = fields.List(fields.Integer(), required=True, metadata={"description": "The tied seats, in the race"})


class FirstGuesserChosenSchema(SeatEventSchema):
    by = fields.String(required=True, validate=validate.OneOf([d.value for d in DecidedBy]),
                       metadata={"description": "What decided it"})


class ValueGuessedSchema(SeatEventSchema):
    tier = fields.String(required=True, validate=validate.OneOf(TIERS), metadata={"description": "The tier guessed"})
    value = fields.Integer(required=True, validate=VALUE_RANGE, metadata={"description": "The value named"})
    answer = fields.String(required=True, validate=validate.OneOf([a.value for a in Answer]),
                           metadata={"description": "The defender's answer"})
    card = fields.String(metadata={"description": "The card found (a `yes` only)"})
    face = fields.String(metadata={"description": "The face card it lies under (a `yes` only)"})
    position = fields.Integer(metadata={"description": "Its place beneath that face card, from 0 (a `yes` only)"})


class FaceCardDownedSchema(SeatEventSchema):
    face = fields.String(required=True, metadata={"description": "The face card whose values are all found"})


class TierClearedSchema(SeatEventSchema):
    tier = fields.String(required=True, validate=validate.OneOf(TIERS), metadata={"description": "The tier cleared"})
    by = fields.Integer(required=True, metadata={"description": "The seat that cleared it"})


class JokerGuessedSchema(SeatEventSchema):
    values = fields.List(fields.Integer(validate=VALUE_RANGE), required=True,
                         metadata={"description": "The four values named"})
    right = fields.Integer(required=True, validate=validate.Range(min=0, max=JOKER_SIZE),
                           metadata={"description": "How many are right (the multiset intersection)"})


class BoundReachedSchema(ActionBoundReachedSchema):
    found = fields.List(fields.Integer(), required=True, metadata={"description": "Cards each seat found"})
    best_joker = fields.List(fields.Integer(), required=True,
                             metadata={"description": "Each seat's best joker answer"})
    winner = fields.Integer(required=True, allow_none=True, metadata={"description": "The winner (null: shared)"})


class BoardsRevealedSchema(Schema):
    boards = fields.List(fields.Nested(BoardSchema), required=True, metadata={"description": "Both boards, whole"})


EVENT_SCHEMAS: dict[str, type[Schema]] = {
    EventType.CLOTHING_REPORTED: SeatEventSchema, EventType.CLOTHING_COMPARED: ClothingComparedSchema,
    EventType.DRESSING_RACE_STARTED: DressingRaceStartedSchema, EventType.ITEM_PUT_ON: SeatEventSchema,
    EventType.FIRST_GUESSER_CHOSEN: FirstGuesserChosenSchema, EventType.VALUE_GUESSED: ValueGuessedSchema,
    EventType.FACE_CARD_DOWNED: FaceCardDownedSchema, EventType.TIER_CLEARED: TierClearedSchema,
    EventType.TURN_PASSED: SeatEventSchema, EventType.JOKER_GUESSED: JokerGuessedSchema,
    EventType.GAME_WON: SeatEventSchema, EventType.ACTION_BOUND_REACHED: BoundReachedSchema,
    EventType.BOARDS_REVEALED: BoardsRevealedSchema,
}
"""Each event's ``data``, by its ``type`` (every :class:`~speculation.engine.EventType`)."""


class SummarySchema(Schema):
    winner = fields.Integer(required=True, allow_none=True, metadata={"description": "The winner (null: shared)"})
    first_guesser = fields.Integer(required=True, allow_none=True, metadata={"description": "Who guessed first"})
    tier_guesses = fields.List(fields.Integer(), required=True, metadata={"description": "Tier guesses per seat"})
    joker_guesses = fields.List(fields.Integer(), required=True, metadata={"description": "Joker guesses per seat"})
    bound = fields.Nested(BoundSchema, required=True, allow_none=True,
                          metadata={"description": "The bound that ended the game (null: a joker found)"})
    found = fields.List(fields.Integer(), metadata={"description": "Cards each seat found (a bound only)"})
    best_joker = fields.List(fields.Integer(), metadata={"description": "Each seat's best joker answer (a bound "
                                                                        "only)"})
