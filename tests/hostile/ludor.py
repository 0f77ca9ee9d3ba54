"""Hostile rows of Ludor's own options, action fields and routes (``tests/api/test_hostile_input.py``
plays them after the rows every game gets)."""

from __future__ import annotations

from collections.abc import Iterator

from hostile import UNICODE, Row, action, options


def rows(seats: list[str]) -> Iterator[Row]:
    yield options(seats, "round_limit 2.0", {"round_limit": 2.0})
    yield options(seats, "round_limit true", {"round_limit": True})
    yield options(seats, "straights 'true'", {"straights": "true"})
    yield options(seats, "deck unicode", {"deck": UNICODE})
    yield action("play cards numbers", {"type": "play", "cards": [5]})
    yield action("play cards a string", {"type": "play", "cards": "7C"})
    yield action("play 10,000 cards", {"type": "play", "cards": ["7C"] * 10_000})
    yield action("play no cards", {"type": "play", "cards": []})
    yield action("vote end 1", {"type": "vote", "end": 1})
    yield action("vote end 'true'", {"type": "vote", "end": "true"})
    yield action("play_autoplim declare_plim 0", {"type": "play_autoplim", "declare_plim": 0})
    yield action("play_autoplim declare_plim 'yes'", {"type": "play_autoplim", "declare_plim": "yes"})
    yield action("play rank 'ten'", {"type": "play", "cards": ["JK1"], "rank": "ten"})
    yield action("play rank 7", {"type": "play", "cards": ["JK1"], "rank": 7})
    yield action("play rank 2_de_oros", {"type": "play", "cards": ["JK1"], "rank": "2_de_oros"})
    yield action("give_back cards unicode", {"type": "give_back", "cards": [UNICODE]})
