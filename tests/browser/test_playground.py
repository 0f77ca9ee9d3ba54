"""The playground (the front door's page at ``/``) in headless Chromium, end to end, as a person
plays it: for each installed game a whole game against bots played by clicking the table (cards,
dice, values, the Vexer's editor; never the JSON box), the bots moving through the real Celery
worker; a table of bots only watched to its end at the "fast" pace; a reload that keeps the seat,
a double click that plays once, a stale click (412) absorbed; the page at a phone's width; and an
accessibility scan (axe-core, ``tools/browser``) with no serious or critical violation.

How a player clicks a game's table is the game's own page driver, ``tests/<game>/page.py``
(loaded by :func:`browser.pagekit.driver`, which says what it defines); the tests here name a
game only where they are about that game's page.

What the page shows is checked against the API afterwards, and all its traffic went to the front
door. Screenshots (``var/artifacts/screenshots/``): ``playground-<game>-playing.png`` mid-game,
``playground-<game>-finished.png`` at the result screen, ``playground-ludic-vexer.png`` (the rule
editor with its verdict, when the page's seat is the Vexer), ``playground-watch-ludix.png``,
``playground-phone-<game>.png`` (390 px wide).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import requests
from browser.pagekit import Shot, axe_scan, driver, no_shot, open_table, serious, settle
from ludoteca.service_layer import registry
from playwright.sync_api import Page

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

GAMES = registry.names()

GAME_SECONDS = 150  # a whole game, every wait included (most take 10 to 40 s on a quiet machine)

# what the page offers: "finished", "turn" (your move, nothing in flight, the listing of the
# version shown) or false
OFFERED = """() => {
  const t = document.getElementById("table");
  if (t.dataset.status === "finished") return "finished";
  const board = document.getElementById("board");
  const current = board.dataset.version === t.dataset.version;
  if (t.dataset.yourTurn === "true" && !board.dataset.busy && current) return "turn";
  return false;
}"""
DOUBLE_CLICK_S = 0.4  # a double click's clicks come sooner than this (the page is inert 0.5 s after a click)
RACE = re.compile(r"^(409|412) POST .*/actions$")  # a click on a listing a bot's move made stale


def one_move(page: Page, game: str, memo: dict[str, Any], url: str, shot: Shot) -> None:
    """The move of the game's page driver (``tests/<game>/page.py``: how a player clicks its table)."""
    driver(game).move(page, memo, url, shot)


def play(page: Page, url: str, game: str, shot: Shot, hook: Callable[[int], None] | None = None) -> int:
    """Click moves until the game ends; the number of moves clicked."""
    deadline = time.monotonic() + GAME_SECONDS
    memo: dict[str, Any] = {}
    moves = 0
    while True:
        left_ms = (deadline - time.monotonic()) * 1000
        assert left_ms > 0, f"{game}: not over after {GAME_SECONDS} s: " + page.inner_text("#status")
        offered = page.wait_for_function(OFFERED, timeout=left_ms).json_value()
        if offered == "finished":
            return moves
        if moves == 3:  # a few moves in, your move offered
            shot(f"playground-{game}-playing")
        before = page.get_attribute("#table", "data-version")
        one_move(page, game, memo, url, shot)
        moves += 1
        settle(page, before)
        if hook:
            hook(moves)


def all_events(api: str) -> list[tuple[int, str]]:
    """A spectator's events of the game, page by page."""
    out: list[tuple[int, str]] = []
    after = 0
    while True:
        page = requests.get(f"{api}/events", params={"after": after}, timeout=10).json()
        if not page["events"]:
            return out
        out += [(e["seq"], e["type"]) for e in page["events"]]
        after = page["last_seq"]


def events_shown(page: Page) -> list[tuple[int, str]]:
    return [(int(seq), kind) for seq, kind in
            page.locator("#log li").evaluate_all("els => els.map(e => [e.dataset.seq, e.dataset.type])")]


def check_the_end(page: Page, tab: Any, url: str, game: str, gid: str) -> dict[str, Any]:
    page.locator("#table[data-followed=true]").wait_for()
    page.locator("#result").wait_for()
    api = f"{url}/{game}/games/{gid}"
    final: dict[str, Any] = requests.get(api, timeout=10).json()
    assert final["status"] == "finished"
    winners = final["result"]["winners"]
    headline = page.inner_text("#result .headline")
    if 0 in winners:
        assert headline.startswith("You"), headline
    else:
        assert all(f"Seat {w}" in headline for w in winners), (headline, winners)
    assert page.locator("#result tbody tr").count() == len(final["seats"])
    assert page.get_attribute("#table", "data-version") == str(final["version"])
    assert page.locator("#board button.move:not([disabled])").count() == 0
    return final




