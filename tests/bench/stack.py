"""The benchmark's stack: embedded Redis, game services and the null endpoint under gunicorn
(``deploy/gunicorn.conf.py``), the front door in front of them all, and the CPU of each server
process tree read from ``/proc``.

Every server process is started in a session of its own (``Supervisor``), so a gunicorn master
and its workers, the front door, and redis-server are each one process group: their CPU is the
sum of ``utime + stime`` over the live processes of the group.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ludoteca.entrypoints import devstack
from ludoteca.entrypoints.devstack import Supervisor, free_port, gunicorn_argv, wait_http
from ludoteca.entrypoints.frontdoor import UNIX

ROOT = Path(__file__).resolve().parents[2]
TICK = os.sysconf("SC_CLK_TCK")


def cpu_by_group(pgids: set[int]) -> dict[int, float]:
    """CPU seconds (user + system) used so far by the live processes of each process group."""
    out = dict.fromkeys(pgids, 0.0)
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pgrp = int(fields[2])  # the 5th field of stat; fields[11], [12]: utime, stime
        if pgrp in out:
            out[pgrp] += (int(fields[11]) + int(fields[12])) / TICK
    return out


@dataclass
class Server:
    name: str
    url: str
    pgids: frozenset[int]
    unix: str | None = None  # the upstream of its unix socket, in the front door's syntax (unix//path)


@dataclass
class Stack:
    redis_url: str
    redis_pgid: int
    services: dict[str, Server] = field(default_factory=dict)
    door: Server | None = None
    door_kind: str = ""
    doors: dict[str, Server] = field(default_factory=dict)  # path label -> front door (bench_api's door paths)

    def pgids(self) -> set[int]:
        out = {self.redis_pgid}.union(*(s.pgids for s in self.services.values()))
        return out | (self.door.pgids if self.door else set())


def start_servers(sup: Supervisor, specs: Mapping[str, tuple[str, dict[str, str]]], logs: Path,
                  sockets: Path | None = None) -> dict[str, Server]:
    """Start every ``name -> (gunicorn target, env)`` at once, then wait for all of them; with
    ``sockets`` (a directory), each also listens on the unix socket ``<sockets>/<name>.sock``."""
    servers = {}
    for name, (target, env) in specs.items():
        port = free_port()
        sock = None if sockets is None else sockets / f"{name}.sock"
        proc = sup.start(name, gunicorn_argv(target, port, ROOT, unix_socket=sock), env=env, cwd=ROOT,
                         log=logs / f"{name}.log")
        servers[name] = Server(name, f"http://127.0.0.1:{port}", frozenset({proc.pid}),
                               None if sock is None else f"{UNIX}{sock}")
    for name, server in servers.items():
        probe = "/healthz" if specs[name][0].startswith("ludoteca.adapters.hosting.null") else "/readyz"
        if not wait_http(server.url + probe, 120):
            raise RuntimeError(f"{name} did not become ready; see {logs / f'{name}.log'}:\n"
                               + (logs / f"{name}.log").read_text()[-2000:])
    return servers


def service_spec(game: str, redis_url: str, workers: int | None = None) -> tuple[str, dict[str, str]]:
    env = {"LUDOTECA_GAME": game, "REDIS_URL": redis_url}
    if workers:
        env["GUNICORN_WORKERS"] = str(workers)
    return "ludoteca.entrypoints.wsgi:make_app()", env


def null_spec(redis_url: str, workers: int | None = None) -> tuple[str, dict[str, str]]:
    env = {"REDIS_URL": redis_url}
    if workers:
        env["GUNICORN_WORKERS"] = str(workers)
    return "ludoteca.adapters.hosting.null:make_app()", env


def start_null(sup: Supervisor, port: int, redis_url: str, log: Path) -> None:
    """The null endpoint alone on ``port`` (for the driver comparison)."""
    target, env = null_spec(redis_url)
    sup.start("null", gunicorn_argv(target, port, ROOT), env=env, cwd=ROOT, log=log)
    if not wait_http(f"http://127.0.0.1:{port}/healthz", 120):
        raise RuntimeError(f"the null endpoint did not start; see {log}")


def start_door(sup: Supervisor, routes: Mapping[str, str], logs: Path, name: str = "door") -> tuple[Server, str]:
    """The front door (Caddy, ``devstack.start_front_door``) routing ``/<prefix>`` to each upstream
    (``host:port`` or ``unix//path``); ``name``: one per front door of the stack."""
    port = free_port()
    proc = devstack.start_front_door(sup, port, routes, ROOT, logs / f"{name}.log", name=name)
    return Server(name, f"http://127.0.0.1:{port}", frozenset({proc.pid})), "front door (Caddy)"


def git_revision() -> str:
    import subprocess

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()

    rev = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    branch = git("rev-parse", "--abbrev-ref", "HEAD")
    return rev + (" (with uncommitted changes)" if dirty else "") + f", branch {branch}"
