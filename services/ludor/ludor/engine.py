"""Ludor's rules as a pure engine (see ``services/ludor/RULES.md`` for every rule and call).

A game is a series of rounds. Each round deals every card of the deck; in rounds after the first
the titles of the previous round trade cards; then tricks are played until one seat alone holds
cards. The finishing order gives the titles (and points) of the round, and a vote decides
whether another round is played.

Phases: ``exchange`` (only with the ``choose`` exchange option: the Presidente and the
Vicepresidente choose what they give back), ``play``, ``vote``, ``over``.

Actions (bodies):

- ``{"type": "play", "cards": [codes], "rank": name}``: in turn, a set (or straight) that answers
  the table; ``rank`` (optional) names the rank of jokers played alone (default: Joker).
- ``{"type": "pass"}``: in turn, on a trick someone has opened: out of this trick.
- ``{"type": "play_autoplim", "declare_plim": bool}``: the holder of the Autoplim, at any moment
  of the play, in turn or not.
- ``{"type": "give_back", "cards": [codes]}``: the exchange's return leg (``choose`` option).
- ``{"type": "vote", "end": bool}``: after a round, to end the game (true) or play on.

Each body is parsed once into a typed action (:mod:`ludor.actions`: ``Play``, ``Pass``,
``PlayAutoplim``, ``GiveBack``, ``Vote``) by the shared parser; what a seat may post now is stated
once, in :meth:`LudorEngine.legal` (its plays judged by their combination and whether they answer
the table, listed in full only when asked: :class:`~ludor.actions.Judged`), and
:class:`~ludoteca.core.actions.ActionEngine` plays only what it admits. A refused body's 409 says
which rule it breaks (:meth:`LudorEngine.refusal`; a member of the wrong type is a 422, as the
action schemas answer). Every handler returns the new state and its events.

Bounds (declared by :data:`DECLARATION`): the game ends after round
:data:`MAX_ROUNDS` without a vote (as with the ``round_limit`` option), and at once when its
:data:`MAX_ACTIONS`-th action is applied (the round in progress is dropped); the most points win
both ways, and the result's summary names the bound (``"bound"``).

What each seat may see is declared as data: :data:`SECRETS` (a seat's hand, the cards of an
exchange) and :data:`VIEW` (every part of a view, in order, each read through those secrets).
The state is a frozen dataclass (:class:`LudorState`): every handler builds the next one with
``dataclasses.replace``, and it is stored by the shared codec (:mod:`ludoteca.core.codec`) in the
same shape as before it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property, lru_cache, partial
from itertools import chain, combinations, product
from types import MappingProxyType
from typing import Any

from ludoteca.core import codec
from ludoteca.core.actions import NOTHING, ActionEngine, Legal, Outcome
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
from ludoteca.core.errors import (
    FieldValidationError,
    GameOverError,
    IllegalActionError,
    NotYourTurnError,
)
from ludoteca.core.rng import Rng

from ludor import trick as flow
from ludor.actions import (
    ACTIONS,
    AUTOPLIM,
    AUTOPLIM_PLIM,
    PASS,
    VOTES,
    GiveBack,
    Judged,
    LudorAction,
    Pass,
    Play,
    PlayAutoplim,
    Vote,
)
from ludor.actions import ActionType as ActionType  # re-exported: the bots read it here
from ludor.combos import (
    AUTOPLIM_COMBO,
    AUTOPLIM_PLAY,
    KIND_NAMES,
    SET,
    Combo,
    answers,
    can_match,
    classify,
    is_plim,
    plays,
)
from ludor.hierarchy import (
    AUTOPLIM_NAME,
    JOKER,
    POWER_OF,
    RANK_NAMES,
    THREE_OF_OROS_CODE,
    TWO_OF_OROS_CODE,
    best,
    build_deck,
    counts_of,
    sorted_cards,
    worst,
)
from ludor.options import MAX_ROUND_LIMIT, AutoplimPlim, Deck, Exchange, LudorOptions
from ludor.trick import ClosedBy, Trick

MIN_SEATS, MAX_SEATS = 3, 6
NAMEABLE: tuple[str, ...] = RANK_NAMES[:JOKER + 1]
"""The ranks a play may name its jokers (``rank``): 3 .. 2, and joker (their own, the default)."""
HUMAN = "human"
"""A human seat's kind (the others are ``bot:<level>``)."""


class Phase(StrEnum):
    EXCHANGE = "exchange"
    PLAY = "play"
    VOTE = "vote"
    OVER = "over"


class EventType(StrEnum):
    """The ``type`` of an event (past tense)."""

    ROUND_STARTED = "RoundStarted"
    CARDS_DEALT = "CardsDealt"
    CARDS_GIVEN = "CardsGiven"
    CARDS_EXCHANGED = "CardsExchanged"
    EXCHANGE_STARTED = "ExchangeStarted"
    TRICK_STARTED = "TrickStarted"
    CARDS_PLAYED = "CardsPlayed"
    PLAYER_BLOCKED = "PlayerBlocked"
    PLAYER_BARRED = "PlayerBarred"
    TURN_PASSED = "TurnPassed"
    AUTOPLIM_PLAYED = "AutoplimPlayed"
    PLAYER_FINISHED = "PlayerFinished"
    TRICK_WON = "TrickWon"
    ROUND_ENDED = "RoundEnded"
    VOTING_STARTED = "VotingStarted"
    VOTE_CAST = "VoteCast"
    VOTE_DECIDED = "VoteDecided"
    ACTION_BOUND_REACHED = "ActionBoundReached"
    GAME_ENDED = "GameEnded"


class Title(StrEnum):
    PRESIDENTE = "presidente"
    VICEPRESIDENTE = "vicepresidente"
    NEUTRO = "neutro"
    VICE_CULO = "vice_culo"
    CULO = "culo"


