"""Actions as typed values: parsed once from the posted body, judged legal in one place, played by
handlers that return their events.

python-chess is the model (``Move.from_uci``/``Move.uci()``, legality as membership in the legal
set): a game declares each of its action types as a frozen dataclass deriving from
:class:`Action`, named in the imperative (``Roll``, ``Hold``), its body's ``type`` given once::

    @dataclass(frozen=True)
    class Hold(Action, type="hold"):
        numeral: str | None = None  # optional: may be left out of the body (never posted as null)

:class:`ActionTypes` parses a posted mapping into one of them (:meth:`ActionTypes.parse`: exact
keys, exact JSON types, ``None`` for anything else) and :meth:`Action.to_json` writes one back,
so the listing of legal actions and the body the engine accepts are the same value.

:class:`ActionEngine` is the half of an engine that turns a body into a move, written once: it
parses the body, judges it against the game's one statement of legality
(:meth:`ActionEngine.legal`: the listed actions and the free-text templates a seat has now, a
:class:`Legal`), and only then calls the game's :meth:`~ActionEngine.play` with the typed, legal
action; a body it refuses gets the error a client needs (the game is over, not your turn, or not
legal, listing what is). ``legal_actions`` and
``action_templates`` are derived from the same :class:`Legal`, so they cannot disagree with
``apply``, and no handler checks a raw mapping again. Handlers return the new state and their
events (an :data:`Outcome`); nothing threads a list of events through them.

An engine may still implement :class:`~ludoteca.core.engine.Engine` by hand (``apply`` on the
raw mapping): the shell calls nothing else.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar, Generic, TypeAlias, TypeVar

from ludoteca.core.engine import JSON, Event, StateEngine
from ludoteca.core.errors import GameOverError, IllegalActionError, NotYourTurnError

S = TypeVar("S")
A = TypeVar("A", bound="Action")

Outcome: TypeAlias = tuple[S, list[Event]]
"""What a handler returns: the new state and the events it made, in order."""


class Action:
    """Base of a game's typed actions: a frozen dataclass whose fields are the body's members
    (``str``, ``int``, ``bool``, or an array of ``str`` or ``int`` read into a tuple:
    ``tuple[int, ...]``; ``X | None = None`` for one that may be left out), its ``type`` given as
    a class keyword (``class Roll(Action, type="roll")``)."""

    __slots__ = ()
    type: ClassVar[str]
    """The body's ``type`` (an imperative verb)."""
    free_text: ClassVar[bool] = False
    """A free-text action (Ludic's rules): never listed, offered as a template
    (:class:`Template`); a game with one says so in its refusals (``templates``)."""
    _names: ClassVar[tuple[str, ...]] = ()
    _arrays: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, type: str = "", free_text: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if type:
            cls.type = type
        cls.free_text = free_text

    def to_json(self) -> JSON:
        """The body of this action, as posted and as listed (a member left out is ``None``; a
        tuple is written as a JSON array, a list)."""
        body: JSON = {"type": self.type}
        arrays = self._arrays
        for name in self._names:
            value = getattr(self, name)
            if value is not None:
                body[name] = list(value) if name in arrays else value
        return body


_MISSING = object()


@dataclass(frozen=True)
class _Member:
    """One member of an action's body: its name, the JSON types it takes, whether it may be left
    out (then it takes its default); for an array (``kinds`` is ``(tuple,)``), its items' type."""

    name: str
    kinds: tuple[type, ...]
    default: Any
    item: type | None = None


class _Shape:
    """How one action type reads a body (built once, by :class:`ActionTypes`)."""

    cls: type[Action]
    members: tuple[_Member, ...]
    keys: frozenset[str]
    bare: Action | None
    defaults: dict[str, Any]
    plain: bool
    """The action of a body with nothing but its ``type`` (one shared value), if it has one."""

    def __init__(self, cls: type[Action]) -> None:
        if not (dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen):
            raise TypeError(f"{cls.__name__}: an action is a frozen dataclass")
        if not getattr(cls, "type", ""):
            raise TypeError(f"{cls.__name__}: an action names its body's type (class {cls.__name__}(Action, type=...))")
        hints = typing.get_type_hints(cls)
        members = []
        for f in dataclasses.fields(cls):
            kinds, item = _kinds(cls, f.name, hints[f.name])
            default = f.default if f.default is not dataclasses.MISSING else _MISSING
            if type(None) in kinds and default is not None:
                raise TypeError(f"{cls.__name__}.{f.name}: an optional member defaults to None")
            members.append(_Member(f.name, tuple(k for k in kinds if k is not type(None)), default, item))
        self.cls = cls
        self.members = tuple(members)
        self.keys = frozenset({"type", *(m.name for m in members)})
        cls._names = tuple(m.name for m in members)
        cls._arrays = frozenset(m.name for m in members if m.item is not None)
        self.bare = cls() if all(m.default is not _MISSING for m in members) else None
        self.defaults = {m.name: m.default for m in members if m.default is not _MISSING}
        self.plain = not hasattr(cls, "__post_init__") and "__slots__" not in cls.__dict__
        """Built without calling ``__init__`` (a frozen dataclass's sets each field through
        ``object.__setattr__``): the fields, checked here, are all it would set."""

    def parse(self, body: Mapping[str, Any]) -> Action | None:
        if len(body) == 1:  # the ``type`` alone
            return self.bare
        if not body.keys() <= self.keys:
            return None
        values: dict[str, Any] = {}
        for member in self.members:
            value = body.get(member.name, _MISSING)
            if value is _MISSING:
                if member.default is _MISSING:
                    return None
                continue
            if member.item is not None:
                if type(value) is not list or not all(_is_of(v, (member.item,)) for v in value):
                    return None
                value = tuple(value)
            elif not _is_of(value, member.kinds):
                return None
            values[member.name] = value
        if not self.plain:
            return self.cls(**values)
        action = object.__new__(self.cls)
        action.__dict__.update(self.defaults, **values)
        return action


