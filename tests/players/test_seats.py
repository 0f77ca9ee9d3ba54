"""Seats bound to players and "my games" (issue 23, items 2, 3 and 6), with real game services
(Pig and Ludix, in process) and the players service over the one real Redis: a player's token
creates and joins games, acts for its seats, shows its name; one seat a player a game; the
player's games listed newest first and paged, agreeing with the games after a service dies
between a game's commit and the player's list; a finished game rated once."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from ludoteca.adapters.players import GameLists, PlayerStore, key
from ludoteca.adapters.store import GameStore
from ludoteca.service_layer.mygames import PlayerRef

PROBLEM = "application/problem+json"


class Crash(Exception):
    """The service's process dying at this point."""


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_player(players: FlaskClient, name: str) -> tuple[str, str]:
    made = players.post("/", json={"name": name}).get_json()
    return made["player"]["id"], made["token"]


def create(game: FlaskClient, token: str | None, seats: list[str] | None = None, **body: Any) -> dict[str, Any]:
    resp = game.post("/games", json={"seats": seats or ["human", "human"], **body},
                     headers=bearer(token) if token else {})
    assert resp.status_code == 201, resp.get_json()
    made: dict[str, Any] = resp.get_json()
    return made


def my_games(players: FlaskClient, token: str, **query: Any) -> dict[str, Any]:
    resp = players.get("/me/games", query_string=query, headers=bearer(token))
    assert resp.status_code == 200, resp.get_json()
    found: dict[str, Any] = resp.get_json()
    return found


def service_of(game: FlaskClient) -> Any:
    return game.application.extensions["ludoteca"]["service"]