EXCHANGE, PLAY, VOTE, OVER = Phase.EXCHANGE, Phase.PLAY, Phase.VOTE, Phase.OVER
PRESIDENTE, VICEPRESIDENTE, NEUTRO, VICE_CULO, CULO = (
    Title.PRESIDENTE, Title.VICEPRESIDENTE, Title.NEUTRO, Title.VICE_CULO, Title.CULO)
"""The phases and titles by their short names (the tests use these)."""

TRADES: tuple[tuple[Title, Title, int], ...] = ((CULO, PRESIDENTE, 2), (VICE_CULO, VICEPRESIDENTE, 1))
"""(giver of its best cards, receiver who gives back as many of its worst, how many)."""

MAX_ROUNDS = MAX_ROUND_LIMIT
"""The game ends after this round even if every vote says play on (a table of bots alone ends
after its first round; the ``round_limit`` option may only ask for fewer)."""
ACTIONS_PER_ROUND = 400
"""A round has at most about 320 actions: 51 plays at most (each sheds a card), at most
``seats - 1`` passes a trick (a seat that passes is out of the trick, and every trick opens with
a play), two give-backs and one vote a seat."""
MAX_ACTIONS = MAX_ROUNDS * ACTIONS_PER_ROUND
"""No game accepts more actions."""


def _max_actions(options: LudorOptions, seats: int) -> int:
    return MAX_ACTIONS


DECLARATION: Declaration[LudorOptions] = Declaration(
    min_seats=MIN_SEATS, max_seats=MAX_SEATS, chance=Chance.SEEDED, information=Information.IMPERFECT,
    options=LudorOptions, max_actions=_max_actions,
)
"""Ludor: 3 to 6 seats; the deals come from the game's RNG; each hand is its holder's, and the
cards of an exchange its two seats'; the bound: :data:`MAX_ACTIONS` actions, and the game ends
after round :data:`MAX_ROUNDS` (the ``round_limit`` option may only ask for fewer)."""


def titles_for(n: int) -> tuple[Title, ...]:
    """The titles by finishing position: 1st Presidente, 2nd Vicepresidente, the penultimate
    Vice-culo, the last Culo, Neutros between; with 3 players Presidente, Neutro, Culo."""
    if n == 3:
        return (PRESIDENTE, NEUTRO, CULO)
    return (PRESIDENTE, VICEPRESIDENTE, *([NEUTRO] * (n - 4)), VICE_CULO, CULO)


def combo_view(combo: Combo) -> JSON:
    return {"kind": KIND_NAMES[combo.kind], "rank": RANK_NAMES[combo.power], "count": combo.size}


@codec.interned
@dataclass(frozen=True)
class NamedCombo:
    """A combination by its names, as a recorded move shows it (``{"kind", "rank", "count"}``)."""

    kind: str
    rank: str
    count: int

    @classmethod
    def of(cls, combo: Combo) -> NamedCombo:
        return cls(KIND_NAMES[combo.kind], RANK_NAMES[combo.power], combo.size)


@codec.interned
@dataclass(frozen=True)
class Move:
    """A move of the trick on the table (a play, a pass or the Autoplim). Interned by the codec
    (as :class:`NamedCombo`): a load shares one instance per distinct move (a round's closed
    tricks hold dozens)."""

    seat: int
    action: ActionType
    cards: tuple[str, ...]
    combo: NamedCombo | None
    plim: bool = False
    blocked: int | None = None
    declared_plim: bool = False
    out_of_turn: bool = False

    @cached_property
    def doc(self) -> JSON:
        """The codec's document of this move (:func:`_doc`)."""
        return _doc(self)


@dataclass(frozen=True)
class ClosedTrick:
    leader: int
    winner: int | None
    closed_by: ClosedBy | None
    moves: tuple[Move, ...]

    @cached_property
    def doc(self) -> JSON:
        """The codec's document of this trick (:func:`_doc`)."""
        return _doc(self)


def _doc(value: Move | ClosedTrick) -> JSON:
    """``codec.dump(value)``, kept by the value itself (``doc``, a cached property: not a field,
    so its equality, hash, interning and codec are its fields' alone): a round's closed tricks
    and the trick on the table's moves are in every view and every stored state, the same ones
    from move to move (encoding their moves again was most of a view and of a dump: a round
    plays ~300 moves). A state keeps the values ``apply`` made, and the codec interns moves on a
    load. The document is shared by every view and stored state that lists the value, and
    changed by nobody: views and documents are read and serialised only."""
    return codec.dump(value)


@dataclass(frozen=True)
class Transfer:
    """Cards given in this round's exchange: private to its two seats."""

    giver: int
    receiver: int
    cards: tuple[str, ...]


@dataclass(frozen=True)
class RoundRecord:
    round: int
    order: tuple[int, ...]
    """Finishing order, first to last."""
    titles: tuple[Title | None, ...]


@dataclass(frozen=True)
class LudorState:
    """The whole game. ``pile``: the cards played this round; ``leftover``: the cards the last
    seat still held when the round ended; with the hands they make the whole deck."""

    players: tuple[str, ...]
    options: LudorOptions
    rng: Rng
    phase: Phase = Phase.PLAY
    round: int = 0
    dealer: int = 0
    hands: tuple[tuple[str, ...], ...] = ()
    pile: tuple[str, ...] = ()
    leftover: tuple[str, ...] = ()
    titles: tuple[Title | None, ...] = ()
    finished: tuple[int, ...] = ()
    trick: Trick | None = None
    moves: tuple[Move, ...] = ()
    """The moves of the trick on the table."""
    tricks: tuple[ClosedTrick, ...] = ()
    exchange: tuple[Transfer, ...] = ()
    to_give: tuple[int, ...] = ()
    votes: tuple[bool | None, ...] = ()
    points: tuple[int, ...] = ()
    rounds: tuple[RoundRecord, ...] = ()
    actions: int = 0
    """Actions applied so far: :data:`MAX_ACTIONS` bounds them."""

    @property
    def n(self) -> int:
        return len(self.players)

    @property
    def sizes(self) -> list[int]:
        return list(map(len, self.hands))

    def seat_titled(self, title: Title) -> int | None:
        return self.titles.index(title) if title in self.titles else None


