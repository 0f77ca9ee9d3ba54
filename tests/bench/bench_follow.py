"""``make bench-follow``: a seat against the bots, followed by long-polls or by its stream's turns.

    python tests/bench/bench_follow.py                     # 3 rounds of 45 s a scenario, 10 users
    python tests/bench/bench_follow.py --rounds 5 --seconds 60 --users 20

The load kit's two scenarios of one human seat against the game's bots (``loadtest.scenarios``),
every installed game, on one stack (embedded Redis, a real Celery worker playing the bots, every
game under gunicorn behind the front door, in load-test mode):

- ``bots``: between its moves the client long-polls the seat's events, then reads the game and
  lists its actions;
- ``follow``: the client holds its seat's stream with ``turns=true`` and plays from its ``turn``
  messages (the game and the listing), one request a move.

A round runs each scenario once (``python -m loadtest``, ``--seconds`` each, the order alternating
from round to round). Figures per scenario: human moves applied, requests a move (every request
of the clients, their creates, streams and long-polls included) and the server's CPU per human
move: ``utime + stime`` of every process of the stack (services, front door, Redis, the worker,
read from ``/proc`` before and after the run; the load client is not counted). A human move here
includes the bots' replies it waits for, which both scenarios play alike, so the difference is
what following costs. Medians of the rounds, and the ratio follow/bots per round.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "bench"))

from conftest import served_games, start_worker  # noqa: E402
from ludoteca.entrypoints.devstack import Supervisor, embedded_redis  # noqa: E402
from ludoteca.service_layer import registry  # noqa: E402
from stack import cpu_by_group  # noqa: E402

SCENARIOS = ("bots", "follow")


def stack_groups() -> set[int]:
    """The stack's process groups: each process this one started leads a group of its own (the
    Supervisor starts every server in a session of its own, its workers inside), the load
    client, when running, excepted (it stays in this process's group)."""
    return {os.getpgid(p.pid) for p in psutil.Process().children()} - {os.getpgrp()}


def run_once(door: str, scenario: str, args: argparse.Namespace, out: Path, name: str) -> tuple[int, int, float]:
    """One load run of ``scenario``: (human moves applied, requests, server CPU seconds)."""
    stack = stack_groups()
    before = sum(cpu_by_group(stack).values())
    argv = [sys.executable, "-m", "loadtest", "--host", door, "--users", str(args.users), "--spawn-rate",
            str(args.users), "--duration", f"{args.seconds}s", "--scenarios", f"{scenario}=1", "--think",
            str(args.think), "--out", str(out), "--name", name]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=args.seconds + 240,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
    used = sum(cpu_by_group(stack).values()) - before
    if done.returncode != 0:
        raise SystemExit(f"the load run {name} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    summary = json.loads((out / name / "summary.json").read_text())
    if summary["crashed_users"] or summary["unexpected"]:
        raise SystemExit(f"{name}: {summary['crashed_users']} crashed users, {summary['unexpected']} unexpected "
                         f"answers: {summary.get('unexpected_samples')}")
    games = summary["games"].values()
    return sum(g["moves_applied"] for g in games), sum(g["requests"] for g in games), used


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=45, help="length of one scenario's run")
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--think", type=float, default=0.5, help="the load kit's think-time factor")
    args = parser.parse_args()
    games = tuple(registry.names())
    rows: dict[str, list[tuple[int, int, float]]] = {s: [] for s in SCENARIOS}
    sup = Supervisor()
    try:
        with tempfile.TemporaryDirectory() as tmp, embedded_redis(sup, Path(tmp) / "redis") as url:
            logs = Path(tmp)
            start_worker(sup, "follow-worker", {"REDIS_URL": url}, logs / "worker.log")
            env = {"LUDOTECA_LOAD_TEST_ADDRESSES": "127.0.0.1"}
            with served_games(games, url, logs, env) as (door, _):
                for r in range(args.rounds):
                    for scenario in (SCENARIOS if r % 2 == 0 else SCENARIOS[::-1]):
                        rows[scenario].append(run_once(door, scenario, args, logs / "load", f"{scenario}-{r}"))
                        moves, requests, cpu = rows[scenario][-1]
                        print(f"[bench] round {r + 1}: {scenario} {moves} moves, {requests / moves:.2f} requests "
                              f"a move, {1000 * cpu / moves:.2f} ms of server CPU a move", file=sys.stderr, flush=True)
    finally:
        sup.stop()
    print(f"bench-follow: one human seat against the bots, every game ({', '.join(games)}), {args.users} users, "
          f"{args.seconds} s a scenario a round, {args.rounds} rounds, medians")
    print(f"{'scenario':<9} {'human moves':>11} {'requests a move':>15} {'server CPU ms a move':>20}")
    per_move = {s: [1000 * cpu / moves for moves, _, cpu in rows[s]] for s in SCENARIOS}
    for s in SCENARIOS:
        print(f"{s:<9} {statistics.median(m for m, _, _ in rows[s]):>11.0f} "
              f"{statistics.median(q / m for m, q, _ in rows[s]):>15.2f} {statistics.median(per_move[s]):>20.2f}")
    ratios = [f / b for f, b in zip(per_move["follow"], per_move["bots"], strict=True)]
    print(f"follow / bots, server CPU a move, per round: {' '.join(f'{x:.2f}' for x in ratios)} "
          f"(median {statistics.median(ratios):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
