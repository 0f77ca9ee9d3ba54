"""One request a move (issue 24, item 5): a move's answer carries the mover's next legal actions.

For every registered game, a table of humans over the real Redis is played through two apps of
the game, one with the hot routes (the move's fast path) and one without (Flask's views), the
moves alternating between them. Each answer's ``next`` must be exactly what a fresh
``GET .../actions`` gives the same seat at that version (asked of the other app), or null when the
seat may no longer act; the same request sent again with its ``Idempotency-Key`` (through the
other app) must come back byte for byte.
"""

from __future__ import annotations

import os
import random
import secrets
from dataclasses import replace
from typing import Any

import orjson
import pytest
from conftest import in_process_app
from flask.testing import FlaskClient
from ludoteca.config import Settings
from ludoteca.service_layer import registry

MOVES = 40  # a game's first moves (or all of them, when it ends first)


def clients(game: str, settings: Settings) -> dict[str, FlaskClient]:
    """The hot app and the Flask-only app of ``game``, a client of each from one client address."""
    base = replace(settings, rate_limit_per_minute=1_000_000, rate_limit_create_per_minute=1_000,
                   rate_limit_failures_per_minute=1_000)
    address = f"10.{os.getpid() % 250}.{secrets.randbelow(250)}.{secrets.randbelow(250)}"
    out = {}
    for name, hot in (("hot", True), ("flask", False)):
        client = in_process_app(game, replace(base, hot_routes=hot)).test_client()
        client.environ_base["REMOTE_ADDR"] = address
        out[name] = client
    return out


def call(client: FlaskClient, method: str, path: str, token: str | None = None, body: Any = None,
         headers: dict[str, str] | None = None) -> Any:
    h = dict(headers or {})
    if token is not None:
        h["Authorization"] = f"Bearer {token}"
    return client.open(path, method=method, headers=h, json=body)


def table(client: FlaskClient, game: str) -> tuple[str, list[str]]:
    """A started table of humans (the game's fewest seats): its id and every seat's token."""
    n = registry.game(game).engine.min_seats
    created = call(client, "POST", "/games", body={"seats": ["human"] * n, "options": {}})
    assert created.status_code == 201, created.data
    gid, tokens = created.json["game"]["id"], [created.json["token"]]
    for _ in range(1, n):
        joined = call(client, "POST", f"/games/{gid}/players", body={})
        assert joined.status_code == 201, joined.data
        tokens.append(joined.json["token"])
    return gid, tokens


def listing(client: FlaskClient, gid: str, token: str) -> dict[str, Any]:
    answer = call(client, "GET", f"/games/{gid}/actions", token)
    assert answer.status_code == 200, answer.data
    return dict(answer.json)


@pytest.mark.parametrize("game", registry.names())
def test_a_moves_answer_lists_the_movers_next_actions_as_a_fresh_listing_would(game: str, settings: Settings) -> None:
    apps = clients(game, settings)
    order = ("hot", "flask")
    gid, tokens = table(apps["hot"], game)
    rng = random.Random(f"{game}-next")
    view = call(apps["flask"], "GET", f"/games/{gid}", tokens[0]).json
    d = registry.game(game)
    bot = d.bots[d.basic_bot] if d.basic_bot in d.bots else next(iter(d.bots.values()))  # chooses from the view
    seen = {"listed": 0, "null": 0}
    for i in range(MOVES):
        if view["status"] != "active":
            break
        here, there = apps[order[i % 2]], apps[order[(i + 1) % 2]]
        seat = view["to_act"][0]
        if view["you"] != seat:
            view = call(there, "GET", f"/games/{gid}", tokens[seat]).json  # the seat's own view
        legal = listing(there, gid, tokens[seat])
        assert legal["version"] == view["version"]
        action = bot(view["state"], legal["actions"] + legal["templates"], rng)  # as the load kit's clients
        key = f"move-{i}"
        played = call(here, "POST", f"/games/{gid}/actions", tokens[seat], action,
                      {"Idempotency-Key": key, "If-Match": f'"{view["version"]}"'})
        assert played.status_code == 200, played.data
        answer = orjson.loads(played.data)
        assert set(answer) == {"action", "seat", "events", "game", "next"}
        view = answer["game"]
        fresh = listing(there, gid, tokens[seat])  # nobody moved since: the same version
        assert fresh["version"] == view["version"] == answer["game"]["version"]
        if seat in view["may_act"]:
            assert answer["next"] == fresh, (game, i)
            seen["listed"] += 1
        else:
            assert answer["next"] is None, (game, i, answer["next"])
            assert fresh["actions"] == [] or view["status"] != "active", (game, i, fresh)
            seen["null"] += 1
        again = call(there, "POST", f"/games/{gid}/actions", tokens[seat], action, {"Idempotency-Key": key})
        assert again.status_code == 200 and again.headers.get("Idempotent-Replayed") == "true", again.data
        assert again.data == played.data, (game, i)  # the stored answer, byte for byte
        assert again.headers["ETag"] == played.headers["ETag"]
    assert seen["listed"] > 0 and seen["null"] > 0, seen  # both kinds of answer, in every game's first moves
    view = call(apps["hot"], "GET", f"/games/{gid}").json
    assert view["version"] == call(apps["flask"], "GET", f"/games/{gid}").json["version"]


def test_ludix_a_roll_answers_the_rollers_listing_and_a_hold_answers_null(settings: Any) -> None:
    """Ludix's roll leaves the roller to act (a listing, unless it rolled a one); its hold passes
    the turn (null: the roller lists nothing now, the other seat does)."""
    apps = clients("ludix", settings)
    gid, tokens = table(apps["flask"], "ludix")
    view = call(apps["flask"], "GET", f"/games/{gid}").json
    opened = call(apps["flask"], "POST", f"/games/{gid}/actions", tokens[view["to_act"][0]], {"type": "alea_jacta_est"})
    assert opened.status_code == 200, opened.data  # the opening: who starts is drawn
    view = opened.json["game"]
    for name in ("hot", "flask"):
        seat = view["to_act"][0]
        rolled = call(apps[name], "POST", f"/games/{gid}/actions", tokens[seat], {"type": "roll"})
        assert rolled.status_code == 200, rolled.data
        view = rolled.json["game"]
        if seat not in view["to_act"]:  # rolled a one: the turn passed, nothing for the roller
            assert rolled.json["next"] is None
            continue
        assert rolled.json["next"] == listing(apps["hot"], gid, tokens[seat]) and rolled.json["next"]["actions"]
        held = call(apps[name], "POST", f"/games/{gid}/actions", tokens[seat], {"type": "hold"})
        assert held.status_code == 200, held.data
        view = held.json["game"]
        assert held.json["next"] is None and seat not in view["may_act"]
        other = view["to_act"][0]
        assert listing(apps[name], gid, tokens[seat])["actions"] == []
        assert listing(apps[name], gid, tokens[other])["actions"]
