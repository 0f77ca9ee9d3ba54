"""The hostile-input table's parts (``tests/api/test_hostile_input.py``): a row, the payloads, and the
rows every game gets from its schemas. A game may add rows of its own in ``hostile/<game>.py`` (a
``rows(seats)`` generator; ``ready(view)`` and ``actor(view)`` when the seat that must receive
them is not simply the first to act): a game without one still gets every shared row.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ludoteca.adapters.hosting.bodies import MAX_BODY_BYTES, MAX_DEPTH
from ludoteca.service_layer import registry
from marshmallow import fields

PROBLEM = "application/problem+json"
BIG = MAX_BODY_BYTES + 1024
DEEP = "[" * 10_000 + "]" * 10_000
DEEP_OBJECT = '{"a":' * 5_000 + "1" + "}" * 5_000
JUST_TOO_DEEP = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
HUGE_INT = "9" * 5_001
NOT_UTF8 = b'{"type": "\xff\xfe\xc3\x28"}'
LATIN1 = '{"type": "caf\xe9"}'.encode("latin-1")
UNICODE = "\U0001f3b2\u200b\u202e\ufffd\u0301" * 200  # dice emoji, zero-width, RTL override, combining
PARENS = "(" * 260 + "the top card is red" + ")" * 260
NOTS = "not " * 480 + "the top card is red"
LONG_NUMBER = "the sum is " + "9" * 1500


@dataclass
class Row:
    """One hostile request and the status it must get (a set when either is right)."""

    name: str
    method: str
    path: str  # "{id}" is the game's id
    body: bytes | str | Any = None  # bytes/str: sent raw; anything else: JSON-encoded
    content_type: str | None = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    auth: bool = True  # send the seat's token (unless headers has an Authorization)
    expect: frozenset[int] = frozenset({400})
    chunked: bool = False


def row(name: str, method: str, path: str, body: Any = None, expect: int | set[int] = 400, **kw: Any) -> Row:
    return Row(name, method, path, body, expect=frozenset({expect} if isinstance(expect, int) else expect), **kw)

ACT = "/games/{id}/actions"


def options(seats: list[str], name: str, opts: Any, status: int = 422) -> Row:
    """``POST /games`` with these options (a str: the raw body)."""
    body = opts if isinstance(opts, str) else {"seats": seats, "options": opts}
    return row(f"options: {name}", "POST", "/games", body, expect=status, auth=False)


def action(name: str, body: Any, status: int | set[int] = 422) -> Row:
    """An action posted by the seat the game waits on."""
    return row(f"action: {name}", "POST", ACT, body, expect=status)


WRONG: list[tuple[str, Any]] = [("nested lists", [[UNICODE[:100]]]), ("an object", {UNICODE[:20]: [None]})]
"""Values no declared field accepts (a list of lists of a string, an object of an unknown member)."""


def schema_rows(game: str) -> Iterator[Row]:
    """Every game's own option and action fields, each of a value it cannot take, and an unknown
    member in each action: from its schemas, so a new game gets them with nothing to write."""
    d = registry.game(game)
    seats = ["human"] * d.engine.min_seats
    for name, f in d.options_schema().fields.items():
        if f.dump_only or (isinstance(f, fields.Raw) and type(f) is fields.Raw):
            continue
        for label, value in WRONG:
            yield options(seats, f"{name} {label}", {name: value})
    for kind, schema in d.action_schemas.items():
        yield action(f"{kind} unknown member", {"type": kind, UNICODE[:20]: 1})
        for name, f in schema().fields.items():
            if name == "type" or f.dump_only or type(f) is fields.Raw:
                continue
            for label, value in WRONG:
                yield action(f"{kind} {name} {label}", {"type": kind, name: value})
