"""The use cases of :class:`~ludoteca.service_layer.service.GameService` over a fake repository
(cosmicpython's ``FakeRepository``/``FakeUnitOfWork``): the in-memory store with the Redis
store's semantics, keeping every :class:`~ludoteca.service_layer.repository.UnitOfWork` it was
given, so each test reads what a use case wrote, typed. No infrastructure; the same writes
against Redis: ``test_store_units.py``."""

from __future__ import annotations

import pytest
from ludoteca.core.engine import Event
from ludoteca.core.errors import FieldValidationError, IllegalActionError
from ludoteca.service_layer import registry, timers
from ludoteca.service_layer.events import EventRecord, records
from ludoteca.service_layer.recent import RecentGames
from ludoteca.service_layer.repository import (
    CommitResult,
    Due,
    DueKind,
    DueWork,
    MemoryStore,
    Quota,
    Totals,
    UnitOfWork,
)
from ludoteca.service_layer.seats import SeatKind, parse_known
from ludoteca.service_layer.service import GameService
from ludoteca.service_layer.turns import TurnTimers


class FakeRepository(MemoryStore):
    """The in-memory repository, keeping the units of work written (``created``, ``committed``)."""

    def __init__(self, game: str, clock: Clock | None = None) -> None:
        super().__init__(game, clock=clock or Clock())
        self.created: list[UnitOfWork] = []
        self.committed: list[tuple[UnitOfWork, CommitResult]] = []

    def create(self, work: UnitOfWork) -> bool:
        self.created.append(work)
        return super().create(work)

    def commit(self, work: UnitOfWork) -> CommitResult:
        result = super().commit(work)
        self.committed.append((work, result))
        return result

    def last(self) -> UnitOfWork:
        """The unit of the last commit that landed."""
        return next(work for work, result in reversed(self.committed) if result.status == "ok")


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Dispatches:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str, int | None]] = []

    def bot_turn(self, game: str, game_id: str, version: int) -> None:
        self.calls.append(("bot", game_id, version))

    def record_result(self, game: str, game_id: str) -> None:
        self.calls.append(("result", game_id, None))


def make(game: str = "ludix", clock: Clock | None = None, **collaborators: object
         ) -> tuple[GameService, FakeRepository, Dispatches]:
    clock = clock or Clock()
    repo, dispatches = FakeRepository(game, clock), Dispatches()
    return GameService(registry.game(game), repo, dispatches, clock=clock, **collaborators), repo, dispatches  # type: ignore[arg-type]


def two_humans(service: GameService, options: dict[str, object] | None = None) -> str:
    envelope, _, _ = service.create(["human", "human"], options or {}, 0, "ana")
    service.join(envelope["id"], None, "bo")
    return str(envelope["id"])


def mover(service: GameService, gid: str) -> int:
    return min(service.engine.to_act(service.state_of(service.load(gid))))


# -- the unit of work of each use case -------------------------------------------------------------
def test_a_new_game_is_one_unit_of_version_1_with_typed_events() -> None:
    service, repo, _ = make()
    envelope, _, _ = service.create(["human", "bot:steady"], {}, 0, "ana")
    (work,) = repo.created
    assert work.game_id == envelope["id"] and work.expected_version == 0 and work.log_entry is None
    assert [(e.seq, e.version, e.type, e.audience, e.by) for e in work.events] == [(1, 1, "GameCreated", None, None)]
    assert work.events[0].data == {"seats": ["human", "bot:steady"], "options": envelope_options(envelope, service),
                                   "seed_sha256": envelope["seed_sha256"]}
    assert work.viewers == 3 and len(work.shown) == 1 and work.shown[0].numbers == ((0, 1), (1, 1), (2, 1))
    assert work.due == DueWork(DueKind.NOTHING)  # the human seat is open: nobody acts yet


def envelope_options(envelope: dict[str, object], service: GameService) -> object:
    return service.load(str(envelope["id"])).record.options


