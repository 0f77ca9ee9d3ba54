"""The players service is deployed like the games (issue 23, item 8): it declares its port once in
its own folder (``players.routes.HOSTING``, as a game's ``Hosting``), and ``make generate`` writes it
into the Procfile, docker-compose.yml, the Caddyfile, the Ingress and the Kubernetes manifests
(a Deployment and a Service, no worker); the Procfile's own line, behind a real front door
(Caddy), answers the bare ``POST /players`` and ``GET /players/me``.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
import requests
import yaml
from ludoteca.entrypoints import generate
from ludoteca.entrypoints.devstack import Supervisor, free_port, split_env, start_front_door, wait_http
from ludoteca.entrypoints.frontdoor import compose_caddyfile, local_routes, read_procfile
from ludoteca.entrypoints.manifests import objects
from ludoteca.service_layer import registry
from players import routes as players

ROOT = Path(__file__).resolve().parents[2]
PROCFILE = ROOT / "deploy" / "Procfile"
PORT = players.HOSTING.port


def test_the_service_declares_its_port_and_generation_finds_it() -> None:
    found, = (s for s in generate.platform_services() if s.name == "players")
    assert found.hosting.port == PORT and found.factory is players.create_app
    ports = {registry.game(name).hosting.port for name in registry.names()}
    assert PORT not in ports and PORT not in generate.RESERVED_PORTS


def test_every_generated_file_serves_it() -> None:
    line = read_procfile(PROCFILE)["players"]
    assert f"-b 127.0.0.1:{PORT} " in line and "LUDOTECA_GAME=players " in line
    assert local_routes(ROOT)["players"] == f"127.0.0.1:{PORT}"
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    assert f"0.0.0.0:{PORT}" in compose["players"]["command"]
    assert compose["players"]["environment"]["LUDOTECA_GAME"] == "players"
    assert "players" in compose["front-door"]["depends_on"] and "worker-players" not in compose
    caddyfile = (ROOT / "deploy" / "Caddyfile").read_text()
    assert caddyfile == compose_caddyfile(ROOT)
    assert "path /players /players/*" in caddyfile and f"reverse_proxy players:{PORT} " in caddyfile
    ingress = yaml.safe_load((ROOT / "deploy" / "k8s" / "ingress.yaml").read_text())
    paths = {p["path"] for p in ingress["spec"]["rules"][0]["http"]["paths"]}
    assert "/players" in paths
    kinds = {(d["kind"], d["metadata"]["name"]) for d in objects(ROOT)}
    assert {("Deployment", "players"), ("Service", "players"), ("PodDisruptionBudget", "players"),
            ("HorizontalPodAutoscaler", "players")} <= kinds
    assert ("Deployment", "worker-players") not in kinds
    service, = (d for d in objects(ROOT) if d["kind"] == "Service" and d["metadata"]["name"] == "players")
    assert [p["port"] for p in service["spec"]["ports"]] == [PORT]


def test_a_service_without_hosting_is_an_error_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(players, "HOSTING")
    with pytest.raises(generate.GenerateError, match=r"players: its module players.routes declares no HOSTING"):
        generate.platform_services()


def test_two_services_on_one_port_are_an_error() -> None:
    found, = (s for s in generate.platform_services() if s.name == "players")
    game = registry.game(registry.names()[0])
    twin = generate.PlatformService("players", game.hosting, found.factory)
    hosted: list[generate.Hosted] = [game, twin]
    with pytest.raises(generate.GenerateError, match=rf"^{game.name}: port {game.hosting.port} is already players's"):
        generate.check_ports(hosted)  # the game is named, whatever the names' order: the service was there first


@pytest.mark.integration
@pytest.mark.timeout(300)
def test_the_procfile_line_behind_a_real_front_door(tmp_path: Path, redis_url: str) -> None:
    """The Procfile's ``players`` line as ``make run`` reads it (its port a free one), behind
    Caddy: the bare ``POST /players`` makes a guest, ``GET /players/me`` with its token is that
    player, without it a 401 problem; ``GET /`` lists it apart from the games."""
    port = free_port()
    argv, env = split_env(shlex.split(read_procfile(PROCFILE)["players"].replace(
        f"127.0.0.1:{PORT}", f"127.0.0.1:{port}")))
    argv[0] = str(Path(sys.executable).parent / argv[0])
    sup = Supervisor()
    try:
        sup.start("players", argv, env={"REDIS_URL": redis_url, **env}, cwd=ROOT, log=tmp_path / "players.log")
        assert wait_http(f"http://127.0.0.1:{port}/readyz", 120), (tmp_path / "players.log").read_text()[-3000:]
        door = free_port()
        start_front_door(sup, door, {"players": f"127.0.0.1:{port}"}, ROOT, tmp_path / "front-door.log")
        base = f"http://127.0.0.1:{door}"
        made = requests.post(f"{base}/players", json={"name": "Ada"}, timeout=30)
        assert made.status_code == 201, made.text
        body = made.json()
        assert made.headers["Location"] == f"/players/{body['player']['id']}"
        me = requests.get(f"{base}/players/me", headers={"Authorization": f"Bearer {body['token']}"}, timeout=30)
        assert me.status_code == 200, me.text
        assert me.json()["id"] == body["player"]["id"] and me.json()["name"] == "Ada"
        profile = requests.get(f"{base}{made.headers['Location']}", timeout=30)
        assert profile.status_code == 200 and profile.json()["name"] == "Ada"
        stranger = requests.get(f"{base}/players/me", timeout=30)
        assert stranger.status_code == 401 and stranger.headers["Content-Type"].startswith("application/problem+json")
        index = requests.get(f"{base}/", timeout=30).json()
        assert index == {"games": {}, "services": {"players": "/players/"}}
    finally:
        sup.stop()