@pytest.mark.parametrize("game", GAMES)
def test_a_whole_game_clicked_in_the_page(game: str, tab: Any, front_door: Any, worker: Path) -> None:
    page = tab.page
    page.set_viewport_size({"width": 1100, "height": 900})
    pages = driver(game)
    url = front_door.url
    gid, cuts = pages.open_game(page, url) if pages.open_game else (open_table(page, url, game), 0)
    violations: list[dict[str, Any]] = []

    def mid_game(moves: int) -> None:
        if moves == 3:
            violations.extend(axe_scan(page))

    moves = cuts + play(page, url, game, tab.shot, mid_game)
    final = check_the_end(page, tab, url, game, gid)
    tab.shot(f"playground-{game}-finished")
    violations += axe_scan(page)  # the result screen
    assert serious(violations) == [], violations

    assert [s["kind"] for s in final["seats"]] == ["human"] + ["bot"] * (len(final["seats"]) - 1)
    api = f"{url}/{game}/games/{gid}"
    replay = requests.get(f"{api}/replay", timeout=10).json()
    mine = [a for a in replay["actions"] if a["seat"] == 0]
    if pages.check_end:
        pages.check_end(page, final, mine)
    posted = tab.traffic.paths("POST")
    posted = posted[len(posted) - 1 - posted[::-1].index(f"/{game}/games"):]  # this table's (open_game may try a few)
    assert set(posted[1:]) <= {f"/{game}/games/{gid}/actions", *(f"/{game}/{path}" for path in pages.posts)}
    moves_posted = posted.count(f"/{game}/games/{gid}/actions")
    races = [e for e in tab.traffic.http_errors if RACE.match(e) and f"/games/{gid}/" in e]
    # the tables open_game left (Ludic's, after their cut): their requests in flight were cut (aborted)
    tab.traffic.failed = [f for f in tab.traffic.failed if not (f.endswith("ERR_ABORTED") and f"/games/{gid}" not in f)]
    # every move clicked was posted once and played, but those a bot's move had just made stale
    assert 1 <= moves_posted <= moves and len(mine) == moves_posted - len(races), (moves, posted, races, mine)
    assert f"/{game}/games/{gid}/events" in tab.traffic.paths("GET")  # the long-poll drove the page
    log = page.locator("#log li")
    assert log.count() > 3 and not any(t.startswith(("{", "[")) for t in log.all_inner_texts())
    tab.traffic.assert_clean(allowed_errors=RACE.match)
    assert [e for e in tab.errors if "Failed to load resource" not in e] == []


def test_ludix_reload_keeps_the_seat_a_double_click_plays_once_and_a_stale_click_is_absorbed(
        tab: Any, front_door: Any, worker: Path) -> None:
    page = tab.page
    gid = open_table(page, front_door.url, "ludix", speed="slow", table=(2, "steady", {"target": 150}))
    # the developers' fold: an action typed as JSON, refused (409) with its problem shown
    page.locator("#ludix-call").wait_for()
    page.click("#advanced summary")
    page.fill("#custom", json.dumps({"type": "hold"}))
    page.click("#send")
    page.locator("#problem[data-status='409']").wait_for()
    assert "1 legal move now" in page.inner_text("#problem")
    page.click("#advanced summary")

    # clicks on "Alea jacta est!" as fast as they come for DOUBLE_CLICK_S (a double click, a
    # triple one): the call is answered and "Roll the dice" drawn in its place meanwhile (0.3 s
    # here without the page's guard), yet only the call is posted
    assert page.wait_for_function(OFFERED, timeout=30_000).json_value() == "turn"
    posts = len(tab.traffic.paths("POST"))
    box = page.locator("#ludix-call").bounding_box()
    assert box
    clicked = time.monotonic()
    clicks = 0
    while time.monotonic() - clicked < DOUBLE_CLICK_S:
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        clicks += 1
        time.sleep(0.03)
    assert clicks >= 2
    page.wait_for_timeout(1000)  # time for a second move to be posted and answered, were there one
    page.wait_for_function(OFFERED, timeout=30_000)
    assert len(tab.traffic.paths("POST")) == posts + 1
    events = requests.get(f"{front_door.url}/ludix/games/{gid}/events", params={"after": 0}, timeout=10).json()
    assert "AleaJactaEstCalled" in [e["type"] for e in events["events"]]
    assert "DiceThrown" not in [e["type"] for e in events["events"]]  # no roll played by the second click

    # a reload: the same table, the same seat (the token kept in localStorage under the game's id)
    page.reload()
    page.locator("body[data-ready=true]").wait_for()
    reloaded = len(tab.traffic.sent)
    page.locator(f"#table[data-game-id='{gid}'][data-role=player]").wait_for()
    page.locator("#ludix-roll:not([disabled])").wait_for()
    assert page.get_attribute("#table", "data-seat") == "0"
    token = kept_player(page)["token"]  # the guest player's token is the seat's bearer
    assert token

    # a stale click: the game moves under the page (the same seat, through the API) while the
    # page, at the slow pace, still shows the old listing; its click is a 412 it absorbs
    assert page.wait_for_function(OFFERED, timeout=60_000).json_value() == "turn"
    version = page.get_attribute("#table", "data-version")
    r = requests.post(f"{front_door.url}/ludix/games/{gid}/actions", json={"type": "roll"},
                      headers={"Authorization": f"Bearer {token}", "If-Match": f'"{version}"'}, timeout=10)
    assert r.status_code == 200, r.text
    page.click("#ludix-roll")
    page.locator("#note:has-text('moved first')").wait_for()
    assert page.locator("#problem").is_hidden()  # the 409 above was cleared by the moves since
    assert [e for e in tab.traffic.http_errors if e.startswith("412 POST")]
    page.select_option("#speed", "instant")
    play(page, front_door.url, "ludix", no_shot)
    check_the_end(page, tab, front_door.url, "ludix", gid)
    # the reload cut the requests of the page it replaced (its long-poll, a read)
    cut = {f"{method} {url}" for method, url in tab.traffic.sent[:reloaded]}
    tab.traffic.failed = [f for f in tab.traffic.failed
                          if not (f.endswith("ERR_ABORTED") and f.rsplit(": ", 1)[0] in cut)]
    tab.traffic.assert_clean(allowed_errors=RACE.match)  # the 409 and the 412
    assert [e for e in tab.errors if "Failed to load resource" not in e] == []


