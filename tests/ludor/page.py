"""How a player clicks Ludor's table in the playground (services/ludor/ludor/playground.js), for
the browser tests (tests/browser/test_playground.py; tests/browser/pagekit.py says what a game's
driver defines)."""

from __future__ import annotations

import re
from typing import Any

from browser.pagekit import Shot, cards_in, enabled, visible
from playwright.sync_api import Page


def rank(code: str) -> str:
    """A Spanish card's rank ("" for a joker and the Autoplim, which make no set by rank)."""
    return "" if code.startswith("JK") or code == "Autoplim" else code[:-1]


def move(page: Page, memo: dict[str, Any], url: str, shot: Shot) -> None:
    """Vote to end; give back the cards the exchange asks for; play the first playable card, with
    its mates for a set (naming a joker's rank when asked); else pass, or play the Autoplim."""
    if visible(page, "#ludor-vote-end"):
        page.click("#ludor-vote-end")
        return
    codes = cards_in(page, ".hand .card-btn")
    playable = cards_in(page, ".hand .card-btn.playable")

    def click(code: str) -> None:
        page.locator(f".hand .card-btn[data-card='{code}']").click()

    if visible(page, "#ludor-give"):  # the exchange: cards until the listed give-back is built
        for code in playable:
            click(code)
            if enabled(page, "#ludor-give"):
                page.click("#ludor-give")
                return
        raise AssertionError("ludor: no give-back could be built")
    for code in playable:
        if code == "Autoplim":
            continue
        click(code)
        if enabled(page, "#ludor-play"):
            page.click("#ludor-play")
            return
        ranks = page.locator("button.move.rank:not([disabled])")
        if ranks.count():
            ranks.first.click()
            return
        mates = [c for c in codes if c != code and rank(c) == rank(code) and rank(c)]
        for mate in mates:  # a pair, three of a kind...
            click(mate)
            if enabled(page, "#ludor-play"):
                page.click("#ludor-play")
                return
        for chosen in cards_in(page, ".hand .card-btn[aria-pressed=true]"):
            click(chosen)
    if enabled(page, "#ludor-pass"):
        page.click("#ludor-pass")
        return
    if "Autoplim" in playable:
        click("Autoplim")
        page.click("#ludor-autoplim")
        return
    raise AssertionError("ludor: nothing to click: " + page.inner_text("#board")[:500])


def check_end(page: Page, final: dict[str, Any], mine: list[dict[str, Any]]) -> None:
    """The result screen has Ludor's titles."""
    assert re.search("Presidente|Culo", page.inner_text("#result"))
