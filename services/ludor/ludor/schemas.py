"""Marshmallow schemas of Ludor: options, one schema per action, and the view.

The view schema documents exactly what :meth:`ludor.engine.LudorEngine.view` returns (mobile apps
are generated from it); the action schemas validate bodies before the engine judges legality.
"""

from __future__ import annotations

import dataclasses
from enum import StrEnum
from typing import Any

from ludoteca.adapters.hosting.schemas import ActionBoundReachedSchema, BoundSchema
from ludoteca.service_layer.fields import StrictBoolean, named_enum, strict_integer
from marshmallow import RAISE, Schema, fields, validate

from ludor.combos import KIND_NAMES
from ludor.engine import MAX_SEATS, NAMEABLE, ActionType, EventType, Phase, Title
from ludor.hierarchy import RANK_NAMES, build_deck, sorted_cards
from ludor.options import LudorOptions
from ludor.trick import ClosedBy

CARD_CODES = sorted_cards(build_deck())
"""Every card code, weakest first: ``3O`` .. ``2B``, ``JK1``, ``JK2``, ``Autoplim``, ``2O``."""

SEAT = validate.Range(min=0, max=MAX_SEATS - 1)


def _card(**kwargs: Any) -> fields.String:
    return fields.String(validate=validate.OneOf(CARD_CODES), metadata={
        "description": "A card code: rank then suit (O Oros, C Copas, E Espadas, B Bastos; 10 Sota, "
                       "11 Caballo, 12 Rey, 1 As), JK1/JK2 for the jokers, Autoplim.",
        "example": "7C"}, **kwargs)


def _seat(**kwargs: Any) -> fields.Integer:
    return fields.Integer(validate=SEAT, **kwargs)


def _seats(description: str) -> fields.List[Any]:
    return fields.List(_seat(), required=True, metadata={"description": description})


class _Strict(Schema):
    class Meta:
        unknown = RAISE


# -- options --------------------------------------------------------------------------------
def _option(name: str) -> fields.Field[Any]:
    """The schema field of one option, read off its declaration (:class:`LudorOptions`)."""
    declared = next(f for f in dataclasses.fields(LudorOptions) if f.name == name)
    default, meta = declared.default, declared.metadata
    described = {"description": meta["description"]}
    if isinstance(default, StrEnum):
        return fields.String(load_default=default.value, validate=validate.OneOf([c.value for c in type(default)]),
                             metadata=described)
    if isinstance(default, bool):
        return StrictBoolean(load_default=default, metadata=described)
    return strict_integer(load_default=default, allow_none=default is None,
                          validate=validate.Range(min=meta["minimum"], max=meta["maximum"]), metadata=described)


class OptionsSchema(_Strict):
    straights = _option("straights")
    deck = _option("deck")
    round_limit = _option("round_limit")
    exchange = _option("exchange")
    autoplim_plim = _option("autoplim_plim")


# -- actions --------------------------------------------------------------------------------
class _CardsAction(_Strict):
    cards = fields.List(_card(), required=True, validate=validate.Length(min=1, max=len(CARD_CODES)))


class PlaySchema(_CardsAction):
    """In turn: lead a trick, or answer it with as many cards of equal or higher rank (equal: PLIM)."""

    type = fields.String(required=True, validate=validate.Equal(ActionType.PLAY.value))
    rank = fields.String(validate=validate.OneOf(NAMEABLE), metadata={
        "description": "Jokers played alone take the rank you name (default: joker, above the 2s); "
                       "e.g. one joker named 7 answers a 7 with a PLIM. Jokers with other cards take "
                       "those cards' rank.", "example": "7"})


class PassSchema(_Strict):
    """In turn, on an opened trick: stay out of the rest of this trick."""

    type = fields.String(required=True, validate=validate.Equal(ActionType.PASS.value))


class PlayAutoplimSchema(_Strict):
    """The Autoplim's holder, at any moment of the play, even out of turn: clears the table."""

    type = fields.String(required=True, validate=validate.Equal(ActionType.PLAY_AUTOPLIM.value))
    declare_plim = StrictBoolean(load_default=False, metadata={
        "description": "Declare PLIM on the covered play: blocks the next player for this trick "
                       "(see the autoplim_plim option)."})


class GiveBackSchema(_CardsAction):
    """Exchange (option exchange=choose): the Presidente gives back 2 cards, the Vicepresidente 1."""

    type = fields.String(required=True, validate=validate.Equal(ActionType.GIVE_BACK.value))


class VoteSchema(_Strict):
    """After a round: vote to end the game (true) or play another round (false)."""

    type = fields.String(required=True, validate=validate.Equal(ActionType.VOTE.value))
    end = StrictBoolean(required=True)


ACTION_SCHEMAS: dict[str, type[Schema]] = {
    ActionType.PLAY.value: PlaySchema, ActionType.PASS.value: PassSchema,
    ActionType.PLAY_AUTOPLIM.value: PlayAutoplimSchema, ActionType.GIVE_BACK.value: GiveBackSchema,
    ActionType.VOTE.value: VoteSchema,
}


