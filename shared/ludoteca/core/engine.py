"""The contract between a game's pure core and the shared shell.

A game service provides one :class:`GameDefinition`: its :class:`Engine`, its marshmallow schemas
and its bots. The hosting layer (:mod:`ludoteca.adapters.hosting`) turns that into the whole REST surface;
the worker (:mod:`ludoteca.adapters.worker`) runs the bots; the store (:mod:`ludoteca.adapters.store`) keeps the
state through ``Engine.dump`` / ``Engine.load``.

Rules every engine keeps (they are tested for every game):

- Pure: no I/O, no clock, no global random. All randomness comes from the :class:`~ludoteca.core.rng.Rng`
  given to ``new_game`` and carried inside the state (dumped with it).
- ``apply`` never mutates its input state; it validates first and raises a
  :class:`~ludoteca.core.errors.LudotecaError` (``IllegalActionError``, ``NotYourTurnError``,
  ``GameOverError`` ...) for anything not legal, never a ``KeyError``/``TypeError``, and leaves
  nothing half done.
- ``legal_actions(state, seat)`` lists exactly the bodies that ``apply`` accepts from that seat
  now; actions with free text are not listed there but in ``action_templates``.
- ``view(state, seat)`` is the only door to clients: ``seat=None`` is a spectator. It never
  contains another seat's secrets, the deck order or the RNG.
- Events carry an audience: ``None`` for everyone (spectators too) or a set of seats. Anything
  secret goes in an event whose audience is only the seats allowed to know it.
- The same seed and the same actions give byte-identical ``dump`` output (replay).
- Bounded: every game ends. ``max_actions(options, seats)`` declares the most actions any game
  with those options and seats accepts, and the engine enforces it: the action that reaches it
  ends the game (a game may end earlier at a declared round bound, which its rules document).
  A game ended by a bound has an honest result: the winners by the game's own tie-break rule,
  and ``summary["bound"] = {"reached": "actions" | "rounds" | ..., "limit": n}`` (``None`` when
  the game ended by its normal rules). Bounds sit far above normal play, so only endless play
  (a table that never scores, never guesses right or always votes to go on) ever meets them.

Two declarations say the rest as data, the way OpenSpiel's ``GameType``/``GameInfo`` and its
observers do: a :class:`Declaration` (seats, chance, information, the options type, the bound) and
a view as a tuple of :class:`Part` (what a view holds, in order), read through the game's
secrets (:class:`Secret`: what is private, and to whom).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from ludoteca.core import codec
from ludoteca.core.errors import FieldValidationError
from ludoteca.core.rng import Rng

if TYPE_CHECKING:
    from flask_smorest import Blueprint
    from marshmallow import Schema

S = TypeVar("S")
Opts = TypeVar("Opts")

JSON = dict[str, Any]
"""An action body, a view, an event payload: plain JSON-able data."""


@dataclass(frozen=True)
class Event:
    """Something that happened, named in the past tense (``DiceThrown``, ``TurnPassed``).

    ``audience`` is ``None`` when everyone may see it (spectators included), else the seats
    that may.
    """

    type: str
    data: JSON = field(default_factory=dict)
    audience: frozenset[int] | None = None

    def visible_to(self, seat: int | None) -> bool:
        return self.audience is None or (seat is not None and seat in self.audience)


@dataclass(frozen=True)
class GameResult:
    """How a finished game ended.

    ``winners``: seats that share the win. ``scores``: one number per seat (points, or a
    finishing-position based score), used for the leaderboard's mean. ``summary``: anything
    game-specific worth showing (final totals, titles ...), public; its ``bound`` member says
    which declared bound ended the game, if one did (see :class:`Engine`).
    """

    winners: tuple[int, ...]
    scores: tuple[float, ...]
    summary: JSON = field(default_factory=dict)


class Engine(Protocol[S]):
    """A game's rules as pure functions over an immutable-by-convention state."""

    min_seats: int
    max_seats: int

    def max_actions(self, options: Mapping[str, Any], seats: int) -> int:
        """The declared bound: no game with these ``options`` (as loaded by the options schema)
        and this many seats accepts more actions; the one that reaches it ends the game, its
        result's ``summary["bound"]`` saying so. Checked for every game by ``tests/contract``."""
        ...

    def new_game(self, players: Sequence[str], options: Mapping[str, Any], rng: Rng) -> S:
        """A new game. ``players[i]`` is ``"human"`` or ``"bot:<level>"`` for seat ``i``;
        ``options`` were already loaded by the game's options schema (defaults filled).
        Raise ``FieldValidationError`` for option combinations the schema cannot check."""
        ...

    def to_act(self, state: S) -> frozenset[int]:
        """Seats the game is waiting on now (empty when finished). The shell enqueues a bot
        turn when a bot seat is in it, and answers 409 not-your-turn to the others."""
        ...

    def legal_actions(self, state: S, seat: int) -> list[JSON]:
        """Every action ``seat`` may post now, each exactly in its body form."""
        ...

    def action_templates(self, state: S, seat: int) -> list[JSON]:
        """Free-text actions ``seat`` may post now, once each, with placeholders (``"<rule>"``)."""
        ...

    def apply(self, state: S, seat: int, action: Mapping[str, Any]) -> tuple[S, list[Event]]:
        """The new state and the events of ``seat`` playing ``action``."""
        ...

    def view(self, state: S, seat: int | None) -> JSON:
        """What ``seat`` (``None``: a spectator) may see."""
        ...

    def result(self, state: S) -> GameResult | None:
        """``None`` while the game goes on."""
        ...

    def opening_events(self, state: S) -> list[Event]:
        """The events a new game already holds (Ludor's first deal), which ``new_game`` cannot
        return; the shell records them after ``GameCreated``. Most games have none."""
        ...

    def dump(self, state: S) -> JSON:
        """The whole state as JSON-able data (RNG included): the store's codec and the replay."""
        ...

    def load(self, data: Mapping[str, Any]) -> S:
        """Inverse of ``dump``."""
        ...


