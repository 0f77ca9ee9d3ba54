#!/usr/bin/env python3
"""One line per step of ``make install``, ``make policy`` (and so ``make run`` and ``make test``).

    python3 tools/step.py LOG "what it does" command [args...]

prints ``what it does ...``, runs the command with its output appended to ``LOG`` (a file, made
with its folder), then ends the line with ``done (12.3 s)``; a command that fails gets its log's
last 40 lines and its exit status on the terminal, and the step exits with that status. With
``V=1`` in the environment (``make run V=1``) the command's output goes to the terminal instead.
Standard library only: it runs before the virtualenv exists.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    log, label, command = Path(argv[0]), argv[1], argv[2:]
    verbose = os.environ.get("V", "") not in ("", "0")
    print(f"{label} ...", end="" if not verbose else "\n", flush=True)
    start = time.monotonic()
    if verbose:
        status = subprocess.call(command)
    else:
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "ab") as out:
            out.write(f"\n$ {' '.join(command)}\n".encode())
            out.flush()
            status = subprocess.call(command, stdout=out, stderr=subprocess.STDOUT)
    took = time.monotonic() - start
    if status == 0:
        print(f" done ({took:.1f} s)" if not verbose else f"{label}: done ({took:.1f} s)", flush=True)
        return 0
    print(f" failed (exit {status}, {took:.1f} s)", flush=True)
    if not verbose:
        lines = log.read_text(errors="replace").splitlines()
        print("\n".join(lines[-40:]), file=sys.stderr)
        print(f"(the whole output: {log})", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
