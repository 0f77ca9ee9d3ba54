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

import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from ludoteca import registry
from ludoteca.devstack import Supervisor, free_port, start_service
from playout import HttpTable, choose

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]
ROOT = Path(__file__).resolve().parents[2]
CLIENTS = 50
ROUNDS = {"ludix": 50, "ludic": 10, "speculation": 10, "ludor": 10}
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


def _next_move(table: HttpTable) -> tuple[int, int, str, Any] | None:
    """(version, seat, token, action) of a move the seat to act may play now; None at the end."""
    view = table.session.get(f"{table.base}/games/{table.gid}", timeout=15).json()
    if view["status"] == "finished":
        return None
    seat = view["to_act"][0]
    token = table.tokens[seat]
    auth = {"Authorization": f"Bearer {token}"}
    listed = table.session.get(f"{table.base}/games/{table.gid}/actions", headers=auth, timeout=15).json()
    mine = table.session.get(f"{table.base}/games/{table.gid}", headers=auth, timeout=15).json()
    assert listed["version"] == mine["version"] == view["version"]
    action = choose(table.game, mine["state"], listed, table.rnd, table.moves)
    table.moves += 1
    return view["version"], seat, token, action


def _burst(url: str, n: int, headers: dict[str, str], body: Any) -> list[requests.Response]:
    """``n`` clients (a keep-alive session each, connected beforehand) post at the same moment."""
    sessions = [requests.Session() for _ in range(n)]
    for s in sessions:  # open the connections first, so the barrier releases only the posts
        s.get(url.rsplit("/games/", 1)[0] + "/healthz", timeout=15)
    barrier = threading.Barrier(n)
    out: list[requests.Response | None] = [None] * n

    def post(i: int) -> None:
        barrier.wait()
        out[i] = sessions[i].post(url, json=body, headers=headers, timeout=30)

    threads = [threading.Thread(target=post, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert all(r is not None for r in out), "a racing client never got an answer"
    return [r for r in out if r is not None]


def _new_table(base: str, game: str, seed: str) -> HttpTable:
    return HttpTable.open(base, game, seed)


@pytest.mark.parametrize("game", registry.names())
def test_if_match_race_has_exactly_one_winner(game: str, services: dict[str, str]) -> None:
    base = services[game]
    table = _new_table(base, game, f"race-{game}")
    statuses: Counter[int] = Counter()
    rounds = 0
    while rounds < ROUNDS[game]:
        move = _next_move(table)
        if move is None:  # the game ended: another table
            table = _new_table(base, game, f"race-{game}-{rounds}")
            continue
        version, _seat, token, action = move
        answers = _burst(f"{base}/games/{table.gid}/actions", CLIENTS,
                         {"Authorization": f"Bearer {token}", "If-Match": f'"{version}"'}, action)
        codes = Counter(r.status_code for r in answers)
        statuses.update(codes)
        assert codes[200] == 1, (game, version, action, dict(codes))
        assert all(r.status_code in (200, 409, 412) for r in answers), dict(codes)
        assert all(r.headers["Content-Type"] == "application/problem+json" for r in answers if r.status_code >= 400)
        after = table.session.get(f"{base}/games/{table.gid}", timeout=15).json()["version"]
        assert after == version + 1, f"{game}: {CLIENTS} racing clients moved the game {after - version} versions"
        rounds += 1
    print(f"\n{game}: If-Match race, {rounds} rounds x {CLIENTS} clients: statuses {dict(sorted(statuses.items()))}, "
          f"exactly one winner every round, 0 5xx")


@pytest.mark.parametrize("game", registry.names())
def test_idempotency_key_race_applies_once(game: str, services: dict[str, str]) -> None:
    base = services[game]
    table = _new_table(base, game, f"idem-{game}")
    replayed = applied = 0
    for r_i in range(IDEM_ROUNDS):
        move = _next_move(table)
        if move is None:
            table = _new_table(base, game, f"idem-{game}-{r_i}")
            move = _next_move(table)
            assert move is not None
        version, _seat, token, action = move
        answers = _burst(f"{base}/games/{table.gid}/actions", COPIES,
                         {"Authorization": f"Bearer {token}", "Idempotency-Key": f"k-{game}-{r_i}"}, action)
        assert [r.status_code for r in answers] == [200] * COPIES, [(r.status_code, r.text[:200]) for r in answers]
        bodies = {r.text for r in answers}
        assert len(bodies) == 1, f"{game}: copies of one key got different answers"
        replayed += sum(r.headers.get("Idempotent-Replayed") == "true" for r in answers)
        applied += sum(r.headers.get("Idempotent-Replayed") != "true" for r in answers)
        after = table.session.get(f"{base}/games/{table.gid}", timeout=15).json()["version"]
        assert after == version + 1, f"{game}: {COPIES} copies of one key moved the game {after - version} versions"
    assert applied == IDEM_ROUNDS and replayed == IDEM_ROUNDS * (COPIES - 1)
    print(f"\n{game}: Idempotency-Key race, {IDEM_ROUNDS} rounds x {COPIES} copies: {applied} applied, "
          f"{replayed} replayed, one version each")
