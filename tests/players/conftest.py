"""An OpenID Connect provider of the tests' own: real key pairs (RSA and EC), their JWKS served
over HTTP by a thread of this process (the set can be rotated, and every fetch is counted), and
the players service's app over the session's real Redis, accepting that provider's JWTs."""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from flask import Flask
from flask.testing import FlaskClient
from ludoteca.adapters.players import OidcSettings
from ludoteca.config import Settings
from players.routes import create_app

ISSUER = "https://id.ludoteca.test/"
AUDIENCE = "ludoteca-players"


@dataclass
class SigningKey:
    kid: str
    alg: str
    private: Any
    publish_alg: bool = True
    """Whether its JWK says its ``alg`` (optional in a JWKS: some providers leave it out)."""

    def jwk(self) -> dict[str, Any]:
        algorithm = jwt.get_algorithm_by_name(self.alg)
        found: dict[str, Any] = json.loads(algorithm.to_jwk(self.private.public_key()))
        return {**found, "kid": self.kid, "use": "sig", **({"alg": self.alg} if self.publish_alg else {})}


def rsa_key(kid: str | None = None) -> SigningKey:
    return SigningKey(kid or f"rsa-{secrets.token_hex(4)}", "RS256",
                      rsa.generate_private_key(public_exponent=65537, key_size=2048))


def ec_key(kid: str | None = None) -> SigningKey:
    return SigningKey(kid or f"ec-{secrets.token_hex(4)}", "ES256", ec.generate_private_key(ec.SECP256R1()))


@dataclass
class Provider:
    """The identity provider: its published keys (``keys``), how often the JWKS was fetched."""

    keys: list[SigningKey]
    url: str = ""
    fetches: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    hang: float = 0.0
    """Seconds the provider takes before it answers (a hung provider, for a test to set and reset)."""

    def jwks(self) -> bytes:
        with self.lock:
            self.fetches += 1
            return json.dumps({"keys": [k.jwk() for k in self.keys]}).encode()

    def token(self, key: SigningKey | None = None, headers: dict[str, Any] | None = None,
              **claims: Any) -> str:
        """A JWT signed with ``key`` (default: the first published one); ``claims`` override
        the defaults (a fresh ``sub``, this provider, this audience, an hour to live)."""
        key = key or self.keys[0]
        now = int(time.time())
        body = {"iss": ISSUER, "aud": AUDIENCE, "sub": f"user-{secrets.token_hex(6)}", "iat": now,
                "exp": now + 3600, **claims}
        return jwt.encode({k: v for k, v in body.items() if v is not None}, key.private, algorithm=key.alg,
                          headers={k: v for k, v in {"kid": key.kid, **(headers or {})}.items() if v is not None})


@pytest.fixture(scope="session")
def provider() -> Iterator[Provider]:
    idp = Provider([rsa_key(), ec_key()])
    idp.keys[1].publish_alg = False

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path != "/jwks.json":
                self.send_error(404)
                return
            if idp.hang:
                time.sleep(idp.hang)
            body = idp.jwks()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    idp.url = f"http://127.0.0.1:{server.server_address[1]}/jwks.json"
    try:
        yield idp
    finally:
        server.shutdown()
        server.server_close()


def oidc_settings(provider: Provider, **overrides: Any) -> OidcSettings:
    return replace(OidcSettings(ISSUER, provider.url, AUDIENCE, refresh_cooldown_seconds=0), **overrides)


def players_app(settings: Settings, oidc: OidcSettings | None = None) -> Flask:
    app = create_app(settings, oidc)
    app.config["TESTING"] = True
    return app


@pytest.fixture(scope="session")
def players_client(settings: Settings, provider: Provider) -> FlaskClient:
    """The players service over the session's Redis, accepting ``provider``'s JWTs."""
    return players_app(settings, oidc_settings(provider)).test_client()


@pytest.fixture
def pig(client_factory: Callable[[str], FlaskClient]) -> FlaskClient:
    """Pig's service, in process, over the session's Redis (the game the players' tests play)."""
    return client_factory("pig")


@pytest.fixture(scope="session")
def kit() -> SimpleNamespace:
    """The helpers above, for the test modules (which cannot import this conftest by name)."""
    return SimpleNamespace(rsa_key=rsa_key, ec_key=ec_key, oidc_settings=oidc_settings, players_app=players_app,
                           issuer=ISSUER, audience=AUDIENCE)


@pytest.fixture(scope="session")
def play_to_the_end() -> Callable[[FlaskClient, str, dict[int, str]], None]:
    """Play the Pig game ``game_id`` to its end, each seat by its token (roll, then hold while it
    is still the seat's turn): a game to 10 ends in a few dozen moves."""

    def play(pig: FlaskClient, game_id: str, tokens: dict[int, str]) -> None:
        for _ in range(500):
            view = pig.get(f"/games/{game_id}").get_json()
            if view["status"] == "finished":
                return
            seat = view["to_act"][0]
            auth = {"Authorization": f"Bearer {tokens[seat]}"}
            state = pig.post(f"/games/{game_id}/actions", json={"type": "roll"}, headers=auth).get_json()["game"]
            if state["status"] == "active" and seat in state["to_act"]:
                pig.post(f"/games/{game_id}/actions", json={"type": "hold"}, headers=auth)
        raise AssertionError(f"pig game {game_id} did not end in 500 turns")

    return play