def _event(kind: EventType, audience: Sequence[int] | None = None, **data: Any) -> Event:
    return Event(kind, data, None if audience is None else frozenset(audience))


def _set(items: tuple[Any, ...], at: int, value: Any) -> tuple[Any, ...]:
    """``items`` with ``items[at]`` replaced by ``value``."""
    return (*items[:at], value, *items[at + 1:])


class LudorEngine(ActionEngine[LudorState, LudorAction]):
    """The :class:`ludoteca.core.engine.Engine` of Ludor."""

    declaration = DECLARATION
    state_type = LudorState
    actions = ACTIONS
    min_seats = DECLARATION.min_seats
    max_seats = DECLARATION.max_seats

    def max_actions(self, options: Mapping[str, Any], seats: int) -> int:
        """The declared bound (:data:`DECLARATION`): no game accepts more than :data:`MAX_ACTIONS` actions."""
        return DECLARATION.bound(options, seats)

    def bound(self, state: LudorState) -> int:
        """This game's bound (asked of :meth:`max_actions`, which a test may declare smaller)."""
        return self.max_actions(_options_json(state.options), state.n)

    # -- setup ---------------------------------------------------------------------------------
    def new_game(self, players: Sequence[str], options: Mapping[str, Any], rng: Rng) -> LudorState:
        if not DECLARATION.min_seats <= len(players) <= DECLARATION.max_seats:
            raise FieldValidationError(
                f"Ludor is played by {MIN_SEATS} to {MAX_SEATS} players",
                errors={"seats": [f"Must have {MIN_SEATS} to {MAX_SEATS} seats."]})
        n = len(players)
        state = LudorState(tuple(players), DECLARATION.load_options(options), Rng(rng.seed, rng.counter),
                           titles=(None,) * n, votes=(None,) * n, points=(0,) * n)
        state, _ = self._deal(state)
        holder = next(s for s, hand in enumerate(state.hands) if THREE_OF_OROS_CODE in hand)
        return self._start_play(state, holder)[0]

    def opening_events(self, state: LudorState) -> list[Event]:
        """The events of the first deal, which :meth:`new_game` cannot return: ``RoundStarted``
        and each seat's ``CardsDealt`` (private to it), as every later round sends them. The
        shell records them after ``GameCreated``; they are read off the new game's state."""
        return _dealt(state)

    # -- the shell's questions -----------------------------------------------------------------
    def to_act(self, state: LudorState) -> frozenset[int]:
        if state.phase is Phase.PLAY:
            assert state.trick is not None
            return frozenset((state.trick.turn,))
        if state.phase is Phase.EXCHANGE:
            return frozenset(state.to_give)
        if state.phase is Phase.VOTE:
            waiting = [s for s in range(state.n) if state.votes[s] is None]
            humans = [s for s in waiting if state.players[s] == HUMAN]
            return frozenset(humans or waiting)
        return frozenset()

    def acts_out_of_turn(self, state: LudorState, seat: int) -> bool:
        """The holder of the Autoplim may play it at any moment of the play
        (``ludoteca.core.engine.may_act``)."""
        return state.phase is Phase.PLAY and 0 <= seat < state.n and AUTOPLIM_NAME in state.hands[seat]

    # -- what a seat may post: stated here only ------------------------------------------------
    def legal(self, state: LudorState, seat: int) -> Legal[LudorAction]:
        """In turn, a seat's plays are judged by :meth:`_admitted` (and an exchange's give-backs
        by :meth:`_gives_back`), spelled only for a listing (:class:`~ludor.actions.Judged`); pass,
        the Autoplim and the votes are listed. The holder of the Autoplim may play it out of turn."""
        if not 0 <= seat < state.n:
            return NOTHING
        phase = state.phase
        if phase is Phase.PLAY:
            trick = state.trick
            assert trick is not None
            few: list[LudorAction] = []
            plays = seat == trick.turn and seat != trick.barred
            if seat == trick.turn and (trick.top is not None or not plays):
                few.append(PASS)  # the Autoplim's PLIM bars him from the 2 de Oros: he may only pass
            if AUTOPLIM_NAME in state.hands[seat]:
                few.append(AUTOPLIM)
                if trick.top is not None and state.options.plim_on:
                    few.append(AUTOPLIM_PLIM)
            if plays:
                return Judged.of(partial(self._admits, state, seat), partial(self._plays, state, seat), few)
            return _legal(few) if few else NOTHING
        if phase is Phase.EXCHANGE and seat in state.to_give:
            return Judged.of(partial(self._gives_back, state, seat), partial(self._give_backs, state, seat))
        if phase is Phase.VOTE and state.votes[seat] is None:
            return VOTING
        return NOTHING

    def _admits(self, state: LudorState, seat: int, action: LudorAction) -> bool:
        """Is ``action`` a legal play of ``seat``'s? Its combination is kept for :meth:`_play`
        (the last one admitted, with the state and action it was judged for)."""
        combo = self._admitted(state, seat, action)
        if combo is None:
            return False
        self._judged = (state, action, combo)
        return True

    _judged: tuple[LudorState | None, LudorAction | None, Combo | None] = (None, None, None)

    def _admitted(self, state: LudorState, seat: int, action: LudorAction) -> Combo | None:
        """The combination a :class:`Play` of ``seat``'s (in turn, not barred) makes, when it is
        legal: its cards (each once, all in hand) make a combination (a ``rank`` named for jokers
        played alone, or their own rank with other cards) that answers the table."""
        if type(action) is not Play:
            return None
        cards = action.cards
        hand = state.hands[seat]
        if not cards or len(set(cards)) != len(cards) or not all(c in hand for c in cards):
            return None
        take = counts_of(cards)
        rules = state.options.rules
        rank = action.rank
        named: int | None = None
        if rank is not None:
            if rank not in NAMEABLE:
                return None
            power = RANK_NAMES.index(rank)
            if not take[JOKER] or any(take[p] for p in range(JOKER)):
                own = classify(take, rules)
                if own is None or own.kind != SET or own.power != power:
                    return None
            elif power not in rules.names:
                return None
            else:
                named = power
        combo = classify(take, rules, named)
        assert state.trick is not None
        return combo if combo is not None and answers(state.trick.top, combo) else None

    def _plays(self, state: LudorState, seat: int) -> list[LudorAction]:
        """Every play ``seat`` may make (the listing's order)."""
        trick = state.trick
        assert trick is not None
        hand = state.hands[seat]
        out: list[LudorAction] = []
        for combo, take in plays(counts_of(hand), trick.top, state.options.rules):
            named = RANK_NAMES[combo.power] if _is_named(combo, take) else None
            out.extend(Play(tuple(cards), named) for cards in _realize(hand, take))
        return out

    def _gives_back(self, state: LudorState, seat: int, action: LudorAction) -> bool:
        """Does ``action`` give back as many cards as ``seat`` received, each once, from its hand?"""
        if type(action) is not GiveBack:
            return False
        cards = action.cards
        hand = state.hands[seat]
        return (len(cards) == self._return_count(state, seat) and len(set(cards)) == len(cards)
                and all(c in hand for c in cards))

    def _give_backs(self, state: LudorState, seat: int) -> list[LudorAction]:
        k = self._return_count(state, seat)
        return [GiveBack(c) for c in combinations(sorted_cards(state.hands[seat]), k)]

    # -- a refused body: why -------------------------------------------------------------------
    def check_turn(self, state: LudorState, seat: int) -> None:
        """A finished game, or no such seat; who may act is the :meth:`refusal`'s to say (the
        holder of the Autoplim acts out of turn, a vote is cast by any seat yet to vote)."""
        if state.phase is Phase.OVER:
            raise GameOverError("the game is over")
        if not isinstance(seat, int) or not 0 <= seat < state.n:
            raise IllegalActionError(f"there is no seat {seat!r} in this game")

    def refusal(self, state: LudorState, seat: int, body: object, action: LudorAction | None) -> str:
        """Why ``body`` is not in the seat's :meth:`legal`, as its type's rules say it, in order:
        the phase, the turn (``NotYourTurnError``), a member of the wrong type (422, as the action
        schemas answer over HTTP: ``FieldValidationError``), then the rule it breaks."""
        kind = body.get("type") if isinstance(body, Mapping) else None
        why = _WHY.get(kind) if isinstance(kind, str) else None
        if why is None or not isinstance(body, Mapping) or not isinstance(kind, str):
            return f"unknown action type {kind!r}"
        try:
            why(self, state, seat, body)
        except _Refused as refused:
            return str(refused)
        unknown = sorted(set(body) - ACTIONS.shapes[kind].keys)
        return f"unknown member{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}" if unknown \
            else "that action is not legal now"

    def _require_phase(self, state: LudorState, phase: Phase, what: str) -> None:
        if state.phase is not phase:
            raise _Refused(f"no {what} now: the game is in its {state.phase.value} phase")

    def _require_turn(self, state: LudorState, seat: int, what: str) -> Trick:
        self._require_phase(state, Phase.PLAY, what)
        assert state.trick is not None
        if seat != state.trick.turn:
            raise NotYourTurnError(f"it is seat {state.trick.turn}'s turn, not seat {seat}'s",
                                   to_act=[state.trick.turn])
        return state.trick

    def _cards(self, state: LudorState, seat: int, body: Mapping[str, Any]) -> list[str]:
        cards = body.get("cards")
        if not isinstance(cards, list) or not cards or not all(isinstance(c, str) for c in cards):
            raise _field_error("cards", "Must be a non-empty list of card codes.")
        if len(set(cards)) != len(cards):
            raise _Refused("a card is named twice: name each card once")
        missing = [c for c in cards if c not in state.hands[seat]]
        if missing:
            raise _Refused(f"not in your hand: {', '.join(missing)}")
        return sorted_cards(cards)

    def _why_not_play(self, state: LudorState, seat: int, body: Mapping[str, Any]) -> None:
        trick = self._require_turn(state, seat, "play")
        cards = self._cards(state, seat, body)
        if seat == trick.barred:
            raise _Refused("the Autoplim's PLIM bars you from answering it: you held cards matching the play it "
                           "covered; pass")
        take = counts_of(cards)
        combo = classify(take, state.options.rules, self._why_not_named(state, body, take))
        if combo is None:
            hint = " (the Autoplim has its own action, play_autoplim)" if AUTOPLIM_NAME in cards else ""
            raise _Refused(f"{' '.join(cards)} is not a playable combination{hint}")
        if not answers(trick.top, combo):
            assert trick.top is not None  # a lead answers nothing: every combination may open
            raise _Refused(_why_not_an_answer(trick.top, combo))

    def _why_not_named(self, state: LudorState, body: Mapping[str, Any], take: Sequence[int]) -> int | None:
        """The rank a play's ``rank`` names for jokers played alone (None: not named, Joker).
        With other cards the jokers take their rank: a ``rank`` is then refused unless it is it."""
        if "rank" not in body:
            return None
        rank = body["rank"]
        if not isinstance(rank, str) or rank not in NAMEABLE:
            raise _field_error("rank", f"Must be one of: {', '.join(NAMEABLE)}.")
        power = RANK_NAMES.index(rank)
        if not take[JOKER] or any(take[p] for p in range(JOKER)):
            own = classify(take, state.options.rules)
            if own is not None and own.kind == SET and own.power == power:
                return None
            raise _Refused("only jokers played alone are named a rank; with other cards they take those cards' rank")
        if power not in state.options.rules.names:
            raise _Refused(f"there is no {rank} in this game's deck")
        return power

    def _why_not_pass(self, state: LudorState, seat: int, body: Mapping[str, Any]) -> None:
        trick = self._require_turn(state, seat, "pass")
        if trick.top is None:
            raise _Refused("the leader of a trick must play, not pass")

    def _why_not_autoplim(self, state: LudorState, seat: int, body: Mapping[str, Any]) -> None:
        self._require_phase(state, Phase.PLAY, "Autoplim")
        trick = state.trick
        assert trick is not None
        if AUTOPLIM_NAME not in state.hands[seat]:
            if seat != trick.turn:
                raise NotYourTurnError(f"it is seat {trick.turn}'s turn, not seat {seat}'s, and you do "
                                       "not hold the Autoplim (the only card playable out of turn)",
                                       to_act=[trick.turn])
            raise _Refused("you do not hold the Autoplim")
        declare = body.get("declare_plim", False)
        if not isinstance(declare, bool):
            raise _field_error("declare_plim", "Not a valid boolean.")
        if declare and (trick.top is None or not state.options.plim_on):
            raise _Refused("no PLIM to declare: nothing lies under the Autoplim" if trick.top is None
                           else "the Autoplim's PLIM is off in this game")

    def _why_not_give_back(self, state: LudorState, seat: int, body: Mapping[str, Any]) -> None:
        self._require_phase(state, Phase.EXCHANGE, "exchange")
        if seat not in state.to_give:
            raise NotYourTurnError(f"seat {seat} has nothing to give back", to_act=sorted(state.to_give))
        cards = self._cards(state, seat, body)
        k = self._return_count(state, seat)
        if len(cards) != k:
            raise _Refused(f"give back exactly {k} card{'s' if k > 1 else ''}")

    def _why_not_vote(self, state: LudorState, seat: int, body: Mapping[str, Any]) -> None:
        self._require_phase(state, Phase.VOTE, "vote")
        if state.votes[seat] is not None:
            raise _Refused("you have already voted")
        if not isinstance(body.get("end"), bool):
            raise _field_error("end", "Not a valid boolean.")

    # -- play: a legal action, its events ------------------------------------------------------
    def play(self, state: LudorState, seat: int, action: LudorAction) -> Outcome[LudorState]:
        """Each handler counts its action (``actions``) in the first state it makes; the game
        ends when the bound is reached."""
        match action:
            case Play():
                s, events = self._play(state, seat, action)
            case Pass():
                s, events = self._pass(state, seat)
            case PlayAutoplim(declare_plim=declare):
                s, events = self._play_autoplim(state, seat, declare)
            case GiveBack(cards=cards):
                s, events = self._give_back(state, seat, sorted_cards(cards))
            case Vote(end=end):
                s, events = self._vote(state, seat, end)
        return s, events

    # -- the action bound (the rule is ActionEngine.apply's: the action that reaches it ends the game) --
    def over(self, state: LudorState) -> bool:
        return state.phase is Phase.OVER

    def actions_taken(self, state: LudorState) -> int:
        return state.actions

    def end_at_bound(self, state: LudorState, seat: int) -> Outcome[LudorState]:
        """The trick and any exchange in play are dropped; the points so far decide."""
        s, ended = self._end_game(evolve(state, trick=None, to_give=()))
        return s, [_event(EventType.ACTION_BOUND_REACHED, actions=s.actions), *ended]

    def _play(self, state: LudorState, seat: int, action: Play) -> Outcome[LudorState]:
        trick = state.trick
        judged_state, judged, combo = self._judged
        if judged_state is not state or judged is not action:
            combo = self._admitted(state, seat, action)
        assert trick is not None and combo is not None
        cards = sorted_cards(action.cards)
        plim = is_plim(trick.top, combo)
        hands = _set(state.hands, seat, tuple(c for c in state.hands[seat] if c not in cards))
        trick, blocked = flow.play(trick, seat, combo, list(map(len, hands)))
        s = evolve(state, actions=state.actions + 1, hands=hands, pile=(*state.pile, *cards), trick=trick,
                   moves=(*state.moves, Move(seat, ActionType.PLAY, tuple(cards), NamedCombo.of(combo),
                                             plim=plim, blocked=blocked)))
        events = [_event(EventType.CARDS_PLAYED, seat=seat, cards=cards, combo=combo_view(combo), plim=plim)]
        if blocked is not None:
            events.append(_event(EventType.PLAYER_BLOCKED, seat=blocked, by=seat))
        s, after = self._after_move(s, seat)
        return s, events + after

    def _pass(self, state: LudorState, seat: int) -> Outcome[LudorState]:
        trick = state.trick
        assert trick is not None
        s = evolve(state, actions=state.actions + 1, trick=flow.pass_turn(trick, seat, state.sizes),
                    moves=(*state.moves, Move(seat, ActionType.PASS, (), None)))
        s, after = self._after_move(s, seat)
        return s, [_event(EventType.TURN_PASSED, seat=seat), *after]

    def _play_autoplim(self, state: LudorState, seat: int, declare: bool) -> Outcome[LudorState]:
        trick = state.trick
        assert trick is not None
        under = trick.top
        out_of_turn = seat != trick.turn
        s = self._remove(state, seat, [AUTOPLIM_NAME])
        sizes = s.sizes
        target = flow.plim_target(trick, seat, sizes) if declare else None
        barred = target if target is not None and under is not None and (
            s.options.autoplim_plim is AutoplimPlim.ALWAYS
            or can_match(counts_of(s.hands[target]), under, s.options.rules)) else None
        # The move, its event and the trick's public part are the same whether the PLIM bit or
        # not: only the barred seat is told (PlayerBarred, its view's trick.barred).
        move = Move(seat, ActionType.PLAY_AUTOPLIM, (AUTOPLIM_NAME,), NamedCombo.of(AUTOPLIM_COMBO),
                    declared_plim=declare, out_of_turn=out_of_turn)
        s = evolve(s, actions=state.actions + 1, moves=(*s.moves, move),
                   trick=flow.autoplim(trick, seat, sizes, barred, TWO_OF_OROS_CODE in s.pile))
        events = [_event(EventType.AUTOPLIM_PLAYED, seat=seat, out_of_turn=out_of_turn,
                         declared_plim=declare, target=target)]
        if barred is not None:
            events.append(_event(EventType.PLAYER_BARRED, [barred], seat=barred, by=seat))
        s, after = self._after_move(s, seat)
        return s, events + after

    def _give_back(self, state: LudorState, seat: int, cards: list[str]) -> Outcome[LudorState]:
        s, events = self._transfer(state, seat, self._trade_partner(state, seat), cards)
        s = evolve(s, actions=state.actions + 1, to_give=tuple(x for x in s.to_give if x != seat))
        if not s.to_give:
            s, started = self._start_play(s, self._culo(s))
            events += started
        return s, events

    def _vote(self, state: LudorState, seat: int, end: bool) -> Outcome[LudorState]:
        s = evolve(state, actions=state.actions + 1, votes=_set(state.votes, seat, end))
        events = [_event(EventType.VOTE_CAST, seat=seat, end=end)]
        ends = sum(1 for v in s.votes if v is True)
        stays = sum(1 for v in s.votes if v is False)
        if 2 * ends > s.n:
            events.append(_event(EventType.VOTE_DECIDED, end=True, votes=list(s.votes)))
            s, ended = self._end_game(s)
            return s, events + ended
        if 2 * (s.n - stays) <= s.n:
            events.append(_event(EventType.VOTE_DECIDED, end=False, votes=list(s.votes)))
            s, dealt = self._next_round(s)
            return s, events + dealt
        return s, events

    # -- the round's course --------------------------------------------------------------------
    def _remove(self, s: LudorState, seat: int, cards: Sequence[str]) -> LudorState:
        """``seat`` puts ``cards`` on the pile."""
        hand = tuple(c for c in s.hands[seat] if c not in cards)
        return evolve(s, hands=_set(s.hands, seat, hand), pile=(*s.pile, *cards))

    def _after_move(self, s: LudorState, seat: int) -> Outcome[LudorState]:
        trick = s.trick
        assert trick is not None
        events: list[Event] = []
        if not s.hands[seat] and seat not in s.finished:
            s = evolve(s, finished=(*s.finished, seat))
            events.append(_event(EventType.PLAYER_FINISHED, seat=seat, position=len(s.finished)))
        if sum(map(bool, s.hands)) <= 1:
            s, ended = self._end_round(s)
            return s, events + ended
        if trick.closed:
            s, closed = self._close_trick(s)
            return s, events + closed
        return s, events

    def _record_trick(self, s: LudorState, trick: Trick) -> LudorState:
        """``trick`` closed: it joins the round's tricks with its moves, and leaves the table."""
        return evolve(s, trick=None, moves=(),
                       tricks=(*s.tricks, ClosedTrick(trick.leader, trick.winner, trick.closed_by, s.moves)))

    def _close_trick(self, s: LudorState) -> Outcome[LudorState]:
        trick = s.trick
        assert trick is not None and trick.winner is not None and trick.closed_by is not None
        winner = trick.winner
        s = self._record_trick(s, trick)
        leader = flow.next_with_cards(winner, s.sizes, include_self=True)
        assert leader is not None
        s, started = self._start_play(s, leader)
        return s, [_event(EventType.TRICK_WON, seat=winner, closed_by=trick.closed_by.value), *started]

    def _start_play(self, s: LudorState, leader: int) -> Outcome[LudorState]:
        started = _event(EventType.TRICK_STARTED, leader=leader)
        return evolve(s, phase=Phase.PLAY, trick=Trick(leader, leader)), [started]

    def _end_round(self, s: LudorState) -> Outcome[LudorState]:
        trick = s.trick
        assert trick is not None
        last = next(seat for seat, hand in enumerate(s.hands) if hand) if any(s.hands) else None
        if last is not None:
            s = evolve(s, finished=(*s.finished, last), leftover=s.hands[last], hands=_set(s.hands, last, ()))
        if not trick.closed:
            trick = flow.close(trick, trick.last, ClosedBy.ROUND_OVER)
        s = self._record_trick(s, trick)
        by_position = titles_for(s.n)
        titles: list[Title | None] = [None] * s.n
        points = list(s.points)
        for position, seat in enumerate(s.finished):
            titles[seat] = by_position[position]
            points[seat] += s.n - 1 - position
        s = evolve(s, titles=tuple(titles), points=tuple(points),
                    rounds=(*s.rounds, RoundRecord(s.round, s.finished, tuple(titles))))
        events = [_event(EventType.ROUND_ENDED, round=s.round, order=list(s.finished), titles=_values(titles),
                         points=points)]
        limit = s.options.round_limit
        if (limit is not None and s.round >= limit) or s.round >= MAX_ROUNDS:
            s, ended = self._end_game(s)
            return s, events + ended
        events.append(_event(EventType.VOTING_STARTED, round=s.round))
        return evolve(s, phase=Phase.VOTE, votes=(None,) * s.n), events

    def _end_game(self, s: LudorState) -> Outcome[LudorState]:
        s = evolve(s, phase=Phase.OVER)
        result = self.result(s)
        assert result is not None
        return s, [_event(EventType.GAME_ENDED, winners=list(result.winners), points=list(s.points))]

    def _next_round(self, s: LudorState) -> Outcome[LudorState]:
        culo = self._culo(s)
        s, events = self._deal(s)
        for giver_title, receiver_title, k in TRADES:
            giver, receiver = s.seat_titled(giver_title), s.seat_titled(receiver_title)
            if giver is None or receiver is None:
                continue
            s, given = self._transfer(s, giver, receiver, best(s.hands[giver], k))
            events += given
            if s.options.exchange is Exchange.CHOOSE:
                s = evolve(s, to_give=(*s.to_give, receiver))
            else:
                s, given = self._transfer(s, receiver, giver, worst(s.hands[receiver], k))
                events += given
        if s.to_give:
            events.append(_event(EventType.EXCHANGE_STARTED, to_give=list(s.to_give)))
            return evolve(s, phase=Phase.EXCHANGE), events
        s, started = self._start_play(s, culo)
        return s, events + started

    def _deal(self, s: LudorState) -> Outcome[LudorState]:
        """A new round's deal. Its dealer is drawn with the game's RNG every round, whatever the
        titles: the seats after him get the cards left over (51 does not divide by 4, 5 or 6),
        so every title gets the short (or long) hand equally often, the Culo no more than the
        Presidente."""
        deck = build_deck(s.options.deck is Deck.FORTY)
        rng = Rng(s.rng.seed, s.rng.counter)
        dealer = rng.randbelow(s.n)
        rng.shuffle(deck)
        n = s.n
        hands = tuple(tuple(sorted_cards(deck[(seat - dealer - 1) % n::n])) for seat in range(n))
        s = evolve(s, rng=rng, round=s.round + 1, dealer=dealer, hands=hands, pile=(), leftover=(), finished=(),
                    tricks=(), moves=(), exchange=(), to_give=(), votes=(None,) * n, trick=None)
        return s, _dealt(s)

    def _transfer(self, s: LudorState, giver: int, receiver: int, cards: Sequence[str]) -> Outcome[LudorState]:
        hands = list(s.hands)
        hands[giver] = tuple(c for c in hands[giver] if c not in cards)
        hands[receiver] = tuple(sorted_cards([*hands[receiver], *cards]))
        s = evolve(s, hands=tuple(hands), exchange=(*s.exchange, Transfer(giver, receiver, tuple(cards))))
        return s, [_event(EventType.CARDS_GIVEN, [giver, receiver], giver=giver, receiver=receiver, cards=list(cards)),
                   _event(EventType.CARDS_EXCHANGED, giver=giver, receiver=receiver, count=len(cards))]

    def _culo(self, s: LudorState) -> int:
        culo = s.seat_titled(CULO)
        assert culo is not None
        return culo

    def _trade_partner(self, s: LudorState, receiver: int) -> int:
        """The seat that gave its best cards to ``receiver`` (who gives back to it)."""
        return next(e.giver for e in s.exchange if e.receiver == receiver)

    def _return_count(self, s: LudorState, receiver: int) -> int:
        return next(len(e.cards) for e in s.exchange if e.receiver == receiver)

    def dump(self, state: LudorState) -> JSON:
        """The codec's document (:meth:`StateEngine.dump`), the round's closed tricks and the
        trick on the table's moves each the one it holds (:attr:`ClosedTrick.doc`,
        :attr:`Move.doc`): the same document, its keys in the same order."""
        data = codec.dump(evolve(state, tricks=(), moves=()))
        data["tricks"] = [t.doc for t in state.tricks]
        data["moves"] = [m.doc for m in state.moves]
        return data

    # -- what a seat sees ----------------------------------------------------------------------
    def view(self, state: LudorState, seat: int | None) -> JSON:
        """Every part of :data:`VIEW`, as ``seat`` may see it (:data:`SECRETS`)."""
        return view_of(VIEW, state, seat)

    def result(self, state: LudorState) -> GameResult | None:
        if state.phase is not Phase.OVER:
            return None
        top = max(state.points)
        winners = tuple(s for s, p in enumerate(state.points) if p == top)
        bound: JSON | None = None
        cap = self.bound(state)
        if state.actions >= cap:
            bound = {"reached": "actions", "limit": cap}
        elif state.options.round_limit is None and len(state.rounds) >= MAX_ROUNDS:
            bound = {"reached": "rounds", "limit": MAX_ROUNDS}
        return GameResult(winners, tuple(float(p) for p in state.points), {
            "rounds": len(state.rounds), "points": list(state.points),
            "titles": _in_force(state.titles), "orders": [list(r.order) for r in state.rounds],
            "bound": bound,
        })


