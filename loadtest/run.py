"""``python -m loadtest`` (``make load``): one load test against a running stack.

    python -m loadtest --shape ramp --users 200 --duration 2m            # make load SHAPE=ramp USERS=200 DURATION=2m
    python -m loadtest --workers 4 --mix ludix=3,ludor=1                 # a locust master and 4 workers
    python -m loadtest --host http://10.0.0.5:8000 --metrics http://10.0.0.5:8001/metrics,...

Runs locust headless (:mod:`loadtest.locustfile`) against ``--host`` (default ``make run``'s
front door), alone or as a master and ``--workers`` workers on this machine; reads the server's
metrics before and after (default: ``make run``'s services and worker, :func:`loadtest.metrics.local_sources`);
writes under ``var/load/<run>/`` locust's HTML report (``report.html``), its CSV files
(``locust_*.csv``), the clients' tallies (``tally-*.json``), what the server's counters gained
(``metrics.json``), the summary (``summary.md``, ``summary.json``) and locust's log, and
points ``var/load/latest`` at it. Prints the summary.
Exit status: 0, or 1 when a simulated user crashed or an answer was unexpected.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from loadtest import metrics, summary
from loadtest.games import served_mix
from loadtest.shapes import SHAPES, default_length
from loadtest.tally import OUT

ROOT = Path(__file__).resolve().parent.parent
LOCUSTFILE = ROOT / "loadtest" / "locustfile.py"
DEFAULT_HOST = "http://127.0.0.1:8000"


def seconds(text: str) -> int:
    """``90``, ``90s``, ``2m``, ``1h30m`` -> seconds."""
    parts = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s?)?", text.strip())
    if not text.strip() or parts is None:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (e.g. 90s, 2m, 1h)")
    h, m, s = (int(p or 0) for p in parts.groups())
    return h * 3600 + m * 60 + s


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m loadtest", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--host", default=DEFAULT_HOST, help=f"the stack's front door ({DEFAULT_HOST})")
    p.add_argument("--shape", choices=sorted(SHAPES), default="steady", help="load shape (steady)")
    p.add_argument("--users", type=int, default=20, help="simulated clients at the peak (20)")
    p.add_argument("--spawn-rate", type=float, default=None, help="users started a second (users/10, at least 1)")
    p.add_argument("--duration", type=seconds, default=None, help="run length: 90s, 2m, 1h (1m; soak 30m)")
    p.add_argument("--workers", type=int, default=0, help="locust workers on this machine (0: one process)")
    p.add_argument("--mix", default="", help="games and weights, ludix=3,ludic=1 (every game, 1 each)")
    p.add_argument("--scenarios", default="", help="scenarios and weights, table=4,bots=2,follow=2,watch=2,lobby=1")
    p.add_argument("--think", type=float, default=1.0, help="factor on the clients' think times (1; 0: none)")
    p.add_argument("--metrics", default=None,
                   help="comma-separated /metrics URLs of the services and the worker (default: make run's; "
                        "'' for none)")
    p.add_argument("--out", type=Path, default=ROOT / "var" / "load", help="where runs are written (var/load)")
    p.add_argument("--name", default="", help="the run's directory name (a UTC time stamp and the shape)")
    return p


def locust_argv(args: argparse.Namespace, run: Path, length: int, role: list[str]) -> list[str]:
    rate = args.spawn_rate or max(1.0, args.users / 10)
    return [sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--host", args.host, "--headless",
            "--users", str(args.users), "--spawn-rate", str(rate), "--run-time", f"{length}s", "--shape", args.shape,
            "--csv", str(run / summary.CSV_PREFIX), "--html", str(run / "report.html"), "--only-summary",
            "--stop-timeout", "10", "--exit-code-on-error", "0", *role]


def free_port() -> int:
    from ludoteca.entrypoints.devstack import free_port as free

    return int(free())


def run_locust(args: argparse.Namespace, run: Path, length: int) -> int:
    """Locust alone, or a master and ``--workers`` workers; returns the master's exit status."""
    env = {**os.environ, OUT: str(run), "LOAD_MIX": args.mix, "LOAD_SCENARIOS": args.scenarios,
           "LOAD_THINK": str(args.think), "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    log = (run / "locust.log").open("ab")
    workers: list[subprocess.Popen[bytes]] = []
    try:
        if args.workers <= 0:
            return subprocess.call(locust_argv(args, run, length, []), env=env, stdout=log, stderr=log, cwd=ROOT)
        port = free_port()
        master = subprocess.Popen(locust_argv(args, run, length, [
            "--master", "--master-bind-host", "127.0.0.1", "--master-bind-port", str(port),
            "--expect-workers", str(args.workers), "--expect-workers-max-wait", "60"]),
            env=env, stdout=log, stderr=log, cwd=ROOT)
        for _ in range(args.workers):
            workers.append(subprocess.Popen(
                [sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--worker", "--master-host", "127.0.0.1",
                 "--master-port", str(port)], env=env, stdout=log, stderr=log, cwd=ROOT))
        return master.wait()
    finally:
        for w in workers:  # they quit with their master; any still there is stopped
            try:
                w.wait(timeout=20)
            except subprocess.TimeoutExpired:
                w.terminate()
                w.wait(timeout=10)
        log.close()


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    length = args.duration or int(default_length(args.shape))
    name = args.name or f"{datetime.now(UTC):%Y%m%dT%H%M%SZ}-{args.shape}"
    run = args.out / name
    if not args.mix:
        args.mix, missing = served_mix(args.host)
        if missing:
            print(f"not served by {args.host}, left out: {', '.join(missing)}", flush=True)
        if not args.mix:
            print(f"no game answers at {args.host}: is the stack running (make run)?", file=sys.stderr)
            return 2
    run.mkdir(parents=True, exist_ok=True)
    sources = (metrics.local_sources(ROOT) if args.metrics is None
               else [u.strip() for u in args.metrics.split(",") if u.strip()])
    (run / "command.txt").write_text(" ".join(["python -m loadtest", *(argv if argv is not None else sys.argv[1:])])
                                     + "\n")
    print(f"load test: {args.shape}, {args.users} users, {length} s, {args.workers or 'no'} workers, "
          f"against {args.host}; writing {run}", flush=True)
    before, unreadable = metrics.scrape(sources)
    started = time.monotonic()
    status = run_locust(args, run, length)
    elapsed = time.monotonic() - started
    after, unreadable_after = metrics.scrape(sources)
    unreadable.update(unreadable_after)
    (run / "metrics.json").write_text(json.dumps({"sources": sources, "unreadable": unreadable, "window": [
        {"name": k[0], "labels": dict(k[1]), "value": v} for k, v in metrics.delta(before, after).items() if v]},
        indent=1) + "\n")
    server = summary.server_figures(before, after) if sources else None
    result = summary.summarize(run, min(elapsed, float(length)), server, unreadable)
    result["locust_exit_status"] = status
    (run / "summary.json").write_text(json.dumps(result, indent=1) + "\n")
    text = summary.markdown(result)
    (run / "summary.md").write_text(text)
    latest = args.out / "latest"
    if latest.is_symlink() or not latest.exists():
        latest.unlink(missing_ok=True)
        latest.symlink_to(name)
    print(text, end="")
    print(f"report: {run / 'report.html'}")
    return 1 if result["crashed_users"] or result["unexpected"] or status not in (0, 1) else 0
