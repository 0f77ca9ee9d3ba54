"""The service layer: every use case of a hosted game, independent of HTTP and Celery.

The web layer parses a request, calls one method here and renders the result; the worker calls
the same methods for bot turns and results. Each method loads the game, runs the pure engine and
commits through the repository's compare-and-set, so a move is applied exactly once or not at
all. Everything a client receives is built by the :class:`~ludoteca.service_layer.presenter.Presenter` from
``engine.view`` for the caller's seat.

A move (:meth:`GameService.play`) is its checks (:meth:`~GameService.check_move`), the engine
step (:meth:`~GameService.step`) and the commit (:meth:`~GameService.commit_move`): one write
that also checks the idempotency key and spends the seat's write quota. The game it starts from
is the one this process last wrote or read (:class:`RecentGames`) when it has it, else one read
(shared with the token check). Starting from memory is safe because the commit is a
compare-and-set on the version: if the game moved on, the commit says so and hands back the
current game, and the move is checked and stepped again on that (two round trips, as without the
memory); a move refused on the remembered game is read and checked again before the refusal
stands. A request refused by a check costs one more round trip: its quota unit and, with an
``Idempotency-Key``, the stored record (a replay wins over the checks, as it always did).
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from ludoteca.core import tokens
from ludoteca.core.engine import GameDefinition
from ludoteca.core.errors import (
    AuthenticationError,
    ConflictError,
    FieldValidationError,
    GameNotStartedError,
    GameOverError,
    IdempotencyConflictError,
    LudotecaError,
    NotFoundError,
    RateLimitedError,
    SeatTakenError,
    StaleVersionError,
    TurnTimedOutError,
)
from ludoteca.core.rng import Rng, commitment, new_seed
from ludoteca.service_layer import events as records
from ludoteca.service_layer import notices as notes
from ludoteca.service_layer import seats as seat_kinds
from ludoteca.service_layer import timers
from ludoteca.service_layer.bots import Bots, bot_random
from ludoteca.service_layer.events import EventRecord
from ludoteca.service_layer.mygames import PlayerRef, PlayerSeats
from ludoteca.service_layer.numbering import Shown, for_viewer, number, viewer
from ludoteca.service_layer.presenter import Presenter, result_body
from ludoteca.service_layer.quotas import Quotas
from ludoteca.service_layer.ratings import forfeit_seats
from ludoteca.service_layer.recent import STATE, RecentGames
from ludoteca.service_layer.record import GameRecord, Status
from ludoteca.service_layer.repository import (
    NOTHING_DUE,
    DueKind,
    DueWork,
    GameMissing,
    GameRepository,
    IdempotencyEntry,
    Quota,
    Stored,
    Totals,
    UnitOfWork,
)
from ludoteca.service_layer.turns import TurnTimers
from marshmallow import ValidationError as MaValidationError

__all__ = ["Dispatcher", "GameService", "Move", "Observer", "Played", "RecentGames", "Unobserved", "body_hash",
           "bot_random"]

WAITING, ACTIVE, FINISHED = Status.WAITING, Status.ACTIVE, Status.FINISHED
MAX_RETRIES = 8
log = logging.getLogger("ludoteca.service_layer.service")


class Dispatcher(Protocol):
    """Where follow-up work goes (the Celery worker in production). A dispatch may be lost (the
    process dies, the broker is down or loses its queue): the commit recorded what is due, and
    the sweeper dispatches it again, so neither method needs to be reliable, only bounded."""

    def bot_turn(self, game: str, game_id: str, version: int) -> None: ...

    def record_result(self, game: str, game_id: str) -> None: ...


class Observer(Protocol):
    """What the service layer tells the operators' metrics (prometheus in production:
    :data:`ludoteca.adapters.observe.GAMES`); it never waits on them."""

    def game_created(self, game: str) -> None: ...

    def game_finished(self, game: str) -> None: ...


class Unobserved:
    """An :class:`Observer` that counts nothing (tests and tools)."""

    def game_created(self, game: str) -> None:
        pass

    def game_finished(self, game: str) -> None:
        pass


@dataclass(frozen=True)
class Played:
    """The outcome of a posted action: the response body and whether it was a replay."""

    body: dict[str, Any]
    version: int
    replayed: bool


@dataclass(frozen=True)
class Move:
    """One engine step, ready to commit: the new record and state, its event records (with
    their global sequence numbers) and the same events as each viewer is told them (``shown``),
    what it makes due and the response for the seat that played it."""

    version: int
    record: GameRecord
    state: Any
    events: list[EventRecord]
    shown: list[Shown]
    due: DueWork
    response: dict[str, Any]
    ask: bool = False
    """A bot seat may act out of turn at the new version (``GameDefinition.interrupts``): ask it."""
    notices: Sequence[notes.Notice] = ()
    """What the players bound to the seats are told of it (:mod:`~ludoteca.service_layer.notices`)."""


def body_hash(body: Any) -> str:
    """The fingerprint an Idempotency-Key's record keeps of the request body."""
    if not isinstance(body, Mapping):
        body = {"_": repr(body)}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def still_human(record: GameRecord, seat: int) -> None:
    """409 when ``seat``'s player has left (a bot plays it): its token and its player act for it
    no more (a move, a leave). Checked on the version a write commits on, not only the one the
    request started from."""
    if not record.is_human(seat):
        raise ConflictError(f"You left this game: a bot plays seat {seat} now.", seat=seat, bot=record.level(seat))