def _kinds(cls: type, name: str, hint: Any) -> tuple[tuple[type, ...], type | None]:
    """The classes a member's annotation allows (``str``, ``int``, ``bool``, or ``tuple`` for an
    array, with ``None``) and, for an array (``tuple[str, ...]``, ``tuple[int, ...]``), its items'."""
    options = typing.get_args(hint) if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union \
        else (hint,)
    kinds: list[type] = []
    item: type | None = None
    for k in options:
        args = typing.get_args(k)
        if typing.get_origin(k) is tuple and len(args) == 2 and args[1] is Ellipsis and args[0] in (str, int):
            kinds.append(tuple)
            item = args[0]
        elif k in (str, int, bool, type(None)):
            kinds.append(k)
        else:
            raise TypeError(f"{cls.__name__}.{name}: a member is str, int, bool, tuple[str, ...] or tuple[int, ...]"
                            f" (or one of them | None), not {hint}")
    if item is not None and len([k for k in kinds if k is not type(None)]) > 1:
        raise TypeError(f"{cls.__name__}.{name}: an array member is no other type (but None), not {hint}")
    return tuple(kinds), item


def _is_of(value: Any, kinds: tuple[type, ...]) -> bool:
    """JSON's types, exactly: ``true`` is no integer."""
    if isinstance(value, bool):
        return bool in kinds
    return isinstance(value, kinds) and not (isinstance(value, int) and int not in kinds)


class ActionTypes(Generic[A]):
    """A game's action types, by their body's ``type``: the one parser of its bodies."""

    def __init__(self, *classes: type[A]) -> None:
        self.shapes: dict[str, _Shape] = {}
        for cls in classes:
            shape = _Shape(cls)
            if cls.type in self.shapes:
                raise TypeError(f"two action types named {cls.type!r}")
            self.shapes[cls.type] = shape
        self.free_text = any(cls.free_text for cls in classes)
        """Whether any of them is free text (then a refusal lists the templates too)."""

    def __iter__(self) -> typing.Iterator[type[A]]:
        return iter(typing.cast(type[A], shape.cls) for shape in self.shapes.values())

    def parse(self, body: object) -> A | None:
        """The action ``body`` is, or ``None`` when it is none of these: not a mapping, an unknown
        or missing ``type``, a member missing, unknown, ``null`` or of another JSON type."""
        if not isinstance(body, Mapping):
            return None
        kind = body.get("type")
        shape = self.shapes.get(kind) if isinstance(kind, str) else None
        return None if shape is None else shape.parse(body)  # type: ignore[return-value]


@dataclass(frozen=True)
class Template(Generic[A]):
    """A free-text action a seat may post now: its body with placeholders (``"<rule>"``), as
    ``action_templates`` lists it, and which filled-in actions it admits."""

    body: JSON
    admits: Callable[[A], bool]


@dataclass(frozen=True)
class Legal(Generic[A]):
    """Everything a seat may post now, the one statement of legality: the listed actions (in the
    order ``legal_actions`` lists them) and the free-text templates. An action is legal when it
    is one of them (``action in legal``)."""

    listed: Sequence[A] = ()
    templates: Sequence[Template[A]] = ()

    def __contains__(self, action: object) -> bool:
        listed = self.listed
        found = action in (self._set if len(listed) > SCAN else listed)
        return found or any(t.admits(action) for t in self.templates)  # type: ignore[arg-type]

    @cached_property
    def _set(self) -> frozenset[A]:
        """The listed actions as a set, made at the first look-up of a long listing (a Legal a
        game keeps, such as one made per distinct throw or hand, makes it once)."""
        return frozenset(self.listed)


SCAN = 8
"""Listings longer than this are looked up in a set (an action's ``==`` is a Python call)."""


