"""For every game: a table of `random` bots only, created through the API without a token, is
played to its end by the real Celery worker within the bound its engine declares (issue 8: such
a Ludic table once ran 86 rounds without an end, slowing down as its document grew).

Prints per game: the actions played, the declared bound, the bound that ended it (if any), the
rounds and the time taken.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from api_client import Api
from conftest import wait_until
from ludoteca.service_layer import registry

pytestmark = [pytest.mark.integration, pytest.mark.slow]


@pytest.mark.timeout(1500)
@pytest.mark.parametrize("game", registry.names())
def test_an_all_random_bot_table_ends_within_the_declared_bound(game: str, worker_client_factory: Any,
                                                                worker: Path) -> None:
    definition = registry.game(game)
    level = "random" if "random" in definition.bots else sorted(definition.bots)[0]
    n = definition.engine.min_seats
    api = Api(worker_client_factory(game))
    status, data, _ = api.call("POST", "/games", body={"seats": [f"bot:{level}"] * n})
    assert status == 201 and data["token"] is None, data
    gid = data["game"]["id"]
    bound = definition.engine.max_actions(definition.options_schema().load({}), n)
    start = time.monotonic()
    seen: list[int] = [0]

    def done() -> bool:
        view = api.view(gid)
        seen.append(view["version"])
        return bool(view["status"] == "finished")

    assert wait_until(done, timeout=1400, interval=1.0), (
        f"{game}: not finished after {time.monotonic() - start:.0f} s, at version {seen[-1]}\n"
        + worker.read_text()[-2000:])
    seconds = time.monotonic() - start
    status, replay, _ = api.call("GET", f"/games/{gid}/replay")
    assert status == 200
    actions = len(replay["actions"])
    summary = replay["result"]["summary"]
    assert 0 < actions <= bound and replay["result"]["winners"]
    assert "bound" in summary
    print(f"\n{game}: all-{level} table of {n}: {actions} actions (declared bound {bound}), ended by "
          f"{(summary['bound'] or {}).get('reached', 'its rules')}, rounds {summary.get('rounds', '-')}, "
          f"{seconds:.0f} s ({actions / seconds:.0f} actions/s)")
