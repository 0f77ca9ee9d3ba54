"""A run's summary per game: what the clients saw (moves applied a second, a move's latency
p50/p95/p99 from locust's statistics, the answers by status, the unexpected ones, the tables)
beside what the server measured over the same window (:mod:`loadtest.metrics`), and the crashed
users (locust's exceptions: a simulated client that raised).

:func:`summarize` makes it from a run's directory (``locust_stats.csv``, ``locust_exceptions.csv``,
``tally-*.json``) and the two scrapes; :func:`markdown` writes it as the table docs/load-testing.md
shows.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path
from typing import Any

from loadtest import metrics
from loadtest.tally import load as load_tally

CSV_PREFIX = "locust"


def read_stats(run: Path) -> dict[str, dict[str, str]]:
    path = run / f"{CSV_PREFIX}_stats.csv"
    if not path.exists():
        return {}
    with path.open(newline="") as f:
        return {row["Name"]: row for row in csv.DictReader(f)}


def crashed_users(run: Path) -> list[dict[str, str]]:
    """Locust's exceptions: each a simulated client's task that raised (never expected)."""
    path = run / f"{CSV_PREFIX}_exceptions.csv"
    if not path.exists():
        return []
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def _ms(row: dict[str, str] | None, column: str) -> float | None:
    if row is None or row.get(column) in (None, "", "N/A"):
        return None
    return float(row[column])


def summarize(run: Path, seconds: float, server: dict[str, dict[str, Any]] | None,
              unreadable: dict[str, str]) -> dict[str, Any]:
    tally = load_tally(run)
    stats = read_stats(run)
    games: dict[str, dict[str, Any]] = defaultdict(lambda: {
        "moves_applied": 0, "moves_replayed": 0, "statuses": {}, "unexpected": 0, "tables": {},
        "waited": {}, "visits": {}, "watched": {}, "lobby": {}, "listings": {}, "requests": 0})
    for key, n in tally.get("counts", {}).items():
        game, what, detail = key.split("/", 2)
        g = games[game]
        if what == "moves":
            g[f"moves_{detail}"] = g.get(f"moves_{detail}", 0) + n
        elif what == "status":
            status = detail.rsplit(" ", 1)[1]
            g["requests"] += n
            if not status.startswith("2"):
                g["statuses"][status] = g["statuses"].get(status, 0) + n
        elif what == "unexpected":
            g["unexpected"] += n
        elif what in ("tables", "waited", "visits", "watched", "lobby", "listings"):
            g[what][detail] = g[what].get(detail, 0) + n
    for game, g in games.items():
        row = stats.get(f"{game} move")
        g["moves_per_second"] = round(g["moves_applied"] / seconds, 2) if seconds > 0 else None
        g["move_ms"] = {"p50": _ms(row, "50%"), "p95": _ms(row, "95%"), "p99": _ms(row, "99%")}
        if server is not None:
            g["server"] = server.get(game, {})
    crashed = crashed_users(run)
    return {
        "seconds": round(seconds, 1),
        "games": dict(sorted(games.items())),
        "crashed_users": sum(int(c.get("Count", 1) or 1) for c in crashed),
        "crashes": [c.get("Message", "") for c in crashed][:10],
        "unexpected": sum(g["unexpected"] for g in games.values()),
        "unexpected_samples": tally.get("samples", []),
        "requests_per_second": round(float(stats["Aggregated"]["Requests/s"]), 1) if "Aggregated" in stats else None,
        "metrics_unreadable": unreadable,
    }


def _fmt(v: float | None, scale: float = 1.0, digits: int = 0) -> str:
    return "-" if v is None else f"{v * scale:.{digits}f}"


def markdown(s: dict[str, Any]) -> str:
    lines = [
        f"Window {s['seconds']} s, {s['requests_per_second']} requests/s; crashed users {s['crashed_users']}; "
        f"unexpected answers {s['unexpected']}.",
        "",
        "| game | moves applied | moves/s | move p50/p95/p99 ms (client) | move p50/p95/p99 ms (server) "
        "| server moves by outcome | answers not 2xx (client) | tables started/finished | bot delay p50/p95 s "
        "| bot turns played |",
        "|---|---:|---:|---|---|---|---|---|---|---:|",
    ]
    for game, g in s["games"].items():
        server = g.get("server") or {}
        ms = g["move_ms"]
        sm = server.get("move_seconds") or {}
        bot = server.get("bot_delay_seconds") or {}
        outcomes = ", ".join(f"{k}: {v}" for k, v in sorted((server.get("moves") or {}).items()) if v) or "-"
        statuses = ", ".join(f"{k}: {v}" for k, v in sorted(g["statuses"].items())) or "none"
        tables = f"{g['tables'].get('started', 0)}/{g['tables'].get('finished', 0)}"
        lines.append(
            f"| {game} | {g['moves_applied']} | {g['moves_per_second']} "
            f"| {_fmt(ms['p50'])}/{_fmt(ms['p95'])}/{_fmt(ms['p99'])} "
            f"| {_fmt(sm.get('p50'), 1000, 1)}/{_fmt(sm.get('p95'), 1000, 1)}/{_fmt(sm.get('p99'), 1000, 1)} "
            f"| {outcomes} | {statuses} | {tables} "
            f"| {_fmt(bot.get('p50'), 1, 2)}/{_fmt(bot.get('p95'), 1, 2)} "
            f"| {(server.get('bot_turns') or {}).get('played', '-')} |")
    if s["metrics_unreadable"]:
        lines += ["", "Metrics not read: " + "; ".join(f"{u} ({why})" for u, why in s["metrics_unreadable"].items())]
    if s["unexpected_samples"]:
        lines += ["", "Unexpected answers (first ones):", *(f"- {x}" for x in s["unexpected_samples"])]
    if s["crashes"]:
        lines += ["", "Crashed users:", *(f"- {x}" for x in s["crashes"])]
    return "\n".join(lines) + "\n"


def server_figures(before: metrics.Samples, after: metrics.Samples) -> dict[str, dict[str, Any]]:
    return metrics.per_game(metrics.delta(before, after))