NOTHING: Legal[Any] = Legal()
"""What a seat may post when it may not act."""


class ActionEngine(StateEngine[S], Generic[S, A]):
    """An :class:`~ludoteca.core.engine.Engine`'s ``apply``, ``legal_actions`` and
    ``action_templates``, written once over a game's typed actions.

    The game gives: ``actions`` (its :class:`ActionTypes`), :meth:`legal` (what a seat may post
    now) and :meth:`play` (the handlers: a legal action in, the new state and its events out);
    for the action bound, :meth:`bound`, :meth:`over`, :meth:`actions_taken` and
    :meth:`end_at_bound` (the rule itself, "the action that reaches the bound ends the game",
    is :meth:`apply`'s); optionally :meth:`refusal` (the message of a refused body)."""

    actions: ClassVar[ActionTypes[Any]]

    # -- what the game writes -------------------------------------------------------------
    def to_act(self, state: S) -> frozenset[int]:
        """The seats the game waits on (empty once it is over): :meth:`Engine.to_act`."""
        raise NotImplementedError

    def legal(self, state: S, seat: int) -> Legal[A]:
        """What ``seat`` may post now (:data:`NOTHING` when it may not act): the only place the
        game states what is legal."""
        raise NotImplementedError

    def play(self, state: S, seat: int, action: A) -> Outcome[S]:
        """Play ``action``, already parsed and judged legal for ``seat``: the new state and the
        events, in order. Never changes ``state`` (an ``Rng`` is drawn from a copy)."""
        raise NotImplementedError

    def refusal(self, state: S, seat: int, body: object, action: A | None) -> str:
        """The message of a 409 for ``body`` (``action``: what it parsed to, ``None``: nothing)."""
        return "that action is not legal now"

    # -- the action bound: the action that reaches it ends the game (the contract's ``bound``) --
    def bound(self, state: S) -> int:
        """The most actions this game accepts: ``self.max_actions(options, seats)`` (read from
        there on every move, so a test may declare it smaller)."""
        raise NotImplementedError

    def over(self, state: S) -> bool:
        """Whether the game has ended (by its rules or a bound)."""
        raise NotImplementedError

    def actions_taken(self, state: S) -> int:
        """The actions applied so far, as the bound counts them."""
        raise NotImplementedError

    def end_at_bound(self, state: S, seat: int) -> Outcome[S]:
        """End the game that the action just played by ``seat`` brought to its bound: the
        finished state and the events, the game's ``ActionBoundReached`` first; the result's
        ``summary["bound"]`` says ``{"reached": "actions", ...}``."""
        raise NotImplementedError

    # -- derived --------------------------------------------------------------------------
    def legal_actions(self, state: S, seat: int) -> list[JSON]:
        return [action.to_json() for action in self.legal(state, seat).listed]

    def action_templates(self, state: S, seat: int) -> list[JSON]:
        return [dict(template.body) for template in self.legal(state, seat).templates]

    def apply(self, state: S, seat: int, body: Mapping[str, Any]) -> Outcome[S]:
        """:meth:`play` the action ``body`` parses to when it is in the seat's :meth:`legal`;
        else refuse, in order: a finished game (``GameOverError``), a seat that may not act now
        (``NotYourTurnError``), a body that is not one of the seat's legal actions
        (``IllegalActionError`` with ``legal``, and ``templates`` when the game has free-text
        actions). A game the played action brought to its :meth:`bound` ends there
        (:meth:`end_at_bound`), whatever else the action did."""
        legal = self.legal(state, seat) if isinstance(seat, int) else NOTHING
        action = self.actions.parse(body)
        if action is None or action not in legal:
            self.check_turn(state, seat)
            raise self.illegal(state, seat, self.refusal(state, seat, body, action), legal)
        state, events = self.play(state, seat, action)
        if not self.over(state) and self.actions_taken(state) >= self.bound(state):
            state, ended = self.end_at_bound(state, seat)
            events = [*events, *ended]
        return state, events

    def check_turn(self, state: S, seat: int) -> None:
        """``GameOverError`` once nobody is to act (a game that goes on always waits on someone:
        the contract's ``never-stuck``), ``NotYourTurnError`` for a seat not to act now."""
        to_act = self.to_act(state)
        if not to_act:
            raise GameOverError("the game is over")
        if not isinstance(seat, int) or seat not in to_act:
            raise NotYourTurnError(f"seat {seat} may not act now", to_act=sorted(to_act))

    def illegal(self, state: S, seat: int, message: str, legal: Legal[A] | None = None) -> IllegalActionError:
        """The 409 of an action not legal now: it lists the seat's legal actions (and templates)."""
        legal = self.legal(state, seat) if legal is None else legal
        listed = [action.to_json() for action in legal.listed]
        if self.actions.free_text:
            return IllegalActionError(message, legal=listed, templates=[dict(t.body) for t in legal.templates])
        return IllegalActionError(message, legal=listed)
