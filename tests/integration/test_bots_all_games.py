"""For every game: a table of bots only, created through the API, is played to its end by the
real Celery worker, and the result is recorded once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from api_client import Api
from conftest import wait_until
from ludoteca.adapters.worker import service_for
from ludoteca.service_layer import registry

pytestmark = pytest.mark.integration

@pytest.mark.parametrize("game", registry.names())
def test_bots_play_to_the_end_through_the_worker(game: str, worker_client_factory: Any, worker: Path) -> None:
    definition = registry.game(game)
    level = definition.playing_level()  # the level that makes a real game of it (its TestFacts)
    api = Api(worker_client_factory(game))
    seats = [f"bot:{level}"] * definition.engine.min_seats
    status, data, _ = api.call("POST", "/games", body={"seats": seats})
    assert status == 201, data
    gid = data["game"]["id"]
    progress: list[int] = []

    def done() -> bool:
        view = api.view(gid)
        progress.append(view["version"])
        return bool(view["status"] == "finished")

    assert wait_until(done, timeout=600, interval=0.5), (
        f"{game}: not finished, at version {progress[-1]}\n" + worker.read_text()[-2000:])
    final = api.view(gid)
    assert final["result"]["winners"]
    service = service_for(game)
    assert wait_until(lambda: service.store.is_recorded(gid), timeout=60)
    assert service.record_result(gid) is False
    status, replay, _ = api.call("GET", f"/games/{gid}/replay")
    assert status == 200 and replay["actions"]