# -- view -----------------------------------------------------------------------------------
class ComboSchema(Schema):
    kind = fields.String(required=True, validate=validate.OneOf(KIND_NAMES))
    rank = fields.String(required=True, validate=validate.OneOf(RANK_NAMES), metadata={
        "description": "The set's rank (a straight's highest)", "example": "caballo"})
    count = fields.Integer(required=True, metadata={"description": "Number of cards"})


class MoveSchema(Schema):
    seat = _seat(required=True)
    action = fields.String(required=True, validate=validate.OneOf(
        [ActionType.PLAY.value, ActionType.PASS.value, ActionType.PLAY_AUTOPLIM.value]))
    cards = fields.List(_card(), required=True)
    combo = fields.Nested(ComboSchema, required=True, allow_none=True)
    plim = fields.Boolean(required=True, metadata={"description": "The play matched the one under it (PLIM)"})
    blocked = _seat(required=True, allow_none=True, metadata={"description": "Seat the PLIM blocked"})
    declared_plim = fields.Boolean(required=True, metadata={"description": "Autoplim played declaring PLIM"})
    out_of_turn = fields.Boolean(required=True)


class TrickSchema(Schema):
    leader = _seat(required=True)
    turn = _seat(required=True, metadata={"description": "Seat to play or pass"})
    top = fields.Nested(ComboSchema, required=True, allow_none=True, metadata={
        "description": "The play to answer (null: the leader opens)"})
    last_player = _seat(required=True, allow_none=True)
    passed = _seats("Seats that passed in this trick")
    blocked = _seats("Seats blocked by a PLIM for the rest of this trick")
    barred = _seat(required=True, allow_none=True, metadata={
        "description": "Your seat if the Autoplim's PLIM bars you from answering it (you held cards matching "
                       "the play it covered: you may only pass); null otherwise, and always null to the others"})
    moves = fields.List(fields.Nested(MoveSchema), required=True)


class ClosedTrickSchema(Schema):
    leader = _seat(required=True)
    winner = _seat(required=True, allow_none=True)
    closed_by = fields.String(required=True, validate=validate.OneOf([c.value for c in ClosedBy]))
    moves = fields.List(fields.Nested(MoveSchema), required=True)


class TransferSchema(Schema):
    giver = _seat(required=True)
    receiver = _seat(required=True)
    count = fields.Integer(required=True)
    cards = fields.List(_card(), required=True, allow_none=True, metadata={
        "description": "Only shown to the giver and the receiver"})


def _title(**kwargs: Any) -> fields.String:
    return named_enum("Title", [t.value for t in Title], **kwargs)


class RoundSchema(Schema):
    round = fields.Integer(required=True)
    order = _seats("Finishing order, first to last")
    titles = fields.List(_title(), required=True)


class ViewSchema(Schema):
    seat = _seat(required=True, allow_none=True, metadata={"description": "Your seat (null: spectator)"})
    phase = fields.String(required=True, validate=validate.OneOf([p.value for p in Phase]))
    round = fields.Integer(required=True, metadata={"description": "Round number, from 1"})
    options = fields.Nested(OptionsSchema, required=True)
    players = fields.List(fields.String(), required=True, metadata={"description": "human or bot:<level>"})
    dealer = _seat(required=True)
    hand = fields.List(_card(), required=True, metadata={"description": "Your cards, weakest first"})
    hand_counts = fields.List(fields.Integer(), required=True, metadata={"description": "Cards held per seat"})
    titles = fields.List(_title(), required=True, allow_none=True, metadata={
        "description": "Each seat's title in force this round, from the previous round (null in the first)"})
    finished = _seats("Seats out of cards this round, in finishing order")
    trick = fields.Nested(TrickSchema, required=True, allow_none=True, metadata={
        "description": "The trick on the table (null outside the play)"})
    tricks = fields.List(fields.Nested(ClosedTrickSchema), required=True, metadata={
        "description": "This round's closed tricks, oldest first"})
    two_of_oros_played = fields.Boolean(required=True)
    exchange = fields.List(fields.Nested(TransferSchema), required=True, metadata={
        "description": "This round's card exchange"})
    to_give = _seats("Seats that must still give cards back (exchange=choose)")
    votes = fields.List(fields.Boolean(allow_none=True), required=True, metadata={
        "description": "Votes to end the game (true), to go on (false), not cast (null)"})
    points = fields.List(fields.Integer(), required=True, metadata={
        "description": "Points per seat: each round gives n-1 to the Presidente down to 0 to the Culo"})
    rounds = fields.List(fields.Nested(RoundSchema), required=True, metadata={"description": "Finished rounds"})


# -- events and result (what GET .../events, the replay and the result say) --------------------------


class SeatEventSchema(Schema):
    seat = _seat(required=True, metadata={"description": "The seat it concerns"})


class RoundStartedSchema(Schema):
    round = fields.Integer(required=True, metadata={"description": "Round number, from 1"})
    dealer = _seat(required=True)
    hand_counts = fields.List(fields.Integer(), required=True, metadata={"description": "Cards dealt per seat"})


