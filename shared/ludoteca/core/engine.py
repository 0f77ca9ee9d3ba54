"""The contract between a game's pure core and the shared shell.

A game service provides one :class:`GameDefinition`: its :class:`Engine`, its marshmallow schemas
and its bots. The hosting layer (:mod:`ludoteca.adapters.hosting`) turns that into the whole REST surface;
the worker (:mod:`ludoteca.adapters.worker`) runs the bots; the store (:mod:`ludoteca.adapters.store`) keeps the
state through ``Engine.dump`` / ``Engine.load``.

Rules every engine keeps (each named in :class:`Engine`'s docstring, and checked for every game by
``tests/contract``, whose failures name the rule):

- Pure: no I/O, no clock, no global random. All randomness comes from the :class:`~ludoteca.core.rng.Rng`
  given to ``new_game`` and carried inside the state (dumped with it).
- ``apply`` never mutates its input state; it validates first and raises a
  :class:`~ludoteca.core.errors.LudotecaError` (``IllegalActionError``, ``NotYourTurnError``,
  ``GameOverError`` ...) for anything not legal, never a ``KeyError``/``TypeError``, and leaves
  nothing half done.
- ``legal_actions(state, seat)`` lists exactly the bodies that ``apply`` accepts from that seat
  now; actions with free text are not listed there but in ``action_templates``.
- Actions are typed values (:mod:`ludoteca.core.actions`, the shape to write a game in): each
  action type a frozen dataclass (``Roll``, ``Hold``) that the shared parser reads a posted body
  into once; the game states what is legal in one place (``legal(state, seat)``: the listed
  actions and templates), from which :class:`~ludoteca.core.actions.ActionEngine` derives
  ``legal_actions``, ``action_templates`` and ``apply``'s refusals; its handlers take a typed,
  legal action and return the new state and their events. An engine may still implement
  ``apply`` on the raw mapping itself (Speculation and Ludor do): the shell calls only the
  :class:`Engine` protocol.
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
    """A game's rules as pure functions over an immutable-by-convention state.

    The contract, rule by rule: ``tests/contract`` plays every registered game against each, and
    a failure names the rule it broke (``engine rule 'bound': ...``). A new game learns them here,
    not from failures.

    - ``never-stuck``: while :meth:`result` is ``None``, :meth:`to_act` is not empty and every
      seat in it has a legal action or a template.
    - ``listed-accepted``: :meth:`apply` accepts every body :meth:`legal_actions` lists, as listed
      (an :class:`~ludoteca.core.actions.ActionEngine` derives both from its one ``legal``, and
      each listed action writes the body it parses from).
    - ``immutable-input``: :meth:`apply`, :meth:`view`, :meth:`legal_actions` and
      :meth:`action_templates` never change the state they are given (the service shares one
      decoded state between the requests of a version). :class:`~ludoteca.core.rng.Rng` is
      mutable (a draw advances its counter): ``apply`` draws from a copy,
      ``Rng(state.rng.seed, state.rng.counter)``, which the new state keeps.
    - ``typed-errors``: anything not legal raises a :class:`~ludoteca.core.errors.LudotecaError`
      (``IllegalActionError``, ``NotYourTurnError``, ``GameOverError`` ...) and leaves the state
      as it was, whatever the body (not an object, a field missing or of a wrong type, another
      seat's action) or the seat (out of range, ``None``, a string): never a ``KeyError`` or
      ``TypeError``. An :class:`~ludoteca.core.actions.ActionEngine` refuses before its handlers
      run: a finished game, a seat not to act, a body its parser reads into no action or into
      one not in the seat's ``legal``; handlers never check a raw body.
    - ``illegal-lists-legal``: an ``IllegalActionError`` that carries ``legal`` carries exactly the
      caller's :meth:`legal_actions` (an ``ActionEngine``'s refusals always do).
    - ``codec``: :meth:`load` of :meth:`dump`, through JSON, is the same state; and :meth:`dump`
      gives plain JSON values, what decoding its text gives (lists, not tuples; ``str`` keys): the
      store keeps a committed document as it is, for the reads that find the same bytes.
    - ``replay``: the same seed and the same actions give a byte-identical :meth:`dump` (pure: no
      I/O, no clock, no global random; all randomness from the ``Rng`` given to :meth:`new_game`).
    - ``bound``: :meth:`max_actions` is a positive ``int`` for every seat count and option set,
      and no game accepts more actions. The engine reads its bound from ``self.max_actions``
      (never a module constant or a copy: the suite patches the method on the instance to small
      values), and the action that reaches it ends the game (an ``ActionEngine`` states that
      rule once, in ``apply``: the game gives ``bound``, ``over``, ``actions_taken`` and
      ``end_at_bound``).
    - ``bound-summary``: a result's ``summary["bound"]`` is ``None`` when the game ended by its
      rules, else ``{"reached": ..., "limit": n}``; a game ended by the action bound says
      ``"reached": "actions"`` (a declared round bound says ``"rounds"``).
    - ``finished``: once :meth:`result` is not ``None``: nobody is to act, the winners are seats
      (at least one), there is one score a seat, no seat has a legal action or a template, and
      :meth:`apply` raises ``GameOverError``.
    - ``view-schema``: every seat's view and the spectator's validate against the game's
      ``view_schema``.
    - ``secrets``: a view never holds the RNG's seed, and a seat's view, legal actions, templates
      and error bodies are the same whatever that seat may not know.
    - ``events``: each event is an :class:`Event` with a JSON-able ``data`` and an audience of
      ``None`` or seats of the game.
    - ``public-event``: every accepted action returns at least one event everyone may see (a move
      is a new version, which everyone sees: a move told only to some would leak by its version).
    - ``private-events``: an event that carries a secret goes only to the seats allowed to know it.
    - ``rules-doc``: the game's ``RULES.md`` (its folder, beside its ``pyproject.toml``) numbers
      its sections ``## 1. Title (`TestClass`, ...)``, from 1, each naming the test classes of
      ``tests/<game>/`` that check it (``tests/architecture/test_rules_docs.py`` checks they exist).
    """

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
        """Free-text actions ``seat`` may post now, once each, with placeholders (``"<rule>"``).

        Optional beside these two: ``compact_listing(state, seat)`` gives a large listing's
        compact form, ``(actions, templates)`` with a template carrying its ``domain``
        (Speculation's 715 joker guesses as one), or None where the full listing is small; the
        service lists it unless the client asks ``?expand=true``. Expanded, it must equal
        ``legal_actions`` (the contract's no-leak test compares them)."""
        ...

    def apply(self, state: S, seat: int, action: Mapping[str, Any]) -> tuple[S, list[Event]]:
        """The new state and the events of ``seat`` playing ``action`` (the body as posted, already
        loaded by its action schema; a direct caller may pass anything).
        :meth:`ludoteca.core.actions.ActionEngine.apply` parses it once into a typed action, judges
        it against the game's ``legal`` and plays it."""
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


LOADED_OPTIONS = 1024
"""How many distinct option sets a :class:`Declaration` keeps loaded."""


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
    _loaded: dict[tuple[Any, ...], Opts] = field(default_factory=dict, init=False, repr=False, compare=False)
    """Options values already loaded, by their items: every move asks for its game's bound (at most
    :data:`LOADED_OPTIONS` kept; the values are frozen, so shared)."""

    def load_options(self, options: Mapping[str, Any]) -> Opts:
        """The typed options value of ``options`` as the options schema loaded them (a key left
        out takes the declared default); a value out of its type is a ``FieldValidationError``."""
        try:
            key: tuple[Any, ...] | None = tuple(options.items())
            loaded = self._loaded.get(key)  # type: ignore[arg-type]
        except TypeError:  # an unhashable value: loaded each time
            key, loaded = None, None
        if loaded is not None:
            return loaded
        names = {f.name for f in dataclasses.fields(self.options)}  # type: ignore[arg-type]
        try:
            loaded = codec.load(self.options, {k: v for k, v in options.items() if k in names})
        except (KeyError, ValueError, TypeError) as err:
            raise FieldValidationError(f"bad options: {err}", errors={"options": [str(err)]}) from None
        if key is not None:
            if len(self._loaded) >= LOADED_OPTIONS:
                self._loaded.clear()
            self._loaded[key] = loaded
        return loaded

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
class Hosting:
    """Where a game is served, declared in its own folder: ``make generate``
    (:mod:`ludoteca.entrypoints.generate`) writes the Procfile, ``docker-compose.yml``, the
    Caddyfile and the Kubernetes manifests from it.

    ``port``: its service's port (loopback in ``make run``, the container's and the Kubernetes
    Service's in a deployment); one per game, above the front door's 8000. ``0`` (the default)
    is refused by the generator, which names the game: a game is never left out silently."""

    port: int = 0


@dataclass(frozen=True)
class TestFacts:
    """What the shared test suite needs to know of a game, declared in its own folder (the tests
    iterate the registry and read these; none holds a table of the games). Every field has a
    default under which a new game still gets the generic test, never a skip.

    ``playing_bot``: the bot level that makes a real game of it (a table of that level plays to a
    real end in reasonable time: Ludic's Seekers must be able to find rules); empty: the
    game's ``basic_bot``, else its first bot (:meth:`GameDefinition.playing_level`).
    ``quick_options``: options of a quick but complete game (a round limit, a low target), for
    the tests that play many whole games. ``option_samples``: option sets worth playing besides
    the defaults (the contract suite and the golden corpus). ``race_rounds``: rounds of the
    concurrent-move races (``tests/integration/test_races.py``). The golden corpus's recording
    (``tests/golden/corpus.py``): ``random_play_options`` for the tables played at random (a round
    limit where random play would last to the round bound), ``bot_table_samples`` option sets
    played by bots only, ``capped_options`` under every other table of a game whose bot tables
    may play many rounds, and ``uncapped_levels`` the levels then also played to the game's own
    ending. ``private_events``: the event types that carry a secret, whose audience is never
    everyone (the contract suite's ``private-events`` rule). ``bench_options``: the options of
    the tables ``make bench`` plays (``tests/bench/driver.py``; empty: the defaults), so that a
    game's figures stay comparable from run to run."""

    __test__ = False  # not a pytest test class, though its name says Test

    playing_bot: str = ""
    quick_options: Mapping[str, Any] = field(default_factory=dict)
    option_samples: tuple[Mapping[str, Any], ...] = ()
    race_rounds: int = 10
    random_play_options: Mapping[str, Any] = field(default_factory=dict)
    bot_table_samples: tuple[Mapping[str, Any], ...] = ()
    capped_options: Mapping[str, Any] = field(default_factory=dict)
    uncapped_levels: tuple[str, ...] = ()
    private_events: frozenset[str] = frozenset()
    bench_options: Mapping[str, Any] = field(default_factory=dict)


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
    ``hosting``: where it is served (:class:`Hosting`: its port); its Celery queue is its
    :attr:`queue`. ``tests``: what the shared tests need to know of it (:class:`TestFacts`).
    A game declares these here, once: ``make generate`` writes every file derived from them.
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
    hosting: Hosting = field(default_factory=Hosting)
    tests: TestFacts = field(default_factory=TestFacts)

    @property
    def queue(self) -> str:
        """Its Celery queue: its name (the worker's ``-Q``, where the service sends its bots'
        turns and its results)."""
        return self.name

    def playing_level(self) -> str:
        """The bot level that makes a real game of it: ``tests.playing_bot``, else
        ``basic_bot``, else the first of ``bots``."""
        return self.tests.playing_bot or self.basic_bot or next(iter(self.bots))
