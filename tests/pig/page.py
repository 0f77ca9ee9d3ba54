"""How a player clicks Pig's table in the playground (services/pig/pig/playground.js), for the
browser tests (tests/browser/test_playground.py; tests/browser/pagekit.py says what a game's
driver defines). The one to copy for a new game: its ``move`` clicks the buttons its table draws."""

from __future__ import annotations

import re
from typing import Any

from browser.pagekit import Shot, enabled
from playwright.sync_api import Page


def move(page: Page, memo: dict[str, Any], url: str, shot: Shot) -> None:
    """Roll until the turn holds 10 points, then hold (the hold button says what it banks)."""
    hold = page.locator("#pig-hold")
    if enabled(page, "#pig-hold") and int(re.search(r"\d+", hold.inner_text()).group()) >= 10:  # type: ignore[union-attr]
        hold.click()
        return
    page.click("#pig-roll")
