"""Ratings (issue 23, item 6): finishing places from a game's result, OpenSkill's update for the
seats bound to players only, and a finished game's ratings applied exactly once against the real
Redis, whether its task runs twice or dies half way."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from ludoteca.adapters.players import PlayerStore, Ratings
from ludoteca.core.engine import GameResult
from ludoteca.service_layer.ratings import MODEL, TIMEOUT_FORFEIT_SHARE, Rating, forfeit_seats, places, rate
from ludoteca.service_layer.record import GameRecord, Status
from ludoteca.service_layer.service import GameService
from ludoteca.service_layer.timers import TurnClock
from redis.commands.core import Script
from redis.crc import key_slot


class Crash(Exception):
    """A process dying at this point (raised by a fault hook)."""


def result(winners: tuple[int, ...], scores: tuple[float, ...]) -> GameResult:
    return GameResult(winners=winners, scores=scores)


@pytest.fixture
def store(redis_client: redis.Redis) -> PlayerStore:
    return PlayerStore(redis_client)


def guest(store: PlayerStore, name: str = "p") -> str:
    return store.create_guest(name)[0].id


class TestPlaces:
    @pytest.mark.parametrize(("res", "seats", "expected"), [
        (result((0,), (10, 5)), 2, [1, 2]),
        (result((1,), (5, 10, 7)), 3, [3, 1, 2]),  # the losers by score
        (result((0, 2), (3, 1, 3, 2)), 4, [1, 3, 1, 2]),  # a shared win
        (result((3,), (4, 4, 1, 9)), 4, [2, 2, 3, 1]),  # equal scores share a place
        (result((), (1, 2)), 2, [2, 1]),  # no winner: by score alone
        (result((0,), ()), 3, [1, 2, 2]),  # no scores: the rest share second
    ])
    def test_places(self, res: GameResult, seats: int, expected: list[int]) -> None:
        assert places(res, seats) == expected

    @pytest.mark.parametrize(("res", "forfeits", "expected"), [
        (result((0,), (10, 5, 3)), {0}, [3, 1, 2]),  # a winning bot in a left seat: last, the best who stayed first
        (result((1,), (5, 10, 7)), {2}, [2, 1, 3]),
        (result((0, 2), (3, 1, 3, 2)), {0, 1}, [3, 3, 1, 2]),  # the forfeits share the last place
        (result((0,), (9, 1)), {0, 1}, [1, 1]),  # every seat left: one place for all
    ])
    def test_a_seat_its_player_left_is_placed_last(self, res: GameResult, forfeits: set[int],
                                                  expected: list[int]) -> None:
        assert places(res, len(expected), forfeits) == expected


def finished(players: tuple[str, ...], player_ids: tuple[str | None, ...], clock: TurnClock | None) -> GameRecord:
    """A finished game's record with these seats, bound players and turn clock."""
    n = len(players)
    return GameRecord(id="g", players=players, names=("n",) * n, token_hashes=("h",) * n, options={}, seed="s",
                      seed_sha256="c", created_at=0.0, event_count=0, status=Status.FINISHED, state={},
                      timer=clock, player_ids=player_ids)


class TestForfeits:
    """Seat 0 won (its bot did) after making ``moves`` moves, ``timeouts`` of them played by the
    table's timeout bot: over :data:`TIMEOUT_FORFEIT_SHARE` (a half) it is placed last; at the
    share or under (a slow turn now and then), on its place."""

    @pytest.mark.parametrize(("moves", "timeouts", "forfeit"), [
        (10, 10, True), (10, 6, True), (3, 2, True), (1, 1, True),  # the bot played most of the seat's moves
        (10, 5, False), (2, 1, False),  # exactly half: rated on its place
        (10, 1, False), (10, 0, False), (0, 0, False),  # a slow turn; none
    ])
    def test_a_seat_the_timeout_bot_played_mostly_is_placed_last(self, moves: int, timeouts: int,
                                                                  forfeit: bool) -> None:
        assert Fraction(1, 2) == TIMEOUT_FORFEIT_SHARE  # the cases below are of a half
        clock = TurnClock(moves={0: moves, 1: 9}, timeouts={0: timeouts})
        record = finished(("human", "human"), ("a", "b"), clock)
        won = result((0,), (100, 40))
        assert forfeit_seats(record) == ([0] if forfeit else [])
        assert places(won, 2, forfeit_seats(record)) == ([2, 1] if forfeit else [1, 2])
        a, b = rate([Rating(), Rating()], won, forfeit_seats(record))
        assert a is not None and b is not None and (a.mu < MODEL.mu < b.mu) == forfeit

    def test_only_seats_bound_to_players_forfeit_and_leaving_still_does(self) -> None:
        clock = TurnClock(moves={0: 4, 1: 4, 2: 4}, timeouts={0: 4, 1: 4})
        # seat 1 a guest without a player (no rating of its own); seat 2 left by its player, never timed out
        record = finished(("human", "human", "bot:hold20"), ("a", None, "c"), clock)
        assert forfeit_seats(record) == [0, 2]
        assert forfeit_seats(replace(record, timer=None)) == [2]  # an untimed game: the leavers only


