"""What the playground's browser tests share with each game's page driver: the helpers that read
and click the page (``visible``, ``enabled``, ``settle``, ``cards_in``, ``open_table``, the axe-core
scan) and :func:`driver`, which loads a game's driver from its own folder.

A game's page driver is ``tests/<game>/page.py`` (``tests/pig/page.py`` is the one to copy): how a
player clicks that game's table (its own ``playground.js``). It defines

- ``move(page, memo, url, shot)`` (required): one move, by clicking, when the page offers the
  seat a move (``memo``: a dict kept for the whole game; ``url``: the front door's; ``shot(name)``
  takes a screenshot);
- ``OPTIONS`` (optional): the game's options beyond its quick options (``TestFacts``) for a page
  test's table;
- ``open_game(page, url)`` (optional): how the whole-game test opens its table, its id and the
  moves clicked meanwhile (default: :func:`open_table`, none);
- ``POSTS`` (optional): the paths under ``/<game>/`` the page may post to besides its moves;
- ``check_end(page, final, mine)`` (optional): what the game's result screen and replay must show
  (``final``: the game from the API; ``mine``: the replay's actions of the page's seat, 0).

The test of a whole game loads it for each installed game (``registry.names()``): a game without
one fails that test naming the file to write.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from ludoteca.service_layer import registry
from playwright.sync_api import Page

TESTS = Path(__file__).resolve().parents[1]
AXE = TESTS.parent / "tools" / "browser" / "node_modules" / "axe-core" / "axe.min.js"

Shot = Callable[[str], Any]
"""A screenshot of the page under a name (``Tab.shot``; ``lambda name: None`` for none)."""


def no_shot(name: str) -> None:
    """A :data:`Shot` that takes none."""


@dataclass(frozen=True)
class Driver:
    """A game's page driver (``tests/<game>/page.py``; the module's docstring says what it defines)."""

    game: str
    move: Callable[[Page, dict[str, Any], str, Shot], None]
    options: Mapping[str, Any] = field(default_factory=dict)
    open_game: Callable[[Page, str], tuple[str, int]] | None = None
    posts: Collection[str] = ()
    check_end: Callable[[Page, dict[str, Any], list[dict[str, Any]]], None] | None = None


@cache
def driver(game: str) -> Driver:
    """``tests/<game>/page.py``, loaded by path (a test folder is no package)."""
    path = TESTS / game / "page.py"
    where = path.relative_to(TESTS.parent)
    assert path.is_file(), (f"no {where}: how a player clicks {game}'s page, a move(page, memo, url, shot) "
                            "(copy tests/pig/page.py; tests/browser/pagekit.py says what it may define)")
    spec = importlib.util.spec_from_file_location(f"page_of_{game}", path)
    assert spec is not None and spec.loader is not None, where
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    move = getattr(module, "move", None)
    assert callable(move), f"{where} defines no move(page, memo, url, shot)"
    return Driver(game, move, dict(getattr(module, "OPTIONS", {})), getattr(module, "open_game", None),
                  frozenset(getattr(module, "POSTS", ())), getattr(module, "check_end", None))


def table_of(game: str) -> tuple[int, str, dict[str, Any]]:
    """A short game (the game's quick options, and its driver's ``OPTIONS``) of the fewest seats
    against the bots that make a game of it (its TestFacts)."""
    d = registry.game(game)
    return d.engine.min_seats, d.playing_level(), {**d.tests.quick_options, **driver(game).options}


def open_table(page: Page, url: str, game: str, watch: bool = False, speed: str = "instant",
               table: tuple[int, str, dict[str, Any]] | None = None, name: str | None = None) -> str:
    """A new table from the form (``name``: the guest player's, typed when none is kept yet)."""
    seats, level, options = table or table_of(game)
    page.goto(f"{url}/")
    page.locator("body[data-ready=true]").wait_for()
    if name is not None:
        page.fill("#player-name", name)
    page.select_option("#game", game)
    page.locator(f"body[data-game={game}]").wait_for()
    page.fill("#seats", str(seats))
    page.select_option("#level", level)
    page.select_option("#speed", speed)
    page.click("#options-box summary")
    page.fill("#options", json.dumps(options))
    page.click("#watch" if watch else "#play")
    page.locator("#table[data-game-id]").wait_for()
    page.locator("#table[data-version]").wait_for()
    return str(page.get_attribute("#table", "data-game-id"))


def visible(page: Page, selector: str) -> bool:
    loc = page.locator(selector)
    return loc.count() > 0 and loc.first.is_visible()


def enabled(page: Page, selector: str) -> bool:
    return visible(page, selector) and page.locator(selector).first.is_enabled()


def cards_in(page: Page, selector: str) -> list[str]:
    """The codes of the cards drawn by ``selector`` (their ``data-card``), in the page's order."""
    return [str(c) for c in page.locator(selector).evaluate_all("els => els.map(e => e.dataset.card)")]


def settle(page: Page, before: str | None) -> None:
    """Wait until the page has taken a click in (a new version shown, or the same one again
    with the move refused)."""
    page.wait_for_function("""(before) => {
      const t = document.getElementById("table");
      const answered = !document.getElementById("problem").hidden || !!document.getElementById("note").textContent;
      return !document.getElementById("board").dataset.busy && (t.dataset.version !== before || answered);
    }""", arg=before, timeout=30_000)


def axe_scan(page: Page) -> list[dict[str, Any]]:
    """axe-core's violations on the page as it is (its script evaluated in the page: the page's
    Content-Security-Policy refuses inline scripts, DevTools' evaluation is not one)."""
    assert AXE.is_file(), f"{AXE} missing: `make install` runs npm ci in tools/browser"
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text())
    violations: list[dict[str, Any]] = page.evaluate("""() => axe.run(document, {
        runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]}})
      .then(r => r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                                          targets: v.nodes.slice(0, 5).map(n => n.target.join(" "))})))""")
    return violations


def serious(violations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [v for v in violations if v["impact"] in ("serious", "critical")]