def test_a_join_that_starts_the_game_writes_seat_claimed_then_game_started() -> None:
    service, repo, _ = make()
    gid = two_humans(service)
    work = repo.last()
    assert work.expected_version == 1 and work.first_seq == 2
    assert [(e.seq, e.version, e.type, dict(e.data)) for e in work.events] == [
        (2, 2, "SeatClaimed", {"seat": 1, "name": "bo"}), (3, 2, "GameStarted", {})]
    assert service.load(gid).version == 2


def test_a_move_is_one_unit_of_work_with_its_log_entry_idempotency_record_and_quota() -> None:
    service, repo, _ = make()
    gid = two_humans(service)
    seat = mover(service, gid)
    quota = Quota("q", 10, 60, "writes a minute")
    played = service.play(gid, seat, {"type": "alea_jacta_est"}, 2, "key-1", quota=quota)
    work = repo.last()
    assert work.expected_version == 2 and work.quota is quota and quota.spent
    assert work.log_entry == {"version": 3, "seat": seat, "action": {"type": "alea_jacta_est"}}
    assert work.idempotency is not None and (work.idempotency.seat, work.idempotency.key) == (seat, "key-1")
    assert work.idempotency.record["body"] == played.body and work.idempotency.record["version"] == 3
    assert [e.seq for e in work.events] == list(range(4, 4 + len(work.events)))
    assert all(e.version == 3 and e.by is None for e in work.events)
    assert work.doc["event_count"] == 3 + len(work.events)
    assert [e.to_doc() for e in work.events] == [rec for _, rec in repo.events_after(gid, 3)]


def test_a_lost_compare_and_set_is_checked_again_on_the_game_the_store_hands_back() -> None:
    service, repo, _ = make()
    gid = two_humans(service)
    seat = mover(service, gid)
    service.load(gid, recent=True)
    remembered = service.load(gid, recent=True)
    assert remembered.cached and remembered.version == 2
    other = GameService(registry.game("ludix"), repo, Dispatches())  # another process plays first
    other.play(gid, seat, {"type": "alea_jacta_est"}, None, None)
    with pytest.raises(IllegalActionError):  # legal at version 2, not at 3, which the commit handed back
        service.play(gid, seat, {"type": "alea_jacta_est"}, None, None, loaded=remembered)
    work, result = repo.committed[-1]
    assert (work.expected_version, result.status, result.version) == (2, "stale", 3)
    assert repo.load(gid).version == 3 and len(repo.action_log(gid)) == 1


# -- what is due ----------------------------------------------------------------------------------
def test_a_bot_seat_to_act_is_due_and_dispatched_at_the_new_version() -> None:
    service, repo, dispatches = make()
    envelope, _, _ = service.create(["bot:steady", "bot:steady"], {}, None, None)
    gid = envelope["id"]
    assert repo.created[0].due == DueWork(DueKind.BOT) and ("bot", gid, 1) in dispatches.calls
    _, due = repo.due(gid)
    assert due == Due(DueKind.BOT, 1, due.since_ms if due else 0)
    assert service.bot_turn(gid, 1) == "played"
    assert repo.last().due.kind is DueKind.BOT and ("bot", gid, 2) in dispatches.calls


def test_the_end_makes_the_result_due_once_and_recording_it_clears_it() -> None:
    service, repo, dispatches = make()
    envelope, _, _ = service.create(["bot:steady", "bot:steady"], {}, None, None)
    gid = envelope["id"]
    version = 1
    while service.bot_turn(gid, version) == "played":
        version += 1
    assert repo.last().due == DueWork(DueKind.RESULT) and ("result", gid, None) in dispatches.calls
    assert repo.due(gid)[1] is not None
    assert service.record_result(gid) and repo.due(gid)[1] is None
    totals = service.stats()
    assert isinstance(totals, Totals) and totals.games == 1 and sum(totals.seat_wins.values()) >= 1
    assert totals.to_body()["games"] == 1
    assert service.leaderboard(10)[0]["player"] == "bot:steady"  # both seats: one name, two games played
    assert service.leaderboard(10)[0]["played"] == 2


