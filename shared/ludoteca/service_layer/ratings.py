"""Ratings (issue 23, item 6): each finished game between players moves each player's rating for
that game, with OpenSkill's Plackett-Luce model (any number of seats, shared places).

Every seat of the table takes part in the update (a guest without a player, a bot: each at the
model's default rating, so beating a table of bots counts), and only the seats bound to a player
are given their new rating: unrated seats stay unrated. The finishing order comes from the
game's result: the winners share first place, the other seats follow by score (equal scores share
a place).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ludoteca.core.engine import GameResult
from openskill.models import PlackettLuce

MODEL = PlackettLuce()


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


def places(result: GameResult, seats: int, forfeits: Collection[int] = ()) -> list[int]:
    """Each seat's finishing place, 1 first: the winners share 1; the others follow by score,
    highest first, an equal score sharing a place; the ``forfeits`` (seats their players left: a
    bot finished the game for them) share the last place, below every seat that stayed, whatever
    the bot did (a leaver picks the bot: rated on its play, leaving strong bots at weak tables
    farmed a rating with no move made)."""
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
