"""The state of a Ludic game: frozen dataclasses, changed with :func:`ludoteca.core.engine.evolve`
(``dataclasses.replace``, faster), stored by the shared codec (:mod:`ludoteca.core.codec`:
int-keyed dicts, enums, tuples), in
the same JSON shape as the hand-written codec it replaced.

The state holds every secret (the rule, hands, deck order, hintbook, the RNG); only the view
declared in :mod:`ludic.engine` (``VIEW``, ``SECRETS``) decides what a seat may see of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ludoteca.core.rng import Rng

from ludic.universe import set_of_codes

Json = dict[str, Any]
"""A JSON object the engine writes once and never changes: a log entry, a cut, a round's summary
(one C-level copy each way in the codec)."""


MAX_ROUNDS = 100
"""The game ends after this round whatever the scores (normal games last 5 to 35 rounds; the
``round_limit`` option may only ask for fewer)."""


@dataclass(frozen=True)
class LudicOptions:
    """The options of one game, declared once: the options schema is built from these fields
    (defaults, ranges, descriptions), and :data:`ludic.engine.DECLARATION` loads its output into
    this value."""

    short_game: bool = field(default=False, metadata={
        "description": "A short game: a player becomes ludic at 11 points instead of 15."})
    round_limit: int = field(default=0, metadata={
        "description": "End after this many rounds (highest score wins); 0: play until a ludic player "
        "becomes Vexer again, as the text says.", "range": (0, MAX_ROUNDS)})
    vexer_choices: bool = field(default=False, metadata={
        "description": "The Vexer chooses which set to flip and which counterexample to give as a hint "
        "(the game waits for a choose_flip / choose_hint action); otherwise the server chooses: the "
        "oldest set after the initial one, a random counterexample."})
    turn_initial_sets: bool = field(default=True, metadata={
        "description": "The Vexer may turn either initial set around (swap its top and bottom) when "
        "writing the rule."})

    @property
    def target(self) -> int:
        """The points that make a player ludic."""
        return 11 if self.short_game else 15


class Phase(StrEnum):
    """Where the game is (see :mod:`ludic.engine`)."""

    CUT = "cut"
    RULE = "rule"
    TURN = "turn"
    GUESS = "guess"
    FINAL = "final"
    CHOOSE = "choose"
    OVER = "over"


class SetKind(StrEnum):
    """How a set came to its column."""

    INITIAL = "initial"
    QUERY = "query"
    """Placed by the Vexer after a query."""
    PLAY = "play"
    """A correct play."""
    MISPLAY = "misplay"
    """A wrong play, moved to the right column."""


class HintSource(StrEnum):
    """Where a hint comes from (see :mod:`ludic.hints`)."""

    COLUMN = "column"
    """A visible set pointed to."""
    HINTBOOK = "hintbook"
    """Built from the hintbook's cards, which the Seeker now keeps."""
    SLIP = "slip"
    """Written on paper."""


class StepKind(StrEnum):
    """A piece of work the Vexer owes after an action."""

    PLACE = "place"
    FLIP = "flip"
    DEAL = "deal"
    HINT = "hint"
    MAY_GUESS = "may_guess"
    END_TURN = "end_turn"


@dataclass(frozen=True)
class PlacedSet:
    """A set in a column, and how it came there (:class:`SetKind`)."""

    top: str
    bottom: str
    kind: SetKind
    seat: int | None
    face_up: bool = True

    @property
    def index(self) -> int:
        return set_of_codes(self.top, self.bottom)

    @property
    def is_initial(self) -> bool:
        return self.kind is SetKind.INITIAL


@dataclass(frozen=True)
class Hint:
    """A set proving a guess wrong (or, after a pass in the last phase, any set), with its column
    and where it came from (:class:`HintSource`)."""

    source: HintSource
    top: str
    bottom: str
    obeys: bool
    guess: str | None = None


@dataclass(frozen=True)
class Step:
    """One piece of work the Vexer owes (place a set, flip, deal, hint ...), done in order; a step
    that offers the Vexer a choice pauses the game (option ``vexer_choices``)."""

    do: StepKind
    seat: int | None = None
    column: str | None = None
    top: str | None = None
    bottom: str | None = None
    kind: SetKind | None = None
    guess: str | None = None
    guess_obey: str | None = None


@dataclass(frozen=True)
class Round:
    number: int
    vexer: int
    deck: tuple[str, ...]
    hintbook: tuple[str, ...]
    hands: dict[int, tuple[str, ...]]
    columns: dict[str, tuple[PlacedSet, ...]]
    rule: str | None = None
    rule_obey: str | None = None
    hints: dict[int, tuple[Hint, ...]] = field(default_factory=dict)
    log: tuple[Json, ...] = ()
    steps: tuple[Step, ...] = ()
    turn: int | None = None
    last_phase: bool = False

    @property
    def obey_mask(self) -> int:
        return int(self.rule_obey or "0", 16)

    def face_up(self, column: str) -> list[PlacedSet]:
        return [s for s in self.columns[column] if s.face_up]

    def initial(self, column: str) -> PlacedSet:
        return self.columns[column][0]


@dataclass(frozen=True)
class LudicState:
    """A whole game. The dicts (a round's hands, columns, hints) are never changed in place either:
    a change is a new dict in a new value."""

    players: tuple[str, ...]
    options: LudicOptions
    rng: Rng
    """Drawn from only by the engine's ``apply``, on its own copy (the input state keeps its own)."""
    phase: Phase = Phase.CUT
    scores: tuple[int, ...] = ()
    ludic: tuple[int, ...] = ()
    token: int | None = None
    vexer: int | None = None
    cut_pending: tuple[int, ...] = ()
    cut_attempt: int = 1
    cuts: tuple[Json, ...] = ()
    cut_deck: tuple[str, ...] = ()
    round: Round | None = None
    rounds: tuple[Json, ...] = ()
    winners: tuple[int, ...] = ()
    actions: int = 0
    """Actions applied so far: the engine's action bound counts them."""

    @property
    def seats(self) -> int:
        return len(self.players)

    @property
    def target(self) -> int:
        return self.options.target

    def seekers(self) -> list[int]:
        """The Seekers in turn order: from the Vexer's left, around the table."""
        assert self.vexer is not None
        return [(self.vexer + k) % self.seats for k in range(1, self.seats)]
