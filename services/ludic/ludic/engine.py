"""The whole game of 2-card Ludic as pure functions (see RULES.md for every call made).

Phases: ``cut`` (everyone cuts, low card is the first Vexer) -> per round: ``rule`` (the Vexer
writes the secret rule) -> ``turn`` (a Seeker queries, plays or draws) / ``guess`` (after a
correct play: guess or pass) / ``final`` (every Seeker is out of cards: guess or pass, one flip
per column each time) / ``choose`` (only with the ``vexer_choices`` option: the Vexer picks a
flip or a hint) -> the round ends (a correct guess, or an initial set flipped) -> scoring, next
Vexer, next round ... -> ``over`` when a ludic player becomes Vexer again (or the round limit).

Work the Vexer owes after an action (place a set, flip a set when a column is full, deal, hint,
end the turn) is queued as :class:`~ludic.state.Step` s and run in order; a step with a choice
pauses the game for the Vexer only when the option asks for it.

Declared as data, as Speculation is: :data:`DECLARATION` (seats, chance, information, the options
type :class:`~ludic.state.LudicOptions`, the bound), :data:`SECRETS` (the rule, a hand, a
Seeker's hints, the Vexer's pending choices, face-down sets) and :data:`VIEW` (every part of a
view, in order, each private one read through those secrets). The state is frozen, changed with
``replace``, and stored by the shared codec (:mod:`ludoteca.core.codec`) in the shape of before it.

Written in the shape of :mod:`ludoteca.core.actions` (Pig's): the actions are typed values
(:class:`Cut`, :class:`WriteRule` ... :class:`ChooseHint`), what a seat may post is stated once
(:meth:`LudicEngine.legal`: the listed actions, and the templates of the free-text ones, a rule
and a guess), and every handler and step returns the new state and its events.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Any, TypeVar

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
    owner_only,
    view_of,
)
from ludoteca.core.errors import FieldValidationError
from ludoteca.core.rng import Rng

from ludic.hints import HintOption, hint_options
from ludic.language import RuleError
from ludic.rules import InitialSets, accept_guess, accept_rule
from ludic.state import (
    MAX_ROUNDS,
    Hint,
    HintSource,
    Json,
    LudicOptions,
    LudicState,
    Phase,
    PlacedSet,
    Round,
    SetKind,
    Step,
    StepKind,
)
from ludic.universe import (
    BREAK,
    BREAK_ACE,
    COLUMNS,
    OBEY,
    OBEY_ACE,
    card_type,
    column_of,
    deck_pile,
    hintbook_pile,
    set_of_codes,
)


class AmbiguousRuleError(FieldValidationError):
    """A rule or guess that can be read more than one way (or is undefined on some sets): the Vexer
    asks for clarification; ``rule_error.readings`` lists the readings to choose from."""

    slug = "ambiguous-rule"
    title = "The rule can be read more than one way: resubmit the reading you mean"


def refused(error: RuleError) -> FieldValidationError:
    """The 422 problem of a refused rule or guess (its ``rule_error`` as ``/rules/check`` reports it)."""
    kind = AmbiguousRuleError if error.reason == "ambiguous" else FieldValidationError
    return kind(str(error), errors={"rule": [str(error)]}, rule_error=error.as_json())

T = TypeVar("T")

HAND = 4
MAX_FACE_UP = 5
ACTIONS_PER_ROUND = 200
MAX_ACTIONS = MAX_ROUNDS * ACTIONS_PER_ROUND
"""No game accepts more actions. A round has at most a few dozen actions (every query, play and
draw uses the deck's or a hand's cards; the last phase flips a set each time), so this is never
reached before :data:`MAX_ROUNDS`; it bounds the cut's ties too."""


class ActionType(StrEnum):
    """The ``type`` of an action body (imperative)."""

    CUT = "cut"
    WRITE_RULE = "write_rule"
    QUERY = "query"
    PLAY = "play"
    DRAW = "draw"
    GUESS = "guess"
    PASS = "pass"
    CHOOSE_FLIP = "choose_flip"
    CHOOSE_HINT = "choose_hint"


# -- the actions: typed values, parsed once from the posted body ---------------------------------
@dataclass(frozen=True)
class Cut(Action, type=ActionType.CUT):
    """Cut a card from the cut deck: the lowest cut becomes the first Vexer."""


@dataclass(frozen=True)
class WriteRule(Action, type=ActionType.WRITE_RULE, free_text=True):
    """The Vexer writes the round's secret rule (turning an initial set around, when the game allows)."""

    rule: str
    turn_obey: bool = False
    turn_break: bool = False


@dataclass(frozen=True)
class Query(Action, type=ActionType.QUERY):
    """Ask where the set of two cards of your hand belongs."""

    top: str
    bottom: str


@dataclass(frozen=True)
class Play(Action, type=ActionType.PLAY):
    """Play the set of two cards of your hand to a column."""

    top: str
    bottom: str
    column: str


@dataclass(frozen=True)
class Draw(Action, type=ActionType.DRAW):
    """Pass and draw (with fewer than four cards, while the deck lasts)."""


@dataclass(frozen=True)
class Guess(Action, type=ActionType.GUESS, free_text=True):
    """Guess the rule."""

    rule: str


@dataclass(frozen=True)
class Pass(Action, type=ActionType.PASS):
    """Do not guess."""


@dataclass(frozen=True)
class ChooseFlip(Action, type=ActionType.CHOOSE_FLIP):
    """The Vexer picks the set to flip."""

    column: str
    top: str
    bottom: str


@dataclass(frozen=True)
class ChooseHint(Action, type=ActionType.CHOOSE_HINT):
    """The Vexer picks the hint to give."""

    top: str
    bottom: str


LudicAction = Cut | WriteRule | Query | Play | Draw | Guess | Pass | ChooseFlip | ChooseHint
ACTIONS: ActionTypes[LudicAction] = ActionTypes(Cut, WriteRule, Query, Play, Draw, Guess, Pass, ChooseFlip,
                                                ChooseHint)
