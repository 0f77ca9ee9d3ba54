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
import hmac
import json
import logging
import random
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from ludoteca.core import tokens
from ludoteca.core.engine import Event, GameDefinition
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
from ludoteca.service_layer import timers
from ludoteca.service_layer.presenter import Presenter, is_visible, public_event, result_body
from ludoteca.service_layer.record import GameRecord, Status
from ludoteca.service_layer.repository import GameMissing, GameRepository, Quota, Stored
from marshmallow import ValidationError as MaValidationError

WAITING, ACTIVE, FINISHED = Status.WAITING, Status.ACTIVE, Status.FINISHED
MAX_RETRIES = 8
log = logging.getLogger("ludoteca.service_layer.service")


def bot_random(seed: str, version: int, seat: int) -> random.Random:
    """The private generator of the bot at ``seat`` playing at ``version``: seeded from
    ``HMAC-SHA256(game seed, "bot:<version>:<seat>")``. Without the game's secret seed nobody can
    predict it (the game id, the versions and the seats are public); with it (the replay reveals
    it after the end) every bot choice is exactly reproducible."""
    mac = hmac.new(bytes.fromhex(seed), f"bot:{version}:{seat}".encode(), hashlib.sha256).digest()
    return random.Random(int.from_bytes(mac, "big"))


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
    sequence numbers), what it makes due and the response for the seat that played it."""

    version: int
    record: GameRecord
    state: Any
    events: list[dict[str, Any]]
    due: str
    due_at: int | None
    response: dict[str, Any]
    ask: bool = False
    """A bot seat may act out of turn at the new version (``GameDefinition.interrupts``): ask it."""


def body_hash(body: Any) -> str:
    """The fingerprint an Idempotency-Key's record keeps of the request body."""
    if not isinstance(body, Mapping):
        body = {"_": repr(body)}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _event_record(seq: int, version: int, event: Event) -> dict[str, Any]:
    return {
        "seq": seq, "version": version, "type": event.type, "data": event.data,
        "audience": None if event.audience is None else sorted(event.audience),
    }


STATE = "state"


class RecentGames:
    """The games this process last wrote or read for a move, at most ``size`` of them (least
    recently used go first), each with its engine state once decoded (or as the move that wrote
    it left it: :meth:`GameService.state_of`). Only a starting point: see the module docstring."""

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self._games: OrderedDict[str, Stored] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, game_id: str) -> Stored | None:
        with self._lock:
            stored = self._games.get(game_id)
            if stored is not None:
                self._games.move_to_end(game_id)
            return stored

    def forget(self, game_id: str) -> None:
        with self._lock:
            self._games.pop(game_id, None)

    def put(self, game_id: str, version: int, doc: dict[str, Any], state: Any = None) -> None:
        with self._lock:
            known = self._games.get(game_id)
            if known is not None and known.version > version:
                return
            stored = Stored(version, doc, cached=True)
            if state is not None:
                stored.derived[STATE] = state
            self._games[game_id] = stored
            self._games.move_to_end(game_id)
            while len(self._games) > self.size:
                self._games.popitem(last=False)


