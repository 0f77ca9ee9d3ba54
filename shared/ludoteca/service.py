"""The service layer: every use case of a hosted game, independent of HTTP and Celery.

The web layer parses a request, calls one method here and renders the result; the worker calls
the same methods for bot turns and results. Each method loads the game, runs the pure engine and
commits through the store's compare-and-set, so a move is applied exactly once or not at all.
Everything a client receives is built from ``engine.view`` for the caller's seat.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import random
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ludoteca import tokens
from ludoteca.engine import Event, GameDefinition, GameResult
from ludoteca.errors import (
    AuthenticationError,
    ConflictError,
    FieldValidationError,
    GameNotStartedError,
    GameOverError,
    IdempotencyConflictError,
    NotFoundError,
    SeatTakenError,
    StaleVersionError,
)
from ludoteca.rng import Rng, commitment, new_seed
from ludoteca.store import GameMissing, GameStore, Stored
from marshmallow import ValidationError as MaValidationError

WAITING, ACTIVE, FINISHED = "waiting_for_players", "active", "finished"
MAX_RETRIES = 8
log = logging.getLogger("ludoteca.service")


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


@dataclass(frozen=True)
class Played:
    """The outcome of a posted action: the response body and whether it was a replay."""

    body: dict[str, Any]
    version: int
    replayed: bool


def _body_hash(body: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _event_record(seq: int, version: int, event: Event) -> dict[str, Any]:
    return {
        "seq": seq, "version": version, "type": event.type, "data": event.data,
        "audience": None if event.audience is None else sorted(event.audience),
    }


def _visible(record: Mapping[str, Any], seat: int | None) -> bool:
    audience = record.get("audience")
    return audience is None or (seat is not None and seat in audience)


def _public_event(record: Mapping[str, Any]) -> dict[str, Any]:
    return {k: record[k] for k in ("seq", "version", "type", "data")}


class GameService:
    """Use cases of one hosted game."""

    def __init__(self, definition: GameDefinition, store: GameStore, dispatcher: Dispatcher,
                 clock: Callable[[], float] = time.time) -> None:
        self.d = definition
        self.engine = definition.engine
        self.store = store
        self.dispatcher = dispatcher
        self.clock = clock

    # -- input ------------------------------------------------------------------------------
    def parse_action(self, body: Any) -> dict[str, Any]:
        """Validate a posted action with the schema its ``type`` names."""
        if not isinstance(body, Mapping):
            raise FieldValidationError("The action must be a JSON object.",
                                       errors={"_schema": ["Expected a JSON object."]})
        kind = body.get("type")
        schema_cls = self.d.action_schemas.get(kind) if isinstance(kind, str) else None
        if schema_cls is None:
            shown = kind[:40] + "..." if isinstance(kind, str) and len(kind) > 40 else kind
            raise FieldValidationError(
                f"Unknown action type {shown!r}.",
                errors={"type": [f"Must be one of: {', '.join(sorted(self.d.action_schemas))}."]},
            )
        try:
            loaded = schema_cls().load(body)
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
            loaded = self.d.options_schema().load(options)
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
        state = self.engine.new_game(list(seats), opts, Rng(seed))
        game_id = secrets.token_hex(8)
        token_hashes: list[str | None] = [None] * n
        names = [kind if kind != "human" else "" for kind in seats]
        token = None
        if creator_seat is not None:
            token, token_hashes[creator_seat] = tokens.new_token()
            names[creator_seat] = name or f"seat {creator_seat}"
        doc: dict[str, Any] = {
            "id": game_id, "players": list(seats), "names": names, "token_hashes": token_hashes,
            "options": opts, "seed": seed, "seed_sha256": commitment(seed), "created_at": self.clock(),
            "event_count": 1, "status": WAITING, "state": self.engine.dump(state),
        }
        doc["status"] = self._status(doc, state)
        created = {"seq": 1, "version": 1, "type": "GameCreated", "audience": None,
                   "data": {"seats": list(seats), "options": opts, "seed_sha256": doc["seed_sha256"]}}
        if not self.store.create(game_id, doc, [created], due=self._due(doc, state)):  # pragma: no cover - id collision
            raise ConflictError("Game id collision; try again.")
        if doc["status"] == WAITING:
            self.store.lobby_add(game_id, doc["created_at"])
        stored = Stored(1, doc)
        self._after_commit(game_id, stored, state)
        return self.envelope(stored, creator_seat, state), creator_seat, token

    def join(self, game_id: str, seat: int | None, name: str | None) -> tuple[dict[str, Any], int, str]:
        for _ in range(MAX_RETRIES):
            stored = self._load(game_id)
            doc = stored.doc
            open_seats = [i for i, kind in enumerate(doc["players"])
                          if kind == "human" and doc["token_hashes"][i] is None]
            if seat is None:
                if not open_seats:
                    raise SeatTakenError("Every seat of this game is taken.")
                chosen = open_seats[0]
            elif not 0 <= seat < len(doc["players"]):
                raise FieldValidationError("No such seat.", errors={"seat": ["Out of range."]})
            elif seat not in open_seats:
                raise SeatTakenError(f"Seat {seat} is not open.", open_seats=open_seats)
            else:
                chosen = seat
            token, digest = tokens.new_token()
            new_doc = dict(doc)
            new_doc["token_hashes"] = list(doc["token_hashes"])
            new_doc["token_hashes"][chosen] = digest
            new_doc["names"] = list(doc["names"])
            new_doc["names"][chosen] = name or f"seat {chosen}"
            state = self.engine.load(doc["state"])
            new_doc["status"] = self._status(new_doc, state)
            seq = doc["event_count"] + 1
            new_doc["event_count"] = seq
            record = {"seq": seq, "version": stored.version + 1, "type": "SeatClaimed", "audience": None,
                      "data": {"seat": chosen, "name": new_doc["names"][chosen]}}
            if new_doc["status"] == ACTIVE:
                new_doc["event_count"] = seq + 1
                started = {"seq": seq + 1, "version": stored.version + 1, "type": "GameStarted",
                           "audience": None, "data": {}}
                events = [record, started]
            else:
                events = [record]
            res = self.store.commit(game_id, stored.version, new_doc, events, seq, due=self._due(new_doc, state))
            if res.status == "ok":
                if new_doc["status"] != WAITING:
                    self.store.lobby_remove(game_id)
                new_stored = Stored(res.version, new_doc)
                self._after_commit(game_id, new_stored, state)
                return self.envelope(new_stored, chosen, state), chosen, token
        raise ConflictError("The game is too busy right now; try again.")

    # -- reading ----------------------------------------------------------------------------
    def load(self, game_id: str) -> Stored:
        return self._load(game_id)

    def seat_of(self, stored: Stored, token: str | None) -> int | None:
        """The caller's seat: ``None`` without a token (a spectator); 401 for a wrong one."""
        if token is None:
            return None
        seat = tokens.find_seat(token, stored.doc["token_hashes"])
        if seat is None:
            raise AuthenticationError("This token belongs to no seat of this game.")
        return seat

    def envelope(self, stored: Stored, seat: int | None, state: Any = None) -> dict[str, Any]:
        doc = stored.doc
        if state is None:
            state = self.engine.load(doc["state"])
        result = self.engine.result(state)
        return {
            "id": doc["id"], "game": self.d.name, "version": stored.version, "status": doc["status"],
            "seed_sha256": doc["seed_sha256"], "created_at": doc["created_at"], "you": seat,
            "seats": [
                {"seat": i, "kind": "human" if kind == "human" else "bot",
                 "level": None if kind == "human" else kind[4:], "name": doc["names"][i] or None,
                 "claimed": kind != "human" or doc["token_hashes"][i] is not None}
                for i, kind in enumerate(doc["players"])
            ],
            "to_act": sorted(self.engine.to_act(state)) if doc["status"] == ACTIVE else [],
            "result": self._result_body(result),
            "state": self.engine.view(state, seat),
        }

    def actions(self, stored: Stored, seat: int | None) -> dict[str, Any]:
        if seat is None:
            raise AuthenticationError("Listing actions needs a seat token.")
        state = self.engine.load(stored.doc["state"])
        playing = stored.doc["status"] == ACTIVE
        return {
            "version": stored.version, "seat": seat, "status": stored.doc["status"],
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
                visible = [_public_event(rec) for _, rec in batch if _visible(rec, seat)]
                if visible:
                    return {"events": visible, "last_seq": cursor}
            if block_ms is None or time.monotonic() >= deadline:  # the wait (if any) is over
                return {"events": [], "last_seq": cursor}
            # Nothing yet, or only events this caller may not see: keep waiting.

    def replay(self, game_id: str) -> dict[str, Any]:
        stored = self._load(game_id)
        doc = stored.doc
        if doc["status"] != FINISHED:
            raise ConflictError("The replay opens when the game is over.", game_status=doc["status"])
        log = self.store.action_log(game_id)
        events = [rec for _, rec in self.store.events_after(game_id, 0, count=1_000_000)]
        state = self.engine.load(doc["state"])
        return {
            "id": doc["id"], "game": self.d.name, "seed": doc["seed"], "seed_sha256": doc["seed_sha256"],
            "players": doc["players"], "names": doc["names"], "options": doc["options"],
            "actions": log, "events": events, "final_state": doc["state"],
            "result": self._result_body(self.engine.result(state)),
        }

    def lobby(self, page: int, page_size: int) -> dict[str, Any]:
        total, ids = self.store.lobby_page((page - 1) * page_size, page_size)
        items = []
        for gid in ids:
            try:
                stored = self.store.load(gid)
            except GameMissing:
                continue
            doc = stored.doc
            items.append({
                "id": gid, "version": stored.version, "created_at": doc["created_at"],
                "seats": len(doc["players"]),
                "open_seats": [i for i, k in enumerate(doc["players"])
                               if k == "human" and doc["token_hashes"][i] is None],
                "players": doc["players"], "options": doc["options"],
            })
        return {"items": items, "page": page, "page_size": page_size, "total": total}

    # -- playing ----------------------------------------------------------------------------
    def play(self, game_id: str, seat: int | None, body: Any, if_match: int | None,
             idempotency_key: str | None, loaded: Stored | None = None) -> Played:
        """Apply one action. ``loaded``: the game as the caller already read it (saves a read on
        the first attempt; retries after a lost compare-and-set read again)."""
        if seat is None:
            raise AuthenticationError("Playing needs a seat token (Authorization: Bearer <token>).")
        body_hash = _body_hash(body) if isinstance(body, Mapping) else _body_hash({"_": repr(body)})
        for _ in range(MAX_RETRIES):
            stored = loaded or self._load(game_id)
            loaded = None
            if idempotency_key is not None:
                record = self.store.idempotency_record(game_id, seat, idempotency_key)
                if record is not None:
                    return self._replay_record(record, body_hash)
            if if_match is not None and if_match != stored.version:
                raise StaleVersionError(
                    f"If-Match names version {if_match}; the game is at version {stored.version}.",
                    current_version=stored.version)
            action = self.parse_action(body)
            doc = stored.doc
            if doc["status"] == WAITING:
                raise GameNotStartedError("The game starts when every seat is claimed.")
            state = self.engine.load(doc["state"])
            if doc["status"] == FINISHED:
                raise GameOverError("The game is over; see its replay.")
            new_state, events = self.engine.apply(state, seat, action)
            new_version = stored.version + 1
            first = doc["event_count"] + 1
            records = [_event_record(first + i, new_version, e) for i, e in enumerate(events)]
            new_doc = dict(doc)
            new_doc["state"] = self.engine.dump(new_state)
            new_doc["event_count"] = doc["event_count"] + len(records)
            new_doc["status"] = self._status(new_doc, new_state)
            new_stored = Stored(new_version, new_doc)
            response = {
                "action": action, "seat": seat,
                "events": [_public_event(r) for r in records if _visible(r, seat)],
                "game": self.envelope(new_stored, seat, new_state),
            }
            idem = None
            if idempotency_key is not None:
                idem = (seat, idempotency_key, {"hash": body_hash, "body": response, "version": new_version})
            log_entry = {"version": new_version, "seat": seat, "action": action}
            res = self.store.commit(game_id, stored.version, new_doc, records, first, log_entry, idem,
                                    due=self._due(new_doc, new_state))
            if res.status == "ok":
                self._after_commit(game_id, new_stored, new_state)
                return Played(response, new_version, replayed=False)
            if res.status == "idempotent" and res.replay is not None:
                return self._replay_record(res.replay, body_hash)
            if if_match is not None:
                raise StaleVersionError("The game moved on while this move was being applied.",
                                        current_version=res.version)
        raise ConflictError("The game is too busy right now; try again.")

    def bot_turn(self, game_id: str, version: int) -> str:
        """Play one bot move if the game is still at ``version`` (idempotent task body)."""
        try:
            stored = self._load(game_id)
        except NotFoundError:
            return "missing"
        if stored.version != version or stored.doc["status"] != ACTIVE:
            return "stale"
        state = self.engine.load(stored.doc["state"])
        players = stored.doc["players"]
        bot_seats = [s for s in sorted(self.engine.to_act(state)) if players[s] != "human"]
        if not bot_seats:
            return "no-bot"
        seat = bot_seats[0]
        bot = self.d.bots[players[seat][4:]]
        view = self.engine.view(state, seat)
        legal = self.engine.legal_actions(state, seat) + self.engine.action_templates(state, seat)
        action = bot(view, legal, bot_random(stored.doc["seed"], version, seat))
        try:
            self.play(game_id, seat, dict(action), version, None, loaded=stored)
        except StaleVersionError:
            return "stale"
        return "played"

    def record_result(self, game_id: str) -> bool:
        """Record a finished game's result exactly once (idempotent task body)."""
        stored = self._load(game_id)
        state = self.engine.load(stored.doc["state"])
        result = self.engine.result(state)
        if result is None:
            return False
        names = [n or f"seat {i}" for i, n in enumerate(stored.doc["names"])]
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
            raise NotFoundError(f"No {self.d.title} game with id {game_id!r} (or it has expired).") from None

    def _status(self, doc: Mapping[str, Any], state: Any) -> str:
        if self.engine.result(state) is not None:
            return FINISHED
        pairs = zip(doc["players"], doc["token_hashes"], strict=True)
        filled = all(kind != "human" or h is not None for kind, h in pairs)
        return ACTIVE if filled else WAITING

    def _due(self, doc: Mapping[str, Any], state: Any) -> str:
        """What a version with this document makes due: ``bot``, ``result`` or nothing."""
        status = doc["status"]
        if status == FINISHED:
            return "result"
        if status == ACTIVE:
            players = doc["players"]
            if any(players[s] != "human" for s in self.engine.to_act(state)):
                return "bot"
        return ""

    def _after_commit(self, game_id: str, stored: Stored, state: Any) -> None:
        """Dispatch what the commit made due. A failure never fails the request (the move is
        committed): it is logged, and the sweeper dispatches it again."""
        due = self._due(stored.doc, state)
        try:
            if due == "result":
                self.dispatcher.record_result(self.d.name, game_id)
            elif due == "bot":
                self.dispatcher.bot_turn(self.d.name, game_id, stored.version)
        except Exception:
            log.warning("dispatch of %s for %s %s v%s failed; the sweeper will retry it",
                        due, self.d.name, game_id, stored.version, exc_info=True)

    @staticmethod
    def _replay_record(record: Mapping[str, Any], body_hash: str) -> Played:
        if record["hash"] != body_hash:
            raise IdempotencyConflictError(
                "This Idempotency-Key was already used with a different request body.")
        return Played(dict(record["body"]), int(record["version"]), replayed=True)

    @staticmethod
    def _result_body(result: GameResult | None) -> dict[str, Any] | None:
        if result is None:
            return None
        return {"winners": list(result.winners), "scores": list(result.scores), "summary": result.summary}
