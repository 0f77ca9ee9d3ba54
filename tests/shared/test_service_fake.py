"""The service layer over both repositories: the in-memory fake and the Redis store give the
same answers (compare-and-set, idempotency, the write quota, events and their audiences, what
each version makes due). The fake runs without infrastructure; the Redis run proves it honest."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from ludoteca.adapters.store import GameStore
from ludoteca.core.errors import (
    ConflictError,
    GameNotStartedError,
    IdempotencyConflictError,
    IllegalActionError,
    NotFoundError,
    NotYourTurnError,
    RateLimitedError,
    StaleVersionError,
)
from ludoteca.service_layer import registry
from ludoteca.service_layer.record import GameRecord, Status
from ludoteca.service_layer.repository import GameRepository, MemoryStore, Quota
from ludoteca.service_layer.service import GameService


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def bot_turn(self, game: str, game_id: str, version: int) -> None:
        self.calls.append(("bot", game_id, version))

    def record_result(self, game: str, game_id: str) -> None:
        self.calls.append(("result", game_id))


@pytest.fixture(params=["memory", "redis"])
def make_store(request: pytest.FixtureRequest) -> Iterator[Callable[..., GameRepository]]:
    """A repository of ``game`` (Ludix by default): its own keys, so a game of another type
    never shows in Ludix's lobby (the api tests list it, on the same Redis)."""
    if request.param == "memory":
        yield lambda game="ludix": MemoryStore(game)
    else:
        client: redis.Redis = request.getfixturevalue("redis_client")
        yield lambda game="ludix": GameStore(client, game, 600, 600)


@pytest.fixture()
def service(make_store: Callable[..., GameRepository]) -> GameService:
    return GameService(registry.game("ludix"), make_store(), Recorder())


def started(service: GameService) -> tuple[str, list[str]]:
    envelope, seat, t0 = service.create(["human", "human"], {}, 0, "ana")
    assert seat == 0 and t0 is not None and envelope["status"] == "waiting_for_players"
    joined, seat1, t1 = service.join(envelope["id"], None, "bo")
    assert seat1 == 1 and joined["status"] == "active" and joined["version"] == 2
    return envelope["id"], [t0, t1]


def to_act(service: GameService, gid: str) -> int:
    stored = service.load(gid)
    return sorted(service.engine.to_act(service.engine.load(stored.record.state)))[0]


def quota(limit: int) -> Quota:
    return Quota(f"ludix:ratelimit:LIMITER/seat/test/{secrets.token_hex(4)}/w", limit, 60, "writes a minute")


def test_a_move_commits_once_and_reports_its_events(service: GameService) -> None:
    gid, _ = started(service)
    seat = to_act(service, gid)
    played = service.play(gid, seat, {"type": "alea_jacta_est"}, 2, None)
    assert not played.replayed and played.version == 3
    assert played.body["game"]["version"] == 3 and played.body["game"]["you"] == seat
    assert played.body["events"] and all(e["version"] == 3 for e in played.body["events"])
    log = service.store.action_log(gid)
    assert log == [{"version": 3, "seat": seat, "action": {"type": "alea_jacta_est"}}]
    seqs = [seq for seq, _ in service.store.events_after(gid, 0)]
    assert seqs == list(range(1, len(seqs) + 1))  # GameCreated, SeatClaimed, GameStarted, the move's


def test_if_match_on_an_old_version_is_refused_and_changes_nothing(service: GameService) -> None:
    gid, _ = started(service)
    with pytest.raises(StaleVersionError) as err:
        service.play(gid, to_act(service, gid), {"type": "alea_jacta_est"}, 1, None)
    assert err.value.extra["current_version"] == 2
    assert service.load(gid).version == 2


def test_idempotency_key_replays_the_stored_response_even_after_the_game_moved(service: GameService) -> None:
    gid, _ = started(service)
    seat = to_act(service, gid)
    first = service.play(gid, seat, {"type": "alea_jacta_est"}, None, "k-1")
    again = service.play(gid, seat, {"type": "alea_jacta_est"}, 2, "k-1")  # If-Match is stale now: replay wins
    assert again.replayed and again.body == first.body and again.version == first.version
    assert service.load(gid).version == 3
    with pytest.raises(IdempotencyConflictError):
        service.play(gid, seat, {"type": "hold"}, None, "k-1")


