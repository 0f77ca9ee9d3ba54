"""The rules of Ludix as a pure engine.

Phases:

1. *Calling*: once every seat is filled, the first seat to post ``{"type": "alea_jacta_est"}``
   becomes the first player. Bots call last: while any seat is human only the humans may call;
   a table of bots only lets the bots call (the first bot turn the shell runs wins).
2. *Playing*: turns go to the left (seat + 1 mod n), starting with the first player. A turn starts
   with a ``roll`` (four dice from the game's RNG). After a valid throw the player either ``roll``\\ s
   again or ``hold``\\ s; either may carry ``"numeral"`` naming which valid numeral of the current
   throw counts (omitted: the best). A throw with no valid numeral is a bust: the turn total is
   lost and the turn passes by itself. ``hold`` banks the turn total.
3. *End*: once a total reaches the target (300 by default) the round is completed, counted from
   the first player, so every seat has had the same number of turns; then the highest total wins
   and equal highest totals share the win.
4. *Bounds* (declared by :data:`DECLARATION`): the game also ends after round
   :data:`MAX_ROUNDS` completes, and at once when its :meth:`~LudixEngine.max_actions`-th action
   is applied (the turn in progress is then lost, as in a bust); the highest total wins as above,
   and the result's summary names the bound (``"bound"``).

Nothing in Ludix is secret: every seat's view is the spectator's view plus its own seat number
(:data:`VIEW` declares each part and who may see it).

Written in the shape of :mod:`ludoteca.core.actions` (Pig's): the actions are typed values
(:class:`Call`, :class:`Roll`, :class:`Hold`), what is legal is stated once
(:meth:`LudixEngine.legal`), and the handlers called by :meth:`LudixEngine.play` return the new
state and their events.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from functools import cache
from types import MappingProxyType
from typing import Any

from ludoteca.core import codec
from ludoteca.core.actions import NOTHING, Action, ActionEngine, ActionTypes, Legal, Outcome
from ludoteca.core.dice import roll_all
from ludoteca.core.engine import (
    JSON,
    Chance,
    Declaration,
    Event,
    GameResult,
    Information,
    Part,
    evolve,
    view_of,
)
from ludoteca.core.errors import FieldValidationError
from ludoteca.core.rng import Rng

from ludix.numerals import DICE, Numeral, canonical, numerals_of

MIN_SEATS = 2
MAX_SEATS = 8
DEFAULT_TARGET = 300
MIN_TARGET = 50
MAX_TARGET = 1000

MAX_ROUNDS = 200
"""The game ends when this round completes even if nobody has reached the target (normal games
last 4 to 8 rounds at the default target, a few dozen at the largest)."""
ACTIONS_PER_TURN = 25
"""The action bound allows this many actions per turn on average over :data:`MAX_ROUNDS` full
rounds (a turn averages about 3.5 throws for a player who never holds: every throw busts with
chance 23/81)."""


class Phase(StrEnum):
    CALLING = "calling"
    PLAYING = "playing"
    OVER = "over"


class ActionType(StrEnum):
    """The ``type`` of an action body (imperative)."""

    CALL = "alea_jacta_est"
    ROLL = "roll"
    HOLD = "hold"


class EventType(StrEnum):
    """The ``type`` of an event (past tense)."""

    CALLED = "AleaJactaEstCalled"
    TURN_STARTED = "TurnStarted"
    NUMERAL_CHOSEN = "NumeralChosen"
    DICE_THROWN = "DiceThrown"
    BUSTED = "Busted"
    POINTS_BANKED = "PointsBanked"
    FINAL_ROUND_STARTED = "FinalRoundStarted"
    ACTION_BOUND_REACHED = "ActionBoundReached"
    GAME_ENDED = "GameEnded"


CALL, ROLL, HOLD = ActionType.CALL, ActionType.ROLL, ActionType.HOLD
"""The action types by their short names (the schemas and the bots use these)."""


# -- the actions: typed values, parsed once from the posted body ---------------------------------
@dataclass(frozen=True)
class Call(Action, type=CALL):
    """Alea jacta est: the first seat to call plays first."""


@dataclass(frozen=True)
class Roll(Action, type=ROLL):
    """Throw the four dice (after a valid throw, counting its ``numeral``: omitted, the best)."""

    numeral: str | None = None


@dataclass(frozen=True)
class Hold(Action, type=HOLD):
    """Bank the turn total, the pending throw's ``numeral`` counted (omitted: the best)."""

    numeral: str | None = None


LudixAction = Call | Roll | Hold
ACTIONS: ActionTypes[LudixAction] = ActionTypes(Call, Roll, Hold)
"""Ludix's action types: the one parser of a posted body."""

