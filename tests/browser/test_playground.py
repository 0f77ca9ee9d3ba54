"""The playground (the front door's page at ``/``) in headless Chromium, end to end: for each game a
whole game against bots played by clicking the page's listed actions (the first one each time: the
page posts it as listed, with the listing's version as If-Match), the bots moving through the real
Celery worker; and a table of bots only watched to its end through the long-poll. The page is the
only client: what it shows is checked against the API afterwards, and all its traffic went to the
front door under the game's prefix.

Screenshots (``var/artifacts/screenshots/``): ``playground-<game>-playing.png`` after the first
move, ``playground-<game>-finished.png`` at the end, ``playground-watch-ludix.png``.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import Page

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

# short games (options of each game's POST /games) against bots that make a game of it
TABLES = {
    "ludix": ("steady", {"target": 50}),
    "ludic": ("expert", {"round_limit": 1}),
    "ludor": ("greedy", {}),
    "speculation": ("basic", {}),
}
GAME_SECONDS = 120  # a whole game, every wait included (a few seconds each, on a quiet machine)

# what the page offers now, at the version it shows: "finished", "action", "template" or false
OFFERED = """() => {
  const summary = document.getElementById("summary");
  if (summary.dataset.status === "finished") return "finished";
  const at = `[data-version="${summary.dataset.version}"]`;
  if (document.querySelector(`#actions button.action:not([disabled])${at}`)) return "action";
  if (document.querySelector(`#templates button.template:not([disabled])${at}`)) return "template";
  return false;
}"""
# the page has answered the move made at version `before` (it shows a newer version, or the
# problem), and the listing shown is the one of the version shown (or the game is over)
SETTLED = """(before) => {
  const summary = document.getElementById("summary");
  const moved = summary.dataset.version !== before || !document.getElementById("problem").hidden;
  return moved && (summary.dataset.status === "finished"
                   || document.getElementById("moves").dataset.version === summary.dataset.version);
}"""
RACE = re.compile(r"^(409|412) POST .*/actions$")  # a click on a listing a bot's move made stale


def open_table(page: Page, url: str, game: str, level: str, options: dict[str, Any], watch: bool) -> str:
    page.goto(f"{url}/")
    page.locator("body[data-ready=true]").wait_for()
    page.select_option("#game", game)
    page.locator(f"body[data-game={game}]").wait_for()
    page.select_option("#level", level)
    page.fill("#options", json.dumps(options))
    page.click("#watch" if watch else "#play")
    page.locator("#table[data-game-id]").wait_for()
    page.locator("#summary[data-version]").wait_for()
    return str(page.get_attribute("#table", "data-game-id"))


def ludic_rule(page: Page, url: str) -> str:
    """A rule the initial sets allow (the obeying set obeys it, the other breaks it): its top (or
    bottom) card exactly, checked by the game's public rule checker."""
    state = json.loads(page.inner_text("#view"))
    obey, broken = state["columns"]["obey"][0], state["columns"]["break"][0]

    def card(code: str) -> str:
        rank = {"J": "jack", "Q": "queen", "K": "king", "T": "10"}.get(code[:-1], code[:-1])
        return f"{'red' if code[-1] in 'HD' else 'black'} {rank}"

    sets = {"obey_set": {"top": obey["top"], "bottom": obey["bottom"]},
            "break_set": {"top": broken["top"], "bottom": broken["bottom"]}}
    for where in ("top", "bottom"):
        rule = f"the {where} card is a {card(obey[where])}"
        r = requests.post(f"{url}/ludic/rules/check", json={"rule": rule, **sets}, timeout=10)
        assert r.status_code == 200, r.text
        if r.json()["legal"]:
            return rule
    raise AssertionError(f"no rule for the sets {sets}")


def send(page: Page, action: dict[str, Any]) -> None:
    """Post ``action`` with the page's own editor ("Any action (JSON)")."""
    if not page.locator("#custom-box").evaluate("box => box.open"):
        page.click("#custom-box summary")
    page.fill("#custom", json.dumps(action))
    page.click("#send")


