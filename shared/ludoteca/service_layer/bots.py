"""The game's bots as the service plays them: a collaborator of
:class:`~ludoteca.service_layer.service.GameService`.

:class:`Bots` chooses a bot seat's move (and a timed-out human's, with the timeout's level),
and finds the bot seats that may act out of turn (``GameDefinition.interrupts``, asked only of
an engine with ``acts_out_of_turn``) and what they choose. Every choice draws from
:func:`bot_random`, so it is secret until the game's seed is revealed and then reproducible.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from typing import Any

from ludoteca.core.engine import GameDefinition
from ludoteca.service_layer.record import GameRecord, Status


def bot_random(seed: str, version: int, seat: int) -> random.Random:
    """The private generator of the bot at ``seat`` playing at ``version``: seeded from
    ``HMAC-SHA256(game seed, "bot:<version>:<seat>")``. Without the game's secret seed nobody can
    predict it (the game id, the versions and the seats are public); with it (the replay reveals
    it after the end) every bot choice is exactly reproducible."""
    mac = hmac.new(bytes.fromhex(seed), f"bot:{version}:{seat}".encode(), hashlib.sha256).digest()
    return random.Random(int.from_bytes(mac, "big"))


class Bots:
    """The bots of one game type."""

    def __init__(self, definition: GameDefinition) -> None:
        self.d = definition
        self.engine = definition.engine

    def choose(self, level: str, record: GameRecord, state: Any, seat: int, version: int) -> dict[str, Any]:
        """The move the bot ``level`` makes for ``seat`` at ``version`` (from the legal actions
        and the templates)."""
        view = self.engine.view(state, seat)
        legal = self.engine.legal_actions(state, seat) + self.engine.action_templates(state, seat)
        return dict(self.d.bots[level](view, legal, bot_random(record.seed, version, seat)))

    def out_of_turn(self, record: GameRecord, state: Any, to_act: frozenset[int]) -> list[int]:
        """The bot seats the game does not wait on whose level may act out of turn and whom the
        engine lets act now (``acts_out_of_turn``)."""
        allowed = getattr(self.engine, "acts_out_of_turn", None)
        if not self.d.interrupts or allowed is None or record.status is not Status.ACTIVE:
            return []
        return [seat for seat, kind in enumerate(record.kinds)
                if seat not in to_act and kind.level in self.d.interrupts and allowed(state, seat)]

    def interrupt(self, record: GameRecord, state: Any, seat: int, version: int) -> dict[str, Any] | None:
        """What the out-of-turn bot at ``seat`` does at ``version`` (``None``: it lets it be)."""
        interrupt = self.d.interrupts[str(record.level(seat))]
        view = self.engine.view(state, seat)
        action = interrupt(view, self.engine.legal_actions(state, seat), bot_random(record.seed, version, seat))
        return None if action is None else dict(action)