CALL_ONLY: Legal[LudixAction] = Legal((Call(),))
ROLL_ONLY: Legal[LudixAction] = Legal((Roll(),))


@cache
def after_throw(dice: str) -> Legal[LudixAction]:
    """What the thrower may post after the valid throw ``dice``: roll or hold, each counting the
    best numeral (no ``numeral``) or a named one (best first). Made once per distinct throw: a
    move builds no listing."""
    names = [n.text for n in numerals_of(canonical(dice))]
    return Legal(tuple(kind(numeral) for kind in (Roll, Hold) for numeral in (None, *names)))


@dataclass(frozen=True)
class LudixOptions:
    """The options of one game, typed: loaded once, in ``new_game``, from the options schema's
    output by :data:`DECLARATION` (the schema fills the same default)."""

    target: int = DEFAULT_TARGET

    def __post_init__(self) -> None:
        if not (isinstance(self.target, int) and MIN_TARGET <= self.target <= MAX_TARGET):
            raise FieldValidationError(
                f"target must be {MIN_TARGET}..{MAX_TARGET}", errors={"target": ["out of range"]}
            )


def _max_actions(options: LudixOptions, seats: int) -> int:
    """The call, then :data:`ACTIONS_PER_TURN` per turn for :data:`MAX_ROUNDS` rounds of every seat."""
    return 1 + seats * MAX_ROUNDS * ACTIONS_PER_TURN


DECLARATION: Declaration[LudixOptions] = Declaration(
    min_seats=MIN_SEATS, max_seats=MAX_SEATS, chance=Chance.SEEDED, information=Information.PERFECT,
    options=LudixOptions, max_actions=_max_actions,
)
"""Ludix: 2 to 8 seats, dice from the game's RNG, nothing secret (:data:`VIEW`)."""


def is_human(player: str) -> bool:
    return player == "human"


@dataclass(frozen=True)
class LudixState:
    """A whole game. Immutable: ``apply`` builds a new one (the RNG is copied before use)."""

    players: tuple[str, ...]
    options: LudixOptions = field(metadata=codec.FLATTEN)
    """Stored beside the other fields (``"target"``), as before the shared codec."""
    rng: Rng
    totals: tuple[int, ...]
    turns: tuple[int, ...]
    """Turns finished per seat."""
    first_player: int | None = None
    current: int | None = None
    turn_total: int = 0
    """Points gathered this turn before the pending throw."""
    throw: str | None = None
    """The pending valid throw, as the dice fell (its numeral is chosen by the next action)."""
    over: bool = False
    actions: int = 0
    """Actions applied so far (the call included): the action bound counts them."""

    @property
    def seats(self) -> int:
        return len(self.players)

    @property
    def target(self) -> int:
        return self.options.target

    @property
    def phase(self) -> Phase:
        if self.over:
            return Phase.OVER
        return Phase.CALLING if self.first_player is None else Phase.PLAYING

    @property
    def round(self) -> int:
        """The round in progress (1-based; 0 before the call)."""
        if self.first_player is None:
            return 0
        if self.current is None:
            return max(self.turns)
        return self.turns[self.first_player] + (1 if self.current == self.first_player else 0)

    @property
    def final_round(self) -> bool:
        """Someone has reached the target: the round in progress is the last."""
        return not self.over and any(t >= self.target for t in self.totals)

    def still_to_play(self, seat: int) -> list[int]:
        """The seats after ``seat`` in the round in progress (the round ends before the first
        player's next turn)."""
        out: list[int] = []
        following = (seat + 1) % self.seats
        while following != self.first_player and self.first_player is not None:
            out.append(following)
            following = (following + 1) % self.seats
        return out

    @property
    def at_stake(self) -> int:
        """The points a bust would lose and a hold would bank: the turn total with the pending
        throw's best numeral (the default) counted."""
        numerals = self.pending_numerals()
        return self.turn_total + (numerals[0].value if numerals else 0)

    def pending_numerals(self) -> tuple[Numeral, ...]:
        return numerals_of(canonical(self.throw)) if self.throw else ()


@cache
def options_mapping(options: LudixOptions) -> Mapping[str, Any]:
    """``options`` as the mapping :meth:`LudixEngine.max_actions` takes, made once per distinct
    options (read-only: shared by every move of every game with them; ``asdict`` was a fifth of
    an ``apply``)."""
    return MappingProxyType(asdict(options))


