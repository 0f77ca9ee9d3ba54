"""The remembered games: what this process last wrote or read of a game, a move's starting point.

A collaborator of :class:`~ludoteca.service_layer.service.GameService` (given to it, or made
with its default size). Only a starting point: the commit is a compare-and-set on the version,
so a game that moved on since is found out and read again (see the service's module docstring).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from ludoteca.service_layer.repository import Stored

STATE = "state"
"""The key of the decoded engine state in :attr:`Stored.derived <ludoteca.service_layer.repository.Stored.derived>`."""


class RecentGames:
    """The games this process last wrote or read for a move, at most ``size`` of them (least
    recently used go first), each with its engine state once decoded (or as the move that wrote
    it left it: :meth:`~ludoteca.service_layer.service.GameService.state_of`)."""

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self._games: OrderedDict[str, Stored] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, game_id: str) -> Stored | None:
        with self._lock:
            stored = self._games.get(game_id)
            if stored is not None:
                self._games.move_to_end(game_id)
            return stored

    def forget(self, game_id: str) -> None:
        with self._lock:
            self._games.pop(game_id, None)

    def put(self, game_id: str, version: int, doc: dict[str, Any], state: Any = None) -> None:
        with self._lock:
            known = self._games.get(game_id)
            if known is not None and known.version > version:
                return
            stored = Stored(version, doc, cached=True)
            if state is not None:
                stored.derived[STATE] = state
            self._games[game_id] = stored
            self._games.move_to_end(game_id)
            while len(self._games) > self.size:
                self._games.popitem(last=False)
