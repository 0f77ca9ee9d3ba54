"""One event stream per player (issue 23, item 4), with real game services (Pig, in process) and
the players service over the one real Redis: a player's notices (``game_started``, ``your_turn``,
``game_finished``, ``turn_timed_out``) as a long-poll and as server-sent events, resumed with
``Last-Event-ID`` with nothing lost or repeated; a service killed between a game's commit and the
relay to the players' streams loses no notice (the sweeper relays it, once), and a relay killed
half way tells nothing twice; one connection serves a player with fifty games."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import redis
from flask.testing import FlaskClient
from ludoteca.adapters.players import PlayerEvents, key
from ludoteca.adapters.store import outbox_key
from ludoteca.adapters.sweeper import Sweeper
from ludoteca.config import Settings
from ludoteca.service_layer.mygames import PlayerRef
from ludoteca.service_layer.service import GameService

SSE = {"Accept": "text/event-stream"}


class Crash(Exception):
    """The service's process dying at this point."""


def bearer(token: str, **headers: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", **headers}


def new_player(players: FlaskClient, name: str) -> tuple[str, str]:
    made = players.post("/", json={"name": name}).get_json()
    return made["player"]["id"], made["token"]


def table(pig: FlaskClient, first: str, second: str, **options: Any) -> str:
    """A Pig game created by ``first``'s player and joined by ``second``'s: its id."""
    made = pig.post("/games", json={"seats": ["human", "human"], "options": options}, headers=bearer(first))
    assert made.status_code == 201, made.get_json()
    game_id: str = made.get_json()["game"]["id"]
    assert pig.post(f"/games/{game_id}/players", json={}, headers=bearer(second)).status_code == 201
    return game_id


def events(players: FlaskClient, token: str, after: int = 0, wait: float = 0) -> dict[str, Any]:
    resp = players.get("/me/events", query_string={"after": after, "wait": wait}, headers=bearer(token))
    assert resp.status_code == 200, resp.get_json()
    assert resp.headers["Cache-Control"] == "private, no-store"
    found: dict[str, Any] = resp.get_json()
    return found


def kinds(found: list[dict[str, Any]], game_id: str | None = None) -> list[str]:
    return [e["type"] for e in found if game_id is None or e["id"] == game_id]


def messages(chunks: Iterator[bytes]) -> Iterator[dict[str, str]]:
    """The messages of a ``text/event-stream`` body as an EventSource dispatches them (comments
    and ``retry`` dispatch nothing)."""
    buffer = b""
    for chunk in chunks:
        buffer += chunk
        while b"\n\n" in buffer:
            block, buffer = buffer.split(b"\n\n", 1)
            fields: dict[str, str] = {}
            for line in block.decode().split("\n"):
                if line.startswith(":") or not line:
                    continue
                name, _, value = line.partition(": ")
                fields[name] = value
            if "data" in fields:
                yield fields


def test_a_game_between_players_told_on_both_streams(pig: FlaskClient, players_client: FlaskClient,
                                                      play_to_the_end: Any) -> None:
    _, ada_token = new_player(players_client, "Ada")
    _, bob_token = new_player(players_client, "Bob")
    game_id = table(pig, ada_token, bob_token, target=10)
    first = pig.get(f"/games/{game_id}").get_json()["to_act"][0]
    told = {0: events(players_client, ada_token)["events"], 1: events(players_client, bob_token)["events"]}
    for seat, found in told.items():
        assert kinds(found) == ["game_started"] + (["your_turn"] if seat == first else [])
        assert [e["seq"] for e in found] == list(range(1, len(found) + 1))
        assert all(e["seat"] == seat and e["game"] == "pig" and e["id"] == game_id for e in found)
        assert found[0]["url"].endswith(f"/pig/games/{game_id}")
    play_to_the_end(pig, game_id, {0: ada_token, 1: bob_token})
    result = pig.get(f"/games/{game_id}").get_json()["result"]
    for seat, token in ((0, ada_token), (1, bob_token)):
        found = events(players_client, token)["events"]
        assert kinds(found)[-1] == "game_finished" and kinds(found).count("game_finished") == 1
        assert found[-1]["won"] is (seat in result["winners"])
        turns = [e for e in found if e["type"] == "your_turn"]
        # told each time the turn came to the seat: versions increasing, never twice in a row unasked
        assert turns and [e["version"] for e in turns] == sorted({e["version"] for e in turns})
        # resuming after the last: nothing more, nothing repeated
        last = found[-1]["seq"]
        assert events(players_client, token, after=last) == {"events": [], "last_seq": last}
        assert [e["seq"] for e in events(players_client, token, after=2)["events"]] == list(range(3, last + 1))


def test_the_stream_needs_a_players_token(players_client: FlaskClient, pig: FlaskClient) -> None:
    resp = players_client.get("/me/events")
    assert resp.status_code == 401 and resp.content_type == "application/problem+json"
    made = pig.post("/games", json={"seats": ["human", "human"]}).get_json()  # a seat token is no player's
    assert players_client.get("/me/events", headers=bearer(made["token"])).status_code == 401
    _, token = new_player(players_client, "Q")
    for query in ({"after": -1}, {"wait": 61}, {"after": "x"}, {"nope": 1}):
        bad = players_client.get("/me/events", query_string=query, headers=bearer(token))
        assert bad.status_code == 422 and bad.content_type == "application/problem+json"
    bad = players_client.get("/me/events", headers=bearer(token, **SSE, **{"Last-Event-ID": "x"}))
    assert bad.status_code == 400 and bad.content_type == "application/problem+json"


def test_server_sent_events_resume_with_last_event_id(pig: FlaskClient, settings: Settings, kit: Any,
                                                      players_client: FlaskClient) -> None:
    _, ada_token = new_player(players_client, "Ann")
    _, bob_token = new_player(players_client, "Ben")
    games = [table(pig, ada_token, bob_token) for _ in range(3)]
    everything = events(players_client, ada_token)["events"]
    short = kit.players_app(replace(settings, max_stream_seconds=0.5, stream_heartbeat_seconds=0.2)).test_client()
    resp = short.get("/me/events", headers=bearer(ada_token, **SSE))
    assert resp.status_code == 200 and resp.mimetype == "text/event-stream"
    assert resp.headers["Cache-Control"] == "no-cache, no-transform"
    body = resp.get_data()
    assert body.startswith(b"retry: 1000\n")
    got = list(messages(iter([body])))
    assert [int(m["id"]) for m in got] == [e["seq"] for e in everything]
    assert [json.loads(m["data"]) for m in got] == everything
    assert {e["id"] for e in everything} == set(games)
    # reconnect after the second: the rest, each once (the header wins over ?after=)
    again = short.get("/me/events", query_string={"after": 0}, headers=bearer(ada_token, **SSE, **{
        "Last-Event-ID": got[1]["id"]}))
    assert [m["id"] for m in messages(iter([again.get_data()]))] == [m["id"] for m in got[2:]]
    resumed = short.get("/me/events", query_string={"after": got[-1]["id"]}, headers=bearer(ada_token, **SSE))
    assert list(messages(iter([resumed.get_data()]))) == []  # nothing new: keep-alives only


class TestFaults:
    def test_a_service_killed_between_the_commit_and_the_relay(self, pig: FlaskClient, settings: Any,
                                                               players_client: FlaskClient,
                                                               redis_client: redis.Redis) -> None:
        ada, ada_token = new_player(players_client, "Cy")
        bob, bob_token = new_player(players_client, "Di")
        service: GameService = pig.application.extensions["ludoteca"]["service"]
        real = service.players
        assert real is not None

        class DiesBeforeTheRelay:
            """The players of a service whose process dies once the game is committed."""

            games = real.games

            def identify(self, t: str) -> PlayerRef | None:
                return real.identify(t)

            def rate(self, *args: Any) -> int:
                return 0

            def leaderboard(self, *args: Any) -> list[dict[str, Any]]:
                return []

            def relay(self, game: str, game_id: str) -> int:
                raise Crash

        dying = GameService(service.d, service.store, service.dispatcher, players=DiesBeforeTheRelay())
        envelope, _, _ = dying.create(["human", "human"], {}, 0, None, PlayerRef(ada, "Cy"))
        game_id = envelope["id"]
        # the relay's failure is the process's: the join is committed, its notices in the game's outbox only
        dying.join(game_id, None, None, PlayerRef(bob, "Di"))
        assert events(players_client, ada_token)["events"] == []
        left = redis_client.xlen(outbox_key("pig", game_id))
        assert left >= 2  # game_started to each, your_turn to whoever starts
        # the sweeper (a pass with no grace) relays them, once however often it runs
        relay = PlayerEvents(redis_client)
        sweeper = Sweeper(redis_client, ["pig"], service.dispatcher, grace_seconds=0.001, relay=relay.relay)
        assert sweeper.sweep().relayed == left
        assert sweeper.sweep().relayed == 0
        assert relay.relay("pig", game_id) == 0
        assert redis_client.xlen(outbox_key("pig", game_id)) == 0
        told = events(players_client, ada_token)["events"] + events(players_client, bob_token)["events"]
        assert len(told) == left and kinds(told).count("game_started") == 2 and kinds(told).count("your_turn") == 1
        assert redis_client.zscore("pig:{outbox}", game_id) is None  # the hint went with them

    def test_a_relay_killed_half_way_tells_nothing_twice(self, pig: FlaskClient, players_client: FlaskClient,
                                                         redis_client: redis.Redis) -> None:
        _, ada_token = new_player(players_client, "Ed")
        _, bob_token = new_player(players_client, "Flo")
        game_id = table(pig, ada_token, bob_token)
        before = events(players_client, ada_token)["events"] + events(players_client, bob_token)["events"]
        first = pig.get(f"/games/{game_id}").get_json()["to_act"][0]
        token = (ada_token, bob_token)[first]

        class DiesBeforeTheDelete(PlayerEvents):
            """A relay that dies once the players' streams have the notices, before the outbox is cleared."""

            def relay(self, game: str, game_id: str, batch: int = 500) -> int:
                client = self.client

                class NoDelete:
                    def __getattr__(self, name: str) -> Any:
                        if name == "xdel":
                            raise Crash
                        return getattr(client, name)

                self.client = NoDelete()
                try:
                    return super().relay(game, game_id, batch)
                finally:
                    self.client = client

        service: GameService = pig.application.extensions["ludoteca"]["service"]
        real = service.players
        assert real is not None
        original = real.relay
        real.relay = DiesBeforeTheDelete(redis_client).relay  # type: ignore[method-assign]
        try:  # roll (and hold): the turn passes (your_turn to the other seat, in the outbox still)
            rolled = pig.post(f"/games/{game_id}/actions", json={"type": "roll"}, headers=bearer(token))
            assert rolled.status_code == 200
            if first in rolled.get_json()["game"]["to_act"]:
                held = pig.post(f"/games/{game_id}/actions", json={"type": "hold"}, headers=bearer(token))
                assert held.status_code == 200
        finally:
            real.relay = original  # type: ignore[method-assign]
        assert redis_client.xlen(outbox_key("pig", game_id)) == 1
        assert PlayerEvents(redis_client).relay("pig", game_id) == 0  # told already: only cleared
        assert redis_client.xlen(outbox_key("pig", game_id)) == 0
        after = events(players_client, ada_token)["events"] + events(players_client, bob_token)["events"]
        assert len(after) == len(before) + 1 and kinds(after).count("your_turn") == 2


def test_one_connection_serves_fifty_games(pig: FlaskClient, settings: Settings, kit: Any,
                                           players_client: FlaskClient, redis_client: redis.Redis) -> None:
    me, token = new_player(players_client, "Many")
    _, other = new_player(players_client, "Other")
    app = kit.players_app(replace(settings, max_stream_seconds=600))
    resp = app.test_client().get("/me/events", headers=bearer(token, **SSE))
    assert resp.status_code == 200
    seen: dict[str, list[str]] = {}
    started = threading.Event()
    done = threading.Event()

    def listen() -> None:
        chunks = resp.response  # the stream's generator: one connection's bytes as they come
        started.set()
        for m in messages(iter(chunks)):
            e = json.loads(m["data"])
            seen.setdefault(e["id"], []).append(e["type"])
            if sum(kinds.count("game_started") for kinds in seen.values()) == 50:
                break
        done.set()
        resp.close()

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    started.wait()
    games = [table(pig, token, other) for _ in range(50)]
    thread.join(120)
    assert done.is_set()
    assert set(seen) == set(games)
    assert all(kinds[0] == "game_started" and kinds.count("game_started") == 1 for kinds in seen.values())
    assert redis_client.exists(key(me, "events"))


def test_a_timed_out_turn_is_told_to_its_player(pig: FlaskClient, players_client: FlaskClient) -> None:
    _, ada_token = new_player(players_client, "Gil")
    _, bob_token = new_player(players_client, "Hal")
    game_id = table(pig, ada_token, bob_token, turn_seconds=5)
    stored = pig.get(f"/games/{game_id}").get_json()
    late = stored["to_act"][0]
    service: GameService = pig.application.extensions["ludoteca"]["service"]
    # the worker's bot_turn after the deadline (a service whose clock is past it), as the sweeper dispatches it
    later = GameService(service.d, service.store, service.dispatcher, clock=lambda: time.time() + 60,
                        players=service.players)
    assert later.bot_turn(game_id, stored["version"]) == "timed-out"
    found = events(players_client, (ada_token, bob_token)[late])["events"]
    timed = [e for e in found if e["type"] == "turn_timed_out"]
    assert len(timed) == 1 and timed[0]["seat"] == late and timed[0]["version"] == stored["version"] + 1
