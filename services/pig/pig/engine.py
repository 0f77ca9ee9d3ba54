"""The rules of Pig as a pure engine (``services/pig/RULES.md`` says every call made).

Two to six seats share one six-sided die. On your turn, ``roll``: a 1 loses the turn total and
passes the turn, any other face adds to it; or ``hold``: bank the turn total and pass. The first
seat to bank the target (100 by default) wins.

The engine is written in the shape every new game copies (:mod:`ludoteca.core.actions`):

- **Actions are typed values** (:class:`Roll`, :class:`Hold`: frozen dataclasses named in the
  imperative, each naming its body's ``type``). The shared parser (:data:`ACTIONS`) reads a posted
  body into one of them once; a body that is none of them is refused.
- **Legality is stated once** (:meth:`PigEngine.legal`): what a seat may post now. The shared
  :class:`~ludoteca.core.actions.ActionEngine` derives ``legal_actions`` from it and refuses, in
  ``apply``, anything not in it (``GameOverError``, ``NotYourTurnError``, ``IllegalActionError``
  listing what is legal) before anything is built: the handlers never check a body again.
- **Handlers return their events** (:meth:`PigEngine.play` dispatches on the action's type):
  each returns the new state and the events it made, which the caller adds up.

What the rest of the engine contract (:class:`ludoteca.core.engine.Engine`, checked for every
registered game by ``tests/contract``) asks, and where this file does it:

- **Pure.** No I/O, clock or global random: the die is thrown with the game's own
  :class:`~ludoteca.core.rng.Rng`, which lives in the state. ``Rng`` is mutable, so every throw
  uses a copy (:meth:`PigEngine._roll`) and the state given to ``apply`` is never changed.
- **A public event for every move**: each action tells everyone what happened.
- **Bounded** (:data:`DECLARATION`, :meth:`PigEngine.max_actions`): a seat that never holds would
  play for ever, so the game also ends at its declared most actions. ``play`` asks
  ``self.max_actions`` for it (never a constant: the contract suite declares it smaller), and the
  result's ``summary["bound"]`` says ``{"reached": "actions", "limit": n}`` when it ended the game.
- **Replay**: the same seed and actions give the same state, byte for byte (the state is plain
  frozen data: ``dump``/``load`` come from :class:`~ludoteca.core.engine.StateEngine`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from enum import StrEnum
from typing import Any

from ludoteca.core.actions import NOTHING, Action, ActionEngine, ActionTypes, Legal, Outcome
from ludoteca.core.dice import Die
from ludoteca.core.engine import JSON, Chance, Declaration, Event, GameResult, Information, Part, view_of
from ludoteca.core.errors import FieldValidationError
from ludoteca.core.rng import Rng

MIN_SEATS = 2
MAX_SEATS = 6
DEFAULT_TARGET = 100
MIN_TARGET = 10
MAX_TARGET = 500

DIE = Die((1, 2, 3, 4, 5, 6))

ACTIONS_PER_POINT = 10
"""The action bound: this many actions per seat per point of the target. A hold banks at least 2
points; games of ``random`` or ``hold20`` bots take at most about one action per seat per point
(measured: RULES.md, section 5), so only a seat that never holds meets the bound."""


class ActionType(StrEnum):
    """An action body's ``type`` (an imperative verb)."""

    ROLL = "roll"
    HOLD = "hold"


class EventType(StrEnum):
    """An event's ``type`` (past tense). Each has a schema in :data:`pig.schemas.EVENT_SCHEMAS`."""

    DIE_ROLLED = "DieRolled"
    BUSTED = "Busted"
    POINTS_BANKED = "PointsBanked"
    TURN_STARTED = "TurnStarted"
    ACTION_BOUND_REACHED = "ActionBoundReached"
    GAME_ENDED = "GameEnded"


ROLL, HOLD = ActionType.ROLL, ActionType.HOLD


# -- the actions: typed values, parsed once from the posted body ---------------------------------
@dataclass(frozen=True)
class Roll(Action, type=ROLL):
    """Throw the die: a 1 loses the turn total and passes the turn, any other face adds to it."""


@dataclass(frozen=True)
class Hold(Action, type=HOLD):
    """Bank the turn total and pass the turn (once the turn has gathered points)."""


PigAction = Roll | Hold
ACTIONS: ActionTypes[PigAction] = ActionTypes(Roll, Hold)
"""Pig's action types: the one parser of a posted body (``{"type": "roll"}`` is ``Roll()``)."""

