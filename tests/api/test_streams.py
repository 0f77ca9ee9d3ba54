"""``GET /games/{id}/stream`` over the real Redis (the Flask test client): per-seat visibility,
resuming with ``Last-Event-ID`` or ``after``, the end of a game, heartbeats, the lifetime bound and
every refusal as problem+json. Through gunicorn and the front door: tests/integration/test_streams.py."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

import pytest
from api_client import Api
from conftest import in_process_app
from flask import Flask
from ludoteca.config import Settings
from ludoteca.service_layer import registry
from sse import Message, Parser, events_of

LIFETIME = 1.5
STREAM_SECONDS = 2.0
HEARTBEAT = 0.3


@pytest.fixture(scope="module")
def apps(settings: Settings) -> Callable[[str], Flask]:
    """Apps whose streams close after 1.5 s and beat every 0.3 s (the defaults are 300 s and 15 s)."""
    short = dataclasses.replace(settings, max_stream_seconds=LIFETIME, stream_heartbeat_seconds=HEARTBEAT)
    made: dict[str, Flask] = {}

    def app(game: str) -> Flask:
        if game not in made:
            made[game] = in_process_app(game, short)
        return made[game]

    return app


def stream(app: Flask, gid: str, token: str | None = None, query: str = "",
           last_event_id: str | None = None) -> tuple[int, list[Message], Any]:
    """The whole stream (it closes by itself within its lifetime): status, messages, headers."""
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    if last_event_id is not None:
        headers["Last-Event-ID"] = last_event_id
    resp = app.test_client().get(f"/games/{gid}/stream{query}", headers=headers, buffered=False)
    try:
        if resp.status_code != 200:
            return resp.status_code, [], resp
        parser = Parser()
        for chunk in resp.response:
            parser.feed(chunk)
        return 200, parser.messages, resp
    finally:
        resp.close()


def humans_table(api: Api, game: str) -> tuple[str, list[str]]:
    seats = registry.game(game).engine.min_seats
    gid, token = api.create(["human"] * seats)
    tokens = [token]
    for _ in range(seats - 1):
        status, data = api.join(gid)
        assert status == 201, data
        tokens.append(data["token"])
    return gid, tokens  # type: ignore[return-value]


def play_first_legal(api: Api, gid: str, tokens: list[str], moves: int) -> None:
    """Each move: the lowest seat to act plays its first listed legal action."""
    for _ in range(moves):
        to_act = api.view(gid)["to_act"]
        assert to_act
        seat = to_act[0]
        action = api.actions(gid, tokens[seat])["actions"][0]
        status, data, _ = api.play(gid, tokens[seat], action)
        assert status == 200, data


def polled(api: Api, gid: str, token: str | None) -> list[dict[str, Any]]:
    _, data, _ = api.call("GET", f"/games/{gid}/events?after=0", token)
    return list(data["events"])


def test_each_seat_streams_its_own_events_and_a_spectator_the_public_ones(apps: Callable[[str], Flask]) -> None:
    """Ludic: after the cuts every seeker is dealt a hand in an event only it may see."""
    app = apps("ludic")
    api = Api(app.test_client())
    gid, tokens = humans_table(api, "ludic")
    for _ in range(12):  # the cuts (a tie cuts again), until the round starts with the deal
        if any(e["type"] == "RoundStarted" for e in polled(api, gid, None)):
            break
        play_first_legal(api, gid, tokens, 1)
    dealt: dict[Any, list[int]] = {}
    for who in [None, 0, 1, 2]:
        status, messages, resp = stream(app, gid, None if who is None else tokens[who])
        assert status == 200 and resp.mimetype == "text/event-stream"
        assert resp.headers["Cache-Control"] == "no-cache, no-transform"
        got = [m.data for m in events_of(messages)]
        assert [m.seq for m in events_of(messages)] == [e["seq"] for e in got]
        assert got == polled(api, gid, None if who is None else tokens[who])  # the long-poll's events, exactly
        dealt[who] = [e["data"]["seat"] for e in got if e["type"] == "HandDealt"]
    assert dealt[None] == []
    seekers = [s for s in (0, 1, 2) if dealt[s]]
    assert len(seekers) == 2 and all(dealt[s] == [s] for s in seekers)
    assert dealt[({0, 1, 2} - set(seekers)).pop()] == []  # the Vexer sees no hand


def test_resume_after_last_event_id_or_after_each_event_once(apps: Callable[[str], Flask]) -> None:
    app = apps("ludix")
    api = Api(app.test_client())
    gid, tokens = humans_table(api, "ludix")
    play_first_legal(api, gid, tokens, 4)
    _, everything, _ = stream(app, gid)
    seqs = [m.seq for m in events_of(everything)]
    assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) >= 6
    cut = seqs[2]
    for kwargs in [{"last_event_id": str(cut)}, {"query": f"?after={cut}"},
                   {"query": "?after=1", "last_event_id": str(cut)}]:  # the header wins
        status, messages, _ = stream(app, gid, **kwargs)  # type: ignore[arg-type]
        assert status == 200
        assert [m.seq for m in events_of(messages)] == seqs[3:], kwargs
    status, messages, _ = stream(app, gid, last_event_id=str(seqs[-1]))
    assert events_of(messages) == []


def test_an_idle_stream_gets_heartbeats_and_closes_at_its_lifetime(apps: Callable[[str], Flask]) -> None:
    app = apps("ludix")
    api = Api(app.test_client())
    gid, _ = humans_table(api, "ludix")
    t0 = time.monotonic()
    status, messages, _ = stream(app, gid, last_event_id="999")
    took = time.monotonic() - t0
    assert status == 200
    assert messages[0].retry == 1000 and messages[0].comment is not None
    beats = [m for m in messages[1:] if m.comment == "keep-alive"]
    assert len(beats) >= 2 and events_of(messages) == []
    assert took >= LIFETIME * 0.9  # it stayed open, then closed by itself


def test_a_finished_game_ends_its_stream_then_answers_204(apps: Callable[[str], Flask]) -> None:
    app = apps("ludix")
    api = Api(app.test_client())
    gid, token = api.create(["human", "bot:steady"], {"target": 50})
    service = app.extensions["ludoteca"]["service"]
    assert token is not None
    deadline = time.monotonic() + 60
    while api.view(gid)["status"] != "finished" and time.monotonic() < deadline:
        view = api.view(gid, token)
        if 0 in view["to_act"]:
            action = api.actions(gid, token)["actions"][0]
            api.play(gid, token, action)
        else:  # no worker here: the service plays the bot's turn itself
            service.bot_turn(gid, view["version"])
    finished = api.view(gid)
    assert finished["status"] == "finished"
    status, messages, _ = stream(app, gid, token)
    assert status == 200
    end = messages[-1]
    assert end.event == "end" and end.data["status"] == "finished"
    assert end.data["result"] == finished["result"]
    last = events_of(messages)[-1].seq
    assert end.data["last_seq"] == last == polled(api, gid, token)[-1]["seq"]
    status, messages, resp = stream(app, gid, token, last_event_id=str(last))
    assert status == 204 and not resp.data  # EventSource stops reconnecting on a 204
    status, messages, _ = stream(app, gid, token, last_event_id=str(last - 1))
    assert [m.seq for m in events_of(messages)] == [last] and messages[-1].event == "end"


def test_turns_the_seat_that_may_act_gets_its_listing_once_the_other_none(apps: Callable[[str], Flask]) -> None:
    """``?turns=true``: at the stream's start, a ``turn`` message (no ``id``) with exactly the
    game ``GET /games/{id}`` and the listing ``GET .../actions`` give the seat, for the seat that
    may act only; without the parameter, none."""
    app = apps("ludix")
    api = Api(app.test_client())
    gid, tokens = humans_table(api, "ludix")
    play_first_legal(api, gid, tokens, 3)
    view = api.view(gid)
    acting = view["to_act"][0]
    for seat, token in enumerate(tokens):
        status, messages, _ = stream(app, gid, token, "?turns=true")
        assert status == 200
        turns = [m for m in messages if m.event == "turn"]
        if seat == acting:
            # once, though the stream beat 4 times
            assert [m.data for m in turns] == [{"game": api.view(gid, token), "next": api.actions(gid, token)}]
            assert turns[0].id is None and turns[0].data["next"]["version"] == view["version"]
        else:
            assert turns == []
        assert [m.data for m in events_of(messages)] == polled(api, gid, token)  # the events unchanged
        _, plain, _ = stream(app, gid, token)
        assert [m for m in plain if m.event == "turn"] == []


class Pulled:
    """A stream read a chunk at a time (the server's generator runs only when pulled), so the
    test can commit moves between a batch of events and the look that follows it."""

    def __init__(self, app: Flask, gid: str, token: str, query: str = "") -> None:
        self.resp = app.test_client().get(f"/games/{gid}/stream{query}", headers={"Authorization": f"Bearer {token}"},
                                          buffered=False)
        assert self.resp.status_code == 200
        self.chunks = iter(self.resp.response)
        self.parser = Parser()

    def pull(self) -> bytes | None:
        """The next chunk (None: the stream is over)."""
        chunk = next(self.chunks, None)
        if chunk is not None:
            self.parser.feed(chunk)
        return chunk

    def until_events(self) -> None:
        while events_of(self.parser.messages) == []:
            assert self.pull() is not None

    def rest(self) -> list[Message]:
        while self.pull() is not None:
            pass
        self.resp.close()
        return self.parser.messages


def test_a_turn_never_comes_before_its_versions_events(apps: Callable[[str], Flask]) -> None:
    """Moves committed between a batch of events and the look after it: the game this process
    remembers is newer than the batch, and its turn waits for its version's events."""
    app = apps("ludix")
    api = Api(app.test_client())
    gid, tokens = humans_table(api, "ludix")
    streams = [Pulled(app, gid, token, "?turns=true") for token in tokens]
    for s in streams:
        s.until_events()
    play_first_legal(api, gid, tokens, 2)  # this process remembers the game two versions on
    view = api.view(gid)
    last, acting = view["version"], view["to_act"]
    turned = set()
    # the seats to act first: each stream's lifetime runs from its start, so read the one that
    # must bring the turn before the others' last until theirs ends
    for seat, s in sorted(enumerate(streams), key=lambda pair: pair[0] not in acting):
        held = 0
        for m in s.rest():
            if m.event == "message" and m.id is not None:  # an event (not the retry, nor a heartbeat)
                held = m.data["version"]
            elif m.event == "turn":
                assert m.data["next"]["version"] <= held, (seat, m.data["next"]["version"], held)
                turned.add(m.data["next"]["version"])
    assert last in turned  # the case the test is for: a turn at the version two moves on


def test_a_seats_stream_closes_once_its_player_has_left(apps: Callable[[str], Flask]) -> None:
    """Its token reads as a spectator's from the leave on: the stream closes at its next look,
    with no event or turn after the leave (the public ``SeatLeft`` comes to the spectator's
    stream that the token opens now)."""
    app = apps("ludix")
    api = Api(app.test_client())
    gid, tokens = humans_table(api, "ludix")
    s = Pulled(app, gid, tokens[1], "?turns=true")
    s.until_events()
    before = len(s.parser.messages)
    status, data = api.call("POST", f"/games/{gid}/leave", tokens[1], {"bot": "steady"})[:2]
    assert status == 200, data
    started = time.monotonic()
    after = s.rest()[before:]
    assert time.monotonic() - started < HEARTBEAT  # closed at the leave, not at its lifetime nor a beat
    assert after == []


@pytest.mark.parametrize(("headers", "query", "status"), [
    ({"Last-Event-ID": "x7"}, "", 400),
    ({"Last-Event-ID": ""}, "", 400),
    ({"Last-Event-ID": "-3"}, "", 400),
    ({"Last-Event-ID": "99999999999999999"}, "", 400),
    ({"Authorization": "Bearer nope"}, "", 401),
    ({"Authorization": "Basic abc"}, "", 401),
    ({}, "?after=-1", 422),
    ({}, "?after=1e3", 422),
    ({}, "?wait=3", 422),
    ({}, "?turns=true", 401),  # a spectator has no listing
    ({}, "?turns=maybe", 422),
])
def test_refusals_are_problems(apps: Callable[[str], Flask], headers: dict[str, str], query: str,
                               status: int) -> None:
    app = apps("ludix")
    api = Api(app.test_client())
    gid, _ = api.create(["human", "human"])
    got, _, _ = api.call("GET", f"/games/{gid}/stream{query}", headers=headers)
    assert got == status
    got, _, _ = api.call("GET", "/games/0123456789abcdef/stream")
    assert got == 404


def test_the_document_describes_every_message_of_a_stream(settings: Settings) -> None:
    """schemathesis's schema conformance check (its ST108) on real streams, of a game going on and
    of a finished one (its events, then ``end``): each message matches the 200's documented
    ``text/event-stream`` schema. (Described as one string, every message failed it: schemathesis
    validates each parsed message, an object.)"""
    import schemathesis
    from schemathesis.specs.openapi.checks import response_schema_conformance

    # streams of STREAM_SECONDS: a finished game's stream sends its events, a page at a time, then
    # `end`; the other fixtures' 1.5 s lifetime could close it before its last page on a loaded
    # machine (seen in CI), and a playing game's stream lasts the lifetime
    app = in_process_app("ludix", dataclasses.replace(settings, max_stream_seconds=STREAM_SECONDS,
                                                      stream_heartbeat_seconds=HEARTBEAT))
    api = Api(app.test_client())
    service = app.extensions["ludoteca"]["service"]
    playing, tokens = humans_table(api, "ludix")
    play_first_legal(api, playing, tokens, 3)
    over, token = api.create(["human", "bot:steady"], {"target": 50})
    assert token is not None
    for _ in range(1000):
        view = api.view(over, token)
        if view["status"] == "finished":
            break
        if 0 in view["to_act"]:
            legal = api.actions(over, token)["actions"]
            api.play(over, token, next((a for a in legal if a["type"] == "hold"), legal[0]))
        else:  # no worker here: the service plays the bot's turn itself
            service.bot_turn(over, view["version"])
    schema = schemathesis.openapi.from_wsgi("/openapi.json", app)
    # schemathesis stops reading a stream after 20 messages by default (cut short, no `end`): a
    # finished game of 20 events or more failed here (seen in CI, by the dice)
    schema.config.max_stream_events = 10_000
    operation = schema["/games/{game_id}/stream"]["GET"]
    for gid, seat_token in ((playing, None), (playing, tokens[0]), (over, None), (over, token)):
        case = operation.Case(path_parameters={"game_id": gid},
                              headers={} if seat_token is None else {"Authorization": f"Bearer {seat_token}"})
        response = case.call()
        assert response.status_code == 200 and b"\nid: 1\ndata: {" in response.content
        assert (b"\nevent: end\ndata: {" in response.content) == (gid == over)
        case.validate_response(response, checks=[response_schema_conformance])
