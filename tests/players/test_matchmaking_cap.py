"""Matchmaking's cap counts live tickets only (a review's finding): a pool's queue holds at most
``cap`` tickets, and before, the tickets its players had abandoned (stopped polling, or whose
ticket key expired) counted until a claim dropped them; a claim runs only after an enqueue that
was let in or after a poll, so a pool full of abandoned tickets refused every new player (503)
until its queue key expired. Now an enqueue at the cap drops them first, by the claim's own
definition (``_SWEEP`` in :mod:`ludoteca.adapters.players`). Here ``cap`` = 3 stands for the
1,000 of the default, on the session's real Redis, with the matcher's clock in the test's hands
and a window no group fits (nobody is matched: the pool fills)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from flask.testing import FlaskClient
from ludoteca.adapters.players import MatchQueues
from ludoteca.core.errors import UnavailableError
from ludoteca.service_layer.matching import POLL_TIMEOUT_SECONDS, Matchmaker
from ludoteca.service_layer.mygames import PlayerRef

CAP = 3


class Clock:
    """The matcher's clock, moved by the test."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@dataclass
class Pool:
    """A matcher of Pig over a queue capped at :data:`CAP`, and the pool it was filled to its cap in."""

    mm: Matchmaker
    queues: MatchQueues
    key: str
    """The pool's queue."""
    waiting: list[PlayerRef]
    tickets: list[str]
    """The tickets of ``waiting``, in order."""


def full_pool(pig: FlaskClient, players: FlaskClient, redis_client: Any, clock: Clock, target: int,
              poll_timeout: float = POLL_TIMEOUT_SECONDS) -> Pool:
    """The pool of two seats of Pig to ``target``, filled by :data:`CAP` new players."""
    service = pig.application.extensions["ludoteca"]["service"]
    seating = service.players
    queues = MatchQueues(redis_client, "pig", cap=CAP)
    mm = Matchmaker(service, queues, lambda pid: seating.ordinal(pid, "pig"), seating.tell, clock=clock,
                    base=-1.0, widen=0.0, poll_timeout=poll_timeout)  # a window no group fits
    waiting = [new_player(players, f"Waiting {i}") for i in range(CAP)]
    made = [mm.post(p, 2, {"target": target}, None) for p in waiting]
    key = queues.queue(made[0]["pool"])
    assert redis_client.zcard(key) == CAP
    return Pool(mm, queues, key, waiting, [t["ticket"] for t in made])


def new_player(players: FlaskClient, name: str) -> PlayerRef:
    made = players.post("/", json={"name": name}).get_json()
    return PlayerRef(made["player"]["id"], name)


def test_a_pool_of_live_tickets_at_its_cap_refuses_a_new_one(pig: FlaskClient, players_client: FlaskClient,
                                                           redis_client: Any) -> None:
    clock = Clock()
    pool = full_pool(pig, players_client, redis_client, clock, 81)
    mm = pool.mm
    clock.now += mm.poll_timeout * 0.9
    for player, ticket in zip(pool.waiting, pool.tickets, strict=True):  # each polls within the timeout
        assert mm.ticket(player, ticket)["state"] == "waiting"
    clock.now += mm.poll_timeout * 0.9  # the first enqueue's time is long past: the polls count
    with pytest.raises(UnavailableError, match="Too many players"):
        mm.post(new_player(players_client, "Late"), 2, {"target": 81}, None)
    assert redis_client.zcard(pool.key) == CAP


def test_tickets_whose_players_stopped_polling_leave_room(pig: FlaskClient, players_client: FlaskClient,
                                                         redis_client: Any) -> None:
    clock = Clock()
    pool = full_pool(pig, players_client, redis_client, clock, 82)
    clock.now += pool.mm.poll_timeout + 1  # nobody polled: every ticket is abandoned, its key still there
    late = pool.mm.post(new_player(players_client, "Late"), 2, {"target": 82}, None)  # a 503 before
    assert late["state"] == "waiting"
    assert [(pool.queues.get(t) or {}).get("state") for t in pool.tickets] == ["expired"] * CAP  # as a claim marks
    assert redis_client.zrange(pool.key, 0, -1) == [late["ticket"].encode()]


def test_tickets_whose_keys_expired_leave_room(pig: FlaskClient, players_client: FlaskClient,
                                              redis_client: Any) -> None:
    pool = full_pool(pig, players_client, redis_client, Clock(), 83)
    redis_client.delete(*[pool.queues.ticket_key(t) for t in pool.tickets[:2]])  # as their TTL does
    late = pool.mm.post(new_player(players_client, "Late"), 2, {"target": 83}, None)  # a 503 before
    assert late["state"] == "waiting"
    assert {m.decode() for m in redis_client.zrange(pool.key, 0, -1)} == {pool.tickets[2], late["ticket"]}


def test_the_enqueue_holds_tickets_abandoned_by_the_matchers_own_poll_timeout(
        pig: FlaskClient, players_client: FlaskClient, redis_client: Any) -> None:
    """A matcher with its own poll timeout (5 s, not the default) passes it to the enqueue as to
    its claims: 6 s without a poll, a full pool's tickets are abandoned and leave room."""
    clock = Clock()
    pool = full_pool(pig, players_client, redis_client, clock, 84, poll_timeout=5.0)
    clock.now += 6.0
    late = pool.mm.post(new_player(players_client, "Late"), 2, {"target": 84}, None)  # a 503 before
    assert late["state"] == "waiting"
    assert redis_client.zrange(pool.key, 0, -1) == [late["ticket"].encode()]
