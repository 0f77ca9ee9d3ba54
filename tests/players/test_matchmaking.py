"""Matchmaking (issue 23, item 5), with Pig's service in process and the players service over the
one real Redis: tickets of players, a game made for enough compatible ones with each seat bound,
``matched`` on each player's stream; close ratings first, the window widening with the wait;
fill with bots; tickets that stop polling leave; and the race: 100 tickets posted at once by 100
threads, every player in exactly one game, no game short of players."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any

import redis
from flask.testing import FlaskClient
from ludoteca.adapters.players import key
from ludoteca.service_layer.matching import Matchmaker
from ludoteca.service_layer.mygames import PlayerRef
from ludoteca.service_layer.service import GameService

PROBLEM = "application/problem+json"
_targets = itertools.count(400)


def pool_options() -> dict[str, int]:
    """Options of a pool of this test's own (a target no other test asks for)."""
    return {"target": next(_targets)}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_player(players: FlaskClient, name: str) -> tuple[str, str]:
    made = players.post("/", json={"name": name}).get_json()
    return made["player"]["id"], made["token"]


def service_of(pig: FlaskClient) -> GameService:
    found: GameService = pig.application.extensions["ludoteca"]["service"]
    return found


def at(pig: FlaskClient, clock: list[float]) -> Matchmaker:
    """The route's matchmaker with a clock the test moves."""
    routes = service_of(pig).players
    assert routes is not None
    made = Matchmaker(service_of(pig), routes.queues("pig"), lambda pid: routes.ordinal(pid, "pig"), routes.tell,
                      clock=lambda: clock[0])
    return made


def rated(redis_client: redis.Redis, player_id: str, ordinal: float) -> None:
    """Give the player that ordinal in Pig (sigma 1)."""
    redis_client.hset(key(player_id, "ratings"), mapping={"pig:mu": ordinal + 3, "pig:sigma": 1, "pig:played": 1})


def test_two_players_matched_through_the_routes(pig: FlaskClient, players_client: FlaskClient) -> None:
    ada, ada_token = new_player(players_client, "Ada")
    bob, bob_token = new_player(players_client, "Bob")
    options = pool_options()
    first = pig.post("/matchmaking", json={"seats": 2, "options": options}, headers=bearer(ada_token))
    assert first.status_code == 201, first.get_json()
    ticket = first.get_json()
    assert ticket["status"] == "waiting" and ticket["game"] is None and ticket["options"]["target"] == options["target"]
    assert first.headers["Location"].endswith(f"/matchmaking/{ticket['ticket']}")
    again = pig.post("/matchmaking", json={"seats": 2, "options": options}, headers=bearer(ada_token))
    assert again.status_code == 409 and again.get_json()["ticket"] == ticket["ticket"]  # one wait a player
    second = pig.post("/matchmaking", json={"seats": 2, "options": options}, headers=bearer(bob_token)).get_json()
    assert second["status"] == "matched"
    mine = pig.get(f"/matchmaking/{ticket['ticket']}", headers=bearer(ada_token)).get_json()
    assert mine["status"] == "matched" and mine["game"]["id"] == second["game"]["id"]
    assert {mine["game"]["seat"], second["game"]["seat"]} == {0, 1}
    game_id = mine["game"]["id"]
    view = pig.get(f"/games/{game_id}", headers=bearer(ada_token)).get_json()
    assert view["status"] == "active" and view["you"] == mine["game"]["seat"]
    assert sorted(s["name"] for s in view["seats"]) == ["Ada", "Bob"]
    assert view["state"]["target"] == options["target"]
    # one commit: the table was made with both seats bound (never half bound, never in the
    # lobby), its first events those that creating and joining wrote before
    assert view["version"] == 1
    events = [e["type"] for e in pig.get(f"/games/{game_id}/events").get_json()["events"]]
    assert events == ["GameCreated", "SeatClaimed", "GameStarted"], events
    for player_id, token in ((ada, ada_token), (bob, bob_token)):
        told = players_client.get("/me/events", headers=bearer(token)).get_json()["events"]
        matched = [e for e in told if e["type"] == "matched"]
        assert len(matched) == 1 and matched[0]["id"] == game_id
        games = players_client.get("/me/games", headers=bearer(token)).get_json()["games"]
        assert [g["id"] for g in games] == [game_id]
        assert service_of(pig).load(game_id).record.player_ids.count(player_id) == 1
    # a matched ticket cannot be cancelled
    assert pig.delete(f"/matchmaking/{ticket['ticket']}", headers=bearer(ada_token)).status_code == 409


def test_the_refusals(pig: FlaskClient, players_client: FlaskClient) -> None:
    _, token = new_player(players_client, "Cy")
    _, other = new_player(players_client, "Di")
    assert pig.post("/matchmaking", json={"seats": 2}).status_code == 401
    seat_token = pig.post("/games", json={"seats": ["human", "human"]}).get_json()["token"]
    assert pig.post("/matchmaking", json={"seats": 2}, headers=bearer(seat_token)).status_code == 401
    for body in ({}, {"seats": 1}, {"seats": 9}, {"seats": 2, "options": {"target": 1}},
                 {"seats": 2, "fill_with_bots": {"level": "nobody", "after_seconds": 1}},
                 {"seats": 2, "fill_with_bots": {"level": "random", "after_seconds": -1}}, {"seats": "2"}):
        bad = pig.post("/matchmaking", json=body, headers=bearer(token))
        assert bad.status_code == 422 and bad.content_type == PROBLEM, body
    made = pig.post("/matchmaking", json={"seats": 2, "options": pool_options()}, headers=bearer(token)).get_json()
    assert pig.get(f"/matchmaking/{made['ticket']}", headers=bearer(other)).status_code == 404  # not yours
    assert pig.get("/matchmaking/nope", headers=bearer(token)).status_code == 404
    assert pig.get(f"/matchmaking/{made['ticket']}").status_code == 401
    cancelled = pig.delete(f"/matchmaking/{made['ticket']}", headers=bearer(token))
    assert cancelled.status_code == 200 and cancelled.get_json()["status"] == "cancelled"
    assert pig.get(f"/matchmaking/{made['ticket']}", headers=bearer(token)).get_json()["status"] == "cancelled"
    assert pig.delete(f"/matchmaking/{made['ticket']}", headers=bearer(token)).status_code == 409


