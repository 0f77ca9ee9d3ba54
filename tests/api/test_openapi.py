"""The OpenAPI documents: in sync with the code, valid, and honest about the responses.

Schemathesis runs every phase of its engine over each service, in process against the real
Redis: examples, coverage (boundary and negative values of every field), fuzzing (positive and
negative data) and the stateful phase (chains of calls, links inferred from the `Location` of
`POST /games` and from the schema's dependencies), with a fixed seed. A test-side auth provider
plays the seat tokens the service hands out (`POST /games`, `POST /games/{id}/players`) back on
the calls about that game, so the stateful chains reach the moves, not only 401s. Every check
runs (no server error, status code, content type, headers and response schema conformance,
negative data rejected, missing or ignored auth, use after free, unsupported methods...) except
`positive_data_acceptance` on the operations named in STATEFUL_RULES below.

``pytest tests/api/test_openapi.py -s`` prints each service's figure: requests per phase and
failures.
"""

from __future__ import annotations

import collections
import json
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from conftest import in_process_app
from flask import Flask
from ludoteca.config import Settings
from ludoteca.entrypoints.openapi import render
from ludoteca.service_layer import registry
from openapi_spec_validator import validate
from players.routes import create_app as create_players_app
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import Status, events, from_schema
from schemathesis.transport.wsgi import WSGI_TRANSPORT

ROOT = Path(__file__).resolve().parents[2]
SEED = 20261201
MAX_EXAMPLES = 40
"""Per operation and phase; tuned so each service gets well over 1,000 requests."""
MIN_REQUESTS = 1_000
POSITIVE_DATA = {"positive_data_acceptance": {"expected-statuses": ["2XX", "304", "401", "404"]}}
"""Schema-valid data must be accepted: a 2xx (304 for a matching If-None-Match), 401 for a
well-formed bearer token of no seat of that game (the stateful phase replays tokens it saw in
other games' responses), or 404 for a well-formed id of a game that does not exist."""
STATEFUL_RULES = [("POST", "/games"), ("POST", "/games/{game_id}/players"), ("POST", "/games/{game_id}/actions"),
                  ("GET", "/games/{game_id}/replay"), ("POST", "/rules/check"), ("POST", "/games/{game_id}/leave"),
                  ("POST", "/matchmaking")]
"""Where "schema-valid data must be accepted" is off: the cross-field and state rules there
cannot be written in OpenAPI 3.0 (the creator's seat must be a human seat of `seats`, and the
`timeout_bot` option comes only with `turn_seconds`; a joined
seat must be open; an action must be legal now and `If-Match` current; the replay opens at the
end; Ludic's two initial sets come both or neither), so schema-valid data is rightly refused with
409/412/422. Every other check runs on them, and this one on every other operation."""


@pytest.mark.parametrize("game", registry.names())
def test_exported_document_matches_the_code(game: str) -> None:
    path = ROOT / "openapi" / f"{game}.json"
    assert path.exists(), f"run `make generate`: {path} is missing"
    assert path.read_text() == render(game), f"openapi/{game}.json drifted from the code: run `make generate`"


def _query_fields(app: Flask) -> Iterable[tuple[str, str, str]]:
    """(path as documented, method, query field) of every route taking a query schema."""
    for rule in app.url_map.iter_rules():
        view = getattr(app.view_functions[rule.endpoint], "view_class", None)
        for method in getattr(view, "methods", None) or ():
            apidoc = getattr(getattr(view, method.lower(), None), "_apidoc", {})
            for argument in apidoc.get("arguments", {}).get("parameters", []):
                if argument["in"] == "query":
                    schema = argument["schema"]() if isinstance(argument["schema"], type) else argument["schema"]
                    path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
                    for name, field in schema.fields.items():
                        yield path, method.lower(), field.data_key or name


@pytest.mark.parametrize("service", [*registry.names(), "players"])
def test_every_query_field_is_a_documented_parameter(service: str) -> None:
    """A route's hand-written ``parameters`` (a header, say) replace those flask-smorest makes
    from its query schema: each field the route reads must still be in the exported document
    (the players' notices long-polled with ``after`` and ``wait`` that their document did not name)."""
    app = create_players_app(Settings()) if service == "players" else in_process_app(service, Settings())
    paths = json.loads((ROOT / "openapi" / f"{service}.json").read_text())["paths"]
    found = list(_query_fields(app))
    assert found
    for path, method, name in found:
        documented = {p["name"] for p in paths[path][method].get("parameters", []) if p["in"] == "query"}
        assert name in documented, f"{service}: {method.upper()} {path} reads ?{name} and does not document it"