"""Ludic's action types: the one parser of a posted body."""

RULE_TEMPLATE = "<rule>"
WRITE_RULE: Template[LudicAction] = Template(
    {"type": ActionType.WRITE_RULE, "rule": RULE_TEMPLATE},
    lambda action: isinstance(action, WriteRule) and not (action.turn_obey or action.turn_break))
WRITE_RULE_TURNING: Template[LudicAction] = Template(
    {"type": ActionType.WRITE_RULE, "rule": RULE_TEMPLATE, "turn_obey": False, "turn_break": False},
    lambda action: isinstance(action, WriteRule))
GUESS: Template[LudicAction] = Template({"type": ActionType.GUESS, "rule": RULE_TEMPLATE},
                                        lambda action: isinstance(action, Guess))
CUT_ONLY: Legal[LudicAction] = Legal((Cut(),))
PASS_OR_GUESS: Legal[LudicAction] = Legal((Pass(),), (GUESS,))


class EventType(StrEnum):
    """The ``type`` of an event (past tense)."""

    CARD_CUT = "CardCut"
    CUT_TIED = "CutTied"
    VEXER_CHOSEN = "VexerChosen"
    ROUND_STARTED = "RoundStarted"
    HAND_DEALT = "HandDealt"
    RULE_WRITTEN = "RuleWritten"
    RULE_RECORDED = "RuleRecorded"
    SET_QUERIED = "SetQueried"
    SET_PLAYED = "SetPlayed"
    GUESS_MADE = "GuessMade"
    GUESS_PASSED = "GuessPassed"
    VEXER_CHOOSING = "VexerChoosing"
    CARDS_DEALT = "CardsDealt"
    CARDS_RECEIVED = "CardsReceived"
    SET_FLIPPED = "SetFlipped"
    HINT_POINTED = "HintPointed"
    HINT_GIVEN = "HintGiven"
    HINT_RECEIVED = "HintReceived"
    ROUND_ENDED = "RoundEnded"
    PLAYER_BECAME_LUDIC = "PlayerBecameLudic"
    GAME_WON = "GameWon"
    ACTION_BOUND_REACHED = "ActionBoundReached"


class Logged(StrEnum):
    """What an entry of a round's public log records (its ``event``)."""

    QUERY = "query"
    PLAY = "play"
    DRAW = "draw"
    GUESS = "guess"
    PASS = "pass"
    HINT = "hint"
    FLIP = "flip"


class Role(StrEnum):
    """A viewer's part at the table."""

    VEXER = "vexer"
    SEEKER = "seeker"
    SPECTATOR = "spectator"


class Choice(StrEnum):
    """What the Vexer chooses when the game waits on it (option ``vexer_choices``)."""

    HINT = "hint"
    FLIP = "flip"


class EndedBy(StrEnum):
    """How a round ended: a correct guess, or an initial set flipped."""

    GUESS = "guess"
    FLIP = "flip"


class Bound(StrEnum):
    """Which declared bound ended a game (``summary["bound"]["reached"]``)."""

    ACTIONS = "actions"
    ROUNDS = "rounds"


def _choice_kind(step: Step) -> Choice:
    return Choice.HINT if step.do is StepKind.HINT else Choice.FLIP


def _audience(*seats: int) -> frozenset[int]:
    return frozenset(seats)


def _without(items: tuple[T, ...], *gone: T) -> tuple[T, ...]:
    """``items`` less one of each of ``gone`` (each is there)."""
    kept = list(items)
    for item in gone:
        kept.remove(item)
    return tuple(kept)


REFUSALS: dict[str, str] = {
    ActionType.CUT: "the cut is over",
    ActionType.WRITE_RULE: "this game does not let the Vexer turn the initial sets",
    ActionType.QUERY: "a set is built from two different cards of your hand",
    ActionType.PLAY: "a set is built from two different cards of your hand, played to the 'obey' or the 'break' "
                     "column",
    ActionType.DRAW: "you may pass and draw only with fewer than 4 cards, while the deck lasts",
    ActionType.CHOOSE_FLIP: "choose one of the listed options",
    ActionType.CHOOSE_HINT: "choose one of the listed options",
}
"""What a 409 says of an action of a known type refused in a phase that has it (the refusal's
message only: :meth:`LudicEngine.legal` decides)."""

PHASES: dict[str, tuple[Phase, ...]] = {
    ActionType.CUT: (Phase.CUT,), ActionType.WRITE_RULE: (Phase.RULE,), ActionType.QUERY: (Phase.TURN,),
    ActionType.PLAY: (Phase.TURN,), ActionType.DRAW: (Phase.TURN,), ActionType.GUESS: (Phase.GUESS, Phase.FINAL),
    ActionType.PASS: (Phase.GUESS, Phase.FINAL), ActionType.CHOOSE_FLIP: (Phase.CHOOSE,),
    ActionType.CHOOSE_HINT: (Phase.CHOOSE,),
}
"""The phases each action type belongs to (for a refusal's message)."""


@lru_cache(maxsize=4096)
def turn_actions(hand: tuple[str, ...], deck: bool) -> Legal[LudicAction]:
    """A Seeker's turn with ``hand`` (``deck``: cards left in the deck): a query of every ordered
    pair of its cards while the deck lasts, a play of every pair to either column, a draw with
    fewer than :data:`HAND` cards while the deck lasts."""
    pairs = [(a, b) for a in hand for b in hand if a != b]
    listed: list[LudicAction] = [Query(a, b) for a, b in pairs] if deck else []
    listed += [Play(a, b, c) for a, b in pairs for c in COLUMNS]
    if deck and len(hand) < HAND:
        listed.append(Draw())
    return Legal(tuple(listed))


def _max_actions(options: LudicOptions, seats: int) -> int:
    return MAX_ACTIONS


