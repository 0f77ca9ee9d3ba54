"""A phone-like session with players (issue 23): two guest players, five games of two kinds (three
of Pig created against a bot, two of Ludix found by matchmaking), each player playing every game
from ONE stream of notices (`GET /players/me/events`, long-polled), then the ratings.

    .venv/bin/python docs/walkthroughs/players/phone_session.py [DOOR]    # DOOR: http://127.0.0.1:8000

With `make run` going in another terminal. It prints what a phone would show and exits 1 when
something is off (tests/integration/test_player_session.py runs it against a real stack).
"""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from typing import Any

import requests

DOOR = (sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000").rstrip("/")
TIMEOUT = 30


def call(method: str, path: str, token: str | None = None, **kwargs: Any) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        resp = requests.request(method, f"{DOOR}{path}", headers=headers, timeout=TIMEOUT, **kwargs)
    except requests.ConnectionError as err:  # no stack there: say so in a line, not a traceback
        raise SystemExit(f"{method} {DOOR}{path}: no answer ({type(err).__name__}); is `make run` going?") from None
    if resp.status_code >= 400:
        raise SystemExit(f"{method} {path}: {resp.status_code} {resp.text[:300]}")
    return resp.json()


class Phone:
    """One player's app: its token, its games, and one stream of notices for all of them."""

    def __init__(self, name: str) -> None:
        made = call("POST", "/players", json={"name": name})
        self.name, self.id, self.token = name, made["player"]["id"], made["token"]
        self.after = 0
        self.notices: Counter[str] = Counter()
        self.moves = 0
        self.turns_prompted = 0
        self.open: set[tuple[str, str]] = set()  # (game type, id) not finished yet
        self.error: BaseException | None = None

    def create(self, game: str, seats: list[str], options: dict[str, Any]) -> str:
        made = call("POST", f"/{game}/games", self.token, json={"seats": seats, "options": options})
        self.open.add((game, made["game"]["id"]))
        return str(made["game"]["id"])

    def queue(self, game: str, options: dict[str, Any]) -> str:
        return str(call("POST", f"/{game}/matchmaking", self.token, json={"seats": 2, "options": options})["ticket"])

    def ticket(self, game: str, ticket: str) -> dict[str, Any]:
        got: dict[str, Any] = call("GET", f"/{game}/matchmaking/{ticket}", self.token)
        if got["status"] == "matched":
            self.open.add((game, got["game"]["id"]))
        return got

    def play(self, game: str, gid: str) -> None:
        """Play this seat's turn to its end (the answers' `next` says whether it may go on)."""
        url = f"/{game}/games/{gid}"
        listing = call("GET", f"{url}/actions", self.token)
        while listing and listing["actions"]:
            view = call("GET", url, self.token)["state"]
            legal = listing["actions"]
            holds = [a for a in legal if a["type"] == "hold"]
            # hold at 20 (Pig's turn total; Ludix's with the best numeral of the throw), else roll on
            total = view.get("turn_total", 0)
            best = max((a.get("numeral", {}).get("value", 0) if isinstance(a.get("numeral"), dict) else 0
                        for a in holds), default=0)
            action = holds[0] if holds and total + best >= 20 else next(
                (a for a in legal if a["type"] in ("roll", "call")), legal[0])
            answer = requests.post(
                f"{DOOR}{url}/actions", json=action, timeout=TIMEOUT,
                headers={"Authorization": f"Bearer {self.token}", "If-Match": f'"{listing["version"]}"'})
            if answer.status_code in (409, 412):  # the game moved on (a bot, a timeout): read again
                listing = call("GET", f"{url}/actions", self.token)
                continue
            if answer.status_code >= 400:
                raise SystemExit(f"{self.name}: {action} on {game} {gid}: {answer.status_code} {answer.text[:300]}")
            self.moves += 1
            listing = answer.json().get("next")

    def run(self) -> None:
        """Read the one stream until every game of the player is over, playing when told."""
        try:
            deadline = time.monotonic() + 240
            while self.open and time.monotonic() < deadline:
                page = call("GET", f"/players/me/events?after={self.after}&wait=10", self.token)
                self.after = page["last_seq"]
                for n in page["events"]:
                    self.notices[n["type"]] += 1
                    if n["type"] == "your_turn":
                        self.turns_prompted += 1
                        self.play(n["game"], n["id"])
                    elif n["type"] in ("game_started", "matched"):  # a game may open on your move
                        self.play(n["game"], n["id"])
                    elif n["type"] == "game_finished":
                        self.open.discard((n["game"], n["id"]))
        except BaseException as err:  # reported by the main thread
            self.error = err


def main() -> int:
    ada, bob = Phone("Ada"), Phone("Bob")
    print(f"guest players: {ada.name} ({ada.id}), {bob.name} ({bob.id}); tokens shown once, kept by the app")
    for _ in range(3):
        ada.create("pig", ["human", "bot:hold20"], {})
    print(f"{ada.name} created 3 games of Pig against the hold20 bot")
    for round_ in range(2):  # one ticket a game type at a time: two rounds of matchmaking
        tickets = {ada: ada.queue("ludix", {"target": 50}), bob: bob.queue("ludix", {"target": 50})}
        for _ in range(100):
            states = {p: p.ticket("ludix", t)["status"] for p, t in tickets.items()}
            if all(s == "matched" for s in states.values()):
                break
            time.sleep(0.1)
        else:
            raise SystemExit(f"matchmaking round {round_ + 1}: {states}")
    print(f"matchmaking paired {ada.name} and {bob.name} in 2 games of Ludix")
    print(f"{ada.name}'s games: {sorted(ada.open)}")
    threads = [threading.Thread(target=p.run) for p in (ada, bob)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    ok = True
    for p in (ada, bob):
        if p.error is not None:
            print(f"{p.name}: {p.error!r}")
            ok = False
        print(f"{p.name}: one stream, {sum(p.notices.values())} notices {dict(sorted(p.notices.items()))}; "
              f"{p.turns_prompted} turns told, {p.moves} moves played; games left open: {len(p.open)}")
        ok = ok and not p.open
    mine = call("GET", "/players/me/games", ada.token)
    print(f"{ada.name}'s games now: " + ", ".join(f"{g['game']} {g['status']}" for g in mine["games"]))
    me = call("GET", "/players/me", ada.token)
    profile = call("GET", f"/players/{ada.id}")  # public: no token
    print(f"{ada.name}'s public profile, per game: {profile['games']}")
    for game in ("pig", "ludix"):
        rated = call("GET", f"/{game}/leaderboard")["rated"]
        print(f"{game} leaderboard, rated: " + ", ".join(
            f"{r['name']} (ordinal {r['rating']['ordinal']:.2f}, {r['played']} played)" for r in rated[:4]))
    ok = ok and ada.notices["game_finished"] == 5 and ada.notices["matched"] == 2 and me["id"] == ada.id
    print("session ok" if ok else "session NOT ok")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
