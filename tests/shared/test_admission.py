"""Which requests the admission layer counts as holds (``ludoteca.entrypoints.admission.hold_kind``):
the bounds on long-polls and streams apply to a game's and to a player's."""

from __future__ import annotations

import pytest
from ludoteca.entrypoints.admission import Admission, Hold, Limits, hold_kind, hold_of


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
    # as the app reads them: HEAD runs the GET view, the route is the percent-decoded path, and
    # `wait` is its first value (each of these went uncounted before a hostile client's probe)
    ("HEAD", "/games/abc/events", "wait=10", "long_poll"),
    ("HEAD", "/games/abc/stream", "", "stream"),
    ("GET", "/games/abc/even%74s", "wait=10", "long_poll"),
    ("GET", "/games/abc/strea%6D", "", "stream"),
    ("GET", "/me/even%74s", "", "stream"),
    ("GET", "/games/abc/events", "wait=20&wait=0", "long_poll"),
    ("GET", "/games/abc/events", "wait=0&wait=20", None),
])
def test_holds_are_told_apart(method: str, path: str, query: str, kind: str | None) -> None:
    assert hold_kind(method, path, query) == kind


def test_a_players_token_has_the_seat_bound_in_each_game() -> None:
    """A player's token acts for every seat of the player: its holds are bounded per game (the
    hold's scope), not once across all of its games; one game's are still bounded."""
    limits = Limits(connections=1000, per_address=1000, holds=1000, holds_per_client=1000, holds_per_seat=2,
                    max_body=65536, body_seconds=10.0, hops=0, proxies=())
    admission = Admission(limits, game="pig")
    token = "Bearer player-token"
    games = [scope for _, scope in (hold_of("GET", f"/games/g{i}/stream", "") or ("", "") for i in range(5))]
    assert games == [f"g{i}" for i in range(5)] and hold_of("GET", "/me/events", "") == ("stream", "me")
    held = [admission.hold("stream", f"10.0.0.{i}", None, token, scope) for i, scope in enumerate(games * 2)]
    assert all(isinstance(h, Hold) for h in held)  # two in each of five games
    third = admission.hold("stream", "10.0.0.99", None, token, games[0])
    assert not isinstance(third, Hold) and third.status == 429
