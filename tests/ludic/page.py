"""How a player clicks Ludic's table in the playground (services/ludic/ludic/playground.js), for
the browser tests (tests/browser/test_playground.py; tests/browser/pagekit.py says what a game's
driver defines): the page's seat is the Vexer in one round (its rule written in the editor, a bad
one first) and a Seeker in the other (two rounds: ``OPTIONS``); the cut decides who is the first
Vexer, so the whole-game test tries tables to their cut until the page's seat is it (``open_game``)."""

from __future__ import annotations

import json
from typing import Any

import requests
from browser.pagekit import Shot, axe_scan, enabled, open_table, serious, settle, visible
from playwright.sync_api import Page

OPTIONS = {"round_limit": 2}
POSTS = {"rules/check"}  # the Vexer's editor's live verdict
VEXER_TRIES = 20  # tables opened until the cut makes the page's seat the Vexer: 1 - (2/3)**20 > 99.9%


def open_game(page: Page, url: str) -> tuple[str, int]:
    """A table where the page's seat is the first Vexer (the low card of the cut decides, so
    tables are tried, each only to its cut, until one makes it so: the editor's path runs in
    every run, not in most). The table's id and the cuts clicked on it."""
    cut_done = """() => {
      const s = JSON.parse(document.getElementById("raw-view").textContent || "{}");
      return (s.vexer !== null && s.vexer !== undefined)
        || (!!document.getElementById("ludic-cut") && !document.getElementById("board").dataset.busy);
    }"""
    for _ in range(VEXER_TRIES):
        gid = open_table(page, url, "ludic")
        cuts = 0
        while True:
            page.wait_for_function(cut_done, timeout=30_000)
            state = json.loads(page.text_content("#raw-view") or "{}")
            if state.get("vexer") is not None:
                break
            before = page.get_attribute("#table", "data-version")
            page.click("#ludic-cut")
            cuts += 1
            settle(page, before)
        if state["vexer"] == 0:
            return gid, cuts
    raise AssertionError(f"the page's seat was not the first Vexer at any of {VEXER_TRIES} tables")


def rule_for(page: Page, url: str) -> str:
    """A rule the initial sets allow (the obeying set obeys it, the other breaks it): its top (or
    bottom) card exactly, checked by the game's public rule checker; the sets are read from the
    cards the page draws."""
    def initial(column: str) -> dict[str, str]:
        cards = page.locator(f".column-{column} .set").first.locator("[data-card]")
        top, bottom = (str(cards.nth(i).get_attribute("data-card")) for i in (0, 1))
        return {"top": top, "bottom": bottom}

    obey, broken = initial("obey"), initial("break")

    def words(code: str) -> str:
        rank = {"J": "jack", "Q": "queen", "K": "king"}.get(code[:-1], code[:-1])
        return f"{'red' if code[-1] in 'HD' else 'black'} {rank}"

    for where in ("top", "bottom"):
        rule = f"the {where} card is a {words(obey[where])}"
        r = requests.post(f"{url}/ludic/rules/check", json={"rule": rule, "obey_set": obey, "break_set": broken},
                          timeout=10)
        assert r.status_code == 200, r.text
        if r.json()["legal"]:
            return rule
    raise AssertionError(f"no rule for the sets {obey} {broken}")


def move(page: Page, memo: dict[str, Any], url: str, shot: Shot) -> None:
    """Cut; as the Vexer, a bad rule (its verdict disables the button) then a good one; a hint or a
    flip chosen; one wrong guess; as a Seeker, two playable cards queried or played to Obey, a
    draw when none is playable; else pass or draw."""
    if visible(page, "#ludic-cut"):
        page.click("#ludic-cut")
        return
    if visible(page, "#ludic-rule"):  # the Vexer: a bad rule first (the verdict says why), then a good one
        page.fill("#ludic-rule", "the top card is purple")
        page.locator("#ludic-verdict[data-state=invalid]").wait_for()
        assert page.locator("#ludic-write").is_disabled()
        page.fill("#ludic-rule", rule_for(page, url))
        page.locator("#ludic-verdict[data-state=valid]").wait_for()
        shot("playground-ludic-vexer")
        assert serious(axe_scan(page)) == []  # the editor too
        page.click("#ludic-write")
        memo["vexer"] = True
        return
    choice = page.locator("button.set-choice")
    if choice.count():
        choice.first.click()
        return
    if visible(page, "#ludic-guess") and not memo.get("guessed"):
        page.fill("#ludic-guess-text", "the top card is red")  # a wrong guess costs nothing
        page.click("#ludic-guess")
        memo["guessed"] = True
        return
    if enabled(page, "#ludic-draw") and not page.locator(".hand .card-btn.playable").count():
        page.click("#ludic-draw")
        return
    playable = page.locator(".hand .card-btn.playable")
    if playable.count() >= 2 and (visible(page, "#ludic-query") or visible(page, "#ludic-play-obey")):
        playable.nth(0).click()
        playable.nth(1).click()
        assert page.locator(".hand .card-btn[aria-pressed=true]").count() == 2
        for button in ("#ludic-query", "#ludic-play-obey"):
            if enabled(page, button):
                page.click(button)
                return
    for button in ("#ludic-pass", "#ludic-draw"):
        if enabled(page, button):
            page.click(button)
            return
    raise AssertionError("ludic: nothing to click: " + page.inner_text("#board")[:500])


def check_end(page: Page, final: dict[str, Any], mine: list[dict[str, Any]]) -> None:
    """The page's seat was the Vexer of the first round (``open_game``) and wrote its rule by
    clicking."""
    kinds = {a["action"]["type"] for a in mine}
    assert final["state"]["rounds"][0]["vexer"] == 0, final["state"]["rounds"]
    assert "write_rule" in kinds, kinds