def test_illegal_and_out_of_turn_moves_are_refused(service: GameService) -> None:
    gid, _ = started(service)
    service.play(gid, 0, {"type": "alea_jacta_est"}, None, None)
    seat = to_act(service, gid)  # the caller opens: a roll is its only legal move
    with pytest.raises(NotYourTurnError):
        service.play(gid, 1 - seat, {"type": "roll"}, None, None)
    with pytest.raises(IllegalActionError):
        service.play(gid, seat, {"type": "hold"}, None, None)
    assert service.load(gid).version == 3


def test_a_waiting_game_takes_no_moves(service: GameService) -> None:
    envelope, _, _ = service.create(["human", "human"], {}, 0, None)
    with pytest.raises(GameNotStartedError):
        service.play(envelope["id"], 0, {"type": "alea_jacta_est"}, None, None)


def test_the_write_quota_counts_commits_and_refusals_and_refuses_past_it(service: GameService) -> None:
    gid, _ = started(service)
    q = quota(2)
    service.play(gid, 0, {"type": "alea_jacta_est"}, None, None, quota=q)
    assert q.spent
    seat = to_act(service, gid)
    q = Quota(q.key, q.limit, q.window, q.what)
    with pytest.raises(NotYourTurnError):  # refused: counted all the same (2 of 2)
        service.play(gid, 1 - seat, {"type": "roll"}, None, None, quota=q)
    assert q.spent
    version = service.load(gid).version
    q = Quota(q.key, q.limit, q.window, q.what)
    with pytest.raises(RateLimitedError) as err:
        service.play(gid, to_act(service, gid), {"type": "roll"}, None, None, quota=q)
    assert 1 <= err.value.retry_after <= 61 and "2 writes a minute" in err.value.detail
    assert service.load(gid).version == version  # a refused write changed nothing
    q = Quota(q.key, q.limit, q.window, q.what)
    with pytest.raises(RateLimitedError):  # over the limit beats a refusal (the 409 becomes a 429)
        service.play(gid, 1 - to_act(service, gid), {"type": "roll"}, None, None, quota=q)


def test_bot_seats_and_the_end_are_due_and_dispatched(service: GameService) -> None:
    dispatcher = service.dispatcher
    assert isinstance(dispatcher, Recorder)
    envelope, _, _ = service.create(["human", "bot:steady"], {}, 0, None)
    gid = envelope["id"]
    played = 0
    while service.load(gid).record.status is Status.ACTIVE and played < 400:
        stored = service.load(gid)
        state = service.engine.load(stored.record.state)
        seats = sorted(service.engine.to_act(state))
        if seats == [1]:
            version, due = service.store.due(gid)
            assert due is not None and due.kind == "bot" and due.version == version == stored.version
            assert ("bot", gid, stored.version) in dispatcher.calls
            assert service.bot_turn(gid, stored.version) == "played"
        else:
            legal = service.engine.legal_actions(state, 0)
            action = next((a for a in legal if a["type"] == "hold"), legal[0])
            service.play(gid, 0, action, None, None)
        played += 1
    assert service.load(gid).record.status is Status.FINISHED
    assert service.store.due(gid)[1] is not None and ("result", gid) in dispatcher.calls
    assert service.record_result(gid) is True and service.record_result(gid) is False
    assert service.store.due(gid)[1] is None
    assert service.replay(gid)["actions"]


def test_events_respect_their_audience(service: GameService) -> None:
    gid, _ = started(service)
    seat = to_act(service, gid)
    service.play(gid, seat, {"type": "alea_jacta_est"}, None, None)
    every = [rec for _, rec in service.store.events_after(gid, 0)]
    for viewer in (None, 0, 1):
        seen = service.events(gid, viewer, 0, 0)["events"]
        allowed = [e["seq"] for e in every if e["audience"] is None or (viewer is not None and viewer in e["audience"])]
        assert [e["seq"] for e in seen] == allowed


