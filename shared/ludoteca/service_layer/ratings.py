"""Ratings (issue 23, item 6): each finished game between players moves each player's rating for
that game, with OpenSkill's Plackett-Luce model (any number of seats, shared places).

Every seat of the table takes part in the update (a guest without a player, a bot: each at the
model's default rating, so beating a table of bots counts), and only the seats bound to a player
are given their new rating: unrated seats stay unrated. The finishing order comes from the
game's result: the winners share first place, the other seats follow by score (equal scores share
a place). A player who did not play their seat is rated as a forfeit, placed last
(:func:`forfeit_seats`): one who left it, and one whose choices the table's timeout bot made
mostly (:data:`TIMEOUT_FORFEIT_SHARE`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from fractions import Fraction

from ludoteca.core.engine import GameResult
from ludoteca.service_layer.record import GameRecord
from openskill.models import PlackettLuce

MODEL = PlackettLuce()

TIMEOUT_FORFEIT_SHARE = Fraction(1, 2)
"""A seat bound to a player whose choices the timeout bot made more than this share of (its
timed-out choices over all its choices, forced moves not counted:
:class:`~ludoteca.service_layer.timers.TurnClock`'s counts)
forfeits the game's rating, as a seat its player left does. Why: the player picks the timed
table's bot (``timeout_bot``), so a player who never moves at a table with a strong bot was rated
on that bot's play (a rating farmed with no move made). Why more than half, not any: a player who
ran out of time now and then (a slow turn, a dropped connection) played the game and is rated on
its place; one whose seat the bot played mostly did not. Exact (a fraction): "more than half" of 2
choices is 2."""


@dataclass(frozen=True)
class Rating:
    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    played: int = 0
    """Rated games finished in this game."""

    @property
    def ordinal(self) -> float:
        """``mu - 3 sigma``: a conservative estimate, what leaderboards rank by."""
        return self.mu - 3 * self.sigma

    def body(self) -> dict[str, float]:
        """As the API shows it (``RatingSchema``)."""
        return {"mu": self.mu, "sigma": self.sigma, "ordinal": self.ordinal}


def is_timed_out_forfeit(moves: int, timeouts: int) -> bool:
    """Whether a seat that made ``moves`` choices, ``timeouts`` of them by the timeout bot,
    forfeits: the bot made more than :data:`TIMEOUT_FORFEIT_SHARE` of them."""
    return timeouts > TIMEOUT_FORFEIT_SHARE * moves


def forfeit_seats(record: GameRecord) -> list[int]:
    """The seats bound to a player that are rated as forfeits (:func:`places`): those their player
    left (a bot finished the game for them) and, at a timed table, those whose choices the
    timeout bot made mostly (:func:`is_timed_out_forfeit`, on the clock's counts)."""
    clock = record.timer

    def timed_out(seat: int) -> bool:
        return clock is not None and is_timed_out_forfeit(clock.moves.get(seat, 0), clock.timeouts.get(seat, 0))

    return [i for i, player in enumerate(record.player_ids) if player is not None and (record.left(i) or timed_out(i))]


def places(result: GameResult, seats: int, forfeits: Collection[int] = ()) -> list[int]:
    """Each seat's finishing place, 1 first: the winners share 1; the others follow by score,
    highest first, an equal score sharing a place; the ``forfeits`` (seats their players did not
    play, :func:`forfeit_seats`: a bot played for them) share the last place, below every seat that
    played, whatever the bot did (the player picks the bot, when leaving or at a timed table:
    rated on its play, strong bots at weak tables farmed a rating with no move made)."""
    scores = [result.scores[i] if i < len(result.scores) else 0.0 for i in range(seats)]
    stayed = [i for i in range(seats) if i not in forfeits]
    winners = {i for i in result.winners if i not in forfeits}
    losers = sorted({scores[i] for i in stayed if i not in winners}, reverse=True)
    first = 1 if winners else 0
    placed = {i: 1 if i in winners else first + 1 + losers.index(scores[i]) for i in stayed}
    last = max(placed.values(), default=0) + 1
    return [placed.get(i, last) for i in range(seats)]


def rate(ratings: Sequence[Rating | None], result: GameResult,
         forfeits: Collection[int] = ()) -> list[Rating | None]:
    """The seats' ratings after ``result``: ``ratings[i]`` is seat i's rating before (None: an
    unrated seat, which plays at the default rating and stays None); ``forfeits``: see :func:`places`."""
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma) if r is not None else MODEL.rating()] for r in ratings]
    after = MODEL.rate(teams, ranks=[float(p) for p in places(result, len(ratings), forfeits)])
    return [None if before is None else Rating(team[0].mu, team[0].sigma, before.played + 1)
            for before, team in zip(ratings, after, strict=True)]
