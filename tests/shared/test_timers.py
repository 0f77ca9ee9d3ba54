"""Turn timers (:mod:`ludoteca.service_layer.timers`) in the service layer over the in-memory store, with a clock
the tests move: the deadline rules, the timeout bot's move and a human move that lost its race
with it. The same with the real worker and sweeper: tests/integration/test_turn_timers.py."""

from __future__ import annotations

import pytest
from ludoteca.core.errors import StaleVersionError, TurnTimedOutError
from ludoteca.service_layer import registry, timers
from ludoteca.service_layer.repository import MemoryStore
from ludoteca.service_layer.service import GameService


class Recorder:
    def __init__(self) -> None:
        self.bot_turns: list[int] = []

    def bot_turn(self, game: str, game_id: str, version: int) -> None:
        self.bot_turns.append(version)

    def record_result(self, game: str, game_id: str) -> None:
        pass


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture()
def clock() -> Clock:
    return Clock()


def service(game: str, clock: Clock) -> tuple[GameService, Recorder]:
    recorder = Recorder()
    return GameService(registry.game(game), MemoryStore(game, clock=clock), recorder, clock=clock), recorder


class TestAdvance:
    @pytest.mark.parametrize(("actor", "before", "after", "kept"), [
        (0, {0}, {0}, False),       # a seat that acts again (Ludix's rolls): a new deadline
        (0, {0}, {1}, False),       # the turn passes: a new deadline
        (0, {0, 1}, {1}, True),     # a simultaneous phase: the seat still waiting keeps its deadline
        (None, {0}, {0}, False),    # a join or the creation: a new one
        (2, {0, 1}, {0, 1, 2}, False),  # a seat that was not waiting comes in: a new one
    ])
    def test_when_a_deadline_is_kept(self, actor: int | None, before: set[int], after: set[int], kept: bool) -> None:
        clock = timers.TurnClock(100.0, tuple(sorted(before)))
        new = timers.advance(clock, 30, actor, frozenset(after), 150.0)
        assert new.deadline == (100.0 if kept else 180.0) and new.seats == tuple(sorted(after))

    def test_nobody_waiting_has_no_deadline_and_timeouts_are_remembered(self) -> None:
        new = timers.advance(timers.TurnClock(100.0, (0,)), 30, 0, frozenset(), 150.0, timed_out_version=7)
        assert new.deadline is None and new.seats == () and new.timed_out == {0: 7}
        assert new.is_overtaken(0, 6) and not new.is_overtaken(0, 7) and not new.is_overtaken(1, 0)
        assert timers.TurnClock.from_doc(new.to_doc()) == new

    def test_each_seats_moves_and_timeouts_are_counted(self) -> None:
        """What a rating reads (:func:`ludoteca.service_layer.ratings.forfeit_seats`): every move
        of a seat counts in its ``moves``, a timeout move in its ``timeouts`` too; a join or the
        creation (no actor) counts for nobody."""
        clock = timers.advance(None, 30, None, frozenset({0}), 100.0)
        for actor, version in [(0, None), (1, 3), (0, 4), (0, None), (None, None)]:
            clock = timers.advance(clock, 30, actor, frozenset({0, 1}), 100.0, version)
        assert clock.moves == {0: 3, 1: 1} and clock.timeouts == {0: 1, 1: 1} and clock.timed_out == {0: 4, 1: 3}
        assert timers.TurnClock.from_doc(clock.to_doc()) == clock

    def test_a_clock_stored_before_the_counts_loads_with_none(self) -> None:
        old = {"deadline": 100.0, "seats": [1], "timed_out": {"0": 4}}
        clock = timers.TurnClock.from_doc(old)
        assert clock == timers.TurnClock(100.0, (1,), {0: 4}) and clock.moves == clock.timeouts == {}
        assert timers.advance(clock, 30, 0, frozenset({1}), 100.0, 9).timeouts == {0: 1}  # counting from here


def test_a_game_without_the_option_has_no_timer(clock: Clock) -> None:
    svc, _ = service("ludix", clock)
    envelope, _, _ = svc.create(["human", "human"], {}, 0, None)
    assert envelope["timer"] is None
    assert "timer" not in svc.store.load(envelope["id"]).doc  # untimed documents are unchanged
    assert svc.store.due(envelope["id"])[1] is None