class LudixEngine(ActionEngine[LudixState, LudixAction]):
    """Implements :class:`ludoteca.core.engine.Engine` for Ludix (``apply``, ``legal_actions`` and
    ``action_templates`` from :class:`~ludoteca.core.actions.ActionEngine`, over :meth:`legal`
    and :meth:`play`)."""

    declaration = DECLARATION
    state_type = LudixState
    actions = ACTIONS
    min_seats = DECLARATION.min_seats
    max_seats = DECLARATION.max_seats

    def max_actions(self, options: Mapping[str, Any], seats: int) -> int:
        """The declared bound (:data:`DECLARATION`): no game accepts more actions."""
        return DECLARATION.bound(options, seats)

    def bound(self, state: LudixState) -> int:
        """This game's declared bound (asked of :meth:`max_actions`, which a test may declare
        smaller)."""
        return self.max_actions(options_mapping(state.options), state.seats)

    # -- setup ------------------------------------------------------------------------------
    def new_game(self, players: Sequence[str], options: Mapping[str, Any], rng: Rng) -> LudixState:
        players = tuple(players)
        if not MIN_SEATS <= len(players) <= MAX_SEATS:
            raise FieldValidationError(
                f"Ludix needs {MIN_SEATS} to {MAX_SEATS} seats", errors={"seats": ["bad seat count"]}
            )
        if any(not (isinstance(p, str) and (is_human(p) or p.startswith("bot:"))) for p in players):
            raise FieldValidationError("a seat is 'human' or 'bot:<level>'", errors={"seats": ["bad seat kind"]})
        zeros = (0,) * len(players)
        return LudixState(players=players, options=DECLARATION.load_options(options), rng=Rng(rng.seed, rng.counter),
                          totals=zeros, turns=zeros)

    # -- who acts, what is legal ------------------------------------------------------------
    def to_act(self, state: LudixState) -> frozenset[int]:
        if state.over:
            return frozenset()
        if state.first_player is None:
            humans = frozenset(s for s, p in enumerate(state.players) if is_human(p))
            return humans or frozenset(range(state.seats))
        assert state.current is not None
        return frozenset({state.current})

    def may_act(self, state: LudixState, seat: int) -> bool:
        return isinstance(seat, int) and seat in self.to_act(state)

    def legal(self, state: LudixState, seat: int) -> Legal[LudixAction]:
        """The call while calling; a roll to start a turn; after a valid throw, a roll or a hold,
        each with the numeral that counts (omitted: the best)."""
        if state.over:
            return NOTHING
        if state.first_player is None:
            return CALL_ONLY if self.may_act(state, seat) else NOTHING
        if seat != state.current:
            return NOTHING
        return ROLL_ONLY if state.throw is None else after_throw(state.throw)

    # -- playing: ``apply`` (shared) has refused what is not legal; each handler returns its events --
    def play(self, state: LudixState, seat: int, action: LudixAction) -> Outcome[LudixState]:
        state = evolve(state, actions=state.actions + 1)
        match action:
            case Call():
                state, events = self._call(state, seat)
            case Roll() | Hold():
                state, chosen = self._choose(state, seat, action.numeral)
                state, turn = self._hold(state, seat) if isinstance(action, Hold) else self._roll(state, seat)
                events = chosen + turn
        return state, events

    # -- the action bound (the rule is ActionEngine.apply's: the action that reaches it ends the game) --
    def over(self, state: LudixState) -> bool:
        return state.over

    def actions_taken(self, state: LudixState) -> int:
        return state.actions

    def end_at_bound(self, state: LudixState, seat: int) -> Outcome[LudixState]:
        """The turn in play is lost (its total and the pending throw's best numeral), and the game
        ends as after a last round."""
        lost = state.turn_total + sum(n.value for n in state.pending_numerals()[:1])
        reached = Event(EventType.ACTION_BOUND_REACHED, {"seat": state.current, "actions": state.actions, "lost": lost})
        state, ended = self._end_game(evolve(state, throw=None, turn_total=0))
        return state, [reached, *ended]

    def _call(self, state: LudixState, seat: int) -> Outcome[LudixState]:
        state = evolve(state, first_player=seat, current=seat)
        return state, [Event(EventType.CALLED, {"seat": seat}), _turn_started(state)]

    def _choose(self, state: LudixState, seat: int, name: str | None) -> Outcome[LudixState]:
        """The pending throw's numeral counted (``name``, else the best); nothing without one."""
        if state.throw is None:
            return state, []
        numerals = state.pending_numerals()
        numeral = next((n for n in numerals if n.text == name), numerals[0])
        turn_total = state.turn_total + numeral.value
        return evolve(state, throw=None, turn_total=turn_total), [Event(
            EventType.NUMERAL_CHOSEN,
            {"seat": seat, "numeral": numeral.text, "value": numeral.value, "turn_total": turn_total},
        )]

    def _roll(self, state: LudixState, seat: int) -> Outcome[LudixState]:
        rng = Rng(state.rng.seed, state.rng.counter)
        dice = "".join(roll_all(DICE, rng))
        numerals = numerals_of(canonical(dice))
        thrown = Event(
            EventType.DICE_THROWN,
            {
                "seat": seat,
                "dice": dice,
                "multiset": canonical(dice),
                "numerals": [n.to_json() for n in numerals],
                "turn_total": state.turn_total,
            },
        )
        if numerals:
            return evolve(state, rng=rng, throw=dice), [thrown]
        busted = Event(EventType.BUSTED, {"seat": seat, "dice": dice, "lost": state.turn_total})
        state, ended = self._end_turn(evolve(state, rng=rng, turn_total=0), seat)
        return state, [thrown, busted, *ended]

    def _hold(self, state: LudixState, seat: int) -> Outcome[LudixState]:
        reached_before = state.final_round
        points = state.turn_total
        totals = list(state.totals)
        totals[seat] += points
        state = evolve(state, totals=tuple(totals), turn_total=0)
        events = [Event(EventType.POINTS_BANKED, {"seat": seat, "points": points, "total": totals[seat]})]
        remaining = state.still_to_play(seat)
        if state.final_round and not reached_before and remaining:
            events.append(Event(EventType.FINAL_ROUND_STARTED,
                                {"seat": seat, "total": totals[seat], "remaining": remaining}))
        state, ended = self._end_turn(state, seat)
        return state, events + ended

    def _end_turn(self, state: LudixState, seat: int) -> Outcome[LudixState]:
        turns = list(state.turns)
        turns[seat] += 1
        state = evolve(state, turns=tuple(turns), throw=None, turn_total=0)
        if (state.final_round or turns[seat] >= MAX_ROUNDS) and not state.still_to_play(seat):
            return self._end_game(state)
        state = evolve(state, current=(seat + 1) % state.seats)
        return state, [_turn_started(state)]

    def _end_game(self, state: LudixState) -> Outcome[LudixState]:
        state = evolve(state, over=True, current=None)
        outcome = self.result(state)
        assert outcome is not None
        data: JSON = {"winners": list(outcome.winners), "totals": list(state.totals), "rounds": max(state.turns)}
        if outcome.summary["bound"] is not None:
            data["bound"] = outcome.summary["bound"]
        return state, [Event(EventType.GAME_ENDED, data)]

    def bound_reached(self, state: LudixState) -> JSON | None:
        """Which declared bound ended the game (``None``: the target did, or not over)."""
        if not state.over:
            return None
        cap = self.bound(state)
        if state.actions >= cap:
            return {"reached": "actions", "limit": cap}
        if max(state.totals) < state.target:
            return {"reached": "rounds", "limit": MAX_ROUNDS}
        return None

    # -- reading ----------------------------------------------------------------------------
    def view(self, state: LudixState, seat: int | None) -> JSON:
        """Every part of :data:`VIEW` (all public)."""
        return view_of(VIEW, state, seat)

    def result(self, state: LudixState) -> GameResult | None:
        if not state.over:
            return None
        best = max(state.totals)
        winners = tuple(s for s, t in enumerate(state.totals) if t == best)
        return GameResult(
            winners=winners,
            scores=tuple(float(t) for t in state.totals),
            summary={
                "totals": list(state.totals),
                "target": state.target,
                "first_player": state.first_player,
                "rounds": max(state.turns),
                "bound": self.bound_reached(state),
            },
        )


