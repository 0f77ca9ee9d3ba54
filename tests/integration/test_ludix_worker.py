"""A real Celery worker plays Ludix bot seats through the real Redis, to the end of a game."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from api_client import Api
from conftest import wait_until
from ludoteca.adapters.worker import service_for

pytestmark = pytest.mark.integration


def finished(api: Api, gid: str) -> bool:
    return api.view(gid)["status"] == "finished"


def test_bots_play_a_whole_game_and_the_result_is_recorded_once(
        worker_client_factory: Any, worker: Path, redis_url: str) -> None:
    api = Api(worker_client_factory("ludix"))
    _, stats_before, _ = api.call("GET", "/stats")
    status, data, _ = api.call("POST", "/games", body={"seats": ["bot:steady", "bot:random", "bot:expert"]})
    assert status == 201 and data["token"] is None
    gid = data["game"]["id"]
    assert wait_until(lambda: finished(api, gid), timeout=240), worker.read_text()[-3000:]
    view = api.view(gid)
    assert max(view["state"]["totals"]) >= 300
    assert len(set(view["state"]["turns"])) == 1  # the last round was completed
    service = service_for("ludix")
    assert wait_until(lambda: service.store.is_recorded(gid), timeout=60)
    assert api.call("GET", "/stats")[1]["games"] >= stats_before["games"] + 1
    # recording again (a redelivered task) changes nothing
    games = api.call("GET", "/stats")[1]["games"]
    assert service.record_result(gid) is False
    assert api.call("GET", "/stats")[1]["games"] == games
    _, replay, _ = api.call("GET", f"/games/{gid}/replay")
    assert {entry["seat"] for entry in replay["actions"]} == {0, 1, 2}


def test_a_human_plays_against_the_expert(worker_client_factory: Any, worker: Path) -> None:
    api = Api(worker_client_factory("ludix"))
    gid, token = api.create(["human", "bot:expert"], name="ana")
    assert token is not None
    assert api.play(gid, token, {"type": "alea_jacta_est"})[0] == 200
    for _ in range(3000):
        assert wait_until(lambda: (v := api.view(gid))["status"] == "finished" or v["to_act"] == [0], timeout=60)
        view = api.view(gid, token)
        if view["status"] == "finished":
            break
        state = view["state"]
        action = {"type": "hold"} if state["throw"] and state["turn_total"] >= 40 else {"type": "roll"}
        status, data, _ = api.play(gid, token, action, If_Match=f'"{view["version"]}"')
        assert status == 200, data
    final = api.view(gid)
    assert final["status"] == "finished" and final["result"]["winners"]
    _, replay, _ = api.call("GET", f"/games/{gid}/replay")
    assert any(entry["seat"] == 1 for entry in replay["actions"])


class _Recorder:
    def __init__(self) -> None:
        self.sent: list[tuple[str, ...]] = []

    def bot_turn(self, game: str, game_id: str, version: int) -> None:
        self.sent.append(("bot_turn", game_id, str(version)))

    def record_result(self, game: str, game_id: str) -> None:
        self.sent.append(("record_result", game_id))


def test_a_redelivered_bot_turn_is_applied_once(redis_client: Any, settings: Any) -> None:
    """What a killed worker's redelivered task (late ack) does: the second run finds the game
    moved on and does nothing."""
    from ludoteca.adapters.store import GameStore
    from ludoteca.service_layer import registry
    from ludoteca.service_layer.service import GameService

    recorder = _Recorder()
    store = GameStore(redis_client, "ludix", 60, 60)
    service = GameService(registry.game("ludix"), store, recorder)
    envelope, _, _ = service.create(["bot:random", "bot:random"], {"target": 300}, None, None)
    gid, version = envelope["id"], envelope["version"]
    assert recorder.sent == [("bot_turn", gid, str(version))]
    assert service.bot_turn(gid, version) == "played"
    assert service.bot_turn(gid, version) == "stale"  # the same task, delivered again
    assert len(store.action_log(gid)) == 1
    assert recorder.sent[-1] == ("bot_turn", gid, str(version + 1))
