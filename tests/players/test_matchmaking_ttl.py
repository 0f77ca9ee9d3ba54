"""Matchmaking over time (a review's findings): a ticket that is polled keeps its pool's queue and
its player's one-ticket mark alive as long as itself. ``ticket_ttl`` = 2 s here stands for the
600 s default: every test polls past it. Before, both expired 600 s after the enqueue, so a polled
ticket was never matched, a fill-with-bots later than that never came, and the same player could
queue a second ticket and be paired with itself."""

from __future__ import annotations

import time
from typing import Any

import pytest
from flask.testing import FlaskClient
from ludoteca.adapters.players import MatchQueues
from ludoteca.core.errors import ConflictError
from ludoteca.service_layer.matching import Matchmaker
from ludoteca.service_layer.mygames import PlayerRef

TTL = 2
POLL = 0.8


def new_player(players: FlaskClient, name: str) -> PlayerRef:
    made = players.post("/", json={"name": name}).get_json()
    return PlayerRef(made["player"]["id"], name)


def maker(pig: FlaskClient, redis_client: Any, ttl: int = TTL) -> Matchmaker:
    service = pig.application.extensions["ludoteca"]["service"]
    seating = service.players
    queue = MatchQueues(redis_client, "pig", ticket_ttl=ttl)
    return Matchmaker(service, queue, lambda pid: seating.ordinal(pid, "pig"), seating.tell)


def test_a_polled_ticket_keeps_its_queue_and_is_matched(pig: FlaskClient, players_client: FlaskClient,
                                                        redis_client: Any) -> None:
    mm = maker(pig, redis_client)
    ada, bob = new_player(players_client, "Ada"), new_player(players_client, "Bob")
    opts = {"target": 71}
    a = mm.post(ada, 2, opts, None)
    for _ in range(4):  # Ada polls, as told, past the ticket TTL
        time.sleep(POLL)
        assert mm.ticket(ada, a["ticket"])["state"] == "waiting"
    b = mm.post(bob, 2, opts, None)  # the same pool and rating: matched at once
    assert mm.ticket(ada, a["ticket"])["state"] == mm.ticket(bob, b["ticket"])["state"] == "matched"


def test_a_player_keeps_one_ticket_while_it_is_polled(pig: FlaskClient, players_client: FlaskClient,
                                                      redis_client: Any) -> None:
    mm = maker(pig, redis_client)
    solo = new_player(players_client, "Solo")
    opts = {"target": 72}
    first = mm.post(solo, 2, opts, None)
    for _ in range(4):
        time.sleep(POLL)
        assert mm.ticket(solo, first["ticket"])["state"] == "waiting"
    with pytest.raises(ConflictError, match="already"):  # a 409: never a second ticket
        mm.post(solo, 2, opts, None)
    assert redis_client.zrange(mm.queue.queue(first["pool"]), 0, -1) == [first["ticket"].encode()]


def test_a_fill_with_bots_later_than_the_ticket_ttl_comes(pig: FlaskClient, players_client: FlaskClient,
                                                         redis_client: Any) -> None:
    mm = maker(pig, redis_client)
    ada = new_player(players_client, "Patient")
    t = mm.post(ada, 2, {"target": 73}, {"level": "random", "after_seconds": TTL + 1})
    states = []
    for _ in range(6):
        time.sleep(POLL)
        states.append(mm.ticket(ada, t["ticket"])["state"])
    assert states[-1] == "matched", states


def test_one_player_is_never_paired_with_itself(pig: FlaskClient, players_client: FlaskClient,
                                                redis_client: Any) -> None:
    """Two tickets of one player in one pool (as a lapsed mark let in): the claim passes over
    them; a third player's ticket is paired with one of them."""
    mm = maker(pig, redis_client, ttl=600)
    solo, other = new_player(players_client, "Twice"), new_player(players_client, "Other")
    opts = {"target": 75}
    first = mm.post(solo, 2, opts, None)
    redis_client.delete(f"{mm.queue.prefix}player:{solo.id}")  # the mark lost: a second ticket gets in
    second = mm.post(solo, 2, opts, None)
    assert second["ticket"] != first["ticket"]
    states = {mm.ticket(solo, t)["state"] for t in (first["ticket"], second["ticket"])}
    assert states == {"waiting"}, states
    third = mm.post(other, 2, opts, None)
    assert mm.ticket(other, third["ticket"])["state"] == "matched"
    assert sorted(mm.ticket(solo, t)["state"] for t in (first["ticket"], second["ticket"])) == ["matched", "waiting"]