class TestRate:
    def test_the_winner_gains_the_loser_loses_and_both_are_surer(self) -> None:
        won, lost = rate([Rating(), Rating()], result((0,), (1, 0)))
        assert won is not None and lost is not None
        assert won.mu > MODEL.mu > lost.mu and won.played == lost.played == 1
        assert won.sigma < MODEL.sigma and lost.sigma < MODEL.sigma

    def test_unrated_seats_stay_unrated_and_still_count(self) -> None:
        alone = rate([Rating(), None], result((0,), (1, 0)))
        assert alone[1] is None and alone[0] is not None and alone[0].mu > MODEL.mu
        # beating three seats moves a rating further than beating one
        crowd = rate([Rating(), None, None, None], result((0,), (4, 1, 2, 3)))
        assert crowd[0] is not None and crowd[0].mu > alone[0].mu

    def test_shared_winners_of_equal_ratings_move_alike(self) -> None:
        a, b, c = rate([Rating(), Rating(), Rating()], result((0, 1), (5, 5, 0)))
        assert a == b and a is not None and c is not None and a.mu > c.mu

    def test_an_upset_moves_more_than_the_expected(self) -> None:
        strong, weak = Rating(35.0, 3.0), Rating(15.0, 3.0)
        expected = rate([strong, weak], result((0,), (1, 0)))[0]
        upset = rate([strong, weak], result((1,), (0, 1)))[0]
        assert expected is not None and upset is not None
        assert strong.mu - upset.mu > expected.mu - strong.mu > 0


