"""The players service as a service (issue 23, items 1 and 8): public profiles, the creation and
bad-token limits per client address, the operations routes, and its OpenAPI document (valid, and
the exported file in step with the code)."""

from __future__ import annotations

import json
import secrets
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
from flask.testing import FlaskClient
from ludoteca.config import Settings
from openapi_spec_validator import validate
from players.routes import create_app

ROOT = Path(__file__).resolve().parents[2]
PROBLEM = "application/problem+json"


def address() -> dict[str, str]:
    """A client address of this test's own (a limit's window outlives a test run)."""
    return {"REMOTE_ADDR": f"10.{secrets.randbelow(256)}.{secrets.randbelow(256)}.{secrets.randbelow(254) + 1}"}


def export() -> str:
    app = create_app(Settings())
    with app.app_context():
        document = app.extensions["ludoteca"]["api"].document()
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


class TestProfile:
    def test_a_guests_public_profile(self, players_client: FlaskClient) -> None:
        made = players_client.post("/", json={"name": "Hedy"}).get_json()
        resp = players_client.get(f"/{made['player']['id']}")
        assert resp.status_code == 200
        assert resp.get_json() == {"id": made["player"]["id"], "name": "Hedy", "kind": "guest", "games": {}}
        assert made["token"] not in resp.get_data(as_text=True)

    @pytest.mark.parametrize("player_id", ["0" * 32, "f" * 32, "nope", "A" * 32, "0" * 33, "%00"])
    def test_an_unknown_player_is_a_404(self, players_client: FlaskClient, player_id: str) -> None:
        resp = players_client.get(f"/{player_id}")
        assert resp.status_code == 404 and resp.mimetype == PROBLEM


class TestLimits:
    def test_new_players_are_limited_per_client_address(self, settings: Settings) -> None:
        limited = replace(settings, rate_limit_per_minute=600, rate_limit_create_per_minute=3)
        client = create_app(limited).test_client()
        mine, other = address(), address()
        made = [client.post("/", json={"name": f"p{i}"}, environ_base=mine).status_code for i in range(3)]
        assert made == [201, 201, 201]
        over = client.post("/", json={"name": "p4"}, environ_base=mine)
        assert over.status_code == 429 and over.mimetype == PROBLEM
        assert 1 <= int(over.headers["Retry-After"]) <= 61
        assert "new players a minute per client address" in over.get_json()["detail"]
        # another address is not held back, and reads of this one are counted apart
        assert client.post("/", json={"name": "q"}, environ_base=other).status_code == 201
        assert client.get("/healthz", environ_base=mine).status_code == 200

    def test_bad_tokens_are_limited_per_client_address(self, settings: Settings) -> None:
        limited = replace(settings, rate_limit_per_minute=600, rate_limit_failures_per_minute=2)
        client = create_app(limited).test_client()
        mine = address()
        good = client.post("/", json={"name": "r"}, environ_base=address()).get_json()["token"]
        bad = {"Authorization": f"Bearer {'0' * 32}.nothing"}
        statuses = [client.get("/me", headers=bad, environ_base=mine).status_code for _ in range(3)]
        assert statuses == [401, 401, 429]
        # a player's own reads count in the player's bucket, not the address's failures
        assert client.get("/me", headers={"Authorization": f"Bearer {good}"}, environ_base=mine).status_code == 200

    def test_a_players_reads_are_limited_per_player(self, settings: Settings) -> None:
        limited = replace(settings, rate_limit_per_minute=600, rate_limit_reads_per_minute=2)
        client = create_app(limited).test_client()
        made = client.post("/", json={"name": "s"}, environ_base=address()).get_json()
        auth = {"Authorization": f"Bearer {made['token']}"}
        statuses = [client.get("/me", headers=auth, environ_base=address()).status_code for _ in range(3)]
        assert statuses == [200, 200, 429]


class TestOperations:
    def test_health_readiness_and_metrics(self, players_client: FlaskClient) -> None:
        assert players_client.get("/healthz").get_json() == {"status": "ok", "game": "players"}
        assert players_client.get("/readyz").get_json() == {"status": "ready", "game": "players"}
        players_client.get("/me")
        metrics = players_client.get("/metrics").get_data(as_text=True)
        assert 'game="players",le="+Inf",method="GET",route="/me",status="4xx"' in metrics

    def test_every_error_is_problem_json(self, players_client: FlaskClient) -> None:
        for resp in (players_client.get("/no/such/route"), players_client.delete("/me"),
                     players_client.post("/", data=b"x" * (70 * 1024), content_type="application/json")):
            assert resp.mimetype == PROBLEM and resp.status_code in (404, 405, 413)


def test_the_document_is_valid_openapi() -> None:
    validate(json.loads(export()))


def test_the_exported_document_matches_the_code() -> None:
    path = ROOT / "openapi" / "players.json"
    assert path.exists(), "openapi/players.json is missing: run `make generate`"
    assert path.read_text() == export(), "openapi/players.json drifted from the code: run `make generate`"


def test_the_oidc_settings_come_from_the_environment(kit: SimpleNamespace) -> None:
    from ludoteca.adapters.players import OidcSettings
    assert OidcSettings.from_env({}) is None
    env = {"LUDOTECA_OIDC_ISSUER": kit.issuer, "LUDOTECA_OIDC_JWKS_URL": "http://idp/jwks",
           "LUDOTECA_OIDC_AUDIENCE": kit.audience, "LUDOTECA_OIDC_ALGORITHMS": "ES256, RS256"}
    found = OidcSettings.from_env(env)
    assert found is not None and found.algorithms == ("ES256", "RS256") and found.issuer == kit.issuer
    with pytest.raises(ValueError, match="all of"):
        OidcSettings.from_env({"LUDOTECA_OIDC_ISSUER": kit.issuer})
    with pytest.raises(ValueError, match="not accepted"):
        OidcSettings.from_env({**env, "LUDOTECA_OIDC_ALGORITHMS": "HS256"})
