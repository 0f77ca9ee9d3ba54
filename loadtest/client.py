"""A simulated client that behaves as docs/clients.md asks, over locust's HTTP session.

Every request goes through :meth:`Client.call`, which

* names it ``<game> <kind>`` in locust's statistics (``ludix move``, ``ludic view`` ...);
* counts its status per game and kind (:mod:`loadtest.tally`);
* checks the answer: the status is one the caller expects, a problem is
  ``application/problem+json``, a 429 or 503 carries ``Retry-After``, and the body has the shape
  of its kind (:data:`SHAPES`); anything else is an *unexpected* answer, a locust failure, and
  the caller gets None (never an exception: a failed create does not kill the user);
* waits out a 429 (``Retry-After``) and retries a 503 with exponential backoff and jitter, never
  sooner than its ``Retry-After``, with the same ``Idempotency-Key`` (a move is applied once);
* hands a 409 or a 412 back to the caller when it said it tolerates them (a move that lost a race:
  read the game again).

:class:`Table` plays the seats a client holds at one game: the game's own bot chooses each move
from the seat's view and listed actions, after a think time (:class:`Think`), posted with
``If-Match`` and ``Idempotency-Key``; when none of its seats is to act it long-polls the events.
One request a move: a seat that acts again right after its own move plays from that move's
answer (``next``, its listing at the new version; its ``game``, its view); a listing is asked
for only when another seat moved in between, unless the table follows its seat's stream with
``turns=true`` (:class:`TurnFollower`): then each ``turn`` message brings the game and the
listing when the turn comes back, and the client reads nothing before its move.
"""

from __future__ import annotations

import json
import math
import os
import random
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import gevent
import gevent.event
from ludoteca.core.engine import Bot
from ludoteca.service_layer import registry

from loadtest.tally import Tally

PROBLEM = "application/problem+json"
RETRIES = 6
"""Attempts of one request answered 429 or 503 before the client gives it up (counted)."""
MAX_WAIT = 60.0
"""The longest a client sleeps on one ``Retry-After``."""
LONG_POLL = 10
"""``wait`` of a long-poll, seconds."""
IDLE_LIMIT = 120.0
"""A table whose game has not moved for this long is left (counted ``abandoned``): a turn timer
(30 s on the lobby's tables) or a bot should have moved it long before."""
FAILURES_LIMIT = 5
"""Unexpected answers in a row at one table before the client leaves it."""


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _envelope(b: Any) -> bool:
    return (isinstance(b, dict) and isinstance(b.get("id"), str) and _is_int(b.get("version"))
            and isinstance(b.get("status"), str) and isinstance(b.get("to_act"), list) and "state" in b)


SHAPES: dict[str, Callable[[Any], bool]] = {
    "create": lambda b: (isinstance(b, dict) and isinstance(b.get("token"), str | None)  # bots only: no token
                         and _envelope(b.get("game"))),
    "join": lambda b: isinstance(b, dict) and isinstance(b.get("token"), str) and _envelope(b.get("game")),
    "view": _envelope,
    "actions": lambda b: (isinstance(b, dict) and isinstance(b.get("actions"), list)
                          and isinstance(b.get("templates"), list) and _is_int(b.get("version"))),
    "move": lambda b: (isinstance(b, dict) and _envelope(b.get("game")) and isinstance(b.get("events"), list)
                       and "next" in b and (b["next"] is None or SHAPES["actions"](b["next"]))),
    "events": lambda b: isinstance(b, dict) and isinstance(b.get("events"), list) and _is_int(b.get("last_seq")),
    "lobby": lambda b: isinstance(b, dict) and isinstance(b.get("items"), list) and _is_int(b.get("total")),
}
"""What a successful answer of each kind must look like (docs/api.md, the OpenAPI documents)."""


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any
    headers: Mapping[str, str]


@dataclass(frozen=True)
class Think:
    """A player's thinking time before a move, by the Hick-Hyman law: ``base + per_bit *
    log2(choices + 1)`` seconds (more listed actions, longer thought), times a log-normal factor
    (median 1, ``sigma``), all times ``scale`` (``LOAD_THINK``; 0: no thinking, the most pressure).
    A game's own action mix thus gives it its own distribution: Ludix's roll-or-hold is quick,
    Speculation's guesses slower."""

    scale: float = 1.0
    base: float = 0.3
    per_bit: float = 0.3
    sigma: float = 0.5

    @classmethod
    def from_env(cls) -> Think:
        return cls(scale=float(os.environ.get("LOAD_THINK", "1") or 1))

    def seconds(self, choices: int, rnd: random.Random) -> float:
        if self.scale <= 0:
            return 0.0
        median = self.base + self.per_bit * math.log2(max(1, choices) + 1)
        return min(30.0, self.scale * median * rnd.lognormvariate(0.0, self.sigma))

    def between_games(self, rnd: random.Random) -> float:
        return 0.0 if self.scale <= 0 else min(30.0, self.scale * 2.0 * rnd.lognormvariate(0.0, self.sigma))