def test_a_document_written_by_the_old_encoder_still_loads() -> None:
    import json

    doc = {"id": "ab", "players": ["human", "bot:steady"], "names": ["ana", "bot:steady"],
           "token_hashes": ["00" * 32, None], "options": {"target": 100}, "seed": "11" * 32,
           "seed_sha256": "22" * 32, "created_at": 1.5, "event_count": 3, "status": "active", "state": {"x": 1}}
    record = GameRecord.from_doc(json.loads(json.dumps(doc, sort_keys=True)))
    assert record.status is Status.ACTIVE and record.open_seats == [] and record.to_doc() == doc


def test_a_move_from_a_remembered_game_that_moved_on_is_checked_again(
        make_store: Callable[..., GameRepository]) -> None:
    """Two processes over one store: each remembers the games it last wrote; a move that starts
    from an outdated memory is re-checked on the current game (the commit hands it back)."""
    store = make_store()
    here, there = (GameService(registry.game("ludix"), store, Recorder()) for _ in range(2))
    envelope, _, t0 = here.create(["human", "human"], {}, 0, None)
    gid = envelope["id"]
    stored, seat = here.seat_for_move(gid, t0 or "")
    assert seat == 0 and here.load(gid, recent=True).version == 1
    _, _, t1 = there.join(gid, None, None)  # the game is active now; `here` remembers it waiting
    stored, seat = here.seat_for_move(gid, t1)  # a seat claimed elsewhere: read again, verified
    assert seat == 1 and stored.version == 2
    here.play(gid, 0, {"type": "alea_jacta_est"}, None, None, loaded=here.load(gid, recent=True))
    mover = to_act(there, gid)
    there.play(gid, mover, {"type": "roll"}, None, None)  # `here` still remembers version 3
    remembered = here.load(gid, recent=True)
    assert remembered.cached and remembered.version == 3
    current = there.load(gid)
    follower = sorted(there.engine.to_act(there.engine.load(current.record.state)))[0]
    legal = there.engine.legal_actions(there.engine.load(current.record.state), follower)
    played = here.play(gid, follower, dict(legal[0]), None, None, loaded=remembered)
    assert played.version == current.version + 1 == store.load(gid).version
    with pytest.raises(StaleVersionError):  # If-Match names what the caller saw, not what we remember
        here.play(gid, follower, dict(legal[0]), current.version, None, loaded=here.load(gid, recent=True))


def test_a_seat_left_through_another_process_cannot_move_from_a_remembered_game(
        make_store: Callable[..., GameRepository]) -> None:
    """Two processes over one store: a seat that left through one is refused (409) by the other,
    whose memory of the game predates the leave, whether the move starts from that memory or the
    memory's attempt is refused first; nothing is written, and the bot still plays the seat."""
    store = make_store()
    here, there = (GameService(registry.game("ludix"), store, Recorder()) for _ in range(2))
    gid, tokens = started(here)
    here.play(gid, 0, {"type": "alea_jacta_est"}, None, None)
    seat = to_act(here, gid)
    remembered = here.load(gid, recent=True)
    assert remembered.cached
    there.leave(gid, seat, "steady")
    left = store.load(gid)
    stored, verified = here.seat_for_move(gid, tokens[seat])  # the route's check, on the memory: passes
    assert stored.cached and verified == seat
    for action in ({"type": "roll"}, {"type": "hold"}):  # legal, or refused on the memory first (no roll yet)
        with pytest.raises(ConflictError, match="You left this game"):
            here.play(gid, seat, action, None, None, loaded=stored)
    assert store.load(gid).version == left.version
    assert not store.load(gid).record.is_human(seat)


def test_two_leaves_of_one_seat_at_once_the_second_is_refused(service: GameService) -> None:
    """Both requests pass the route's check on the game they read; the service checks again on
    the version it commits on: one ``SeatLeft``, the first bot's level kept, a 409 for the other."""
    gid, tokens = started(service)
    before = service.load(gid)
    assert service.seat_of(before, tokens[1], acting=True) == 1
    first, second = list(service.d.bots)[:2]
    service.leave(gid, 1, first)
    with pytest.raises(ConflictError, match="You left this game"):
        service.leave(gid, 1, second)
    after = service.load(gid)
    assert after.record.level(1) == first and after.version == before.version + 1
    types = [e["type"] for e in service.events(gid, None, 0, 0)["events"]]
    assert types.count("SeatLeft") == 1