# -- what each seat may see ----------------------------------------------------------------------
HAND: Secret[LudorState] = Secret(
    "a seat's hand: its holder's alone (the others see how many cards it holds)",
    owner_only)
EXCHANGED_CARDS: Secret[LudorState] = Secret(
    "the cards of an exchange's transfer: its giver's and its receiver's (the others see how many)",
    owner_only)
BARRED: Secret[LudorState] = Secret(
    "that the Autoplim's PLIM bit (the seat it names held cards matching the covered play, and may "
    "not answer with the 2 de Oros): that seat's alone (the others see the declaration and its target)",
    owner_only)
SECRETS: tuple[Secret[LudorState], ...] = (HAND, EXCHANGED_CARDS, BARRED)
"""Everything private in Ludor that a view shows in part. The RNG, the deck order and the cards
the last seat still held when the round ended (``leftover``) are in no view; the rest is public:
the card counts, the trick on the table and the round's closed tricks with every card played,
the titles, the votes and the points."""


def _hand(state: LudorState, viewer: Viewer) -> list[str]:
    if viewer is None or not 0 <= viewer < state.n or not HAND.may_see(state, viewer, viewer):
        return []
    return list(state.hands[viewer])


def _trick_view(state: LudorState, viewer: Viewer) -> JSON | None:
    trick = state.trick
    if trick is None:
        return None
    return {"leader": trick.leader, "turn": trick.turn, "top": None if trick.top is None else combo_view(trick.top),
            "last_player": trick.last, "passed": sorted(trick.passed), "blocked": sorted(trick.blocked),
            "barred": trick.barred if trick.barred is not None and BARRED.may_see(state, viewer, trick.barred)
            else None,
            "moves": [m.doc for m in state.moves]}