def retry_after(headers: Mapping[str, str]) -> float | None:
    raw = headers.get("Retry-After")
    try:
        return float(raw) if raw is not None else None
    except ValueError:
        return None


def playing_bot(game: str) -> tuple[str, Bot]:
    """The level and bot that choose a human seat's moves here, and play the server's bot seats:
    the game's basic level (the one its turn timers use), else its first."""
    definition = registry.game(game)
    level = definition.basic_bot if definition.basic_bot in definition.bots else next(iter(definition.bots))
    return level, definition.bots[level]


@dataclass
class Client:
    """One simulated client of one game. ``session``: locust's ``HttpSession`` (any object
    with requests' ``request`` taking ``name`` and ``catch_response``)."""

    session: Any
    game: str
    tally: Tally
    rnd: random.Random = field(default_factory=random.Random)
    think: Think = field(default_factory=Think.from_env)

    def sleep(self, seconds: float) -> None:
        gevent.sleep(max(0.0, seconds))

    def call(self, method: str, path: str, kind: str, *, token: str | None = None, body: Any = None,
             headers: Mapping[str, str] | None = None, params: Mapping[str, Any] | None = None,
             expect: tuple[int, ...] = (200,), tolerate: tuple[int, ...] = (), timeout: float = 30.0,
             ) -> Answer | None:
        """One request, as a client should make it (see the module docstring). None: an
        unexpected answer (counted, reported to locust as a failure) or a request given up."""
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        for attempt in range(RETRIES):
            with self.session.request(method, f"/{self.game}{path}", name=f"{self.game} {kind}", json=body,
                                      headers=sent, params=params, timeout=timeout, catch_response=True) as r:
                status = int(r.status_code or 0)
                self.tally.status(self.game, kind, status)
                problem = self._problem(r, status)
                if problem is not None:
                    return self._unexpected(r, kind, problem)
                if status in expect:
                    parsed = _json(r)
                    check = SHAPES.get(kind)
                    if check is not None and not check(parsed):
                        return self._unexpected(r, kind, f"{status} with a body of the wrong shape: {r.text[:200]}")
                    r.success()
                    return Answer(status, parsed, r.headers)
                if status in (429, 503):
                    r.success()  # counted in the tally; locust's failures are the unexpected answers
                    wait = retry_after(r.headers) or 1.0
                    if status == 503:  # backoff with jitter, never sooner than the server asked
                        wait = max(wait, min(MAX_WAIT, 0.5 * 2 ** attempt) * self.rnd.uniform(0.5, 1.5))
                    self.tally.add(self.game, "waited", str(status))
                    self.tally.add(self.game, "waited_ms", str(status), int(1000 * min(wait, MAX_WAIT)))
                else:
                    if status in tolerate:
                        r.success()
                        return Answer(status, _json(r), r.headers)
                    return self._unexpected(r, kind, f"{status}: {r.text[:300]}")
            self.sleep(min(wait, MAX_WAIT))
        self.tally.add(self.game, "gave_up", kind)
        return None

    @staticmethod
    def _problem(r: Any, status: int) -> str | None:
        """What is wrong with an error answer's form (None: nothing)."""
        if status == 0:
            return f"no answer: {getattr(r, 'error', '')}"
        if status >= 400 and r.headers.get("Content-Type", "").split(";")[0] != PROBLEM:
            return f"{status} not a problem+json: {r.headers.get('Content-Type')} {r.text[:200]}"
        if status in (429, 503) and retry_after(r.headers) is None:
            return f"{status} without Retry-After"
        return None

    def _unexpected(self, r: Any, kind: str, why: str) -> Answer | None:
        r.failure(why[:300])
        self.tally.unexpected(self.game, kind, why)
        return None


def _json(r: Any) -> Any:
    try:
        return r.json()
    except ValueError:
        return None


