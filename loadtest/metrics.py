"""The server's own figures for a run's window: the Prometheus text of each service's ``/metrics``
(and the worker's) read before and after, and their difference per game (the families of
:mod:`ludoteca.adapters.observe`):

* moves by outcome and status (``ludoteca_moves_total``);
* move latency (``ludoteca_move_duration_seconds``, every action summed): p50, p95, p99 from the
  histogram's buckets, interpolated within a bucket as Prometheus' ``histogram_quantile`` does;
* bot-turn delay (``ludoteca_bot_turn_delay_seconds``, the worker's) and bot turns by outcome;
* games created and finished.

The front door serves ``/<game>/metrics`` only with ``LUDOTECA_PUBLIC_METRICS=1``: read the
services' own ports (``make run``: the Procfile's, :func:`local_sources`).
"""

from __future__ import annotations

import math
import urllib.request
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

Sample = tuple[str, tuple[tuple[str, str], ...]]
Samples = dict[Sample, float]
QUANTILES = (0.5, 0.95, 0.99)
WORKER_METRICS = "http://127.0.0.1:9100/metrics"
"""The worker's metrics under ``make run`` (deploy/Procfile)."""


def local_sources(root: Path) -> list[str]:
    """``make run``'s metrics: every game service on its Procfile port, and the worker."""
    from ludoteca.entrypoints.frontdoor import local_routes

    return [f"http://{upstream}/metrics" for upstream in local_routes(root).values()] + [WORKER_METRICS]


def parse(text: str) -> Samples:
    out: Samples = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name.startswith("ludoteca_"):
                key = (s.name, tuple(sorted(s.labels.items())))
                out[key] = out.get(key, 0.0) + float(s.value)
    return out


def scrape(urls: Iterable[str], timeout: float = 5.0) -> tuple[Samples, dict[str, str]]:
    """Every URL's samples summed, and the URLs that could not be read (with why)."""
    total: Samples = {}
    failed: dict[str, str] = {}
    for url in urls:
        try:
            with urllib.request.urlopen(url, timeout=timeout) as r:
                text = r.read().decode()
        except OSError as err:
            failed[url] = str(err)
            continue
        for key, value in parse(text).items():
            total[key] = total.get(key, 0.0) + value
    return total, failed


def delta(before: Samples, after: Samples) -> Samples:
    """What the counters and histograms gained between two scrapes (a series absent before: all
    of it; one that went back, a restarted process: its value after)."""
    out: Samples = {}
    for key, value in after.items():
        gained = value - before.get(key, 0.0)
        out[key] = value if gained < 0 else gained
    return out


def histogram_quantile(q: float, buckets: Mapping[float, float]) -> float | None:
    """The ``q`` quantile of cumulative ``buckets`` ({upper bound: count}), in the bound's unit;
    None without observations. Past the last finite bound: that bound (as Prometheus does)."""
    bounds = sorted(buckets)
    if not bounds or buckets[bounds[-1]] <= 0:
        return None
    total = buckets[bounds[-1]]
    rank = q * total
    lower, below = 0.0, 0.0
    for bound in bounds:
        count = buckets[bound]
        if count >= rank:
            if math.isinf(bound):
                return lower
            span = count - below
            return lower + (bound - lower) * ((rank - below) / span if span > 0 else 1.0)
        lower, below = bound, count
    return lower


def per_game(samples: Samples) -> dict[str, dict[str, Any]]:
    """The window's figures per game (see the module docstring)."""
    games: dict[str, dict[str, Any]] = defaultdict(lambda: {
        "moves": {}, "bot_turns": {}, "games_created": 0, "games_finished": 0})
    move_buckets: dict[str, dict[float, float]] = defaultdict(lambda: defaultdict(float))
    bot_buckets: dict[str, dict[float, float]] = defaultdict(lambda: defaultdict(float))
    for (name, labels), value in samples.items():
        lab = dict(labels)
        game = lab.get("game")
        if game is None:
            continue
        figures = games[game]
        if name == "ludoteca_moves_total":
            key = f"{lab.get('outcome')} {lab.get('status')}"
            figures["moves"][key] = figures["moves"].get(key, 0) + int(value)
        elif name == "ludoteca_bot_turns_total":
            outcome = lab.get("outcome", "")
            figures["bot_turns"][outcome] = figures["bot_turns"].get(outcome, 0) + int(value)
        elif name == "ludoteca_games_created_total":
            figures["games_created"] += int(value)
        elif name == "ludoteca_games_finished_total":
            figures["games_finished"] += int(value)
        elif name == "ludoteca_move_duration_seconds_bucket":
            move_buckets[game][float(lab["le"])] += value
        elif name == "ludoteca_bot_turn_delay_seconds_bucket":
            bot_buckets[game][float(lab["le"])] += value
    for game, figures in games.items():
        figures["move_seconds"] = {f"p{round(q * 100)}": histogram_quantile(q, move_buckets.get(game, {}))
                                   for q in QUANTILES}
        figures["bot_delay_seconds"] = {f"p{round(q * 100)}": histogram_quantile(q, bot_buckets.get(game, {}))
                                        for q in QUANTILES}
    return dict(games)
