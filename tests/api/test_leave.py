"""Leaving a game (issue 23, item 7): ``POST /games/{id}/leave`` with the seat's token or the
player's; a bot takes the seat at once (the table's timeout bot, or the level named), its turn
played through the real worker; a public ``SeatLeft`` event says so; 409 for a finished game or
a seat left already; the player's games show the game as left and its stream says so."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from conftest import Dispatches, wait_until
from flask.testing import FlaskClient
from ludoteca.config import Settings
from ludoteca.service_layer import registry
from players.routes import create_app

PROBLEM = "application/problem+json"


@pytest.fixture(scope="module")
def players_client(settings: Settings) -> FlaskClient:
    """The players service over the session's Redis (guest players)."""
    app = create_app(settings)
    app.config["TESTING"] = True
    return app.test_client()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def table(game: FlaskClient, creator: dict[str, str] | None = None, seats: int = 2,
          **options: Any) -> tuple[str, str, str]:
    """A table of ``seats`` humans: its id and the first two seat tokens."""
    made = game.post("/games", json={"seats": ["human"] * seats, "options": options}, headers=creator or {})
    assert made.status_code == 201, made.get_json()
    game_id = made.get_json()["game"]["id"]
    tokens = [made.get_json()["token"]]
    for _ in range(seats - 1):
        joined = game.post(f"/games/{game_id}/players", json={})
        assert joined.status_code == 201
        tokens.append(joined.get_json()["token"])
    return game_id, tokens[0], tokens[1]