class CardsDealtSchema(SeatEventSchema):
    cards = fields.List(_card(), required=True, metadata={"description": "The seat's hand (told to it alone)"})


class CardsGivenSchema(Schema):
    giver = _seat(required=True)
    receiver = _seat(required=True)
    cards = fields.List(_card(), required=True, metadata={"description": "The cards (told to the two seats alone)"})


class CardsExchangedSchema(Schema):
    giver = _seat(required=True)
    receiver = _seat(required=True)
    count = fields.Integer(required=True, metadata={"description": "How many cards"})


class ExchangeStartedSchema(Schema):
    to_give = _seats("Seats that must give cards back (exchange=choose)")


class TrickStartedSchema(Schema):
    leader = _seat(required=True, metadata={"description": "The seat that opens the trick"})


class CardsPlayedSchema(SeatEventSchema):
    cards = fields.List(_card(), required=True)
    combo = fields.Nested(ComboSchema, required=True)
    plim = fields.Boolean(required=True, metadata={"description": "The play matched the one under it (PLIM)"})


class ByEventSchema(SeatEventSchema):
    by = _seat(required=True, metadata={"description": "The seat whose play did it"})


class AutoplimPlayedSchema(SeatEventSchema):
    out_of_turn = fields.Boolean(required=True)
    declared_plim = fields.Boolean(required=True, metadata={"description": "Played declaring PLIM"})
    target = _seat(required=True, allow_none=True, metadata={"description": "The seat its declared PLIM blocks (null: "
                                                                            "no PLIM declared)"})


class PlayerFinishedSchema(SeatEventSchema):
    position = fields.Integer(required=True, metadata={"description": "Its finishing position, from 1"})


class TrickWonSchema(SeatEventSchema):
    closed_by = fields.String(required=True, validate=validate.OneOf([c.value for c in ClosedBy]))


class RoundEndedSchema(Schema):
    round = fields.Integer(required=True)
    order = _seats("Finishing order, first to last")
    titles = fields.List(_title(), required=True, metadata={"description": "Each seat's title for the next round"})
    points = fields.List(fields.Integer(), required=True, metadata={"description": "Points per seat, this round "
                                                                                   "counted"})


class VotingStartedSchema(Schema):
    round = fields.Integer(required=True, metadata={"description": "The round just ended"})


class VoteCastSchema(SeatEventSchema):
    end = fields.Boolean(required=True, metadata={"description": "A vote to end the game"})


class VoteDecidedSchema(Schema):
    end = fields.Boolean(required=True, metadata={"description": "The game ends"})
    votes = fields.List(fields.Boolean(allow_none=True), required=True, metadata={"description": "The votes cast"})


class GameEndedSchema(Schema):
    winners = _seats("Seats sharing the win")
    points = fields.List(fields.Integer(), required=True, metadata={"description": "Points per seat"})


EVENT_SCHEMAS: dict[str, type[Schema]] = {
    EventType.ROUND_STARTED: RoundStartedSchema, EventType.CARDS_DEALT: CardsDealtSchema,
    EventType.CARDS_GIVEN: CardsGivenSchema, EventType.CARDS_EXCHANGED: CardsExchangedSchema,
    EventType.EXCHANGE_STARTED: ExchangeStartedSchema, EventType.TRICK_STARTED: TrickStartedSchema,
    EventType.CARDS_PLAYED: CardsPlayedSchema, EventType.PLAYER_BLOCKED: ByEventSchema,
    EventType.PLAYER_BARRED: ByEventSchema, EventType.TURN_PASSED: SeatEventSchema,
    EventType.AUTOPLIM_PLAYED: AutoplimPlayedSchema, EventType.PLAYER_FINISHED: PlayerFinishedSchema,
    EventType.TRICK_WON: TrickWonSchema, EventType.ROUND_ENDED: RoundEndedSchema,
    EventType.VOTING_STARTED: VotingStartedSchema, EventType.VOTE_CAST: VoteCastSchema,
    EventType.VOTE_DECIDED: VoteDecidedSchema, EventType.ACTION_BOUND_REACHED: ActionBoundReachedSchema,
    EventType.GAME_ENDED: GameEndedSchema,
}
"""Each event's ``data``, by its ``type`` (every :class:`~ludor.engine.EventType`)."""


class SummarySchema(Schema):
    rounds = fields.Integer(required=True, metadata={"description": "Rounds played"})
    points = fields.List(fields.Integer(), required=True, metadata={"description": "Points per seat"})
    titles = fields.List(_title(), required=True, allow_none=True,
                         metadata={"description": "Each seat's last title (null: no round ended)"})
    orders = fields.List(fields.List(_seat()), required=True,
                         metadata={"description": "Each round's finishing order, first to last"})
    bound = fields.Nested(BoundSchema, required=True, allow_none=True,
                          metadata={"description": "The bound that ended the game (null: a vote or the round "
                                                   "limit did)"})
