"""Matchmaking (issue 23, item 5): ``POST /<game>/matchmaking`` queues a player's ticket; when
enough compatible tickets wait (the same game, seat count and options: one *pool*), one game is
made for them with the service's own create and join (names and bindings as for a created
game), each ticket points at it and each player hears ``matched`` on their stream.

- **Close ratings first.** A pool's tickets are ordered by the players' rating ordinal in the
  game (OpenSkill's ``mu - 3 sigma``, :mod:`~ludoteca.service_layer.ratings`). A group is
  ``seats`` consecutive tickets; it may play when its spread (highest minus lowest ordinal) is
  within the window of its longest-waiting ticket, ``base + widen * seconds waited``; among the
  groups that may play, the smallest spread goes first.
- **Atomic.** The claim is one script in the game type's matchmaking slot (``MatchQueue.claim``):
  it takes the tickets out of the queue and marks them claimed in the same step, so however many
  matchers run at once (every ``POST`` and ``GET`` runs one, bounded to a few groups) a ticket is
  in at most one group, and a group is made only whole.
- **Fill with bots.** A ticket with ``fill_with_bots: {level, after_seconds}`` that waited that
  long unmatched is claimed alone: a game of the player and bots of that level.
- **Tickets go.** A ticket expires ``ticket_ttl`` seconds after its last change; one whose player
  stops polling (no ``GET`` within ``poll_timeout`` seconds) leaves the queue at the next claim.
  A claimed ticket whose game was never made (its matcher died between the claim and the
  create) goes back to the queue at its player's next ``GET`` after ``claim_grace`` seconds (a
  matcher killed after the create but before the ticket says so could leave that game behind
  with its seats bound: it shows in the players' games, their tickets wait again).

Who matches: the request that queues or polls a ticket, for its pool (cheap: one script over
that pool's waiting tickets, bounded by the queue's cap). No sweeper pass: a pool nobody polls
has nobody to match (its tickets stop polling and leave).
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from ludoteca.core.errors import ConflictError, FieldValidationError, NotFoundError, UnavailableError
from ludoteca.service_layer import notices as notes
from ludoteca.service_layer import seats as seat_kinds
from ludoteca.service_layer.mygames import PlayerRef
from ludoteca.service_layer.service import GameService

log = logging.getLogger("ludoteca.service_layer.matching")

WAITING, CLAIMED, MATCHED, CANCELLED, EXPIRED = "waiting", "claimed", "matched", "cancelled", "expired"
STATES = (WAITING, CLAIMED, MATCHED, CANCELLED, EXPIRED)
POLL_TIMEOUT_SECONDS = 30.0
"""A waiting ticket not polled for this long is abandoned: it leaves the queue and no longer counts
in its pool's cap (the matcher's default ``poll_timeout``; the API's texts say it from here)."""


class MatchQueue(Protocol):
    """One game type's tickets (``ludoteca.adapters.players.MatchQueues``)."""

    def enqueue(self, ticket: str, body: dict[str, Any], ordinal: float, timeout: float) -> tuple[str, str | None]: ...

    def claim(self, pool: str, seats: int, now: float, base: float, widen: float, timeout: float,
              most: int = 10) -> list[tuple[str, list[str]]]: ...

    def get(self, ticket: str) -> dict[str, Any] | None: ...

    def update(self, ticket: str, states: Sequence[str], **changes: Any) -> dict[str, Any] | None: ...

    def requeue(self, ticket: str, body: dict[str, Any]) -> None: ...

    def dequeue(self, ticket: str, pool: str) -> None: ...