def _exchange_view(state: LudorState, viewer: Viewer) -> list[JSON]:
    """Every transfer of this round's exchange; its cards read through :data:`EXCHANGED_CARDS`."""
    return [{"giver": e.giver, "receiver": e.receiver, "count": len(e.cards),
             "cards": list(e.cards) if (EXCHANGED_CARDS.may_see(state, viewer, e.giver)
                                        or EXCHANGED_CARDS.may_see(state, viewer, e.receiver)) else None}
            for e in state.exchange]


VIEW: tuple[Part[LudorState], ...] = (
    Part("seat", lambda state, viewer: viewer),
    Part("phase", lambda state, viewer: state.phase.value),
    Part("round", lambda state, viewer: state.round),
    Part("options", lambda state, viewer: codec.dump(state.options)),
    Part("players", lambda state, viewer: list(state.players)),
    Part("dealer", lambda state, viewer: state.dealer),
    Part("hand", _hand),
    Part("hand_counts", lambda state, viewer: state.sizes),
    Part("titles", lambda state, viewer: _in_force(state.titles)),
    Part("finished", lambda state, viewer: list(state.finished)),
    Part("trick", _trick_view),
    Part("tricks", lambda state, viewer: [t.doc for t in state.tricks]),
    Part("two_of_oros_played", lambda state, viewer: TWO_OF_OROS_CODE in state.pile),
    Part("exchange", _exchange_view),
    Part("to_give", lambda state, viewer: list(state.to_give)),
    Part("votes", lambda state, viewer: list(state.votes)),
    Part("points", lambda state, viewer: list(state.points)),
    Part("rounds", lambda state, viewer: [codec.dump(r) for r in state.rounds]),
)
"""Every part of a Ludor view, in order; the private ones read through :data:`SECRETS`."""