DECLARATION: Declaration[LudicOptions] = Declaration(
    min_seats=3, max_seats=5, chance=Chance.SEEDED, information=Information.IMPERFECT,
    options=LudicOptions, max_actions=_max_actions,
)
"""Ludic: 3 to 5 seats; the cut, the deals and the hints the server picks come from the game's
RNG; the rule is the Vexer's, each hand and hint its Seeker's, the deck nobody's; the bound is
:data:`MAX_ACTIONS` actions (and :data:`MAX_ROUNDS` rounds)."""


class LudicEngine(ActionEngine[LudicState, LudicAction]):
    """The Engine of 2-card Ludic for 3 to 5 seats (:data:`DECLARATION`).

    Every handler takes the state and returns a new one (``replace``); none changes what it is
    given. ``apply`` gives them their own copy of the RNG, the only mutable part of a state."""

    declaration = DECLARATION
    state_type = LudicState
    actions = ACTIONS
    min_seats = DECLARATION.min_seats
    max_seats = DECLARATION.max_seats

    def max_actions(self, options: Mapping[str, Any], seats: int) -> int:
        """The declared bound (:data:`DECLARATION`): no game accepts more than :data:`MAX_ACTIONS`."""
        return DECLARATION.bound(options, seats)

    def bound(self, state: LudicState) -> int:
        """This game's bound (asked of :meth:`max_actions`, which a test may declare smaller)."""
        return self.max_actions(codec.dump(state.options), state.seats)

    # ---- setup -----------------------------------------------------------------------------------
    def new_game(self, players: Sequence[str], options: Mapping[str, Any], rng: Rng) -> LudicState:
        if not self.min_seats <= len(players) <= self.max_seats:
            raise FieldValidationError("Ludic is played by 3 to 5 players",
                                       errors={"seats": ["Ludic is played by 3 to 5 players"]})
        opts = DECLARATION.load_options(options)
        rng = Rng(rng.seed, rng.counter)
        seats = len(players)
        return LudicState(players=tuple(players), options=opts, rng=rng, scores=(0,) * seats,
                          cut_deck=tuple(rng.shuffled(deck_pile())), cut_pending=tuple(range(seats)))

    # ---- who acts, what is legal -------------------------------------------------------------------
    def to_act(self, state: LudicState) -> frozenset[int]:
        if state.phase is Phase.OVER:
            return frozenset()
        if state.phase is Phase.CUT:
            return frozenset(state.cut_pending)
        assert state.round is not None
        if state.phase in (Phase.RULE, Phase.CHOOSE):
            return frozenset({state.round.vexer})
        return frozenset({state.round.turn}) if state.round.turn is not None else frozenset()

    def legal(self, state: LudicState, seat: int) -> Legal[LudicAction]:
        """What ``seat`` may post now, the one statement of it: the cut; the rule (a template);
        a Seeker's queries, plays and draw (:func:`turn_actions`); pass or guess (a template);
        the Vexer's choices."""
        phase = state.phase
        if phase is Phase.OVER:
            return NOTHING
        if phase is Phase.CUT:
            return CUT_ONLY if seat in state.cut_pending else NOTHING
        round_ = state.round
        assert round_ is not None
        if seat != (round_.vexer if phase in (Phase.RULE, Phase.CHOOSE) else round_.turn):  # to_act's seat
            return NOTHING
        if state.phase is Phase.RULE:
            return Legal((), (WRITE_RULE_TURNING if state.options.turn_initial_sets else WRITE_RULE,))
        if state.phase is Phase.CHOOSE:
            return Legal(tuple(self._choice(option) for option in self._step_options(round_, round_.steps[0])))
        if state.phase in (Phase.GUESS, Phase.FINAL):
            return PASS_OR_GUESS
        if state.phase is not Phase.TURN:
            return NOTHING
        return turn_actions(round_.hands[seat], bool(round_.deck))

    def refusal(self, state: LudicState, seat: int, body: object, action: LudicAction | None) -> str:
        kind = body.get("type") if isinstance(body, Mapping) else None
        if not isinstance(kind, str) or kind not in PHASES:
            return f"unknown action type {kind!r}"
        if state.phase not in PHASES[kind]:
            return REFUSALS[kind] if kind == ActionType.CUT else f"not allowed in the {state.phase.value!r} phase"
        if action is None:
            return f"not a {kind} action: see the listed actions and templates for its members"
        if isinstance(action, Query) and state.round is not None and not state.round.deck:
            return "no queries once the deck has run out: play to a column"
        return REFUSALS.get(kind, "that action is not legal now")

    # ---- apply: the shared ActionEngine has refused what is not legal; each handler returns its events ----
    def play(self, state: LudicState, seat: int, action: LudicAction) -> Outcome[LudicState]:
        counted = evolve(state, rng=Rng(state.rng.seed, state.rng.counter), actions=state.actions + 1)
        match action:
            case Cut():
                new, events = self._cut(counted, seat)
            case WriteRule():
                new, events = self._write_rule(counted, seat, action)
            case Query():
                new, events = self._query(counted, seat, action)
            case Play():
                new, events = self._play(counted, seat, action)
            case Draw():
                new, events = self._draw(counted, seat)
            case Guess():
                new, events = self._guess(counted, seat, action)
            case Pass():
                new, events = self._pass(counted, seat)
            case ChooseFlip() | ChooseHint():
                new, events = self._choose(counted, action)
        return new, events

    # -- the action bound (the rule is ActionEngine.apply's: the action that reaches it ends the game) --
    def over(self, state: LudicState) -> bool:
        return state.phase is Phase.OVER

    def actions_taken(self, state: LudicState) -> int:
        return state.actions

    def end_at_bound(self, state: LudicState, seat: int) -> Outcome[LudicState]:
        """The round in progress is dropped; the highest score wins."""
        best = max(state.scores)
        new, won = self._finish(state, [s for s in range(state.seats) if state.scores[s] == best])
        return new, [Event(EventType.ACTION_BOUND_REACHED, {"actions": new.actions}), *won]

    # ---- the cut -----------------------------------------------------------------------------------------
    def _cut(self, state: LudicState, seat: int) -> Outcome[LudicState]:
        deck = list(state.cut_deck)
        card = deck.pop(state.rng.randbelow(len(deck)))
        attempt = state.cut_attempt
        pending = _without(state.cut_pending, seat)
        state = evolve(state, cut_deck=tuple(deck), cut_pending=pending,
                       cuts=(*state.cuts, {"seat": seat, "card": card, "attempt": attempt}))
        events = [Event(EventType.CARD_CUT, {"seat": seat, "card": card})]
        if pending:
            return state, events
        current = [c for c in state.cuts if c["attempt"] == attempt]
        low = min(card_type(c["card"]).rank for c in current)
        lowest = sorted(c["seat"] for c in current if card_type(c["card"]).rank == low)
        if len(lowest) > 1:
            events.append(Event(EventType.CUT_TIED, {"seats": lowest}))
            return evolve(state, cut_pending=tuple(lowest), cut_attempt=attempt + 1,
                          cut_deck=tuple(state.rng.shuffled(deck_pile()))), events
        vexer, token = lowest[0], (lowest[0] + 1) % state.seats
        events.append(Event(EventType.VEXER_CHOSEN, {"vexer": vexer, "token": token}))
        state, started = self._start_round(evolve(state, vexer=vexer, token=token, cut_deck=()))
        return state, events + started

    # ---- a round ---------------------------------------------------------------------------------------
    def _start_round(self, state: LudicState) -> Outcome[LudicState]:
        assert state.vexer is not None
        deck = state.rng.shuffled(deck_pile())
        seekers = state.seekers()
        dealt: dict[int, list[str]] = {s: [] for s in seekers}
        for _ in range(HAND):
            for s in seekers:
                dealt[s].append(deck.pop(0))
        obey = PlacedSet(deck.pop(0), deck.pop(0), SetKind.INITIAL, None)
        broken = PlacedSet(deck.pop(0), deck.pop(0), SetKind.INITIAL, None)
        hands = {s: tuple(h) for s, h in dealt.items()}
        round_ = Round(number=len(state.rounds) + 1, vexer=state.vexer, deck=tuple(deck),
                       hintbook=tuple(hintbook_pile()), hands=hands, columns={OBEY: (obey,), BREAK: (broken,)},
                       hints={s: () for s in seekers})
        events = [Event(EventType.ROUND_STARTED, {
            "round": round_.number, "vexer": state.vexer, "token": state.token,
            "initial_sets": {OBEY: {"top": obey.top, "bottom": obey.bottom},
                             BREAK: {"top": broken.top, "bottom": broken.bottom}},
            "hand_counts": {str(s): len(h) for s, h in hands.items()}, "deck_count": len(deck)})]
        events += [Event(EventType.HAND_DEALT, {"seat": s, "cards": list(hand)}, _audience(s))
                   for s, hand in hands.items()]
        return evolve(state, round=round_, phase=Phase.RULE), events

    def _write_rule(self, state: LudicState, seat: int, action: WriteRule) -> Outcome[LudicState]:
        round_ = state.round
        assert round_ is not None
        turns = {OBEY: action.turn_obey, BREAK: action.turn_break}
        initial = {c: round_.initial(c) for c in COLUMNS}
        oriented = {c: (s.bottom, s.top) if turns[c] else (s.top, s.bottom) for c, s in initial.items()}
        sets = InitialSets(set_of_codes(*oriented[OBEY]), set_of_codes(*oriented[BREAK]))
        try:
            table = accept_rule(action.rule, sets)
        except RuleError as error:
            raise refused(error) from None
        columns = {c: (evolve(initial[c], top=top, bottom=bottom), *round_.columns[c][1:])
                   for c, (top, bottom) in oriented.items()}
        events = [Event(EventType.RULE_WRITTEN, {"turned": [c for c in COLUMNS if turns[c]],
                                                 "initial_sets": {c: {"top": t, "bottom": b}
                                                                  for c, (t, b) in oriented.items()}}),
                  Event(EventType.RULE_RECORDED, {"rule": action.rule}, _audience(seat))]
        round_ = evolve(round_, columns=columns, rule=action.rule, rule_obey=format(table.obey, "x"),
                        turn=state.seekers()[0])
        return evolve(state, round=round_, phase=Phase.TURN), events

    # ---- a Seeker's turn -------------------------------------------------------------------------------
    @staticmethod
    def _take_pair(round_: Round, seat: int, top: str, bottom: str) -> Round:
        """The round with the two cards of the set ``seat`` builds out of its hand."""
        return evolve(round_, hands={**round_.hands, seat: _without(round_.hands[seat], top, bottom)})

    def _query(self, state: LudicState, seat: int, action: Query) -> Outcome[LudicState]:
        assert state.round is not None
        top, bottom = action.top, action.bottom
        round_ = self._take_pair(state.round, seat, top, bottom)
        column = column_of(bool(round_.obey_mask >> set_of_codes(top, bottom) & 1))
        entry = {"event": Logged.QUERY.value, "seat": seat, "top": top, "bottom": bottom, "column": column}
        queried = Event(EventType.SET_QUERIED, {"seat": seat, "top": top, "bottom": bottom, "column": column})
        steps = (Step(StepKind.PLACE, seat, column, top, bottom, SetKind.QUERY), Step(StepKind.DEAL, seat),
                 Step(StepKind.END_TURN))
        state, done = self._run(evolve(state, round=evolve(round_, log=(*round_.log, entry), steps=steps)))
        return state, [queried, *done]

    def _play(self, state: LudicState, seat: int, action: Play) -> Outcome[LudicState]:
        assert state.round is not None
        top, bottom, chosen = action.top, action.bottom, action.column
        round_ = self._take_pair(state.round, seat, top, bottom)
        column = column_of(bool(round_.obey_mask >> set_of_codes(top, bottom) & 1))
        correct = chosen == column
        entry = {"event": Logged.PLAY.value, "seat": seat, "top": top, "bottom": bottom, "column": column,
                 "correct": correct}
        played = Event(EventType.SET_PLAYED, {"seat": seat, "top": top, "bottom": bottom, "chosen": chosen,
                                              "column": column, "correct": correct})
        steps: tuple[Step, ...]
        if correct:
            steps = (Step(StepKind.PLACE, seat, column, top, bottom, SetKind.PLAY), Step(StepKind.DEAL, seat),
                     Step(StepKind.MAY_GUESS, seat))
        else:
            steps = (Step(StepKind.PLACE, seat, column, top, bottom, SetKind.MISPLAY), Step(StepKind.END_TURN))
        state, done = self._run(evolve(state, round=evolve(round_, log=(*round_.log, entry), steps=steps)))
        return state, [played, *done]

    def _draw(self, state: LudicState, seat: int) -> Outcome[LudicState]:
        round_ = state.round
        assert round_ is not None
        round_ = evolve(round_, log=(*round_.log, {"event": Logged.DRAW.value, "seat": seat}),
                        steps=(Step(StepKind.DEAL, seat), Step(StepKind.END_TURN)))
        return self._run(evolve(state, round=round_))

    def _guess(self, state: LudicState, seat: int, action: Guess) -> Outcome[LudicState]:
        round_ = state.round
        assert round_ is not None
        text = action.rule
        try:
            guess = accept_guess(text)
        except RuleError as error:
            raise refused(error) from None
        correct = guess.obey == round_.obey_mask
        round_ = evolve(round_, log=(*round_.log, {"event": Logged.GUESS.value, "seat": seat, "rule": text,
                                                   "correct": correct}))
        made = Event(EventType.GUESS_MADE, {"seat": seat, "rule": text, "correct": correct})
        if correct:
            state, ended = self._end_round(evolve(state, round=round_), guesser=seat, guess=text)
            return state, [made, *ended]
        hint = Step(StepKind.HINT, seat, guess=text, guess_obey=format(guess.obey, "x"))
        round_ = evolve(round_, steps=(*self._last_phase_flips(state), hint, Step(StepKind.END_TURN)))
        state, done = self._run(evolve(state, round=round_))
        return state, [made, *done]

    def _pass(self, state: LudicState, seat: int) -> Outcome[LudicState]:
        round_ = state.round
        assert round_ is not None
        passed = Event(EventType.GUESS_PASSED, {"seat": seat})
        if state.phase is Phase.FINAL:
            steps = (*self._last_phase_flips(state), Step(StepKind.HINT, seat), Step(StepKind.END_TURN))
        else:
            steps = (Step(StepKind.END_TURN),)
        round_ = evolve(round_, log=(*round_.log, {"event": Logged.PASS.value, "seat": seat}), steps=steps)
        state, done = self._run(evolve(state, round=round_))
        return state, [passed, *done]

    @staticmethod
    def _last_phase_flips(state: LudicState) -> tuple[Step, ...]:
        return tuple(Step(StepKind.FLIP, column=c) for c in COLUMNS) if state.phase is Phase.FINAL else ()

    def _choose(self, state: LudicState, action: ChooseFlip | ChooseHint) -> Outcome[LudicState]:
        round_ = state.round
        assert round_ is not None
        picked = next(o for o in self._step_options(round_, round_.steps[0]) if self._choice(o) == action)
        return self._run(state, picked)

    # ---- the Vexer's work queue ----------------------------------------------------------------------
    @staticmethod
    def _step_options(round_: Round, step: Step) -> Sequence[Any]:
        """The choices a step offers (empty when it has none)."""
        if step.do in (StepKind.PLACE, StepKind.FLIP):
            assert step.column is not None
            face_up = round_.face_up(step.column)
            if step.do is StepKind.PLACE and len(face_up) < MAX_FACE_UP:
                return []
            return [(step.column, s) for s in face_up if not s.is_initial]
        if step.do is StepKind.HINT:
            return hint_options(round_, int(step.guess_obey, 16) if step.guess_obey else None)
        return []

    @staticmethod
    def _choice(option: Any) -> ChooseFlip | ChooseHint:
        """The Vexer's action that picks ``option`` (a hint, or a column's set to flip)."""
        if isinstance(option, HintOption):
            return ChooseHint(option.top, option.bottom)
        column, placed = option
        return ChooseFlip(column, placed.top, placed.bottom)

    @staticmethod
    def _bot_hints(state: LudicState, step: Step) -> bool:
        """A bot Vexer always chooses its hints (the text lets the Vexer choose; the random bot
        picks at random, the others the one that tells least, see bots.py); a human one only with
        ``vexer_choices``."""
        assert state.round is not None
        return step.do is StepKind.HINT and state.players[state.round.vexer].startswith("bot:")

    def _run(self, state: LudicState, chosen: Any = None) -> Outcome[LudicState]:
        """Do the queued steps of this round in order, pausing for the Vexer when the option asks
        for it (a step that ends the round leaves the rest undone)."""
        assert state.round is not None
        number = state.round.number
        events: list[Event] = []
        while state.round is not None and state.round.number == number and state.round.steps:
            round_ = state.round
            step = round_.steps[0]
            options = self._step_options(round_, step)
            choice = chosen
            chosen = None
            if choice is None and len(options) > 1 and (state.options.vexer_choices or self._bot_hints(state, step)):
                events.append(Event(EventType.VEXER_CHOOSING, {"kind": _choice_kind(step).value}))
                return evolve(state, phase=Phase.CHOOSE), events
            if choice is None and options:
                choice = state.rng.choice(options) if step.do is StepKind.HINT else options[0]
            state, done = self._do(state, evolve(round_, steps=round_.steps[1:]), step, choice)
            events += done
        return state, events

    def _do(self, state: LudicState, round_: Round, step: Step, choice: Any) -> Outcome[LudicState]:
        """``step`` done in ``round_`` (the state's round, the step taken off its queue)."""
        if step.do is StepKind.PLACE:
            assert step.column and step.top and step.bottom and step.kind
            events: list[Event] = []
            if choice is not None:
                round_, events = self._flip(round_, choice)
            placed = PlacedSet(step.top, step.bottom, step.kind, step.seat)
            columns = {**round_.columns, step.column: (*round_.columns[step.column], placed)}
            return evolve(state, round=evolve(round_, columns=columns)), events
        if step.do is StepKind.FLIP:
            assert step.column is not None
            if choice is None:
                round_, flipped = self._flip(round_, (step.column, round_.initial(step.column)))
                state, ended = self._end_round(evolve(state, round=round_))
                return state, flipped + ended
            round_, flipped = self._flip(round_, choice)
            return evolve(state, round=round_), flipped
        if step.do is StepKind.DEAL:
            assert step.seat is not None
            count = min(2, len(round_.deck))
            cards = list(round_.deck[:count])
            hands = {**round_.hands, step.seat: (*round_.hands[step.seat], *cards)}
            round_ = evolve(round_, deck=round_.deck[count:], hands=hands)
            if not cards:
                return evolve(state, round=round_), []
            return evolve(state, round=round_), [
                Event(EventType.CARDS_DEALT, {"seat": step.seat, "count": len(cards), "deck_count": len(round_.deck)}),
                Event(EventType.CARDS_RECEIVED, {"seat": step.seat, "cards": cards}, _audience(step.seat))]
        if step.do is StepKind.HINT:
            round_, hinted = self._hint(round_, step, choice)
            return evolve(state, round=round_), hinted
        if step.do is StepKind.MAY_GUESS:
            return evolve(state, round=round_, phase=Phase.GUESS), []
        return self._end_turn(state, round_), []

    @staticmethod
    def _flip(round_: Round, choice: tuple[str, PlacedSet]) -> tuple[Round, list[Event]]:
        column, placed = choice
        sets = round_.columns[column]
        at = next(i for i, s in enumerate(sets) if s.face_up and s.top == placed.top and s.bottom == placed.bottom)
        target = sets[at]
        columns = {**round_.columns, column: (*sets[:at], evolve(target, face_up=False), *sets[at + 1:])}
        entry = {"event": Logged.FLIP.value, "column": column, "top": target.top, "bottom": target.bottom}
        flipped = Event(EventType.SET_FLIPPED, {"column": column, "top": target.top, "bottom": target.bottom,
                                                "initial": target.is_initial})
        return evolve(round_, columns=columns, log=(*round_.log, entry)), [flipped]

    @staticmethod
    def _hint(round_: Round, step: Step, option: HintOption) -> tuple[Round, list[Event]]:
        assert step.seat is not None
        seat = step.seat
        hint = Hint(option.source, option.top, option.bottom, option.obeys, step.guess)
        hints = {**round_.hints, seat: (*round_.hints.get(seat, ()), hint)}
        if option.source is HintSource.COLUMN:
            entry: JSON = {"event": Logged.HINT.value, "seat": seat, "source": option.source.value,
                           "column": option.column, "top": option.top, "bottom": option.bottom}
            pointed = Event(EventType.HINT_POINTED, {"seat": seat, "column": option.column, "top": option.top,
                                                     "bottom": option.bottom})
            return evolve(round_, hints=hints, log=(*round_.log, entry)), [pointed]
        hintbook = round_.hintbook
        if option.source is HintSource.HINTBOOK:
            hintbook = _without(hintbook, option.top, option.bottom)
        entry = {"event": Logged.HINT.value, "seat": seat, "source": option.source.value}
        events = [Event(EventType.HINT_GIVEN, {"seat": seat, "source": option.source.value}),
                  Event(EventType.HINT_RECEIVED, {"seat": seat, "source": option.source.value, "top": option.top,
                                                  "bottom": option.bottom, "obeys": option.obeys}, _audience(seat))]
        return evolve(round_, hints=hints, hintbook=hintbook, log=(*round_.log, entry)), events

    @staticmethod
    def _end_turn(state: LudicState, round_: Round) -> LudicState:
        assert round_.turn is not None
        seekers = state.seekers()
        at = seekers.index(round_.turn)
        order = seekers[at + 1:] + seekers[: at + 1]
        if not round_.deck and not any(round_.hands[s] for s in seekers):
            return evolve(state, phase=Phase.FINAL, round=evolve(round_, last_phase=True, turn=order[0]))
        if not round_.deck:
            return evolve(state, phase=Phase.TURN,
                           round=evolve(round_, turn=next(s for s in order if round_.hands[s])))
        return evolve(state, phase=Phase.TURN, round=evolve(round_, turn=order[0]))

    # ---- end of a round ----------------------------------------------------------------------------------
    def _end_round(self, state: LudicState, guesser: int | None = None,
                   guess: str | None = None) -> Outcome[LudicState]:
        round_ = state.round
        assert round_ is not None and state.vexer is not None
        vexer = state.vexer
        zero_reason = None
        if guesser is None:
            zero_reason = "an initial set was flipped"
        elif any(len(round_.columns[c]) == 1 for c in COLUMNS):
            zero_reason = "a column holds nothing but its initial set"
        points = 0 if zero_reason else sum(len(round_.face_up(c)) for c in COLUMNS)
        scores = tuple(score + points if s == vexer else score for s, score in enumerate(state.scores))
        became_ludic = scores[vexer] >= state.target and vexer not in state.ludic
        ludic = (*state.ludic, vexer) if became_ludic else state.ludic
        token = state.token
        if guesser is not None:
            new_vexer = guesser
            if token == guesser:
                token = (guesser + 1) % state.seats
        else:
            assert token is not None
            new_vexer = token
            token = (new_vexer + 1) % state.seats
        summary = {
            "round": round_.number, "vexer": vexer, "rule": round_.rule,
            "ended_by": (EndedBy.FLIP if guesser is None else EndedBy.GUESS).value,
            "guesser": guesser, "guess": guess, "points": points, "zero_reason": zero_reason,
            "columns": {c: [{"top": s.top, "bottom": s.bottom, "face_up": s.face_up, "initial": s.is_initial}
                            for s in round_.columns[c]] for c in COLUMNS},
            "next_vexer": new_vexer,
        }
        events = [Event(EventType.ROUND_ENDED, summary)]
        if became_ludic:
            events.append(Event(EventType.PLAYER_BECAME_LUDIC, {"seat": vexer, "score": scores[vexer]}))
        state = evolve(state, scores=scores, ludic=ludic, token=token, vexer=new_vexer,
                        rounds=(*state.rounds, summary), round=evolve(round_, steps=()))
        limit = state.options.round_limit
        if new_vexer in state.ludic:
            state, won = self._finish(state, [new_vexer])
        elif (limit and len(state.rounds) >= limit) or len(state.rounds) >= MAX_ROUNDS:
            best = max(state.scores)
            state, won = self._finish(state, [s for s in range(state.seats) if state.scores[s] == best])
        else:
            state, won = self._start_round(state)
        return state, events + won

    @staticmethod
    def _finish(state: LudicState, winners: list[int]) -> Outcome[LudicState]:
        won = Event(EventType.GAME_WON, {"winners": winners, "scores": list(state.scores)})
        return evolve(state, phase=Phase.OVER, winners=tuple(winners), round=None), [won]

    # ---- views -------------------------------------------------------------------------------------------
    def view(self, state: LudicState, seat: int | None) -> JSON:
        """Every part of :data:`VIEW`, as ``seat`` may see it (:data:`SECRETS`)."""
        return view_of(VIEW, state, seat)

    # ---- result & codec -------------------------------------------------------------------------------
    def result(self, state: LudicState) -> GameResult | None:
        if state.phase is not Phase.OVER:
            return None
        last = state.rounds[-1] if state.rounds else None
        by_ludic = last is not None and last["next_vexer"] in state.ludic and state.winners == (last["next_vexer"],)
        bound: JSON | None = None
        cap = self.bound(state)
        if state.actions >= cap:
            bound = {"reached": Bound.ACTIONS.value, "limit": cap}
            won_by = f"the action bound ({cap} actions; the round in progress dropped): the highest score wins"
        elif by_ludic:
            won_by = "a ludic player became Vexer again (the text's win: scores only decide who is ludic)"
        elif state.options.round_limit and len(state.rounds) >= state.options.round_limit:
            won_by = "the round limit: the highest score wins"
        else:
            bound = {"reached": Bound.ROUNDS.value, "limit": MAX_ROUNDS}
            won_by = f"the round bound ({MAX_ROUNDS} rounds, nobody ludic made Vexer again): the highest score wins"
        return GameResult(tuple(state.winners), tuple(float(s) for s in state.scores),
                          {"scores": list(state.scores), "ludic": sorted(state.ludic),
                           "rounds": len(state.rounds), "won_by": won_by, "bound": bound})


