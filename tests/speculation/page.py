"""How a player clicks Speculation's table in the playground
(services/speculation/speculation/playground.js), for the browser tests
(tests/browser/test_playground.py; tests/browser/pagekit.py says what a game's driver defines)."""

from __future__ import annotations

from typing import Any

from browser.pagekit import Shot, visible
from playwright.sync_api import Page


def move(page: Page, memo: dict[str, Any], url: str, shot: Shot) -> None:
    """Report 7 items of clothing with the stepper, win the race, ask values not answered "no"
    before, and name jokers (four values clicked, a new guess each time)."""
    if visible(page, "#spec-report"):
        for _ in range(2):
            page.click("button[aria-label='one more']")
        assert page.inner_text("#clothing-items") == "7"
        page.click("#spec-report")
        return
    if visible(page, "#spec-race"):
        page.click("#spec-race")
        return
    if visible(page, "#spec-joker"):
        tries = memo["joker"] = memo.get("joker", 0) + 1
        for k in range(4):
            page.click(f".ask .card-btn.value[data-value='{(tries + 3 * k) % 10 + 1}']")
        page.click("#spec-joker")
        return
    fresh = page.locator(".ask .card-btn.value:not(.asked-no):not([disabled])")
    (fresh if fresh.count() else page.locator(".ask .card-btn.value:not([disabled])")).first.click()


def check_end(page: Page, final: dict[str, Any], mine: list[dict[str, Any]]) -> None:
    """The result screen counts each player's guesses (the table's result columns)."""
    head = page.locator("#result thead").inner_text()
    assert "Tier guesses" in head and "Joker guesses" in head, head
