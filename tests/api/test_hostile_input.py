"""Hostile input over every game's routes: each malformed request gets a clear 4xx problem+json
(never a 5xx) and changes nothing: the game's version, its stored document, its events and log,
and the set of stored games are the same afterwards.

The table covers every field of every game's bodies, options, queries and headers: oversized,
deeply nested, wrongly typed (floats and booleans for integers), non-UTF-8, unicode-heavy, huge
numbers, NaN, and garbage in If-Match, Idempotency-Key and Authorization. A few rows are answered
200 on purpose (a bad rule on Ludic's `/rules/check` is a normal report): those say so.

Run ``pytest tests/api/test_hostile_input.py -s`` to see the figure: how many requests were sent
and the histogram of their statuses.
"""

from __future__ import annotations

import collections
import importlib
import importlib.util
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import redis
from flask.json.provider import DefaultJSONProvider
from hostile import (
    BIG,
    DEEP,
    DEEP_OBJECT,
    HUGE_INT,
    JUST_TOO_DEEP,
    LATIN1,
    NOT_UTF8,
    NOTS,
    PARENS,
    PROBLEM,
    UNICODE,
    Row,
    row,
    schema_rows,
)
from ludoteca.adapters.hosting import bodies
from ludoteca.adapters.hosting.bodies import MAX_DEPTH, MAX_SAFE_INTEGER
from ludoteca.adapters.hosting.examples import operation_examples
from ludoteca.service_layer import registry