# ---- what each seat may see ----------------------------------------------------------------------
RULE: Secret[LudicState] = Secret(
    "the round's rule: its Vexer's (everyone reads it in the round's summary once the round is over)",
    owner_only)
HAND_CARDS: Secret[LudicState] = Secret(
    "a Seeker's hand: its own (everyone sees how many cards it holds)",
    owner_only)
HINTS: Secret[LudicState] = Secret(
    "the hints a Seeker was given: its own (everyone sees how many, and which sets were pointed to)",
    owner_only)
CHOICES: Secret[LudicState] = Secret(
    "the choices the Vexer has when the game waits on it (the hints it may give tell of the rule): its own",
    owner_only)
FACE_DOWN: Secret[LudicState] = Secret(
    "a set flipped face down: nobody's to see in the columns (the round's log still records it)",
    lambda state, viewer, owner: False)
SECRETS: tuple[Secret[LudicState], ...] = (RULE, HAND_CARDS, HINTS, CHOICES, FACE_DOWN)
"""Everything private in Ludic that a view reads; the deck's order, the cut deck and the RNG are
in no view at all (only the deck's and the hintbook's counts). The rest is public: the cut,
scores, the token, the columns' face-up sets, the log, the round summaries."""


def _role(state: LudicState, viewer: Viewer) -> str:
    if viewer is None:
        return Role.SPECTATOR.value
    return (Role.VEXER if viewer == state.vexer else Role.SEEKER).value


