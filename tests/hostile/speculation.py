"""Hostile rows of Speculation's own options, action fields and routes (``tests/api/test_hostile_input.py``
plays them after the rows every game gets)."""

from __future__ import annotations

from collections.abc import Iterator

from hostile import UNICODE, Row, action, options


def rows(seats: list[str]) -> Iterator[Row]:
    yield options(seats, "first_guesser 5", {"first_guesser": 5})
    yield options(seats, "joker_guesses unicode", {"joker_guesses": UNICODE})
    yield action("report_clothing items 2.6e-42", {"type": "report_clothing", "items": 2.6e-42})
    yield action("report_clothing items true", {"type": "report_clothing", "items": True})
    yield action("report_clothing items '3'", {"type": "report_clothing", "items": "3"})
    yield action("report_clothing items 3.0", {"type": "report_clothing", "items": 3.0})
    yield action("report_clothing items -1", {"type": "report_clothing", "items": -1})
    yield action("report_clothing items 2^53-1", {"type": "report_clothing", "items": 2**53 - 1})
    yield action("report_clothing items 2^64", f'{{"type": "report_clothing", "items": {2**64}}}', 400)
    yield action("guess value 2.6e-42", {"type": "guess", "value": 2.6e-42})
    yield action("guess value true", {"type": "guess", "value": True})
    yield action("guess_joker values floats", {"type": "guess_joker", "values": [1, 2, 3, 4.0]})
    yield action("guess_joker values 10,000", {"type": "guess_joker", "values": [1] * 10_000})
    yield action("guess_joker values nested", {"type": "guess_joker", "values": [[1], [2], [3], [4]]})
