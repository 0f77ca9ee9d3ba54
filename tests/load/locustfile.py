"""The load kit's scenarios, where docs/development.md's command looks for them:

    locust -f tests/load/locustfile.py --host http://127.0.0.1:8000

They live in ``loadtest/`` (:mod:`loadtest.locustfile`: every installed game, tables, bots,
spectators, the lobby, the shapes); ``python -m loadtest`` (``make load``) runs them and writes
the report and the summary. docs/load-testing.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from loadtest.locustfile import *  # noqa: F403 - locust finds the user classes and the shape here
