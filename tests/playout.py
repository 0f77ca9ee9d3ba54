"""Driving any game through its API: pick a seat that must act, then one of its listed actions.

``choose`` is the move picker of the all-games API test; :class:`HttpTable` plays one game over
real HTTP (a service under gunicorn) and keeps what the server acknowledged, for the fault tests.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import requests
from ludoteca.service_layer import registry

RANDOM_MOVES = 150
"""Random listed actions first (wide coverage), then a real bot's choices so the game ends
(random play at Speculation's joker alone averages ~700 guesses a player)."""
PROBLEM = "application/problem+json"


def choose(game: str, view: dict[str, Any], listed: dict[str, Any], rnd: random.Random, move: int) -> Any:
    """A listed action at random for the first ``RANDOM_MOVES`` moves, then a bot's choice (a
    bot fills in templates, e.g. Ludic's rules to write or guess, which nothing lists)."""
    if move < RANDOM_MOVES and listed["actions"]:
        return rnd.choice(listed["actions"])
    if {"type": "vote", "end": True} in listed["actions"]:
        return {"type": "vote", "end": True}  # Ludor: every seat is "human" here; end after the round
    definition = registry.game(game)
    bot = definition.bots[definition.playing_level()]
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


Move = tuple[int, int, str, Any]
"""What :func:`next_move` returns: (version, seat, token, action)."""


def next_move(table: HttpTable) -> Move | None:
    """(version, seat, token, action) of a move the seat to act may play now; None at the end."""
    view = table.session.get(f"{table.base}/games/{table.gid}", timeout=15).json()
    if view["status"] == "finished":
        return None
    seat = view["to_act"][0]
    token = table.tokens[seat]
    auth = {"Authorization": f"Bearer {token}"}
    listed = table.session.get(f"{table.base}/games/{table.gid}/actions", headers=auth, timeout=15).json()
    mine = table.session.get(f"{table.base}/games/{table.gid}", headers=auth, timeout=15).json()
    assert listed["version"] == mine["version"] == view["version"]
    action = choose(table.game, mine["state"], listed, table.rnd, table.moves)
    table.moves += 1
    return view["version"], seat, token, action


def burst(url: str, n: int, headers: dict[str, str], body: Any) -> list[requests.Response]:
    """``n`` clients (a keep-alive session each, connected beforehand) post at the same moment."""
    sessions = [requests.Session() for _ in range(n)]
    for s in sessions:  # open the connections first, so the barrier releases only the posts
        s.get(url.rsplit("/games/", 1)[0] + "/healthz", timeout=15)
    barrier = threading.Barrier(n)
    out: list[requests.Response | None] = [None] * n

    def post(i: int) -> None:
        barrier.wait()
        out[i] = sessions[i].post(url, json=body, headers=headers, timeout=30)

    threads = [threading.Thread(target=post, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert all(r is not None for r in out), "a racing client never got an answer"
    return [r for r in out if r is not None]



def if_match_round(table: HttpTable, move: Move, clients: int) -> Counter[int]:
    """``clients`` post ``move`` with ``If-Match`` of its version at one moment: exactly one
    200, every other answer a 412 (or 409 once the winner's move changed who acts) in
    problem+json, never a 5xx, and the game one version on. Returns the status histogram."""
    version, _seat, token, action = move
    answers = burst(f"{table.base}/games/{table.gid}/actions", clients,
                    {"Authorization": f"Bearer {token}", "If-Match": f'"{version}"'}, action)
    codes = Counter(r.status_code for r in answers)
    assert codes[200] == 1, (table.game, version, action, dict(codes))
    assert all(r.status_code in (200, 409, 412) for r in answers), dict(codes)
    assert all(r.headers["Content-Type"] == PROBLEM for r in answers if r.status_code >= 400)
    after = table.session.get(f"{table.base}/games/{table.gid}", timeout=15).json()["version"]
    assert after == version + 1, f"{table.game}: {clients} racing clients moved the game {after - version} versions"
    return codes


def idempotency_round(table: HttpTable, move: Move, copies: int, key: str) -> tuple[int, int]:
    """``copies`` of ``move`` with one ``Idempotency-Key`` at one moment: all 200 with one body,
    the game one version on. Returns (applied, replayed) answers: (1, copies - 1) expected."""
    version, _seat, token, action = move
    answers = burst(f"{table.base}/games/{table.gid}/actions", copies,
                    {"Authorization": f"Bearer {token}", "Idempotency-Key": key}, action)
    assert [r.status_code for r in answers] == [200] * copies, [(r.status_code, r.text[:200]) for r in answers]
    assert len({r.text for r in answers}) == 1, f"{table.game}: copies of one key got different answers"
    replayed = sum(r.headers.get("Idempotent-Replayed") == "true" for r in answers)
    after = table.session.get(f"{table.base}/games/{table.gid}", timeout=15).json()["version"]
    assert after == version + 1, f"{table.game}: {copies} copies of one key moved the game {after - version} versions"
    return copies - replayed, replayed


def if_match_races(base: str, game: str, seed: str, rounds: int, clients: int) -> Counter[int]:
    """:func:`if_match_round` ``rounds`` times on tables of ``game`` at ``base`` (a new table
    when one ends). Returns the status histogram over every round."""
    table = HttpTable.open(base, game, seed)
    statuses: Counter[int] = Counter()
    done = 0
    while done < rounds:
        move = next_move(table)
        if move is None:  # the game ended: another table
            table = HttpTable.open(base, game, f"{seed}-{done}")
            continue
        statuses.update(if_match_round(table, move, clients))
        done += 1
    return statuses


def idempotency_races(base: str, game: str, seed: str, rounds: int, copies: int) -> tuple[int, int]:
    """:func:`idempotency_round` ``rounds`` times (a key each) on tables of ``game`` at ``base``.
    Returns (applied, replayed) over every round: (rounds, rounds * (copies - 1)) expected."""
    table = HttpTable.open(base, game, seed)
    applied = replayed = 0
    for i in range(rounds):
        move = next_move(table)
        if move is None:
            table = HttpTable.open(base, game, f"{seed}-{i}")
            move = next_move(table)
            assert move is not None
        one, copied = idempotency_round(table, move, copies, f"k-{seed}-{i}")
        applied += one
        replayed += copied
    return applied, replayed