class TestSettle:
    def test_a_game_is_rated_once_however_often_its_task_runs(self, store: PlayerStore) -> None:
        ratings = Ratings(store)
        a, b = guest(store), guest(store)
        game_id = secrets.token_hex(8)
        res = result((0,), (10, 3))
        assert ratings.settle("pig", game_id, [a, b, None], res) == 2
        first = (store.rating(a, "pig"), store.rating(b, "pig"))
        assert ratings.settle("pig", game_id, [a, b, None], res) == 0
        assert (store.rating(a, "pig"), store.rating(b, "pig")) == first
        assert first[0].played == first[1].played == 1
        assert first[0].mu > first[1].mu > MODEL.mu  # b, second of three, beat the unrated third seat

    def test_a_task_killed_half_way_is_finished_once_by_the_next(self, store: PlayerStore,
                                                                  redis_client: redis.Redis) -> None:
        a, b = guest(store), guest(store)
        game_id = secrets.token_hex(8)
        res = result((1,), (2, 9))
        # the reference: the same priors settled in one go on two other players
        ref_a, ref_b = guest(store), guest(store)
        Ratings(store).settle("pig", secrets.token_hex(8), [ref_a, ref_b], res)

        def die() -> None:
            raise Crash

        dying = PlayerStore(_AtTheBoard(redis_client, "pig", a, die))  # type: ignore[arg-type]
        with pytest.raises(Crash):  # dies after the first player's rating moved, before the board
            Ratings(dying).settle("pig", game_id, [a, b], res)
        assert store.rating(a, "pig").played == 1 and store.rating(b, "pig").played == 0
        assert Ratings(store).settle("pig", game_id, [a, b], res) == 1  # the rest, once
        assert store.rating(a, "pig") == store.rating(ref_a, "pig")
        assert store.rating(b, "pig") == store.rating(ref_b, "pig")
        board = dict(Ratings(store).leaderboard("pig", 10_000))
        assert board[a] == pytest.approx(store.rating(a, "pig").ordinal)

    def test_two_games_of_one_player_settled_together_both_count(self, store: PlayerStore) -> None:
        ratings = Ratings(store)
        a, b, c = guest(store), guest(store), guest(store)
        g1, g2 = secrets.token_hex(8), secrets.token_hex(8)
        won = result((0,), (1, 0))
        # both games' changes worked out from a's rating before either is applied
        ratings._changes("pig", g1, [a, b], won)
        ratings._changes("pig", g2, [a, c], won)
        ratings.settle("pig", g1, [a, b], won)
        ratings.settle("pig", g2, [a, c], won)
        after = store.rating(a, "pig")
        single = rate([Rating(), Rating()], won)[0]
        assert single is not None
        assert after.played == 2 and after.mu == pytest.approx(MODEL.mu + 2 * (single.mu - MODEL.mu))

    def test_the_board_shows_the_newest_rating_whatever_order_its_writes_come_in(
            self, store: PlayerStore, redis_client: redis.Redis) -> None:
        """Two games of one player settled at once (two workers): the first's rating of ``a``
        moves, the second settles whole, then the first writes ``a``'s board place, an older
        rating than the second's. The board shows ``a``'s rating now (it showed the first game's
        older rating, until ``a``'s next game)."""
        a, b, c = guest(store), guest(store), guest(store)
        g1, g2 = secrets.token_hex(8), secrets.token_hex(8)
        won = result((0,), (1, 0))
        Ratings(store)._changes("pig", g1, [a, b], won)  # both changes from a's rating before either
        Ratings(store)._changes("pig", g2, [a, c], won)

        def second() -> None:
            assert Ratings(store).settle("pig", g2, [a, c], won) == 2

        first = PlayerStore(_AtTheBoard(redis_client, "pig", a, second))  # type: ignore[arg-type]
        assert Ratings(first).settle("pig", g1, [a, b], won) == 2
        now = store.rating(a, "pig")
        assert now.played == 2
        assert dict(Ratings(store).leaderboard("pig", 100_000))[a] == pytest.approx(now.ordinal)
        # and again in the order things mostly come: the newest last
        Ratings(store).settle("pig", secrets.token_hex(8), [c, a], won)
        assert dict(Ratings(store).leaderboard("pig", 100_000))[a] == pytest.approx(store.rating(a, "pig").ordinal)

    def test_a_rating_made_again_after_its_keys_expired_still_reaches_the_board(
            self, store: PlayerStore, redis_client: redis.Redis) -> None:
        """The board's stamps only grow, across a player's keys expiring too (its ``played``
        starts again at 1, under what the board shows for it)."""
        a, b = guest(store), guest(store)
        won, lost = result((0,), (1, 0)), result((1,), (0, 1))
        for _ in range(3):
            Ratings(store).settle("pig", secrets.token_hex(8), [a, b], won)
        redis_client.delete(f"players:{{{a}}}:ratings", f"players:{{{a}}}:rated")  # a's rating expired
        Ratings(store).settle("pig", secrets.token_hex(8), [a, b], lost)
        again = store.rating(a, "pig")
        assert again.played == 1
        assert dict(Ratings(store).leaderboard("pig", 100_000))[a] == pytest.approx(again.ordinal)

    def test_the_board_and_its_stamps_are_one_slot_bounded_and_expire(
            self, store: PlayerStore, redis_client: redis.Redis) -> None:
        a, b = guest(store), guest(store)
        Ratings(store).settle("pig", secrets.token_hex(8), [a, b], result((0,), (1, 0)))
        board, stamps = Ratings.board("pig"), Ratings.stamps("pig")
        assert key_slot(board.encode()) == key_slot(stamps.encode())  # one script writes both (Redis Cluster)
        assert 0 < redis_client.ttl(board) <= store.ttl and 0 < redis_client.ttl(stamps) <= store.ttl
        assert redis_client.hget(stamps, a) is not None
        Ratings(store).forget("pig", [a])  # a player taken off the board leaves its stamps too
        assert redis_client.zscore(board, a) is None and redis_client.hget(stamps, a) is None
        assert redis_client.zscore(board, b) is not None and redis_client.hget(stamps, b) is not None

    def test_a_game_of_guests_and_bots_only_rates_nobody(self, store: PlayerStore) -> None:
        assert Ratings(store).settle("pig", secrets.token_hex(8), [None, None], result((0,), (1, 0))) == 0


def test_the_profile_and_leaderboard_show_the_ratings(players_client: FlaskClient, store: PlayerStore) -> None:
    a = players_client.post("/", json={"name": "Winner"}).get_json()["player"]["id"]
    b = players_client.post("/", json={"name": "Loser"}).get_json()["player"]["id"]
    Ratings(store).settle("ludix", secrets.token_hex(8), [b, a], result((1,), (0, 1)))
    shown = players_client.get(f"/{a}").get_json()["games"]["ludix"]
    rating = store.rating(a, "ludix")
    assert shown == {"played": 1, "rating": {"mu": rating.mu, "sigma": rating.sigma, "ordinal": rating.ordinal}}
    board = [p for p, _ in Ratings(store).leaderboard("ludix", 100_000)]
    assert board.index(a) < board.index(b)