@pytest.mark.parametrize("game", registry.names())
def test_document_is_valid_openapi(game: str) -> None:
    validate(json.loads(render(game)))


@pytest.mark.parametrize("game", registry.names())
def test_the_exported_document_names_the_public_base_url_then_the_front_door(game: str) -> None:
    """A generated client's default base path is the first server: the game's public base URL,
    a variable whose default reaches the game from outside (issue 21)."""
    servers = json.loads(render(game))["servers"]
    public = servers[0]
    assert public["url"] == "{base}" and public["variables"]["base"]["default"] == f"http://127.0.0.1:8000/{game}"
    assert servers[1]["url"] == f"/{game}" and "front door" in servers[1]["description"]


@pytest.mark.parametrize(("headers", "url"), [({}, "/"), ({"X-Forwarded-Prefix": "/ludix"}, "/ludix"),
                                              ({"X-Forwarded-Prefix": "/a/b-2"}, "/a/b-2"),
                                              ({"X-Forwarded-Prefix": "/x\"<script>"}, "/"),
                                              ({"X-Forwarded-Prefix": "//evil.example"}, "/")])
def test_the_served_document_follows_the_prefix(client_factory: Any, headers: dict[str, str], url: str) -> None:
    """Straight to a service, ``/``; behind a proxy that sends ``X-Forwarded-Prefix``, that
    prefix (relative, so Swagger UI's "Try it out" calls the routes under it); a prefix that is
    not plain path segments is not echoed."""
    client = client_factory("ludix")
    r = client.get("/openapi.json", headers=headers)
    assert r.status_code == 200
    assert [s["url"] for s in r.get_json()["servers"]] == [url, "{base}"]
    validate(r.get_json())


OPERATION_ID = re.compile(r"[a-z]+(?:[A-Z][a-z]+)+")
STANDARD_OPERATIONS = {("get", "/games"): "listGames", ("post", "/games"): "createGame",
                       ("get", "/games/{game_id}"): "getGame", ("post", "/games/{game_id}/players"): "joinGame",
                       ("get", "/games/{game_id}/actions"): "listActions",
                       ("post", "/games/{game_id}/actions"): "playAction",
                       ("get", "/games/{game_id}/events"): "getEvents", ("get", "/games/{game_id}/replay"): "getReplay",
                       ("get", "/leaderboard"): "getLeaderboard", ("get", "/stats"): "getStats"}


BEARERS = ({"bearerAuth": []},)


def operations(doc: dict[str, Any]) -> Iterable[tuple[str, str, dict[str, Any]]]:
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            if method != "parameters":
                yield method, path, operation


@pytest.mark.parametrize("game", registry.names())
def test_every_operation_is_named_described_and_says_its_security(game: str) -> None:
    doc = json.loads(render(game))
    ids = {}
    for method, path, operation in operations(doc):
        name = operation.get("operationId", "")
        assert OPERATION_ID.fullmatch(name), (method, path, name)
        assert name not in ids.values(), f"{name} twice"
        ids[(method, path)] = name
        assert operation.get("summary") and "\n" not in operation["summary"], (method, path)
        assert len(operation.get("description", "")) > len(operation["summary"]), (method, path)
        assert "security" in operation, (method, path)
    assert {k: ids[k] for k in STANDARD_OPERATIONS} == STANDARD_OPERATIONS
    # public: no token needed (`[]`, or `{}` among the alternatives: a token optional, e.g. a player's)
    public = {ids[k] for k in ids if doc["paths"][k[1]][k[0]]["security"] in ([], *([{}, s] for s in BEARERS))}
    assert {"listGames", "createGame", "joinGame", "getReplay", "getStats"} <= public
    assert "playAction" not in public and "listActions" not in public


