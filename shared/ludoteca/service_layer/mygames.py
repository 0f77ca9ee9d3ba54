"""A player's games across every game (issue 23, items 2 and 3): the seats bound to players, and
"my games" as the games themselves say.

A seat bound to a player is recorded in the game's own record (``player_ids``: the game's commit
stays in the game's slot). The player's list of games lives in the player's slot and is written
around the game's commit (``GameService.create`` and ``join``): an intent first, the list entry
after (:class:`GameList`). A list read
settles what a fault left behind against the games: an intent whose game binds the player joins
the list; one whose game does not (its commit never happened) is dropped once it is older than
the grace; a listed game that is gone or binds the player no more leaves the list. So after any
fault the list agrees with the games within the grace.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ludoteca.core.engine import GameDefinition, GameResult
from ludoteca.service_layer.record import Status
from ludoteca.service_layer.repository import Stored


@dataclass(frozen=True)
class PlayerRef:
    """The player a request's token names: who a seat is bound to, and the name shown there."""

    id: str
    name: str


class GameList(Protocol):
    """A player's games and binding intents (``ludoteca.adapters.players.GameLists``)."""

    def intend(self, player_id: str, game: str, game_id: str, now: float | None = None) -> None: ...

    def confirm(self, player_id: str, game: str, game_id: str, created: float) -> None: ...

    def forget(self, player_id: str, game: str, game_id: str) -> None: ...

    def pending(self, player_id: str) -> list[tuple[str, str, float]]: ...

    def page(self, player_id: str, offset: int, limit: int) -> tuple[int, list[tuple[str, str]]]: ...


class PlayerSeats(Protocol):
    """What a game service needs of players (``ludoteca.adapters.players.Seating``): who a
    token is, the players' lists of games, and their ratings."""

    @property
    def games(self) -> GameList:
        """The players' lists of games."""
        ...

    def identify(self, token: str) -> PlayerRef | None:
        """The player ``token`` names; None for a token that is not a player's (a seat token);
        :class:`~ludoteca.core.errors.AuthenticationError` for a player's token that does not verify."""
        ...

    def rate(self, game: str, game_id: str, bound: Sequence[str | None], result: GameResult,
             forfeits: Collection[int] = ()) -> int:
        """Rate the players bound to a finished game's seats, exactly once (``forfeits``: the
        seats their players did not play, placed last: :func:`ludoteca.service_layer.ratings.forfeit_seats`)."""
        ...

    def leaderboard(self, game: str, limit: int) -> list[dict[str, Any]]:
        """The ``limit`` best players of ``game`` by rating: player_id, name, played, rating."""
        ...

    def relay(self, game: str, game_id: str) -> int:
        """Relay the notices the game's commits left in its outbox to the players' event streams,
        each once (:mod:`~ludoteca.service_layer.notices`); how many were added."""
        ...

    def tell(self, player_id: str, mark: str, body: dict[str, Any]) -> int:
        """Tell the player a notice of no game's commit (``matched``), once per ``mark``."""
        ...

    def ordinal(self, player_id: str, game: str) -> float:
        """The player's rating ordinal in ``game`` (the model's default before a rated game)."""
        ...

    def queues(self, game: str) -> Any:
        """``game``'s matchmaking tickets (:class:`~ludoteca.service_layer.matching.MatchQueue`)."""
        ...


@dataclass(frozen=True)
class PlayerGame:
    """One game of a player, as the game says now."""

    game: str
    game_id: str
    seat: int
    status: str
    your_turn: bool
    created_at: float
    left: bool = False
    """The player left the game (a bot plays the seat)."""


def bound_seat(stored: Stored, player_id: str) -> int | None:
    """The seat of ``stored`` bound to ``player_id`` (None: none is)."""
    bound = stored.record.player_ids
    return bound.index(player_id) if player_id in bound else None


def summarise(definition: GameDefinition, stored: Stored, player_id: str) -> PlayerGame | None:
    """``player_id``'s game ``stored`` (None when no seat of it is the player's)."""
    seat = bound_seat(stored, player_id)
    if seat is None:
        return None
    record = stored.record
    left = record.left(seat)
    your_turn = False
    if record.status is Status.ACTIVE and not left:
        engine = definition.engine
        your_turn = seat in engine.to_act(engine.load(record.state))
    return PlayerGame(definition.name, record.id, seat, record.status.value, your_turn, record.created_at, left)


REREADS = 10
"""How often one ``GET /players/me/games`` reads its page again after dropping gone games (each
read drops at least one: a long run of expired games is pruned over a few calls)."""


class MyGames:
    """``GET /players/me/games``: the player's games, newest first, a page at a time, settled
    against the games (see the module docstring). ``load(game, game_id)`` reads a game (None:
    there is no such game, or it has expired); ``definitions``: the installed games."""

    def __init__(self, games: GameList, load: Callable[[str, str], Stored | None],
                 definitions: Mapping[str, GameDefinition], grace_seconds: float,
                 clock: Callable[[], float] = time.time) -> None:
        self.games = games
        self.load = load
        self.definitions = definitions
        self.grace = grace_seconds
        self.clock = clock

    def settle(self, player_id: str) -> None:
        """Settle the player's intents against their games."""
        for game, game_id, since in self.games.pending(player_id):
            stored = self._read(game, game_id)
            if stored is not None and bound_seat(stored, player_id) is not None:
                self.games.confirm(player_id, game, game_id, stored.record.created_at)
            elif self.clock() - since > self.grace:
                self.games.forget(player_id, game, game_id)

    def page(self, player_id: str, page: int, page_size: int) -> tuple[int, list[PlayerGame]]:
        """(the number of the player's games, the games of page ``page``, from 1). A game found
        gone on the page is dropped from the list and the page read again, so the games after it
        move up into it and ``total`` counts what is left (dropping them and answering the page
        as read showed a short page, or an empty one with ``total`` 1, and left a live game on
        no page: the offsets had moved under the client); at most :data:`REREADS` times a call."""
        self.settle(player_id)
        for _ in range(REREADS):
            total, members = self.games.page(player_id, (page - 1) * page_size, page_size)
            found: list[PlayerGame] = []
            for game, game_id in members:
                stored = self._read(game, game_id)
                definition = self.definitions.get(game)
                entry = summarise(definition, stored, player_id) if stored is not None and definition else None
                if entry is None:  # gone, or not the player's: the list follows the games
                    self.games.forget(player_id, game, game_id)
                    continue
                found.append(entry)
            if len(found) == len(members):
                break
        return total - (len(members) - len(found)), found

    def _read(self, game: str, game_id: str) -> Stored | None:
        return self.load(game, game_id) if game in self.definitions else None
