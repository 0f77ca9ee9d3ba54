"""The documents' examples work in order, as a person trying Swagger UI's "Try it out" meets them
(issue 25, item 4): ``POST /games``'s example is a game against the game's basic bot, which starts
at once (a table of humans would wait for a second player, and the move example would get 409
"not started"), and the move example is a move its creator may play at the start of such a game
(Ludor's first move depends on who holds the 3 de Oros: it is checked to be a move of the right
kind, not to be legal in every deal)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from api_client import Api
from ludoteca.service_layer import registry

ROOT = Path(__file__).resolve().parents[2]


def example(doc: dict[str, Any], path: str, method: str) -> Any:
    return doc["paths"][path][method]["requestBody"]["content"]["application/json"]["example"]


@pytest.mark.parametrize("game", registry.names())
def test_the_create_example_starts_a_game_and_the_move_example_plays_in_it(game: str, app_factory: Any) -> None:
    doc = json.loads((ROOT / "openapi" / f"{game}.json").read_text())
    create = example(doc, "/games", "post")
    assert create["seats"][0] == "human" and all(s.startswith("bot:") for s in create["seats"][1:])
    app = app_factory(game)
    api = Api(app.test_client())
    status, body, _ = api.call("POST", "/games", body=create)
    assert status == 201 and body["game"]["status"] == "active", body
    gid, service = body["game"]["id"], app.extensions["ludoteca"]["service"]
    for _ in range(100):  # a bot drawn to start plays first (no worker here: as the worker would)
        view = api.call("GET", f"/games/{gid}", body["token"])[1]
        if view["status"] != "active" or 0 in view["to_act"]:
            break
        service.bot_turn(gid, view["version"])
    assert view["status"] == "active" and 0 in view["to_act"], view
    move = example(doc, "/games/{game_id}/actions", "post")
    status, listed, _ = api.call("GET", f"/games/{body['game']['id']}/actions", body["token"])
    assert status == 200
    kinds = {a["type"] for a in listed["actions"]}
    if game == "ludor":
        assert move["type"] in {"play", "pass"}, move
        return
    assert move["type"] in kinds, (move, listed["actions"][:5])
    status, played, _ = api.call("POST", f"/games/{body['game']['id']}/actions", body["token"], move)
    assert status == 200, played
