"""Bytes a move of Speculation played to the end (issue 24, item 5: the compact listing).

    python tests/bench/bench_listing.py [--games 10]

Starts embedded Redis and the Speculation service under gunicorn (as ``make bench`` does), plays
``--games`` tables of two human seats to the end with the game's ``basic`` bot choosing for both
(one request a move: a seat that acts again plays from its move's ``next``; another seat lists
``GET .../actions``), and prints the bytes received per move (the move's answer and any listing),
over whole games and over the joker phase alone, with the listing's share. ``make bench``'s tables
stop after a few dozen moves, before most games reach the joker, where the listing was large
(715 guesses, ~35 KB); this plays the whole game. Pure figures: nothing is asserted.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import requests  # noqa: E402
from ludoteca.entrypoints.devstack import Supervisor, embedded_redis  # noqa: E402
from ludoteca.service_layer import registry  # noqa: E402
from stack import service_spec, start_servers  # noqa: E402
from table import render  # noqa: E402


def play(base: str, rnd: random.Random) -> dict[str, list[int]]:
    """One game to the end; the bytes of each move, by phase, and of each listing requested."""
    s = requests.Session()
    bot = registry.game("speculation").bots["basic"]
    created = s.post(f"{base}/games", json={"seats": ["human", "human"]}, timeout=30).json()
    gid, tokens = created["game"]["id"], [created["token"]]
    joined = s.post(f"{base}/games/{gid}/players", json={}, timeout=30).json()
    tokens.append(joined["token"])
    game, nxt = joined["game"], None
    out: dict[str, list[int]] = {"all": [], "joker": [], "listing": []}
    while game["status"] == "active":
        seat = game["to_act"][0]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        size = 0
        if nxt is None or nxt["seat"] != seat or nxt["version"] != game["version"]:
            r = s.get(f"{base}/games/{gid}/actions", headers=auth, timeout=30)
            size += len(r.content)
            out["listing"].append(len(r.content))
            nxt = r.json()
        view = game["state"] if game.get("you") == seat else s.get(f"{base}/games/{gid}", headers=auth,
                                                                     timeout=30).json()["state"]
        joker = view["boards"][1 - seat]["target"] == "joker"
        action = bot(view, nxt["actions"] + nxt["templates"], rnd)
        r = s.post(f"{base}/games/{gid}/actions", json=action, headers=auth, timeout=30)
        assert r.status_code == 200, r.text
        size += len(r.content)
        body: dict[str, Any] = r.json()
        game, nxt = body["game"], body["next"]
        out["all"].append(size)
        if joker:
            out["joker"].append(size)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10)
    args = parser.parse_args()
    sup = Supervisor()
    try:
        with tempfile.TemporaryDirectory() as tmp, embedded_redis(sup, Path(tmp) / "redis") as redis_url:
            servers = start_servers(sup, {"speculation": service_spec("speculation", redis_url)}, Path(tmp))
            rnd = random.Random(24)
            figures: dict[str, list[int]] = {"all": [], "joker": [], "listing": []}
            for _ in range(args.games):
                for k, v in play(servers["speculation"].url, rnd).items():
                    figures[k].extend(v)
    finally:
        sup.stop()
    rows = [[part, len(xs), statistics.mean(xs) if xs else None, statistics.median(xs) if xs else None,
             max(xs, default=None)] for part, xs in figures.items()]
    print(f"Speculation, {args.games} games of two humans played to the end by the basic bot, "
          "bytes received (response bodies)")
    print(render(["what", "count", "mean B", "median B", "max B"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
