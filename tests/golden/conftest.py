"""The golden corpus (``tests/golden``): the replay figures are printed at the end of the run."""

from __future__ import annotations

from typing import Any


def pytest_terminal_summary(terminalreporter: Any) -> None:
    from golden.corpus import figure_lines

    lines = figure_lines()
    if lines:
        terminalreporter.section("golden corpus: recorded games replayed")
        for line in lines:
            terminalreporter.write_line(line)
