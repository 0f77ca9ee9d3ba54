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
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import redis
from flask.json.provider import DefaultJSONProvider
from ludoteca.adapters.hosting import bodies
from ludoteca.adapters.hosting.bodies import MAX_BODY_BYTES, MAX_DEPTH, MAX_SAFE_INTEGER
from ludoteca.adapters.hosting.examples import operation_examples
from ludoteca.service_layer import registry

PROBLEM = "application/problem+json"
BIG = MAX_BODY_BYTES + 1024
DEEP = "[" * 10_000 + "]" * 10_000
DEEP_OBJECT = '{"a":' * 5_000 + "1" + "}" * 5_000
JUST_TOO_DEEP = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
HUGE_INT = "9" * 5_001
NOT_UTF8 = b'{"type": "\xff\xfe\xc3\x28"}'
LATIN1 = '{"type": "caf\xe9"}'.encode("latin-1")
UNICODE = "\U0001f3b2\u200b\u202e\ufffd\u0301" * 200  # dice emoji, zero-width, RTL override, combining
PARENS = "(" * 260 + "the top card is red" + ")" * 260
NOTS = "not " * 480 + "the top card is red"
LONG_NUMBER = "the sum is " + "9" * 1500


@dataclass
class Row:
    """One hostile request and the status it must get (a set when either is right)."""

    name: str
    method: str
    path: str  # "{id}" is the game's id
    body: bytes | str | Any = None  # bytes/str: sent raw; anything else: JSON-encoded
    content_type: str | None = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    auth: bool = True  # send the seat's token (unless headers has an Authorization)
    expect: frozenset[int] = frozenset({400})
    chunked: bool = False