ROLL_ONLY: Legal[PigAction] = Legal((Roll(),))
ROLL_OR_HOLD: Legal[PigAction] = Legal((Roll(), Hold()))


@dataclass(frozen=True)
class PigOptions:
    """A game's options, typed. The options schema (:class:`pig.schemas.OptionsSchema`) checks
    the same range for the REST API; this check covers a caller of the engine itself."""

    target: int = DEFAULT_TARGET

    def __post_init__(self) -> None:
        if not (isinstance(self.target, int) and MIN_TARGET <= self.target <= MAX_TARGET):
            raise FieldValidationError(f"target must be {MIN_TARGET}..{MAX_TARGET}",
                                       errors={"target": ["out of range"]})


def _max_actions(options: PigOptions, seats: int) -> int:
    return seats * options.target * ACTIONS_PER_POINT


DECLARATION: Declaration[PigOptions] = Declaration(
    min_seats=MIN_SEATS, max_seats=MAX_SEATS, chance=Chance.SEEDED, information=Information.PERFECT,
    options=PigOptions, max_actions=_max_actions,
)
"""What Pig is, declared once: 2 to 6 seats, a die thrown with the game's RNG, nothing secret,
its options and its bound."""


@dataclass(frozen=True)
class Throw:
    """A throw of the die: who threw it and the face."""

    seat: int
    die: int


@dataclass(frozen=True)
class PigState:
    """A whole game. Frozen: ``apply`` builds a new one with ``dataclasses.replace``. Every field
    is plain data the shared codec stores (a field added later needs a default, so that games
    stored before it still load)."""

    players: tuple[str, ...]
    """Each seat's kind: ``human`` or ``bot:<level>``."""
    options: PigOptions
    rng: Rng
    """The game's random generator: never in a view (the replay reveals its seed)."""
    scores: tuple[int, ...]
    """Banked points per seat."""
    first_player: int
    current: int | None
    """The seat whose turn it is; ``None`` once the game is over."""
    turn_total: int = 0
    """Points gathered this turn, not banked yet."""
    last_roll: Throw | None = None
    """The last throw of the game, whoever threw it (``None`` before the first)."""
    actions: int = 0
    """Actions applied so far: the bound counts them."""

    @property
    def seats(self) -> int:
        return len(self.players)

    @property
    def over(self) -> bool:
        return self.current is None


