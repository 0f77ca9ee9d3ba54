"""Races over real HTTP (every game's service under gunicorn, real Redis): many clients sending the
same move at one version, and many copies of one ``Idempotency-Key`` at once.

- ``If-Match`` race: 50 clients post the seat's move with ``If-Match`` of the current version,
  released together by a barrier: exactly one 200 a round, every other answer 412 (or 409 when
  the winner's move already changed who acts), never a 5xx, and the game advances by one version.
- ``Idempotency-Key`` race: 20 concurrent copies of one request with one key: all answer 200 with
  the same body, the game advances by exactly one version, one entry in the action log.

Prints the rounds, the status histogram and the winners per round. Run alone with
``.venv/bin/python -m pytest -s -p no:cacheprovider tests/integration/test_races.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from ludoteca.entrypoints.devstack import Supervisor, free_port, start_service
from ludoteca.service_layer import registry
from playout import idempotency_races, if_match_races

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]
ROOT = Path(__file__).resolve().parents[2]
CLIENTS = 50
COPIES = 20
IDEM_ROUNDS = 5


@pytest.fixture(scope="module")
def services(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    sup = Supervisor()
    logs = tmp_path_factory.mktemp("races")
    try:
        bases = {}
        for game in registry.names():
            port = free_port()
            start_service(sup, game, port, redis_url, ROOT, logs / f"{game}.log", env={"LUDOTECA_RATE_LIMIT": "0"})
            bases[game] = f"http://127.0.0.1:{port}"
        yield bases
    finally:
        sup.stop()


@pytest.mark.parametrize("game", registry.names())
def test_if_match_race_has_exactly_one_winner(game: str, services: dict[str, str]) -> None:
    statuses = if_match_races(services[game], game, f"race-{game}", registry.game(game).tests.race_rounds, CLIENTS)
    print(f"\n{game}: If-Match race, {registry.game(game).tests.race_rounds} rounds x {CLIENTS} clients: statuses "
          f"{dict(sorted(statuses.items()))}, exactly one winner every round, 0 5xx")


@pytest.mark.parametrize("game", registry.names())
def test_idempotency_key_race_applies_once(game: str, services: dict[str, str]) -> None:
    applied, replayed = idempotency_races(services[game], game, f"idem-{game}", IDEM_ROUNDS, COPIES)
    assert applied == IDEM_ROUNDS and replayed == IDEM_ROUNDS * (COPIES - 1)
    print(f"\n{game}: Idempotency-Key race, {IDEM_ROUNDS} rounds x {COPIES} copies: {applied} applied, "
          f"{replayed} replayed, one version each")
