"""What is due, the write-ahead hints and one sweeper pass, against a real Redis (the processes
themselves are tested under faults in tests/integration/test_liveness.py)."""

from __future__ import annotations

import secrets
import time
from typing import Any

import redis
from ludoteca.adapters.store import GameStore
from ludoteca.adapters.sweeper import Sweeper
from ludoteca.service_layer import registry
from ludoteca.service_layer.service import GameService


class Recorder:
    def __init__(self, fail: bool = False) -> None:
        self.sent: list[tuple[Any, ...]] = []
        self.fail = fail

    def bot_turn(self, game: str, game_id: str, version: int) -> None:
        if self.fail:
            raise ConnectionError("broker down")
        self.sent.append(("bot_turn", game, game_id, version))

    def record_result(self, game: str, game_id: str) -> None:
        if self.fail:
            raise ConnectionError("broker down")
        self.sent.append(("record_result", game, game_id))


def ludix(client: redis.Redis, dispatcher: Any) -> tuple[GameService, GameStore]:
    store = GameStore(client, f"sweep{secrets.token_hex(3)}", 60, 60)
    return GameService(registry.game("ludix"), store, dispatcher), store


def test_a_due_bot_turn_is_recorded_with_the_commit_and_swept_once(redis_client: redis.Redis) -> None:
    service, store = ludix(redis_client, Recorder())
    envelope, _, _ = service.create(["bot:random", "bot:random"], {}, None, None)
    gid = envelope["id"]
    version, due = store.due(gid)
    assert version == 1 and due is not None and (due.kind, due.version) == ("bot", 1)
    assert [g for g, _ in store.hints_before(store.server_ms())] == [gid]
    out = Recorder()
    sweeper = Sweeper(redis_client, [store.game], out, grace_seconds=0.2, ttl_seconds=60)
    assert sweeper.sweep().bot_turns == 0  # within the grace: the task may still come
    time.sleep(0.3)
    assert sweeper.sweep().bot_turns == 1
    assert out.sent == [("bot_turn", store.game, gid, 1)]
    assert sweeper.sweep().bot_turns == 0  # backed off
    assert service.bot_turn(gid, 1) == "played"  # the turn is played: a newer hint, a new due
    _, due = store.due(gid)
    assert due is not None and due.version == 2


def test_dispatch_failure_never_fails_the_request(redis_client: redis.Redis) -> None:
    service, store = ludix(redis_client, Recorder(fail=True))
    envelope, _, _ = service.create(["bot:random", "bot:random"], {}, None, None)  # no exception
    assert store.due(envelope["id"])[1] is not None


def test_a_hint_is_removed_only_when_nothing_is_due_and_never_a_newer_one(redis_client: redis.Redis) -> None:
    service, store = ludix(redis_client, Recorder())
    envelope, _, _ = service.create(["human", "human"], {}, 0, "ana")  # nothing due
    gid = envelope["id"]
    assert store.due(gid) == (1, None)
    old = store.hint(gid)
    time.sleep(0.01)
    store.hint(gid)  # a newer hint
    assert not store.drop_hint(gid, old) and not store.defer_hint(gid, old, old + 5)
    sweeper = Sweeper(redis_client, [store.game], Recorder(), grace_seconds=0.05, ttl_seconds=60)
    time.sleep(0.1)
    assert sweeper.sweep().removed == 1
    assert store.hints_before(store.server_ms()) == []
    store.hint("gone")  # a game that does not exist (any more)
    time.sleep(0.1)
    assert sweeper.sweep().removed == 1


