"""Speculation's rules as pure functions: two hidden boards, tiered one-value guesses, the joker.

Phases, each played with actions:

1. ``clothing``: each seat reports how many items of clothing it wears (``report_clothing``).
   Reports are sealed until both are in; bots report only once no human still has to. The most
   items guesses first.
2. ``race`` (only on a tie): the first tied seat to declare another item put on
   (``put_on_item``) guesses first. Bots may declare only when no human is in the race.
3. ``guessing``: the guesser attacks the lowest tier of the opponent's board not yet cleared
   (jacks, queens, kings). ``guess`` names one value: "yes" reveals one unfound card of that
   value in the tier and the guesser goes again; "no" passes the turn. Once the kings are down,
   ``guess_joker`` names four values; the answer is how many are right (multiset intersection)
   and the turn passes unless all four are right, which wins.
4. ``over``: both boards and the cards set aside are revealed.

Bound (declared by :data:`DECLARATION`): the game also ends with its
``RITUAL_ACTIONS + MAX_GUESSES``-th action, the ritual's included (so after 2,000 to 2,003
guesses: a player who never repeats a hopeless guess needs at most 657, so only endless repeats
reach it): the seat that found more of the opponent's cards wins (then the better joker answer;
still equal, the win is shared), and the result's summary says so.

The server answers for the defender (truthfully, at once). When two unfound cards of the guessed
value lie in the tier, the game's RNG picks which one is revealed (the defender's free choice in
the text); the draw happens on every "yes", so the RNG counter follows public facts only.
See ``services/speculation/RULES.md`` for every call made where the text is open.

The engine is written on typed actions (:mod:`ludoteca.core.actions`, Pig's shape): a posted body
is parsed once into :class:`ReportClothing`, :class:`PutOnItem`, :class:`GuessValue` or
:class:`GuessJoker` (:data:`ACTIONS`); what a seat may post is stated once, in
:meth:`SpeculationEngine.legal` (the joker's guesses: listed, and admitted in any order by one
:class:`~ludoteca.core.actions.Template` that checks their domain: size, range, repeats); a refused
body's 409 says why (:meth:`SpeculationEngine.refusal`); :meth:`SpeculationEngine.play`
dispatches by ``match`` and every handler returns the new state and its events.

What each seat may see is declared as data: :data:`SECRETS` (the sealed clothing reports, the
unfound cards of a board, the cards set aside) and :data:`VIEW` (every part of a view, in order,
each read through those secrets). The state is stored by the shared codec
(:mod:`ludoteca.core.codec`), in the same shape as before it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from typing import Any

from ludoteca.core import codec
from ludoteca.core.actions import NOTHING, Action, ActionEngine, ActionTypes, Legal, Outcome, Template
from ludoteca.core.engine import (
    JSON,
    Chance,
    Declaration,
    Event,
    GameResult,
    Information,
    Part,
    Secret,
    Viewer,
    evolve,
    view_of,
)
from ludoteca.core.errors import FieldValidationError, GameOverError, IllegalActionError, NotYourTurnError
from ludoteca.core.rng import Rng

from speculation import listing
from speculation.board import COPIES, FACES, RECORD_FACES, VALUES, Board, Tier, value_of
from speculation.joker import JOKER_SIZE, normalize, score
from speculation.record import record_of

SEATS = (0, 1)
MAX_ITEMS = 30
"""The most items of clothing a seat may report (legal actions list every count up to it)."""


MAX_LISTED_IN_ERRORS = 64
"""A refusal lists the seat's legal actions up to this many (the 31 clothing counts, the 10 values);
beyond (the joker's 715 or 615 guesses) it gives their count (``legal_count``)."""

MAX_GUESSES = 2000
"""Guesses (both seats', tier and joker ones together) the action bound allows after the ritual."""
RITUAL_ACTIONS = 3
"""Two clothing reports and one item put on in the race, at most."""


class Phase(StrEnum):
    CLOTHING = "clothing"
    RACE = "race"
    GUESSING = "guessing"
    OVER = "over"


class ActionType(StrEnum):
    """The ``type`` of an action body (imperative)."""

    REPORT_CLOTHING = "report_clothing"
    PUT_ON_ITEM = "put_on_item"
    GUESS = "guess"
    GUESS_JOKER = "guess_joker"


class EventType(StrEnum):
    """The ``type`` of an event (past tense)."""

    CLOTHING_REPORTED = "ClothingReported"
    CLOTHING_COMPARED = "ClothingCompared"
    DRESSING_RACE_STARTED = "DressingRaceStarted"
    ITEM_PUT_ON = "ItemPutOn"
    FIRST_GUESSER_CHOSEN = "FirstGuesserChosen"
    VALUE_GUESSED = "ValueGuessed"
    FACE_CARD_DOWNED = "FaceCardDowned"
    TIER_CLEARED = "TierCleared"
    TURN_PASSED = "TurnPassed"
    JOKER_GUESSED = "JokerGuessed"
    GAME_WON = "GameWon"
    ACTION_BOUND_REACHED = "ActionBoundReached"
    BOARDS_REVEALED = "BoardsRevealed"


class DecidedBy(StrEnum):
    """How the first guesser was chosen."""

    CLOTHING = "clothing"
    RACE = "race"
    RANDOM = "random"


class Answer(StrEnum):
    """The answer to a tier guess."""

    YES = "yes"
    NO = "no"


class FirstGuesser(StrEnum):
    """How the first guesser is chosen (game option ``first_guesser``)."""

    CLOTHING = "clothing"  # the text's rule: most clothing, a race on a tie
    RANDOM = "random"  # the game's RNG (for play where clothing cannot be checked)


class JokerGuesses(StrEnum):
    """Which four-value guesses are allowed at the joker (game option ``joker_guesses``)."""

    ANY = "any"  # any four values (715 multisets)
    HANDS = "hands"  # only possible hands: no value more than twice (615)


@dataclass(frozen=True)
class SpeculationOptions:
    """The options of one game, declared once: the options schema is built from these fields
    (defaults, choices, descriptions), and :data:`DECLARATION` loads its output into this value."""

    first_guesser: FirstGuesser = field(default=FirstGuesser.CLOTHING, metadata={
        "description": "How the first guesser is chosen: 'clothing' (the rule of the text: most items of clothing, "
                       "a race to put on another on a tie) or 'random' (the game's seeded RNG)"})
    joker_guesses: JokerGuesses = field(default=JokerGuesses.ANY, metadata={
        "description": "Joker guesses allowed: 'any' four values (715 multisets) or only 'hands' (no value more "
                       "than twice: 615)"})


@codec.interned
@dataclass(frozen=True)
class Guess:
    """One guess and its answer, as recorded in the history.

    A tier guess has one value; ``card`` is the card it found (``None``: the answer was "no").
    A joker guess has four values and ``right`` (how many were right). ``answer`` is derived
    (stored with the rest, recomputed on load). Interned by the codec: a load shares one
    instance per distinct guess (a history holds hundreds, of a few thousand possible ones).
    """

    seat: int
    tier: Tier
    values: tuple[int, ...]
    answer: Answer | None = field(init=False)
    card: str | None = None
    right: int | None = None

    def __post_init__(self) -> None:
        answer = None if self.tier is _JOKER else _YES if self.card is not None else _NO
        object.__setattr__(self, "answer", answer)


# Enum members read in the hot paths (every guess of the history is built on every load, and
# viewed on every view): a module global is a dict lookup, ``Tier.JOKER`` an enum descriptor call.
_JOKER, _YES, _NO = Tier.JOKER, Answer.YES, Answer.NO
_TIER_VALUE: Mapping[Tier, str] = {t: t.value for t in Tier}
_FACE_TIER_VALUES: tuple[str, ...] = tuple(f.tier.value for f in FACES)
"""The tier of each face card of a board (and of the record, in the same order)."""
_ANSWER_VALUE: Mapping[Answer | None, str | None] = {None: None, **{a: a.value for a in Answer}}


@dataclass(frozen=True)
class State:
    """A whole game. ``boards[s]`` is seat ``s``'s own board (the one its opponent attacks)."""

    players: tuple[str, ...]
    options: SpeculationOptions
    boards: tuple[Board, ...]
    rng: Rng
    phase: Phase = Phase.CLOTHING
    items: tuple[int | None, ...] = (None, None)
    tied: tuple[int, ...] = ()
    first_guesser: int | None = None
    decided_by: DecidedBy | None = None
    guesser: int | None = None
    history: tuple[Guess, ...] = ()
    winner: int | None = None

    def is_bot(self, seat: int) -> bool:
        return self.players[seat] != "human"


def _max_actions(options: SpeculationOptions, seats: int) -> int:
    return RITUAL_ACTIONS + MAX_GUESSES


DECLARATION: Declaration[SpeculationOptions] = Declaration(
    min_seats=len(SEATS), max_seats=len(SEATS), chance=Chance.SEEDED, information=Information.IMPERFECT,
    options=SpeculationOptions, max_actions=_max_actions,
)
"""Speculation: two seats; the deal and the revealed copy come from the game's RNG; each board's
unfound cards are its owner's (:data:`SECRETS`); the bound is the ritual's actions and
:data:`MAX_GUESSES` guesses."""


def opponent(seat: int) -> int:
    return 1 - seat


# -- the actions: typed values, parsed once from the posted body -----------------------------------
@dataclass(frozen=True)
class ReportClothing(Action, type=ActionType.REPORT_CLOTHING.value):
    """Report how many items of clothing you wear (sealed until both seats have)."""

    items: int


@dataclass(frozen=True)
class PutOnItem(Action, type=ActionType.PUT_ON_ITEM.value):
    """Declare another item put on (the race of a tie): the first to do so guesses first."""


@dataclass(frozen=True)
class GuessValue(Action, type=ActionType.GUESS.value):
    """Name one value of the tier you attack."""

    value: int


@dataclass(frozen=True)
class GuessJoker(Action, type=ActionType.GUESS_JOKER.value):
    """Name the joker's four values (once both kings are down), in any order."""

    values: tuple[int, ...]


SpeculationAction = ReportClothing | PutOnItem | GuessValue | GuessJoker
ACTIONS: ActionTypes[SpeculationAction] = ActionTypes(ReportClothing, PutOnItem, GuessValue, GuessJoker)
"""Speculation's action types: the one parser of a posted body."""

_PHASE_TYPES: frozenset[tuple[Phase, str]] = frozenset({
    (Phase.CLOTHING, ActionType.REPORT_CLOTHING), (Phase.RACE, ActionType.PUT_ON_ITEM),
    (Phase.GUESSING, ActionType.GUESS), (Phase.GUESSING, ActionType.GUESS_JOKER)})
"""The action types of each phase (a refusal names a type posted in another phase)."""


def _joker_template(kind: JokerGuesses) -> Template[SpeculationAction]:
    """The joker's guesses as one template (the compact listing's, :mod:`speculation.listing`),
    admitting the guesses of its domain in any order: ``size`` values from ``min`` to ``max``,
    none more than ``max_repeats`` times."""
    body = listing.joker_template(max_repeats=JOKER_SIZE if kind is JokerGuesses.ANY else COPIES)
    domain = body["domain"]
    size, lo, hi, repeats = domain["size"], domain["min"], domain["max"], domain["max_repeats"]

    def admits(action: SpeculationAction) -> bool:
        if not isinstance(action, GuessJoker):
            return False
        values = action.values
        return (len(values) == size and all(lo <= v <= hi for v in values)
                and all(values.count(v) <= repeats for v in values))
    return Template(body, admits)


# What a seat may post in each situation, built once (the joker's guesses are 715 or 615):
# ``legal`` returns one of these shared values.
_CLOTHING: Legal[SpeculationAction] = Legal(tuple(ReportClothing(n) for n in range(MAX_ITEMS + 1)))
_RACE: Legal[SpeculationAction] = Legal((PutOnItem(),))
_GUESS: Legal[SpeculationAction] = Legal(tuple(GuessValue(v) for v in VALUES))
_AT_JOKER: Mapping[JokerGuesses, Legal[SpeculationAction]] = {
    kind: Legal(tuple(GuessJoker(tuple(body[listing.FIELD])) for body in listing.expand(template.body)),
                (template,))
    for kind, template in ((k, _joker_template(k)) for k in JokerGuesses)}
"""At the joker: the guesses listed in the order of :func:`speculation.listing.expand` (sorted
values), and their template (which also admits them in any other order)."""
_BODIES: Mapping[int, tuple[JSON, ...]] = {
    id(legal): tuple(action.to_json() for action in legal.listed)
    for legal in (NOTHING, _CLOTHING, _RACE, _GUESS, *_AT_JOKER.values())}
"""Each shared :class:`Legal`'s listed bodies, written once: ``legal_actions`` returns a fresh
list of them, which no caller changes (the service serializes them, the bots copy the one they
choose)."""


def _humans_first(state: State, seats: Sequence[int]) -> frozenset[int]:
    """Of ``seats``, the humans if there are any, else the bots (bots act only when no human can)."""
    humans = [s for s in seats if not state.is_bot(s)]
    return frozenset(humans or seats)


class SpeculationEngine(ActionEngine[State, SpeculationAction]):
    """The :class:`ludoteca.core.engine.Engine` of Speculation: ``apply`` comes from
    :class:`~ludoteca.core.actions.ActionEngine`, over :meth:`legal` and :meth:`play`."""

    declaration = DECLARATION
    state_type = State
    actions = ACTIONS
    min_seats = DECLARATION.min_seats
    max_seats = DECLARATION.max_seats

    def max_actions(self, options: Mapping[str, Any], seats: int) -> int:
        """The declared bound (:data:`DECLARATION`)."""
        return DECLARATION.bound(options, seats)

    def dump(self, state: State) -> JSON:
        """The codec's document (:meth:`StateEngine.dump`), its history's guesses each dumped once
        a process (:data:`GUESS_DUMPS`): the same document, the history still its last key."""
        data = codec.dump(evolve(state, history=()))
        data["history"] = GUESS_DUMPS(state.history)
        return data

    def bound(self, state: State) -> int:
        """This game's bound (asked of :meth:`max_actions`, which a test may declare smaller)."""
        return self.max_actions(codec.dump(state.options), len(state.players))

    # -- setup --------------------------------------------------------------------------------
    def new_game(self, players: Sequence[str], options: Mapping[str, Any], rng: Rng) -> State:
        if len(players) != len(SEATS):
            raise FieldValidationError("Speculation is for exactly two players.",
                                       errors={"seats": ["Exactly two seats."]})
        opts = DECLARATION.load_options(options)
        rng = Rng(rng.seed, rng.counter)
        boards = tuple(Board.deal(rng) for _ in SEATS)
        state = State(tuple(players), opts, boards, rng)
        if opts.first_guesser is FirstGuesser.RANDOM:
            first = rng.randbelow(len(SEATS))
            state = evolve(state, phase=Phase.GUESSING, first_guesser=first, guesser=first,
                            decided_by=DecidedBy.RANDOM, rng=rng)
        return state

    # -- who acts, what is legal ----------------------------------------------------------------
    def to_act(self, state: State) -> frozenset[int]:
        if state.phase is Phase.CLOTHING:
            return _humans_first(state, [s for s in SEATS if state.items[s] is None])
        if state.phase is Phase.RACE:
            return _humans_first(state, state.tied)
        if state.phase is Phase.GUESSING and state.guesser is not None:
            return frozenset({state.guesser})
        return frozenset()

    def legal(self, state: State, seat: int) -> Legal[SpeculationAction]:
        """What ``seat`` may post now: a clothing count from 0 to :data:`MAX_ITEMS`; in the race,
        putting on an item; a value of the tier it attacks; at the joker, four values (any, or
        only possible hands: :class:`JokerGuesses`)."""
        phase = state.phase
        if phase is Phase.GUESSING:
            if seat != state.guesser:
                return NOTHING
            if state.boards[opponent(seat)].target is Tier.JOKER:
                return _AT_JOKER[state.options.joker_guesses]
            return _GUESS
        if phase is Phase.OVER or seat not in self.to_act(state):
            return NOTHING
        return _CLOTHING if phase is Phase.CLOTHING else _RACE

    def legal_actions(self, state: State, seat: int) -> list[JSON]:
        """The listed bodies of :meth:`legal` (written once per situation: :data:`_BODIES`)."""
        return list(_BODIES[id(self.legal(state, seat))])

    def action_templates(self, state: State, seat: int) -> list[JSON]:
        """None: Speculation has no free text. The joker's template (every guess of which is
        listed too) is given only by :meth:`compact_listing`."""
        return []

    def compact_listing(self, state: State, seat: int) -> tuple[list[JSON], list[JSON]] | None:
        """``seat``'s listing where it is large, as (actions, templates): at the joker, no body and
        one template with its domain (:mod:`speculation.listing`) instead of the 715 (615) bodies
        :meth:`legal_actions` lists; ``None`` elsewhere (the listing is the one those give).
        Expanded (:func:`speculation.listing.expanded`), it is exactly :meth:`legal_actions`."""
        templates = self.legal(state, seat).templates
        return ([], [template.body for template in templates]) if templates else None

    @staticmethod
    def target(state: State, seat: int) -> Tier:
        """The tier ``seat`` attacks now on its opponent's board."""
        return state.boards[opponent(seat)].target

    # -- refusing -----------------------------------------------------------------------------
    def check_turn(self, state: State, seat: int) -> None:
        """A finished game, then a seat not to act now (saying so when it is a bot waiting for
        the humans)."""
        if state.phase is Phase.OVER:
            raise GameOverError("The game is over.")
        waiting = self.to_act(state)
        if seat not in waiting:
            why = " (bots act once no human can)" if seat in SEATS and state.phase in (
                Phase.CLOTHING, Phase.RACE) and state.is_bot(seat) else ""
            raise NotYourTurnError(f"Seat {seat} is not to act now{why}.", to_act=sorted(waiting))

    def refusal(self, state: State, seat: int, body: object, action: SpeculationAction | None) -> str:
        """Why ``body`` is not legal for the seat to act: a type of another phase, a guess of the
        wrong kind for the tier attacked, or the member its type gets wrong."""
        kind = body.get("type") if isinstance(body, Mapping) else None
        if not isinstance(kind, str) or (state.phase, kind) not in _PHASE_TYPES:
            return f"{kind!r} is not an action of the {state.phase.value} phase."
        members = self.actions.shapes[kind].keys
        if isinstance(body, Mapping) and not body.keys() <= members:
            return f"{kind!r} has no member {next(k for k in body if k not in members)!r}."
        joker = self.target(state, seat) is Tier.JOKER if state.phase is Phase.GUESSING else False
        if kind == ActionType.REPORT_CLOTHING:
            return f"'items' must be a whole number from 0 to {MAX_ITEMS}."
        if kind == ActionType.GUESS:
            return ("The kings are down: guess the joker's four values (guess_joker)." if joker
                    else f"'value' must be a card value from {VALUES[0]} to {VALUES[-1]}.")
        if not joker:
            return "The joker can be guessed only once both kings are down."
        if isinstance(action, GuessJoker) and _AT_JOKER[JokerGuesses.ANY].templates[0].admits(action):
            return "No board holds a value more than twice (joker_guesses: hands)."
        return f"'values' must be {JOKER_SIZE} card values from {VALUES[0]} to {VALUES[-1]}."

    def illegal(self, state: State, seat: int, message: str,
                legal: Legal[SpeculationAction] | None = None) -> IllegalActionError:
        """The refusal with the seat's legal actions; at the joker, where they are 715 (615), only
        their count, where to read them (an error body of ~25 KB helps nobody) and the compact
        listing's template (:meth:`compact_listing`)."""
        legal = self.legal(state, seat) if legal is None else legal
        if len(legal.listed) > MAX_LISTED_IN_ERRORS:
            count = len(legal.listed)
            return IllegalActionError(f"{message} You have {count} legal actions: "
                                      "GET /games/{id}/actions lists them.", legal_count=count,
                                      templates=[template.body for template in legal.templates])
        return IllegalActionError(message, legal=list(_BODIES[id(legal)]))

    # -- playing: ``apply`` (shared) has refused what is not legal; each handler returns its events --
    def play(self, state: State, seat: int, action: SpeculationAction) -> Outcome[State]:
        match action:
            case GuessValue(value=value):
                state, events = self._guess(state, seat, value)
            case GuessJoker(values=values):
                state, events = self._guess_joker(state, seat, normalize(values))
            case ReportClothing(items=items):
                state, events = self._report_clothing(state, seat, items)
            case PutOnItem():
                state, events = self._put_on_item(state, seat)
        return state, events

    # -- the action bound (the rule is ActionEngine.apply's: the action that reaches it ends the game) --
    def over(self, state: State) -> bool:
        return state.phase is Phase.OVER

    @staticmethod
    def actions_taken(state: State) -> int:
        """Actions applied so far: the clothing reports, the item put on in the race, the guesses."""
        if state.decided_by is DecidedBy.RANDOM:
            ritual = 0
        elif state.phase in (Phase.CLOTHING, Phase.RACE):
            ritual = sum(c is not None for c in state.items)
        else:
            ritual = len(SEATS) + (state.decided_by is DecidedBy.RACE)
        return ritual + len(state.history)

    def end_at_bound(self, state: State, seat: int) -> Outcome[State]:
        """Most cards found wins, then the best joker answer; equal on both: nobody."""
        found = self.found_counts(state)
        best = self.best_joker_answers(state)
        ranked = sorted(SEATS, key=lambda s: (found[s], best[s]), reverse=True)
        first, second = ranked
        winner = first if (found[first], best[first]) != (found[second], best[second]) else None
        state = evolve(state, phase=Phase.OVER, guesser=None, winner=winner)
        return state, [Event(EventType.ACTION_BOUND_REACHED, {"actions": self.actions_taken(state), "found": found,
                                                              "best_joker": best, "winner": winner}),
                       _boards_revealed(state)]

    @staticmethod
    def found_counts(state: State) -> list[int]:
        """How many of its opponent's cards each seat has found."""
        return [sum(sum(face) for face in state.boards[opponent(s)].found) for s in SEATS]

    @staticmethod
    def best_joker_answers(state: State) -> list[int]:
        """Each seat's best joker answer so far (0 before any joker guess)."""
        return [max((g.right or 0 for g in state.history if g.seat == s and g.tier is Tier.JOKER), default=0)
                for s in SEATS]

    def _report_clothing(self, state: State, seat: int, n: int) -> Outcome[State]:
        items = list(state.items)
        items[seat] = n
        state = evolve(state, items=tuple(items))
        reported = Event(EventType.CLOTHING_REPORTED, {"seat": seat})
        counts = [c for c in items if c is not None]
        if len(counts) < len(SEATS):
            return state, [reported]
        most = max(counts)
        leaders = [s for s in SEATS if items[s] == most]
        compared = Event(EventType.CLOTHING_COMPARED, {"items": counts, "leaders": leaders})
        if len(leaders) == 1:
            state, started = self._start(state, leaders[0], DecidedBy.CLOTHING)
            return state, [reported, compared, *started]
        state = evolve(state, phase=Phase.RACE, tied=tuple(leaders))
        return state, [reported, compared, Event(EventType.DRESSING_RACE_STARTED, {"seats": leaders})]

    def _put_on_item(self, state: State, seat: int) -> Outcome[State]:
        items = list(state.items)
        items[seat] = (items[seat] or 0) + 1
        state = evolve(state, items=tuple(items), tied=())
        state, started = self._start(state, seat, DecidedBy.RACE)
        return state, [Event(EventType.ITEM_PUT_ON, {"seat": seat}), *started]

    @staticmethod
    def _start(state: State, seat: int, by: DecidedBy) -> Outcome[State]:
        state = evolve(state, phase=Phase.GUESSING, first_guesser=seat, guesser=seat, decided_by=by)
        return state, [Event(EventType.FIRST_GUESSER_CHOSEN, {"seat": seat, "by": by.value})]

    def _guess(self, state: State, seat: int, value: int) -> Outcome[State]:
        tier = self.target(state, seat)
        owner = opponent(seat)
        board = state.boards[owner]
        matches = board.unfound_slots(tier, value)
        if not matches:
            entry = Guess(seat, tier, (value,))
            events = [Event(EventType.VALUE_GUESSED, {"seat": seat, "tier": tier.value, "value": value,
                                                      "answer": Answer.NO.value}),
                      Event(EventType.TURN_PASSED, {"seat": owner})]
            return evolve(state, history=(*state.history, entry), guesser=owner), events
        rng = Rng(state.rng.seed, state.rng.counter)
        slot = matches[rng.randbelow(len(matches))]
        card = board.card_at(slot)
        board = board.reveal([slot])
        face = FACES[slot[0]]
        entry = Guess(seat, tier, (value,), card=card)
        events = [Event(EventType.VALUE_GUESSED, {"seat": seat, "tier": tier.value, "value": value,
                                                  "answer": Answer.YES.value, "card": card, "face": face.card,
                                                  "position": slot[1]})]
        if board.is_down(slot[0]):
            events.append(Event(EventType.FACE_CARD_DOWNED, {"seat": owner, "face": face.card}))
        if board.is_cleared(tier):
            events.append(Event(EventType.TIER_CLEARED, {"seat": owner, "tier": tier.value, "by": seat}))
        boards = tuple(board if s == owner else b for s, b in enumerate(state.boards))
        return evolve(state, boards=boards, rng=rng, history=(*state.history, entry)), events

    def _guess_joker(self, state: State, seat: int, values: tuple[int, ...]) -> Outcome[State]:
        owner = opponent(seat)
        board = state.boards[owner]
        right = score(values, board.tier_values(Tier.JOKER))
        entry = Guess(seat, Tier.JOKER, values, right=right)
        state = evolve(state, history=(*state.history, entry))
        guessed = Event(EventType.JOKER_GUESSED, {"seat": seat, "values": list(values), "right": right})
        if right < JOKER_SIZE:
            return evolve(state, guesser=owner), [guessed, Event(EventType.TURN_PASSED, {"seat": owner})]
        board = board.reveal(list(board.slots(Tier.JOKER)))
        boards = tuple(board if s == owner else b for s, b in enumerate(state.boards))
        state = evolve(state, boards=boards, phase=Phase.OVER, guesser=None, winner=seat)
        return state, [guessed, Event(EventType.GAME_WON, {"seat": seat}), _boards_revealed(state)]

    # -- what a seat sees -----------------------------------------------------------------------
    def view(self, state: State, seat: int | None) -> JSON:
        """Every part of :data:`VIEW`, as ``seat`` may see it (:data:`SECRETS`)."""
        return view_of(VIEW, state, seat)

    # -- the end ------------------------------------------------------------------------------
    def result(self, state: State) -> GameResult | None:
        if state.phase is not Phase.OVER:
            return None
        questions = [sum(1 for g in state.history if g.seat == s and g.tier is not Tier.JOKER) for s in SEATS]
        jokers = [sum(1 for g in state.history if g.seat == s and g.tier is Tier.JOKER) for s in SEATS]
        summary: JSON = {"winner": state.winner, "first_guesser": state.first_guesser,
                         "tier_guesses": questions, "joker_guesses": jokers, "bound": None}
        won = state.winner is not None and bool(state.history) and state.history[-1].right == JOKER_SIZE
        if not won:
            summary["bound"] = {"reached": "actions", "limit": self.bound(state)}
            summary["found"] = self.found_counts(state)
            summary["best_joker"] = self.best_joker_answers(state)
        if state.winner is None:
            return GameResult(winners=SEATS, scores=(0.5, 0.5), summary=summary)
        return GameResult(
            winners=(state.winner,),
            scores=tuple(1.0 if s == state.winner else 0.0 for s in SEATS),
            summary=summary,
        )


# -- what each seat may see ----------------------------------------------------------------------
SEALED_REPORT: Secret[State] = Secret(
    "a seat's clothing report: sealed until both seats have reported",
    lambda state, viewer, owner: viewer == owner or state.phase is not Phase.CLOTHING)
HIDDEN_CARDS: Secret[State] = Secret(
    "the cards of a seat's board not found yet: its owner's until the game is over (found cards are public)",
    lambda state, viewer, owner: viewer == owner or state.phase is Phase.OVER)
SET_ASIDE: Secret[State] = Secret(
    "the four cards a seat's deal set aside: its owner's (he knows them anyway: they are his 20 "
    "black value cards less the 16 on his board), everyone's once the game is over",
    lambda state, viewer, owner: viewer == owner or state.phase is Phase.OVER)
SECRETS: tuple[Secret[State], ...] = (SEALED_REPORT, HIDDEN_CARDS, SET_ASIDE)
"""Everything private in Speculation (the RNG is in no view). The rest is public: who has
reported, the race, the turn, the found cards, both records (they mirror the found cards) and
every guess with its answer."""


def _clothing_view(state: State, viewer: Viewer) -> JSON:
    return {
        "reported": [c is not None for c in state.items],
        "items": [c if SEALED_REPORT.may_see(state, viewer, s) else None for s, c in enumerate(state.items)],
        "tied": list(state.tied),
        "decided_by": None if state.decided_by is None else state.decided_by.value,
    }


def _board_view(state: State, owner: int, viewer: Viewer) -> JSON:
    """``owner``'s board as ``viewer`` sees it (:data:`HIDDEN_CARDS`, :data:`SET_ASIDE`)."""
    board = state.boards[owner]
    return {"owner": owner, "target": _TIER_VALUE[board.target],
            "faces": list(_board_faces(board, HIDDEN_CARDS.may_see(state, viewer, owner))),
            "set_aside": list(board.set_aside) if SET_ASIDE.may_see(state, viewer, owner) else None}


@lru_cache(maxsize=512)
def _board_faces(board: Board, full: bool) -> tuple[JSON, ...]:
    """The faces of ``board`` in a view: every card (``full``) or the found ones only. Built once
    a process per board and kind of view (a board changes only when a guess finds one of its
    cards, and every view shows both boards: building them was most of a view), and shared as
    :class:`PerGuess`'s entries are: read and serialised only. At most 512: the boards of the
    games in play, a few versions each (an entry is ~30 objects that every full collection of the
    garbage collector walks; a miss costs ~20 µs)."""
    faces = []
    for face, tier, row, found_row in zip(FACES, _FACE_TIER_VALUES, board.cards, board.found, strict=True):
        cards = []
        for card, found in zip(row, found_row, strict=True):
            shown = card if full or found else None
            cards.append({"card": shown, "value": None if shown is None else value_of(shown), "found": found})
        faces.append({"card": face.card, "tier": tier, "down": all(found_row), "cards": cards})
    return tuple(faces)


def _record_view(state: State, keeper: int) -> JSON:
    """The record ``keeper`` keeps of the opponent's board (public: it mirrors found cards)."""
    record = record_of(state.boards[opponent(keeper)])
    return {"keeper": keeper,
            "faces": [{"card": f.card, "tier": tier, "cards": list(cards)}
                      for f, tier, cards in zip(RECORD_FACES, _FACE_TIER_VALUES, record.cards, strict=True)],
            "hand": list(record.hand)}


def _guess_view(guess: Guess) -> JSON:
    return {"seat": guess.seat, "tier": _TIER_VALUE[guess.tier], "values": list(guess.values),
            "answer": _ANSWER_VALUE[guess.answer], "card": guess.card, "right": guess.right}


class PerGuess:
    """What one guess becomes in a view or a stored document, built once a process and shared by
    every view or document that lists it (a history holds hundreds of guesses, the same ones from
    move to move: building them was most of a long game's view and dump). Keyed by the guess's
    identity (the codec interns guesses, and a history keeps the ones ``apply`` made), holding the
    guess itself so that its id is never reused while it is here; past :attr:`kept` entries it
    starts again empty (the distinct guesses number about 6,000, and each ``apply`` adds one
    object until the next load interns it: a full cache is about 6 MB). The shared values are never
    changed by anyone: views and documents are read and serialised only.

    A whole history's list is kept too, keyed by its last guess (:attr:`lists`, at most
    :attr:`kept_lists`): the same history again (the other seat's view of a version) is a copy of
    its list, and a history one guess longer than a kept one (the next move's) is that list and one
    entry more. Walking every guess of a long history in Python was still most of a view and of a
    dump (~120 µs at 800 guesses); the comparisons here are tuples' own, in C, each guess found
    by its identity first. Every list returned is a fresh one: only the entries are shared."""

    def __init__(self, build: Callable[[Guess], JSON], kept: int = 10_000, kept_lists: int = 512) -> None:
        self.build = build
        self.kept = kept
        self.built: dict[int, tuple[Guess, JSON]] = {}
        self.kept_lists = kept_lists
        self.lists: dict[int, tuple[tuple[Guess, ...], list[JSON]]] = {}

    def __call__(self, history: tuple[Guess, ...]) -> list[JSON]:
        n = len(history)
        if not n:
            return []
        lists = self.lists
        known = lists.get(id(history[-1]))  # its guess is held by the kept history: the id is its own
        if known is not None and (known[0] is history or known[0] == history):
            return list(known[1])
        before = lists.get(id(history[-2])) if n > 1 else None
        if before is not None and len(before[0]) == n - 1 and before[0] == history[:-1]:
            out = before[1] + self._entries(history[-1:])
        else:
            out = self._entries(history)
        if len(lists) >= self.kept_lists:
            lists.clear()
        lists[id(history[-1])] = (history, out)
        return list(out)

    def _entries(self, guesses: Sequence[Guess]) -> list[JSON]:
        """Each guess's entry, built at its first sight."""
        built, out = self.built, []
        for guess in guesses:
            entry = built.get(id(guess))
            if entry is None or entry[0] is not guess:
                if len(built) >= self.kept:
                    built.clear()
                entry = built[id(guess)] = (guess, self.build(guess))
            out.append(entry[1])
        return out


GUESS_VIEWS = PerGuess(_guess_view)
"""Each guess's entry in the views' ``history``."""
GUESS_DUMPS = PerGuess(codec.dump)
"""Each guess as the stored state lists it (the codec's own form of it)."""


VIEW: tuple[Part[State], ...] = (
    Part("phase", lambda state, viewer: state.phase.value),
    Part("seat", lambda state, viewer: viewer),
    Part("clothing", _clothing_view),
    Part("first_guesser", lambda state, viewer: state.first_guesser),
    Part("guesser", lambda state, viewer: state.guesser),
    Part("winner", lambda state, viewer: state.winner),
    Part("boards", lambda state, viewer: [_board_view(state, s, viewer) for s in SEATS]),
    Part("records", lambda state, viewer: [_record_view(state, s) for s in SEATS]),
    Part("history", lambda state, viewer: GUESS_VIEWS(state.history)),
)
"""Every part of a Speculation view, in order; the private ones read through :data:`SECRETS`."""


def _boards_revealed(state: State) -> Event:
    """Both boards in full, told to everyone once the game is over."""
    assert state.phase is Phase.OVER
    return Event(EventType.BOARDS_REVEALED, {"boards": [_board_view(state, s, None) for s in SEATS]})
