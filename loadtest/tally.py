"""What the simulated clients saw, counted per game: every answer's status by request kind,
moves applied, games started and finished, retries and waits, and each unexpected answer.

One :class:`Tally` per locust process (:data:`TALLY`). With ``LOAD_OUT`` set (``python -m
loadtest``, every process on this machine) each process writes its own counts to
``$LOAD_OUT/tally-<host>-<pid>.json`` when it quits, and :func:`load` adds the files up: nothing
is lost at the end of a run. Without it (a distributed run across machines, Kubernetes) each
worker sends its counts with its stats reports (locust's ``report_to_master`` event), the master
adds them up (``worker_report``) and logs them when it quits (the last seconds of a worker's
counts may be missing there). Keys are ``<game>/<what>/<detail>`` strings so they travel as JSON.
"""

from __future__ import annotations

import json
import logging
import os
import socket
from collections import Counter
from pathlib import Path
from typing import Any

log = logging.getLogger("loadtest")

OUT = "LOAD_OUT"
"""The environment variable naming the directory where each process writes its tally."""
REPORT_KEY = "ludoteca_tally"
UNEXPECTED_SAMPLES = 20
"""Unexpected answers kept verbatim (the first ones of each process), for the summary."""


class Tally:
    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.samples: list[str] = []

    def add(self, game: str, what: str, detail: str = "", n: int = 1) -> None:
        self.counts[f"{game}/{what}/{detail}"] += n

    def status(self, game: str, kind: str, status: int) -> None:
        self.add(game, "status", f"{kind} {status}")

    def unexpected(self, game: str, kind: str, why: str) -> None:
        self.add(game, "unexpected", kind)
        if len(self.samples) < UNEXPECTED_SAMPLES:
            self.samples.append(f"{game} {kind}: {why}"[:500])
        log.warning("unexpected answer: %s %s: %s", game, kind, why[:300])

    def take(self) -> dict[str, Any]:
        """The counts since the last call (a worker's report), then cleared."""
        out = {"counts": dict(self.counts), "samples": list(self.samples)}
        self.counts.clear()
        self.samples.clear()
        return out

    def merge(self, data: dict[str, Any]) -> None:
        self.counts.update(data.get("counts", {}))
        room = UNEXPECTED_SAMPLES - len(self.samples)
        self.samples.extend(data.get("samples", [])[:max(0, room)])

    def as_json(self) -> dict[str, Any]:
        return {"counts": dict(sorted(self.counts.items())), "samples": self.samples}


TALLY = Tally()


def load(out: Path) -> dict[str, Any]:
    """Every process's tally under ``out``, added up."""
    total = Tally()
    for path in sorted(out.glob("tally-*.json")):
        total.merge(json.loads(path.read_text()))
    return total.as_json()


def install(events: Any) -> None:
    """Hook :data:`TALLY` on locust's events (see the module docstring)."""
    out = os.environ.get(OUT)

    def _report(client_id: str, data: dict[str, Any]) -> None:
        if not out:
            data[REPORT_KEY] = TALLY.take()

    def _merge(client_id: str, data: dict[str, Any]) -> None:
        TALLY.merge(data.get(REPORT_KEY, {}))

    def _write(environment: Any, **_: Any) -> None:
        if not out:
            log.info("tally: %s", json.dumps(TALLY.as_json()))
            return
        path = Path(out) / f"tally-{socket.gethostname()}-{os.getpid()}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(TALLY.as_json(), indent=1) + "\n")

    events.report_to_master.add_listener(_report)
    events.worker_report.add_listener(_merge)
    events.quitting.add_listener(_write)
