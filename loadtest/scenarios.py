"""The scenarios, each one visit of a simulated client to one game (any installed game: nothing
here names one):

* ``table``: a table of humans; the client holds every seat and plays each seat's moves, chosen
  by the game's own bot from that seat's view (so a game lasts as long and mixes its actions as
  a real one does).
* ``bots``: one human seat against the game's bots, which the server's Celery worker plays; the
  client long-polls while they think.
* ``follow``: the same table, but the client holds its seat's stream with ``turns=true`` and
  plays from its turn messages (the game and its listing when the turn comes back): one request
  a move, nothing read before it.
* ``watch``: a table of bots only, watched by a spectator to its end (or :data:`WATCH_SECONDS`)
  over server-sent events or long-polls; the events must come numbered 1, 2, 3 ... without a gap,
  and a stream must end with its ``end`` event.
* ``lobby``: browse the lobby and join a table waiting for players, then play that seat against
  whoever else sits there (other clients, or the turn timer's bot when one leaves); with nothing
  to join, open a table with a 30 s turn timer and wait for others a while, then fill it.

Each returns what became of its table; every request is checked and counted by
:class:`~loadtest.client.Client`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import gevent
from ludoteca.service_layer import registry

from loadtest.client import LONG_POLL, Client, Table, TurnFollower, playing_bot, sse_blocks

WATCH_SECONDS = 90.0
"""The longest a spectator watches one table."""
LOBBY_WAIT = 15.0
"""How long a lobby table's host waits for other players before taking the open seats itself."""
LOBBY_TURN_SECONDS = 30
"""The turn timer of the humans' tables: a seat whose client left (a shape stopping users, a
lobby client that took a seat) is played by the game's timeout bot, so no table stalls."""


def seats(game: str) -> int:
    return int(registry.game(game).engine.min_seats)


def create(c: Client, kinds: list[str], options: dict[str, Any] | None = None) -> tuple[str, str] | None:
    """A new table: (its id, the creator's token: empty for a table of bots), or None (the
    answer was counted)."""
    body: dict[str, Any] = {"seats": kinds}
    if options:
        body["options"] = options
    answer = c.call("POST", "/games", "create", body=body, expect=(201,))
    if answer is None:
        return None
    return answer.body["game"]["id"], answer.body["token"] or ""


def join(c: Client, gid: str) -> tuple[int, str] | None:
    """A seat at ``gid``: (seat, token); None when the table filled or started first (a 409,
    counted) or the answer was unexpected."""
    answer = c.call("POST", f"/games/{gid}/players", "join", body={}, expect=(201,), tolerate=(409,))
    if answer is None or answer.status != 201:
        if answer is not None:
            c.tally.add(c.game, "lobby", "join lost")
        return None
    return answer.body["seat"], answer.body["token"]


def human_table(c: Client) -> str:
    made = create(c, ["human"] * seats(c.game), {"turn_seconds": LOBBY_TURN_SECONDS})
    if made is None:
        return "not created"
    gid, token = made
    tokens = {0: token}
    for _ in range(seats(c.game) - 1):
        seat = join(c, gid)
        if seat is None:  # a lobby client took the seat first: the table is shared now
            break
        tokens[seat[0]] = seat[1]
    c.tally.add(c.game, "tables", "started")
    return Table(c, gid, tokens).play()


def bot_table(c: Client, follow: bool = False) -> str:
    """One human seat against the game's bots; ``follow``: following its stream's turns."""
    level, _ = playing_bot(c.game)
    made = create(c, ["human"] + [f"bot:{level}"] * (seats(c.game) - 1))
    if made is None:
        return "not created"
    c.tally.add(c.game, "tables", "started")
    table = Table(c, made[0], {0: made[1]})
    if follow:
        table.follower = TurnFollower(c, made[0], 0, made[1])
        c.tally.add(c.game, "tables", "following its stream")
    try:
        return table.play()
    finally:
        if table.follower is not None:
            table.follower.stop()


def watch(c: Client) -> str:
    level, _ = playing_bot(c.game)
    made = create(c, [f"bot:{level}"] * seats(c.game))
    if made is None:
        return "not created"
    gid = made[0]
    c.tally.add(c.game, "watched", "tables")
    if c.rnd.random() < 0.5:
        return stream(c, gid)
    return long_polls(c, gid)


def check_seqs(c: Client, kind: str, last: int, seqs: list[int]) -> int | None:
    """The new last seq after ``seqs`` (which must follow ``last`` without a gap); None when they
    do not (counted as unexpected)."""
    for seq in seqs:
        if seq != last + 1:
            c.tally.unexpected(c.game, kind, f"event {seq} after {last}: a gap or a repeat")
            return None
        last = seq
    return last