if TYPE_CHECKING:  # type-checked as what it does: dataclasses.replace (field names and types)
    from dataclasses import replace as evolve
else:
    def evolve(state: S, **changes: Any) -> S:
        """``dataclasses.replace(state, **changes)``, faster for a plain frozen state (the engines'
        many replaces per move, of states of a dozen fields or more): when the class has no
        ``__post_init__``, no ``__slots__``, no field outside ``__init__``, its generated ``__init__``
        and nothing but its fields in the instance's ``__dict__`` (no cached property), the new
        instance is the old one's fields with ``changes``, as ``__init__`` would have set them,
        without calling it; anything else goes through ``dataclasses.replace`` (its checks, its
        errors)."""
        cls = type(state)
        names = _EVOLVABLE.get(cls)
        if names is None:
            names = _EVOLVABLE[cls] = _evolvable(cls)
        fields = getattr(state, "__dict__", None)
        if not names or fields is None or len(fields) != len(names) or not changes.keys() <= names:
            return dataclasses.replace(state, **changes)  # type: ignore[type-var]
        new: S = object.__new__(cls)
        new.__dict__.update(fields)
        new.__dict__.update(changes)
        return new


_EVOLVABLE: dict[type, frozenset[str]] = {}


def _evolvable(cls: type) -> frozenset[str]:
    """The field names of ``cls`` when :func:`evolve` may copy its instances, else nothing."""
    if not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__") or "__slots__" in cls.__dict__:
        return frozenset()
    fields = dataclasses.fields(cls)
    init = getattr(cls.__init__, "__code__", None)
    generated = init is not None and init.co_filename == "<string>"  # dataclasses' own, not a hand-written one
    if not generated or not all(f.init for f in fields) or len(fields) != len(cls.__dataclass_fields__):
        return frozenset()
    return frozenset(f.name for f in fields)


class StateEngine(Generic[S]):
    """What every engine derives from its state's type rather than writes: ``dump``/``load`` by
    the shared codec (:mod:`ludoteca.core.codec`, a field added later takes its default) and no
    opening events. An engine names its frozen state dataclass in ``state_type``."""

    state_type: type[S]

    def dump(self, state: S) -> JSON:
        return codec.dump(state)

    def load(self, data: Mapping[str, Any]) -> S:
        return codec.load(self.state_type, data)

    def opening_events(self, state: S) -> list[Event]:
        return []


class Chance(StrEnum):
    """Where a game's randomness comes from."""

    NONE = "none"
    SEEDED = "seeded"
    """Drawn from the game's :class:`~ludoteca.core.rng.Rng` (dice, deals), carried in the state."""


class Information(StrEnum):
    PERFECT = "perfect"
    """Every seat may see the whole state (but the RNG)."""
    IMPERFECT = "imperfect"
    """Some part of the state is private to some seats (:class:`Secret`)."""