def test_a_timed_turn_is_due_at_its_deadline_and_dispatched_only_after_it() -> None:
    clock = Clock()
    service, repo, dispatches = make(clock=clock)
    gid = two_humans(service, {"turn_seconds": 30})
    due = repo.last().due
    assert due == DueWork(DueKind.TURN, int((clock.now + 30) * 1000)) and not due.ready(clock)
    assert not any(call[0] == "bot" for call in dispatches.calls)
    assert service.bot_turn(gid, 2) == "early"
    clock.now += 31
    assert due.ready(clock) and service.bot_turn(gid, 2) == "timed-out"
    work = repo.last()
    assert work.events[0].type == timers.TIMED_OUT and all(e.by == "timeout" for e in work.events)
    assert work.events[0].data["bot"] == registry.game("ludix").basic_bot


# -- collaborators the service is given -------------------------------------------------------------
def test_the_remembered_games_are_the_ones_the_service_is_given() -> None:
    shared = RecentGames()
    here, repo, _ = make(recent=shared)
    there = GameService(registry.game("ludix"), repo, Dispatches(), recent=shared)
    gid = two_humans(here)
    here.play(gid, mover(here, gid), {"type": "alea_jacta_est"}, None, None)
    known = there.load(gid, recent=True)
    assert known.cached and known.version == 3  # written by `here`, remembered for both
    forgetful, _, _ = make(recent=RecentGames(size=0))
    gid2 = two_humans(forgetful)
    forgetful.play(gid2, mover(forgetful, gid2), {"type": "alea_jacta_est"}, None, None)
    assert not forgetful.load(gid2, recent=True).cached


def test_the_turn_clock_is_the_timers_one() -> None:
    service_clock, timer_clock = Clock(1_000_000.0), Clock(2_000_000.0)
    definition = registry.game("ludix")
    service, repo, _ = make(clock=service_clock, turn_timers=TurnTimers(definition, timer_clock))
    two_humans(service, {"turn_seconds": 30})
    assert repo.last().due.at_ms == int((timer_clock.now + 30) * 1000)


# -- the typed parts ------------------------------------------------------------------------------
def test_seat_kinds_are_parsed_once_and_unknown_ones_refused() -> None:
    assert SeatKind.parse("human") == SeatKind() and SeatKind.parse("bot:steady").level == "steady"
    assert SeatKind.parse("bot:steady").text == "bot:steady" and SeatKind().text == "human"
    with pytest.raises(ValueError):
        SeatKind.parse("robot")
    assert parse_known("bot:nope", {"steady"}) is None and parse_known("bot:steady", {"steady"}) is not None
    service, repo, _ = make()
    with pytest.raises(FieldValidationError) as err:
        service.create(["human", "bot:nope"], {}, 0, None)
    assert "1" in err.value.extra["errors"]["seats"] and not repo.created
    envelope, _, _ = service.create(["human", "bot:steady"], {}, 0, None)
    record = service.load(envelope["id"]).record
    assert record.kinds == (SeatKind(), SeatKind("steady")) and record.level(1) == "steady" and record.level(0) is None


def test_event_records_are_numbered_from_the_first_with_sorted_audiences() -> None:
    written = records(7, 4, [Event("A", {"x": 1}), Event("B", {}, frozenset({2, 0}))], by="timeout")
    assert written == [EventRecord(7, 4, "A", {"x": 1}, None, "timeout"), EventRecord(8, 4, "B", {}, (0, 2), "timeout")]
    assert written[1].to_doc() == {"seq": 8, "version": 4, "type": "B", "data": {}, "audience": [0, 2], "by": "timeout"}
    assert written[1].told() == {"version": 4, "type": "B", "data": {}, "by": "timeout"}
    assert "by" not in records(1, 1, [Event("C")])[0].to_doc()


def test_stored_due_tags_parse_to_typed_due_work() -> None:
    assert Due.from_tag("bot:7", 9, 5) == Due(DueKind.BOT, 7, 5)
    assert Due.from_tag("result", 9, 5) == Due(DueKind.RESULT, 9, 5)
    assert DueKind.TURN.per_version and not DueKind.RESULT.per_version and not DueWork()
    assert Totals.from_counters({"games": 3, "seat_wins:0": 2, "seat_wins:1": 1}) == Totals(3, 0, {"0": 2, "1": 1})
