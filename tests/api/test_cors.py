"""CORS (``ludoteca.adapters.hosting.cors``): off by default; for the configured origins, preflights are
answered and every answer, problems included, may be read by the page."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from conftest import in_process_app
from ludoteca.config import Settings, parse_origins

APP = "https://app.example"
PREFLIGHT = {"Origin": APP, "Access-Control-Request-Method": "POST",
             "Access-Control-Request-Headers": "authorization, content-type, if-match"}


def client(settings: Settings, origins: tuple[str, ...]) -> Any:
    return in_process_app("ludix", replace(settings, cors_origins=origins)).test_client()


def test_the_setting_is_a_comma_separated_list(monkeypatch: pytest.MonkeyPatch) -> None:
    assert parse_origins("") == () and parse_origins(" , ") == ()
    assert parse_origins(f"{APP}/, http://localhost:5173,{APP}") == (APP, "http://localhost:5173")
    monkeypatch.setenv("LUDOTECA_CORS_ORIGINS", f"{APP},*")
    assert Settings.from_env().cors_origins == (APP, "*")
    monkeypatch.delenv("LUDOTECA_CORS_ORIGINS")
    assert Settings.from_env().cors_origins == ()


def test_off_by_default(settings: Settings) -> None:
    c = client(settings, ())
    r = c.get("/stats", headers={"Origin": APP})
    assert r.status_code == 200 and not any(h.lower().startswith("access-control-") for h, _ in r.headers.items())
    r = c.options("/games", headers=PREFLIGHT)
    assert "Access-Control-Allow-Origin" not in r.headers


def test_an_allowed_origin_gets_its_preflight_and_its_answers(settings: Settings) -> None:
    c = client(settings, (APP,))
    r = c.options("/games/0123abcd/actions", headers=PREFLIGHT)
    assert r.status_code == 204 and r.data == b""
    assert r.headers["Access-Control-Allow-Origin"] == APP
    assert r.headers["Access-Control-Allow-Methods"] == "GET, OPTIONS, POST"  # the route's: listing, moving
    allowed = {h.strip().lower() for h in r.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "content-type", "if-match", "if-none-match", "idempotency-key"} <= allowed
    assert r.headers["Access-Control-Max-Age"] == "600"
    created = c.post("/games", json={"seats": ["human", "human"]}, headers={"Origin": APP})
    assert created.status_code == 201 and created.headers["Access-Control-Allow-Origin"] == APP
    exposed = {h.strip() for h in created.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"ETag", "Location", "Idempotent-Replayed", "Retry-After", "X-Request-Id"} <= exposed
    assert "Origin" in created.headers["Vary"]
    problem = c.get("/games/0123abcd", headers={"Origin": APP})  # a problem is readable too
    assert problem.status_code == 404 and problem.headers["Access-Control-Allow-Origin"] == APP


def test_a_preflight_lists_the_methods_of_its_path(settings: Settings) -> None:
    """A page on another origin can cancel its matchmaking ticket (``DELETE``), and is offered
    no method a path does not take."""
    c = client(settings, (APP,))
    cancel = {**PREFLIGHT, "Access-Control-Request-Method": "DELETE"}
    ticket = c.options("/matchmaking/0123abcd0123abcd", headers=cancel)
    assert ticket.status_code == 204 and "DELETE" in ticket.headers["Access-Control-Allow-Methods"].split(", ")
    game = c.options("/games/0123abcd", headers=PREFLIGHT)
    assert "DELETE" not in game.headers["Access-Control-Allow-Methods"] and "POST" not in game.headers[
        "Access-Control-Allow-Methods"]


def test_another_origin_gets_nothing(settings: Settings) -> None:
    c = client(settings, (APP,))
    r = c.options("/games", headers={**PREFLIGHT, "Origin": "https://evil.example"})
    assert r.status_code != 204 and "Access-Control-Allow-Origin" not in r.headers
    r = c.get("/stats", headers={"Origin": "https://evil.example"})
    assert r.status_code == 200 and "Access-Control-Allow-Origin" not in r.headers
    assert "Origin" in r.headers["Vary"]  # a cache must not hand this answer to the allowed origin


def test_any_origin(settings: Settings) -> None:
    c = client(settings, ("*",))
    r = c.get("/stats", headers={"Origin": "https://anyone.example"})
    assert r.headers["Access-Control-Allow-Origin"] == "*"
    assert c.options("/games", headers={**PREFLIGHT, "Origin": "https://anyone.example"}).status_code == 204