def test_the_leaderboard_reads_its_rows_at_once_and_drops_expired_players(
        pig: FlaskClient, players_client: FlaskClient, store: PlayerStore, redis_client: redis.Redis) -> None:
    """A player whose profile expired is left off the rows and taken off the board (it stayed on
    it for ever, so a top of expired players showed fewer rows than asked, or none)."""
    ids = [players_client.post("/", json={"name": f"Ranked {i}"}).get_json()["player"]["id"] for i in range(3)]
    Ratings(store).settle("pig", secrets.token_hex(8), ids, result((0,), (3, 2, 1)))
    redis_client.delete(f"players:{{{ids[0]}}}:profile")  # the winner's profile expired
    rows = pig.get("/leaderboard", query_string={"limit": 1000}).get_json()["rated"]
    shown = {r["player_id"]: r for r in rows}
    assert ids[0] not in shown and {ids[1], ids[2]} <= set(shown)
    assert shown[ids[1]]["name"] == "Ranked 1" and shown[ids[1]]["played"] == 1
    assert redis_client.zscore(Ratings.board("pig"), ids[0]) is None
    assert redis_client.hget(Ratings.stamps("pig"), ids[0]) is None  # its stamp too: the stamps stay bounded
    assert redis_client.zscore(Ratings.board("pig"), ids[1]) is not None


class _AtTheBoard:
    """A Redis client that calls ``before`` once, just before its first write of ``player`` to
    ``game``'s rated board (a ``ZADD`` of the board, or a script over the board's keys), then acts
    as ``client`` (the scripts registered on it run through it, so their writes are seen)."""

    def __init__(self, client: redis.Redis, game: str, player: str, before: Callable[[], None]) -> None:
        self._client = client
        self._board, self._player, self._before = Ratings.board(game), player, before
        self._done = False

    def register_script(self, script: str) -> Script:
        return Script(self, script)  # type: ignore[arg-type]

    def zadd(self, name: str, mapping: dict[str, float], *args: Any, **kwargs: Any) -> Any:
        self._at([name], mapping)
        return self._client.zadd(name, mapping, *args, **kwargs)

    def evalsha(self, sha: str, numkeys: int, *keys_and_args: Any) -> Any:
        self._at(keys_and_args[:numkeys], keys_and_args[numkeys:])
        return self._client.evalsha(sha, numkeys, *keys_and_args)

    def _at(self, keys: Iterable[Any], values: Iterable[Any]) -> None:
        if not self._done and self._board in keys and self._player in values:
            self._done = True
            self._before()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


def test_a_player_who_leaves_is_rated_as_the_last_whatever_its_bot_did(
        pig: FlaskClient, players_client: FlaskClient, store: PlayerStore) -> None:
    """Leaving before any move, with the strongest bot taking over at a table of weak bots, three
    times: three losses (before, the player was rated on the bot's wins: a rating farmed with two
    requests a game)."""
    made = players_client.post("/", json={"name": "Leaver"}).get_json()
    pid, token = made["player"]["id"], made["token"]
    service = pig.application.extensions["ludoteca"]["service"]
    mine = {"Authorization": f"Bearer {token}"}
    for _ in range(3):
        game = pig.post("/games", json={"seats": ["human", "bot:random"], "options": {"target": 20}},
                        headers=mine).get_json()["game"]
        left = pig.post(f"/games/{game['id']}/leave", json={"bot": "hold20"}, headers=mine)
        assert left.status_code == 200, left.get_json()
        for _ in range(2000):  # the worker's bot turns, played here
            stored = service.load(game["id"])
            if stored.record.status.value == "finished":
                break
            service.bot_turn(game["id"], stored.version)
        assert service.record_result(game["id"])
    rating = store.rating(pid, "pig")
    assert rating.played == 3 and rating.mu < MODEL.mu and rating.ordinal < Rating().ordinal