def kept_player(page: Page) -> dict[str, Any]:
    """The guest player the page keeps in localStorage ({} when none)."""
    found: dict[str, Any] = page.evaluate(
        "() => JSON.parse(localStorage.getItem('ludoteca.playground') || '{}').player || {}")
    return found


def my_game(page: Page, gid: str) -> str:
    return f"#my-games-list li[data-id='{gid}']"


def test_a_guest_player_keeps_its_seat_lists_its_games_and_plays_one_request_a_move(
        tab: Any, front_door: Any, worker: Path) -> None:
    """A fresh browser: the first table makes a guest player under the name typed (POST /players,
    once) whose token is the table's bearer; "My games" lists the table, "your turn" while it is;
    after a move whose answer carries ``next`` the page reads neither the view nor the listing
    before its next move (one request a move), and lists again after another seat moved; reloaded
    mid-game, the page is the same seat and moves; the game plays to its end; My games' link opens
    it again from another table; forgetting the player leaves the table watched."""
    page = tab.page
    url = front_door.url
    log: list[tuple[str, Any]] = []  # requests sent and answers received, in order
    given: dict[int, bool] = {}  # a move's answer (its index in the log): whether it carried `next`

    def answered(r: Any) -> None:
        log.append(("answered", r))
        at = len(log) - 1  # (other events are logged while the body is read)
        if r.request.method == "POST" and r.url.endswith("/actions") and r.status == 200:
            given[at] = r.json()["next"] is not None  # read now: a reload drops the bodies

    page.on("request", lambda r: log.append(("sent", r)))
    page.on("response", answered)
    page.goto(f"{url}/")
    page.evaluate("() => localStorage.removeItem('ludoteca.playground')")
    page.reload()
    page.locator("body[data-ready=true]").wait_for()
    assert page.locator("#player-name").is_visible() and not page.locator("#my-games").is_visible()
    gid = open_table(page, url, "ludix", table=(2, "steady", {"target": 300}), name="Ada Lovelace")
    api = f"/ludix/games/{gid}"
    me = kept_player(page)
    assert me["name"] == "Ada Lovelace" and me["token"]
    assert page.inner_text("#player-shown") == "Ada Lovelace"
    assert tab.traffic.paths("POST")[-2:] == ["/players/", "/ludix/games"]
    creates = [r for kind, r in log if kind == "sent" and r.method == "POST" and r.url.endswith("/ludix/games")]
    assert creates[-1].headers.get("authorization") == f"Bearer {me['token']}"  # the player's token is the seat's
    seats = requests.get(f"{url}{api}", timeout=10).json()["seats"]
    assert seats[0]["name"] == "Ada Lovelace", seats  # the seat is the player's
    profile = requests.get(f"{url}/players/me", headers={"Authorization": f"Bearer {me['token']}"}, timeout=10)
    assert profile.status_code == 200 and profile.json()["id"] == me["id"]

    # My games: the table, your turn (the page is waiting for your move)
    assert page.wait_for_function(OFFERED, timeout=30_000).json_value() == "turn"
    row = page.locator(my_game(page, gid))
    page.locator(f"{my_game(page, gid)}[data-your-turn=true]").wait_for()
    assert "your turn" in row.inner_text() and "Ludix" in row.inner_text()

    # a reload mid-turn (the call and a throw: the game is far from its 300 points): the same seat,
    # and moves
    page.select_option("#table-speed", "instant")
    for _ in range(2):
        assert page.wait_for_function(OFFERED, timeout=60_000).json_value() == "turn"
        before = page.get_attribute("#table", "data-version")
        driver("ludix").move(page, {}, url, no_shot)
        settle(page, before)
    reload_at = len(log)
    page.reload()
    page.locator("body[data-ready=true]").wait_for()
    page.locator(f"#table[data-game-id='{gid}'][data-role=player][data-seat='0']").wait_for()
    assert "your seat: 0" in page.inner_text("#seat-shown")
    assert page.inner_text("#player-shown") == "Ada Lovelace"
    assert len([p for p in tab.traffic.paths("POST") if p.startswith("/players")]) == 1  # one player, kept
    played = len([r for kind, r in log if kind == "sent" and r.method == "POST" and r.url.endswith(f"{api}/actions")])
    play(page, url, "ludix", no_shot)
    check_the_end(page, tab, url, "ludix", gid)
    after_reload = [r for kind, r in log[reload_at:] if kind == "sent" and r.method == "POST"
                    and r.url.endswith(f"{api}/actions")]
    assert after_reload, "no move after the reload"
    replay = requests.get(f"{url}{api}/replay", timeout=10).json()
    assert len([a for a in replay["actions"] if a["seat"] == 0]) >= played + 1  # moved as seat 0 after it

    # one request a move: between a move answered with `next` and the page's next move, no read of
    # the view nor of the listing; after a move answered with null, the listing is read again
    reads = (f"{api}", f"{api}/actions")

    def is_move(r: Any) -> bool:
        return bool(r.method == "POST" and r.url.endswith(f"{api}/actions"))

    quiet = listed_again = 0
    for i, (kind, r) in enumerate(log):
        if kind != "answered" or not is_move(r.request) or r.status != 200:
            continue
        j = next((k for k in range(i + 1, len(log)) if log[k][0] == "sent" and is_move(log[k][1])), None)
        if j is None or i < reload_at <= j:
            continue  # the game's last move, or a reload in between (a reloaded page reads the table)
        window = [x.url for k, x in log[i + 1:j] if k == "sent" and x.method == "GET" and x.url.endswith(reads)]
        if given[i]:
            assert window == [], (i, window)  # `next` was the listing: nothing read before the next move
            quiet += 1
        else:
            assert window, (i, "a move answered without `next`, and the next move was built on no read")
            listed_again += 1
    # every pair of moves is checked both ways; how many of each the dice decide (a short game may
    # end before a second turn of the page's seat), but the call and the throw before the reload
    # were answered with `next` (the seat acts again)
    assert quiet >= 1, (quiet, listed_again)
    print(f"[one request a move] {quiet} moves answered with next and played on it, {listed_again} read again")

    # My games: over now; another table, then My games' link opens this one again at your seat
    page.locator(f"{my_game(page, gid)}[data-status=finished]").wait_for()
    assert "over" in row.inner_text()
    other = open_table(page, url, "pig", speed="slow")
    page.locator(my_game(page, other)).wait_for()
    page.click(f"{my_game(page, gid)} a")
    page.locator(f"#table[data-game-id='{gid}'][data-role=player][data-seat='0'][data-status=finished]").wait_for()
    page.locator("#result").wait_for()

    # forgetting the player: the table is watched, a name is asked for again
    page.click("#forget")
    page.click("#forget-yes")
    page.locator("#player-name").wait_for()
    page.locator(f"#table[data-game-id='{gid}'][data-role=spectator]").wait_for()
    assert kept_player(page) == {} and not page.locator("#my-games").is_visible()
    # cut by the reloads, and the Pig table's requests in flight when it was left
    cut = {f"{r.method} {r.url}" for kind, r in log[:reload_at] if kind == "sent"}
    tab.traffic.failed = [f for f in tab.traffic.failed if not (f.endswith("ERR_ABORTED") and (
        f.rsplit(": ", 1)[0] in cut or f"/pig/games/{other}" in f))]
    tab.traffic.assert_clean(allowed_errors=RACE.match)
    assert [e for e in tab.errors if "Failed to load resource" not in e] == []