def test_a_stream_reads_a_version_once_a_process(make_store: Callable[..., GameRepository]) -> None:
    """``seen_at``: no read after this process's own commit, nor after another of its readers
    read that version; one read for a version another process wrote."""
    store = make_store()
    here, there = (GameService(registry.game("ludix"), store, Recorder()) for _ in range(2))
    gid, _ = started(here)
    reads = []
    load = store.load
    store.load = lambda game_id: reads.append(game_id) or load(game_id)  # type: ignore[method-assign]
    played = here.play(gid, 0, {"type": "alea_jacta_est"}, None, None)
    reads.clear()
    assert here.seen_at(gid, played.version).version == played.version and reads == []
    moved = there.play(gid, to_act(there, gid), {"type": "roll"}, None, None)
    reads.clear()
    assert here.seen_at(gid, moved.version).version == moved.version and len(reads) == 1
    assert here.seen_at(gid, moved.version).version == moved.version and len(reads) == 1


def test_a_remembered_game_that_expired_is_a_404(make_store: Callable[..., GameRepository]) -> None:
    store = make_store()
    service = GameService(registry.game("ludix"), store, Recorder())
    gid, _ = started(service)
    remembered = service.load(gid, recent=True)
    if isinstance(store, MemoryStore):
        del store._games[gid]
    else:
        assert isinstance(store, GameStore)
        store.r.delete(store._key(gid, "game"))
    with pytest.raises(NotFoundError):
        service.play(gid, 0, {"type": "alea_jacta_est"}, None, None, loaded=remembered)
    assert service.recent.get(gid) is None


def test_a_new_games_opening_events_follow_game_created(make_store: Callable[..., GameRepository]) -> None:
    """Ludor's first deal (RoundStarted, each hand's CardsDealt to its holder) is recorded at
    creation, after GameCreated, and each seat reads only its own hand."""
    service = GameService(registry.game("ludor"), make_store("ludor"), Recorder())
    envelope, _, _ = service.create(["human"] * 3, {}, 0, "ana")
    gid = envelope["id"]
    state = service.engine.load(service.load(gid).record.state)
    everything = [rec for _, rec in service.store.events_after(gid, 0)]
    assert [r["type"] for r in everything] == ["GameCreated", "RoundStarted", *["CardsDealt"] * 3]
    assert [r["seq"] for r in everything] == [1, 2, 3, 4, 5] and service.load(gid).record.event_count == 5
    for seat in range(3):
        seen = service.events(gid, seat, 0, 0)["events"]
        assert [e["type"] for e in seen] == ["GameCreated", "RoundStarted", "CardsDealt"]
        assert seen[-1]["data"] == {"seat": seat, "cards": list(state.hands[seat])}
    assert [e["type"] for e in service.events(gid, None, 0, 0)["events"]] == ["GameCreated", "RoundStarted"]


def test_a_version_is_decoded_once_and_a_changed_document_is_decoded_again(service: GameService) -> None:
    gid, _ = started(service)
    service.play(gid, 0, {"type": "alea_jacta_est"}, None, None)
    remembered = service.recent.get(gid)
    assert remembered is not None and remembered.version == 3
    state = service.state_of(remembered)  # the state the move left: nothing to decode
    assert service.engine.dump(state) == remembered.doc["state"]
    fresh = service.load(gid)  # a read of the same version and document shares it
    assert fresh is not remembered and service.state_of(fresh) is state
    assert service.engine.load(fresh.record.state) == state
    # the same version with another document (a store that lost a write and was written again
    # by another process): decoded from what was read, never the remembered state
    other = fresh.doc | {"state": service.engine.dump(service.engine.apply(state, to_act(service, gid),
                                                                            {"type": "roll"})[0])}
    changed = type(fresh)(fresh.version, other)
    assert service.state_of(changed) is not state
    assert service.engine.dump(service.state_of(changed)) == other["state"]