def test_an_unrecorded_result_is_swept_until_recorded(redis_client: redis.Redis) -> None:
    service, store = ludix(redis_client, Recorder())
    envelope, _, _ = service.create(["bot:steady", "bot:steady"], {"target": 50}, None, None)
    gid, version = envelope["id"], 1
    while service.bot_turn(gid, version) == "played":
        version += 1
    assert store.load(gid).doc["status"] == "finished"
    _, due = store.due(gid)
    assert due is not None and due.kind == "result"
    out = Recorder()
    sweeper = Sweeper(redis_client, [store.game], out, grace_seconds=0.05, ttl_seconds=60)
    time.sleep(0.1)
    assert sweeper.sweep().results == 1 and out.sent == [("record_result", store.game, gid)]
    assert service.record_result(gid) and not service.record_result(gid)
    assert store.due(gid)[1] is None
    time.sleep(0.1)
    store.defer_hint(gid, store.hints_before(10**15)[0][1], 0)  # skip the backoff
    assert sweeper.sweep().removed == 1


def test_sweepers_take_turns(redis_client: redis.Redis) -> None:
    _, store = ludix(redis_client, Recorder())
    one = Sweeper(redis_client, [store.game], Recorder())
    two = Sweeper(redis_client, [store.game], Recorder())
    assert store.try_lock("lock", one.token, 5000)
    assert two.sweep().skipped_locked == 1
    store.unlock("lock", one.token)
    assert two.sweep().skipped_locked == 0


def test_a_timed_turn_is_dispatched_once_its_deadline_has_passed(redis_client: redis.Redis) -> None:
    """A human's turn with a 1 s timer (the bound lowered): the commit records it due at its
    deadline; the sweeper leaves it alone before, moves its hint to the deadline and dispatches
    the bot turn then, once (then backs off)."""
    store = GameStore(redis_client, f"sweep{secrets.token_hex(3)}", 60, 60)
    service = GameService(registry.game("ludix"), store, Recorder(), min_turn_seconds=1)
    envelope, _, _ = service.create(["human", "human"], {"turn_seconds": 1}, 0, None)
    gid = envelope["id"]
    service.join(gid, None, None)
    version, due = store.due(gid)
    assert due is not None and (due.kind, due.version) == ("turn", version)
    assert abs(due.since_ms - store.server_ms() - 1000) < 300  # the deadline, a second on
    out = Recorder()
    sweeper = Sweeper(redis_client, [store.game], out, grace_seconds=0.2, ttl_seconds=60)
    time.sleep(0.3)
    count = sweeper.sweep()
    assert (count.timeouts, count.deferred) == (0, 1) and out.sent == []  # its hint moved to the deadline
    assert [score for g, score in store.hints_before(10**15) if g == gid] == [due.since_ms - 200]
    time.sleep(max(0.0, (due.since_ms - store.server_ms()) / 1000) + 0.05)
    assert sweeper.sweep().timeouts == 1
    assert out.sent == [("bot_turn", store.game, gid, version)]
    assert sweeper.sweep().timeouts == 0  # backed off
    assert service.bot_turn(gid, version) == "timed-out"


def test_one_games_fault_never_stops_the_others_sweeping(redis_client: redis.Redis) -> None:
    """A hint whose game cannot be read (its `due` written by another version, say) is logged,
    counted and deferred; the pass goes on, and another game type's due bot turn is re-dispatched
    (before, the exception ended every pass at that game, and the later types were never swept)."""
    _, broken = ludix(redis_client, Recorder())
    service, store = ludix(redis_client, Recorder())
    envelope, _, _ = service.create(["bot:random", "bot:random"], {}, None, None)
    gid = envelope["id"]
    bad = secrets.token_hex(8)
    redis_client.hset(broken._key(bad, "game"), mapping={"version": 3, "due": "no-such-kind:3", "due_at": 0})
    redis_client.zadd(broken.hints_key, {bad: broken.server_ms() - 60_000})
    out = Recorder()
    sweeper = Sweeper(redis_client, sorted([broken.game, store.game], key=lambda g: g != broken.game), out,
                      grace_seconds=0.2, ttl_seconds=60)
    time.sleep(0.3)
    count = sweeper.sweep()
    assert count.failed == 1 and count.bot_turns == 1
    assert out.sent == [("bot_turn", store.game, gid, 1)]
    (deferred, score), = broken.hints_before(broken.server_ms() + 120_000)
    assert deferred == bad and score > broken.server_ms() + 30_000  # tried again after the longest backoff
