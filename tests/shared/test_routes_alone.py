"""The routes (:class:`~ludoteca.adapters.hosting.routes.GameRoutes`) imported and run alone, over
a service on the in-memory repository: no Flask app, no Redis. And the fast path
(:class:`~ludoteca.adapters.hosting.hotroutes.HotRoutes`) answers with those same methods: a
subclass that changes one route changes the fast path's answer too."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
import redis
from conftest import Dispatches as AppDispatches
from flask import Response
from ludoteca.adapters.hosting import create_app
from ludoteca.adapters.hosting.accesslog import RequestLog
from ludoteca.adapters.hosting.hotroutes import HotRoutes
from ludoteca.adapters.hosting.routes import GameRoutes
from ludoteca.config import Settings
from ludoteca.core.errors import AuthenticationError, ConflictError, NotFoundError
from ludoteca.service_layer import registry
from ludoteca.service_layer.repository import MemoryStore
from ludoteca.service_layer.service import GameService


class Dispatches:
    def bot_turn(self, game: str, game_id: str, version: int) -> None:
        pass

    def record_result(self, game: str, game_id: str) -> None:
        pass


def body(response: Response) -> Any:
    return json.loads(response.get_data())


@pytest.fixture()
def routes() -> GameRoutes:
    return GameRoutes(GameService(registry.game("ludix"), MemoryStore("ludix"), Dispatches()))


def started(routes: GameRoutes) -> tuple[str, str, str]:
    created = routes.create_game({"seats": ["human", "human"], "options": {}, "name": "ana"},
                                 lambda game_id: f"/games/{game_id}")
    assert created.status_code == 201 and created.headers["ETag"] == '"1"'
    game = body(created)
    assert created.headers["Location"] == f"/games/{game['game']['id']}"
    joined = routes.join_game(game["game"]["id"], {"name": "bo"})
    assert joined.status_code == 201 and joined.headers["ETag"] == '"2"'
    return game["game"]["id"], game["token"], body(joined)["token"]


def test_each_route_answers_alone(routes: GameRoutes) -> None:
    gid, t0, _ = started(routes)
    stored, seat = routes.caller(gid, t0)
    assert seat == 0 and stored.version == 2
    assert routes.get_game(stored, seat, '"2"').status_code == 304
    view = routes.get_game(stored, None, None)
    assert view.status_code == 200 and body(view)["you"] is None and view.headers["ETag"] == '"2"'
    assert body(routes.list_actions(stored, seat))["actions"] == [{"type": "alea_jacta_est"}]
    assert body(routes.list_games(1, 20))["total"] == 0
    with pytest.raises(AuthenticationError):
        routes.mover(gid, None)
    with pytest.raises(NotFoundError):
        routes.caller("not-hex", t0)
    stored, seat = routes.mover(gid, t0)
    played = routes.play_action(gid, stored, seat, {"type": "alea_jacta_est"}, 2, "k", None)
    assert played.status_code == 200 and played.headers["ETag"] == '"3"' and "Idempotent-Replayed" not in played.headers
    again = routes.play_action(gid, stored, seat, {"type": "alea_jacta_est"}, 2, "k", None)
    assert again.headers["Idempotent-Replayed"] == "true" and body(again) == body(played)
    assert [e["type"] for e in body(routes.get_events(gid, 0, 0, 0))["events"]][:2] == ["GameCreated", "SeatClaimed"]
    with pytest.raises(ConflictError):
        routes.get_replay(gid)
    assert body(routes.get_stats()) == {"games": 0, "shared_wins": 0, "seat_wins": {}}
    assert body(routes.get_leaderboard(5)) == {"players": [], "rated": []}


class Marked(GameRoutes):
    """One route changed: its answers carry a header saying so."""

    def get_game(self, stored: Any, seat: int | None, if_none_match: str | None) -> Response:
        answer = super().get_game(stored, seat, if_none_match)
        answer.headers["X-Marked"] = "get_game"
        return answer

    def play_action(self, *args: Any) -> Response:
        answer = super().play_action(*args)
        answer.headers["X-Marked"] = "play_action"
        return answer


def call(app: HotRoutes, method: str, path: str, token: str, payload: bytes = b"") -> tuple[str, dict[str, str], bytes]:
    environ = {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": "", "HTTP_AUTHORIZATION": f"Bearer {token}",
               "CONTENT_LENGTH": str(len(payload)), "wsgi.input": io.BytesIO(payload), "REMOTE_ADDR": "127.0.0.1"}
    seen: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]]) -> None:
        seen.update(status=status, headers=dict(headers))

    out = b"".join(app(environ, start_response))
    return seen["status"], seen["headers"], out


def test_the_fast_path_answers_with_the_same_route_methods() -> None:
    routes = Marked(GameService(registry.game("ludix"), MemoryStore("ludix"), Dispatches()))

    def flask_app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        raise AssertionError(f"the fast path handed {environ['REQUEST_METHOD']} {environ['PATH_INFO']} on")

    hot = HotRoutes(flask_app, routes, ("/games/<game_id>", "/games/<game_id>/actions"), RequestLog("ludix", ["roll"]),
                    None, 65536, 0, 0)
    gid, t0, _ = started(routes)
    status, headers, out = call(hot, "GET", f"/games/{gid}", t0)
    assert status == "200 OK" and headers["X-Marked"] == "get_game" and json.loads(out)["you"] == 0
    status, headers, out = call(hot, "POST", f"/games/{gid}/actions", t0, b'{"type": "alea_jacta_est"}')
    assert status == "200 OK" and headers["X-Marked"] == "play_action" and headers["ETag"] == '"3"'
    assert json.loads(out)["game"]["version"] == 3


def test_an_app_serves_the_routes_it_is_given_on_both_paths(settings: Settings, redis_client: redis.Redis) -> None:
    app = create_app(registry.game("ludix"), settings, AppDispatches(), client=redis_client, routes=Marked)
    client = app.test_client()
    created = client.post("/games", json={"seats": ["human", "bot:steady"]})
    assert created.status_code == 201
    gid, token = created.get_json()["game"]["id"], created.get_json()["token"]
    seat_view = client.get(f"/games/{gid}", headers={"Authorization": f"Bearer {token}"})  # the fast path
    spectator_view = client.get(f"/games/{gid}")  # no token: Flask's view
    assert seat_view.status_code == spectator_view.status_code == 200
    assert seat_view.headers["X-Marked"] == spectator_view.headers["X-Marked"] == "get_game"
    assert seat_view.get_json()["you"] == 0 and spectator_view.get_json()["you"] is None