def play(page: Page, url: str, game: str, shot: Any) -> int:
    """Click the first listed action until the game ends; the number of moves posted."""
    deadline = time.monotonic() + GAME_SECONDS
    moves = 0
    guessed = False
    while True:
        left_ms = (deadline - time.monotonic()) * 1000
        assert left_ms > 0, f"{game}: not over after {GAME_SECONDS} s: " + page.inner_text("#summary")
        offered = page.wait_for_function(OFFERED, timeout=left_ms).json_value()
        if offered == "finished":
            return moves
        before = page.get_attribute("#summary", "data-version")
        template = page.locator(f"#templates button.template:not([disabled])[data-version='{before}']")
        if game == "ludic" and not guessed and offered == "action" and template.count():
            template.first.click()  # a Seeker may pass or guess: guess once, with the template
            action = json.loads(page.input_value("#custom"))
            assert action["type"] == "guess", action
            send(page, {**action, "rule": "the top card is red"})  # a wrong guess costs nothing
            guessed = True
        elif offered == "action":
            page.locator("#actions button.action:not([disabled])").first.click()
        else:  # Ludic's Vexer writes the rule: the template, filled in and sent
            assert game == "ludic", offered
            template.first.click()
            action = json.loads(page.input_value("#custom"))
            assert action["type"] == "write_rule", action
            send(page, {**action, "rule": ludic_rule(page, url)})
        moves += 1
        if moves == 1:  # once the page shows what the move did, and what may be played next
            page.wait_for_function(SETTLED, arg=before, timeout=30_000)
            shot(f"playground-{game}-playing")


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
            page.locator("#events li").evaluate_all("els => els.map(e => [e.value, e.dataset.type])")]


@pytest.mark.parametrize("game", sorted(TABLES))
def test_a_whole_game_against_bots_in_the_page(game: str, tab: Any, front_door: Any, worker: Path) -> None:
    level, options = TABLES[game]
    page = tab.page
    gid = open_table(page, front_door.url, game, level, options, watch=False)
    refused = 0
    if game == "ludix":  # an illegal move first: the page shows the problem and what is legal
        page.wait_for_function(OFFERED, timeout=30_000)
        send(page, {"type": "hold"})
        page.locator("#problem[data-status='409']").wait_for()
        assert "legal now: alea_jacta_est" in page.inner_text("#problem")
        refused = 1
    moves = play(page, front_door.url, game, tab.shot)
    page.locator("#table[data-followed=true]").wait_for()
    page.locator("#result").wait_for()
    tab.shot(f"playground-{game}-finished")

    api = f"{front_door.url}/{game}/games/{gid}"
    final = requests.get(api, timeout=10).json()
    assert final["status"] == "finished"
    winners = ", ".join(f"seat {w}" for w in final["result"]["winners"])
    assert page.inner_text("#result").startswith(f"Finished: won by {winners} ·")
    assert [s["kind"] for s in final["seats"]] == ["human"] + ["bot"] * (len(final["seats"]) - 1)
    assert page.get_attribute("#summary", "data-version") == str(final["version"])
    assert page.locator("#actions button").count() == 0
    replay = requests.get(f"{api}/replay", timeout=10).json()
    mine = [a for a in replay["actions"] if a["seat"] == 0]
    posted = tab.traffic.paths("POST")
    assert posted[0] == f"/{game}/games" and set(posted[1:]) == {f"/{game}/games/{gid}/actions"}
    races = [e for e in tab.traffic.http_errors if RACE.match(e)]
    # every move the page posted was played, but those a bot's move had just made stale (a
    # click may also land on a listing the page is replacing: it posts nothing)
    moves_posted = len(posted) - 1
    assert 1 <= moves_posted <= moves + refused and len(mine) == moves_posted - len(races), (moves, races)
    table_reads = [path for path in tab.traffic.paths("GET") if "/games" in path]
    assert table_reads and all(path.startswith(f"/{game}/games/{gid}") for path in table_reads), table_reads
    assert f"/{game}/games/{gid}/events" in tab.traffic.paths("GET")  # the long-poll drove the page
    tab.traffic.assert_clean(allowed_errors=RACE.match)
    assert [e for e in tab.errors if "Failed to load resource" not in e] == []


def test_a_bots_only_table_watched_to_its_end(tab: Any, front_door: Any, worker: Path) -> None:
    page = tab.page
    gid = open_table(page, front_door.url, "ludix", "random", {"target": 50}, watch=True)
    page.locator("#summary[data-status=finished]").wait_for(timeout=GAME_SECONDS * 1000)
    page.locator("#table[data-followed=true]").wait_for()
    page.locator("#result").wait_for()
    tab.shot("playground-watch-ludix")

    api = f"{front_door.url}/ludix/games/{gid}"
    log = all_events(api)
    assert log and events_shown(page) == log  # every event, in order, none twice
    final = requests.get(api, timeout=10).json()
    assert final["status"] == "finished" and {s["kind"] for s in final["seats"]} == {"bot"}
    assert "you watch" in page.inner_text("#summary")
    assert page.locator("#moves").is_hidden()
    assert tab.traffic.paths("POST") == ["/ludix/games"]  # a spectator: no token, no move
    polls = [url for method, url in tab.traffic.sent if method == "GET" and f"/ludix/games/{gid}/events" in url]
    assert polls and all("wait=" in url for url in polls)
    tab.traffic.assert_clean()
    assert tab.errors == []
