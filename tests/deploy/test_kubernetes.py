"""deploy/k8s without a cluster: every object valid against the Kubernetes API's schemas
(kubernetes-validate, strict: an unknown field is an error) for the newest version it ships, the
committed files what ``make generate`` (``ludoteca.entrypoints.manifests``) writes now, and for
every installed game a Deployment, a Service, a worker and an Ingress path; every container with probes, requests and
limits and the restricted securityContext, what it must write on an emptyDir or a volume."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from kubernetes_validate.utils import latest_version
from ludoteca.entrypoints.frontdoor import (
    FRONT_DOOR,
    PLAYGROUND,
    PLAYGROUND_MOUNT,
    compose_caddyfile,
    ingress_manifest,
    platform_services,
    read_procfile,
)
from ludoteca.entrypoints.manifests import (
    KEDA_OUTPUT,
    LOCAL_LAYOUT,
    MONITOR_OUTPUT,
    OUTPUT,
    PROXY_NETWORKS,
    checksum,
    container_command,
    objects,
    outputs,
)
from ludoteca.service_layer import registry

ROOT = Path(__file__).resolve().parents[2]
K8S_VERSION = latest_version()  # kubernetes-validate 1.37.0 (requirements-dev.txt): 1.37.0
DOCS = list(yaml.safe_load_all((ROOT / OUTPUT).read_text()))
INGRESS = yaml.safe_load((ROOT / "deploy" / "k8s" / "ingress.yaml").read_text())


def find(kind: str, name: str) -> dict[str, Any]:
    found = [d for d in DOCS if d["kind"] == kind and d["metadata"]["name"] == name]
    assert len(found) == 1, (kind, name)
    return found[0]


def pods() -> list[dict[str, Any]]:
    return [d for d in DOCS if d["kind"] in ("Deployment", "StatefulSet")]


def test_the_committed_manifests_are_what_the_generator_writes() -> None:
    """Run `make generate` again when this fails."""
    for rel, text in outputs(ROOT).items():
        assert (ROOT / rel).read_text() == text, rel
    assert objects(ROOT) == DOCS  # the YAML reads back as the objects (ConfigMaps' files included)
    assert (ROOT / "deploy" / "k8s" / "ingress.yaml").read_text() == \
        ingress_manifest([*registry.names(), *platform_services()])  # the games and the players service


def test_the_version_is_a_current_one() -> None:
    major, minor, _ = (int(p) for p in K8S_VERSION.split("."))
    assert (major, minor) >= (1, 33)


@pytest.mark.parametrize("doc", [*DOCS, INGRESS], ids=lambda d: f"{d['kind']}/{d['metadata']['name']}")
def test_every_object_is_valid_for_kubernetes(doc: dict[str, Any]) -> None:
    kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


def test_the_validation_refuses_a_wrong_object() -> None:
    deployment = copy.deepcopy(find("Deployment", "ludix"))
    deployment["spec"]["template"]["spec"]["containers"][0]["securityContext"]["readOnlyRootFS"] = True
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, K8S_VERSION, strict=True)
    hpa = copy.deepcopy(find("HorizontalPodAutoscaler", "ludix"))
    hpa["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"] = "70%"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(hpa, K8S_VERSION, strict=True)


def test_every_game_has_its_deployment_service_worker_and_ingress_path() -> None:
    procfile = read_procfile(ROOT / "deploy" / "Procfile")
    games = registry.names()
    paths = {p["path"]: p["backend"]["service"] for p in INGRESS["spec"]["rules"][0]["http"]["paths"]}
    front_door = find("Service", FRONT_DOOR)
    for game in games:
        deployment, service = find("Deployment", game), find("Service", game)
        container, = deployment["spec"]["template"]["spec"]["containers"]
        expected, env = container_command(procfile[game], games)
        assert container["args"] == expected  # the Procfile's command, bound on every interface
        assert {"name": "LUDOTECA_GAME", "value": game} in container["env"]
        assert {e["name"]: e["value"] for e in container["env"]}.items() >= env.items()
        port = int(expected[expected.index("-b") + 1].rsplit(":", 1)[1])
        assert container["ports"] == [{"name": "http", "containerPort": port}]
        assert service["spec"]["ports"][0]["port"] == port
        assert service["spec"]["selector"] == deployment["spec"]["selector"]["matchLabels"]
        worker, = find("Deployment", f"worker-{game}")["spec"]["template"]["spec"]["containers"]
        assert worker["args"] == container_command(procfile["worker"], [game])[0]
        assert paths[f"/{game}"] == {"name": FRONT_DOOR, "port": {"number": front_door["spec"]["ports"][0]["port"]}}
        assert f"reverse_proxy {game}:{port} " in find("ConfigMap", FRONT_DOOR)["data"]["Caddyfile"]
        assert find("PodDisruptionBudget", game)["spec"]["minAvailable"] == 1
        hpa = find("HorizontalPodAutoscaler", game)
        assert hpa["apiVersion"] == "autoscaling/v2" and hpa["spec"]["scaleTargetRef"]["name"] == game
        assert hpa["spec"]["metrics"][0]["resource"]["name"] == "cpu"
        assert hpa["spec"]["minReplicas"] >= 2  # with the budget, a drain never empties a game
    assert find("Deployment", "sweeper")["spec"]["template"]["spec"]["containers"][0]["args"] == \
        container_command(procfile["sweeper"], games)[0]
    assert find("ConfigMap", FRONT_DOOR)["data"]["Caddyfile"] == compose_caddyfile(ROOT)
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    door, = find("Deployment", FRONT_DOOR)["spec"]["template"]["spec"]["containers"]
    assert door["image"] == compose["services"][FRONT_DOOR]["image"]  # one Caddy everywhere
    assert {d["metadata"]["name"] for d in DOCS if d["kind"] == "Deployment"} == \
        {*games, *platform_services(), *(f"worker-{g}" for g in games), "sweeper", FRONT_DOOR}


def containers() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    return [(f"{d['metadata']['name']}/{c['name']}", c, d["spec"]["template"]["spec"])
            for d in pods() for c in d["spec"]["template"]["spec"]["containers"]]


def test_every_container_has_probes_and_resources() -> None:
    for name, container, _ in containers():
        assert "livenessProbe" in container, name
        if not name.startswith(("worker-", "sweeper")):  # what a Service sends traffic to
            assert "readinessProbe" in container, name
        for kind in ("requests", "limits"):
            assert set(container["resources"][kind]) == {"cpu", "memory"}, name
    for game in registry.names():
        container, = find("Deployment", game)["spec"]["template"]["spec"]["containers"]
        assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
        assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
        worker, = find("Deployment", f"worker-{game}")["spec"]["template"]["spec"]["containers"]
        assert "inspect ping" in " ".join(worker["livenessProbe"]["exec"]["command"])


def test_every_container_runs_locked_down() -> None:
    for name, container, pod in containers():
        security = container["securityContext"]
        assert security["runAsNonRoot"] is True and pod["securityContext"]["runAsNonRoot"] is True, name
        assert pod["securityContext"]["runAsUser"] >= 999, name
        assert security["readOnlyRootFilesystem"] is True, name
        assert security["allowPrivilegeEscalation"] is False, name
        assert security["capabilities"]["drop"] == ["ALL"], name
        # the one capability the restricted Pod Security Standard lets a container add
        assert set(security["capabilities"].get("add", [])) <= {"NET_BIND_SERVICE"}, name
        assert security["seccompProfile"] == {"type": "RuntimeDefault"}, name
        assert pod["automountServiceAccountToken"] is False, name
        # what it writes is a volume: /tmp always (numba's cache under the image's entry point)
        mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
        assert "/tmp" in mounts, name
        volumes = {v["name"]: v for v in pod["volumes"]}
        assert "emptyDir" in volumes[mounts["/tmp"]], name
        if container["image"].startswith("ludoteca:"):
            assert "command" not in container, name  # args: the image's entry point still runs
            assert pod["securityContext"]["runAsUser"] == 10001, name  # the Dockerfile's user


def test_redis_is_two_statefulsets_on_persistent_volumes() -> None:
    env = find("ConfigMap", "ludoteca")["data"]
    for store, url in (("redis", env["REDIS_URL"]), ("broker", env["BROKER_URL"])):
        assert url == f"redis://{store}:6379/0"
        statefulset = find("StatefulSet", store)
        assert statefulset["spec"]["serviceName"] == store and statefulset["spec"]["replicas"] == 1
        claim, = statefulset["spec"]["volumeClaimTemplates"]
        container, = statefulset["spec"]["template"]["spec"]["containers"]
        assert {"name": claim["metadata"]["name"], "mountPath": "/data"} in container["volumeMounts"]
        assert container["command"][:2] == ["redis-server", "/etc/redis/redis.conf"]
        assert "--maxmemory" in container["command"]
        assert find("Service", store)["spec"]["clusterIP"] == "None"
        compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
        assert container["image"] == compose["services"][store]["image"]  # one Redis everywhere
    assert find("ConfigMap", "redis-conf")["data"]["redis.conf"] == (ROOT / "deploy" / "redis.conf").read_text()


def test_the_front_door_serves_the_playground_from_its_config_map() -> None:
    files = {f.name: f.read_text() for f in PLAYGROUND.iterdir() if f.is_file()}
    assert "index.html" in files and "playground.js" in files
    data = find("ConfigMap", FRONT_DOOR)["data"]
    assert {k: v for k, v in data.items() if k != "Caddyfile"} == files  # the files as they are in the repo
    assert f"root * `{PLAYGROUND_MOUNT}`" in data["Caddyfile"]
    spec = find("Deployment", FRONT_DOOR)["spec"]["template"]["spec"]
    mounts = {m["mountPath"]: m["name"] for m in spec["containers"][0]["volumeMounts"]}
    volumes = {v["name"]: v for v in spec["volumes"]}
    served = volumes[mounts[PLAYGROUND_MOUNT]]["configMap"]
    assert served["name"] == FRONT_DOOR and {i["key"] for i in served["items"]} == set(files)
    assert [i["key"] for i in volumes[mounts["/etc/caddy"]]["configMap"]["items"]] == ["Caddyfile"]
    paths = {p["path"]: p["pathType"] for p in INGRESS["spec"]["rules"][0]["http"]["paths"]}
    assert paths["/"] == "Exact" and paths["/playground"] == "Prefix"


def test_the_optional_keda_objects_scale_each_worker_on_its_queue() -> None:
    docs = list(yaml.safe_load_all((ROOT / KEDA_OUTPUT).read_text()))
    assert {d["spec"]["scaleTargetRef"]["name"] for d in docs} == {f"worker-{g}" for g in registry.names()}
    for doc in docs:
        assert doc["apiVersion"] == "keda.sh/v1alpha1" and doc["kind"] == "ScaledObject"
        trigger, = doc["spec"]["triggers"]
        assert trigger["type"] == "redis"
        assert trigger["metadata"]["listName"] == doc["spec"]["scaleTargetRef"]["name"].removeprefix("worker-")
        assert trigger["metadata"]["address"] == "broker:6379"


def test_a_changed_configuration_rolls_the_pods_that_read_it() -> None:
    def annotation(kind: str, name: str) -> str:
        return str(find(kind, name)["spec"]["template"]["metadata"]["annotations"]["ludoteca.dev/config-sha256"])

    digest = checksum(find("ConfigMap", FRONT_DOOR)["data"])["ludoteca.dev/config-sha256"]
    assert annotation("Deployment", FRONT_DOOR) == digest
    shared = checksum(find("ConfigMap", "ludoteca")["data"])["ludoteca.dev/config-sha256"]
    for game in registry.names():
        assert annotation("Deployment", game) == annotation("Deployment", f"worker-{game}") == shared
    for store in ("redis", "broker"):
        assert annotation("StatefulSet", store) == checksum(find("ConfigMap", "redis-conf")["data"])[
            "ludoteca.dev/config-sha256"]
    assert checksum({"Caddyfile": "a"}) != checksum({"Caddyfile": "b"})


def test_prometheus_finds_every_target() -> None:
    """Issue 20, finding 8: the pods that serve metrics say where (prometheus.io/* annotations,
    Prometheus's Kubernetes pod discovery), and the optional ServiceMonitor and PodMonitor say
    the same to the Prometheus Operator; the front door does not serve them."""
    games = registry.names()
    served = [*games, *platform_services()]  # the players service's /metrics too
    for name in (*served, *(f"worker-{g}" for g in games), "sweeper"):
        template = find("Deployment", name)["spec"]["template"]
        container, = template["spec"]["containers"]
        ann = template["metadata"]["annotations"]
        assert ann["prometheus.io/scrape"] == "true" and ann["prometheus.io/path"] == "/metrics", name
        assert int(ann["prometheus.io/port"]) in {p["containerPort"] for p in container["ports"]}, name
        if name not in served:
            assert {"name": "metrics", "containerPort": int(ann["prometheus.io/port"])} in container["ports"]
            assert {"name": "LUDOTECA_METRICS_PORT", "value": ann["prometheus.io/port"]} in container["env"]
    door = find("Deployment", FRONT_DOOR)["spec"]["template"]["metadata"]["annotations"]
    assert "prometheus.io/scrape" not in door
    assert all(f"not path /{g}/metrics*" in find("ConfigMap", FRONT_DOOR)["data"]["Caddyfile"] for g in served)
    monitors = list(yaml.safe_load_all((ROOT / MONITOR_OUTPUT).read_text()))
    assert monitors == [d for d in yaml.safe_load_all(outputs(ROOT)[MONITOR_OUTPUT])]
    service_monitor, pod_monitor = monitors
    assert service_monitor["kind"] == "ServiceMonitor" and pod_monitor["kind"] == "PodMonitor"
    assert service_monitor["spec"]["selector"]["matchExpressions"][0]["values"] == served
    assert service_monitor["spec"]["endpoints"] == [{"port": "http", "interval": "30s", "path": "/metrics"}]
    for game in served:  # the Services' port of that name
        assert find("Service", game)["spec"]["ports"][0]["name"] == "http"
    selected = pod_monitor["spec"]["selector"]["matchExpressions"][0]["values"]
    assert sorted(selected) == sorted([*(f"worker-{g}" for g in games), "sweeper"])
    assert pod_monitor["spec"]["podMetricsEndpoints"][0]["port"] == "metrics"


def test_the_services_read_forwarded_for_only_from_pod_addresses() -> None:
    env = find("ConfigMap", "ludoteca")["data"]
    assert env["LUDOTECA_TRUSTED_PROXIES"] == "2" and env["LUDOTECA_PROXY_ADDRESSES"] == PROXY_NETWORKS
    for game in registry.names():  # nothing of the Procfile's loopback layout overrides them
        container, = find("Deployment", game)["spec"]["template"]["spec"]["containers"]
        assert not {e["name"] for e in container["env"]} & set(LOCAL_LAYOUT)
