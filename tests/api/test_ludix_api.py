"""Every route of the hosting layer and every error, on Ludix, through the Flask test client
over a real Redis (no worker: human seats only, except where bots are only listed)."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import pytest
from api_client import Api
from conftest import in_process_app
from ludoteca.core.rng import Rng, commitment
from ludoteca.service_layer import registry


def two_humans(api: Api, target: int = 300) -> tuple[str, str, str]:
    gid, t0 = api.create(["human", "human"], {"target": target}, name="ana")
    status, data = api.join(gid, name="bea")
    assert status == 201
    assert t0 is not None
    return gid, t0, data["token"]


def call_alea(api: Api, gid: str, token: str) -> None:
    status, data, _ = api.play(gid, token, {"type": "alea_jacta_est"})
    assert status == 200, data


class TestCreateAndLobby:
    def test_create_returns_201_location_token_and_etag(self, ludix: Api) -> None:
        status, data, headers = ludix.call("POST", "/games", body={"seats": ["human", "bot:expert"]})
        assert status == 201
        gid = data["game"]["id"]
        assert headers["Location"].endswith(f"/games/{gid}")
        assert data["seat"] == 0 and len(data["token"]) >= 40
        assert headers["ETag"] == f'"{data["game"]["version"]}"'
        game = data["game"]
        assert game["status"] == "active" and game["you"] == 0
        assert game["seats"][1] == {"seat": 1, "kind": "bot", "level": "expert", "name": "bot:expert", "claimed": True}
        assert len(game["seed_sha256"]) == 64
        assert game["state"]["target"] == 300

    @pytest.mark.parametrize("body, field", [
        ({"seats": ["human"]}, "seats"),
        ({"seats": ["human"] * 9}, "seats"),
        ({"seats": ["human", "bot:nobody"]}, "seats"),
        ({"seats": ["human", "robot"]}, "seats"),
        ({"seats": ["human", "human"], "options": {"target": 5}}, "options"),
        ({"seats": ["human", "human"], "options": {"colour": "red"}}, "options"),
        ({"seats": ["human", "human"], "surprise": 1}, "surprise"),
        ({"seats": "human"}, "seats"),
        ({}, "seats"),
    ])
    def test_bad_creation_is_422_with_field_errors(self, ludix: Api, body: dict[str, Any], field: str) -> None:
        status, data, _ = ludix.call("POST", "/games", body=body)
        assert status == 422
        assert field in data["errors"]

    @pytest.mark.parametrize("target", [300.5, 300.0, 1e2])
    def test_a_target_that_is_not_a_json_integer_is_422_not_truncated(self, ludix: Api, target: float) -> None:
        body = {"seats": ["human", "human"], "options": {"target": target}}
        status, data, _ = ludix.call("POST", "/games", body=body)
        assert status == 422
        assert data["errors"] == {"options": {"target": ["Not a valid integer."]}}

    def test_creator_seat_must_be_human(self, ludix: Api) -> None:
        status, _data, _ = ludix.call("POST", "/games", body={"seats": ["bot:random", "human"], "seat": 0})
        assert status == 422

    @pytest.mark.parametrize("raw", ["{not json", "[1, 2", "\x00\x01"])
    def test_malformed_json_is_400(self, ludix: Api, raw: str) -> None:
        status, _data, _ = ludix.call("POST", "/games", raw=raw)
        assert status == 400

    def test_lobby_lists_open_games_and_forgets_full_ones(self, ludix: Api) -> None:
        gid, _ = ludix.create(["human", "human", "human"])
        status, page, _ = ludix.call("GET", "/games?page_size=100")
        assert status == 200
        mine = [g for g in page["items"] if g["id"] == gid]
        assert mine and mine[0]["open_seats"] == [1, 2]
        ludix.join(gid)
        ludix.join(gid)
        status, page, _ = ludix.call("GET", "/games?page_size=100")
        assert gid not in [g["id"] for g in page["items"]]

    @pytest.mark.parametrize("query", ["page=0", "page_size=1000", "page=x", "bogus=1"])
    def test_bad_lobby_query_is_422(self, ludix: Api, query: str) -> None:
        status, _, _ = ludix.call("GET", f"/games?{query}")
        assert status == 422


class TestJoin:
    def test_join_gives_a_token_and_starts_the_game(self, ludix: Api) -> None:
        gid, t0 = ludix.create(["human", "human"])
        assert ludix.view(gid, t0)["status"] == "waiting_for_players"
        status, data = ludix.join(gid, name="bea")
        assert status == 201 and data["seat"] == 1 and data["token"] != t0
        assert data["game"]["status"] == "active"
        assert data["game"]["seats"][1]["name"] == "bea"

    def test_full_game_and_taken_or_bad_seats(self, ludix: Api) -> None:
        gid, _ = ludix.create(["human", "human", "human"])
        assert ludix.join(gid, seat=0)[0] == 409
        assert ludix.join(gid, seat=7)[0] == 422
        assert ludix.join(gid, seat="one")[0] == 422
        assert ludix.join(gid, seat=2)[0] == 201
        assert ludix.join(gid)[0] == 201
        status, data = ludix.join(gid)
        assert status == 409 and data["type"].endswith("no-open-seat")

    def test_unknown_game_is_404(self, ludix: Api) -> None:
        assert ludix.join("0123456789abcdef")[0] == 404
        assert ludix.call("GET", "/games/0123456789abcdef")[0] == 404
        assert ludix.call("GET", "/games/not-an-id!")[0] == 404
        assert ludix.call("GET", "/games/" + "a" * 500)[0] == 404


class TestAuthAndViews:
    def test_spectator_view_and_seat_view(self, ludix: Api) -> None:
        gid, t0, t1 = two_humans(ludix)
        assert ludix.view(gid)["you"] is None
        assert ludix.view(gid, t0)["you"] == 0
        assert ludix.view(gid, t1)["you"] == 1

    def test_wrong_or_malformed_token_is_401(self, ludix: Api) -> None:
        gid, _t0, _ = two_humans(ludix)
        _other, t_other = ludix.create(["human", "human"])
        assert ludix.call("GET", f"/games/{gid}", token=t_other)[0] == 401  # a token of another game
        assert ludix.call("GET", f"/games/{gid}", headers={"Authorization": "Basic abc"})[0] == 401
        assert ludix.call("GET", f"/games/{gid}", headers={"Authorization": "Bearer"})[0] == 401
        assert ludix.call("GET", f"/games/{gid}/actions")[0] == 401
        assert ludix.play(gid, "x" * 43, {"type": "roll"})[0] == 401
        status, _, _ = ludix.call("POST", f"/games/{gid}/actions", body={"type": "roll"})
        assert status == 401

    def test_etag_and_if_none_match(self, ludix: Api) -> None:
        gid, t0, _ = two_humans(ludix)
        resp = ludix.c.get(f"/games/{gid}", headers={"Authorization": f"Bearer {t0}"})
        tag = resp.headers["ETag"]
        again = ludix.c.get(f"/games/{gid}", headers={"Authorization": f"Bearer {t0}", "If-None-Match": tag})
        assert again.status_code == 304


class TestActions:
    def test_actions_are_listed_in_body_form_and_playable(self, ludix: Api) -> None:
        gid, t0, t1 = two_humans(ludix)
        listed = ludix.actions(gid, t0)
        assert listed["actions"] == [{"type": "alea_jacta_est"}]
        call_alea(ludix, gid, t1)  # seat 1 calls first: it starts
        view = ludix.view(gid, t1)
        assert view["state"]["first_player"] == 1 and view["to_act"] == [1]
        assert ludix.actions(gid, t0)["actions"] == []
        for action in ludix.actions(gid, t1)["actions"]:
            assert action["type"] in {"roll", "hold"}

    def test_not_started_not_your_turn_and_illegal(self, ludix: Api) -> None:
        gid, t0 = ludix.create(["human", "human"])
        status, data, _ = ludix.play(gid, t0, {"type": "alea_jacta_est"})
        assert status == 409 and data["type"].endswith("game-not-started")
        _, data = ludix.join(gid)
        t1 = data["token"]
        call_alea(ludix, gid, t0)
        status, data, _ = ludix.play(gid, t1, {"type": "roll"})
        assert status == 409 and data["type"].endswith("not-your-turn")
        status, data, _ = ludix.play(gid, t0, {"type": "hold"})  # nothing to hold before a throw
        assert status == 409 and "legal" in data

    @pytest.mark.parametrize("body, status", [
        ({"type": "fly"}, 422),
        ({"type": "roll", "extra": True}, 422),
        ({"type": "hold", "numeral": 12}, 422),
        ({"type": "hold", "numeral": "Q"}, 422),
        ({}, 422),
        ([1, 2], 422),
        ("roll", 422),
    ])
    def test_malformed_actions_change_nothing(self, ludix: Api, body: Any, status: int) -> None:
        gid, t0, _ = two_humans(ludix)
        call_alea(ludix, gid, t0)
        before = ludix.view(gid, t0)
        got, data, _ = ludix.play(gid, t0, body)
        assert got == status, data
        assert ludix.view(gid, t0) == before

    def test_non_json_body_is_400(self, ludix: Api) -> None:
        gid, t0, _ = two_humans(ludix)
        status, _, _ = ludix.call("POST", f"/games/{gid}/actions", token=t0, raw="{oops")
        assert status == 400
        status, _, _ = ludix.call("POST", f"/games/{gid}/actions", token=t0, raw="")
        assert status == 400


class TestConcurrencyControls:
    def test_if_match(self, ludix: Api) -> None:
        gid, t0, _ = two_humans(ludix)
        version = ludix.view(gid, t0)["version"]
        status, data, _ = ludix.play(gid, t0, {"type": "alea_jacta_est"}, If_Match=f'"{version - 1}"')
        assert status == 412 and data["current_version"] == version
        assert ludix.play(gid, t0, {"type": "alea_jacta_est"}, If_Match="garbage")[0] == 400
        status, data, headers = ludix.play(gid, t0, {"type": "alea_jacta_est"}, If_Match=f'"{version}"')
        assert status == 200 and headers["ETag"] == f'"{version + 1}"'

    def test_idempotency_key_replays_and_applies_once(self, ludix: Api) -> None:
        gid, t0, _ = two_humans(ludix)
        call_alea(ludix, gid, t0)
        v0 = ludix.view(gid, t0)["version"]
        first = ludix.play(gid, t0, {"type": "roll"}, Idempotency_Key="k-1")
        second = ludix.play(gid, t0, {"type": "roll"}, Idempotency_Key="k-1")
        assert first[0] == second[0] == 200
        assert first[1] == second[1]
        assert second[2]["Idempotent-Replayed"] == "true"
        assert ludix.view(gid, t0)["version"] == v0 + 1
        status, data, _ = ludix.play(gid, t0, {"type": "hold"}, Idempotency_Key="k-1")
        assert status == 422 and data["type"].endswith("idempotency-key-reused")
        assert ludix.view(gid, t0)["version"] == v0 + 1
        assert ludix.play(gid, t0, {"type": "roll"}, Idempotency_Key="bad key\u00e9")[0] == 400

    def test_racing_moves_exactly_one_wins(self, ludix: Api, client_factory: Any) -> None:
        gid, t0, _ = two_humans(ludix)
        call_alea(ludix, gid, t0)
        version = ludix.view(gid, t0)["version"]
        results: list[int] = []

        def go() -> None:
            api = Api(client_factory("ludix"))
            results.append(api.play(gid, t0, {"type": "roll"}, If_Match=f'"{version}"')[0])

        threads = [threading.Thread(target=go) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(results) == [200] + [412] * 5
        assert ludix.view(gid, t0)["version"] == version + 1


class TestEvents:
    def test_events_after_and_long_poll(self, ludix: Api) -> None:
        gid, t0, t1 = two_humans(ludix)
        status, page, _ = ludix.call("GET", f"/games/{gid}/events?after=0", t0)
        assert status == 200
        assert [e["type"] for e in page["events"]][:2] == ["GameCreated", "SeatClaimed"]
        last = page["last_seq"]

        def later() -> None:
            time.sleep(0.4)
            Api(ludix.c.application.test_client()).play(gid, t1, {"type": "alea_jacta_est"})

        threading.Thread(target=later).start()
        t_start = time.monotonic()
        status, page, _ = ludix.call("GET", f"/games/{gid}/events?after={last}&wait=10", t0)
        elapsed = time.monotonic() - t_start
        assert status == 200 and page["events"], page
        assert elapsed < 5  # returned when the move landed, not at the end of the wait
        assert all(e["seq"] > last for e in page["events"])

    def test_empty_wait_returns_nothing(self, ludix: Api) -> None:
        gid, t0, _ = two_humans(ludix)
        _, page, _ = ludix.call("GET", f"/games/{gid}/events?after=0", t0)
        status, again, _ = ludix.call("GET", f"/games/{gid}/events?after={page['last_seq']}&wait=0.2", t0)
        assert status == 200 and again["events"] == [] and again["last_seq"] == page["last_seq"]

    @pytest.mark.parametrize("query", ["after=-1", "wait=500", "after=abc", "nope=1"])
    def test_bad_event_queries(self, ludix: Api, query: str) -> None:
        gid, t0, _ = two_humans(ludix)
        assert ludix.call("GET", f"/games/{gid}/events?{query}", t0)[0] == 422


def play_out(api: Api, gid: str, tokens: list[str]) -> dict[str, Any]:
    """Play a whole game through the API: roll, hold when possible."""
    for _ in range(2000):
        view = api.view(gid)
        if view["status"] == "finished":
            return view
        seat = view["to_act"][0]
        legal = api.actions(gid, tokens[seat])["actions"]
        holds = [a for a in legal if a["type"] == "hold" and "numeral" not in a]
        action = holds[0] if holds and view["state"]["turn_total"] >= 0 else legal[0]
        status, data, _ = api.play(gid, tokens[seat], action)
        assert status == 200, data
    raise AssertionError("game did not finish")


class TestWholeGameAndReplay:
    def test_replay_only_after_the_end_and_redeal_reproduces(self, ludix: Api) -> None:
        gid, t0, t1 = two_humans(ludix, target=50)
        status, _data, _ = ludix.call("GET", f"/games/{gid}/replay")
        assert status == 409
        call_alea(ludix, gid, t0)
        final = play_out(ludix, gid, [t0, t1])
        assert final["result"]["winners"]
        assert ludix.play(gid, t0, {"type": "roll"})[0] == 409
        status, replay, _ = ludix.call("GET", f"/games/{gid}/replay")
        assert status == 200
        assert commitment(replay["seed"]) == final["seed_sha256"]
        engine = registry.game("ludix").engine
        state = engine.new_game(replay["players"], replay["options"], Rng(replay["seed"]))
        for entry in replay["actions"]:
            state, _ = engine.apply(state, entry["seat"], entry["action"])
        assert engine.dump(state) == replay["final_state"]


class TestOps:
    def test_health_ready_metrics_docs_openapi(self, ludix: Api) -> None:
        assert ludix.call("GET", "/healthz")[0] == 200
        assert ludix.call("GET", "/readyz")[0] == 200
        resp = ludix.c.get("/metrics")
        assert resp.status_code == 200 and b"ludoteca_http_request_duration_seconds_bucket" in resp.data
        docs = ludix.c.get("/docs")
        assert docs.status_code == 200 and b"swagger-ui-bundle.js" in docs.data
        assert ludix.c.get("/docs/static/swagger-ui-bundle.js").status_code == 200
        spec = ludix.c.get("/openapi.json").get_json()
        assert "/games/{game_id}/actions" in spec["paths"]

    def test_unknown_route_and_method_are_problems(self, ludix: Api) -> None:
        assert ludix.call("GET", "/nowhere")[0] == 404
        assert ludix.call("DELETE", "/games")[0] == 405

    def test_leaderboard_and_stats_shapes(self, ludix: Api) -> None:
        status, board, _ = ludix.call("GET", "/leaderboard?limit=5")
        assert status == 200 and isinstance(board["players"], list)
        status, stats, _ = ludix.call("GET", "/stats")
        assert status == 200 and "games" in stats
        assert ludix.call("GET", "/leaderboard?limit=0")[0] == 422


def test_writes_over_the_limit_get_429_and_change_nothing(settings: Any) -> None:
    from dataclasses import replace

    app = in_process_app("ludix", replace(settings, rate_limit_per_minute=3, rate_limit_create_per_minute=2))
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = f"10.{os.getpid() % 250}.{int(time.time()) % 250}.7"  # a caller of its own
    api = Api(client)
    gid, token = api.create(["human", "human"])
    assert token is not None
    api.join(gid)
    assert api.play(gid, token, {"type": "alea_jacta_est"})[0] == 200
    status, _, _ = api.play(gid, token, {"type": "roll"})
    assert status == 200  # a seat's token has its own budget
    version = api.view(gid)["version"]
    for _ in range(3):
        api.play(gid, token, {"type": "roll"})
    status, _data, headers = api.play(gid, token, {"type": "roll"})
    assert status == 429 and int(headers["Retry-After"]) > 0
    assert api.view(gid)["version"] <= version + 3