def _dealt(s: LudorState) -> list[Event]:
    """The events of a deal just made: the round, the dealer and the hand sizes (public), and
    each hand to its holder."""
    events = [_event(EventType.ROUND_STARTED, round=s.round, dealer=s.dealer, hand_counts=s.sizes)]
    events.extend(_event(EventType.CARDS_DEALT, [seat], seat=seat, cards=list(hand))
                  for seat, hand in enumerate(s.hands))
    return events


def _legal(listed: list[LudorAction]) -> Legal[LudorAction]:
    """``Legal(listed)``, made as the shared parser makes an action: without the frozen
    ``__init__`` (its fields are all it would set), a move out of turn asks for one."""
    legal: Legal[LudorAction] = object.__new__(Legal)
    legal.__dict__.update(listed=listed, templates=())
    return legal


@lru_cache(maxsize=256)
def _options_json(options: LudorOptions) -> Mapping[str, Any]:
    """``options`` as a body (read only), dumped once per options value: every move asks for its bound."""
    return MappingProxyType(codec.dump(options))


class _Refused(Exception):
    """A rule a refused body breaks (:meth:`LudorEngine.refusal` words its 409)."""


_WHY: dict[str, Callable[[LudorEngine, LudorState, int, Mapping[str, Any]], None]] = {
    ActionType.PLAY: LudorEngine._why_not_play, ActionType.PASS: LudorEngine._why_not_pass,
    ActionType.PLAY_AUTOPLIM: LudorEngine._why_not_autoplim, ActionType.GIVE_BACK: LudorEngine._why_not_give_back,
    ActionType.VOTE: LudorEngine._why_not_vote,
}
"""Each action type's rules, in the order a refusal names the first one a body breaks."""
VOTING: Legal[LudorAction] = Legal(VOTES)
"""A seat yet to vote: end the game, or play on."""


