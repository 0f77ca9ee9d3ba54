"""The turn timer's options on every game's ``POST /games`` (real Redis, the public bounds):
``turn_seconds`` 5 to 86400 or absent, ``timeout_bot`` one of the game's levels (default its basic
level), only with ``turn_seconds``; anything else is a 422 that creates nothing. The timer itself
runs in tests/shared/test_timers.py and, with the worker and the sweeper, in
tests/integration/test_turn_timers.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from api_client import Api
from ludoteca.service_layer import registry


@pytest.mark.parametrize("game", registry.names())
@pytest.mark.parametrize("options", [
    {"turn_seconds": 4}, {"turn_seconds": 86401}, {"turn_seconds": 0}, {"turn_seconds": -5},
    {"turn_seconds": "30"}, {"turn_seconds": 30.5}, {"turn_seconds": True},
    {"turn_seconds": 30, "timeout_bot": "grandmaster"}, {"timeout_bot": "random"},
    {"turn_seconds": 30, "timeout_bot": 3},
])
def test_bad_timer_options_are_422(client_factory: Callable[[str], Any], game: str, options: dict[str, Any]) -> None:
    api = Api(client_factory(game))
    _, before, _ = api.call("GET", "/games?page_size=1")
    status, data, _ = api.call("POST", "/games", body={"seats": ["human"] * registry.game(game).engine.min_seats,
                                                       "options": options})
    assert status == 422, data
    assert "options" in data["errors"], data
    _, after, _ = api.call("GET", "/games?page_size=1")
    assert after["total"] == before["total"]


@pytest.mark.parametrize("game", registry.names())
def test_timer_options_and_their_defaults(client_factory: Callable[[str], Any], game: str) -> None:
    d = registry.game(game)
    api = Api(client_factory(game))
    seats = ["human"] * d.engine.min_seats
    gid, _ = api.create(seats)
    assert api.view(gid)["timer"] is None
    for seconds, bot, shown in [(5, None, d.basic_bot), (86400, "random", "random")]:
        options = {"turn_seconds": seconds} if bot is None else {"turn_seconds": seconds, "timeout_bot": bot}
        gid, _ = api.create(seats, options)
        view = api.view(gid)
        assert view["timer"] == {"turn_seconds": seconds, "bot": shown, "seats": [], "deadline": None,
                                 "seconds_left": None}  # waiting for players: no clock yet
        _, page, _ = api.call("GET", f"/games/{gid}/events?after=0")
        assert page["events"][0]["data"]["options"]["turn_seconds"] == seconds
    gid, _ = api.create(seats, {"turn_seconds": None})
    assert api.view(gid)["timer"] is None