def pool_of(seats: int, options: Mapping[str, Any]) -> str:
    """The pool of compatible tickets: the seat count and the options, as loaded."""
    text = json.dumps({"seats": seats, "options": options}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class Matchmaker:
    """Matchmaking of one game (see the module docstring)."""

    def __init__(self, service: GameService, queue: MatchQueue, ordinal: Callable[[str], float],
                 tell: Callable[[str, str, dict[str, Any]], int], clock: Callable[[], float] = time.time,
                 base: float = 3.0, widen: float = 1.0, poll_timeout: float = POLL_TIMEOUT_SECONDS,
                 claim_grace: float = 30.0) -> None:
        self.service = service
        self.queue = queue
        self.ordinal = ordinal
        self.tell = tell
        self.clock = clock
        self.base, self.widen = base, widen
        self.poll_timeout = poll_timeout
        self.claim_grace = claim_grace

    # -- the routes' use cases ----------------------------------------------------------------
    def post(self, player: PlayerRef, seats: int, options: Any, fill: Mapping[str, Any] | None) -> dict[str, Any]:
        engine, d = self.service.engine, self.service.d
        if not engine.min_seats <= seats <= engine.max_seats:
            raise FieldValidationError(f"{d.title} needs {engine.min_seats} to {engine.max_seats} seats.",
                                       errors={"seats": [f"Between {engine.min_seats} and {engine.max_seats}."]})
        opts = self.service.parse_options(options)
        level, after = None, None
        if fill is not None:
            level, after = fill["level"], float(fill["after_seconds"])
            if level not in d.bots:
                raise FieldValidationError(f"Unknown bot level {str(level)[:40]!r}.", errors={
                    "fill_with_bots": {"level": [f"Must be one of: {', '.join(d.bots)}."]}})
        now = self.clock()
        ticket = secrets.token_hex(16)
        ordinal = self.ordinal(player.id)
        body: dict[str, Any] = {
                "ticket": ticket, "pool": pool_of(seats, opts), "player": player.id, "name": player.name,
                "seats": seats, "options": opts, "ordinal": ordinal, "created": now, "seen": now, "state": WAITING,
                "fill_level": level, "fill_after": after, "game": None, "seat": None}
        status, mine = self.queue.enqueue(ticket, body, ordinal, timeout=self.poll_timeout)
        if status == "mine":
            raise ConflictError("You wait for a game of this kind already: poll or delete that ticket.", ticket=mine)
        if status == "full":
            raise UnavailableError("Too many players wait in this pool just now; try again in a moment.")
        self.match(body["pool"], seats)
        return self.ticket(player, ticket)

    def ticket(self, player: PlayerRef, ticket: str) -> dict[str, Any]:
        """The ticket (it is polled: its player is still there); runs the pool's matcher."""
        body = self._mine(player, ticket)
        now = self.clock()
        if body["state"] == WAITING:
            body = self.queue.update(ticket, [WAITING], seen=now) or body
        elif body["state"] == CLAIMED and now - float(body.get("claimed") or now) > self.claim_grace:
            back = self.queue.update(ticket, [CLAIMED], state=WAITING, seen=now)  # its matcher died
            if back is not None and back["state"] == WAITING:
                self.queue.requeue(ticket, back)
                body = back
        if body["state"] in (WAITING, CLAIMED):
            self.match(body["pool"], int(body["seats"]))
            body = self._mine(player, ticket)
        return body

    def cancel(self, player: PlayerRef, ticket: str) -> dict[str, Any]:
        body = self._mine(player, ticket)
        after = self.queue.update(ticket, [WAITING], state=CANCELLED) if body["state"] == WAITING else body
        if after is None or after["state"] != CANCELLED or body["state"] != WAITING:
            state = (after or body)["state"]
            raise ConflictError(f"The ticket is {state} already: nothing to cancel.", ticket_status=state)
        self.queue.dequeue(ticket, body["pool"])
        return after

    # -- matching -----------------------------------------------------------------------------
    def match(self, pool: str, seats: int) -> int:
        """Claim and make the games of ``pool`` that may start now; how many were made."""
        made = 0
        for kind, tickets in self.queue.claim(pool, seats, self.clock(), self.base, self.widen, self.poll_timeout):
            try:
                self._make(kind, tickets)
                made += 1
            except Exception:  # the tickets stay claimed: their next GET puts them back after the grace
                log.warning("making the %s game of tickets %s failed", self.service.d.name, tickets, exc_info=True)
        return made

    def _make(self, kind: str, tickets: list[str]) -> None:
        bodies = [self.queue.get(t) for t in tickets]
        found = [b for b in bodies if b is not None]
        if len(found) != len(tickets):
            return  # expired in between: nothing to make
        first = found[0]
        n = int(first["seats"])
        players = [PlayerRef(b["player"], b["name"]) for b in found]
        kinds = [seat_kinds.HUMAN] * n if kind == "match" else \
            [seat_kinds.HUMAN] + [seat_kinds.bot(str(first["fill_level"]))] * (n - 1)
        # one commit: every player's seat bound at once (created, then joined one by one, a failure
        # part way left a game half bound, the rest of its seats open in the public lobby)
        envelope, _, _ = self.service.create(kinds, first["options"], None, None, seated=players)
        game_id, version = envelope["id"], envelope["version"]
        game = self.service.d.name
        for seat, (ticket, body) in enumerate(zip(tickets, found, strict=True)):
            after = self.queue.update(ticket, [CLAIMED], state=MATCHED, game=game_id, seat=seat)
            if after is None or after.get("game") != game_id:  # gone, or no longer this claim's: not told
                log.warning("ticket %s was not this claim's any more; %s %s not told", ticket, game, game_id)
                continue
            told = notes.notice(notes.MATCHED, body["player"], game, game_id, seat, version, ticket=ticket)
            self.tell(body["player"], f"mm/{ticket}", told.body)

    def _mine(self, player: PlayerRef, ticket: str) -> dict[str, Any]:
        body = self.queue.get(ticket)
        if body is None or body.get("player") != player.id:
            raise NotFoundError(f"No matchmaking ticket {ticket[:64]!r} of yours (or it has expired).")
        return body
