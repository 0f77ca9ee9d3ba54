"""Player identity (issue 23, item 1): guest players and their tokens, and the JWTs of an OpenID
Connect provider (the tests' own: real RSA and EC key pairs, a JWKS served over HTTP), against the
real Redis. Every refusal is a problem+json 401 and makes no player."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import threading
import time
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest
import redis
from cryptography.hazmat.primitives import serialization
from flask.testing import FlaskClient
from ludoteca.adapters.players import key, oidc_player_id
from ludoteca.config import Settings

PROBLEM = "application/problem+json"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_guest(client: FlaskClient, name: str = "Ada") -> dict[str, Any]:
    resp = client.post("/", json={"name": name})
    assert resp.status_code == 201, resp.get_json()
    body: dict[str, Any] = resp.get_json()
    return body


@dataclass(frozen=True)
class FromNow:
    """A claim's time, this many seconds from when the test runs."""

    seconds: int


def refused(resp: Any, status: int = 401) -> dict[str, Any]:
    assert resp.status_code == status, resp.get_data(as_text=True)
    assert resp.mimetype == PROBLEM
    body: dict[str, Any] = resp.get_json()
    assert body["status"] == status
    return body


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unsigned(header: dict[str, Any], claims: dict[str, Any], secret: bytes | None = None) -> str:
    """A JWT built by hand: ``alg: none`` with an empty signature, or HS256 keyed with ``secret``."""
    head = f"{b64(json.dumps(header).encode())}.{b64(json.dumps(claims).encode())}"
    signature = b"" if secret is None else hmac.new(secret, head.encode(), hashlib.sha256).digest()
    return f"{head}.{b64(signature)}"


def claims(**overrides: Any) -> dict[str, Any]:
    now = int(time.time())
    return {"iss": "https://id.ludoteca.test/", "aud": "ludoteca-players", "sub": f"user-{secrets.token_hex(6)}",
            "iat": now, "exp": now + 3600, **overrides}


class TestGuests:
    def test_a_guest_is_made_and_known_by_its_token(self, players_client: FlaskClient,
                                                    redis_client: redis.Redis) -> None:
        resp = players_client.post("/", json={"name": "  Ada Lovelace "})
        assert resp.status_code == 201
        assert resp.headers["Cache-Control"] == "no-store"
        made = resp.get_json()
        player, token = made["player"], made["token"]
        assert player["name"] == "Ada Lovelace" and player["kind"] == "guest"
        assert resp.headers["Location"].endswith(f"/{player['id']}")
        me = players_client.get("/me", headers=bearer(token))
        assert me.status_code == 200 and me.get_json() == player
        # stored only hashed: the token is nowhere in the player's record
        stored = redis_client.hgetall(key(player["id"], "profile"))
        assert stored[b"token"] == hashlib.sha256(token.encode()).hexdigest().encode()
        assert all(token.encode() not in v and token.partition(".")[2].encode() not in v for v in stored.values())
        assert redis_client.ttl(key(player["id"], "profile")) > 0

    def test_two_guests_are_two_players(self, players_client: FlaskClient) -> None:
        a, b = new_guest(players_client), new_guest(players_client)
        assert a["player"]["id"] != b["player"]["id"] and a["token"] != b["token"]
        assert players_client.get("/me", headers=bearer(b["token"])).get_json()["id"] == b["player"]["id"]

    @pytest.mark.parametrize("mangle", [
        lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"),  # another secret
        lambda t: f"{secrets.token_hex(16)}.{t.partition('.')[2]}",  # the secret of another (unknown) id
        lambda t: f"{'0' * 32}.{t.partition('.')[2]}",
        lambda t: t.partition(".")[2],  # the secret alone
        lambda t: f"ZZ.{t.partition('.')[2]}",  # not an id
        lambda t: t + ".x.y",
    ])
    def test_a_wrong_guest_token_is_refused(self, players_client: FlaskClient, mangle: Any) -> None:
        token = new_guest(players_client)["token"]
        refused(players_client.get("/me", headers=bearer(mangle(token))))

    def test_another_guests_secret_does_not_pass_for_this_one(self, players_client: FlaskClient) -> None:
        a, b = new_guest(players_client), new_guest(players_client)
        forged = f"{a['player']['id']}.{b['token'].partition('.')[2]}"
        refused(players_client.get("/me", headers=bearer(forged)))

    def test_no_token_or_another_scheme(self, players_client: FlaskClient) -> None:
        assert "player's token" in refused(players_client.get("/me"))["detail"]
        refused(players_client.get("/me", headers={"Authorization": "Basic YWRhOmFkYQ=="}))

    @pytest.mark.parametrize("body", [{}, {"name": ""}, {"name": "   "}, {"name": "x" * 41}, {"name": "a\nb"},
                                      {"name": "\u202e\u200bevil"}, {"name": 7}, {"name": "Ada", "admin": True}])
    def test_a_bad_name_is_a_422(self, players_client: FlaskClient, body: dict[str, Any]) -> None:
        problem = refused(players_client.post("/", json=body), 422)
        assert problem["errors"]

    def test_a_body_that_is_not_json_is_a_400(self, players_client: FlaskClient) -> None:
        refused(players_client.post("/", data="{name", content_type="application/json"), 400)


