"""Every installed game through the hosting layer: whatever GET .../actions lists, POST accepts,
until the game ends; the replay's seed re-deals the same game; spectators and seats see only
their own views; events reach exactly their audience."""

from __future__ import annotations

import random
from typing import Any

import pytest
from api_client import Api
from ludoteca.core.rng import Rng, commitment
from ludoteca.service_layer import registry
from playout import choose

MAX_MOVES = 3000


def seated_game(game: str, client_factory: Any) -> tuple[Api, str, list[str]]:
    """A game of the fewest seats, all human, every seat claimed: (client, id, tokens)."""
    api = Api(client_factory(game))
    n = registry.game(game).engine.min_seats
    gid, first = api.create(["human"] * n)
    return api, gid, [first] + [api.join(gid)[1]["token"] for _ in range(n - 1)]


@pytest.mark.parametrize("game", registry.names())
def test_listed_actions_are_accepted_until_the_end(game: str, client_factory: Any) -> None:
    definition = registry.game(game)
    api, gid, tokens = seated_game(game, client_factory)
    rnd = random.Random(f"{game}-api")
    moves = 0
    while moves < MAX_MOVES:
        view = api.view(gid)
        if view["status"] == "finished":
            break
        assert view["to_act"], "an active game always waits on someone"
        seat = rnd.choice(view["to_act"])
        listed = api.actions(gid, tokens[seat])
        assert listed["actions"] or listed["templates"], f"seat {seat} must act but has nothing to do"
        action = choose(game, api.view(gid, tokens[seat])["state"], listed, rnd, moves)
        status, data, _ = api.play(gid, tokens[seat], action)
        assert status == 200, (action, data)
        moves += 1
    final = api.view(gid)
    if final["status"] != "finished":
        pytest.fail(f"{game}: not over after {MAX_MOVES} moves (every one was accepted)")
    if game == "ludic":  # the winner is often not the top scorer: the result says why
        assert final["result"]["summary"]["won_by"]
    status, replay, _ = api.call("GET", f"/games/{gid}/replay")
    assert status == 200 and commitment(replay["seed"]) == final["seed_sha256"]
    engine = definition.engine
    state = engine.new_game(replay["players"], replay["options"], Rng(replay["seed"]))
    for entry in replay["actions"]:
        state, _ = engine.apply(state, entry["seat"], entry["action"])
    assert engine.dump(state) == replay["final_state"]


@pytest.mark.parametrize("game", registry.names())
def test_events_reach_only_their_audience(game: str, client_factory: Any) -> None:
    api, gid, tokens = seated_game(game, client_factory)
    n = len(tokens)
    rnd = random.Random(f"{game}-events")
    for _ in range(40):
        view = api.view(gid)
        if view["status"] != "active":
            break
        seat = view["to_act"][0]
        listed = api.actions(gid, tokens[seat])
        if not listed["actions"]:
            break
        api.play(gid, tokens[seat], rnd.choice(listed["actions"]))
    service = api.c.application.extensions["ludoteca"]["service"]
    records = [rec for _, rec in service.store.events_after(gid, 0, count=100000)]
    for seat in [None, *range(n)]:
        token = tokens[seat] if seat is not None else None
        _, page, _ = api.call("GET", f"/games/{gid}/events?after=0", token)
        expected = [(r["type"], r["data"]) for r in records
                    if r["audience"] is None or (seat is not None and seat in r["audience"])]
        assert [(e["type"], e["data"]) for e in page["events"]] == expected
        assert [e["seq"] for e in page["events"]] == list(range(1, len(expected) + 1))  # the caller's own numbers
        assert "audience" not in (page["events"][0] if page["events"] else {})
