"""Liveness under faults: a bot turn or a result that falls due is never lost.

Tables of bots only, of every game, are played by real Celery worker processes over a Redis of
this module's own (sessions in database 0, the broker in database 1), with a real sweeper
process (grace 1.5 s), while the worker is hurt: (a) its child processes SIGKILLed 100 times,
(b) its main process SIGKILLed and restarted 10 times, (c) the worker down while turns fall due,
(d) the broker's queues deleted mid-game, (e) a service whose dispatcher drops every dispatch
(the process died between the commit and the enqueue) or whose broker is unreachable.

Each scenario prints its figures and requires: 0 stalled games, 0 turns applied twice (the
action log's versions are exactly 2, 3, ... the final version) and every result recorded exactly
once (the stats' ``games`` count grows by the number of finished games).

Run: ``.venv/bin/python -m pytest -s -p no:cacheprovider tests/integration/test_liveness.py``
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis
from conftest import start_sweeper, start_worker, wait_until
from ludoteca.adapters.store import GameStore
from ludoteca.adapters.worker import CeleryDispatcher, app_for
from ludoteca.core.errors import StaleVersionError
from ludoteca.entrypoints.devstack import Supervisor, embedded_redis, free_port
from ludoteca.service_layer import registry
from ludoteca.service_layer.service import GameService

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(420)]

ROOT = Path(__file__).resolve().parents[2]
GRACE = 1.5
# Fast levels that end a game; the options that keep it short.


def _ppid(pid: str) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


class Dropping:
    """A dispatcher that loses everything: the process died between the commit and the enqueue."""

    def __init__(self) -> None:
        self.dropped = 0

    def bot_turn(self, game: str, game_id: str, version: int) -> None:
        self.dropped += 1

    def record_result(self, game: str, game_id: str) -> None:
        self.dropped += 1


@dataclass
class Stack:
    url: str
    broker_url: str
    sup: Supervisor
    logs: Path
    r: redis.Redis
    broker: redis.Redis
    worker_pid: int | None = None
    starts: int = 0
    services: dict[str, GameService] = field(default_factory=dict)

    # -- the worker ------------------------------------------------------------------------
    def start_worker(self) -> None:
        self.starts += 1
        proc = start_worker(self.sup, f"worker-{self.starts}", self.env(), self.logs / f"worker-{self.starts}.log")
        self.worker_pid = proc.pid

    def kill_worker(self) -> None:
        """SIGKILL the main process, then whatever it leaves behind (its orphaned children)."""
        if self.worker_pid is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.worker_pid, signal.SIGKILL)
        time.sleep(0.2)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.worker_pid, signal.SIGKILL)
        proc = self.sup.procs.get(f"worker-{self.starts}")
        if proc is not None:
            proc.wait(10)
        self.worker_pid = None

    def children(self) -> list[int]:
        main = self.worker_pid
        return [int(p) for p in os.listdir("/proc") if p.isdigit() and main is not None and _ppid(p) == main]

    def env(self) -> dict[str, str]:
        return {"REDIS_URL": self.url, "BROKER_URL": self.broker_url, "LUDOTECA_VISIBILITY_TIMEOUT": "10",
                "LUDOTECA_BOT_DELAY": "0", "PYTHONUNBUFFERED": "1"}

    # -- games -----------------------------------------------------------------------------
    def store(self, game: str) -> GameStore:
        return GameStore(self.r, game, 3600, 3600)

    def service(self, game: str, dispatcher: Any = None) -> GameService:
        if dispatcher is not None:
            return GameService(registry.game(game), self.store(game), dispatcher)
        if game not in self.services:
            self.services[game] = GameService(registry.game(game), self.store(game),
                                              CeleryDispatcher(app_for(self.broker_url)))
        return self.services[game]

    def bots_table(self, game: str, dispatcher: Any = None) -> tuple[str, str]:
        d = registry.game(game)
        level = d.playing_level()
        envelope, _, _ = self.service(game, dispatcher).create(
            [f"bot:{level}"] * d.engine.min_seats, dict(d.tests.quick_options), None, None)
        return game, envelope["id"]

    def status(self, table: tuple[str, str]) -> str:
        return str(self.store(table[0]).load(table[1]).doc["status"])

    def stats_games(self) -> dict[str, int]:
        return {g: self.store(g).stats().get("games", 0) for g in registry.names()}

    def redispatches(self) -> int:
        return (self.logs / "sweeper.log").read_text().count("re-dispatched")


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    sup = Supervisor()
    logs = tmp_path_factory.mktemp("liveness")
    try:
        with embedded_redis(sup, logs / "redis", free_port()) as url:
            broker_url = url.rsplit("/", 1)[0] + "/1"
            s = Stack(url, broker_url, sup, logs, redis.Redis.from_url(url), redis.Redis.from_url(broker_url))
            start_sweeper(sup, s.env(), logs / "sweeper.log", GRACE)
            s.start_worker()
            yield s
    finally:
        sup.stop()


def audit(stack: Stack, name: str, tables: list[tuple[str, str]], before: dict[str, int],
          extra: str = "", timeout: float = 150) -> None:
    """Wait for every table to finish and be recorded; print and check the figures."""
    t0 = time.monotonic()
    wait_until(lambda: all(stack.status(t) == "finished" for t in tables), timeout=timeout, interval=0.5)
    stalled = [t for t in tables if stack.status(t) != "finished"]
    finished = [t for t in tables if t not in stalled]
    wait_until(lambda: all(stack.store(g).is_recorded(gid) for g, gid in finished), timeout=60, interval=0.5)
    twice = 0
    for game, gid in tables:
        versions = [entry["version"] for entry in stack.store(game).action_log(gid)]
        final = stack.store(game).load(gid).version
        twice += len(versions) - len(set(versions))
        assert versions == list(range(2, final + 1)), f"{name}: {game} {gid}: log versions {versions[:20]}..."
    after = stack.stats_games()
    recorded = sum(after[g] - before[g] for g in after)
    unrecorded = [t for t in finished if not stack.store(t[0]).is_recorded(t[1])]
    turns = sum(len(stack.store(g).action_log(gid)) for g, gid in tables)
    print(f"\n[liveness] {name}: {len(tables)} games ({turns} turns), stalled {len(stalled)}, "
          f"turns applied twice {twice}, results recorded {recorded} of {len(finished)} finished "
          f"(unrecorded {len(unrecorded)}), sweeper re-dispatches so far {stack.redispatches()}"
          f"{', ' + extra if extra else ''}; settled {time.monotonic() - t0:.1f} s after the faults")
    assert not stalled, f"{name}: stalled {stalled}"
    assert twice == 0
    assert not unrecorded and recorded == len(finished)


def refill(stack: Stack, tables: list[tuple[str, str]], active: dict[str, tuple[str, str]]) -> None:
    """Keep one running table of each game."""
    for game in registry.names():
        if game not in active or stack.status(active[game]) == "finished":
            active[game] = stack.bots_table(game)
            tables.append(active[game])


def test_a_worker_children_killed_100_times(stack: Stack) -> None:
    before = stack.stats_games()
    tables: list[tuple[str, str]] = []
    active: dict[str, tuple[str, str]] = {}
    kills = 0
    pick = random.Random(1)
    deadline = time.monotonic() + 150
    while kills < 100 and time.monotonic() < deadline:
        refill(stack, tables, active)
        time.sleep(pick.uniform(0.15, 0.35))
        children = stack.children()
        if children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pick.choice(children), signal.SIGKILL)
                kills += 1
    assert kills == 100, f"only {kills} kills"
    audit(stack, "(a) worker children SIGKILLed", tables, before, f"{kills} children killed")


def test_b_worker_main_killed_and_restarted_10_times(stack: Stack) -> None:
    before = stack.stats_games()
    tables: list[tuple[str, str]] = []
    active: dict[str, tuple[str, str]] = {}
    pick = random.Random(2)
    for _ in range(10):
        refill(stack, tables, active)
        time.sleep(pick.uniform(0.5, 1.5))
        stack.kill_worker()
        refill(stack, tables, active)
        stack.start_worker()
    audit(stack, "(b) worker main SIGKILLed and restarted", tables, before, "10 restarts")


def test_c_worker_down_while_turns_fall_due(stack: Stack) -> None:
    before = stack.stats_games()
    tables = [stack.bots_table(g) for g in registry.names()]
    time.sleep(1.0)
    stack.kill_worker()
    tables += [stack.bots_table(g) for g in registry.names()]  # due while nobody works
    time.sleep(4 * GRACE)
    stack.start_worker()
    audit(stack, "(c) worker down while turns fall due", tables, before, f"down {4 * GRACE:.0f} s")


def test_d_broker_queues_deleted_mid_game(stack: Stack) -> None:
    before = stack.stats_games()
    tables = [stack.bots_table(g) for g in registry.names() for _ in range(2)]
    deleted = 0
    for _ in range(6):
        time.sleep(0.7)
        deleted += int(stack.broker.delete(*registry.names(), "unacked", "unacked_index"))
    audit(stack, "(d) broker queues deleted", tables, before, f"{deleted} broker keys deleted in 6 rounds")


def test_e_dispatch_lost_after_every_commit(stack: Stack) -> None:
    before = stack.stats_games()
    dropping = Dropping()
    # bots only, created by a service that dies after each commit: the first turn is lost
    tables = [stack.bots_table(g, dropping) for g in registry.names()]
    # a human plays Ludix against a bot through that service: every hand-over to the bot is lost
    ludix = stack.service("ludix", dropping)
    humans = []
    for _ in range(3):
        envelope, _, _ = ludix.create(["human", "bot:steady"], {"target": 150}, 0, "ana")
        humans.append(envelope["id"])
        tables.append(("ludix", envelope["id"]))
    # a service whose broker is unreachable: the commit succeeds, the dispatch fails fast
    dead = CeleryDispatcher(app_for(f"redis://127.0.0.1:{free_port()}/1"))
    t0 = time.monotonic()
    tables.append(stack.bots_table("ludix", dead))
    dead_broker_s = time.monotonic() - t0
    pick = random.Random(5)
    human_moves = 0
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        playing = False
        for gid in humans:
            stored = ludix.load(gid)
            if stored.doc["status"] != "finished":
                playing = True
            envelope = ludix.envelope(stored, 0)
            if stored.doc["status"] == "active" and envelope["to_act"] == [0]:
                legal = ludix.engine.legal_actions(ludix.engine.load(stored.doc["state"]), 0)
                with contextlib.suppress(StaleVersionError):
                    ludix.play(gid, 0, pick.choice(legal), stored.version, None)
                    human_moves += 1
        if not playing:
            break
        time.sleep(0.1)
    audit(stack, "(e) dispatch lost after every commit", tables, before,
          f"{dropping.dropped} dispatches dropped over {human_moves} human moves; "
          f"a commit with the broker unreachable answered in {dead_broker_s:.2f} s")
    assert dropping.dropped >= len(registry.names()) + 3, dropping.dropped  # each bots table's first turn, and more
    assert dead_broker_s < 20, dead_broker_s