class TestProvider:
    def test_a_providers_jwt_is_a_player_made_on_first_sight(self, players_client: FlaskClient,
                                                              provider: Any, kit: SimpleNamespace) -> None:
        subject = f"user-{secrets.token_hex(6)}"
        first = players_client.get("/me", headers=bearer(provider.token(sub=subject, name="Grace")))
        assert first.status_code == 200, first.get_json()
        player = first.get_json()
        assert player == {"id": oidc_player_id(kit.issuer, subject), "name": "Grace", "kind": "oidc",
                          "created": player["created"]}
        # a later token of the same subject (another key of the provider, another name) is the same player
        again = players_client.get("/me", headers=bearer(provider.token(provider.keys[1], sub=subject, name="G.")))
        assert again.get_json() == player
        assert players_client.get(f"/{player['id']}").get_json()["name"] == "Grace"

    def test_the_key_set_is_fetched_once_and_cached(self, settings: Settings, provider: Any,
                                                     kit: SimpleNamespace) -> None:
        client = kit.players_app(settings, kit.oidc_settings(provider)).test_client()
        before = provider.fetches
        for _ in range(5):
            assert client.get("/me", headers=bearer(provider.token())).status_code == 200
        assert provider.fetches == before + 1

    def test_a_rotated_key_is_picked_up(self, settings: Settings, provider: Any, kit: SimpleNamespace) -> None:
        client = kit.players_app(settings, kit.oidc_settings(provider)).test_client()
        old = provider.keys[0]
        assert client.get("/me", headers=bearer(provider.token(old))).status_code == 200
        fetched = provider.fetches
        new = kit.rsa_key()
        provider.keys[0] = new  # the provider rotates: the old key is withdrawn
        try:
            resp = client.get("/me", headers=bearer(provider.token(new)))
            assert resp.status_code == 200, resp.get_json()
            assert provider.fetches == fetched + 1  # the unknown kid made it fetch the set again
            assert "key" in refused(client.get("/me", headers=bearer(provider.token(old))))["detail"]
        finally:
            provider.keys[0] = old

    def test_an_unknown_kid_is_fetched_again_at_most_once_per_cooldown(
            self, settings: Settings, provider: Any, kit: SimpleNamespace) -> None:
        client = kit.players_app(settings, kit.oidc_settings(provider, refresh_cooldown_seconds=3600)).test_client()
        assert client.get("/me", headers=bearer(provider.token())).status_code == 200
        fetched = provider.fetches
        stranger = kit.rsa_key()
        for _ in range(5):
            refused(client.get("/me", headers=bearer(provider.token(stranger))))
        assert provider.fetches == fetched  # within the cooldown: no fetch per forged kid

    def test_an_ec_key_signs_too(self, players_client: FlaskClient, provider: Any) -> None:
        assert provider.keys[1].alg == "ES256"
        assert players_client.get("/me", headers=bearer(provider.token(provider.keys[1]))).status_code == 200

    @pytest.mark.parametrize(("override", "said"), [
        ({"exp": FromNow(-60)}, "expired"),
        ({"aud": "another-service"}, "audience"),
        ({"iss": "https://evil.example/"}, "identity provider"),
        ({"exp": None}, "verify"),
        ({"sub": None}, "verify"),
        ({"sub": ""}, "subject"),
        ({"nbf": FromNow(600)}, "verify"),
    ])
    def test_a_bad_claim_is_refused(self, players_client: FlaskClient, provider: Any,
                                    override: dict[str, Any], said: str, redis_client: redis.Redis) -> None:
        subject = f"user-{secrets.token_hex(6)}"
        # times from the test's start, not the collection's (a slow suite reached a collected `nbf`)
        override = {k: int(time.time()) + v.seconds if isinstance(v, FromNow) else v for k, v in override.items()}
        token = provider.token(**{"sub": subject, **override})
        assert said in refused(players_client.get("/me", headers=bearer(token)))["detail"]
        if "sub" not in override:  # no player was made for the refused subject
            assert not redis_client.exists(key(oidc_player_id("https://id.ludoteca.test/", subject), "profile"))

    def test_a_token_signed_by_another_key_with_a_known_kid_is_refused(
            self, players_client: FlaskClient, provider: Any, kit: SimpleNamespace) -> None:
        impostor = kit.rsa_key(kid=provider.keys[0].kid)
        assert "verify" in refused(players_client.get("/me", headers=bearer(provider.token(impostor))))["detail"]

    def test_alg_none_is_refused(self, players_client: FlaskClient, provider: Any) -> None:
        for alg, published in ((a, k) for a in ("none", "None", "NONE") for k in provider.keys):
            token = unsigned({"alg": alg, "typ": "JWT", "kid": published.kid}, claims())
            assert "algorithm" in refused(players_client.get("/me", headers=bearer(token)))["detail"]

    def test_hmac_keyed_with_the_public_key_is_refused(self, players_client: FlaskClient, provider: Any) -> None:
        for published in provider.keys:  # one JWK says its alg, the other does not
            pem = published.private.public_key().public_bytes(serialization.Encoding.PEM,
                                                              serialization.PublicFormat.SubjectPublicKeyInfo)
            for secret in (pem, pem.strip(), json.dumps(published.jwk()).encode()):
                token = unsigned({"alg": "HS256", "typ": "JWT", "kid": published.kid}, claims(), secret)
                assert "algorithm" in refused(players_client.get("/me", headers=bearer(token)))["detail"]

    def test_an_algorithm_other_than_the_keys_is_refused(self, players_client: FlaskClient, provider: Any,
                                                        kit: SimpleNamespace) -> None:
        # the RSA key's kid on an ES256 token: the key says RS256
        signer = kit.ec_key(kid=provider.keys[0].kid)
        refused(players_client.get("/me", headers=bearer(provider.token(signer))))
        # a key published without its `alg` (keys[1], the EC key) named by a token of another
        # family: refused as such (it was a 500: PyJWT's TypeError on a key of the wrong type)
        assert not provider.keys[1].publish_alg and provider.keys[1].alg == "ES256"
        attacker = kit.rsa_key(kid=provider.keys[1].kid)
        refused(players_client.get("/me", headers=bearer(provider.token(attacker))))

    def test_a_jwt_without_a_kid_or_malformed(self, players_client: FlaskClient, provider: Any) -> None:
        refused(players_client.get("/me", headers=bearer(provider.token(headers={"kid": None}))))
        refused(players_client.get("/me", headers=bearer("a.b.c")))
        refused(players_client.get("/me", headers=bearer("eyJhbGciOiJSUzI1NiJ9.e30.")))

    def test_without_a_provider_jwts_are_refused(self, settings: Settings, provider: Any,
                                                 kit: SimpleNamespace) -> None:
        client = kit.players_app(settings).test_client()
        assert "guest" in refused(client.get("/me", headers=bearer(provider.token())))["detail"]

    def test_a_hung_provider_queues_no_request_and_known_keys_still_verify(
            self, settings: Settings, provider: Any, kit: SimpleNamespace) -> None:
        """The set's lifespan over and the provider hung: one request tries it (1 s at most here),
        the others at the same time answer at once with the last good set, and none tries again
        within the retry delay (before: each waited its turn for its own fetch, 5, 10, ... 30 s,
        and got a 503)."""
        oidc = kit.oidc_settings(provider, jwks_lifespan_seconds=1, fetch_timeout_seconds=1.0)
        app = kit.players_app(settings, oidc)
        token = provider.token()
        assert app.test_client().get("/me", headers=bearer(token)).status_code == 200
        time.sleep(1.2)  # the set's lifespan is over
        provider.hang = 4.0
        answers: list[tuple[int, float]] = []

        def ask() -> None:
            started = time.monotonic()
            status = app.test_client().get("/me", headers=bearer(token)).status_code
            answers.append((status, time.monotonic() - started))

        try:
            fetched = provider.fetches
            threads = [threading.Thread(target=ask) for _ in range(6)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(30)
            assert [status for status, _ in answers] == [200] * 6, answers  # the last good key verifies
            assert max(seconds for _, seconds in answers) < 3.0, answers  # one fetch's timeout, not six
            assert provider.fetches <= fetched + 1
            unknown = kit.rsa_key()
            resp = app.test_client().get("/me", headers=bearer(provider.token(unknown)))
            assert refused(resp, 503) and resp.headers["Retry-After"] == "1"  # no key to fall back on: at once
        finally:
            provider.hang = 0.0

    def test_an_unreachable_provider_is_a_503(self, settings: Settings, kit: SimpleNamespace,
                                              provider: Any) -> None:
        import socket
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]  # a port nobody listens on (closed when the block ends)
        gone = kit.oidc_settings(provider, jwks_url=f"http://127.0.0.1:{port}/jwks.json", fetch_timeout_seconds=2.0)
        client = kit.players_app(settings, gone).test_client()
        resp = client.get("/me", headers=bearer(provider.token()))
        assert refused(resp, 503) and resp.headers["Retry-After"] == "1"


def test_the_settings_refuse_symmetric_algorithms(kit: SimpleNamespace, provider: Any) -> None:
    for algorithms in (("HS256",), ("RS256", "none"), ()):
        with pytest.raises(ValueError, match="not accepted"):
            kit.oidc_settings(provider, algorithms=algorithms)