def _per_seat(state: LudicState, held: Callable[[Round], Mapping[int, tuple[Any, ...]]]) -> list[int]:
    """How many things (cards, hints) each seat holds (0 for the Vexer, and when no round is on)."""
    counts = [0] * state.seats
    if state.round is not None:
        for seat, things in held(state.round).items():
            counts[seat] = len(things)
    return counts


def _own(state: LudicState, viewer: Viewer, secret: Secret[LudicState]) -> Round | None:
    """The round in progress when ``viewer`` is one of its Seekers and may see its own ``secret``."""
    rnd = state.round
    if rnd is None or viewer is None or viewer not in rnd.hands or not secret.may_see(state, viewer, viewer):
        return None
    return rnd


def _hand(state: LudicState, viewer: Viewer) -> list[str] | None:
    """The viewer's own hand (:data:`HAND_CARDS`), ``None`` for the Vexer and spectators."""
    rnd = _own(state, viewer, HAND_CARDS)
    return None if rnd is None or viewer is None else list(rnd.hands[viewer])


def _hints(state: LudicState, viewer: Viewer) -> list[JSON]:
    """The viewer's own hints (:data:`HINTS`)."""
    rnd = _own(state, viewer, HINTS)
    if rnd is None or viewer is None:
        return []
    return [{"source": h.source.value, "top": h.top, "bottom": h.bottom, "obeys": h.obeys, "guess": h.guess}
            for h in rnd.hints.get(viewer, ())]


