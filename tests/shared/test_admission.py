"""Which requests the admission layer counts as holds (``ludoteca.entrypoints.admission.hold_kind``):
the bounds on long-polls and streams apply to a game's and to a player's."""

from __future__ import annotations

import pytest
from ludoteca.entrypoints.admission import hold_kind


@pytest.mark.parametrize(("method", "path", "query", "kind"), [
    ("GET", "/games/abc/stream", "", "stream"),
    ("GET", "/games/abc/events", "wait=10", "long_poll"),
    ("GET", "/games/abc/events", "wait=0", None),
    ("GET", "/games/abc/events", "", None),
    ("GET", "/games/abc/events", "wait=x", None),
    ("POST", "/games/abc/stream", "", None),
    ("GET", "/games/abc", "", None),
    ("GET", "/games/abc/actions", "", None),
    # a player's events: a stream or a long-poll chosen by its Accept header, which admission does
    # not read: held as a stream either way
    ("GET", "/me/events", "", "stream"),
    ("GET", "/me/events", "after=3&wait=20", "stream"),
    ("GET", "/me/events/", "", "stream"),
    ("GET", "/me/games", "", None),
    ("POST", "/me/events", "", None),
])
def test_holds_are_told_apart(method: str, path: str, query: str, kind: str | None) -> None:
    assert hold_kind(method, path, query) == kind
