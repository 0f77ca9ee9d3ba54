"""Benchmark: a victim's Ludix moves, quiet and while one abusive client is being rate-limited,
in one run on the stack of `make run` (embedded Redis, gunicorn, the front door, one trusted proxy,
the default limits).

    python tests/bench/bench_abuse.py [--moves 200] [--threads 8] [--rounds 4]

The abuser (a process of its own, 8 threads) hammers with its own seat token under respelled
schemes, random bogus tokens, malformed headers, game creation and a spoofed X-Forwarded-For;
the victim's moves are timed once the abuser is limited. Prints the victim's move p50/p90 quiet
and under abuse, the victim's 429s (must be 0) and what the abuser got. Bounded: about 30 s.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from abuse import describe, ms, p50, percentile, run_scenario  # noqa: E402
from ludoteca.config import Settings  # noqa: E402
from ludoteca.entrypoints.devstack import (  # noqa: E402
    BEHIND_DOOR,
    Supervisor,
    embedded_redis,
    free_port,
    gunicorn_argv,
    wait_http,
)

sys.path.insert(0, str(ROOT / "tests" / "bench"))
from stack import start_door  # noqa: E402  (the front door, or the older gateway)


def cpu_seconds(pid: int, group: bool) -> float:
    """CPU time (user + system) of a process, or of every process in its group (a gunicorn
    master and its workers), from /proc; 0 where /proc is not there."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        this, pgrp = int(stat.parent.name), int(fields[2])
        if this == pid or (group and pgrp == pid):
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--moves", type=int, default=200, help="victim moves in each phase")
    parser.add_argument("--threads", type=int, default=8, help="abuser threads")
    parser.add_argument("--rounds", type=int, default=4, help="alternations of quiet and abused phases")
    args = parser.parse_args()
    sup = Supervisor()
    try:
        with tempfile.TemporaryDirectory() as tmp, embedded_redis(sup, Path(tmp) / "redis") as redis_url:
            svc = free_port()
            # as the Procfile runs it: behind the front door (its address the one proxy), the default limits
            env = {"LUDOTECA_GAME": "ludix", "REDIS_URL": redis_url, **BEHIND_DOOR,
                   "LUDOTECA_RATE_LIMIT": str(Settings.rate_limit_per_minute), "LUDOTECA_RATE_LIMIT_READS": "",
                   "LUDOTECA_RATE_LIMIT_CREATE": "", "LUDOTECA_RATE_LIMIT_FAILURES": ""}
            sup.start("ludix", gunicorn_argv("ludoteca.entrypoints.wsgi:make_app()", svc, ROOT), env=env, cwd=ROOT,
                      log=Path(tmp) / "svc.log")
            if not wait_http(f"http://127.0.0.1:{svc}/readyz", 60):
                print("the ludix service did not start:\n" + (Path(tmp) / "svc.log").read_text())
                return 1
            door, _ = start_door(sup, {"ludix": f"http://127.0.0.1:{svc}"}, Path(tmp))
            pids = {"service": sup.procs["ludix"].pid, "front door": min(door.pgids)}

            def probe(abuser: int) -> dict[str, float]:
                cpu = {name: cpu_seconds(pid, group=True) for name, pid in pids.items()}
                return {**cpu, "abuser's client": cpu_seconds(abuser, group=False)}

            result = run_scenario(f"{door.url}/ludix", victim_moves=args.moves, abuse_wait=30,
                                  threads=args.threads, rounds=args.rounds, probe=probe)
    finally:
        sup.stop()
    victim, abuser, quiet, loud = result["victim"], result["abuser"], result["quiet"], result["loud"]
    print(f"Rate limits: one victim ({args.moves} moves quiet, as many under abuse, in {args.rounds} "
          f"alternations) vs one abuser ({args.threads} threads), through the front door, default limits (ms)")
    print(f"{'victim moves':22} {'p50':>8} {'p90':>8}")
    print(f"{'quiet':22} {ms(p50(quiet)):>8} {ms(percentile(quiet, 0.9)):>8}")
    print(f"{'under abuse':22} {ms(p50(loud)):>8} {ms(percentile(loud, 0.9)):>8}")
    print(f"under abuse / quiet (p50): {p50(loud) / p50(quiet):.2f}; victim refused with 429: "
          f"{victim.statuses[429]} of {sum(victim.statuses.values())}")
    print(f"abuser: limited on every kind: {result['limited']}; {abuser.total()} requests "
          f"({result['abuse_rate']:.0f}/s while the victim played), {abuser.total(429)} answered 429")
    print(f"  {describe(abuser)}")
    names = result["probes"][0][1]
    used = ", ".join(f"{name} {sum(b[name] - a[name] for a, b in result['probes']) / result['seconds']:.2f}"
                     for name in names)
    print(f"cores busy while the victim played under abuse: {used} (of {os.cpu_count()}, shared with "
          f"the victim and the rest of the machine; load average {os.getloadavg()[0]:.1f})")
    return 0 if victim.statuses[429] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