def row(name: str, method: str, path: str, body: Any = None, expect: int | set[int] = 400, **kw: Any) -> Row:
    return Row(name, method, path, body, expect=frozenset({expect} if isinstance(expect, int) else expect), **kw)


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
    """Each game's own options, action fields and extras."""
    act = "/games/{id}/actions"
    seats = ["human"] * registry.game(game).engine.min_seats

    def options(name: str, opts: Any, status: int = 422) -> Row:
        body = opts if isinstance(opts, str) else {"seats": seats, "options": opts}
        return row(f"options: {name}", "POST", "/games", body, expect=status, auth=False)

    def action(name: str, body: Any, status: int | set[int] = 422) -> Row:
        return row(f"action: {name}", "POST", act, body, expect=status)

    if game == "ludix":
        yield options("target 2.6e-42", {"target": 2.6e-42})
        yield options("target 300.0", {"target": 300.0})
        yield options("target true", {"target": True})
        yield options("target '300'", {"target": "300"})
        yield options("target 5,001 digits", f'{{"seats": {json.dumps(seats)}, "options": {{"target": {HUGE_INT}}}}}',
                      400)
        yield options("target 10^15", {"target": 10**15})
        yield action("roll numeral a number", {"type": "roll", "numeral": 5})
        yield action("hold numeral unicode", {"type": "hold", "numeral": UNICODE})
        yield action("hold numeral full-width", {"type": "hold", "numeral": "ＬＸＶＩ"})
        yield action("roll numeral with newline", {"type": "roll", "numeral": "LXVI\n"}, {409, 422})
        yield action("alea_jacta_est extra field", {"type": "alea_jacta_est", "x": 1})
        for dice in ["ＬＸＶＩ", "LXVI%0A", "LXV", "L" * 5000, "%FF%FE"]:
            yield row(f"numerals?dice={dice[:12]}", "GET", f"/numerals?dice={dice}", expect=422, content_type=None,
                      auth=False)
    elif game == "ludic":
        yield options("round_limit 1.5", {"round_limit": 1.5})
        yield options("round_limit 2.0", {"round_limit": 2.0})
        yield options("round_limit true", {"round_limit": True})
        yield options("short_game 1", {"short_game": 1})
        yield options("short_game 'yes'", {"short_game": "yes"})
        yield options("vexer_choices 'true'", {"vexer_choices": "true"})
        yield options("turn_initial_sets 0", {"turn_initial_sets": 0})
        yield options("round_limit 5,001 digits",
                      f'{{"seats": {json.dumps(seats)}, "options": {{"round_limit": {HUGE_INT}}}}}', 400)
        # the caller is the Vexer writing the rule (see `seated`): the rule reaches the parser
        yield action("write_rule: 260 nested parentheses", {"type": "write_rule", "rule": PARENS})
        yield action("write_rule: 480 nots", {"type": "write_rule", "rule": NOTS})
        yield action("write_rule: 1,500-digit number", {"type": "write_rule", "rule": LONG_NUMBER})
        yield action("write_rule: unicode-heavy", {"type": "write_rule", "rule": UNICODE[:1000]})
        yield action("write_rule: NUL bytes", {"type": "write_rule", "rule": "the top card\x00 is red"})
        yield action("write_rule: 2,001 characters", {"type": "write_rule", "rule": "x" * 2001})
        yield action("write_rule: empty", {"type": "write_rule", "rule": ""})
        yield action("write_rule: a number", {"type": "write_rule", "rule": 5})
        yield action("write_rule: turn_obey 1", {"type": "write_rule", "rule": "the top card is red", "turn_obey": 1})
        yield action("write_rule: turn_break 'no'",
                     {"type": "write_rule", "rule": "the top card is red", "turn_break": "no"})
        yield action("guess out of phase, deep", {"type": "guess", "rule": PARENS}, {409, 422})
        yield action("query card 'AS'", {"type": "query", "top": "AS", "bottom": "4S"})
        yield action("play column unicode", {"type": "play", "top": "QH", "bottom": "4S", "column": UNICODE})
        yield action("choose_flip card 10", {"type": "choose_flip", "column": "obey", "top": 10, "bottom": "2C"})
        check = "/rules/check"
        for name, body, status in [
            ("260 nested parentheses", {"rule": PARENS}, 200), ("480 nots", {"rule": NOTS}, 200),
            ("1,500-digit number", {"rule": LONG_NUMBER}, 200), ("unicode-heavy", {"rule": UNICODE[:1000]}, 200),
            ("2,001 characters", {"rule": "x" * 2001}, 422), ("a number", {"rule": 5}, 422),
            ("obey_set only", {"rule": "the top card is red", "obey_set": {"top": "QH", "bottom": "4S"}}, 422),
            ("card 'AS'", {"rule": "the top card is red", "obey_set": {"top": "AS", "bottom": "4S"},
                           "break_set": {"top": "JS", "bottom": "3H"}}, 422),
            ("deep", DEEP, 400), ("not UTF-8", NOT_UTF8, 400), ("big", b'{"rule": "' + b"a" * BIG + b'"}', 413),
        ]:
            yield row(f"rules/check: {name}", "POST", check, body, expect=status, auth=False)
    elif game == "speculation":
        yield options("first_guesser 5", {"first_guesser": 5})
        yield options("joker_guesses unicode", {"joker_guesses": UNICODE})
        yield action("report_clothing items 2.6e-42", {"type": "report_clothing", "items": 2.6e-42})
        yield action("report_clothing items true", {"type": "report_clothing", "items": True})
        yield action("report_clothing items '3'", {"type": "report_clothing", "items": "3"})
        yield action("report_clothing items 3.0", {"type": "report_clothing", "items": 3.0})
        yield action("report_clothing items -1", {"type": "report_clothing", "items": -1})
        yield action("report_clothing items 2^53-1", {"type": "report_clothing", "items": 2**53 - 1})
        yield action("report_clothing items 2^64", f'{{"type": "report_clothing", "items": {2**64}}}', 400)
        yield action("guess value 2.6e-42", {"type": "guess", "value": 2.6e-42})
        yield action("guess value true", {"type": "guess", "value": True})
        yield action("guess_joker values floats", {"type": "guess_joker", "values": [1, 2, 3, 4.0]})
        yield action("guess_joker values 10,000", {"type": "guess_joker", "values": [1] * 10_000})
        yield action("guess_joker values nested", {"type": "guess_joker", "values": [[1], [2], [3], [4]]})
    elif game == "ludor":
        yield options("round_limit 2.0", {"round_limit": 2.0})
        yield options("round_limit true", {"round_limit": True})
        yield options("straights 'true'", {"straights": "true"})
        yield options("deck unicode", {"deck": UNICODE})
        yield action("play cards numbers", {"type": "play", "cards": [5]})
        yield action("play cards a string", {"type": "play", "cards": "7C"})
        yield action("play 10,000 cards", {"type": "play", "cards": ["7C"] * 10_000})
        yield action("play no cards", {"type": "play", "cards": []})
        yield action("vote end 1", {"type": "vote", "end": 1})
        yield action("vote end 'true'", {"type": "vote", "end": "true"})
        yield action("play_autoplim declare_plim 0", {"type": "play_autoplim", "declare_plim": 0})
        yield action("play_autoplim declare_plim 'yes'", {"type": "play_autoplim", "declare_plim": "yes"})
        yield action("play rank 'ten'", {"type": "play", "cards": ["JK1"], "rank": "ten"})
        yield action("play rank 7", {"type": "play", "cards": ["JK1"], "rank": 7})
        yield action("play rank 2_de_oros", {"type": "play", "cards": ["JK1"], "rank": "2_de_oros"})
        yield action("give_back cards unicode", {"type": "give_back", "cards": [UNICODE]})


@dataclass
class Seated:
    gid: str
    tokens: list[str]
    actor: str  # the token of a seat the game waits on (Ludic: the Vexer writing the rule)


def seated(game: str, client: Any) -> Seated:
    """A game of the fewest seats, all human, every seat claimed (Ludic: driven to the rule phase)."""
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
        if game != "ludic" or view["state"]["phase"] == "rule":
            break
        seat = view["to_act"][0]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        legal = client.get(f"/games/{gid}/actions", headers=auth).json["actions"]
        assert client.post(f"/games/{gid}/actions", json=legal[0], headers=auth).status_code == 200
        view = client.get(f"/games/{gid}").json
    actor = view["state"]["vexer"] if game == "ludic" else view["to_act"][0]
    return Seated(gid, tokens, tokens[actor])


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