def walk(node: Any, path: str = "") -> Iterable[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from walk(value, f"{path}/{i}")


@pytest.mark.parametrize("game", registry.names())
def test_every_request_body_and_main_answer_has_an_example(game: str) -> None:
    """The examples come from the engine (ludoteca.adapters.hosting.examples); the lint checks each
    against its schema (spectral's oas3-valid-media-example)."""
    doc = json.loads(render(game))
    for method, path, operation in operations(doc):
        media = [*operation.get("requestBody", {}).get("content", {}).values()]
        main = min(code for code in operation["responses"] if code.startswith("2"))
        media += operation["responses"][main]["content"].values()
        for m in media:
            assert "example" in m or "examples" in m, (method, path)
    play = doc["paths"]["/games/{game_id}/actions"]["post"]
    example = play["requestBody"]["content"]["application/json"]["example"]
    assert example == play["responses"]["200"]["content"]["application/json"]["example"]["action"]


@pytest.mark.parametrize("game", registry.names())
def test_nullable_refs_and_enums_read_as_one_type(game: str) -> None:
    """No ``anyOf`` with a bare object (a generator takes it first: ``result`` would be a dict),
    no inline nullable enum (a generator makes a class per use), no sibling of a ``$ref``."""
    doc = json.loads(render(game))
    for where, node in walk(doc["components"]):
        for alternative in node.get("anyOf", []):
            assert alternative.get("type") != "object" or alternative.get("enum") == [None], where
        if node.get("nullable") and "enum" in node:
            assert node["enum"] == [None], where
        if "$ref" in node:
            assert len(node) == 1, where
    envelope = doc["components"]["schemas"][f"{game.capitalize()}Game"]["properties"]
    assert envelope["result"]["anyOf"][0] == {"$ref": f"#/components/schemas/{game.capitalize()}Result"}
    assert envelope["status"]["allOf"] == [{"$ref": "#/components/schemas/GameStatus"}]
    assert "may_act" in envelope and "description" in envelope["may_act"]


@pytest.mark.parametrize("game", registry.names())
def test_problems_are_documented_per_status_and_admit_their_members(game: str) -> None:
    doc = json.loads(render(game))
    schemas, responses = doc["components"]["schemas"], doc["components"]["responses"]

    def schema_of(response: str) -> dict[str, Any]:
        ref = responses[response]["content"]["application/problem+json"]["schema"]["$ref"]
        return schemas[ref.rsplit("/", 1)[1]]

    conflict = schema_of("CONFLICT")
    action = {"$ref": f"#/components/schemas/{game.capitalize()}Action"}
    assert conflict["properties"]["legal"]["items"] == action
    assert "current_version" in schema_of("PRECONDITION_FAILED")["properties"]
    assert {"errors", "rule_error"} <= set(schema_of("UNPROCESSABLE_ENTITY")["properties"])
    for name in ("CONFLICT", "PRECONDITION_FAILED", "UNPROCESSABLE_ENTITY", "NOT_FOUND"):
        # open all the same (JSON Schema's default), without an index signature in TypeScript (issue 21)
        assert "additionalProperties" not in schema_of(name), name


@pytest.mark.parametrize("game", registry.names())
def test_the_conditional_and_idempotency_headers_are_documented(game: str) -> None:
    doc = json.loads(render(game))
    get = doc["paths"]["/games/{game_id}"]["get"]
    assert "If-None-Match" in {p["name"] for p in get["parameters"]}
    play = doc["paths"]["/games/{game_id}/actions"]["post"]
    assert {"If-Match", "Idempotency-Key"} <= {p["name"] for p in play["parameters"]}
    assert {"ETag", "Idempotent-Replayed"} <= set(play["responses"]["200"]["headers"])


def recording_tokens(wsgi: Callable[..., Iterable[bytes]], tokens: dict[str, str]) -> Callable[..., Any]:
    """WSGI middleware: remember the last seat token granted for each game (201 responses)."""
    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        status: list[str] = []

        def start(code: str, headers: Any, exc_info: Any = None) -> Any:
            status.append(code)
            return start_response(code, headers, exc_info)

        body = b"".join(wsgi(environ, start))
        if environ["REQUEST_METHOD"] == "POST" and status and status[0].startswith("201"):
            data = json.loads(body)
            if data.get("token"):
                tokens[data["game"]["id"]] = data["token"]
        return [body]
    return app


def without_socket_options(monkeypatch: pytest.MonkeyPatch) -> None:
    """Work around a schemathesis 4.32 bug: its `ignored_auth` probe hands socket options
    (`max_redirects`, `verify`, ...) to werkzeug's test client, which refuses them (TypeError);
    in process they mean nothing, so drop them, as the transport already does with a session."""
    send = WSGI_TRANSPORT.send

    def send_in_process(case: Any, *, session: Any = None, **kwargs: Any) -> Any:
        for name in ("max_redirects", "verify", "cert", "proxies"):
            kwargs.pop(name, None)
        return send(case, session=session, **kwargs)

    monkeypatch.setattr(WSGI_TRANSPORT, "send", send_in_process)


def run_schemathesis(game: str, settings: Settings) -> tuple[collections.Counter[str], list[str]]:
    """Every phase over one service: (requests per phase, failures)."""
    # No long-poll actually waits here (a generated `wait` would hold each call for seconds), and an
    # event stream closes as soon as it has sent what is there (this middleware reads it whole).
    app = in_process_app(game, replace(settings, max_long_poll_seconds=0.0, max_stream_seconds=0.0))
    tokens: dict[str, str] = {}
    app.wsgi_app = recording_tokens(app.wsgi_app, tokens)  # type: ignore[method-assign]
    config = SchemathesisConfig.from_dict({
        "seed": SEED,
        "max-failures": 50,
        "generation": {"max-examples": MAX_EXAMPLES},
        "phases": {"stateful": {"enabled": True, "max-steps": 40,
                                "inference": {"algorithms": ["location-headers", "dependency-analysis"]}}},
        "checks": POSITIVE_DATA,
        "operations": [{"include-name": f"{method} {path}", "checks": {"positive_data_acceptance": {"enabled": False}}}
                       for method, path in STATEFUL_RULES],
    })
    schema = schemathesis.openapi.from_wsgi("/openapi.json", app, config=config)

    @schema.auth.auth(refresh_interval=None, retry_on=[])
    class SeatTokens:
        """The token of a seat of the game the call is about (none for other calls)."""

        def get(self, case: Any, context: Any) -> str | None:
            return tokens.get((case.path_parameters or {}).get("game_id", ""))

        def set(self, case: Any, data: str | None, context: Any) -> None:
            if data:
                case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}

    requests: collections.Counter[str] = collections.Counter()
    statuses: collections.Counter[int] = collections.Counter()
    failures: list[str] = []
    for event in from_schema(schema).execute():
        if isinstance(event, events.ScenarioFinished):
            requests[str(event.phase)] += len(event.recorder.interactions)
            for interaction in event.recorder.interactions.values():
                if interaction.response is not None:
                    statuses[interaction.response.status_code] += 1
            if event.status == Status.ERROR:
                failures.append(f"{event.phase} {event.recorder.label}: errored")
            for checks in event.recorder.checks.values():
                for check in checks:
                    if check.status == Status.FAILURE and check.failure_info is not None:
                        info = check.failure_info
                        failures.append(f"{event.phase} {event.recorder.label} [{check.name}] "
                                        f"{info.failure.title}: {info.failure.message}\n    {info.code_sample}")
        elif isinstance(event, (events.NonFatalError, events.FatalError)):
            failures.append(f"engine error: {event!r}"[:2000])
    print(f"\nschemathesis {game}: statuses {dict(sorted(statuses.items()))}, seat tokens played: {len(tokens)} games")
    return requests, list(dict.fromkeys(failures))


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("game", registry.names())
def test_api_conforms_to_its_document(game: str, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every documented operation, every phase: no 5xx, documented statuses, types and schemas."""
    without_socket_options(monkeypatch)
    started = time.monotonic()
    requests, failures = run_schemathesis(game, settings)
    total = sum(requests.values())
    print(f"\nschemathesis {game}: {total} requests ({dict(requests)}), {len(failures)} failures, "
          f"{time.monotonic() - started:.0f} s")
    assert not failures, "\n\n".join(failures)
    assert requests["stateful"] > 0, "the stateful phase ran no request"
    assert total >= MIN_REQUESTS, f"only {total} generated requests"