def common_rows(game: str) -> Iterator[Row]:
    """The shared surface (create, join, play, events, lobby, leaderboard, headers)."""
    seats = ["human"] * registry.game(game).engine.min_seats
    create = "/games"
    act = "/games/{id}/actions"
    join = "/games/{id}/players"
    # -- body size, nesting, encoding --------------------------------------------------------
    for path in (create, join, act):
        yield row(f"{path}: 10,000-deep array", "POST", path, DEEP)
        yield row(f"{path}: 5,000-deep object", "POST", path, DEEP_OBJECT)
        yield row(f"{path}: one level too deep", "POST", path, JUST_TOO_DEEP)
        yield row(f"{path}: body over the limit", "POST", path, b'{"x": "' + b"a" * BIG + b'"}', expect=413)
        yield row(f"{path}: chunked body over the limit", "POST", path, b"[" + b"1," * (BIG // 2) + b"1]",
                  expect=413, chunked=True)
        yield row(f"{path}: not UTF-8", "POST", path, NOT_UTF8)
        yield row(f"{path}: latin-1", "POST", path, LATIN1)
        yield row(f"{path}: UTF-8 with a BOM", "POST", path, "\ufeff{}".encode())
        yield row(f"{path}: not JSON", "POST", path, b"{'type': 'x'")
        yield row(f"{path}: NaN", "POST", path, b'{"seat": NaN}')
        yield row(f"{path}: -Infinity", "POST", path, b'{"seat": -Infinity}')
        yield row(f"{path}: 5,001-digit integer", "POST", path, f'{{"seat": {HUGE_INT}}}')
        yield row(f"{path}: 2^64", "POST", path, f'{{"seat": {2**64}}}')
        yield row(f"{path}: float overflowing to inf", "POST", path, b'{"seat": 1e999}')
    # -- create: every field wrongly typed ----------------------------------------------------
    bad_creates: list[tuple[str, Any, int]] = [
        ("seats a string", {"seats": "human"}, 422),
        ("seats numbers", {"seats": [1, 2]}, 422),
        ("seats 2,000 long", {"seats": ["human"] * 2_000}, 422),
        ("seats missing", {"options": {}}, 422),
        ("seat 2.6e-42", {"seats": seats, "seat": 2.6e-42}, 422),
        ("seat 0.0", {"seats": seats, "seat": 0.0}, 422),
        ("seat true", {"seats": seats, "seat": True}, 422),
        ("seat '0'", {"seats": seats, "seat": "0"}, 422),
        ("seat -1", {"seats": seats, "seat": -1}, 422),
        ("seat 2^53", {"seats": seats, "seat": 2**53 - 1}, 422),
        ("name 41 characters", {"seats": seats, "name": "n" * 41}, 422),
        ("name with a right-to-left override", {"seats": seats, "name": "\u202e\u200bevil"}, 422),
        ("name unicode-heavy", {"seats": seats, "name": UNICODE}, 422),
        ("name with NUL", {"seats": seats, "name": "ana\x00"}, 422),
        ("name lone surrogate", {"seats": seats, "name": "\ud800"}, 422),
        ("name a number", {"seats": seats, "name": 7}, 422),
        ("options a list", {"seats": seats, "options": []}, 422),
        ("options null", {"seats": seats, "options": None}, 422),
        ("options unknown", {"seats": seats, "options": {UNICODE: 1}}, 422),
        ("unknown member", {"seats": seats, "x": 1}, 422),
        ("a list", [seats], 422),
        ("a string", json.dumps("human"), 422),
    ]
    for name, body, status in bad_creates:
        yield row(f"create: {name}", "POST", create, body, expect=status, auth=False)
    yield row("create: form-encoded", "POST", create, b"seats=human", content_type="application/x-www-form-urlencoded",
              expect=422, auth=False)
    yield row("create: text/plain", "POST", create, json.dumps({"seats": seats}), content_type="text/plain",
              expect=422, auth=False)
    yield row("create: no body", "POST", create, None, content_type=None, expect=422, auth=False)
    # -- join: the game is full ---------------------------------------------------------------
    for name, body, status in [("seat 2.6e-42", {"seat": 2.6e-42}, 422), ("seat true", {"seat": True}, 422),
                               ("seat '1'", {"seat": "1"}, 422), ("seat 1e3", {"seat": 1e3}, 422),
                               ("name unicode-heavy", {"name": UNICODE}, 422), ("a list", [], 422),
                               ("a full game", {}, 409), ("seat 0 taken", {"seat": 0}, 409)]:
        yield row(f"join: {name}", "POST", join, body, expect=status, auth=False)
    # -- play: the envelope -------------------------------------------------------------------
    for name, body, status in [("empty body", b"", 400), ("only spaces", b"   ", 400), ("a list", [], 422),
                               ("a string", json.dumps("roll"), 422), ("null", None, 422),
                               ("type a number", {"type": 5}, 422),
                               ("type unknown", {"type": "teleport"}, 422),
                               ("type unicode-heavy", {"type": UNICODE}, 422),
                               ("type a list", {"type": ["roll"]}, 422)]:
        yield row(f"play: {name}", "POST", act, json.dumps(body) if body is None else body, expect=status)
    yield row("play: text/plain JSON of a wrong type", "POST", act, '{"type": 5}', content_type="text/plain",
              expect=422)
    # -- headers ------------------------------------------------------------------------------
    good = {"type": next(iter(registry.game(game).action_schemas))}
    # a body that is a well-formed action (the document's example): a stale If-Match is then the
    # refusal, since a malformed body is refused first, whatever the version
    action = json.loads(json.dumps(operation_examples(registry.game(game))["playAction"]["request"]))
    for value in ['"abc"', "*", '"99999999999999999999"', 'W/"1" , "2"', "\"1\"\x0b", UNICODE[:50].encode().decode(
            "latin-1"), "1" * 5000]:
        yield row(f"If-Match {value[:20]!r}", "POST", act, good, headers={"If-Match": value})
    yield row("If-Match stale", "POST", act, action, headers={"If-Match": '"999999"'}, expect=412)
    yield row("If-Match stale, a malformed body", "POST", act, json.dumps("roll"), headers={"If-Match": '"999999"'},
              expect=422)
    for value in ["", "k" * 201, "clé", "a b", "line\tbreak", UNICODE[:30].encode().decode("latin-1")]:
        yield row(f"Idempotency-Key {value[:20]!r}", "POST", act, good, headers={"Idempotency-Key": value})
    for value in ["Bearer", "Bearer ", "Basic YWxhZGRpbjpvcGVuc2VzYW1l", "Bearer " + "x" * 8000,
                  "Bearer \xff\xfe\xfd", "bearer not-a-token", "Bearer\ttab", "Token abc", "Bearer a b c",
                  "Bearer " + UNICODE[:40].encode().decode("latin-1")]:
        for method, path, body in (("POST", act, good), ("GET", "/games/{id}", None),
                                   ("GET", "/games/{id}/actions", None)):
            yield row(f"Authorization {value[:24]!r} on {method} {path}", method, path, body,
                      headers={"Authorization": value}, expect=401)
    yield row("play without a token", "POST", act, good, auth=False, expect=401)
    yield row("actions without a token", "GET", "/games/{id}/actions", auth=False, expect=401)
    # -- queries ------------------------------------------------------------------------------
    for query in [f"after={2**64}", f"after={2**53}", "after=-1", "after=1e3", "after=1.0", "after=%D9%A3",
                  "after=1_000", "after=%201", "after=" + "9" * 5001, "wait=nan", "wait=inf", "wait=1e309",
                  "wait=-1", "wait=61", "after=abc", "nope=1"]:
        yield row(f"events?{query[:30]}", "GET", f"/games/{{id}}/events?{query}", expect=422, content_type=None)
    for query in ["page=0", f"page={2**64}", "page_size=0", "page_size=101", "page=x", "page_size=1e1", "sort=id"]:
        yield row(f"lobby?{query}", "GET", f"/games?{query}", expect=422, content_type=None, auth=False)
    for query in [f"limit={2**70}", "limit=0", "limit=-5", "limit=true"]:
        yield row(f"leaderboard?{query}", "GET", f"/leaderboard?{query}", expect=422, content_type=None, auth=False)
    # -- paths --------------------------------------------------------------------------------
    for gid in ["ZZZ", "a" * 65, "%C3%A9", "0%0a", "{id}%0a", "..%2f..%2fetc"]:
        yield row(f"game id {gid[:20]!r}", "GET", f"/games/{gid}", expect=404, content_type=None)
    yield row("replay of a running game", "GET", "/games/{id}/replay", expect=409, content_type=None)
    yield row("DELETE a game", "DELETE", "/games/{id}", expect=405, content_type=None)


def game_rows(game: str) -> Iterator[Row]:
    """The game's own rows: from its schemas, then its ``hostile/<game>.py`` if it has one."""
    yield from schema_rows(game)
    own = extra(game)
    if own is not None:
        yield from own.rows(["human"] * registry.game(game).engine.min_seats)


def extra(game: str) -> Any:
    """The game's own module of hostile rows (``tests/hostile/<game>.py``), or None."""
    return importlib.import_module(f"hostile.{game}") if importlib.util.find_spec(f"hostile.{game}") else None


@dataclass
class Seated:
    gid: str
    tokens: list[str]
    actor: str  # the token of the seat that receives the game's own rows (its hostile module's actor)


def seated(game: str, client: Any) -> Seated:
    """A game of the fewest seats, all human, every seat claimed, driven by the first listed
    actions until the game's hostile module finds it ``ready`` (Ludic: the rule phase)."""
    own = extra(game)
    ready = getattr(own, "ready", lambda view: True)
    actor_of = getattr(own, "actor", lambda view: view["to_act"][0])
    n = registry.game(game).engine.min_seats
    resp = client.post("/games", json={"seats": ["human"] * n})
    assert resp.status_code == 201, resp.data
    gid, tokens = resp.json["game"]["id"], [resp.json["token"]]
    for _ in range(n - 1):
        joined = client.post(f"/games/{gid}/players", json={})
        assert joined.status_code == 201, joined.data
        tokens.append(joined.json["token"])
    view = client.get(f"/games/{gid}").json
    for _ in range(200):
        if ready(view):
            break
        seat = view["to_act"][0]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        legal = client.get(f"/games/{gid}/actions", headers=auth).json["actions"]
        assert client.post(f"/games/{gid}/actions", json=legal[0], headers=auth).status_code == 200
        view = client.get(f"/games/{gid}").json
    return Seated(gid, tokens, tokens[actor_of(view)])


def snapshot(r: redis.Redis, game: str, gid: str) -> tuple[Any, ...]:
    """Everything stored about the game, and which games exist."""
    stored = re.compile(rf"{game}:{{[0-9a-f]+}}:".encode())  # games' keys (not the limiter's, the boards')
    games = sorted(k for k in r.scan_iter(f"{game}:{{*}}:*", count=1000) if stored.match(k))
    return (r.hgetall(f"{game}:{{{gid}}}:game"), r.xlen(f"{game}:{{{gid}}}:events"),
            r.lrange(f"{game}:{{{gid}}}:log", 0, -1), games, r.zcard(f"{game}:lobby"))


def send(client: Any, r: Row, gid: str, token: str) -> Any:
    headers = dict(r.headers)
    if r.auth and "Authorization" not in headers:
        headers["Authorization"] = f"Bearer {token}"
    if r.content_type:
        headers["Content-Type"] = r.content_type
    path = r.path.replace("{id}", gid)
    data: bytes | None
    if r.body is None:
        data = None
    elif isinstance(r.body, bytes):
        data = r.body
    elif isinstance(r.body, str):
        data = r.body.encode("utf-8", "surrogatepass")
    else:
        data = json.dumps(r.body).encode()
    if r.chunked:
        headers["Transfer-Encoding"] = "chunked"
        return client.open(path, method=r.method, headers=headers, input_stream=io.BytesIO(data or b""),
                           environ_overrides={"wsgi.input_terminated": True})
    return client.open(path, method=r.method, headers=headers, data=data)


@pytest.mark.parametrize("game", registry.names())
def test_hostile_requests_get_a_clear_4xx_and_change_nothing(game: str, client_factory: Any,
                                                               redis_client: redis.Redis) -> None:
    client = client_factory(game)
    table = seated(game, client)
    rows = [*common_rows(game), *game_rows(game)]
    before = snapshot(redis_client, game, table.gid)
    wrong: list[str] = []
    statuses: collections.Counter[int] = collections.Counter()
    for r in rows:
        resp = send(client, r, table.gid, table.actor)
        statuses[resp.status_code] += 1
        problem = resp.get_json(silent=True, force=True) if resp.status_code >= 400 else None
        if resp.status_code not in r.expect:
            wrong.append(f"{r.name}: {resp.status_code} (expected {sorted(r.expect)}): {resp.data[:300]!r}")
        elif resp.status_code >= 400 and (resp.mimetype != PROBLEM or not isinstance(problem, dict)
                                          or problem.get("status") != resp.status_code or not problem.get("title")):
            wrong.append(f"{r.name}: {resp.status_code} is not problem+json: {resp.data[:300]!r}")
        elif resp.status_code >= 400 and resp.status_code != 413 and r.expect == {400} and not problem.get("detail"):
            wrong.append(f"{r.name}: a 400 without a detail")
        after = snapshot(redis_client, game, table.gid)
        if after != before:
            wrong.append(f"{r.name}: the stored game changed")
            before = after
    fives = sum(v for k, v in statuses.items() if k >= 500)
    print(f"\nhostile input, {game}: {len(rows)} requests, statuses {dict(sorted(statuses.items()))}, 5xx: {fives}")
    assert len(rows) >= 100, "the table covers at least 100 malformed requests a game"
    assert not wrong, "\n".join(wrong)



# -- the bounds themselves, exactly ---------------------------------------------------------------
@pytest.mark.parametrize(("text", "value"), [
    ("[" * MAX_DEPTH + "]" * MAX_DEPTH, None),  # exactly the limit is fine
    ('{"rule": "((((((((((((((((((((((((((((((((((((((((("}', {"rule": "(" * 41}),  # strings do not nest
    ('["[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "\\"[[["]', ["[" * 37, '"[[[']),
    (f"[{MAX_SAFE_INTEGER}, -{MAX_SAFE_INTEGER}, 1e308, -0.0, 1.5]",
     [MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER, 1e308, -0.0, 1.5]),
    ('{"name": "\\ud83c\\udfb2 \\u00e9"}', {"name": "\U0001f3b2 é"}),
])
def test_bounded_parser_accepts_what_is_within_the_bounds(text: str, value: Any) -> None:
    parsed = bodies.loads(text.encode())
    if value is not None:
        assert parsed == value


@pytest.mark.parametrize("text", [
    "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), f"{MAX_SAFE_INTEGER + 1}", f"-{MAX_SAFE_INTEGER + 1}",
    HUGE_INT, "1e309", "NaN", "Infinity", "-Infinity", "[1,]", "", "\ufeff{}",
])
def test_bounded_parser_refuses_what_is_beyond_them(text: str) -> None:
    with pytest.raises(bodies.JSONBodyError):
        bodies.loads(text.encode())


def test_responses_are_encoded_as_before(client_factory: Any) -> None:
    """The bounded provider only parses: responses keep Flask's default encoding, byte for byte."""
    app = client_factory("ludix").application
    body = {"b": [1, 2.5, None, True], "a": "\U0001f3b2 é", "c": {"z": 1, "y": 2}}
    with app.app_context():
        assert app.json.dumps(body) == DefaultJSONProvider(app).dumps(body)


def test_rule_nesting_is_bounded_in_the_language() -> None:
    """Ludic's parser refuses deep rules with its own error (reason 'size'), for the Vexer's rule,
    a Seeker's guess and the checker alike, and accepts nesting within the bound."""
    from ludic import language, rules

    fine = "(" * language.MAX_PARENTHESES + "the top card is red" + ")" * language.MAX_PARENTHESES
    assert language.normalise(fine) == "the top card is red"
    for text in (PARENS, NOTS, "(" * (language.MAX_PARENTHESES + 1) + "the top card is red"
                 + ")" * (language.MAX_PARENTHESES + 1)):
        with pytest.raises(language.RuleError) as caught:
            rules.accept_guess(text)
        assert caught.value.reason == "size"
        assert rules.check(text)["errors"][0]["reason"] == "size"
