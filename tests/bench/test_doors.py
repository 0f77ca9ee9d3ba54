"""``make bench-doors`` (``bench_doors.py``) runs on a machine with Caddy alone (the stack's door;
nginx and Traefik are measured only where installed) and prints a positive CPU figure for it: a
real stack (embedded Redis, the null endpoint under gunicorn, the generated front door)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent / "bench_doors.py"


def test_the_door_bench_measures_caddy() -> None:
    out = subprocess.run([sys.executable, str(BENCH), "--doors", "caddy", "--rounds", "1", "--requests", "200"],
                         capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    row = re.search(r"^caddy\s+([\d.]+)\s+[\d.]+\s+[\d.]+\s+([\d,.]+)\s+1\.000$", out.stdout, re.M)
    assert row is not None, out.stdout
    assert float(row.group(1)) > 0 and float(row.group(2).replace(",", "")) > 0


def test_a_door_the_machine_lacks_is_refused_by_name() -> None:
    out = subprocess.run([sys.executable, str(BENCH), "--doors", "caddy,no-such-proxy"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "no-such-proxy" in out.stderr