def long_polls(c: Client, gid: str) -> str:
    """A spectator (no token) reading the events by long-polls until the game ends."""
    last, started = 0, gevent.get_hub().loop.now()
    while gevent.get_hub().loop.now() - started < WATCH_SECONDS:
        answer = c.call("GET", f"/games/{gid}/events", "events", params={"after": last, "wait": LONG_POLL},
                        timeout=LONG_POLL + 30)
        if answer is None:
            return "failing"
        checked = check_seqs(c, "events", last, [e.get("seq", -1) for e in answer.body["events"]])
        if checked is None:
            return "failing"
        c.tally.add(c.game, "watched", "events", checked - last)
        last = checked
        if any(e.get("type") == "GameFinished" for e in answer.body["events"]) or _finished(c, gid):
            c.tally.add(c.game, "watched", "to the end")
            return "finished"
    c.tally.add(c.game, "watched", "left")
    return "left"


def _finished(c: Client, gid: str) -> bool:
    answer = c.call("GET", f"/games/{gid}", "view")
    return answer is not None and answer.body["status"] == "finished"


def stream(c: Client, gid: str) -> str:
    """A spectator on the server-sent events: reads messages until ``end`` (reconnecting with
    ``Last-Event-ID`` when the server closes the stream first) or :data:`WATCH_SECONDS`."""
    last, started, kind = 0, gevent.get_hub().loop.now(), "stream"
    while gevent.get_hub().loop.now() - started < WATCH_SECONDS:
        headers = {"Accept": "text/event-stream", "Last-Event-ID": str(last)}
        answer_status = None
        with c.session.request("GET", f"/{c.game}/games/{gid}/stream", name=f"{c.game} {kind}", headers=headers,
                               stream=True, timeout=(10, 30), catch_response=True) as r:
            answer_status = int(r.status_code or 0)
            c.tally.status(c.game, kind, answer_status)
            if answer_status == 204:  # over, and everything was sent before
                r.success()
                return "finished"
            if answer_status != 200 or not r.headers.get("Content-Type", "").startswith("text/event-stream"):
                r.failure(f"{answer_status} {r.headers.get('Content-Type')}")
                c.tally.unexpected(c.game, kind, f"{answer_status}: {r.text[:200] if answer_status else ''}")
                return "failing"
            r.success()
            outcome, last = read_stream(c, r, last, started)
            if outcome is not None:
                return outcome
    c.tally.add(c.game, "watched", "left")
    return "left"


def read_stream(c: Client, r: Any, last: int, started: float) -> tuple[str | None, int]:
    """Read one connection's messages: (the outcome when the watch is over, else None; the last seq)."""
    try:
        for event, data, ident in sse_blocks(r):
            if data:
                if event == "end":
                    end = json.loads(data)
                    if end.get("last_seq") != last:
                        c.tally.unexpected(c.game, "stream", f"end says last_seq {end.get('last_seq')}, saw {last}")
                        return "failing", last
                    c.tally.add(c.game, "watched", "to the end")
                    return "finished", last
                checked = check_seqs(c, "stream", last, [int(ident or -1)])
                if checked is None:
                    return "failing", last
                c.tally.add(c.game, "watched", "events")
                last = checked
            if gevent.get_hub().loop.now() - started > WATCH_SECONDS:
                c.tally.add(c.game, "watched", "left")
                return "left", last
    except OSError as err:  # requests' read timeout or a cut connection: reconnect after `last`
        c.tally.add(c.game, "watched", f"reconnect {type(err).__name__}")
    return None, last


def lobby(c: Client) -> str:
    answer = c.call("GET", "/games", "lobby", params={"page": 1, "page_size": 20})
    if answer is None:
        return "failing"
    open_tables = [t for t in answer.body["items"] if isinstance(t, dict) and t.get("open_seats")]
    c.rnd.shuffle(open_tables)
    for item in open_tables[:3]:
        seat = join(c, item["id"])
        if seat is not None:
            c.tally.add(c.game, "lobby", "joined")
            c.tally.add(c.game, "tables", "started")
            return Table(c, item["id"], {seat[0]: seat[1]}).play()
    made = create(c, ["human"] * seats(c.game), {"turn_seconds": LOBBY_TURN_SECONDS})
    if made is None:
        return "not created"
    gid, token = made
    table = Table(c, gid, {0: token})
    c.tally.add(c.game, "lobby", "hosted")
    waited_since = gevent.get_hub().loop.now()
    while gevent.get_hub().loop.now() - waited_since < LOBBY_WAIT:
        env = table.refresh(0)
        if env is None:
            return "failing"
        if env["status"] != "waiting_for_players":
            break
        table.wait_turn(env)
    env = table.envelope or table.refresh(0)
    if env is not None and env["status"] == "waiting_for_players":
        for _ in range(seats(c.game) - 1):
            seat = join(c, gid)
            if seat is None:
                break
            table.tokens[seat[0]] = seat[1]
            c.tally.add(c.game, "lobby", "filled by its host")
    c.tally.add(c.game, "tables", "started")
    table.envelope = None
    return table.play()


def followed_bot_table(c: Client) -> str:
    return bot_table(c, follow=True)


SCENARIOS: dict[str, Callable[[Client], str]] = {
    "table": human_table, "bots": bot_table, "follow": followed_bot_table, "watch": watch, "lobby": lobby}
DEFAULT_WEIGHTS = {"table": 4, "bots": 2, "follow": 2, "watch": 2, "lobby": 1}