class _TimedTable:
    """A timed Pig table (``turn_seconds`` 5, the timeout bot ``hold20``) of two new players, A
    (seat 0, its creator) and B (seat 1), on the session's real Redis and Pig's real service (the
    HTTP routes for the players' moves); A's timed-out turns are played by the worker's task body
    (``bot_turn``) of a service over the same store whose clock the test moves past each deadline,
    as the sweeper dispatches it once a deadline has passed."""

    def __init__(self, pig: FlaskClient, players: FlaskClient, target: int) -> None:
        self.pig, self.ids, self.auth = pig, [], []
        for name in ("A", "B"):
            made = players.post("/", json={"name": name}).get_json()
            self.ids.append(made["player"]["id"])
            self.auth.append({"Authorization": f"Bearer {made['token']}"})
        created = pig.post("/games", json={"seats": ["human", "human"], "options": {
            "target": target, "turn_seconds": 5, "timeout_bot": "hold20"}}, headers=self.auth[0])
        assert created.status_code == 201 and created.get_json()["seat"] == 0, created.get_json()
        self.gid = created.get_json()["game"]["id"]
        assert pig.post(f"/games/{self.gid}/players", json={}, headers=self.auth[1]).status_code == 201
        self.service: GameService = pig.application.extensions["ludoteca"]["service"]
        self.ahead = 0.0
        self.later = GameService(self.service.d, self.service.store, self.service.dispatcher,
                                 clock=lambda: time.time() + self.ahead, players=self.service.players)

    def play(self, move: Callable[[int, dict[str, Any]], str | None]) -> GameResult:
        """Play to the end: ``move(seat, view)`` names the seat's action, or ``None``: the seat
        does not move and its turn times out. The game's result."""
        for _ in range(3000):
            view = self.pig.get(f"/games/{self.gid}").get_json()
            if view["status"] == "finished":
                return GameResult(tuple(view["result"]["winners"]), tuple(view["result"]["scores"]))
            seat = view["to_act"][0]
            action = move(seat, view)
            if action is None:
                self.ahead += 10  # past the deadline
                assert self.later.bot_turn(self.gid, view["version"]) == "timed-out"
            else:
                played = self.pig.post(f"/games/{self.gid}/actions", json={"type": action}, headers=self.auth[seat])
                assert played.status_code == 200, played.get_json()
        raise AssertionError(f"pig game {self.gid} did not end")

    def clock(self) -> TurnClock:
        clock = self.service.load(self.gid).record.timer
        assert clock is not None
        return clock


def test_a_player_whose_timed_turns_the_bot_played_is_rated_as_the_last_though_the_bot_won(
        pig: FlaskClient, players_client: FlaskClient, store: PlayerStore) -> None:
    """A never moves at its timed table; the timeout bot (``hold20``) plays every move of A's seat
    and wins (B rolls until a 1 ends its turn: it never banks a point; to 30, the bot, holding at
    20, needs two turns at least: B moves). A is rated last (before, A was rated on the bot's win:
    a rating farmed with no move made)."""
    table = _TimedTable(pig, players_client, target=30)
    res = table.play(lambda seat, view: None if seat == 0 else "roll")
    assert res.winners == (0,)  # the bot won for A
    clock = table.clock()
    # every choice of A's seat was the bot's; B never timed out (B may have made no choice at all:
    # a 1 on a turn's first roll, a forced move, ends its turn before it chose anything)
    assert clock.timeouts[0] == clock.moves[0] > 0 and 1 not in clock.timeouts
    assert table.service.record_result(table.gid)
    a, b = (store.rating(p, "pig") for p in table.ids)
    expected = rate([Rating(), Rating()], res, [0])  # A placed last
    assert a.played == b.played == 1 and a.mu < MODEL.mu < b.mu
    assert [a.mu, b.mu] == pytest.approx([r.mu for r in expected if r is not None])


def test_a_player_with_a_slow_turn_is_rated_on_its_place(
        pig: FlaskClient, players_client: FlaskClient, store: PlayerStore) -> None:
    """A's first choice times out (roll again or hold, after its first roll: a forced move, which
    counts for nobody), A plays every other (a roll, then a hold); B the same without the timeout.
    To 30, a game of at least five turns a winner: A's own choices outnumber the one timed out,
    and both are rated on their places, as a game without a timeout would be."""
    table = _TimedTable(pig, players_client, target=30)
    late = [True]

    def move(seat: int, view: dict[str, Any]) -> str | None:
        if seat == 0 and late[0] and view["state"]["turn_total"]:
            late[0] = False
            return None
        return "hold" if view["state"]["turn_total"] else "roll"

    res = table.play(move)
    clock = table.clock()
    assert clock.timeouts[0] == 1 and clock.moves[0] >= 3 and 1 not in clock.timeouts
    assert table.service.record_result(table.gid)
    a, b = (store.rating(p, "pig") for p in table.ids)
    expected = rate([Rating(), Rating()], res)
    assert [a.mu, b.mu] == pytest.approx([r.mu for r in expected if r is not None])
    winner, loser = (a, b) if res.winners == (0,) else (b, a)
    assert winner.mu > MODEL.mu > loser.mu
