"""Each game's interactive docs (Swagger UI at ``/<game>/docs``) in headless Chromium through the
real front door: the page renders every operation from the service's own files (nothing from the
network beyond the front door: it works offline), and "Try it out" sends a cheap public ``GET`` and
a ``POST /games`` under the game's prefix (the document's ``servers``), and shows their 2xx."""

from __future__ import annotations

import json
from typing import Any

import pytest
from ludoteca.service_layer import registry
from playwright.sync_api import Locator, Page

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

CHEAP_GET = "/stats"  # every game has it: public, no game needed
CORE_PATHS = {"/games", "/games/{game_id}", "/games/{game_id}/actions", "/games/{game_id}/events",
              "/games/{game_id}/players", "/games/{game_id}/replay"}


def operation(page: Page, method: str, path: str) -> Locator:
    summary = page.locator(f'.opblock-summary-path[data-path="{path}"]')
    block = page.locator(f".opblock.opblock-{method}", has=summary)
    assert block.count() == 1, f"{method.upper()} {path}: {block.count()} operations shown"
    return block


def try_it_out(block: Locator, body: Any = None) -> tuple[str, str, str]:
    """Expand the operation, "Try it out", fill the body in, Execute: (status, URL, body) shown."""
    block.locator(".opblock-summary").click()
    block.locator("button.try-out__btn").click()
    if body is not None:
        block.locator("textarea.body-param__text").fill(json.dumps(body))
    block.locator("button.execute").click()
    status = block.locator(".live-responses-table tbody td.response-col_status").first
    status.wait_for(timeout=30_000)
    shown = block.locator(".live-responses-table tbody td.response-col_description").first.inner_text()
    return status.inner_text().strip(), block.locator(".request-url pre").inner_text().strip(), shown


@pytest.mark.parametrize("game", registry.names())
def test_docs_render_offline_and_try_it_out_follows_the_prefix(game: str, tab: Any, front_door: Any) -> None:
    page = tab.page
    page.goto(f"{front_door.url}/{game}/docs")
    page.locator(".opblock").first.wait_for(timeout=30_000)
    shown = set(page.locator(".opblock-summary-path").evaluate_all("els => els.map(e => e.dataset.path)"))
    assert shown >= CORE_PATHS, CORE_PATHS - shown
    assert page.locator(".opblock").count() >= 9
    assert page.locator(".errors-wrapper").count() == 0  # Swagger UI's own complaints about the document

    path = CHEAP_GET
    status, url, body = try_it_out(operation(page, "get", path))
    assert status == "200", (status, body[:500])
    assert url == f"{front_door.url}/{game}{path}"

    seats = ["human"] * registry.game(game).engine.min_seats
    status, url, body = try_it_out(operation(page, "post", "/games"), {"seats": seats})
    assert status == "201", (status, body[:500])
    assert url == f"{front_door.url}/{game}/games"
    assert '"token"' in body and '"seed_sha256"' in body
    tab.shot(f"docs-{game}")

    assert ("GET", f"{front_door.url}/{game}{path}") in tab.traffic.sent
    assert f"/{game}/games" in tab.traffic.paths("POST")
    tab.traffic.assert_clean()
    assert tab.errors == []