class GameService:
    """Use cases of one hosted game."""

    def __init__(self, definition: GameDefinition, store: GameRepository, dispatcher: Dispatcher,
                 clock: Callable[[], float] = time.time, observer: Observer | None = None,
                 min_turn_seconds: int = timers.MIN_SECONDS) -> None:
        self.d = definition
        self.observer = observer or Unobserved()
        self.engine = definition.engine
        self.store = store
        self.dispatcher = dispatcher
        self.clock = clock
        self.options_schema = timers.options_schema(definition, min_turn_seconds)
        """The game's options with the turn timer's (:mod:`ludoteca.service_layer.timers`)."""
        self.presenter = Presenter(definition, clock)
        self.recent = RecentGames()
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
               name: str | None) -> tuple[dict[str, Any], int | None, str | None]:
        n = len(seats)
        if not self.engine.min_seats <= n <= self.engine.max_seats:
            raise FieldValidationError(
                f"{self.d.title} needs {self.engine.min_seats} to {self.engine.max_seats} seats.",
                errors={"seats": [f"Length must be between {self.engine.min_seats} and {self.engine.max_seats}."]
                        },
            )
        for i, kind in enumerate(seats):
            if kind != "human" and not (kind.startswith("bot:") and kind[4:] in self.d.bots):
                raise FieldValidationError(
                    f"Seat {i}: unknown seat kind {kind!r}.",
                    errors={"seats": {str(i): ["Use 'human' or one of "
                                                + ", ".join("bot:" + b for b in self.d.bots) + "."]}},
                )
        if creator_seat is not None and not (0 <= creator_seat < n and seats[creator_seat] == "human"):
            raise FieldValidationError("The creator's seat must be a human seat of this game.",
                                       errors={"seat": ["Not a human seat."]})
        opts = self.parse_options(options)
        seed = new_seed()
        state = self.engine.new_game(list(seats), timers.engine_options(opts), Rng(seed))
        game_id = secrets.token_hex(8)
        token_hashes: list[str | None] = [None] * n
        names = [kind if kind != "human" else "" for kind in seats]
        token = None
        if creator_seat is not None:
            token, token_hashes[creator_seat] = tokens.new_token()
            names[creator_seat] = name or f"seat {creator_seat}"
        record = GameRecord(
            id=game_id, players=tuple(seats), names=tuple(names), token_hashes=tuple(token_hashes),
            options=opts, seed=seed, seed_sha256=commitment(seed), created_at=self.clock(),
            event_count=1, status=WAITING, state=self.engine.dump(state))
        record = self._clocked(replace(record, status=self._status(record, state)), state, None, 1)
        created = {"seq": 1, "version": 1, "type": "GameCreated", "audience": None,
                   "data": {"seats": list(seats), "options": opts, "seed_sha256": record.seed_sha256}}
        # the events a new game already holds (Ludor's first deal) follow GameCreated
        events = [created, *(_event_record(seq, 1, e) for seq, e in enumerate(self.engine.opening_events(state), 2))]
        record = replace(record, event_count=len(events))
        due = self._due(record, state)
        due_at = self._due_at(record, due)
        if not self.store.create(game_id, record.to_doc(), events, due=due,
                                 due_at=due_at):  # pragma: no cover - id collision
            raise ConflictError("Game id collision; try again.")
        self.observer.game_created(self.d.name)
        if record.status is WAITING:
            self.store.lobby_add(game_id, record.created_at)
        self._dispatch(game_id, 1, due, due_at)
        return self.presenter.envelope(1, record, creator_seat, state), creator_seat, token

    def join(self, game_id: str, seat: int | None, name: str | None) -> tuple[dict[str, Any], int, str]:
        for _ in range(MAX_RETRIES):
            stored = self._load(game_id)
            record = stored.record
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
            new = record.with_seat_claimed(chosen, digest, name or f"seat {chosen}")
            state = self.engine.load(record.state)
            new = replace(new, status=self._status(new, state))
            seq = record.event_count + 1
            version = stored.version + 1
            events = [{"seq": seq, "version": version, "type": "SeatClaimed", "audience": None,
                       "data": {"seat": chosen, "name": new.names[chosen]}}]
            if new.status is ACTIVE:
                events.append({"seq": seq + 1, "version": version, "type": "GameStarted",
                               "audience": None, "data": {}})
            new = self._clocked(replace(new, event_count=record.event_count + len(events)), state, None, version)
            due = self._due(new, state)
            due_at = self._due_at(new, due)
            res = self.store.commit(game_id, stored.version, new.to_doc(), events, seq, due=due, due_at=due_at)
            if res.status == "ok":
                if new.status is not WAITING:
                    self.store.lobby_remove(game_id)
                self._dispatch(game_id, res.version, due, due_at)
                return self.presenter.envelope(res.version, new, chosen, state), chosen, token
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

    def seat_for_move(self, game_id: str, token: str, stored: Stored | None = None) -> tuple[Stored, int]:
        """The game a move starts from (``stored``, else from memory if this process has the
        game) and the seat ``token`` verifies to (401 if none); a remembered game is read again
        before a token is refused (a seat may have been claimed since; a claimed seat's hash
        never changes)."""
        if stored is None:
            stored = self.load(game_id, recent=True)
        try:
            seat = self.seat_of(stored, token)
        except AuthenticationError:
            if not stored.cached:
                raise
            stored = self._reload(game_id)
            seat = self.seat_of(stored, token)
        assert seat is not None  # a token was given
        return stored, seat

    def seat_of(self, stored: Stored, token: str | None) -> int | None:
        """The caller's seat: ``None`` without a token (a spectator); 401 for a wrong one."""
        if token is None:
            return None
        seat = tokens.find_seat(token, stored.record.token_hashes)
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
                    and known.doc["state"] == stored.doc["state"]:
                state = known.derived[STATE]
            else:
                state = self.engine.load(stored.record.state)
            derived[STATE] = state
        return state

    def envelope(self, stored: Stored, seat: int | None, state: Any = None) -> dict[str, Any]:
        if state is None:
            state = self.state_of(stored)
        return self.presenter.envelope(stored.version, stored.record, seat, state)

    def actions(self, stored: Stored, seat: int | None) -> dict[str, Any]:
        if seat is None:
            raise AuthenticationError("Listing actions needs a seat token.")
        record = stored.record
        state = self.state_of(stored)
        playing = record.status is ACTIVE
        return {
            "version": stored.version, "seat": seat, "status": record.status.value,
            "actions": self.engine.legal_actions(state, seat) if playing else [],
            "templates": self.engine.action_templates(state, seat) if playing else [],
        }

    def events(self, game_id: str, seat: int | None, after: int, wait: float) -> dict[str, Any]:
        """The caller's events after ``after``; waits up to ``wait`` seconds for one to arrive.

        The store blocks in slices shorter than the Redis socket timeout: this loops until an
        event the caller may see arrives or the deadline passes."""
        deadline = time.monotonic() + max(0.0, wait)
        cursor = after
        while True:
            remaining_ms = int((deadline - time.monotonic()) * 1000)
            block_ms = remaining_ms if remaining_ms > 0 else None
            batch = self.store.events_after(game_id, cursor, block_ms=block_ms)
            if batch:
                cursor = batch[-1][0]
                visible = [public_event(rec) for _, rec in batch if is_visible(rec, seat)]
                if visible:
                    return {"events": visible, "last_seq": cursor}
            if block_ms is None or time.monotonic() >= deadline:  # the wait (if any) is over
                return {"events": [], "last_seq": cursor}
            # Nothing yet, or only events this caller may not see: keep waiting.

    def replay(self, game_id: str) -> dict[str, Any]:
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

    # -- playing ----------------------------------------------------------------------------
    def play(self, game_id: str, seat: int | None, body: Any, if_match: int | None,
             idempotency_key: str | None, loaded: Stored | None = None,
             quota: Quota | None = None, timeout_bot: str | None = None) -> Played:
        """Apply one action: :meth:`check_move`, :meth:`step`, :meth:`commit_move`.

        ``loaded``: the game as the caller already read it (saves a read on the first attempt;
        retries after a lost compare-and-set read again). ``quota``: the seat's write quota,
        spent by the commit (or, for a refused request, by :meth:`_refused`). ``timeout_bot``:
        the move is a timed-out turn played by that bot level (:mod:`ludoteca.service_layer.timers`).

        A game with a turn timer starts from a fresh read (not from memory), and a move of a
        seat whose turn timed out since that read is refused (:class:`TurnTimedOutError`)."""
        if seat is None:
            raise AuthenticationError("Playing needs a seat token (Authorization: Bearer <token>).")
        if loaded is not None and loaded.cached and timers.seconds_of(loaded.record.options) is not None:
            loaded = None
        started: int | None = None
        try:
            action = self.parse_action(body)  # whatever the game's state: a body is validated once
            for _ in range(MAX_RETRIES):
                stored = loaded or self._reload(game_id)
                loaded = None
                started = stored.version if started is None else started
                try:
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
            replayed = self._refused(game_id, seat, body, idempotency_key, quota)
            if replayed is not None:
                return replayed
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
            raise GameNotStartedError("The game starts when every seat is claimed.")
        if status is FINISHED:
            raise GameOverError("The game is over; see its replay.")

    def step(self, stored: Stored, state: Any, seat: int, action: dict[str, Any],
             timeout_bot: str | None = None) -> Move:
        """The engine step: the new state, its events and the seat's response (pure but for the
        clock of a timed game). ``timeout_bot``: a timed-out turn played by that bot level: a
        ``TurnTimedOut`` event comes first and every event of the move says ``by: timeout``."""
        record = stored.record
        new_state, events = self.engine.apply(state, seat, action)
        if timeout_bot is not None:
            deadline = record.timer.deadline if record.timer is not None else None
            events = [Event(timers.TIMED_OUT, {"seat": seat, "bot": timeout_bot,
                                               "deadline": None if deadline is None else timers.iso(deadline)}),
                      *events]
        version = stored.version + 1
        first = record.event_count + 1
        records = [_event_record(first + i, version, e) for i, e in enumerate(events)]
        if timeout_bot is not None:
            for rec in records:
                rec["by"] = timers.BY_TIMEOUT
        result = self.engine.result(new_state)
        to_act = self.engine.to_act(new_state) if result is None else frozenset()
        new = replace(record, state=self.engine.dump(new_state), event_count=record.event_count + len(records),
                      status=FINISHED if result is not None else record.status)
        new = self._clocked(new, new_state, seat, version, to_act, timed_out=timeout_bot is not None)
        response = {
            "action": action, "seat": seat,
            "events": [public_event(r) for r in records if is_visible(r, seat)],
            "game": self.presenter.envelope(version, new, seat, new_state, result, to_act),
        }
        due = self._due(new, new_state, to_act)
        ask = due != "bot" and bool(self._interrupters(new, new_state, to_act))
        return Move(version, new, new_state, records, due, self._due_at(new, due), response, ask)

    def commit_move(self, game_id: str, stored: Stored, seat: int, move: Move, body: Any,
                    idempotency_key: str | None, quota: Quota | None, strict: bool = False
                    ) -> tuple[Played | None, Stored | None]:
        """The one write of a move. ``(played, None)`` when it landed (or replayed the stored
        response); ``(None, current game)`` when another writer won the version (retry), or 412
        with ``strict`` (the caller named the version it played at)."""
        idem = None
        if idempotency_key is not None:
            idem = (seat, idempotency_key, {"hash": body_hash(body), "body": move.response, "version": move.version})
        log_entry = {"version": move.version, "seat": seat, "action": move.response["action"]}
        doc = move.record.to_doc()
        try:
            res = self.store.commit(game_id, stored.version, doc, move.events,
                                    move.record.event_count - len(move.events) + 1, log_entry, idem,
                                    due=move.due, quota=quota, due_at=move.due_at)
        except GameMissing:  # expired since this process last saw it
            self.recent.forget(game_id)
            raise self._missing(game_id) from None
        if res.status == "ok":
            self.recent.put(game_id, res.version, doc, move.state)
            if move.due == "result":  # this move ended the game
                self.observer.game_finished(self.d.name)
            self._dispatch(game_id, res.version, move.due, move.due_at)
            if move.ask:
                self._ask(game_id, res.version)
            return Played(move.response, move.version, replayed=False), None
        if res.status == "limited":
            raise self._limited(quota, res.retry_after)
        if res.status == "idempotent" and res.replay is not None:
            return self._replay_record(res.replay, body_hash(body)), None
        if res.current is not None:
            self.recent.put(game_id, res.current.version, res.current.doc)
        if strict:
            raise StaleVersionError("The game moved on while this move was being applied.",
                                    current_version=res.version)
        return None, res.current

    def _refused(self, game_id: str, seat: int, body: Any, idempotency_key: str | None,
                 quota: Quota | None) -> Played | None:
        """A move refused before or by its commit: spend its quota unit if the commit did not
        (over the quota: 429 instead) and, with an Idempotency-Key, replay the stored response
        if there is one (a replay wins over the checks). One round trip."""
        if quota is None and idempotency_key is None:
            return None
        idem = (game_id, seat, idempotency_key) if idempotency_key is not None else None
        if quota is not None:
            retry, record = self.store.spend(quota, idem)
            if retry is not None:
                raise self._limited(quota, retry)
        else:
            record = self.store.idempotency_record(game_id, seat, idempotency_key)  # type: ignore[arg-type]
        return None if record is None else self._replay_record(record, body_hash(body))

    @staticmethod
    def _limited(quota: Quota | None, retry: int) -> RateLimitedError:
        what = f"{quota.limit} {quota.what}" if quota is not None else "the write limit"
        return RateLimitedError(f"At most {what}; try again in {retry} s.", retry_after=retry)

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
        for seat in self._interrupters(record, state, to_act):  # out of turn first: as a table lets them
            interrupt = self.d.interrupts[record.players[seat][4:]]
            view = self.engine.view(state, seat)
            action = interrupt(view, self.engine.legal_actions(state, seat), bot_random(record.seed, version, seat))
            if action is not None:
                try:
                    self.play(game_id, seat, dict(action), version, None, loaded=stored)
                except StaleVersionError:
                    return "stale"
                return "interrupted"
        bot_seats = [s for s in sorted(to_act) if not record.is_human(s)]
        timeout_bot = None
        if bot_seats:
            seat = bot_seats[0]
            level = record.players[seat][4:]
        else:
            clock = record.timer
            if clock is None or not clock.deadline:
                return "no-bot"
            if not clock.is_due(self.clock()):
                return "early"  # the sweeper dispatches it again after the deadline
            waiting = [s for s in clock.seats if s in to_act and record.is_human(s)]
            if not waiting:
                return "no-bot"
            seat = waiting[0]
            level = timeout_bot = str(record.options.get(timers.BOT) or self.d.basic_bot or next(iter(self.d.bots)))
        bot = self.d.bots[level]
        view = self.engine.view(state, seat)
        legal = self.engine.legal_actions(state, seat) + self.engine.action_templates(state, seat)
        action = bot(view, legal, bot_random(record.seed, version, seat))
        try:
            self.play(game_id, seat, dict(action), version, None, loaded=stored, timeout_bot=timeout_bot)
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
        self.store.clear_result_due(game_id)  # after the record: a crash in between records again, once
        return recorded

    # -- internals --------------------------------------------------------------------------
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

    def _due(self, record: GameRecord, state: Any, to_act: frozenset[int] | None = None) -> str:
        """What a version with this record makes due: ``bot``, ``turn`` (a human's timed turn,
        due at its deadline), ``result`` or nothing."""
        if record.status is FINISHED:
            return "result"
        if record.status is ACTIVE:
            seats = self.engine.to_act(state) if to_act is None else to_act
            if any(not record.is_human(s) for s in seats):
                return "bot"
            if record.timer is not None and record.timer.deadline is not None:
                return "turn"
        return ""

    @staticmethod
    def _due_at(record: GameRecord, due: str) -> int | None:
        """When a timed turn falls due (its deadline, ms); ``None``: as it is committed."""
        if due != "turn" or record.timer is None or record.timer.deadline is None:
            return None
        return int(record.timer.deadline * 1000)

    def _clocked(self, record: GameRecord, state: Any, actor: int | None, version: int,
                 to_act: frozenset[int] | None = None, timed_out: bool = False) -> GameRecord:
        """The record with its turn clock moved on by a commit of ``actor`` at ``version`` (a
        game without a timer: as it is)."""
        seconds = timers.seconds_of(record.options)
        if seconds is None:
            return record
        waiting: frozenset[int] = frozenset()
        if record.status is ACTIVE:
            seats = self.engine.to_act(state) if to_act is None else to_act
            waiting = frozenset(s for s in seats if record.is_human(s))
        clock = timers.advance(record.timer, seconds, actor, waiting, self.clock(), version if timed_out else None)
        return replace(record, timer=clock)

    def _interrupters(self, record: GameRecord, state: Any, to_act: frozenset[int]) -> list[int]:
        """The bot seats the game does not wait on whose level may act out of turn
        (``GameDefinition.interrupts``) and whom the engine lets act now (``acts_out_of_turn``)."""
        out_of_turn = getattr(self.engine, "acts_out_of_turn", None)
        if not self.d.interrupts or out_of_turn is None or record.status is not ACTIVE:
            return []
        return [seat for seat, player in enumerate(record.players)
                if seat not in to_act and player[4:] in self.d.interrupts and not record.is_human(seat)
                and out_of_turn(state, seat)]

    def _ask(self, game_id: str, version: int) -> None:
        """Give the bots that may act out of turn their chance at ``version`` (a ``bot_turn`` task).
        Not recorded as due: a bot that may act is not one the game waits on, so a lost task
        loses nothing the game needs (the next move asks again)."""
        try:
            self.dispatcher.bot_turn(self.d.name, game_id, version)
        except Exception:
            log.warning("asking the out-of-turn bots of %s %s v%s failed", self.d.name, game_id, version,
                        exc_info=True)

    def _dispatch(self, game_id: str, version: int, due: str, due_at: int | None = None) -> None:
        """Dispatch what the commit made due (a timed turn only when its deadline has passed
        already, else the sweeper does it then). A failure never fails the request (the move is
        committed): it is logged, and the sweeper dispatches it again."""
        try:
            if due == "result":
                self.dispatcher.record_result(self.d.name, game_id)
            elif due == "bot" or (due == "turn" and due_at is not None and due_at <= self.clock() * 1000):
                self.dispatcher.bot_turn(self.d.name, game_id, version)
        except Exception:
            log.warning("dispatch of %s for %s %s v%s failed; the sweeper will retry it",
                        due, self.d.name, game_id, version, exc_info=True)

    @staticmethod
    def _replay_record(record: Mapping[str, Any], fingerprint: str) -> Played:
        if record["hash"] != fingerprint:
            raise IdempotencyConflictError(
                "This Idempotency-Key was already used with a different request body.")
        return Played(dict(record["body"]), int(record["version"]), replayed=True)
