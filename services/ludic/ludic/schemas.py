"""Marshmallow schemas of Ludic: options, one schema per action, the view and ``/rules/check``.

The view schema documents exactly what :meth:`ludic.engine.LudicEngine.view` returns (mobile apps
are generated from it); the action schemas validate bodies before the engine judges legality.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ludoteca.adapters.hosting.schemas import ActionBoundReachedSchema, ActionRef, BoundSchema, SeatEventSchema
from ludoteca.service_layer.fields import StrictBoolean, named_enum, strict_integer
from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from ludic.engine import ActionType, Choice, EndedBy, EventType, Logged, Role
from ludic.language import MAX_TEXT
from ludic.state import HintSource, LudicOptions, Phase, SetKind
from ludic.universe import BREAK, OBEY

CARD_PATTERN = r"^(10|[2-9JQK])[CDHS]$"
CARD = validate.Regexp(CARD_PATTERN, error="A card code such as 'QH' or '10C' (no Aces in Ludic).")
COLUMN = validate.OneOf([OBEY, BREAK])
PHASES = [p.value for p in Phase]
SOURCES = [s.value for s in HintSource]
RULE_TEXT = validate.Length(min=1, max=MAX_TEXT)


class _Strict(Schema):
    class Meta:
        unknown = RAISE


def _card(description: str, example: str) -> fields.String:
    return fields.String(required=True, validate=CARD, metadata={"description": description, "example": example})


def _type(name: str) -> fields.String:
    return fields.String(required=True, validate=validate.Equal(name))


# ---- options ------------------------------------------------------------------------------------
def _option(name: str) -> fields.Field[Any]:
    """The schema field of one option, read off its declaration (:class:`LudicOptions`): a
    boolean, or an integer in its declared range."""
    declared = next(f for f in dataclasses.fields(LudicOptions) if f.name == name)
    default, metadata = declared.default, {"description": declared.metadata["description"]}
    if isinstance(default, bool):
        return StrictBoolean(load_default=default, metadata=metadata)
    assert isinstance(default, int)
    low, high = declared.metadata["range"]
    return strict_integer(load_default=default, validate=validate.Range(min=low, max=high), metadata=metadata)


class OptionsSchema(_Strict):
    short_game = _option("short_game")
    round_limit = _option("round_limit")
    vexer_choices = _option("vexer_choices")
    turn_initial_sets = _option("turn_initial_sets")


# ---- actions -------------------------------------------------------------------------------------
class CutSchema(_Strict):
    """Cut the deck (before the first round): low card is the first Vexer."""

    type = _type(ActionType.CUT)


class WriteRuleSchema(_Strict):
    """The Vexer writes the secret rule (refused if ambiguous, or if an initial set does not fit)."""

    type = _type(ActionType.WRITE_RULE)
    rule = fields.String(required=True, validate=RULE_TEXT, metadata={
        "description": "The rule in the rule language (LANGUAGE.md)", "example": "A red card outranks a black card"})
    turn_obey = StrictBoolean(load_default=False, metadata={"description": "Turn the 'obey' initial set around"})
    turn_break = StrictBoolean(load_default=False, metadata={"description": "Turn the 'break' initial set around"})


class QuerySchema(_Strict):
    """Build a set from two cards of your hand and give it to the Vexer, who places it (while the
    deck lasts); you get two cards."""

    type = _type(ActionType.QUERY)
    top = _card("Top card, from your hand", "QH")
    bottom = _card("Bottom card, from your hand", "4S")


class PlaySchema(QuerySchema):
    """Play a set to a column: right, you get two cards and may guess; wrong, it is moved."""

    type = _type(ActionType.PLAY)
    column = fields.String(required=True, validate=COLUMN)


class DrawSchema(_Strict):
    """Pass and draw two cards (with fewer than 4 cards, while the deck lasts)."""

    type = _type(ActionType.DRAW)


class GuessSchema(_Strict):
    """Guess the rule (after a correct play, or in the last phase); judged by logical equivalence."""

    type = _type(ActionType.GUESS)
    rule = fields.String(required=True, validate=RULE_TEXT, metadata={"example": "the top card is red"})


class PassSchema(_Strict):
    """Do not guess now (after a correct play, or in the last phase)."""

    type = _type(ActionType.PASS)


class ChooseHintSchema(_Strict):
    """The Vexer picks the counterexample given as a hint (option vexer_choices)."""

    type = _type(ActionType.CHOOSE_HINT)
    top = _card("Top card of the hint", "7S")
    bottom = _card("Bottom card of the hint", "KH")


class ChooseFlipSchema(_Strict):
    """The Vexer picks the set to flip face down (option vexer_choices)."""

    type = _type(ActionType.CHOOSE_FLIP)
    column = fields.String(required=True, validate=COLUMN)
    top = _card("Top card of the set", "5D")
    bottom = _card("Bottom card of the set", "2C")


ACTION_SCHEMAS: dict[str, type[Schema]] = {
    ActionType.CUT: CutSchema, ActionType.WRITE_RULE: WriteRuleSchema, ActionType.QUERY: QuerySchema,
    ActionType.PLAY: PlaySchema, ActionType.DRAW: DrawSchema, ActionType.GUESS: GuessSchema,
    ActionType.PASS: PassSchema, ActionType.CHOOSE_HINT: ChooseHintSchema, ActionType.CHOOSE_FLIP: ChooseFlipSchema,
}


# ---- view --------------------------------------------------------------------------------------------
class CutView(Schema):
    seat = fields.Integer(required=True, metadata={"description": "Who cut"})
    card = fields.String(required=True, metadata={"example": "3D", "description": "The card cut"})
    attempt = fields.Integer(required=True, metadata={"description": "1, or more after ties"})


class PlacedSetView(Schema):
    face_up = fields.Boolean(required=True, metadata={"description": "Face-down sets show nothing"})
    initial = fields.Boolean(required=True, metadata={"description": "One of the two initial sets"})
    top = fields.String(required=True, allow_none=True, metadata={"description": "Top card (null: face down)"})
    bottom = fields.String(required=True, allow_none=True, metadata={"description": "Bottom card (null: face down)"})
    kind = named_enum("SetKind", [k.value for k in SetKind], required=True, allow_none=True,
                      metadata={"description": "How the set came to the table (null: face down)"})
    seat = fields.Integer(required=True, allow_none=True, metadata={"description": "Who built it"})


class ColumnsView(Schema):
    obey = fields.List(fields.Nested(PlacedSetView), required=True, metadata={
        "description": "Under the black Ace: the initial set first, oldest to newest"})
    broken = fields.List(fields.Nested(PlacedSetView), required=True, data_key="break", metadata={
        "description": "Under the red Ace"})


class AcesView(Schema):
    obey = fields.String(required=True, metadata={"example": "AS", "description": "The Ace heading the obey column"})
    broken = fields.String(required=True, data_key="break", metadata={
        "example": "AH", "description": "The Ace heading the break column"})


class HintView(Schema):
    source = fields.String(required=True, validate=validate.OneOf(SOURCES), metadata={
        "description": "Where the hint came from"})
    top = fields.String(required=True, metadata={"description": "The hinted set's top card"})
    bottom = fields.String(required=True, metadata={"description": "The hinted set's bottom card"})
    obeys = fields.Boolean(required=True, metadata={"description": "Which column the set belongs in"})
    guess = fields.String(required=True, allow_none=True, metadata={"description": "The guess it disproves "
                                                                    "(null: a hint after a pass)"})


class LogEntryView(Schema):
    event = fields.String(required=True, validate=validate.OneOf([e.value for e in Logged]),
                          metadata={"description": "What happened"})
    seat = fields.Integer(metadata={"description": "Who acted (all but flip)"})
    top = fields.String(metadata={"description": "query, play, flip, hint pointed to a column"})
    bottom = fields.String(metadata={"description": "The set's bottom card (beside `top`)"})
    column = fields.String(validate=COLUMN, metadata={"description": "Where the set went"})
    correct = fields.Boolean(metadata={"description": "play: the chosen column was right; guess: equivalent"})
    rule = fields.String(metadata={"description": "guess: its text (said aloud)"})
    source = fields.String(validate=validate.OneOf(SOURCES),
                           metadata={"description": "hint: where it came from (hintbook/slip hints are private)"})


class PendingView(Schema):
    kind = fields.String(required=True, validate=validate.OneOf([c.value for c in Choice]),
                         metadata={"description": "What the Vexer must choose: a hint or a flip"})
    seat = fields.Integer(required=True, allow_none=True, metadata={"description": "Seeker owed the hint"})
    options = fields.List(ActionRef("LudicAction"), required=True, allow_none=True, metadata={
        "description": "The Vexer's choices (choose_hint / choose_flip bodies); null for everyone else"})


class SummarySetView(Schema):
    top = fields.String(required=True, metadata={"description": "Top card"})
    bottom = fields.String(required=True, metadata={"description": "Bottom card"})
    face_up = fields.Boolean(required=True, metadata={"description": "Was face up at the end"})
    initial = fields.Boolean(required=True, metadata={"description": "One of the two initial sets"})


class SummaryColumnsView(Schema):
    obey = fields.List(fields.Nested(SummarySetView), required=True, metadata={"description": "The obey column"})
    broken = fields.List(fields.Nested(SummarySetView), required=True, data_key="break",
                         metadata={"description": "The break column"})


class RoundSummaryView(Schema):
    round = fields.Integer(required=True, metadata={"description": "The round's number, from 1"})
    vexer = fields.Integer(required=True, metadata={"description": "The round's Vexer"})
    rule = fields.String(required=True, allow_none=True, metadata={"description": "Revealed at the end"})
    ended_by = fields.String(required=True, validate=validate.OneOf([e.value for e in EndedBy]),
                             metadata={"description": "What ended the round"})
    guesser = fields.Integer(required=True, allow_none=True, metadata={"description": "Who guessed the rule (null: "
                                                                                     "nobody)"})
    guess = fields.String(required=True, allow_none=True, metadata={"description": "The winning guess's text"})
    points = fields.Integer(required=True, metadata={"description": "The Vexer's score for the round"})
    zero_reason = fields.String(required=True, allow_none=True)
    columns = fields.Nested(SummaryColumnsView, required=True, metadata={"description": "All sets, turned up"})
    next_vexer = fields.Integer(required=True, metadata={"description": "The next round's Vexer"})


class ViewSchema(Schema):
    phase = fields.String(required=True, validate=validate.OneOf(PHASES), metadata={"description": "Where the "
                                                                                               "round is"})
    you = fields.Integer(required=True, allow_none=True, metadata={"description": "Your seat (null: spectator)"})
    role = fields.String(required=True, validate=validate.OneOf([r.value for r in Role]),
                         metadata={"description": "Your role this round"})
    vexer = fields.Integer(required=True, allow_none=True, metadata={"description": "This round's Vexer (null: "
                                                                                   "before the cut decides)"})
    token = fields.Integer(required=True, allow_none=True, metadata={
        "description": "Who holds the token (the next Vexer if nobody guesses the rule)"})
    round = fields.Integer(required=True, metadata={"description": "The round's number, from 1"})
    target = fields.Integer(required=True, metadata={"description": "Points to become ludic (15, or 11)"})
    scores = fields.List(fields.Integer(), required=True, metadata={"description": "Points per seat"})
    ludic = fields.List(fields.Integer(), required=True, metadata={"description": "Seats that are ludic"})
    winners = fields.List(fields.Integer(), required=True, metadata={"description": "The winners (empty "
                                                                                    "until the end)"})
    cuts = fields.List(fields.Nested(CutView), required=True, metadata={"description": "The cuts for the first "
                                                                                       "Vexer"})
    turn = fields.Integer(required=True, allow_none=True, metadata={"description": "The Seeker to act"})
    aces = fields.Nested(AcesView, required=True, metadata={"description": "The two Aces heading the columns"})
    deck_count = fields.Integer(required=True, metadata={"description": "Cards left in the deck"})
    hintbook_count = fields.Integer(required=True, metadata={"description": "Sets left in the hint book"})
    hand = fields.List(fields.String(), required=True, allow_none=True, metadata={"description": "Yours"})
    hand_counts = fields.List(fields.Integer(), required=True, metadata={"description": "Cards in each seat's "
                                                                                        "hand"})
    columns = fields.Nested(ColumnsView, required=True, metadata={"description": "The sets on the table"})
    hints = fields.List(fields.Nested(HintView), required=True, metadata={"description": "Yours"})
    hint_counts = fields.List(fields.Integer(), required=True, metadata={"description": "Hints each seat holds"})
    log = fields.List(fields.Nested(LogEntryView), required=True, metadata={
        "description": "This round's public record: every set placed (even if now face down), guesses, "
        "hints and flips"})
    rule = fields.String(required=True, allow_none=True, metadata={"description": "Only the Vexer sees it"})
    pending = fields.Nested(PendingView, required=True, allow_none=True,
                            metadata={"description": "The Vexer's pending choice (null: none)"})
    last_phase = fields.Boolean(required=True, metadata={"description": "Every Seeker is out of cards"})
    rounds = fields.List(fields.Nested(RoundSummaryView), required=True,
                         metadata={"description": "The rounds played, oldest first"})


# ---- /rules/check ----------------------------------------------------------------------------------------
class InitialSetSchema(_Strict):
    top = _card("Top card (its rank and color count, not its suit)", "QH")
    bottom = _card("Bottom card", "4S")


class RuleCheckRequestSchema(_Strict):
    rule = fields.String(required=True, validate=RULE_TEXT, metadata={"example": "A red card outranks a black card"})
    obey_set = fields.Nested(InitialSetSchema, metadata={"description": "The initial set that must obey"})
    break_set = fields.Nested(InitialSetSchema, metadata={"description": "The initial set that must break"})

    @validates_schema
    def _both_or_neither(self, data: dict[str, object], **_: object) -> None:
        if ("obey_set" in data) != ("break_set" in data):
            raise ValidationError("give both initial sets, or neither", field_name="break_set")


class ReadingSchema(Schema):
    canonical = fields.String(required=True, metadata={"description": "This reading, written so that it has only "
                                                                     "this meaning: resubmit it to choose it"})
    obeying_sets = fields.Integer(required=True, metadata={"description": "Of the 576 sets, how many obey this "
                                                                          "reading"})
    sets = fields.List(fields.String(), required=True, allow_none=True, metadata={
        "description": "The sets obeying it ('red queen over black 4'), when at most 12; else null"})


class RuleErrorSchema(Schema):
    message = fields.String(required=True, metadata={"description": "What is wrong, in words"})
    reason = fields.String(required=True, validate=validate.OneOf(
        ["syntax", "external", "suit", "type", "size", "ambiguous", "illegal"]), metadata={"description": "Its kind"})
    line = fields.Integer(required=True, metadata={"description": "1-based; 0 when not about a place"})
    column = fields.Integer(required=True, metadata={"description": "1-based; 0 when not about a place"})
    expected = fields.List(fields.String(), required=True, metadata={"description": "What could come there"})
    suggestion = fields.String(required=True, allow_none=True, metadata={
        "description": "The nearest wording the language accepts (null when none is near)"})
    readings = fields.List(fields.Nested(ReadingSchema), required=True, allow_none=True, metadata={
        "description": "A rule whose scope can be read more than one way, with readings that differ on some "
                       "set (reason `ambiguous`): each reading; null otherwise"})


class RuleCheckSchema(Schema):
    rule = fields.String(required=True, metadata={"description": "The rule, as sent"})
    valid = fields.Boolean(required=True, metadata={"description": "Readable, unambiguous (and legal if sets given)"})
    canonical = fields.String(required=True, allow_none=True, metadata={
        "description": "The rule re-written (null: unreadable, or read more than one way: see the error's readings)"})
    errors = fields.List(fields.Nested(RuleErrorSchema), required=True, metadata={"description": "Why it is not "
                                                                                                "valid"})
    ambiguous = fields.Boolean(required=True, allow_none=True, metadata={"description": "Undefined on some set "
                                                                                      "(null: unreadable)"})
    undefined_sets = fields.Integer(required=True, allow_none=True, metadata={
        "description": "Sets on which the rule is undefined (high/low of equal ranks, division by zero)"})
    obeying_sets = fields.Integer(required=True, allow_none=True, metadata={
        "description": "Of the 576 sets (null: unreadable, or read more than one way)"})
    legal = fields.Boolean(required=True, allow_none=True, metadata={
        "description": "Fits the given initial sets (null when none given)"})
    total_sets = fields.Integer(required=True, metadata={"description": "576"})


# -- events and result (what GET .../events, the replay and the result say) --------------------------


class SetCardsSchema(Schema):
    top = fields.String(required=True, metadata={"description": "Top card"})
    bottom = fields.String(required=True, metadata={"description": "Bottom card"})


class InitialSetsSchema(Schema):
    obey = fields.Nested(SetCardsSchema, required=True, metadata={"description": "The set under the black Ace"})
    broken = fields.Nested(SetCardsSchema, required=True, data_key="break",
                           metadata={"description": "The set under the red Ace"})


class CardCutSchema(SeatEventSchema):
    card = fields.String(required=True, metadata={"description": "The card cut", "example": "3D"})


class CutTiedSchema(Schema):
    seats = fields.List(fields.Integer(), required=True, metadata={"description": "The seats that cut again"})


class VexerChosenSchema(Schema):
    vexer = fields.Integer(required=True, metadata={"description": "The first Vexer"})
    token = fields.Integer(required=True, metadata={"description": "The seat holding the token"})


class RoundStartedSchema(Schema):
    round = fields.Integer(required=True, metadata={"description": "The round's number, from 1"})
    vexer = fields.Integer(required=True, metadata={"description": "The round's Vexer"})
    token = fields.Integer(required=True, metadata={"description": "The seat holding the token"})
    initial_sets = fields.Nested(InitialSetsSchema, required=True, metadata={"description": "As dealt"})
    hand_counts = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True,
                              metadata={"description": "Cards dealt to each Seeker, by seat number"})
    deck_count = fields.Integer(required=True, metadata={"description": "Cards left in the deck"})


class CardsSchema(SeatEventSchema):
    cards = fields.List(fields.String(), required=True, metadata={"description": "The cards (told to the seat "
                                                                                 "alone)"})


class RuleWrittenSchema(Schema):
    turned = fields.List(fields.String(validate=COLUMN), required=True,
                         metadata={"description": "The columns whose initial set the Vexer turned around"})
    initial_sets = fields.Nested(InitialSetsSchema, required=True, metadata={"description": "As they now lie"})


class RuleRecordedSchema(Schema):
    rule = fields.String(required=True, metadata={"description": "The rule (told to the Vexer alone)"})


class SetQueriedSchema(SeatEventSchema):
    top = fields.String(required=True)
    bottom = fields.String(required=True)
    column = fields.String(required=True, validate=COLUMN, metadata={"description": "The column it belongs in"})


class SetPlayedSchema(SetQueriedSchema):
    chosen = fields.String(required=True, validate=COLUMN, metadata={"description": "The column the Seeker chose"})
    correct = fields.Boolean(required=True, metadata={"description": "The chosen column was right"})


class GuessMadeSchema(SeatEventSchema):
    rule = fields.String(required=True, metadata={"description": "The guess's text (said aloud)"})
    correct = fields.Boolean(required=True, metadata={"description": "Equivalent to the rule"})


class VexerChoosingSchema(Schema):
    kind = fields.String(required=True, validate=validate.OneOf([c.value for c in Choice]),
                         metadata={"description": "What the Vexer must choose"})


class CardsDealtSchema(SeatEventSchema):
    count = fields.Integer(required=True, metadata={"description": "Cards dealt"})
    deck_count = fields.Integer(required=True, metadata={"description": "Cards left in the deck"})


class SetFlippedSchema(SetCardsSchema):
    column = fields.String(required=True, validate=COLUMN)
    initial = fields.Boolean(required=True, metadata={"description": "An initial set (the round ends)"})


class HintPointedSchema(SetCardsSchema, SeatEventSchema):
    column = fields.String(required=True, validate=COLUMN, metadata={"description": "The column of the set pointed "
                                                                                   "to"})


class HintGivenSchema(SeatEventSchema):
    source = fields.String(required=True, validate=validate.OneOf(SOURCES), metadata={"description": "Where it came "
                                                                                                    "from"})


class HintReceivedSchema(HintGivenSchema, SetCardsSchema):
    obeys = fields.Boolean(required=True, metadata={"description": "The set obeys the rule (told to the seat alone)"})


class PlayerBecameLudicSchema(SeatEventSchema):
    score = fields.Integer(required=True, metadata={"description": "Its score"})


class GameWonSchema(Schema):
    winners = fields.List(fields.Integer(), required=True, metadata={"description": "Seats sharing the win"})
    scores = fields.List(fields.Integer(), required=True, metadata={"description": "Scores per seat"})


EVENT_SCHEMAS: dict[str, type[Schema]] = {
    EventType.CARD_CUT: CardCutSchema, EventType.CUT_TIED: CutTiedSchema, EventType.VEXER_CHOSEN: VexerChosenSchema,
    EventType.ROUND_STARTED: RoundStartedSchema, EventType.HAND_DEALT: CardsSchema,
    EventType.RULE_WRITTEN: RuleWrittenSchema, EventType.RULE_RECORDED: RuleRecordedSchema,
    EventType.SET_QUERIED: SetQueriedSchema, EventType.SET_PLAYED: SetPlayedSchema,
    EventType.GUESS_MADE: GuessMadeSchema, EventType.GUESS_PASSED: SeatEventSchema,
    EventType.VEXER_CHOOSING: VexerChoosingSchema, EventType.CARDS_DEALT: CardsDealtSchema,
    EventType.CARDS_RECEIVED: CardsSchema, EventType.SET_FLIPPED: SetFlippedSchema,
    EventType.HINT_POINTED: HintPointedSchema, EventType.HINT_GIVEN: HintGivenSchema,
    EventType.HINT_RECEIVED: HintReceivedSchema, EventType.ROUND_ENDED: RoundSummaryView,
    EventType.PLAYER_BECAME_LUDIC: PlayerBecameLudicSchema, EventType.GAME_WON: GameWonSchema,
    EventType.ACTION_BOUND_REACHED: ActionBoundReachedSchema,
}
"""Each event's ``data``, by its ``type`` (every :class:`~ludic.engine.EventType`)."""


class SummarySchema(Schema):
    scores = fields.List(fields.Integer(), required=True, metadata={"description": "Scores per seat"})
    ludic = fields.List(fields.Integer(), required=True, metadata={"description": "The ludic seats"})
    rounds = fields.Integer(required=True, metadata={"description": "Rounds played"})
    won_by = fields.String(required=True, metadata={"description": "What ended the game, in words"})
    bound = fields.Nested(BoundSchema, required=True, allow_none=True,
                          metadata={"description": "The bound that ended the game (null: the rules did)"})
