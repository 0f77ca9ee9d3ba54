"""A live game asks the bots that may act out of turn (``GameDefinition.interrupts``: Ludor's
expert holding the Autoplim) after every move that leaves them able to, and plays what they
choose: the service, over the in-memory store, with a recording dispatcher."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from typing import Any

from conftest import Dispatches
from ludor.hierarchy import AUTOPLIM_NAME
from ludoteca.core.engine import JSON, GameDefinition
from ludoteca.service_layer import registry
from ludoteca.service_layer.repository import MemoryStore
from ludoteca.service_layer.service import GameService

HUMANS = (0, 2)
BOT = 1
DEALS = 400  # random deals until one fits (40 once found none in a CI run; each costs a millisecond or two)


def service_with(interrupt: Any) -> tuple[GameService, Dispatches]:
    d: GameDefinition = dataclasses.replace(registry.game("ludor"), interrupts={"expert": interrupt})
    dispatches = Dispatches()
    return GameService(d, MemoryStore("ludor"), dispatches), dispatches


def table_where_the_bot_may_interrupt(service: GameService) -> tuple[str, list[str], int]:
    """A game whose bot holds the Autoplim, played by the humans until a play of theirs lies on
    the table and a human is to act: (game id, the humans' tokens by seat, the version)."""
    for _ in range(DEALS):
        envelope, _, t0 = service.create(["human", "bot:expert", "human"], {}, 0, None)
        gid = envelope["id"]
        _, _, t2 = service.join(gid, 2, None)
        tokens = {0: t0, 2: t2}
        stored = service.load(gid)
        state = service.state_of(stored)
        if AUTOPLIM_NAME not in state.hands[BOT]:
            continue
        for _ in range(6):
            stored = service.load(gid)
            state = service.state_of(stored)
            to_act = service.engine.to_act(state)
            seat = min(to_act)
            if seat == BOT:  # not the table we want: the bot leads or answers
                break
            trick = state.trick
            if trick is not None and trick.top is not None and trick.last in HUMANS:
                return gid, [tokens[0], "", tokens[2]], stored.version
            plays = [a for a in service.engine.legal_actions(state, seat) if a["type"] == "play"]
            service.play(gid, seat, plays[0], None, None)
    raise AssertionError(f"no table where the bot holds the Autoplim after a human's play in {DEALS} deals")


def test_a_bot_that_may_act_out_of_turn_is_asked_and_its_choice_is_played() -> None:
    asked: list[tuple[int, int]] = []

    def interrupt(view: JSON, legal: Sequence[JSON], rng: random.Random) -> JSON | None:
        asked.append((view["seat"], len(legal)))
        return next(a for a in legal if a["type"] == "play_autoplim")

    service, recorder = service_with(interrupt)
    gid, _, version = table_where_the_bot_may_interrupt(service)
    assert ("ludor", gid, version) in recorder.bot_turns  # asked after the human's move, though no bot is to act
    _, due = service.store.due(gid)
    assert due is None or due.kind != "bot"  # not recorded as due: the game does not wait on it
    assert service.bot_turn(gid, version) == "interrupted"
    assert asked and asked[-1][0] == BOT
    log = service.store.action_log(gid)
    assert log[-1]["seat"] == BOT and log[-1]["action"]["type"] == "play_autoplim"
    assert service.bot_turn(gid, version) == "stale"  # a duplicate task changes nothing


def test_a_bot_that_lets_the_game_go_on_changes_nothing() -> None:
    service, recorder = service_with(lambda view, legal, rng: None)
    gid, _, version = table_where_the_bot_may_interrupt(service)
    assert ("ludor", gid, version) in recorder.bot_turns
    assert service.bot_turn(gid, version) == "no-bot"
    assert service.load(gid).version == version


def test_the_real_expert_is_the_one_asked() -> None:
    from ludor.bots import INTERRUPTS

    assert registry.game("ludor").interrupts == INTERRUPTS and set(INTERRUPTS) == {"expert"}