def _throw_view(state: LudixState) -> JSON | None:
    if state.throw is None:
        return None
    return {"dice": state.throw, "multiset": canonical(state.throw),
            "numerals": [n.to_json() for n in state.pending_numerals()]}


# -- what each seat may see ----------------------------------------------------------------------
VIEW: tuple[Part[LudixState], ...] = (
    Part("seat", lambda s, viewer: viewer),
    Part("phase", lambda s, viewer: s.phase.value),
    Part("target", lambda s, viewer: s.target),
    Part("totals", lambda s, viewer: list(s.totals)),
    Part("turns", lambda s, viewer: list(s.turns)),
    Part("first_player", lambda s, viewer: s.first_player),
    Part("current", lambda s, viewer: s.current),
    Part("round", lambda s, viewer: s.round),
    Part("final_round", lambda s, viewer: s.final_round),
    Part("turn_total", lambda s, viewer: s.turn_total),
    Part("at_stake", lambda s, viewer: s.at_stake),
    Part("throw", lambda s, viewer: _throw_view(s)),
)
"""Every part of a Ludix view, in order. All public: Ludix has no secrets (the dice to come are
the RNG's, never in a view; the RNG is in no part)."""


def _turn_started(state: LudixState) -> Event:
    return Event(EventType.TURN_STARTED, {"seat": state.current, "round": state.round})