class GameService:
    """Use cases of one hosted game.

    Given (constructor injection; each made with its defaults when not given): the game's
    ``store`` (:class:`~ludoteca.service_layer.repository.GameRepository`, written one
    :class:`~ludoteca.service_layer.repository.UnitOfWork` at a time), the ``dispatcher`` of
    follow-up work, the ``clock``, the ``observer`` of the operators' metrics, and the
    collaborators: ``recent`` (the remembered games, :class:`~ludoteca.service_layer.recent.RecentGames`),
    ``turn_timers`` (the turn clocks, :class:`~ludoteca.service_layer.turns.TurnTimers`), ``quotas``
    (the refused moves' write quota, :class:`~ludoteca.service_layer.quotas.Quotas`) and ``bots``
    (bot turns and the bots that act out of turn, :class:`~ludoteca.service_layer.bots.Bots`)."""

    def __init__(self, definition: GameDefinition, store: GameRepository, dispatcher: Dispatcher,
                 clock: Callable[[], float] = time.time, observer: Observer | None = None,
                 min_turn_seconds: int = timers.MIN_SECONDS, *, recent: RecentGames | None = None,
                 turn_timers: TurnTimers | None = None, quotas: Quotas | None = None,
                 bots: Bots | None = None, players: PlayerSeats | None = None) -> None:
        self.d = definition
        self.observer = observer or Unobserved()
        self.engine = definition.engine
        self.store = store
        self.dispatcher = dispatcher
        self.clock = clock
        self.options_schema = timers.options_schema(definition, min_turn_seconds)
        """The game's options with the turn timer's (:mod:`ludoteca.service_layer.timers`)."""
        self.presenter = Presenter(definition, clock)
        self.recent = recent if recent is not None else RecentGames()
        self.turn_timers = turn_timers if turn_timers is not None else TurnTimers(definition, clock)
        self.quotas = quotas if quotas is not None else Quotas(store)
        self.bots = bots if bots is not None else Bots(definition)
        self.players = players
        """Players (issue 23): who a player's token is, the players' game lists, their ratings
        (None: seats are never bound to players)."""
        self._action_schemas = {kind: cls() for kind, cls in definition.action_schemas.items()}

    # -- input ------------------------------------------------------------------------------
    def parse_action(self, body: Any) -> dict[str, Any]:
        """Validate a posted action with the schema its ``type`` names."""
        if not isinstance(body, Mapping):
            raise FieldValidationError("The action must be a JSON object.",
                                       errors={"_schema": ["Expected a JSON object."]})
        kind = body.get("type")
        schema = self._action_schemas.get(kind) if isinstance(kind, str) else None
        if schema is None:
            shown = kind[:40] + "..." if isinstance(kind, str) and len(kind) > 40 else kind
            raise FieldValidationError(
                f"Unknown action type {shown!r}.",
                errors={"type": [f"Must be one of: {', '.join(sorted(self.d.action_schemas))}."]},
            )
        try:
            loaded = schema.load(body)  # one instance per action type: loading keeps no state in it
        except MaValidationError as err:
            raise FieldValidationError("The action's fields are not valid.", errors=err.messages) from None
        return dict(loaded) if isinstance(loaded, Mapping) else dict(body)

    def parse_options(self, options: Any) -> dict[str, Any]:
        if options is None:
            options = {}
        if not isinstance(options, Mapping):
            raise FieldValidationError("The game options must be a JSON object.",
                                       errors={"options": ["Expected a JSON object."]})
        try:
            loaded = self.options_schema().load(options)
        except MaValidationError as err:
            raise FieldValidationError("The game options are not valid.", errors={"options": err.messages}) from None
        return dict(loaded)

    # -- lifecycle --------------------------------------------------------------------------
    def create(self, seats: Sequence[str], options: Any, creator_seat: int | None,
               name: str | None, player: PlayerRef | None = None,
               seated: Sequence[PlayerRef] = ()) -> tuple[dict[str, Any], int | None, str | None]:
        """``player``: the creator's player (its token's), bound to the creator's seat.
        ``seated``: players bound to the first seats, in the same commit (a matched table:
        :mod:`~ludoteca.service_layer.matching`; each acts with its player's token), their claims
        and the start in the game's first events, as joins would have written them."""
        n = len(seats)
        if not self.engine.min_seats <= n <= self.engine.max_seats:
            raise FieldValidationError(
                f"{self.d.title} needs {self.engine.min_seats} to {self.engine.max_seats} seats.",
                errors={"seats": [f"Length must be between {self.engine.min_seats} and {self.engine.max_seats}."]
                        },
            )
        kinds = []
        for i, text in enumerate(seats):
            kind = seat_kinds.parse_known(text, self.d.bots)
            if kind is None:
                raise FieldValidationError(
                    f"Seat {i}: unknown seat kind {text!r}.",
                    errors={"seats": {str(i): [f"Use '{seat_kinds.HUMAN}' or one of "
                                                + ", ".join(seat_kinds.bot(b) for b in self.d.bots) + "."]}},
                )
            kinds.append(kind)
        if creator_seat is not None and not (0 <= creator_seat < n and kinds[creator_seat].is_human):
            raise FieldValidationError("The creator's seat must be a human seat of this game.",
                                       errors={"seat": ["Not a human seat."]})
        if seated and (creator_seat is not None or len(seated) > n or len({p.id for p in seated}) < len(seated)
                       or not all(kinds[i].is_human for i in range(len(seated)))):
            raise ValueError("seated: distinct players on the first seats, all human, and no creator's seat")
        opts = self.parse_options(options)
        seed = new_seed()
        state = self.engine.new_game(list(seats), timers.engine_options(opts), Rng(seed))
        game_id = secrets.token_hex(8)
        token_hashes: list[str | None] = [None] * n
        names = ["" if kind.is_human else kind.text for kind in kinds]
        token = None
        if creator_seat is not None:
            token, token_hashes[creator_seat] = tokens.new_token()
            names[creator_seat] = player.name if player is not None else name or f"seat {creator_seat}"
        bound = player if creator_seat is not None else None
        owners = {creator_seat: bound} if bound is not None and creator_seat is not None else dict(enumerate(seated))
        for i, p in enumerate(seated):  # each acts with its player's token: its seat's own is never given
            token_hashes[i] = tokens.new_token()[1]
            names[i] = p.name
        player_ids = tuple(owners[i].id if i in owners else None for i in range(n)) if owners else ()
        record = GameRecord(
            id=game_id, players=tuple(seats), names=tuple(names), token_hashes=tuple(token_hashes),
            options=opts, seed=seed, seed_sha256=commitment(seed), created_at=self.clock(),
            event_count=1, status=WAITING, state=self.engine.dump(state), player_ids=player_ids)
        record = self.turn_timers.clocked(replace(record, status=self._status(record, state)), state, None, 1)
        # the events a new game already holds (Ludor's first deal) follow GameCreated; a matched
        # table's claims (but the first seat's, its creator's) and its start, as joins write them
        claims = [records.seat_claimed(i, names[i]) for i in range(1, len(seated))]
        started = [records.game_started()] if seated and record.status is ACTIVE else []
        events = records.records(1, 1, [records.game_created(seats, opts, record.seed_sha256),
                                        *self.engine.opening_events(state), *claims, *started])
        shown, counts = number(events, (0,) * (n + 1))
        record = replace(record, event_count=len(events), viewer_counts=counts)
        due = self._due(record, state)
        told = self._notices(None, frozenset(), record, state, 1)
        work = UnitOfWork(game_id, record.to_doc(), events, shown, len(counts), due, notices=told)
        for who in [bound, *seated]:
            self._intend(who, game_id)
        if not self.store.create(work):  # pragma: no cover - id collision
            raise ConflictError("Game id collision; try again.")
        for who in [bound, *seated]:
            self._confirm(who, game_id, record.created_at)
        if told:
            self._relay(game_id)
        self.observer.game_created(self.d.name)
        if record.status is WAITING:
            self.store.lobby_add(game_id, record.created_at)
        self._dispatch(game_id, 1, due)
        return self.presenter.envelope(1, record, creator_seat, state), creator_seat, token

    def join(self, game_id: str, seat: int | None, name: str | None,
             player: PlayerRef | None = None) -> tuple[dict[str, Any], int, str]:
        """``player``: the joiner's player (its token's), bound to the seat; one seat a player."""
        for attempt in range(MAX_RETRIES):
            stored = self._load(game_id)
            record = stored.record
            if player is not None and player.id in record.player_ids:
                raise SeatTakenError(f"Your player has seat {record.player_ids.index(player.id)} of this game "
                                     "already: one seat a player.", seat=record.player_ids.index(player.id))
            open_seats = record.open_seats
            if seat is None:
                if not open_seats:
                    raise SeatTakenError("Every seat of this game is taken.")
                chosen = open_seats[0]
            elif not 0 <= seat < len(record.players):
                raise FieldValidationError("No such seat.", errors={"seat": ["Out of range."]})
            elif seat not in open_seats:
                raise SeatTakenError(f"Seat {seat} is not open.", open_seats=open_seats)
            else:
                chosen = seat
            token, digest = tokens.new_token()
            shown_name = player.name if player is not None else name or f"seat {chosen}"
            new = record.with_seat_claimed(chosen, digest, shown_name)
            if player is not None:
                before = record.player_ids or (None,) * len(record.players)
                new = replace(new, player_ids=tuple(player.id if i == chosen else p for i, p in enumerate(before)))
                if attempt == 0:
                    self._intend(player, game_id)
            state = self.engine.load(record.state)
            new = replace(new, status=self._status(new, state))
            seq = record.event_count + 1
            version = stored.version + 1
            claimed = [records.seat_claimed(chosen, new.names[chosen])]
            if new.status is ACTIVE:
                claimed.append(records.game_started())
            events = records.records(seq, version, claimed)
            shown, counts = number(events, record.counts)
            new = self.turn_timers.clocked(replace(new, event_count=record.event_count + len(events),
                                              viewer_counts=counts), state, None, version)
            due = self._due(new, state)
            told = self._notices(record, frozenset(), new, state, version)
            res = self.store.commit(UnitOfWork(game_id, new.to_doc(), events, shown, len(counts), due,
                                               expected_version=stored.version, notices=told))
            if res.status == "ok":
                self._confirm(player, game_id, record.created_at)
                if told:
                    self._relay(game_id)
                if new.status is not WAITING:
                    self.store.lobby_remove(game_id)
                self._dispatch(game_id, res.version, due)
                return self.presenter.envelope(res.version, new, chosen, state), chosen, token
        raise ConflictError("The game is too busy right now; try again.")

    def leave(self, game_id: str, seat: int, level: str | None = None) -> tuple[dict[str, Any], int, str]:
        """The seat's player leaves: the bot ``level`` (default: the table's timeout bot) plays the
        seat from this version on, dispatched as any bot's turn; a public ``SeatLeft`` event says
        so. The seat's token and its player's no longer act for it; its player stays bound (the
        player's games show the game as left, and its rating counts the result). 409 when the game
        is over. Returns (the game as a spectator sees it, the new version, the bot's level)."""
        if level is not None and level not in self.d.bots:
            raise FieldValidationError(f"Unknown bot level {level[:40]!r}.",
                                       errors={"bot": [f"Must be one of: {', '.join(self.d.bots)}."]})
        for _ in range(MAX_RETRIES):
            stored = self._load(game_id)
            record = stored.record
            if record.status is FINISHED:
                raise GameOverError("The game is over: there is no seat to leave.", game_status=record.status.value)
            still_human(record, seat)  # on every attempt: two leaves of one seat at once, the second is refused
            bot = level or self.turn_timers.timeout_level(record)
            state = self.state_of(stored)
            new = record.with_seat_left(seat, bot)
            new = replace(new, status=self._status(new, state))
            version = stored.version + 1
            happened = [records.seat_left(seat, bot)]
            if record.status is WAITING and new.status is ACTIVE:  # the last open seat was the leaver's
                happened.append(records.game_started())
            written = records.records(record.event_count + 1, version, happened)
            shown, counts = number(written, record.counts)
            new = self.turn_timers.clocked(replace(new, event_count=record.event_count + len(written),
                                                   viewer_counts=counts), state, None, version)
            to_act = self.engine.to_act(state) if new.status is ACTIVE else frozenset()
            before = self.engine.to_act(state) if record.status is ACTIVE else frozenset()
            told = notes.left(self.d.name, record, seat, version, bot) + notes.of_commit(
                self.d.name, record, before, new, to_act, version)
            due = self._due(new, state, to_act)
            res = self.store.commit(UnitOfWork(game_id, new.to_doc(), written, shown, len(counts), due,
                                               expected_version=stored.version, notices=told))
            if res.status == "ok":
                self.recent.forget(game_id)
                if record.status is WAITING and new.status is not WAITING:
                    self.store.lobby_remove(game_id)
                self._dispatch(game_id, res.version, due)  # the bot's turn, when the seat is to act
                if told:
                    self._relay(game_id)
                return self.presenter.envelope(res.version, new, None, state), res.version, bot
        raise ConflictError("The game is too busy right now; try again.")

    # -- reading ----------------------------------------------------------------------------
    def load(self, game_id: str, recent: bool = False) -> Stored:
        """The game as stored; with ``recent``, as this process last saw it if it did (a move's
        starting point: ``Stored.cached`` says which)."""
        if recent:
            known = self.recent.get(game_id)
            if known is not None:
                return known
        stored = self._load(game_id)
        if recent:
            self.recent.put(game_id, stored.version, stored.doc)
        return stored

    def seen_at(self, game_id: str, version: int) -> Stored:
        """The game at ``version`` or later, for a reader that knows the game reached ``version``
        (a stream that has just read that version's events): this process's memory of the game
        when it is at least that new, without a read; else a read, remembered. So no stream reads
        after this process's own commit, nor after a read of that version by another of its
        streams; streams woken at once by another process's commit may each read (there is no
        single flight: each finds the memory old). A later version with no event for the reader is
        found by a plain :meth:`load` (a stream's heartbeat)."""
        known = self.recent.get(game_id)
        if known is not None and known.version >= version:
            return known
        stored = self._reload(game_id)
        return self.recent.get(game_id) or stored  # the remembered one: its decoded state is shared

    def seat_for_move(self, game_id: str, token: str, stored: Stored | None = None) -> tuple[Stored, int]:
        """The game a move starts from (``stored``, else from memory if this process has the
        game) and the seat ``token`` verifies to (401 if none); a remembered game is read again
        before a token is refused (a seat may have been claimed since; a claimed seat's hash
        never changes)."""
        if stored is None:
            stored = self.load(game_id, recent=True)
        try:
            seat = self.seat_of(stored, token, acting=True)
        except (AuthenticationError, ConflictError):
            if not stored.cached:
                raise
            stored = self._reload(game_id)
            seat = self.seat_of(stored, token, acting=True)
        assert seat is not None  # a token was given
        return stored, seat

    def seat_of(self, stored: Stored, token: str | None, acting: bool = False) -> int | None:
        """The caller's seat: ``None`` without a token (a spectator); 401 for a wrong one. A seat
        its player left (a bot plays it, :meth:`leave`): its token and its player's read as a
        spectator's, and ``acting`` (a move, a leave) they are refused (409)."""
        if token is None:
            return None
        seat = self.token_seat(stored, token)
        if acting:
            still_human(stored.record, seat)
        # its player left: its token stays known, acting for nothing
        return seat if stored.record.is_human(seat) else None

    def token_seat(self, stored: Stored, token: str) -> int:
        """The seat ``token`` (a seat's, or its bound player's) verifies to, whether or not its
        player has left it; 401 for none (the rate limits count a left seat's requests as that
        seat's, not as a stranger's)."""
        seat = tokens.find_seat(token, stored.record.token_hashes)
        if seat is None and self.players is not None and stored.record.player_ids:
            player = self.players.identify(token)  # a player's token acts for its bound seat
            if player is not None and player.id in stored.record.player_ids:
                seat = stored.record.player_ids.index(player.id)
        if seat is None:
            raise AuthenticationError("This token belongs to no seat of this game.")
        return seat

    def state_of(self, stored: Stored) -> Any:
        """The engine state of ``stored``, decoded at most once a version in this process: kept
        with the read (``Stored.derived``), and shared with the game this process remembers
        (:class:`RecentGames`) when that is the same version with the same state document.

        Safe to share: an engine's states are immutable values (frozen dataclasses; apply, views
        and listings never change their input, ``tests/contract``), and the same document always
        decodes to the same value (the golden corpus replays through the codec and without it)."""
        derived = stored.derived
        state = derived.get(STATE)
        if state is None:
            known = self.recent.get(stored.record.id) if not stored.cached else None
            if known is not None and known.version == stored.version and STATE in known.derived \
                    and (known.doc is stored.doc or known.doc["state"] == stored.doc["state"]):
                state = known.derived[STATE]
            else:
                state = self.engine.load(stored.record.state)
            derived[STATE] = state
        return state

    def envelope(self, stored: Stored, seat: int | None, state: Any = None) -> dict[str, Any]:
        if state is None:
            state = self.state_of(stored)
        return self.presenter.envelope(stored.version, stored.record, seat, state)

    def actions(self, stored: Stored, seat: int | None, expand: bool = False) -> dict[str, Any]:
        if seat is None:
            raise AuthenticationError("Listing actions needs a seat token.")
        return self.presenter.actions(stored.version, stored.record.status, seat, self.state_of(stored), expand)

    def events(self, game_id: str, seat: int | None, after: int, wait: float) -> dict[str, Any]:
        """The caller's events after ``after``, in the caller's numbering
        (:mod:`~ludoteca.service_layer.numbering`: its events are numbered 1, 2, 3, ... from its
        side); waits up to ``wait`` seconds for one to arrive. ``last_seq``: the caller's last
        number read (``after`` when none came).

        The store blocks in slices shorter than the Redis socket timeout: this loops until an
        event arrives or the deadline passes. Each viewer reads its own stream, so only an
        event it may see wakes it."""
        deadline = time.monotonic() + max(0.0, wait)
        index = viewer(seat)
        while True:
            remaining_ms = int((deadline - time.monotonic()) * 1000)
            block_ms = remaining_ms if remaining_ms > 0 else None
            batch = self.store.viewer_events(game_id, index, after, block_ms=block_ms)
            if batch:
                return {"events": batch, "last_seq": batch[-1]["seq"]}
            if block_ms is None or time.monotonic() >= deadline:  # the wait (if any) is over
                return {"events": [], "last_seq": after}

    def replay(self, game_id: str) -> dict[str, Any]:
        """After the end, everything: the actions, every event with its audience in the global
        order (``seq``: the game's own numbering, not a viewer's), the seed and the final state."""
        stored = self._load(game_id)
        record = stored.record
        if record.status is not FINISHED:
            raise ConflictError("The replay opens when the game is over.", game_status=record.status.value)
        actions = self.store.action_log(game_id)
        events = [rec for _, rec in self.store.events_after(game_id, 0, count=1_000_000)]
        state = self.engine.load(record.state)
        return {
            "id": record.id, "game": self.d.name, "seed": record.seed, "seed_sha256": record.seed_sha256,
            "players": list(record.players), "names": list(record.names), "options": record.options,
            "actions": actions, "events": events, "final_state": record.state,
            "result": result_body(self.engine.result(state)),
        }

    def lobby(self, page: int, page_size: int) -> dict[str, Any]:
        total, ids = self.store.lobby_page((page - 1) * page_size, page_size)
        items = []
        for gid in ids:
            try:
                stored = self.store.load(gid)
            except GameMissing:
                continue
            record = stored.record
            items.append({
                "id": gid, "version": stored.version, "created_at": record.created_at,
                "seats": len(record.players), "open_seats": record.open_seats,
                "players": list(record.players), "options": record.options,
            })
        return {"items": items, "page": page, "page_size": page_size, "total": total}

    def leaderboard(self, limit: int) -> list[dict[str, Any]]:
        """The players (bots by level) with the most wins over the recorded games, at most ``limit``."""
        return self.store.leaderboard(limit)

    def rated(self, limit: int) -> list[dict[str, Any]]:
        """The ``limit`` best players of this game by rating (none without players)."""
        return self.players.leaderboard(self.d.name, limit) if self.players is not None else []

    def stats(self) -> Totals:
        """The counts over every recorded game."""
        return Totals.from_counters(self.store.stats())

    # -- playing ----------------------------------------------------------------------------
    def play(self, game_id: str, seat: int | None, body: Any, if_match: int | None,
             idempotency_key: str | None, loaded: Stored | None = None,
             quota: Quota | None = None, timeout_bot: str | None = None, by_bot: bool = False) -> Played:
        """Apply one action: :meth:`check_move`, :meth:`step`, :meth:`commit_move`.

        ``loaded``: the game as the caller already read it (saves a read on the first attempt;
        retries after a lost compare-and-set read again). ``quota``: the seat's write quota,
        spent by the commit (or, for a refused request, by :meth:`_refused`). ``timeout_bot``:
        the move is a timed-out turn played by that bot level (:mod:`ludoteca.service_layer.timers`).
        ``by_bot``: a bot plays its own seat (:meth:`bot_turn`); any other move is refused (409)
        on every attempt once the seat's player has left, whichever version the caller started
        from (a process's memory may predate a leave committed by another).

        A game with a turn timer starts from a fresh read (not from memory), and a move of a
        seat whose turn timed out since that read is refused (:class:`TurnTimedOutError`)."""
        if seat is None:
            raise AuthenticationError("Playing needs a seat token (Authorization: Bearer <token>).")
        if loaded is not None and loaded.cached and self.turn_timers.is_timed(loaded.record):
            loaded = None
        started: int | None = None
        try:
            action = self.parse_action(body)  # whatever the game's state: a body is validated once
            for _ in range(MAX_RETRIES):
                stored = loaded or self._reload(game_id)
                loaded = None
                started = stored.version if started is None else started
                try:
                    if not by_bot and timeout_bot is None:
                        still_human(stored.record, seat)
                    clock = stored.record.timer
                    if timeout_bot is None and clock is not None and clock.is_overtaken(seat, started):
                        raise TurnTimedOutError(
                            f"Seat {seat}'s turn timed out at version {started}: a bot played it; see the game.",
                            current_version=stored.version)
                    self.check_move(stored, if_match)
                    state = self.state_of(stored)
                    move = self.step(stored, state, seat, action, timeout_bot)
                except LudotecaError:
                    if stored.cached:  # refused on the game as remembered: check the stored one
                        continue
                    raise
                played, current = self.commit_move(game_id, stored, seat, move, body, idempotency_key, quota,
                                                   strict=if_match is not None)
                if played is not None:
                    return played
                loaded = current
            raise ConflictError("The game is too busy right now; try again.")
        except (RateLimitedError, IdempotencyConflictError):
            raise
        except LudotecaError:
            stored_answer = self.quotas.refused(game_id, seat, idempotency_key, quota)
            if stored_answer is not None:  # a replay wins over the checks
                return self._replay_record(stored_answer, body_hash(body))
            raise

    def check_move(self, stored: Stored, if_match: int | None) -> None:
        """The checks of the game before the engine runs: the version the caller saw (412) and a
        game that has started and is not over (409). The action's body is validated before them
        (:meth:`parse_action`, 422), once a request: a malformed body is refused whatever the
        version (schemathesis's negative-data check found a stale ``If-Match`` answering 412 to a
        body that is no action), and a retry on another version does not validate it again."""
        if if_match is not None and if_match != stored.version:
            raise StaleVersionError(
                f"If-Match names version {if_match}; the game is at version {stored.version}.",
                current_version=stored.version)
        status = stored.record.status
        if status is WAITING:
            raise GameNotStartedError("The game starts when every seat is claimed.", game_status=status.value)
        if status is FINISHED:  # a 409 says the status (docs/clients.md), and that nothing is legal any more
            raise GameOverError("The game is over; see its replay.", game_status=status.value, legal=[])

    def step(self, stored: Stored, state: Any, seat: int, action: dict[str, Any],
             timeout_bot: str | None = None) -> Move:
        """The engine step: the new state, its events and the seat's response (pure but for the
        clock of a timed game). ``timeout_bot``: a timed-out turn played by that bot level: a
        ``TurnTimedOut`` event comes first and every event of the move says ``by: timeout``."""
        record = stored.record
        chosen = self.turn_timers.is_choice(record, state, seat)  # before the move: a forfeit's measure
        new_state, events = self.engine.apply(state, seat, action)
        by = None
        if timeout_bot is not None:
            events = [self.turn_timers.timed_out(record, seat, timeout_bot), *events]
            by = records.BY_TIMEOUT
        version = stored.version + 1
        written = records.records(record.event_count + 1, version, events, by)
        shown, counts = number(written, record.counts)
        result = self.engine.result(new_state)
        to_act = self.engine.to_act(new_state) if result is None else frozenset()
        new = replace(record, state=self.engine.dump(new_state), event_count=record.event_count + len(written),
                      viewer_counts=counts, status=FINISHED if result is not None else record.status)
        new = self.turn_timers.clocked(new, new_state, seat, version, to_act, timed_out=timeout_bot is not None,
                                       chosen=chosen)
        response = {
            "action": action, "seat": seat,
            "events": for_viewer(shown, viewer(seat)),
            "game": self.presenter.envelope(version, new, seat, new_state, result, to_act),
            # the mover's next listing (one request a move), stored with the answer (a replay is the
            # same bytes); not listed for a bot's move or a timed-out turn: no client reads that answer
            "next": self.presenter.next_actions(version, new.status, seat, new_state, to_act)
            if timeout_bot is None and record.is_human(seat) else None,
        }
        due = self._due(new, new_state, to_act)
        ask = due.kind is not DueKind.BOT and bool(self.bots.out_of_turn(new, new_state, to_act))
        told: list[notes.Notice] = []
        if any(record.player_ids):  # only a game with players pays for the notices
            before = self.engine.to_act(state) if record.status is ACTIVE else frozenset()
            told = notes.of_commit(self.d.name, record, before, new, to_act, version, result,
                                   seat if timeout_bot is not None else None)
        return Move(version, new, new_state, written, shown, due, response, ask, told)

    def commit_move(self, game_id: str, stored: Stored, seat: int, move: Move, body: Any,
                    idempotency_key: str | None, quota: Quota | None, strict: bool = False
                    ) -> tuple[Played | None, Stored | None]:
        """The one write of a move. ``(played, None)`` when it landed (or replayed the stored
        response); ``(None, current game)`` when another writer won the version (retry), or 412
        with ``strict`` (the caller named the version it played at)."""
        idem = None
        if idempotency_key is not None:
            idem = IdempotencyEntry(seat, idempotency_key,
                                    {"hash": body_hash(body), "body": move.response, "version": move.version})
        doc = move.record.to_doc()
        work = UnitOfWork(game_id, doc, move.events, move.shown, len(move.record.viewer_counts), move.due,
                          expected_version=stored.version,
                          log_entry={"version": move.version, "seat": seat, "action": move.response["action"]},
                          idempotency=idem, quota=quota, notices=move.notices)
        try:
            res = self.store.commit(work)
        except GameMissing:  # expired since this process last saw it
            self.recent.forget(game_id)
            raise self._missing(game_id) from None
        if res.status == "ok":
            self.recent.put(game_id, res.version, doc, move.state)
            if move.due.kind is DueKind.RESULT:  # this move ended the game
                self.observer.game_finished(self.d.name)
            self._dispatch(game_id, res.version, move.due)
            if move.ask:
                self._ask(game_id, res.version)
            if move.notices:
                self._relay(game_id)
            return Played(move.response, move.version, replayed=False), None
        if res.status == "limited":
            raise self.quotas.limited(quota, res.retry_after)
        if res.status == "idempotent" and res.replay is not None:
            return self._replay_record(res.replay, body_hash(body)), None
        if res.current is not None:
            self.recent.put(game_id, res.current.version, res.current.doc)
        if strict:
            raise StaleVersionError("The game moved on while this move was being applied.",
                                    current_version=res.version)
        return None, res.current

    def bot_turn(self, game_id: str, version: int) -> str:
        """Play one bot move if the game is still at ``version`` (idempotent task body): first a
        bot that may act out of turn and chooses to (``GameDefinition.interrupts``: ``interrupted``),
        else a bot seat's turn, else, past its deadline, the turn of the lowest waiting human seat
        of a timed game (:mod:`ludoteca.service_layer.timers`) with the game's timeout bot
        (``timed-out``)."""
        try:
            stored = self._load(game_id)
        except NotFoundError:
            return "missing"
        record = stored.record
        if stored.version != version or record.status is not ACTIVE:
            return "stale"
        state = self.state_of(stored)
        to_act = self.engine.to_act(state)
        for seat in self.bots.out_of_turn(record, state, to_act):  # out of turn first: as a table lets them
            action = self.bots.interrupt(record, state, seat, version)
            if action is not None:
                try:
                    self.play(game_id, seat, action, version, None, loaded=stored, by_bot=True)
                except StaleVersionError:
                    return "stale"
                return "interrupted"
        bot_seats = [s for s in sorted(to_act) if not record.is_human(s)]
        timeout_bot = None
        if bot_seats:
            seat = bot_seats[0]
            level = str(record.level(seat))
        else:
            if self.turn_timers.before_deadline(record):
                return "early"  # the sweeper dispatches it again after the deadline
            waiting = self.turn_timers.waiting_seat(record, to_act)
            if waiting is None:
                return "no-bot"
            seat = waiting
            level = timeout_bot = self.turn_timers.timeout_level(record)
        action = self.bots.choose(level, record, state, seat, version)
        try:
            self.play(game_id, seat, action, version, None, loaded=stored, timeout_bot=timeout_bot,
                      by_bot=timeout_bot is None)
        except StaleVersionError:
            return "stale"
        return "played" if timeout_bot is None else "timed-out"

    def record_result(self, game_id: str) -> bool:
        """Record a finished game's result exactly once (idempotent task body)."""
        stored = self._load(game_id)
        state = self.engine.load(stored.record.state)
        result = self.engine.result(state)
        if result is None:
            return False
        names = [n or f"seat {i}" for i, n in enumerate(stored.record.names)]
        entries = [(names[i], i in result.winners, result.scores[i] if i < len(result.scores) else 0.0)
                   for i in range(len(names))]
        recorded = self.store.record_result(game_id, entries, shared=len(result.winners) > 1)
        if self.players is not None and any(stored.record.player_ids):  # once, however often this runs
            self.players.rate(self.d.name, game_id, stored.record.player_ids, result, forfeit_seats(stored.record))
        self.store.clear_result_due(game_id)  # after the record: a crash in between records again, once
        return recorded

    # -- internals --------------------------------------------------------------------------
    def _intend(self, player: PlayerRef | None, game_id: str) -> None:
        """Before a commit binding a seat to ``player``: the player's intent, in its own slot
        (the game's commit never touches a player's slot; :mod:`~ludoteca.service_layer.mygames`)."""
        if player is not None and self.players is not None:
            self.players.games.intend(player.id, self.d.name, game_id)

    def _confirm(self, player: PlayerRef | None, game_id: str, created: float) -> None:
        """After the commit: the game in the player's list (a fault before this is settled by
        a read of the list, against the game)."""
        if player is not None and self.players is not None:
            self.players.games.confirm(player.id, self.d.name, game_id, created)

    def _notices(self, before: GameRecord | None, before_to_act: frozenset[int], after: GameRecord, state: Any,
                 version: int) -> list[notes.Notice]:
        """The notices of a commit of no move (a creation, a join) making ``after`` of ``before``."""
        if not any(after.player_ids):
            return []
        to_act = self.engine.to_act(state) if after.status is ACTIVE else frozenset()
        return notes.of_commit(self.d.name, before, before_to_act, after, to_act, version,
                               self.engine.result(state) if after.status is FINISHED else None)

    def _relay(self, game_id: str) -> None:
        """Right after a commit that wrote notices: relay them to the players' streams. A failure
        (the process dying included) loses nothing: the outbox keeps them, the sweeper relays."""
        if self.players is None:
            return
        try:
            self.players.relay(self.d.name, game_id)
        except Exception:
            log.warning("relaying the notices of %s %s failed; the sweeper will", self.d.name, game_id,
                        exc_info=True)

    def _load(self, game_id: str) -> Stored:
        try:
            return self.store.load(game_id)
        except GameMissing:
            raise self._missing(game_id) from None

    def _missing(self, game_id: str) -> NotFoundError:
        return NotFoundError(f"No {self.d.title} game with id {game_id!r} (or it has expired).")

    def _reload(self, game_id: str) -> Stored:
        stored = self._load(game_id)
        self.recent.put(game_id, stored.version, stored.doc)
        return stored

    def _status(self, record: GameRecord, state: Any) -> Status:
        if self.engine.result(state) is not None:
            return FINISHED
        return ACTIVE if record.is_full else WAITING

    def _due(self, record: GameRecord, state: Any, to_act: frozenset[int] | None = None) -> DueWork:
        """What a version with this record makes due: a bot's turn, a human's timed turn (due
        at its deadline), the result or nothing."""
        if record.status is FINISHED:
            return DueWork(DueKind.RESULT)
        if record.status is ACTIVE:
            seats = self.engine.to_act(state) if to_act is None else to_act
            if any(not record.is_human(s) for s in seats):
                return DueWork(DueKind.BOT)
            if record.timer is not None and record.timer.deadline is not None:
                return DueWork(DueKind.TURN, int(record.timer.deadline * 1000))
        return NOTHING_DUE

    def _ask(self, game_id: str, version: int) -> None:
        """Give the bots that may act out of turn their chance at ``version`` (a ``bot_turn`` task).
        Not recorded as due: a bot that may act is not one the game waits on, so a lost task
        loses nothing the game needs (the next move asks again)."""
        try:
            self.dispatcher.bot_turn(self.d.name, game_id, version)
        except Exception:
            log.warning("asking the out-of-turn bots of %s %s v%s failed", self.d.name, game_id, version,
                        exc_info=True)

    def _dispatch(self, game_id: str, version: int, due: DueWork) -> None:
        """Dispatch what the commit made due (a timed turn only when its deadline has passed
        already, else the sweeper does it then). A failure never fails the request (the move is
        committed): it is logged, and the sweeper dispatches it again."""
        if not due.ready(self.clock):
            return
        try:
            if due.kind is DueKind.RESULT:
                self.dispatcher.record_result(self.d.name, game_id)
            else:
                self.dispatcher.bot_turn(self.d.name, game_id, version)
        except Exception:
            log.warning("dispatch of %s for %s %s v%s failed; the sweeper will retry it",
                        due.kind.value, self.d.name, game_id, version, exc_info=True)

    @staticmethod
    def _replay_record(record: Mapping[str, Any], fingerprint: str) -> Played:
        if record["hash"] != fingerprint:
            raise IdempotencyConflictError(
                "This Idempotency-Key was already used with a different request body.")
        return Played(dict(record["body"]), int(record["version"]), replayed=True)