@dataclass(frozen=True)
class Declaration(Generic[Opts]):
    """What a game is, declared once: its seats, its chance and information, the frozen dataclass
    of its options (the defaults are declared there; the options schema fills the same ones) and
    its bound: ``max_actions(options, seats)``, the most actions any game accepts."""

    min_seats: int
    max_seats: int
    chance: Chance
    information: Information
    options: type[Opts]
    max_actions: Callable[[Opts, int], int]

    def load_options(self, options: Mapping[str, Any]) -> Opts:
        """The typed options value of ``options`` as the options schema loaded them (a key left
        out takes the declared default); a value out of its type is a ``FieldValidationError``."""
        names = {f.name for f in dataclasses.fields(self.options)}  # type: ignore[arg-type]
        try:
            return codec.load(self.options, {k: v for k, v in options.items() if k in names})
        except (KeyError, ValueError, TypeError) as err:
            raise FieldValidationError(f"bad options: {err}", errors={"options": [str(err)]}) from None

    def bound(self, options: Mapping[str, Any], seats: int) -> int:
        """:attr:`max_actions` of options as the options schema loaded them."""
        return self.max_actions(self.load_options(options), seats)


Viewer = int | None
"""A seat, or ``None``: a spectator."""


@dataclass(frozen=True)
class Secret(Generic[S]):
    """A part of the state private to some seats: ``may_see(state, viewer, owner)`` says whether
    ``viewer`` may see what belongs to seat ``owner`` (the owner itself usually may)."""

    what: str
    may_see: Callable[[S, Viewer, int], bool]


def may_act(engine: Engine[Any], state: Any, viewer: Viewer, to_act: frozenset[int] | None = None) -> frozenset[int]:
    """The seats that may post an action now, as far as ``viewer`` may know: ``to_act`` (passed
    when the caller has it), plus the viewer's own seat when the engine's optional
    ``acts_out_of_turn(state, seat) -> bool`` says it may act out of turn (Ludor's holder of the
    Autoplim). Only the viewer's own seat: whether another seat could is that seat's secret."""
    seats = engine.to_act(state) if to_act is None else to_act
    out_of_turn: Callable[[Any, int], bool] | None = getattr(engine, "acts_out_of_turn", None)
    if viewer is not None and viewer not in seats and out_of_turn is not None and out_of_turn(state, viewer):
        return seats | {viewer}
    return seats


def owner_only(state: Any, viewer: Viewer, owner: int) -> bool:
    """The usual :attr:`Secret.may_see`: what belongs to a seat is that seat's alone."""
    return viewer == owner


@dataclass(frozen=True)
class Part(Generic[S]):
    """One part of a view: its name and how it reads off the state for a viewer (a public part
    ignores the viewer; a private one reads through the game's secrets (:class:`Secret`))."""

    name: str
    read: Callable[[S, Viewer], Any]


def view_of(parts: Sequence[Part[S]], state: S, viewer: Viewer) -> JSON:
    """The view ``viewer`` gets: every part, in its declared order."""
    return {part.name: part.read(state, viewer) for part in parts}


Bot = Callable[[JSON, Sequence[JSON], random.Random], JSON]
"""A bot: (its seat's view, its legal actions, a private random generator) -> one of the legal
actions (or a filled-in template). Bots never see the state, only the view."""

Interrupt = Callable[[JSON, Sequence[JSON], random.Random], JSON | None]
"""A bot asked out of turn, when the engine lets its seat act now though the game does not wait
on it (``acts_out_of_turn``: Ludor's holder of the Autoplim): one of its legal actions, or None
to let the game go on."""


@dataclass(frozen=True)
class GameDefinition:
    """Everything the shell needs to host a game.

    ``action_schemas`` maps each action ``type`` (the body's discriminator, an imperative verb:
    ``roll``, ``hold``) to the marshmallow schema of its whole body, ``type`` included; the
    hosting layer validates a posted body with the schema its ``type`` names and documents the
    request body as a ``oneOf`` with a discriminator. ``view_schema`` documents ``view``'s
    output; ``options_schema`` loads the ``options`` of ``POST /games`` (with defaults).
    ``extras`` returns a flask-smorest Blueprint of game-specific routes (``/numerals``,
    ``/rules/check``), mounted beside the standard ones. ``warm_up`` prepares what the bots
    need before their first turn (compiled code, tables loaded into memory): the worker calls it
    once in its main process, before its pool forks, so no bot's first decision pays for it.
    ``basic_bot``: the level that plays a human's turn when its timer runs out, unless the game's
    creator chose another (:mod:`ludoteca.service_layer.timers`; empty: the first of ``bots``).
    ``interrupts``: the bot levels that may act out of turn, and how (:data:`Interrupt`); the
    service asks them after every move that leaves such a seat able to act
    (:meth:`~ludoteca.service_layer.service.GameService.bot_turn`).
    """

    name: str
    title: str
    engine: Engine[Any]
    options_schema: type[Schema]
    action_schemas: Mapping[str, type[Schema]]
    view_schema: type[Schema]
    bots: Mapping[str, Bot]
    extras: Callable[[], Blueprint] | None = None
    description: str = ""
    warm_up: Callable[[], object] | None = None
    basic_bot: str = ""
    interrupts: Mapping[str, Interrupt] = field(default_factory=dict)
