"""The contract between a game's pure core and the shared shell.

A game service provides one :class:`GameDefinition`: its :class:`Engine`, its marshmallow schemas
and its bots. The hosting layer (:mod:`ludoteca.hosting`) turns that into the whole REST surface;
the worker (:mod:`ludoteca.worker`) runs the bots; the store (:mod:`ludoteca.store`) keeps the
state through ``Engine.dump`` / ``Engine.load``.

Rules every engine keeps (they are tested for every game):

- Pure: no I/O, no clock, no global random. All randomness comes from the :class:`~ludoteca.rng.Rng`
  given to ``new_game`` and carried inside the state (dumped with it).
- ``apply`` never mutates its input state; it validates first and raises a
  :class:`~ludoteca.errors.LudotecaError` (``IllegalActionError``, ``NotYourTurnError``,
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
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ludoteca.rng import Rng

if TYPE_CHECKING:
    from flask_smorest import Blueprint
    from marshmallow import Schema

S = TypeVar("S")

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

    def dump(self, state: S) -> JSON:
        """The whole state as JSON-able data (RNG included): the store's codec and the replay."""
        ...

    def load(self, data: Mapping[str, Any]) -> S:
        """Inverse of ``dump``."""
        ...


Bot = Callable[[JSON, Sequence[JSON], random.Random], JSON]
"""A bot: (its seat's view, its legal actions, a private random generator) -> one of the legal
actions (or a filled-in template). Bots never see the state, only the view."""


@dataclass(frozen=True)
class GameDefinition:
    """Everything the shell needs to host a game.

    ``action_schemas`` maps each action ``type`` (the body's discriminator, an imperative verb:
    ``roll``, ``hold``) to the marshmallow schema of its whole body, ``type`` included; the
    hosting layer validates a posted body with the schema its ``type`` names and documents the
    request body as a ``oneOf`` with a discriminator. ``view_schema`` documents ``view``'s
    output; ``options_schema`` loads the ``options`` of ``POST /games`` (with defaults).
    ``extras`` returns a flask-smorest Blueprint of game-specific routes (``/numerals``,
    ``/rules/check``), mounted beside the standard ones.
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
