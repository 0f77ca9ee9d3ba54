"""The Redis store against a real Redis: compare-and-set, idempotency, events, results."""

from __future__ import annotations

import secrets
import threading
import time
from typing import Any, cast

import redis
from ludoteca.adapters.connect import blocking_client
from ludoteca.adapters.connect import redis_client as make_client
from ludoteca.adapters.store import LONG_BLOCK_MS, LONG_BLOCK_SECONDS, GameStore
from ludoteca.core import jsontext
from ludoteca.service_layer.events import EventRecord
from ludoteca.service_layer.record import GameRecord, Status
from ludoteca.service_layer.repository import IdempotencyEntry, UnitOfWork
from ludoteca.service_layer.timers import TurnClock


def make_store(client: redis.Redis) -> GameStore:
    return GameStore(client, "teststore", ttl_seconds=60, idempotency_ttl=60)


def new_game(store: GameStore) -> str:
    gid = secrets.token_hex(8)
    assert store.create(UnitOfWork(gid, {"n": 0, "event_count": 1}, [EventRecord(1, 1, "GameCreated", {})]))
    return gid


def move(gid: str, version: int, doc: dict[str, Any], *events: EventRecord, **more: Any) -> UnitOfWork:
    """The next version's write, from ``version``."""
    return UnitOfWork(gid, doc, events, expected_version=version, **more)


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
        results.append(store.commit(move(gid, 1, {"n": i, "event_count": 2}, EventRecord(2, 2, "X", {"i": i}),
                                         log_entry={"i": i})))

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
    assert store.commit(move(gid, 1, {"event_count": 1}, idempotency=IdempotencyEntry(0, "k1", rec))).status == "ok"
    again = store.commit(move(gid, 2, {"event_count": 1}, idempotency=IdempotencyEntry(0, "k1", rec)))
    assert again.status == "idempotent" and again.replay == rec
    assert store.idempotency_record(gid, 0, "k1") == rec
    assert store.idempotency_record(gid, 1, "k1") is None  # scoped to the seat
    assert store.load(gid).version == 2


def test_blocking_read_returns_as_soon_as_an_event_lands(redis_client: redis.Redis) -> None:
    store = make_store(redis_client)
    gid = new_game(store)

    def later() -> None:
        time.sleep(0.3)
        store.commit(move(gid, 1, {"event_count": 2}, EventRecord(2, 2, "Late", {})))

    threading.Thread(target=later).start()
    t0 = time.monotonic()
    events = store.events_after(gid, 1, block_ms=5000)
    elapsed = time.monotonic() - t0
    assert [e["type"] for _, e in events] == ["Late"]
    assert elapsed < 3.0


class CountingClient:
    """A Redis client that counts its blocking reads and the blocks they asked for."""

    def __init__(self, client: redis.Redis) -> None:
        self.client, self.blocks = client, []

    def xread(self, streams: Any, count: int | None = None, block: int | None = None) -> Any:
        self.blocks.append(block)
        return self.client.xread(streams, count=count, block=block)


def test_a_long_wait_blocks_in_long_slices_on_the_blocking_client(redis_url: str) -> None:
    """With its blocking client a store waits in LONG_BLOCK_SECONDS slices while that much of the
    wait is left (one wake-up where the fail-fast client needs ten), the rest in short ones;
    an event still wakes the read at once."""
    counting = CountingClient(blocking_client(redis_url, LONG_BLOCK_SECONDS, 1.0))
    store = GameStore(make_client(redis_url, 1.0), "teststore", 60, 60, blocking=cast(redis.Redis, counting))
    gid = new_game(store)
    t0 = time.monotonic()
    assert store.events_after(gid, 1, block_ms=LONG_BLOCK_MS + 500) == []  # nothing came: one slice
    assert LONG_BLOCK_SECONDS - 0.2 <= time.monotonic() - t0 < LONG_BLOCK_SECONDS + 1.0
    assert counting.blocks == [LONG_BLOCK_MS]
    assert store.events_after(gid, 1, block_ms=LONG_BLOCK_MS - 1) == []  # less left: the fail-fast client
    assert counting.blocks == [LONG_BLOCK_MS]

    def later() -> None:
        time.sleep(0.3)
        store.commit(move(gid, 1, {"event_count": 2}, EventRecord(2, 2, "Late", {})))

    threading.Thread(target=later).start()
    t0 = time.monotonic()
    assert [e["type"] for _, e in store.events_after(gid, 1, block_ms=20_000)] == ["Late"]
    assert time.monotonic() - t0 < 3.0 and counting.blocks == [LONG_BLOCK_MS, LONG_BLOCK_MS]


def test_results_recorded_once(redis_client: redis.Redis) -> None:
    store = GameStore(redis_client, f"board{secrets.token_hex(3)}", 60, 60)
    entries = [("ana", True, 310.0), ("bot:expert", False, 250.0)]
    assert store.record_result("g1", entries, shared=False)
    assert not store.record_result("g1", entries, shared=False)
    board = store.leaderboard(10)
    assert board[0]["player"] == "ana" and board[0]["wins"] == 1 and board[0]["played"] == 1
    assert store.stats()["games"] == 1


def test_a_read_of_the_same_bytes_decodes_nothing_and_another_process_write_is_read_afresh(
        redis_client: redis.Redis) -> None:
    """DecodedDocs: a committed document is what the next read of it gets (the very object: no
    decoding), a read of the same bytes again too; a write by another process (another store
    object: other bytes) is decoded afresh; the memory is bounded; a stale commit's current
    document is the one stored."""
    store, other = make_store(redis_client), make_store(redis_client)
    gid = new_game(store)
    first = store.load(gid)
    assert store.load(gid).doc is first.doc  # the same bytes: the same document
    doc = {"n": 1, "event_count": 1, "state": {"cards": [[1, 2], [3]], "who": None}}
    assert store.commit(move(gid, 1, doc)).status == "ok"
    read = store.load(gid)
    assert read.version == 2 and read.doc is doc  # what was committed, as stored
    elsewhere = {"n": 2, "event_count": 1, "state": {"cards": [[4]], "who": 0}}
    assert other.commit(move(gid, 2, elsewhere)).status == "ok"
    fresh = store.load(gid)
    assert fresh.version == 3 and fresh.doc == elsewhere and fresh.doc is not elsewhere
    stale = store.commit(move(gid, 2, {"n": 9, "event_count": 1}))
    assert stale.status == "stale" and stale.current is not None and stale.current.doc is fresh.doc
    store.decoded.size = 2
    for _ in range(3):
        store.load(new_game(store))
    assert len(store.decoded._docs) == 2 and store.load(gid).doc == elsewhere  # bounded, and read again


def test_a_record_document_is_plain_json() -> None:
    """What the store keeps of a commit is the service's document as built (DecodedDocs): it must
    be what decoding its bytes gives (lists, not tuples; str keys), as the engines' dumps are
    (tests/contract, rule 'codec')."""
    record = GameRecord(id="g", players=("human", "bot:random"), names=("Ada", "random"), token_hashes=("h", None),
                        options={"target": 10}, seed="s", seed_sha256="d", created_at=1.0, event_count=3,
                        status=Status.ACTIVE, state={"a": [1]}, viewer_counts=(1, 2, 3), player_ids=("p", None),
                        timer=TurnClock(12.5, (0,), {0: 4}))
    doc = record.to_doc()
    assert jsontext.loads(jsontext.dumps(doc)) == doc
