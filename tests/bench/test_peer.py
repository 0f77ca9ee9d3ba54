"""The peer harness of ``make bench-peer`` (``tests/bench/peer``, ``bench_peer.py``) plays the game
``services/pig`` plays: its rules constants are Pig's, its players hold where ours do, and its one
dependency is pinned in a lock file that names no registry. Reads files only (no Node, no network)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ludoteca.core.rng import Rng
from pig.engine import DEFAULT_TARGET, DIE, MAX_SEATS, MIN_SEATS, EventType, PigEngine

PEER = Path(__file__).resolve().parent / "peer"
RULES = json.loads((PEER / "rules.json").read_text())


def test_the_peers_rules_are_pigs() -> None:
    assert RULES["target"] == DEFAULT_TARGET
    assert tuple(range(1, RULES["faces"] + 1)) == DIE.faces
    assert (RULES["min_players"], RULES["max_players"]) == (MIN_SEATS, MAX_SEATS)


def test_the_peers_bust_face_is_the_one_that_loses_our_turn() -> None:
    engine = PigEngine()
    state = engine.new_game(["human", "human"], {}, Rng("9e" * 32))
    busts = set()
    for _ in range(200):
        seat = next(iter(engine.to_act(state)))
        state, events = engine.apply(state, seat, {"type": "roll"})
        die = next(e.data["die"] for e in events if e.type == EventType.DIE_ROLLED)
        if any(e.type == EventType.BUSTED for e in events):
            busts.add(die)
    assert busts == {RULES["bust"]}


def test_both_drivers_hold_at_the_same_total() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    try:
        from driver import HOLD_AT
    finally:
        sys.path.pop(0)
    assert RULES["hold_at"] == HOLD_AT
    assert "RULES.hold_at" in (PEER / "driver.js").read_text()
    game = (PEER / "pig.js").read_text()
    for key in ("target", "faces", "bust", "min_players", "max_players"):
        assert f"RULES.{key}" in game, f"pig.js does not read {key} from rules.json"


def test_boardgame_io_is_pinned_and_locked_without_a_registry() -> None:
    package = json.loads((PEER / "package.json").read_text())
    lock = json.loads((PEER / "package-lock.json").read_text())
    version = package["dependencies"]["boardgame.io"]
    assert version[0].isdigit(), "pinned to one version"
    assert lock["packages"]["node_modules/boardgame.io"]["version"] == version
    assert all("resolved" not in entry for entry in lock["packages"].values())
    assert "omit-lockfile-registry-resolved=true" in (PEER / ".npmrc").read_text()
