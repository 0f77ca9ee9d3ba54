"""Benchmark: the time of a move and of a view, straight to the Ludix service and through the
gateway, measured in one run on the real stack (embedded Redis, gunicorn, the gateway).

    python tests/bench/bench_api.py [--moves 1500]

Prints medians (p50) and p90 in milliseconds and the gateway's added cost. One client, keep-alive
connections, alternating two human seats so every request is a real, accepted move.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import requests
from ludoteca.devstack import Supervisor, embedded_redis, free_port, start_gateway, start_service

ROOT = Path(__file__).resolve().parents[2]


def percentile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def new_game(s: requests.Session, base: str) -> tuple[str, list[str]]:
    r = s.post(f"{base}/games", json={"seats": ["human", "human"], "options": {"target": 1000}})
    gid, t0 = r.json()["game"]["id"], r.json()["token"]
    t1 = s.post(f"{base}/games/{gid}/players", json={}).json()["token"]
    s.post(f"{base}/games/{gid}/actions", json={"type": "alea_jacta_est"}, headers={"Authorization": f"Bearer {t0}"})
    return gid, [t0, t1]


def measure_moves(base: str, n: int) -> tuple[list[float], list[float]]:
    """Times of n accepted moves (roll, then hold when a throw is pending) and n views."""
    s = requests.Session()
    gid, tokens = new_game(s, base)
    moves: list[float] = []
    views: list[float] = []
    state = s.get(f"{base}/games/{gid}").json()
    while len(moves) < n:
        if state["status"] == "finished":
            gid, tokens = new_game(s, base)
            state = s.get(f"{base}/games/{gid}").json()
        seat = state["to_act"][0]
        action = {"type": "hold"} if state["state"]["throw"] else {"type": "roll"}
        t0 = time.perf_counter()
        r = s.post(f"{base}/games/{gid}/actions", json=action, headers={"Authorization": f"Bearer {tokens[seat]}"})
        moves.append(time.perf_counter() - t0)
        assert r.status_code == 200, r.text
        state = r.json()["game"]
        t0 = time.perf_counter()
        v = s.get(f"{base}/games/{gid}", headers={"Authorization": f"Bearer {tokens[seat]}"})
        views.append(time.perf_counter() - t0)
        assert v.status_code == 200
    return moves, views


def ms(x: float) -> str:
    return f"{x * 1000:7.2f}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--moves", type=int, default=1500)
    args = parser.parse_args()
    os.environ.setdefault("LUDOTECA_RATE_LIMIT", "0")  # one client creating games fast: no rate limits
    sup = Supervisor()
    try:
        with tempfile.TemporaryDirectory() as tmp, embedded_redis(sup, Path(tmp) / "redis") as redis_url:
            svc, gw = free_port(), free_port()
            start_service(sup, "ludix", svc, redis_url, ROOT, Path(tmp) / "svc.log")
            start_gateway(sup, gw, {"ludix": f"http://127.0.0.1:{svc}"}, ROOT, Path(tmp) / "gw.log")
            direct, via = f"http://127.0.0.1:{svc}", f"http://127.0.0.1:{gw}/ludix"
            measure_moves(direct, 200)  # warm-up both paths
            measure_moves(via, 200)
            results: dict[str, tuple[list[float], list[float]]] = {}
            # interleave the two paths in rounds so machine noise hits both alike
            rounds = 5
            for name in ("direct", "gateway"):
                results[name] = ([], [])
            for _ in range(rounds):
                for name, base in (("direct", direct), ("gateway", via)):
                    m, v = measure_moves(base, args.moves // rounds)
                    results[name][0].extend(m)
                    results[name][1].extend(v)
            print(f"Ludix API latency, one keep-alive client, {args.moves} moves per path (ms)")
            print(f"{'path':10} {'move p50':>9} {'move p90':>9} {'view p50':>9} {'view p90':>9}")
            stat: Callable[[list[float]], float] = statistics.median
            for name, (m, v) in results.items():
                print(f"{name:10} {ms(stat(m)):>9} {ms(percentile(m, 0.9)):>9} {ms(stat(v)):>9} "
                      f"{ms(percentile(v, 0.9)):>9}")
            dm, gm = stat(results["direct"][0]), stat(results["gateway"][0])
            dv, gv = stat(results["direct"][1]), stat(results["gateway"][1])
            print(f"gateway adds {ms(gm - dm).strip()} ms per move (ratio {gm / dm:.2f}) and "
                  f"{ms(gv - dv).strip()} ms per view (ratio {gv / dv:.2f}), medians")
    finally:
        sup.stop()


if __name__ == "__main__":
    main()