def test_a_seat_left_through_the_api_is_watched_and_my_games_says_so(tab: Any, front_door: Any,
                                                                     worker: Path) -> None:
    """The player leaves a table through the API (``POST .../leave`` with the player's token: a bot
    takes the seat); the page, reloaded, watches that table and My games says "you left"."""
    page = tab.page
    gid = open_table(page, front_door.url, "pig", speed="slow", table=(2, "hold20", {"target": 100}))
    token = kept_player(page)["token"]
    assert token
    # the page is closed while the seat is left (a live page would read the table's listing as the
    # leave lands, and get the 401 of a seat no longer its own), then opened again at its address
    address = page.url
    page.goto("about:blank")
    r = requests.post(f"{front_door.url}/pig/games/{gid}/leave", json={}, headers={"Authorization": f"Bearer {token}"},
                      timeout=10)
    assert r.status_code == 200, r.text
    page.goto(address)
    page.locator("body[data-ready=true]").wait_for()
    cut = len(tab.traffic.failed)  # the requests the reload cut (the long-poll, a read) failed by now
    page.locator(f"#table[data-game-id='{gid}'][data-role=spectator]").wait_for()
    page.locator(f"{my_game(page, gid)}:has-text('you left')").wait_for()
    assert page.locator("#board button.move:not([disabled])").count() == 0
    tab.traffic.failed = [f for i, f in enumerate(tab.traffic.failed) if not (i < cut and f.endswith("ERR_ABORTED"))]
    tab.traffic.assert_clean()
    assert [e for e in tab.errors if "Failed to load resource" not in e] == []