def _placed_view(state: LudicState, rnd: Round, placed: PlacedSet, viewer: Viewer) -> JSON:
    if not placed.face_up and not FACE_DOWN.may_see(state, viewer, rnd.vexer):
        return {"face_up": False, "initial": placed.is_initial, "top": None, "bottom": None, "kind": None,
                "seat": None}
    return {"face_up": placed.face_up, "initial": placed.is_initial, "top": placed.top, "bottom": placed.bottom,
            "kind": placed.kind.value, "seat": placed.seat}


def _columns(state: LudicState, viewer: Viewer) -> JSON:
    rnd = state.round
    if rnd is None:
        return {c: [] for c in COLUMNS}
    return {c: [_placed_view(state, rnd, s, viewer) for s in rnd.columns[c]] for c in COLUMNS}


def _rule(state: LudicState, viewer: Viewer) -> str | None:
    rnd = state.round
    return rnd.rule if rnd is not None and RULE.may_see(state, viewer, rnd.vexer) else None


def _pending(state: LudicState, viewer: Viewer) -> JSON | None:
    """What the game waits on in the ``choose`` phase; the choices themselves are the Vexer's
    (:data:`CHOICES`)."""
    rnd = state.round
    if state.phase is not Phase.CHOOSE or rnd is None:
        return None
    step = rnd.steps[0]
    options = None
    if CHOICES.may_see(state, viewer, rnd.vexer):
        options = [LudicEngine._choice(o).to_json() for o in LudicEngine._step_options(rnd, step)]
    return {"kind": _choice_kind(step).value, "seat": step.seat, "options": options}


