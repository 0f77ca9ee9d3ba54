"""The move's hot path over HTTP (Ludix, real Redis): the seat-write quota counted by the commit
and by refusals alike, the fast JSON parser keeping the body bounds, replays winning over the
checks, and a move from a remembered game that moved on elsewhere."""

from __future__ import annotations

import os
import secrets
from dataclasses import replace
from typing import Any

from api_client import Api
from conftest import in_process_app


def fresh_api(settings: Any, **limits: Any) -> Api:
    app = in_process_app("ludix", replace(settings, **limits))
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = f"10.{os.getpid() % 250}.{secrets.randbelow(250)}.{secrets.randbelow(250)}"
    return Api(client)


def started(api: Api) -> tuple[str, str, str]:
    gid, t0 = api.create(["human", "human"])
    status, joined = api.join(gid)
    assert status == 201 and t0 is not None
    return gid, t0, joined["token"]


def test_refused_moves_count_in_the_seat_bucket_and_over_it_the_refusal_is_a_429(settings: Any) -> None:
    api = fresh_api(settings, rate_limit_per_minute=4, rate_limit_create_per_minute=10)
    gid, t0, t1 = started(api)
    assert api.play(gid, t0, {"type": "alea_jacta_est"})[0] == 200  # 1 of seat 0's 4
    assert api.play(gid, t0, {"type": "hold"})[0] == 409  # illegal: counted (2)
    assert api.play(gid, t0, {"type": "nope"})[0] == 422  # unknown action: counted (3)
    assert api.call("POST", f"/games/{gid}/actions", t0, raw=b"{not json")[0] == 400  # counted (4)
    version = api.view(gid)["version"]
    for action in ({"type": "roll"}, {"type": "hold"}):  # a legal move and an illegal one: both 429 now
        status, data, headers = api.play(gid, t0, action)
        assert status == 429 and data["type"].endswith("/rate-limited"), data
        assert 1 <= int(headers["Retry-After"]) <= 61 and "4 writes a minute per seat" in data["detail"]
    assert api.view(gid)["version"] == version  # nothing changed
    assert api.play(gid, t1, {"type": "roll"})[0] == 409  # seat 1 has a bucket of its own (not its turn)


def test_integers_past_2_53_are_refused_whatever_their_size(ludix: Api) -> None:
    gid, t0, _ = started(ludix)
    for digits in ("9007199254740992", "18446744073709551616", "1" * 40):
        status, data, _ = ludix.call("POST", f"/games/{gid}/actions", t0, raw=f'{{"type": "roll", "n": {digits}}}')
        assert status == 400 and "out of range" in data["detail"], (digits, data)
    status, data, _ = ludix.call("POST", f"/games/{gid}/actions", t0, raw='{"type": "alea_jacta_est"}')
    assert status == 200, data


def test_a_replay_wins_over_a_stale_if_match_and_an_illegal_body(ludix: Api) -> None:
    gid, t0, _ = started(ludix)
    first = ludix.play(gid, t0, {"type": "alea_jacta_est"}, If_Match='"2"', Idempotency_Key="k-call")
    assert first[0] == 200
    again = ludix.play(gid, t0, {"type": "alea_jacta_est"}, If_Match='"2"', Idempotency_Key="k-call")
    assert again[0] == 200 and again[2]["Idempotent-Replayed"] == "true" and again[1] == first[1]
    other = ludix.play(gid, t0, {"type": "hold"}, Idempotency_Key="k-call")
    assert other[0] == 422 and other[1]["type"].endswith("/idempotency-key-reused")


def test_a_move_on_a_game_another_process_moved_is_applied_on_the_current_game(settings: Any) -> None:
    here, there = fresh_api(settings), fresh_api(settings)  # two services: two memories, one Redis
    gid, t0, t1 = started(here)
    assert here.play(gid, t0, {"type": "alea_jacta_est"})[0] == 200  # `here` remembers version 3
    mover = there.view(gid)["to_act"][0]
    tokens = [t0, t1]
    assert there.play(gid, tokens[mover], {"type": "roll"})[0] == 200
    game = there.view(gid)
    status, data, headers = here.play(gid, tokens[game["to_act"][0]], {"type": "roll"})
    assert status == 200, data
    assert data["game"]["version"] == game["version"] + 1 and headers["ETag"] == f'"{game["version"] + 1}"'
    status, data, _ = here.play(gid, tokens[data["game"]["to_act"][0]], {"type": "roll"},
                                If_Match=f'"{game["version"]}"')
    assert status == 412 and data["current_version"] == game["version"] + 1