def test_a_bots_only_table_watched_at_a_pace(tab: Any, front_door: Any, worker: Path) -> None:
    page = tab.page
    # target 200 (about 40-60 events): the page paces the events newer than the table it shows, so
    # the game must still be going when the page first reads it; to 50 (about 20 events, a few bot
    # turns) the worker could finish the game first, and every event then came at once (CI saw it
    # twice: the page right, the test's premise wrong)
    gid = open_table(page, front_door.url, "ludix", watch=True, speed="fast", table=(2, "random", {"target": 200}))
    # events shown one by one, not at once (the first ones wait for the worker's first bot turns:
    # a loaded machine took over the default 20 s)
    page.locator("#table[data-pacing=true]").wait_for(timeout=GAME_SECONDS * 1000)
    page.locator("#table[data-status=finished]").wait_for(timeout=GAME_SECONDS * 1000)
    page.locator("#table[data-followed=true]").wait_for(timeout=GAME_SECONDS * 1000)
    page.locator("#result").wait_for()
    tab.shot("playground-watch-ludix")

    api = f"{front_door.url}/ludix/games/{gid}"
    log = all_events(api)
    assert log and events_shown(page) == log  # every event, in order, none twice
    final = requests.get(api, timeout=10).json()
    assert final["status"] == "finished" and {s["kind"] for s in final["seats"]} == {"bot"}
    assert page.get_attribute("#table", "data-role") == "spectator"
    assert page.locator("#board button.move").count() == 0
    assert tab.traffic.paths("POST") == ["/ludix/games"]  # a spectator: no token, no move
    polls = [url for method, url in tab.traffic.sent if method == "GET" and f"/ludix/games/{gid}/events" in url]
    assert polls and all("wait=" in url for url in polls)
    tab.traffic.assert_clean()
    assert tab.errors == []


@pytest.mark.parametrize("game", GAMES)
def test_a_phone_width_table_and_no_serious_accessibility_violation(game: str, tab: Any, front_door: Any,
                                                                      worker: Path) -> None:
    page = tab.page
    page.set_viewport_size({"width": 390, "height": 844})
    open_table(page, front_door.url, game)
    memo: dict[str, Any] = {}
    before = serious(axe_scan(page))
    assert before == [], before
    for _ in range(3):  # a few moves in
        if page.wait_for_function(OFFERED, timeout=60_000).json_value() == "finished":
            break
        version = page.get_attribute("#table", "data-version")
        one_move(page, game, memo, front_door.url, no_shot)
        settle(page, version)
    page.wait_for_function(OFFERED, timeout=60_000)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 392  # nothing wider than the phone
    violations = axe_scan(page)
    tab.shot(f"playground-phone-{game}")
    assert serious(violations) == [], violations
    assert [e for e in tab.errors if "Failed to load resource" not in e] == []