def _field_error(name: str, message: str) -> FieldValidationError:
    """A field of the wrong type (422, as the action schemas answer the HTTP surface), not an
    illegal move (409): the engine judges a body the way the service's validation does."""
    return FieldValidationError(f"{name}: {message}", errors={name: [message]})


def _why_not_an_answer(top: Combo, combo: Combo) -> str:
    """Why ``combo`` does not answer ``top``: the kind, the count or the rank."""
    wanted = f"{top.size} card{'s' if top.size > 1 else ''}"
    if combo.kind != top.kind:
        if top.kind == AUTOPLIM_PLAY:
            return "only the 2 de Oros beats the Autoplim"
        return (f"a {KIND_NAMES[top.kind]} is answered by a {KIND_NAMES[top.kind]} of {wanted} (or the "
                f"2 de Oros), not by a {KIND_NAMES[combo.kind]}")
    if combo.size != top.size:
        return f"that play does not answer the table: the same number of cards ({wanted}) is needed"
    return (f"that play does not answer the table: {RANK_NAMES[top.power]} or higher is needed, "
            f"not {RANK_NAMES[combo.power]}")


def _values(titles: Sequence[Title | None]) -> list[str | None]:
    return [None if t is None else t.value for t in titles]


def _in_force(titles: Sequence[Title | None]) -> list[str] | None:
    """The titles a view or a summary shows: None before the first round ends, then every seat's
    (a round's end titles every seat at once). A list or nothing, never a list holding nulls: the
    clients generated from the OpenAPI document (Kotlin, Swift) cannot read an array of nullable
    enum values (issue 21's finding)."""
    if all(t is None for t in titles):
        return None
    assert all(t is not None for t in titles), titles
    return [t.value for t in titles if t is not None]


def _is_named(combo: Combo, take: Sequence[int]) -> bool:
    """Is ``combo`` jokers alone named a natural rank (a play body then says ``rank``)?"""
    return combo.kind == SET and combo.power < JOKER and not any(take[p] for p in range(JOKER))


def _realize(hand: Sequence[str], take: Sequence[int]) -> Iterator[list[str]]:
    """Every choice of cards from ``hand`` that uses ``take`` (counts per power)."""
    parts = [combinations([c for c in hand if POWER_OF[c] == p], k) for p, k in enumerate(take) if k]
    for choice in product(*parts):
        yield sorted_cards(chain.from_iterable(choice))
