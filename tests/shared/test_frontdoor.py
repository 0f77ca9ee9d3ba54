"""The front door's configuration (ludoteca.entrypoints.frontdoor): every installed game is mounted, Caddy
itself accepts what is written (``caddy adapt --validate``, and ``caddy fmt`` changes nothing),
and the committed copies for docker-compose and Kubernetes are what the module writes now."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml
from ludoteca.entrypoints.frontdoor import (
    caddy_binary,
    caddyfile,
    compose_caddyfile,
    compose_routes,
    ingress_manifest,
    local_routes,
    platform_services,
    prepare,
    procfile_services,
    read_procfile,
)
from ludoteca.service_layer import registry

ROOT = Path(__file__).resolve().parents[2]


def adapted(text: str, tmp_path: Path) -> dict:
    path = tmp_path / "Caddyfile"
    path.write_text(text)
    done = subprocess.run([caddy_binary(), "adapt", "--config", str(path), "--adapter", "caddyfile", "--validate"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "warn" not in done.stderr.lower(), done.stderr  # e.g. "input is not formatted"
    fmt = subprocess.run([caddy_binary(), "fmt", str(path)], capture_output=True, text=True, timeout=60)
    assert fmt.stdout == text
    return json.loads(done.stdout)


def test_every_installed_game_is_mounted_at_its_procfile_port() -> None:
    routes = local_routes(ROOT)
    assert sorted(routes) == sorted([*registry.names(), *platform_services()])
    procfile = read_procfile(ROOT / "deploy" / "Procfile")
    for game, upstream in routes.items():
        assert f"-b {upstream} " in procfile[game]
    assert compose_routes(ROOT) == {g: f"{g}:{u.rsplit(':', 1)[1]}" for g, u in routes.items()}


def test_a_game_without_a_service_line_is_not_mounted(capsys: pytest.CaptureFixture[str]) -> None:
    assert procfile_services({"ludix": "gunicorn -b 127.0.0.1:9 x"}, ["ludix", "chess"]) == \
        procfile_services({"ludix": "gunicorn -b 127.0.0.1:9 x"}, ["ludix"])
    assert "chess" in capsys.readouterr().err


def test_caddy_accepts_the_configuration(tmp_path: Path) -> None:
    config = adapted(caddyfile({"ludix": "127.0.0.1:8004", "null": "http://127.0.0.1:9000/"}, "127.0.0.1:8000",
                               storage=tmp_path / "data"), tmp_path)
    assert config["admin"]["disabled"] is True
    server, = config["apps"]["http"]["servers"].values()
    assert server["listen"] == ["127.0.0.1:8000"]
    text = json.dumps(server)
    for upstream in ("127.0.0.1:8004", "127.0.0.1:9000"):
        assert json.dumps({"dial": upstream}) in text
    assert config["storage"]["root"] == str(tmp_path / "data")


def test_the_local_caddy_runs_on_one_go_processor_unless_told(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """GOMAXPROCS=1 by default (docs: idle Ps spin on cores the services share); the
    environment's own value wins."""
    monkeypatch.delenv("GOMAXPROCS", raising=False)
    argv, env = prepare("127.0.0.1:8000", {"ludix": "127.0.0.1:8004"}, tmp_path / "a")
    assert env["GOMAXPROCS"] == "1"
    assert argv[0] == caddy_binary() and (tmp_path / "a" / "Caddyfile").exists()
    monkeypatch.setenv("GOMAXPROCS", "4")
    assert prepare("127.0.0.1:8000", {"ludix": "127.0.0.1:8004"}, tmp_path / "b")[1]["GOMAXPROCS"] == "4"


def test_the_listen_address_binds_all_interfaces_or_one(tmp_path: Path) -> None:
    for listen, expected in ((":8000", [":8000"]), ("0.0.0.0:8000", [":8000"]), ("127.0.0.1:81", ["127.0.0.1:81"])):
        server, = adapted(caddyfile({"ludix": "ludix:8004"}, listen), tmp_path)["apps"]["http"]["servers"].values()
        assert server["listen"] == expected


@pytest.mark.parametrize(("routes", "listen"), [({"Ludix!": "127.0.0.1:1"}, ":8000"),
                                                ({"ludix": "127.0.0.1"}, ":8000"),
                                                ({"ludix": "127.0.0.1:1 {"}, ":8000"),
                                                ({"ludix": "127.0.0.1:1"}, "localhost")])
def test_what_is_not_a_route_or_an_address_is_refused(routes: dict[str, str], listen: str) -> None:
    with pytest.raises(ValueError):
        caddyfile(routes, listen)


def test_the_committed_copies_are_what_the_module_writes(tmp_path: Path) -> None:
    """deploy/Caddyfile and deploy/k8s/ingress.yaml: run `make generate` again when this fails."""
    committed = (ROOT / "deploy" / "Caddyfile").read_text()
    assert committed == compose_caddyfile(ROOT)
    adapted(committed, tmp_path)
    ingress = (ROOT / "deploy" / "k8s" / "ingress.yaml").read_text()
    assert ingress == ingress_manifest([*registry.names(), *platform_services()])
    doc = yaml.safe_load(ingress)
    paths = {p["path"] for p in doc["spec"]["rules"][0]["http"]["paths"]}
    assert paths == {"/", "/playground"} | {f"/{g}" for g in [*registry.names(), *platform_services()]}


def test_the_kubernetes_manifests_name_the_front_door() -> None:
    docs = list(yaml.safe_load_all((ROOT / "deploy" / "k8s" / "ludoteca.yaml").read_text()))
    kinds = {(d["kind"], d["metadata"]["name"]) for d in docs}
    assert {("Deployment", "front-door"), ("Service", "front-door")} <= kinds
    service = next(d for d in docs if d["kind"] == "Service" and d["metadata"]["name"] == "front-door")
    ingress = yaml.safe_load((ROOT / "deploy" / "k8s" / "ingress.yaml").read_text())
    assert ingress["spec"]["defaultBackend"]["service"]["port"]["number"] == service["spec"]["ports"][0]["port"]
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert "./deploy/Caddyfile:/etc/caddy/Caddyfile:ro" in compose["services"]["front-door"]["volumes"]
