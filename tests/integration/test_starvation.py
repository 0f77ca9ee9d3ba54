"""No starvation: hundreds of idle long-polls cost no request thread that a move needs.

The real stack (two game services under gunicorn as deploy/gunicorn.conf.py runs them, the front
door (Caddy) before them, the suite's real Redis). 200 anonymous spectators long-poll idle tables
of both games (``wait=30``), 3/4 through the front door and 1/4 straight to a service. While they
are all open, a victim plays a Ludix table (two human seats) through the front door, and the
front door's and the services' ``/healthz`` are called between the moves: every answer must come
within a generous liveness bound (a check that nothing hangs, not a benchmark). Then a player
joins half of the idle tables (their long-polls return at once with the event), the other half
time out: all 200 answer 200. The move p50/max with and without the long-polls are printed (``-s``).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import requests
from conftest import served_games
from longpolls import LongPollCrowd
from ludoteca.entrypoints.devstack import BEHIND_DOOR
from ludoteca.service_layer import registry

pytestmark = [pytest.mark.integration, pytest.mark.timeout(400)]
GAMES = ("ludix", "speculation")
LONG_POLLS = 200
TABLES_PER_GAME = 10
MOVES = 60
LIVENESS = 5.0  # seconds: only a request stuck behind the long-polls takes this long


@dataclass
class Stack:
    front_door: str
    services: dict[str, str]


@pytest.fixture(scope="module")
def stack(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    # every request here comes from one address: no rate limit, and that address may hold the
    # 200 long-polls (LUDOTECA_MAX_HOLDS_PER_ADDRESS and _CONNECTIONS_: tests/integration/test_hostile_load.py
    # tries the caps); the front door's connections count for the clients it names (BEHIND_DOOR)
    env = {"LUDOTECA_RATE_LIMIT": "0", "LUDOTECA_MAX_HOLDS_PER_ADDRESS": "1000",
           "LUDOTECA_MAX_CONNECTIONS_PER_ADDRESS": "1000", **BEHIND_DOOR}
    with served_games(GAMES, redis_url, tmp_path_factory.mktemp("starvation"), env) as (front_door, services):
        yield Stack(front_door, services)


def timed(s: requests.Session, method: str, url: str, **kwargs: object) -> tuple[requests.Response, float]:
    t0 = time.perf_counter()
    r = s.request(method, url, timeout=20, **kwargs)  # type: ignore[arg-type]
    return r, time.perf_counter() - t0


class Victim:
    """Plays one Ludix table with both seats through the front door, timing every move."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.s = requests.Session()
        self.new_table()

    def new_table(self) -> None:
        base = self.base
        r = self.s.post(f"{base}/games", json={"seats": ["human", "human"], "options": {"target": 1000}},
                        timeout=60)
        assert r.status_code == 201, r.text
        self.gid, t0 = r.json()["game"]["id"], r.json()["token"]
        r = self.s.post(f"{base}/games/{self.gid}/players", json={}, timeout=60)
        assert r.status_code == 201, r.text
        self.tokens = [t0, r.json()["token"]]
        r = self.s.post(f"{base}/games/{self.gid}/actions", json={"type": "alea_jacta_est"},
                        headers=self.auth(0), timeout=60)
        assert r.status_code == 200, r.text
        self.state = r.json()["game"]

    def auth(self, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}

    def move(self) -> float:
        if self.state["status"] == "finished":  # 30-odd rounds of roll-then-hold reach 1000
            self.new_table()
        assert self.state["to_act"], self.state
        seat = self.state["to_act"][0]
        action = {"type": "hold"} if self.state["state"]["throw"] else {"type": "roll"}
        r, took = timed(self.s, "POST", f"{self.base}/games/{self.gid}/actions", json=action, headers=self.auth(seat))
        assert r.status_code == 200, r.text
        self.state = r.json()["game"]
        return took


def play(victim: Victim, stack: Stack, moves: int) -> tuple[list[float], list[float]]:
    """``moves`` moves; the health of the front door and of every service after every fifth."""
    s = requests.Session()
    move_times, health_times = [], []
    for i in range(moves):
        move_times.append(victim.move())
        if i % 5 == 4:
            for url in [stack.front_door, *stack.services.values()]:
                r, took = timed(s, "GET", f"{url}/healthz")
                assert r.status_code == 200, (url, r.status_code, r.text)
                health_times.append(took)
    return move_times, health_times


def idle_tables(stack: Stack) -> list[tuple[str, str, int]]:
    """Tables waiting for players: (game, id, last_seq)."""
    s = requests.Session()
    out = []
    for game, base in stack.services.items():
        seats = ["human"] * registry.game(game).engine.min_seats
        for _ in range(TABLES_PER_GAME):
            r = s.post(f"{base}/games", json={"seats": seats}, timeout=60)
            assert r.status_code == 201, r.text
            gid = r.json()["game"]["id"]
            last = s.get(f"{base}/games/{gid}/events", timeout=60).json()["last_seq"]
            out.append((game, gid, last))
    return out


def ms(xs: list[float]) -> str:
    return f"p50 {statistics.median(xs) * 1000:.1f} ms, max {max(xs) * 1000:.1f} ms"


def test_moves_and_health_answer_while_200_long_polls_are_open(stack: Stack) -> None:
    victim = Victim(f"{stack.front_door}/ludix")
    quiet_moves, quiet_health = play(victim, stack, MOVES)

    tables = idle_tables(stack)
    urls = []
    for i in range(LONG_POLLS):
        game, gid, last = tables[i % len(tables)]
        base = stack.services[game] if i % 4 == 3 else f"{stack.front_door}/{game}"
        urls.append((f"{base}/games/{gid}/events", last))
    crowd = LongPollCrowd(urls, wait=30)
    opened_at = time.monotonic()
    crowd.start()
    try:
        deadline = time.monotonic() + 15
        while crowd.open_count() < LONG_POLLS and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)  # every long-poll reaches its service and blocks on Redis
        assert crowd.open_count() == LONG_POLLS, f"only {crowd.open_count()} long-polls are open"
        loaded_moves, loaded_health = play(victim, stack, MOVES)
        still_open = crowd.open_count()
        elapsed = time.monotonic() - opened_at
    finally:
        # wake half the tables: a player joins, their spectators get the event at once
        s = requests.Session()
        for game, gid, _ in tables[::2]:
            s.post(f"{stack.services[game]}/games/{gid}/players", json={}, timeout=60)
        report = crowd.stop(timeout=90)

    print(f"\nvictim's Ludix moves through the front door, {MOVES} each: quiet {ms(quiet_moves)}; "
          f"with {LONG_POLLS} long-polls open {ms(loaded_moves)}")
    print(f"/healthz of the front door and the services: quiet {ms(quiet_health)}; "
          f"with the long-polls {ms(loaded_health)}")
    woken = sum(1 for d in report.durations if d < 25)
    print(f"long-polls: {still_open} of {LONG_POLLS} still open after the loaded moves ({elapsed:.1f} s after "
          f"opening); answers {report.statuses}: {woken} woken by a join, {len(report.durations) - woken} "
          f"after their 30 s")
    assert max(loaded_moves) < LIVENESS, ms(loaded_moves)
    assert max(loaded_health) < LIVENESS, ms(loaded_health)
    if elapsed < 20:  # the moves ran while every long-poll was still waiting (wait=30)
        assert still_open == LONG_POLLS
        assert woken == LONG_POLLS // 2  # the spectators of the joined tables got the event
    assert report.errors == []
    assert report.statuses == {200: LONG_POLLS}
