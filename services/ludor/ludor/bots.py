"""Ludor's bots: ``random``, ``greedy`` and ``expert``. Each is a pure function of its seat's view
and legal actions (never the state), and returns one of the legal actions.

- ``random``: any legal action, uniformly.
- ``greedy``: :func:`ludor.greedy.greedy`: sheds its lowest cards, keeps 2s, jokers and the
  2 de Oros for control, PLIMs when that wins the trick, plays the Autoplim when nothing can
  beat it.
- ``expert``: determinized Monte Carlo (:func:`ludor.simulation.search`): it deals the cards it
  has not seen at random among the other hands (as many as each holds, the cards it knows from
  its exchange placed), moves each deal towards the likely ones by Metropolis swaps of cards
  between the others, under the likelihood of their passes and plays (fitted on the play of the
  expert of before: :data:`ludor.simulation.PASS_LIKELIHOOD`, :data:`ludor.rollouts.PLAY_FACTORS`;
  :func:`ludor.rollouts.resample`), plays every candidate move on the same deal followed by
  everyone's play (compiled rollouts, :mod:`ludor.rollouts`: greedy, the other expert bots as that
  expert plays with a random move now and then, :data:`ludor.rollouts.NOISY`), and picks the move
  with the best weighted mean finishing reward, every candidate still in the running seeing every
  deal (one clearly worse than the best leaves it: :func:`ludor.simulation._survivors`); at most
  :data:`EXPERT_ROLLOUTS` simulated rounds or :data:`EXPERT_SECONDS` per decision.

Outside the play all levels vote alike (:func:`vote`) and give back their worst cards.
Asked out of turn (:data:`INTERRUPTS`), the expert may put the Autoplim down when that simulates
better than waiting; the other levels play it in turn only.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ludoteca.core.engine import JSON, Bot, Interrupt

from ludor.engine import HUMAN, ActionType
from ludor.greedy import AUTOPLIM_MOVE, NONE, PASS, Choice, greedy
from ludor.hierarchy import POWER_OF, RANK_NAMES, worst
from ludor.knowledge import Knowledge
from ludor.simulation import TODAY, Style, interrupt, search

EXPERT_ROLLOUTS = 2000
EXPERT_SECONDS = 0.035
"""The wall-clock cap of one decision: the search stops after its batch of deals that passes it,
so a decision takes at most about 50 ms of wall clock (the p99 target of issue 9) however loaded
the machine; on a quiet one the 2,000 simulations end first in nearly every decision (it was
0.25 s: on a machine shared by several agents the wall p99 then reached the cap, RULES.md
section 12)."""
INTERRUPT_ROLLOUTS = 400
INTERRUPT_SECONDS = 0.02
"""The budget of one out-of-turn question (two candidates: the Autoplim now, or wait)."""


def body(choice: Choice, hand: Sequence[str]) -> JSON:
    """The action body of an abstract choice (for a play: the weakest suits of each rank)."""
    if choice.kind == PASS:
        return {"type": ActionType.PASS}
    if choice.kind == AUTOPLIM_MOVE:
        return {"type": ActionType.PLAY_AUTOPLIM, "declare_plim": choice.plim}
    assert choice.take is not None
    need = list(choice.take)
    cards = []
    for c in hand:
        if need[POWER_OF[c]]:
            need[POWER_OF[c]] -= 1
            cards.append(c)
    if choice.named is not None:
        return {"type": ActionType.PLAY, "cards": cards, "rank": RANK_NAMES[choice.named]}
    return {"type": ActionType.PLAY, "cards": cards}


def vote(view: Mapping[str, Any]) -> bool:
    """Bots go along with the humans: they vote to end only when a strict majority of the
    humans' votes cast do (humans vote first), so the table ends the game exactly when its
    humans' majority would, and humans who split evenly play on (a majority of all seats ends
    the game; the bots never make one out of a split). With no human at the table they end the
    game unless a round limit is set (the limit will end it)."""
    humans = [v for v, kind in zip(view["votes"], view["players"], strict=True) if kind == HUMAN]
    if not humans:
        return view["options"]["round_limit"] is None
    cast = [v for v in humans if v is not None]
    return bool(2 * sum(cast) > len(cast))


def _outside_play(view: Mapping[str, Any], legal: Sequence[JSON]) -> JSON | None:
    """The vote and the exchange, the same for every level (None: a play decision)."""
    kinds = {a["type"] for a in legal}
    if ActionType.VOTE in kinds:
        return {"type": ActionType.VOTE, "end": vote(view)}
    if ActionType.GIVE_BACK in kinds:
        k = len(legal[0]["cards"])
        return {"type": ActionType.GIVE_BACK, "cards": sorted(worst(view["hand"], k), key=view["hand"].index)}
    return None


def chosen(decide: Callable[[Knowledge, random.Random], Choice]) -> Bot:
    def bot(view: JSON, legal: Sequence[JSON], rng: random.Random) -> JSON:
        fixed = _outside_play(view, legal)
        if fixed is not None:
            return fixed if fixed in legal else rng.choice(list(legal))
        if len(legal) == 1:  # nothing to decide (e.g. barred by the Autoplim's PLIM: pass)
            return legal[0]
        action = body(decide(Knowledge.from_view(view), rng), view["hand"])
        return action if action in legal else rng.choice(list(legal))
    return bot


def random_bot(view: JSON, legal: Sequence[JSON], rng: random.Random) -> JSON:
    return rng.choice(list(legal))


def _greedy(k: Knowledge, rng: random.Random) -> Choice:
    return greedy(k.counts, k.trick, k.seat, k.sizes, k.two_of_oros_played, k.rules, k.plim_on)


def make_expert(rollouts: int = EXPERT_ROLLOUTS, seconds: float = EXPERT_SECONDS, style: Style = TODAY) -> Bot:
    """An expert bot with its own simulation budget and :class:`ludor.simulation.Style`
    (:data:`ludor.simulation.V1`: the expert of before, the benchmark's baseline)."""
    return chosen(lambda k, rng: search(k, rng, rollouts, seconds, style))


def make_interrupt(rollouts: int = INTERRUPT_ROLLOUTS, seconds: float = INTERRUPT_SECONDS,
                   style: Style = TODAY) -> Interrupt:
    """The expert out of turn: holding the Autoplim, with another seat's play on the table, it
    simulates putting it down now (declaring the PLIM) against waiting, and acts only if now is
    better (:func:`ludor.simulation.interrupt`)."""
    def interrupt_bot(view: JSON, legal: Sequence[JSON], rng: random.Random) -> JSON | None:
        trick = view["trick"]
        if (view["phase"] != "play" or trick is None or trick["top"] is None or trick["turn"] == view["seat"]
                or trick["last_player"] == view["seat"]
                or not any(a["type"] == ActionType.PLAY_AUTOPLIM for a in legal)):
            return None
        choice = interrupt(Knowledge.from_view(view), rng, rollouts, seconds, style)
        if choice.kind == NONE:
            return None
        action = body(choice, view["hand"])
        return action if action in legal else None
    return interrupt_bot


greedy_bot = chosen(_greedy)
expert_bot = make_expert()

BOTS: dict[str, Bot] = {"random": random_bot, "greedy": greedy_bot, "expert": expert_bot}
INTERRUPTS: dict[str, Interrupt] = {"expert": make_interrupt()}
"""The levels that may act out of turn, and how (the others never do): the service asks them
after every move that leaves their seat holding the Autoplim (``GameDefinition.interrupts``,
``GameService.bot_turn``)."""