def public_events(game: FlaskClient, game_id: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = game.get(f"/games/{game_id}/events").get_json()["events"]
    return found


@pytest.mark.parametrize("name", registry.names())
def test_a_bot_takes_the_seat_at_once(name: str, app_factory: Callable[[str], Any]) -> None:
    app = app_factory(name)
    game = app.test_client()
    definition = registry.game(name)
    game_id, _, second = table(game, seats=definition.engine.min_seats)
    level = list(definition.bots)[-1]
    dispatcher: Dispatches = app.extensions["ludoteca"]["service"].dispatcher
    dispatched = len(dispatcher.bot_turns)
    left = game.post(f"/games/{game_id}/leave", json={"bot": level}, headers=bearer(second))
    assert left.status_code == 200, left.get_json()
    body = left.get_json()
    assert body["seat"] == 1 and body["bot"] == level and body["game"]["you"] is None
    assert body["game"]["seats"][1]["kind"] == "bot" and body["game"]["seats"][1]["level"] == level
    assert left.headers["ETag"] == f'"{body["game"]["version"]}"'
    assert public_events(game, game_id)[-1] | {"seq": 0} == {
        "seq": 0, "version": body["game"]["version"], "type": "SeatLeft", "data": {"seat": 1, "bot": level}}
    if 1 in body["game"]["to_act"]:  # the bot's turn is dispatched as the leave commits
        assert dispatcher.bot_turns[dispatched:] == [(name, game_id, body["game"]["version"])]
    # the seat's token acts for it no more; leaving again is a conflict
    again = game.post(f"/games/{game_id}/leave", json={}, headers=bearer(second))
    assert again.status_code == 409 and again.content_type == PROBLEM
    assert again.get_json()["seat"] == 1 and again.get_json()["bot"] == level
    moved = game.post(f"/games/{game_id}/actions", json={"type": "x"}, headers=bearer(second))
    assert moved.status_code == 409 and moved.content_type == PROBLEM
    # it reads as a spectator's now
    seen = game.get(f"/games/{game_id}", headers=bearer(second))
    assert seen.status_code == 200 and seen.get_json()["you"] is None


def test_the_default_bot_and_the_refusals(client_factory: Callable[[str], FlaskClient]) -> None:
    pig = client_factory("pig")
    game_id, first, second = table(pig, turn_seconds=30, timeout_bot="random")
    assert pig.post(f"/games/{game_id}/leave").status_code == 401
    bad = pig.post(f"/games/{game_id}/leave", json={"bot": "nobody"}, headers=bearer(first))
    assert bad.status_code == 422 and bad.content_type == PROBLEM and "bot" in bad.get_json()["errors"]
    for body in ({"bot": 3}, {"other": 1}, [1]):
        wrong = pig.post(f"/games/{game_id}/leave", json=body, headers=bearer(first))
        assert wrong.status_code in (400, 422) and wrong.content_type == PROBLEM
    assert pig.post(f"/games/{game_id[::-1]}/leave", headers=bearer(first)).status_code in (401, 404)
    left = pig.post(f"/games/{game_id}/leave", headers=bearer(first))
    assert left.status_code == 200 and left.get_json()["bot"] == "random"  # the table's timeout bot
    # the bot plays seat 0, the human seat 1, to the end: a finished game has no seat to leave
    service = pig.application.extensions["ludoteca"]["service"]
    for _ in range(2000):
        view = pig.get(f"/games/{game_id}").get_json()
        if view["status"] == "finished":
            break
        if view["to_act"] == [0]:
            service.bot_turn(game_id, view["version"])
        else:
            kind = "roll" if view["state"]["turn_total"] < 20 else "hold"
            pig.post(f"/games/{game_id}/actions", json={"type": kind}, headers=bearer(second))
    finished = pig.post(f"/games/{game_id}/leave", headers=bearer(second))
    assert finished.status_code == 409 and finished.get_json()["game_status"] == "finished"


def test_a_player_leaves_through_the_worker(worker_client_factory: Callable[[str], FlaskClient],
                                            players_client: FlaskClient) -> None:
    pig = worker_client_factory("pig")
    made = players_client.post("/", json={"name": "Leaver"}).get_json()
    token = made["token"]
    game_id, _, other = table(pig, bearer(token))
    view = pig.get(f"/games/{game_id}", headers=bearer(token)).get_json()
    if view["to_act"] != [0]:  # the other seat starts: it rolls once and holds, so the turn comes to the leaver
        pig.post(f"/games/{game_id}/actions", json={"type": "roll"}, headers=bearer(other))
        if pig.get(f"/games/{game_id}").get_json()["to_act"] == [1]:
            pig.post(f"/games/{game_id}/actions", json={"type": "hold"}, headers=bearer(other))
    at = pig.get(f"/games/{game_id}").get_json()
    assert at["to_act"] == [0]
    left = pig.post(f"/games/{game_id}/leave", json={"bot": "hold20"}, headers=bearer(token))
    assert left.status_code == 200
    version = left.get_json()["game"]["version"]
    # the worker's bot plays the seat (its turn dispatched by the leave) until the turn passes or the game ends
    assert wait_until(lambda: pig.get(f"/games/{game_id}").get_json()["to_act"] != [0], timeout=60)
    events = public_events(pig, game_id)
    assert any(e["type"] == "SeatLeft" for e in events)
    assert any(e["version"] > version and e["type"] != "SeatLeft" for e in events)
    # the player's token no longer acts for the seat; the player's games say the game was left
    refused = pig.post(f"/games/{game_id}/actions", json={"type": "roll"}, headers=bearer(token))
    assert refused.status_code == 409 and refused.content_type == PROBLEM
    mine = players_client.get("/me/games", headers=bearer(token)).get_json()["games"]
    assert [(g["id"], g["left"], g["your_turn"]) for g in mine] == [(game_id, True, False)]
    told = players_client.get("/me/events", headers=bearer(token)).get_json()["events"]
    assert [{k: v for k, v in e.items() if k != "seq"} for e in told if e["type"] == "seat_left"] == [
        {"type": "seat_left", "game": "pig", "id": game_id, "seat": 0, "version": version, "bot": "hold20",
         "url": f"http://localhost/pig/games/{game_id}"}]
    assert not any(e["type"] == "your_turn" and e["version"] > version for e in told)  # the bot's turns, not yours


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_a_join_or_leave_body_not_sent_as_json_is_refused(content_type: str | None,
                                                          app_factory: Callable[[str], Any]) -> None:
    """A body that does not say it is JSON is refused (422) and changes nothing. Before, it was
    read as no body: a join sent as curl's default form type claimed the first open seat under its
    default name, and a leave naming an unknown bot gave the seat to the table's timeout bot."""
    game = app_factory("ludor").test_client()
    made = game.post("/games", json={"seats": ["human", "human", "human"]})
    assert made.status_code == 201
    game_id, token = made.get_json()["game"]["id"], made.get_json()["token"]
    headers = {} if content_type is None else {"Content-Type": content_type}
    before = game.get(f"/games/{game_id}").get_json()
    joined = game.post(f"/games/{game_id}/players", data='{"seat": 2, "name": "Bob"}', headers=headers)
    left = game.post(f"/games/{game_id}/leave", data='{"bot": "nope"}', headers={**headers, **bearer(token)})
    for refused in (joined, left):
        assert refused.status_code == 422 and refused.headers["Content-Type"] == PROBLEM, refused.get_json()
        assert "application/json" in refused.get_json()["detail"]
    assert game.get(f"/games/{game_id}").get_json() == before
    assert game.post(f"/games/{game_id}/players", json={"seat": 2, "name": "Bob"}).get_json()["seat"] == 2
