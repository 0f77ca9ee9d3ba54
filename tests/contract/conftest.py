"""The contract suite (``tests/contract``): every registered game gets all of it by registering.

The shared parts are in :mod:`contract.playing`; what each game keeps secret in
:mod:`contract.twins`. The figures (playouts run, most actions seen against each declared bound)
are printed at the end of the run.
"""

from __future__ import annotations

from typing import Any

from contract.playing import print_figures


def pytest_terminal_summary(terminalreporter: Any) -> None:
    print_figures(terminalreporter)
