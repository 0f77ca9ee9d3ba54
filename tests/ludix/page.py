"""How a player clicks Ludix's table in the playground (services/ludix/ludix/playground.js), for
the browser tests (tests/browser/test_playground.py; tests/browser/pagekit.py says what a game's
driver defines)."""

from __future__ import annotations

import re
from typing import Any

from browser.pagekit import Shot, visible
from playwright.sync_api import Page


def move(page: Page, memo: dict[str, Any], url: str, shot: Shot) -> None:
    """Call "Alea jacta est!" when offered; roll, once counting a lower numeral than the best, and
    hold when the turn would bank 25 points or more."""
    if visible(page, "#ludix-call"):
        page.click("#ludix-call")
        return
    hold = page.locator("#ludix-hold")
    if hold.count():
        chips = page.locator(".numerals .chip")
        if chips.count() > 1 and not memo.get("chose"):  # once: a lower numeral than the best
            chips.nth(1).click()
            assert chips.nth(1).get_attribute("aria-pressed") == "true"
            memo["chose"] = True
        banked = int(re.search(r"\d+", hold.inner_text()).group())  # type: ignore[union-attr]
        if banked >= 25:
            hold.click()
            return
    page.click("#ludix-roll")