class PigEngine(ActionEngine[PigState, PigAction]):
    """Pig's rules: implements :class:`ludoteca.core.engine.Engine` (``apply``, ``legal_actions``
    and ``action_templates`` come from :class:`~ludoteca.core.actions.ActionEngine`, over
    :meth:`legal` and :meth:`play`)."""

    state_type = PigState
    actions = ACTIONS
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS

    def max_actions(self, options: Mapping[str, Any], seats: int) -> int:
        """The declared bound (:data:`DECLARATION`): no game accepts more actions."""
        return DECLARATION.bound(options, seats)

    def bound(self, state: PigState) -> int:
        """This game's bound, asked of ``self.max_actions`` (which a test may patch)."""
        return self.max_actions(asdict(state.options), state.seats)

    # -- setup ------------------------------------------------------------------------------------
    def new_game(self, players: Sequence[str], options: Mapping[str, Any], rng: Rng) -> PigState:
        """A new game; the first player is drawn with the game's RNG (RULES.md, section 2)."""
        if not MIN_SEATS <= len(players) <= MAX_SEATS:
            raise FieldValidationError(f"Pig needs {MIN_SEATS} to {MAX_SEATS} seats", errors={"seats": ["bad count"]})
        if not all(isinstance(p, str) and (p == "human" or p.startswith("bot:")) for p in players):
            raise FieldValidationError("a seat is 'human' or 'bot:<level>'", errors={"seats": ["bad seat kind"]})
        rng = Rng(rng.seed, rng.counter)  # a copy: the caller's generator is left as it was
        first = rng.randbelow(len(players))
        return PigState(players=tuple(players), options=DECLARATION.load_options(options), rng=rng,
                        scores=(0,) * len(players), first_player=first, current=first)

    # -- who acts, what is legal ------------------------------------------------------------------
    def to_act(self, state: PigState) -> frozenset[int]:
        return frozenset() if state.current is None else frozenset({state.current})

    def legal(self, state: PigState, seat: int) -> Legal[PigAction]:
        """Roll at any time of your turn; hold once the turn has gathered points."""
        if seat != state.current:
            return NOTHING
        return ROLL_OR_HOLD if state.turn_total > 0 else ROLL_ONLY

    # -- playing: ``apply`` (shared) has refused what is not legal; each handler returns its events --
    def play(self, state: PigState, seat: int, action: PigAction) -> Outcome[PigState]:
        state = replace(state, actions=state.actions + 1)
        match action:
            case Roll():
                state, events = self._roll(state, seat)
            case Hold():
                state, events = self._hold(state, seat)
        return state, events

    # -- the action bound (the rule is ActionEngine.apply's: the action that reaches it ends the game) --
    def over(self, state: PigState) -> bool:
        return state.over

    def actions_taken(self, state: PigState) -> int:
        return state.actions

    def end_at_bound(self, state: PigState, seat: int) -> Outcome[PigState]:
        """The turn total in play is lost; the highest score wins (equal highest share the win)."""
        lost = state.turn_total
        reached = Event(EventType.ACTION_BOUND_REACHED, {"seat": seat, "actions": state.actions, "lost": lost})
        state, ended = self._end(state)
        return state, [reached, *ended]

    def _roll(self, state: PigState, seat: int) -> Outcome[PigState]:
        rng = Rng(state.rng.seed, state.rng.counter)  # Rng is mutable: throw with a copy
        die = DIE.roll(rng)
        state = replace(state, rng=rng, last_roll=Throw(seat, die))
        if die != 1:
            turn_total = state.turn_total + die
            return replace(state, turn_total=turn_total), [
                Event(EventType.DIE_ROLLED, {"seat": seat, "die": die, "turn_total": turn_total})]
        events = [Event(EventType.DIE_ROLLED, {"seat": seat, "die": die, "turn_total": 0}),
                  Event(EventType.BUSTED, {"seat": seat, "lost": state.turn_total})]
        state, passed = self._pass_turn(replace(state, turn_total=0), seat)
        return state, events + passed

    def _hold(self, state: PigState, seat: int) -> Outcome[PigState]:
        score = state.scores[seat] + state.turn_total
        scores = tuple(score if s == seat else points for s, points in enumerate(state.scores))
        events = [Event(EventType.POINTS_BANKED, {"seat": seat, "points": state.turn_total, "score": score})]
        state = replace(state, scores=scores, turn_total=0)
        state, more = self._end(state) if score >= state.options.target else self._pass_turn(state, seat)
        return state, events + more

    def _pass_turn(self, state: PigState, seat: int) -> Outcome[PigState]:
        following = (seat + 1) % state.seats  # turns go to the left
        return replace(state, current=following), [Event(EventType.TURN_STARTED, {"seat": following})]

    def _end(self, state: PigState) -> Outcome[PigState]:
        state = replace(state, current=None, turn_total=0)
        result = self.result(state)
        assert result is not None
        return state, [Event(EventType.GAME_ENDED, {"winners": list(result.winners), "scores": list(state.scores),
                                                    "bound": result.summary["bound"]})]

    # -- reading ----------------------------------------------------------------------------------
    def view(self, state: PigState, seat: int | None) -> JSON:
        """Every part of :data:`VIEW` (all public: Pig has no secret)."""
        return view_of(VIEW, state, seat)

    def result(self, state: PigState) -> GameResult | None:
        """The highest score wins (only the seat that reached the target can have it; under the
        bound, equal highest scores share the win)."""
        if not state.over:
            return None
        best = max(state.scores)
        return GameResult(
            winners=tuple(s for s, points in enumerate(state.scores) if points == best),
            scores=tuple(float(points) for points in state.scores),
            summary={"scores": list(state.scores), "target": state.options.target,
                     "first_player": state.first_player, "bound": self.bound_reached(state)},
        )

    def bound_reached(self, state: PigState) -> JSON | None:
        """The bound that ended the game, or ``None`` (the contract: a game whose last action was
        the bound-th says so, whatever else happened in it)."""
        limit = self.bound(state)
        return {"reached": "actions", "limit": limit} if state.over and state.actions >= limit else None


# -- what each seat may see: every part of a view, in order (the view schema documents the same) --
VIEW: tuple[Part[PigState], ...] = (
    Part("seat", lambda s, viewer: viewer),
    Part("phase", lambda s, viewer: "over" if s.over else "playing"),
    Part("target", lambda s, viewer: s.options.target),
    Part("scores", lambda s, viewer: list(s.scores)),
    Part("first_player", lambda s, viewer: s.first_player),
    Part("current", lambda s, viewer: s.current),
    Part("turn_total", lambda s, viewer: s.turn_total),
    Part("last_roll", lambda s, viewer: None if s.last_roll is None else asdict(s.last_roll)),
)
"""All public: the die to come is the RNG's, and the RNG is in no part."""