@dataclass
class Table:
    """The seats one client holds at one game (their tokens), played to the end."""

    client: Client
    gid: str
    tokens: dict[int, str]
    envelope: dict[str, Any] | None = None
    cursors: dict[int, int] = field(default_factory=dict)
    moves: int = 0
    listed: dict[str, Any] | None = None
    """The last move's ``next``: its mover's legal actions at the version it made (or None); or
    a turn message's (``listed_by`` says which)."""
    listed_by: str = "from the move's answer"
    follower: TurnFollower | None = None
    """The seat's stream with ``turns=true``, when the table follows it (else long-polls)."""

    @property
    def game(self) -> str:
        return self.client.game

    def refresh(self, seat: int | None = None) -> dict[str, Any] | None:
        seat = seat if seat is not None else self.client.rnd.choice(sorted(self.tokens))
        answer = self.client.call("GET", f"/games/{self.gid}", "view", token=self.tokens[seat])
        self.envelope = answer.body if answer is not None else None
        return self.envelope

    def play(self) -> str:
        """Play until the game ends: ``finished``, ``abandoned`` (no move for :data:`IDLE_LIMIT`)
        or ``failing`` (:data:`FAILURES_LIMIT` unexpected answers in a row)."""
        c = self.client
        _, bot = playing_bot(self.game)
        failures, last_version, idle_since = 0, -1, gevent.get_hub().loop.now()
        while True:
            env = self.envelope or self.refresh()
            if env is None:
                failures += 1
                if failures >= FAILURES_LIMIT:
                    c.tally.add(self.game, "tables", "failing")
                    return "failing"
                c.sleep(1.0)
                continue
            if env["status"] == "finished":
                c.tally.add(self.game, "tables", "finished")
                return "finished"
            now = gevent.get_hub().loop.now()
            if env["version"] != last_version:
                last_version, idle_since = env["version"], now
            elif now - idle_since > IDLE_LIMIT:
                c.tally.add(self.game, "tables", "abandoned")
                return "abandoned"
            acting = [s for s in env["to_act"] if s in self.tokens]
            if not acting:
                self.wait_turn(env)
                continue
            seat = c.rnd.choice(acting)
            if env.get("you") != seat:
                self.refresh(seat)
                continue
            outcome = self.move(seat, env, bot)
            failures = failures + 1 if outcome == "failed" else 0
            if failures >= FAILURES_LIMIT:
                c.tally.add(self.game, "tables", "failing")
                return "failing"

    def listing(self, seat: int, env: dict[str, Any]) -> dict[str, Any] | None:
        """``seat``'s legal actions at ``env``'s version: the last move's ``next`` when that was
        this seat's at this version (no request), else ``GET .../actions`` (None: failed, counted)."""
        known, self.listed = self.listed, None
        if known is not None and known["seat"] == seat and known["version"] == env["version"]:
            self.client.tally.add(self.game, "listings", self.listed_by)
            return known
        listed = self.client.call("GET", f"/games/{self.gid}/actions", "actions", token=self.tokens[seat])
        self.client.tally.add(self.game, "listings", "requested")
        return listed.body if listed is not None else None

    def move(self, seat: int, env: dict[str, Any], bot: Bot) -> str:
        """One move of ``seat``: its listing (:meth:`listing`), the bot's choice, think, post it."""
        c, token = self.client, self.tokens[seat]
        listed = self.listing(seat, env)
        if listed is None:
            self.envelope = None
            return "failed"
        choices = listed["actions"] + listed["templates"]
        if listed["version"] != env["version"] or not choices:
            self.envelope = None  # the game moved on between the two reads
            return "stale"
        action = bot(env["state"], choices, c.rnd)
        c.sleep(c.think.seconds(len(choices), c.rnd))
        answer = c.call("POST", f"/games/{self.gid}/actions", "move", token=token, body=action,
                        headers={"If-Match": f'"{env["version"]}"', "Idempotency-Key": uuid.uuid4().hex},
                        tolerate=(409, 412))
        if answer is None:
            self.envelope = None
            return "failed"
        if answer.status != 200:
            c.tally.add(self.game, "refused", str(answer.status))  # a bot or a timer moved first: read again
            self.envelope = None
            return "refused"
        self.envelope, self.listed = answer.body["game"], answer.body["next"]
        self.listed_by = "from the move's answer"
        self.moves += 1
        c.tally.add(self.game, "moves", "replayed" if answer.headers.get("Idempotent-Replayed") else "applied")
        seqs = [e.get("seq", 0) for e in answer.body["events"] if isinstance(e, dict)]
        if seqs:
            self.cursors[seat] = max(self.cursors.get(seat, 0), *seqs)
        return "applied"

    def wait_turn(self, env: dict[str, Any]) -> None:
        """None of our seats is to act: long-poll the events of one of them, then read the game;
        or, following the seat's stream, wait for its next turn message (the game and the
        listing: nothing to read), and read the game only when none comes (the game may be over)."""
        if self.follower is not None:
            turn = self.follower.wait(env["version"], LONG_POLL)
            if turn is not None:
                self.envelope, self.listed, self.listed_by = turn["game"], turn["next"], "from a turn message"
                return
            self.refresh(self.follower.seat)
            return
        seat = env["you"] if env.get("you") in self.tokens else min(self.tokens)
        answer = self.client.call("GET", f"/games/{self.gid}/events", "events", token=self.tokens[seat],
                                  params={"after": self.cursors.get(seat, 0), "wait": LONG_POLL},
                                  timeout=LONG_POLL + 30)
        if answer is not None:
            self.cursors[seat] = max(self.cursors.get(seat, 0), answer.body["last_seq"])
        self.refresh(seat)


