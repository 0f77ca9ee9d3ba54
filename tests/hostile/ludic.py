"""Hostile rows of Ludic's own options, action fields and routes (``tests/api/test_hostile_input.py``
plays them after the rows every game gets)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from hostile import BIG, DEEP, HUGE_INT, LONG_NUMBER, NOT_UTF8, NOTS, PARENS, UNICODE, Row, action, options, row


def ready(view: dict[str, Any]) -> bool:
    """The rows are posted by the Vexer writing the rule: the rule reaches the parser."""
    return bool(view["state"]["phase"] == "rule")


def actor(view: dict[str, Any]) -> int:
    return int(view["state"]["vexer"])


def rows(seats: list[str]) -> Iterator[Row]:
    yield options(seats, "round_limit 1.5", {"round_limit": 1.5})
    yield options(seats, "round_limit 2.0", {"round_limit": 2.0})
    yield options(seats, "round_limit true", {"round_limit": True})
    yield options(seats, "short_game 1", {"short_game": 1})
    yield options(seats, "short_game 'yes'", {"short_game": "yes"})
    yield options(seats, "vexer_choices 'true'", {"vexer_choices": "true"})
    yield options(seats, "turn_initial_sets 0", {"turn_initial_sets": 0})
    yield options(seats, "round_limit 5,001 digits",
                  f'{{"seats": {json.dumps(seats)}, "options": {{"round_limit": {HUGE_INT}}}}}', 400)
    # the caller is the Vexer writing the rule (see `seated`): the rule reaches the parser
    yield action("write_rule: 260 nested parentheses", {"type": "write_rule", "rule": PARENS})
    yield action("write_rule: 480 nots", {"type": "write_rule", "rule": NOTS})
    yield action("write_rule: 1,500-digit number", {"type": "write_rule", "rule": LONG_NUMBER})
    yield action("write_rule: unicode-heavy", {"type": "write_rule", "rule": UNICODE[:1000]})
    yield action("write_rule: NUL bytes", {"type": "write_rule", "rule": "the top card\x00 is red"})
    yield action("write_rule: 2,001 characters", {"type": "write_rule", "rule": "x" * 2001})
    yield action("write_rule: empty", {"type": "write_rule", "rule": ""})
    yield action("write_rule: a number", {"type": "write_rule", "rule": 5})
    yield action("write_rule: turn_obey 1", {"type": "write_rule", "rule": "the top card is red", "turn_obey": 1})
    yield action("write_rule: turn_break 'no'",
                 {"type": "write_rule", "rule": "the top card is red", "turn_break": "no"})
    yield action("guess out of phase, deep", {"type": "guess", "rule": PARENS}, {409, 422})
    yield action("query card 'AS'", {"type": "query", "top": "AS", "bottom": "4S"})
    yield action("play column unicode", {"type": "play", "top": "QH", "bottom": "4S", "column": UNICODE})
    yield action("choose_flip card 10", {"type": "choose_flip", "column": "obey", "top": 10, "bottom": "2C"})
    check = "/rules/check"
    for name, body, status in [
        ("260 nested parentheses", {"rule": PARENS}, 200), ("480 nots", {"rule": NOTS}, 200),
        ("1,500-digit number", {"rule": LONG_NUMBER}, 200), ("unicode-heavy", {"rule": UNICODE[:1000]}, 200),
        ("2,001 characters", {"rule": "x" * 2001}, 422), ("a number", {"rule": 5}, 422),
        ("obey_set only", {"rule": "the top card is red", "obey_set": {"top": "QH", "bottom": "4S"}}, 422),
        ("card 'AS'", {"rule": "the top card is red", "obey_set": {"top": "AS", "bottom": "4S"},
                       "break_set": {"top": "JS", "bottom": "3H"}}, 422),
        ("deep", DEEP, 400), ("not UTF-8", NOT_UTF8, 400), ("big", b'{"rule": "' + b"a" * BIG + b'"}', 413),
    ]:
        yield row(f"rules/check: {name}", "POST", check, body, expect=status, auth=False)