def test_an_idle_turn_is_played_once_by_the_timeout_bot_after_the_deadline(clock: Clock) -> None:
    svc, recorder = service("ludix", clock)
    envelope, _, _ = svc.create(["human", "human"], {"turn_seconds": 30}, 0, None)
    gid = envelope["id"]
    svc.join(gid, None, None)
    stored = svc.store.load(gid)
    version, due = svc.store.due(gid)
    assert due is not None and due.kind == "turn" and due.version == version == stored.version
    assert due.since_ms == int((clock.now + 30) * 1000)
    deadline = clock.now + 30
    timer = svc.envelope(stored, None)["timer"]
    assert timer == {"turn_seconds": 30, "bot": "steady", "seats": [0, 1], "deadline": timers.iso(deadline),
                     "seconds_left": 30.0}
    clock.now += 29.9
    assert svc.bot_turn(gid, version) == "early"
    clock.now += 0.2
    assert svc.bot_turn(gid, version) == "timed-out"
    assert svc.bot_turn(gid, version) == "stale"  # a second dispatch of the same turn does nothing
    events = [e for _, e in svc.store.events_after(gid, 0) if e["version"] == version + 1]
    assert events[0]["type"] == "TurnTimedOut" and events[0]["data"] == {
        "seat": 0, "bot": "steady", "deadline": timers.iso(deadline)}
    assert all(e["by"] == "timeout" for e in events)
    assert [entry["version"] for entry in svc.store.action_log(gid)] == [version + 1]
    # seat 0 called "alea jacta est": its turn, and its own new deadline
    after = svc.store.load(gid)
    assert after.record.timer is not None and after.record.timer.deadline == pytest.approx(clock.now + 30)
    assert recorder.bot_turns == []  # nothing dispatched before a deadline: the sweeper does it then


def test_a_human_move_that_raced_the_timeout_is_refused_not_applied_on_top(clock: Clock) -> None:
    svc, _ = service("ludix", clock)
    envelope, _, _ = svc.create(["human", "human"], {"turn_seconds": 10}, 0, None)
    gid = envelope["id"]
    svc.join(gid, None, None)
    read_by_the_human = svc.store.load(gid)  # the human's request has read the game ...
    clock.now += 11
    assert svc.bot_turn(gid, read_by_the_human.version) == "timed-out"  # ... and the timeout commits first
    call = {"type": "alea_jacta_est"}  # legal where the human read the game (the bot called since)
    with pytest.raises(TurnTimedOutError):
        svc.play(gid, 0, call, None, None, loaded=read_by_the_human)
    with pytest.raises(StaleVersionError):  # with If-Match: the usual 412
        svc.play(gid, 0, call, read_by_the_human.version, None, loaded=read_by_the_human)
    # a move that reads the game after the timeout is a move like any other
    played = svc.play(gid, 0, {"type": "roll"}, None, None)
    assert played.version == read_by_the_human.version + 2
    # and one from a process that remembered the game from before is read afresh, not refused
    stale_memory = read_by_the_human.__class__(read_by_the_human.version, read_by_the_human.doc, cached=True)
    # (the roll above may have busted: the seat to act now plays; a seat's memory is the same game)
    now = svc.store.load(gid)
    seat = svc.envelope(now, None)["to_act"][0]
    action = {"type": "hold"} if svc.envelope(now, seat)["state"]["throw"] else {"type": "roll"}
    assert svc.play(gid, seat, action, None, None, loaded=stale_memory).version == now.version + 1


