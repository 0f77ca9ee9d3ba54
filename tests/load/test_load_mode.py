"""The stack's load-test mode (``LUDOTECA_LOAD_TEST_ADDRESSES``, ludoteca.config): off by default;
on, the listed client addresses count in no per-address rate limit while every other address,
and every seat, keeps its limits. Over the session's real Redis, through a game's real app."""

from __future__ import annotations

import ipaddress
import secrets

import pytest
from api_client import Api
from ludoteca.adapters.hosting import create_app
from ludoteca.config import LOAD_TEST_ADDRESSES, Settings, load_test_networks
from ludoteca.service_layer import registry


def address() -> str:
    """A client address of its own (2001:db8::/32, the documentation prefix; never contacted)."""
    return f"2001:db8:{secrets.token_hex(2)}:{secrets.token_hex(2)}::1"


def api_for(settings: Settings, remote: str) -> Api:
    app = create_app(registry.game("ludix"), settings)
    app.config["TESTING"] = True
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = remote
    return Api(client)


def test_off_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(LOAD_TEST_ADDRESSES, raising=False)
    assert Settings().load_test_networks == ()
    assert Settings.from_env().load_test_networks == ()
    monkeypatch.setenv(LOAD_TEST_ADDRESSES, "")
    assert Settings.from_env().load_test_networks == ()


def test_parsed_from_the_environment() -> None:
    assert load_test_networks({LOAD_TEST_ADDRESSES: "127.0.0.1, 10.42.0.0/16"}) == (
        ipaddress.ip_network("127.0.0.1/32"), ipaddress.ip_network("10.42.0.0/16"))
    with pytest.raises(ValueError, match=LOAD_TEST_ADDRESSES):
        load_test_networks({LOAD_TEST_ADDRESSES: "not-an-address"})


def test_listed_addresses_skip_the_per_address_limits_and_seats_keep_theirs(redis_url: str) -> None:
    loader, other = address(), address()
    settings = Settings(redis_url=redis_url, rate_limit_per_minute=40, rate_limit_create_per_minute=3,
                        load_test_networks=(ipaddress.ip_network(loader.replace("::1", "::/64")),))
    assert settings.load_test_networks and Settings().load_test_networks == ()
    generator, bystander = api_for(settings, loader), api_for(settings, other)
    created = [generator.call("POST", "/games", body={"seats": ["human", "bot:steady"]})[0] for _ in range(10)]
    assert created == [201] * 10  # ten new games a minute from one address, over its limit of 3
    lobby = [generator.call("GET", "/games")[0] for _ in range(90)]
    assert set(lobby) == {200}  # 90 anonymous reads, over the 80 an address may make
    refused = [bystander.call("POST", "/games", body={"seats": ["human", "bot:steady"]})[0] for _ in range(5)]
    assert refused == [201, 201, 201, 429, 429]  # any other address keeps its limit
    gid, token = generator.create(["human", "human"])
    assert token is not None
    statuses = [generator.call("GET", f"/games/{gid}/actions", token)[0] for _ in range(85)]
    assert statuses[:79] == [200] * 79 and statuses[-1] == 429  # a seat keeps its own (80 reads a minute)
