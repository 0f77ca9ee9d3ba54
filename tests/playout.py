"""Driving any game through its API: pick a seat that must act, then one of its listed actions.

``choose`` is the move picker of the all-games API test; :class:`HttpTable` plays one game over
real HTTP (a service under gunicorn) and keeps what the server acknowledged, for the fault tests.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

import requests
from ludoteca import registry

RANDOM_MOVES = 150
"""Random listed actions first (wide coverage), then a real bot's choices so the game ends
(random play at Speculation's joker alone averages ~700 guesses a player)."""
DRIVERS = {"ludix": "steady", "ludic": "expert", "speculation": "basic", "ludor": "greedy"}
PROBLEM = "application/problem+json"


def choose(game: str, view: dict[str, Any], listed: dict[str, Any], rnd: random.Random, move: int) -> Any:
    """A listed action at random for the first ``RANDOM_MOVES`` moves, then a bot's choice (a
    bot fills in templates, e.g. Ludic's rules to write or guess, which nothing lists)."""
    if move < RANDOM_MOVES and listed["actions"]:
        return rnd.choice(listed["actions"])
    if {"type": "vote", "end": True} in listed["actions"]:
        return {"type": "vote", "end": True}  # Ludor: every seat is "human" here; end after the round
    bots = registry.game(game).bots
    bot = bots.get(DRIVERS.get(game, "")) or next(iter(bots.values()))
    action = bot(view, listed["actions"] + listed["templates"], rnd)
    if not listed["templates"]:
        assert action in listed["actions"], "a bot chose an action that is not listed"
    return action


@dataclass
class Ack:
    """A move the server acknowledged (200): the game's version after it, and what it was."""

    version: int
    seat: int
    action: dict[str, Any]


@dataclass
class HttpTable:
    """One all-human game over HTTP, every seat's token in hand."""

    base: str
    game: str
    gid: str
    tokens: list[str]
    rnd: random.Random
    timeout: float = 15.0
    acks: list[Ack] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    moves: int = 0
    session: requests.Session = field(default_factory=requests.Session)

    @classmethod
    def open(cls, base: str, game: str, seed: str, timeout: float = 15.0) -> HttpTable:
        n = registry.game(game).engine.min_seats
        s = requests.Session()
        r = s.post(f"{base}/games", json={"seats": ["human"] * n}, timeout=timeout)
        assert r.status_code == 201, r.text
        gid, tokens = r.json()["game"]["id"], [r.json()["token"]]
        for _ in range(n - 1):
            j = s.post(f"{base}/games/{gid}/players", json={}, timeout=timeout)
            assert j.status_code == 201, j.text
            tokens.append(j.json()["token"])
        return cls(base, game, gid, tokens, random.Random(seed), timeout, session=s)

    def _get(self, path: str, token: str | None = None) -> requests.Response:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return self.session.get(f"{self.base}/games/{self.gid}{path}", headers=headers, timeout=self.timeout)

    def _count(self, r: requests.Response) -> requests.Response:
        self.statuses[r.status_code] = self.statuses.get(r.status_code, 0) + 1
        if r.status_code >= 400:
            assert r.headers.get("Content-Type") == PROBLEM, (r.status_code, r.text[:300])
        if r.status_code == 503:
            assert r.headers.get("Retry-After"), "a 503 says when to retry"
        return r

    def step(self) -> str:
        """One move: ``played``, ``finished``, ``unavailable`` (a 503 on the way; the caller
        waits and tries again) or ``gone`` (404: the store lost the game). Anything else fails
        the test."""
        v = self._count(self._get(""))
        if v.status_code == 503:
            return "unavailable"
        if v.status_code == 404:
            return "gone"
        assert v.status_code == 200, v.text
        view = v.json()
        if view["status"] == "finished":
            return "finished"
        seat = self.rnd.choice(view["to_act"])
        token = self.tokens[seat]
        listed_r = self._count(self._get("/actions", token))
        mine_r = self._count(self._get("", token))
        if 503 in (listed_r.status_code, mine_r.status_code):
            return "unavailable"
        listed, mine = listed_r.json(), mine_r.json()
        if listed["version"] != view["version"] or mine["version"] != view["version"]:
            return "played"  # a move landed in between (a retried one whose answer was lost)
        action = choose(self.game, mine["state"], listed, self.rnd, self.moves)
        r = self._count(self.session.post(f"{self.base}/games/{self.gid}/actions", json=action,
                                          headers={"Authorization": f"Bearer {token}"}, timeout=self.timeout))
        if r.status_code == 503:
            return "unavailable"
        assert r.status_code == 200, (action, r.status_code, r.text[:500])
        self.acks.append(Ack(r.json()["game"]["version"], seat, r.json()["action"]))
        self.moves += 1
        return "played"

    def play(self, until: float, pause: float = 0.0) -> None:
        """Moves until the monotonic deadline ``until`` or the end of the game (on a 503, wait
        a little and go on)."""
        while time.monotonic() < until:
            outcome = self.step()
            if outcome in ("finished", "gone"):
                return
            time.sleep(0.2 if outcome == "unavailable" else pause)
