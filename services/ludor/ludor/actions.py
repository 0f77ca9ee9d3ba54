"""Ludor's actions as typed values (:mod:`ludoteca.core.actions`), parsed once from a posted body.

Every card combination a seat could play is too many to build for each move, so what a seat may
post in turn (its plays, or an exchange's give-backs) is a :class:`Judged` statement of legality:
it admits a parsed action by judging it (its cards, their combination, whether it answers the
table), and spells every legal action only when the listing is asked for (``legal_actions``, as
clients get it, and a refusal).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property

from ludoteca.core.actions import Action, ActionTypes, Legal


class ActionType(StrEnum):
    """The ``type`` of an action body (imperative); a recorded move's ``action`` is one of the first three."""

    PLAY = "play"
    PASS = "pass"
    PLAY_AUTOPLIM = "play_autoplim"
    GIVE_BACK = "give_back"
    VOTE = "vote"


@dataclass(frozen=True)
class Play(Action, type=ActionType.PLAY):
    """In turn, a set (or straight) that answers the table; ``rank`` names the rank of jokers
    played alone (left out: Joker)."""

    cards: tuple[str, ...]
    rank: str | None = None


@dataclass(frozen=True)
class Pass(Action, type=ActionType.PASS):
    """In turn, on a trick someone has opened: out of this trick."""


@dataclass(frozen=True)
class PlayAutoplim(Action, type=ActionType.PLAY_AUTOPLIM):
    """The holder of the Autoplim, at any moment of the play, in turn or not (declaring PLIM or not)."""

    declare_plim: bool = False


@dataclass(frozen=True)
class GiveBack(Action, type=ActionType.GIVE_BACK):
    """The exchange's return leg (``choose`` option): as many cards as were received."""

    cards: tuple[str, ...]


@dataclass(frozen=True)
class Vote(Action, type=ActionType.VOTE):
    """After a round: end the game (true) or play on."""

    end: bool


LudorAction = Play | Pass | PlayAutoplim | GiveBack | Vote
ACTIONS: ActionTypes[LudorAction] = ActionTypes(Play, Pass, PlayAutoplim, GiveBack, Vote)
"""The one parser of a Ludor body."""

PASS = Pass()
AUTOPLIM, AUTOPLIM_PLIM = PlayAutoplim(False), PlayAutoplim(True)
VOTES = (Vote(True), Vote(False))


class Judged(Legal[LudorAction]):
    """What a seat may post when its actions are too many to build for each move (a seat's plays,
    an exchange's give-backs): ``judge`` admits an action by the rules, and ``listed`` spells
    every legal action, in the listing's order, only when it is asked for (``legal_actions``,
    a refusal). Made by :meth:`of`."""

    judge: Callable[[LudorAction], bool]
    spell: Callable[[], list[LudorAction]]
    few: Sequence[LudorAction]

    @classmethod
    def of(cls, judge: Callable[[LudorAction], bool], spell: Callable[[], list[LudorAction]],
           few: Sequence[LudorAction] = ()) -> Judged:
        """The actions ``judge`` admits, spelled by ``spell``, then the ``few`` listed as they are.
        Made without the frozen ``__init__`` (as the shared parser makes an action): a move in
        turn asks for one."""
        legal = object.__new__(cls)
        legal.__dict__.update(templates=(), judge=judge, spell=spell, few=few)
        return legal

    def __contains__(self, action: object) -> bool:
        return self.judge(action) or action in self.few  # type: ignore[arg-type]

    @cached_property
    def listed(self) -> Sequence[LudorAction]:
        return [*self.spell(), *self.few]


