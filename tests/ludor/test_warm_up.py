"""The worker warms Ludor's expert up before its pool forks (``GameDefinition.warm_up``): its
compiled rollouts are loaded and run in the main process, so no bot's first decision pays for it.

Run in a fresh interpreter: in this test process another test may have compiled them already."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
from ludor import rollouts
assert not rollouts.evaluate.signatures, "compiled before the worker's preload"
from ludoteca.adapters import worker
worker._preload_games()
assert rollouts.evaluate.signatures, "the preload did not compile the rollouts"
print("warm")
"""


def test_the_worker_preload_compiles_the_experts_rollouts() -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().endswith("warm")