def sse_blocks(r: Any) -> Iterator[tuple[str, str, str]]:
    """The blocks of a streamed ``text/event-stream`` answer ``r`` (requests' ``iter_lines``), each
    as (event, data, id) with ``message``, ``""`` and ``""`` where a field is absent; comment-only
    blocks (heartbeats) come too, empty, so a reader can look at its clock."""
    event, data, ident = "message", "", ""
    for raw in r.iter_lines(decode_unicode=True):
        line = raw if isinstance(raw, str) else raw.decode()
        if line == "":
            yield event, data, ident
            event, data, ident = "message", "", ""
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            event = value
        elif name == "data":
            data += value
        elif name == "id":
            ident = value


class TurnFollower:
    """A seat's event stream with ``turns=true`` (docs/api.md, "Your turn on the stream"), read by
    a greenlet of its own: each ``turn`` message (the game as the seat sees it and its listing)
    is checked (one version, the seat's own) and the newest kept; the stream is reopened where
    it was (``Last-Event-ID``) when the server closes it, and is over at its ``end`` (or a 204)."""

    KIND = "turns stream"

    def __init__(self, client: Client, gid: str, seat: int, token: str) -> None:
        self.c, self.gid, self.seat, self.token = client, gid, seat, token
        self.latest: dict[str, Any] | None = None
        self.arrived = gevent.event.Event()
        self.over = False
        self.last = 0
        self.greenlet = gevent.spawn(self._run)

    def _run(self) -> None:
        try:
            self._follow()
        except Exception as err:  # a message that does not parse, say: counted, never silent (the table
            self.c.tally.unexpected(self.c.game, self.KIND, f"the stream's reader failed: {type(err).__name__}: {err}")
            # then reads the game itself: `over` wakes its wait)
        finally:
            self.over = True
            self.arrived.set()

    def _follow(self) -> None:
        failures, c = 0, self.c
        while not self.over and failures < FAILURES_LIMIT:
            headers = {"Accept": "text/event-stream", "Authorization": f"Bearer {self.token}"}
            if self.last:
                headers["Last-Event-ID"] = str(self.last)
            with c.session.request("GET", f"/{c.game}/games/{self.gid}/stream", name=f"{c.game} {self.KIND}",
                                   headers=headers, params={"turns": "true"}, stream=True, timeout=(10, 30),
                                   catch_response=True) as r:
                status = int(r.status_code or 0)
                c.tally.status(c.game, self.KIND, status)
                if status == 204:  # over, and everything was sent before
                    r.success()
                    break
                if status != 200 or not r.headers.get("Content-Type", "").startswith("text/event-stream"):
                    c._unexpected(r, self.KIND, f"{status} {r.headers.get('Content-Type')}")
                    failures += 1
                    gevent.sleep(1.0)
                    continue
                r.success()
                self._read(r)

    def _read(self, r: Any) -> None:
        try:
            for event, data, ident in sse_blocks(r):
                if self.over:
                    return
                if ident:
                    self.last = int(ident)
                if event == "turn" and data:
                    self._turn(json.loads(data))
                elif event == "end":
                    self.over = True
                    return
        except OSError as err:  # a read timeout or a cut connection: reopen after `last`
            self.c.tally.add(self.c.game, self.KIND, f"reconnect {type(err).__name__}")

    def _turn(self, turn: Any) -> None:
        game = turn.get("game") if isinstance(turn, dict) else None
        listed = turn.get("next") if isinstance(turn, dict) else None
        if not (isinstance(game, dict) and _envelope(game) and isinstance(listed, dict) and game.get("you") == self.seat
                and listed.get("seat") == self.seat and listed.get("version") == game.get("version")):
            self.c.tally.unexpected(self.c.game, self.KIND, f"a turn message of the wrong shape: {str(turn)[:200]}")
            return
        self.latest = turn
        self.arrived.set()

    def wait(self, after: int, timeout: float) -> dict[str, Any] | None:
        """The newest turn message at a version after ``after``; None when none comes within
        ``timeout`` seconds or the stream is over."""
        deadline = gevent.get_hub().loop.now() + timeout
        while True:
            self.arrived.clear()
            turn = self.latest
            if turn is not None and turn["next"]["version"] > after:
                return turn
            left = deadline - gevent.get_hub().loop.now()
            if self.over or left <= 0:
                return None
            self.arrived.wait(left)

    def stop(self) -> None:
        self.over = True
        self.greenlet.kill(block=False)