def test_close_ratings_first_the_window_widening(pig: FlaskClient, players_client: FlaskClient,
                                                 redis_client: redis.Redis) -> None:
    clock = [1_000_000.0]
    maker = at(pig, clock)
    options = pool_options()
    players = {}
    for name, ordinal in (("a", 0.0), ("c", 20.0), ("b", 1.0), ("d", 21.0), ("e", 50.0), ("f", 70.0)):
        player_id, _ = new_player(players_client, name)
        rated(redis_client, player_id, ordinal)
        players[name] = PlayerRef(player_id, name)
    tickets = {}
    for name in "acbd":  # a and c too far apart; b matches a, then d matches c
        tickets[name] = maker.post(players[name], 2, options, None)
    games = {name: maker.ticket(players[name], tickets[name]["ticket"])["game"] for name in "abcd"}
    assert games["a"] == games["b"] and games["c"] == games["d"] and games["a"] != games["c"]
    for name in "ef":  # 20 apart: after the base window (3) widened by 17 s of waiting
        tickets[name] = maker.post(players[name], 2, options, None)
    clock[0] += 16
    assert maker.ticket(players["e"], tickets["e"]["ticket"])["state"] == "waiting"
    clock[0] += 1.5
    assert maker.ticket(players["e"], tickets["e"]["ticket"])["state"] == "matched"
    assert maker.ticket(players["f"], tickets["f"]["ticket"])["game"] == \
        maker.ticket(players["e"], tickets["e"]["ticket"])["game"]


def test_tickets_not_polled_leave_and_bots_fill(pig: FlaskClient, players_client: FlaskClient) -> None:
    clock = [2_000_000.0]
    maker = at(pig, clock)
    options = pool_options()
    gone, alone, late = (PlayerRef(new_player(players_client, n)[0], n) for n in ("gone", "alone", "late"))
    quiet = maker.post(gone, 2, options, None)
    clock[0] += 31  # its player stopped polling: the next claim drops it
    filled = maker.post(alone, 2, options, {"level": "hold20", "after_seconds": 5})
    assert maker.queue.get(quiet["ticket"])["state"] == "expired"  # type: ignore[index]
    assert filled["state"] == "waiting"
    clock[0] += 5
    done = maker.ticket(alone, filled["ticket"])
    assert done["state"] == "matched" and done["seat"] == 0
    record = service_of(pig).load(done["game"]).record
    assert list(record.players) == ["human", "bot:hold20"] and record.player_ids[0] == alone.id
    # a ticket claimed by a matcher that died before making the game goes back after the grace
    stuck = maker.post(late, 2, options, None)
    maker.queue.update(stuck["ticket"], ["waiting"], state="claimed", claimed=clock[0])
    maker.queue.dequeue(stuck["ticket"], stuck["pool"])
    assert maker.ticket(late, stuck["ticket"])["state"] == "claimed"
    clock[0] += 31
    assert maker.ticket(late, stuck["ticket"])["state"] == "waiting"


def test_a_hundred_tickets_at_once(client_factory: Callable[[str], FlaskClient], players_client: FlaskClient) -> None:
    """100 players post their tickets at once (100 threads, each its own client of the one app):
    every player is in exactly one game, every game has both its seats bound, and each ticket
    names the game its player is in."""
    options = pool_options()
    tokens = [new_player(players_client, f"p{i}") for i in range(100)]
    tickets: dict[str, dict[str, Any]] = {}
    errors: list[str] = []
    start = threading.Barrier(len(tokens))

    def post(player_id: str, token: str) -> None:
        pig = client_factory("pig")
        start.wait()
        resp = pig.post("/matchmaking", json={"seats": 2, "options": options}, headers=bearer(token))
        if resp.status_code != 201:
            errors.append(f"{resp.status_code} {resp.get_json()}")
            return
        tickets[player_id] = resp.get_json()

    threads = [threading.Thread(target=post, args=pair) for pair in tokens]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(tickets) == 100
    pig = client_factory("pig")
    final = {pid: pig.get(f"/matchmaking/{t['ticket']}", headers=bearer(token)).get_json()
             for (pid, token), t in ((p, tickets[p[0]]) for p in tokens)}
    assert {t["status"] for t in final.values()} == {"matched"}
    games: dict[str, list[str]] = {}
    for pid, t in final.items():
        games.setdefault(t["game"]["id"], []).append(pid)
    assert len(games) == 50 and all(len(members) == 2 for members in games.values())
    service = service_of(pig)
    for game_id, members in games.items():
        bound = service.load(game_id).record.player_ids
        assert sorted(p for p in bound if p) == sorted(members)  # both seats bound, to those two
        assert {final[p]["game"]["seat"] for p in members} == {0, 1}