def _summary_copy(summary: Mapping[str, Any]) -> JSON:
    """A round's summary for a view, a copy of its own (of the shape :meth:`LudicEngine._end_round`
    writes: flat values and ``columns``, lists of flat sets). ``copy.deepcopy`` did the same and
    was four fifths of a long game's time: every view copies every past round."""
    return {**summary, "columns": {c: [dict(s) for s in sets] for c, sets in summary["columns"].items()}}


class Summaries:
    """The rounds' summaries of a view (:func:`_summary_copy` each), kept per ``rounds`` tuple: a
    state's ``rounds`` is the same tuple from move to move until a round ends (``evolve`` keeps
    it), and then the same one and a summary more; copying every past round's summary again was
    four fifths of a view (~250 µs at 30 rounds, and a random table ends a round every ten
    moves or so). A tuple's copies are kept under its last summary's identity (holding the tuple,
    so that no other object has that id while it is here): the same tuple again is a copy of its
    list, a tuple one summary longer than a kept one is its list and one copy more. The copies
    are shared by the views (read and serialised only), never with the state; every list
    returned is a fresh one. At most :attr:`kept` tuples, the oldest dropped first: the games in
    play (a round's copies are a few objects the garbage collector walks; its sets' flat dicts
    are not tracked)."""

    def __init__(self, kept: int = 64) -> None:
        self.kept = kept
        self.copies: dict[int, tuple[tuple[Json, ...], list[JSON]]] = {}

    def __call__(self, rounds: tuple[Json, ...]) -> list[JSON]:
        if not rounds:
            return []
        copies = self.copies
        known = copies.get(id(rounds[-1]))
        if known is not None and known[0] is rounds:
            return list(known[1])
        before = copies.get(id(rounds[-2])) if len(rounds) > 1 else None
        if before is not None and before[0] == rounds[:-1]:  # each summary found by its identity first
            made = [*before[1], _summary_copy(rounds[-1])]
        else:
            made = [_summary_copy(r) for r in rounds]
        if len(copies) >= self.kept:
            del copies[next(iter(copies))]
        copies[id(rounds[-1])] = (rounds, made)
        return list(made)


