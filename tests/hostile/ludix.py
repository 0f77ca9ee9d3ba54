"""Hostile rows of Ludix's own options, action fields and routes (``tests/api/test_hostile_input.py``
plays them after the rows every game gets)."""

from __future__ import annotations

import json
from collections.abc import Iterator

from hostile import HUGE_INT, UNICODE, Row, action, options, row


def rows(seats: list[str]) -> Iterator[Row]:
    yield options(seats, "target 2.6e-42", {"target": 2.6e-42})
    yield options(seats, "target 300.0", {"target": 300.0})
    yield options(seats, "target true", {"target": True})
    yield options(seats, "target '300'", {"target": "300"})
    huge = f'{{"seats": {json.dumps(seats)}, "options": {{"target": {HUGE_INT}}}}}'
    yield options(seats, "target 5,001 digits", huge, 400)
    yield options(seats, "target 10^15", {"target": 10**15})
    yield action("roll numeral a number", {"type": "roll", "numeral": 5})
    yield action("hold numeral unicode", {"type": "hold", "numeral": UNICODE})
    yield action("hold numeral full-width", {"type": "hold", "numeral": "ＬＸＶＩ"})
    yield action("roll numeral with newline", {"type": "roll", "numeral": "LXVI\n"}, {409, 422})
    yield action("alea_jacta_est extra field", {"type": "alea_jacta_est", "x": 1})
    for dice in ["ＬＸＶＩ", "LXVI%0A", "LXV", "L" * 5000, "%FF%FE"]:
        yield row(f"numerals?dice={dice[:12]}", "GET", f"/numerals?dice={dice}", expect=422, content_type=None,
                  auth=False)
