"""The Redis adapter's own integration tests: :class:`~ludoteca.adapters.store.GameStore` writes
each :class:`~ludoteca.service_layer.repository.UnitOfWork` as the fake repository
(:class:`~ludoteca.service_layer.repository.MemoryStore`) does, against a real Redis: the same
units give the same versions, events (global and per viewer), log, idempotency records, quotas
and due work."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator

import pytest
import redis
from ludoteca.adapters.store import GameStore
from ludoteca.service_layer.events import EventRecord
from ludoteca.service_layer.numbering import Shown
from ludoteca.service_layer.repository import (
    NOTHING_DUE,
    Due,
    DueKind,
    DueWork,
    GameRepository,
    IdempotencyEntry,
    MemoryStore,
    Quota,
    UnitOfWork,
)


@pytest.fixture(params=["memory", "redis"])
def repo(request: pytest.FixtureRequest) -> Iterator[GameRepository]:
    if request.param == "memory":
        yield MemoryStore("units")
    else:
        client: redis.Redis = request.getfixturevalue("redis_client")
        yield GameStore(client, "units", 60, 60)


def event(seq: int, version: int, kind: str, audience: tuple[int, ...] | None = None) -> EventRecord:
    return EventRecord(seq, version, kind, {"n": seq}, audience)


def shown(*records: EventRecord, numbers: Callable[[EventRecord], tuple[tuple[int, int], ...]]) -> list[Shown]:
    return [Shown(r.told(), numbers(r)) for r in records]


def new_game(repo: GameRepository, due: DueWork = NOTHING_DUE) -> str:
    gid = secrets.token_hex(8)
    first = event(1, 1, "GameCreated")
    assert repo.create(UnitOfWork(gid, {"event_count": 1}, [first], shown(first, numbers=lambda r: ((0, 1), (1, 1))),
                                  viewers=2, due=due))
    return gid


def test_a_new_games_due_work_is_stored_with_version_1(repo: GameRepository) -> None:
    gid = new_game(repo, DueWork(DueKind.BOT))
    version, due = repo.due(gid)
    assert version == 1 and due is not None and (due.kind, due.version) == (DueKind.BOT, 1)
    assert not repo.create(UnitOfWork(gid, {"event_count": 1}, []))  # the id is taken: nothing written


def test_a_commit_writes_its_events_log_idempotency_record_and_due_work(repo: GameRepository) -> None:
    gid = new_game(repo)
    private, public = event(2, 2, "Dealt", (0,)), event(3, 2, "Played")
    work = UnitOfWork(gid, {"event_count": 3}, [private, public],
                      shown(private, public, numbers=lambda r: ((1, 2),) if r.audience else ((0, 2), (1, 3))),
                      viewers=2, due=DueWork(DueKind.TURN, 123_456), expected_version=1,
                      log_entry={"version": 2, "seat": 0}, idempotency=IdempotencyEntry(0, "k", {"hash": "h"}))
    assert work.first_seq == 2
    result = repo.commit(work)
    assert (result.status, result.version) == ("ok", 2)
    assert [rec for _, rec in repo.events_after(gid, 1)] == [private.to_doc(), public.to_doc()]
    assert [e["type"] for e in repo.viewer_events(gid, 0, 0)] == ["GameCreated", "Played"]
    assert [(e["seq"], e["type"]) for e in repo.viewer_events(gid, 1, 1)] == [(2, "Dealt"), (3, "Played")]
    assert repo.action_log(gid) == [{"version": 2, "seat": 0}]
    assert repo.idempotency_record(gid, 0, "k") == {"hash": "h"}
    assert repo.due(gid) == (2, Due(DueKind.TURN, 2, 123_456))
    again = repo.commit(UnitOfWork(gid, {"event_count": 3}, [], expected_version=2,
                                   idempotency=IdempotencyEntry(0, "k", {"hash": "other"})))
    assert again.status == "idempotent" and again.replay == {"hash": "h"}


def test_a_stale_unit_changes_nothing_and_hands_back_the_game(repo: GameRepository) -> None:
    gid = new_game(repo)
    repo.commit(UnitOfWork(gid, {"event_count": 1, "n": 1}, [], expected_version=1, due=DueWork(DueKind.RESULT)))
    stale = repo.commit(UnitOfWork(gid, {"event_count": 2}, [event(2, 2, "Late")], expected_version=1))
    assert stale.status == "stale" and stale.current is not None and stale.current.doc["n"] == 1
    assert [seq for seq, _ in repo.events_after(gid, 0)] == [1]
    assert repo.due(gid)[1] == Due(DueKind.RESULT, 2, repo.due(gid)[1].since_ms)  # type: ignore[union-attr]
    assert repo.clear_result_due(gid) and repo.due(gid) == (2, None)


def test_a_unit_over_its_quota_writes_nothing(repo: GameRepository) -> None:
    gid = new_game(repo)
    key = f"units:{{{gid}}}:quota"
    assert repo.commit(UnitOfWork(gid, {"event_count": 1}, [], expected_version=1,
                                  quota=Quota(key, 1, 60, "writes a minute"))).status == "ok"
    limited = repo.commit(UnitOfWork(gid, {"event_count": 1}, [], expected_version=2,
                                     quota=Quota(key, 1, 60, "writes a minute")))
    assert limited.status == "limited" and limited.retry_after >= 1 and repo.load(gid).version == 2