def test_a_simultaneous_phase_times_out_seat_after_seat_on_one_deadline(clock: Clock) -> None:
    """Ludix's call: both seats wait; the timeout plays seat 0, seat 1 is no longer to act (the
    first call starts): nothing more is due. Speculation's sealed reports: both wait, the first
    timeout plays seat 0, and seat 1's deadline, already past, is dispatched at once."""
    svc, recorder = service("speculation", clock)
    envelope, _, _ = svc.create(["human", "human"], {"turn_seconds": 10}, 0, None)
    gid = envelope["id"]
    svc.join(gid, None, None)
    version, due = svc.store.due(gid)
    assert due is not None and due.kind == "turn"
    assert svc.store.load(gid).record.timer.seats == (0, 1)  # type: ignore[union-attr]
    clock.now += 10
    assert svc.bot_turn(gid, version) == "timed-out"
    assert recorder.bot_turns == [version + 1]  # seat 1 still waits, on the same (past) deadline
    assert svc.bot_turn(gid, version + 1) == "timed-out"
    timed_out = [e["data"]["seat"] for _, e in svc.store.events_after(gid, 0) if e["type"] == "TurnTimedOut"]
    assert timed_out == [0, 1]


def test_the_clock_in_the_stored_record_counts_the_timeout_moves(clock: Clock) -> None:
    """The counts travel in the game's record: each move of a seat that was a choice (more than one
    legal action), and the timeout's among them; a forced move counts for nobody."""
    svc, _ = service("ludix", clock)
    envelope, _, _ = svc.create(["human", "human"], {"turn_seconds": 10}, 0, None)
    gid = envelope["id"]
    svc.join(gid, None, None)
    chosen: list[tuple[int, bool]] = []  # each timed-out move: its seat, and whether it was a choice
    # the call phase, then the turns: whoever waits, the timeout plays, until both kinds were played
    while len(chosen) < 4 or len({c for _, c in chosen}) < 2:
        assert len(chosen) < 60, chosen
        stored = svc.store.load(gid)
        state = svc.engine.load(stored.record.state)
        seat = svc.turn_timers.waiting_seat(stored.record, svc.engine.to_act(state))
        assert seat is not None
        chosen.append((seat, len(svc.engine.legal_actions(state, seat)) > 1))
        clock.now += 10
        assert svc.bot_turn(gid, stored.version) == "timed-out"
    now = svc.store.load(gid)
    seat = svc.envelope(now, None)["to_act"][0]
    own = len(svc.engine.legal_actions(svc.engine.load(now.record.state), seat)) > 1
    action = {"type": "hold"} if svc.envelope(now, seat)["state"]["throw"] else {"type": "roll"}
    svc.play(gid, seat, action, None, None)  # and one move of the seat's own
    counted = svc.store.load(gid).record.timer
    timed_out = [e["data"]["seat"] for _, e in svc.store.events_after(gid, 0) if e["type"] == "TurnTimedOut"]
    assert counted is not None and timed_out == [s for s, _ in chosen]
    assert any(c for _, c in chosen) and not all(c for _, c in chosen)  # both kinds were played
    by_seat = {s: sum(c for t, c in chosen if t == s) for s in {*timed_out, seat}}
    assert {s: n for s, n in counted.timeouts.items() if n} == {s: n for s, n in by_seat.items() if n}
    assert {s: n for s, n in counted.moves.items() if n} == {
        s: n for s, n in {s: by_seat[s] + (s == seat and own) for s in by_seat}.items() if n}


def test_a_forced_move_is_no_move_in_the_count(clock: Clock) -> None:
    """Pig's first roll of a turn is the only legal action: a player who makes those and leaves
    every decision (roll again or hold) to the timeout bot has made no move of its own in the
    count (a forfeit, :func:`ludoteca.service_layer.ratings.forfeit_seats`); counting every action,
    the forced rolls made half the seat's moves, and exactly half is not a forfeit."""
    svc, _ = service("pig", clock)
    envelope, _, _ = svc.create(["human", "human"], {"turn_seconds": 10, "target": 100}, 0, None)
    gid = envelope["id"]
    svc.join(gid, None, None)
    stored = svc.store.load(gid)
    state = svc.engine.load(stored.record.state)
    seat = min(svc.engine.to_act(state))
    assert svc.engine.legal_actions(state, seat) == [{"type": "roll"}]
    svc.play(gid, seat, {"type": "roll"}, None, None)
    counted = svc.store.load(gid).record.timer
    assert counted is not None and counted.moves.get(seat, 0) == 0