SUMMARIES = Summaries()
"""The views' rounds summaries."""


def _of_round(read: Callable[[Round], Any], otherwise: int | bool | None) -> Callable[[LudicState, Viewer], Any]:
    """A public part read off the round in progress (``otherwise`` when none is)."""
    return lambda state, viewer: otherwise if state.round is None else read(state.round)


VIEW: tuple[Part[LudicState], ...] = (
    Part("phase", lambda state, viewer: state.phase.value),
    Part("you", lambda state, viewer: viewer),
    Part("role", _role),
    Part("vexer", lambda state, viewer: state.vexer),
    Part("token", lambda state, viewer: state.token),
    Part("round", lambda state, viewer: len(state.rounds) if state.round is None else state.round.number),
    Part("target", lambda state, viewer: state.target),
    Part("scores", lambda state, viewer: list(state.scores)),
    Part("ludic", lambda state, viewer: sorted(state.ludic)),
    Part("winners", lambda state, viewer: list(state.winners)),
    Part("cuts", lambda state, viewer: [dict(c) for c in state.cuts]),
    Part("turn", _of_round(lambda rnd: rnd.turn, None)),
    Part("aces", lambda state, viewer: {OBEY: OBEY_ACE, BREAK: BREAK_ACE}),
    Part("deck_count", _of_round(lambda rnd: len(rnd.deck), 0)),
    Part("hintbook_count", _of_round(lambda rnd: len(rnd.hintbook), 0)),
    Part("hand", _hand),
    Part("hand_counts", lambda state, viewer: _per_seat(state, lambda rnd: rnd.hands)),
    Part("columns", _columns),
    Part("hints", _hints),
    Part("hint_counts", lambda state, viewer: _per_seat(state, lambda rnd: rnd.hints)),
    Part("log", lambda state, viewer: [] if state.round is None else [dict(e) for e in state.round.log]),
    Part("rule", _rule),
    Part("pending", _pending),
    Part("last_phase", _of_round(lambda rnd: rnd.last_phase, False)),
    Part("rounds", lambda state, viewer: SUMMARIES(state.rounds)),
)
"""Every part of a Ludic view, in order; the private ones read through :data:`SECRETS`."""