class TestBinding:
    def test_a_players_token_creates_joins_and_acts_for_its_seats(self, pig: FlaskClient,
                                                                   players_client: FlaskClient) -> None:
        ada, ada_token = new_player(players_client, "Ada")
        bob, bob_token = new_player(players_client, "Bob")
        made = create(pig, ada_token, name="ignored: the player's name is shown")
        game_id, seat_token = made["game"]["id"], made["token"]
        assert made["seat"] == 0 and made["game"]["seats"][0]["name"] == "Ada"
        joined = pig.post(f"/games/{game_id}/players", json={"name": "x"}, headers=bearer(bob_token))
        assert joined.status_code == 201 and joined.get_json()["seat"] == 1
        view = pig.get(f"/games/{game_id}", headers=bearer(ada_token)).get_json()
        assert view["you"] == 0 and [s["name"] for s in view["seats"]] == ["Ada", "Bob"]
        assert pig.get(f"/games/{game_id}", headers=bearer(bob_token)).get_json()["you"] == 1
        # the player's token plays the seat; the seat token keeps working beside it
        first = view["to_act"][0]  # Pig draws who starts
        rolled = pig.post(f"/games/{game_id}/actions", json={"type": "roll"},
                          headers=bearer((ada_token, bob_token)[first]))
        assert rolled.status_code == 200, rolled.get_json()
        listed = pig.get(f"/games/{game_id}/actions", headers=bearer(seat_token))
        assert listed.status_code == 200 and listed.get_json() == pig.get(
            f"/games/{game_id}/actions", headers=bearer(ada_token)).get_json()
        stored = GameStore(pig.application.extensions["ludoteca"]["service"].store.r, "pig", 60, 60).load(game_id)
        assert stored.record.player_ids == (ada, bob)
        client = service_of(pig).store.r
        client.expire(key(ada, "profile"), 100)  # a player who plays is kept: binding refreshes its record
        pig.post("/games", json={"seats": ["human", "human"]}, headers=bearer(ada_token))
        assert client.ttl(key(ada, "profile")) > 100

    def test_one_seat_a_player(self, pig: FlaskClient, players_client: FlaskClient) -> None:
        _, token = new_player(players_client, "Cy")
        game_id = create(pig, token, ["human", "human", "human"])["game"]["id"]
        again = pig.post(f"/games/{game_id}/players", json={}, headers=bearer(token))
        assert again.status_code == 409 and again.mimetype == PROBLEM and again.get_json()["seat"] == 0
        assert pig.get(f"/games/{game_id}").get_json()["seats"][1]["name"] is None  # nothing claimed

    def test_a_player_with_no_seat_here_is_refused(self, pig: FlaskClient, players_client: FlaskClient) -> None:
        _, owner = new_player(players_client, "Di")
        _, stranger = new_player(players_client, "Ed")
        game_id = create(pig, owner)["game"]["id"]
        for resp in (pig.get(f"/games/{game_id}/actions", headers=bearer(stranger)),
                     pig.post(f"/games/{game_id}/actions", json={"type": "roll"}, headers=bearer(stranger))):
            assert resp.status_code == 401 and resp.mimetype == PROBLEM

    def test_a_bad_players_token_creates_nothing(self, pig: FlaskClient, players_client: FlaskClient) -> None:
        _, token = new_player(players_client, "Flo")
        forged = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
        for resp in (pig.post("/games", json={"seats": ["human", "human"]}, headers=bearer(forged)),
                     pig.post("/games", json={"seats": ["human", "human"]}, headers=bearer(f"{'0' * 32}.x"))):
            assert resp.status_code == 401 and resp.mimetype == PROBLEM

    def test_a_seat_token_sent_when_creating_binds_nothing(self, pig: FlaskClient) -> None:
        seat_token = create(pig, None)["token"]
        made = create(pig, seat_token)
        assert made["game"]["seats"][0]["name"] == "seat 0"

    def test_a_providers_jwt_binds_as_a_guest_token_does(self, settings: Any, provider: Any, kit: Any,
                                                         players_client: FlaskClient,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("LUDOTECA_OIDC_ISSUER", kit.issuer)
        monkeypatch.setenv("LUDOTECA_OIDC_JWKS_URL", provider.url)
        monkeypatch.setenv("LUDOTECA_OIDC_AUDIENCE", kit.audience)
        from conftest import in_process_app
        game = in_process_app("pig", settings).test_client()
        jwt_token = provider.token(sub=f"user-{secrets.token_hex(4)}", name="Grace")
        made = create(game, jwt_token)
        assert made["game"]["seats"][0]["name"] == "Grace"
        listed = my_games(players_client, jwt_token)["games"]
        assert [(g["game"], g["id"], g["seat"]) for g in listed] == [("pig", made["game"]["id"], 0)]


class TestMyGames:
    def test_every_game_of_the_player_newest_first_paged(self, client_factory: Callable[[str], FlaskClient],
                                                          players_client: FlaskClient) -> None:
        pig, ludix = client_factory("pig"), client_factory("ludix")
        me, token = new_player(players_client, "Gus")
        _, other = new_player(players_client, "Hal")
        first = create(pig, token)["game"]["id"]  # waiting for a second player
        second = create(ludix, None)["game"]["id"]
        joined = ludix.post(f"/games/{second}/players", json={}, headers=bearer(token)).get_json()
        third = create(pig, other)["game"]["id"]
        pig.post(f"/games/{third}/players", json={}, headers=bearer(token))
        assert joined["seat"] == 1
        found = my_games(players_client, token, page_size=2)
        assert found["total"] == 3 and found["page"] == 1 and found["page_size"] == 2
        assert [(g["game"], g["id"]) for g in found["games"]] == [("pig", third), ("ludix", second)]
        rest = my_games(players_client, token, page_size=2, page=2)["games"]
        assert [(g["game"], g["id"], g["status"], g["seat"], g["your_turn"]) for g in rest] == \
               [("pig", first, "waiting_for_players", 0, False)]
        by_id = {g["id"]: g for g in found["games"]}
        assert by_id[third]["status"] == "active" and by_id[third]["seat"] == 1
        # whose turn it is, as the game says
        for g in found["games"]:
            view = client_factory(g["game"]).get(f"/games/{g['id']}", headers=bearer(token)).get_json()
            assert g["your_turn"] == (g["seat"] in view["to_act"])
            assert g["url"].endswith(f"/{g['game']}/games/{g['id']}")
        assert me not in str(my_games(players_client, other))  # another player's list is its own

    def test_paging_and_auth_errors(self, players_client: FlaskClient) -> None:
        _, token = new_player(players_client, "Ivy")
        assert my_games(players_client, token) == {"games": [], "total": 0, "page": 1, "page_size": 20}
        assert players_client.get("/me/games").status_code == 401
        for query in ({"page": 0}, {"page_size": 101}, {"page": "x"}, {"order": "asc"}):
            resp = players_client.get("/me/games", query_string=query, headers=bearer(token))
            assert resp.status_code == 422 and resp.mimetype == PROBLEM


class TestFaults:
    def test_a_service_killed_between_the_commit_and_the_list(self, pig: FlaskClient, settings: Any,
                                                              players_client: FlaskClient,
                                                              redis_client: redis.Redis) -> None:
        me, token = new_player(players_client, "Jo")
        service = service_of(pig)
        lists = GameLists(redis_client)

        class DiesAfterTheCommit:
            """The players of a service whose process dies once the game is committed."""

            games = replace_confirm(lists)

            def identify(self, t: str) -> PlayerRef | None:
                return PlayerRef(me, "Jo") if t == token else None

            def rate(self, *args: Any) -> int:
                return 0

        dying = type(service)(service.d, service.store, service.dispatcher, players=DiesAfterTheCommit())
        with pytest.raises(Crash):
            dying.create(["human", "human"], {}, 0, None, PlayerRef(me, "Jo"))
        # the game is committed and binds the player; the list has only the intent
        assert redis_client.zcard(key(me, "games")) == 0 and redis_client.zcard(key(me, "pending")) == 1
        found = my_games(players_client, token)
        assert found["total"] == 1 and found["games"][0]["seat"] == 0
        assert redis_client.zcard(key(me, "pending")) == 0  # settled into the list
        game_id = found["games"][0]["id"]
        assert pig.get(f"/games/{game_id}", headers=bearer(token)).get_json()["you"] == 0

    def test_an_intent_whose_commit_never_happened(self, players_client: FlaskClient,
                                                   redis_client: redis.Redis) -> None:
        me, token = new_player(players_client, "Kim")
        lists = GameLists(redis_client)
        lists.intend(me, "pig", secrets.token_hex(8))  # just now: the commit may be on its way
        lists.intend(me, "pig", secrets.token_hex(8), now=time.time() - 3600)  # long past the grace
        assert my_games(players_client, token)["total"] == 0
        assert redis_client.zcard(key(me, "pending")) == 1  # the recent one is kept, the old one dropped

    def test_a_game_gone_leaves_the_list(self, pig: FlaskClient, players_client: FlaskClient,
                                        redis_client: redis.Redis) -> None:
        _, token = new_player(players_client, "Lu")
        kept = create(pig, token)["game"]["id"]
        gone = create(pig, token)["game"]["id"]
        redis_client.delete(f"pig:{{{gone}}}:game")  # expired
        found = my_games(players_client, token)
        assert [g["id"] for g in found["games"]] == [kept] and found["total"] == 1
        assert my_games(players_client, token)["total"] == 1

    def test_a_game_gone_on_a_page_lets_the_next_move_up(self, pig: FlaskClient, players_client: FlaskClient,
                                                          redis_client: redis.Redis) -> None:
        """A page a game of which has expired is read again: the live game after it moves up into
        it (before: page 1 came back empty with total 1, and the live game was on no page)."""
        _, token = new_player(players_client, "Pager")
        live = create(pig, token)["game"]["id"]
        gone = [create(pig, token)["game"]["id"] for _ in range(3)]  # newer: listed first
        for game_id in gone:
            redis_client.delete(f"pig:{{{game_id}}}:game")  # expired
        first = my_games(players_client, token, page=1, page_size=1)
        assert [g["id"] for g in first["games"]] == [live] and first["total"] == 1


def replace_confirm(lists: GameLists) -> GameLists:
    """``lists`` whose :meth:`~GameLists.confirm` dies (the process killed after the game's commit)."""

    class Dying(GameLists):
        def confirm(self, *args: Any, **kwargs: Any) -> None:
            raise Crash

    return Dying(lists.client, lists.ttl)


def test_a_finished_game_between_players_is_rated_once(pig: FlaskClient, players_client: FlaskClient,
                                                      redis_client: redis.Redis, play_to_the_end: Any) -> None:
    ada, ada_token = new_player(players_client, "Winner?")
    bob, bob_token = new_player(players_client, "Loser?")
    game_id = create(pig, ada_token, options={"target": 10})["game"]["id"]
    pig.post(f"/games/{game_id}/players", json={}, headers=bearer(bob_token))
    play_to_the_end(pig, game_id, {0: ada_token, 1: bob_token})
    result = pig.get(f"/games/{game_id}").get_json()["result"]
    assert result is not None
    service = service_of(pig)
    service.record_result(game_id)
    service.record_result(game_id)  # the task again (redelivered): nothing more
    store = PlayerStore(redis_client)
    winner, loser = (ada, bob) if result["winners"] == [0] else (bob, ada)
    assert store.rating(winner, "pig").played == store.rating(loser, "pig").played == 1
    assert store.rating(winner, "pig").mu > store.rating(loser, "pig").mu
    shown = players_client.get(f"/{winner}").get_json()["games"]["pig"]
    assert shown["played"] == 1 and shown["rating"]["mu"] == store.rating(winner, "pig").mu
    # GET /pig/leaderboard ranks the players by rating (beside the wins by name)
    board = pig.get("/leaderboard", query_string={"limit": 1000}).get_json()
    rated = [row["player_id"] for row in board["rated"]]
    assert rated.index(winner) < rated.index(loser)
    row = board["rated"][rated.index(winner)]
    assert row["name"] == ("Winner?" if winner == ada else "Loser?") and row["played"] == 1
    assert row["rating"]["ordinal"] == pytest.approx(store.rating(winner, "pig").ordinal)
    ordinals = [r["rating"]["ordinal"] for r in board["rated"]]
    assert ordinals == sorted(ordinals, reverse=True)
