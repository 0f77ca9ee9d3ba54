"""The Redis store against a real Redis: compare-and-set, idempotency, events, results."""

from __future__ import annotations

import secrets
import threading
import time

import redis
from ludoteca.adapters.store import GameStore


def make_store(client: redis.Redis) -> GameStore:
    return GameStore(client, "teststore", ttl_seconds=60, idempotency_ttl=60)


def new_game(store: GameStore) -> str:
    gid = secrets.token_hex(8)
    assert store.create(gid, {"n": 0, "event_count": 1}, [{"seq": 1, "type": "GameCreated"}])
    return gid


def test_keys_share_one_hash_tag(redis_client: redis.Redis) -> None:
    store = make_store(redis_client)
    gid = new_game(store)
    keys = [k.decode() for k in redis_client.keys(f"teststore:{{{gid}}}:*")]
    assert sorted(k.rsplit(":", 1)[1] for k in keys) == ["events", "game"]
    assert redis_client.ttl(f"teststore:{{{gid}}}:game") > 0


def test_concurrent_commits_exactly_one_wins(redis_client: redis.Redis) -> None:
    store = make_store(redis_client)
    gid = new_game(store)
    results = []
    barrier = threading.Barrier(8)

    def attempt(i: int) -> None:
        barrier.wait()
        results.append(store.commit(gid, 1, {"n": i, "event_count": 2}, [{"seq": 2, "type": "X", "i": i}], 2,
                                    log_entry={"i": i}))

    threads = [threading.Thread(target=attempt, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.status for r in results) == ["ok"] + ["stale"] * 7
    stored = store.load(gid)
    assert stored.version == 2
    events = store.events_after(gid, 0)
    assert [seq for seq, _ in events] == [1, 2]
    assert len(store.action_log(gid)) == 1


def test_idempotency_record_written_with_the_commit(redis_client: redis.Redis) -> None:
    store = make_store(redis_client)
    gid = new_game(store)
    rec = {"hash": "h", "body": {"ok": 1}, "version": 2}
    assert store.commit(gid, 1, {"event_count": 1}, [], 2, idempotency=(0, "k1", rec)).status == "ok"
    again = store.commit(gid, 2, {"event_count": 1}, [], 2, idempotency=(0, "k1", rec))
    assert again.status == "idempotent" and again.replay == rec
    assert store.idempotency_record(gid, 0, "k1") == rec
    assert store.idempotency_record(gid, 1, "k1") is None  # scoped to the seat
    assert store.load(gid).version == 2


def test_blocking_read_returns_as_soon_as_an_event_lands(redis_client: redis.Redis) -> None:
    store = make_store(redis_client)
    gid = new_game(store)

    def later() -> None:
        time.sleep(0.3)
        store.commit(gid, 1, {"event_count": 2}, [{"seq": 2, "type": "Late"}], 2)

    threading.Thread(target=later).start()
    t0 = time.monotonic()
    events = store.events_after(gid, 1, block_ms=5000)
    elapsed = time.monotonic() - t0
    assert [e["type"] for _, e in events] == ["Late"]
    assert elapsed < 3.0


def test_results_recorded_once(redis_client: redis.Redis) -> None:
    store = GameStore(redis_client, f"board{secrets.token_hex(3)}", 60, 60)
    entries = [("ana", True, 310.0), ("bot:expert", False, 250.0)]
    assert store.record_result("g1", entries, shared=False)
    assert not store.record_result("g1", entries, shared=False)
    board = store.leaderboard(10)
    assert board[0]["player"] == "ana" and board[0]["wins"] == 1 and board[0]["played"] == 1
    assert store.stats()["games"] == 1
