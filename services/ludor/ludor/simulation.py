"""A fast model of the rest of a round, for the expert bot's simulations.

Hands are 15 counts (suits never matter in play); the trick follows :mod:`ludor.trick`, the same
code as the engine, so the model plays by the engine's rules. Only what the expert needs is
modelled: the round ends when one seat alone holds cards; seats act only in turn.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ludor import trick as flow
from ludor.combos import TWO_OF_OROS_PLAY, Ruleset, can_match, classify
from ludor.hierarchy import AUTOPLIM
from ludor.knowledge import Knowledge
from ludor.options import PLIM_ALWAYS, PLIM_OFF
from ludor.policy import AUTOPLIM_MOVE, PASS, Choice, candidates, greedy
from ludor.trick import Trick


@dataclass
class SimRound:
    hands: list[list[int]]
    trick: Trick
    finished: list[int]
    two_of_oros_played: bool
    rules: Ruleset
    plim_mode: str
    sizes: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sizes = [sum(h) for h in self.hands]

    @property
    def over(self) -> bool:
        return sum(1 for s in self.sizes if s) <= 1

    def apply(self, seat: int, choice: Choice) -> None:
        hand, trick = self.hands[seat], self.trick
        if choice.kind == PASS:
            flow.pass_turn(trick, seat, self.sizes)
        elif choice.kind == AUTOPLIM_MOVE:
            under = trick.top
            hand[AUTOPLIM] -= 1
            self.sizes[seat] -= 1
            target = flow.plim_target(trick, seat, self.sizes) if choice.plim else None
            hit = target is not None and under is not None and self.plim_mode != PLIM_OFF and (
                self.plim_mode == PLIM_ALWAYS or can_match(self.hands[target], under, self.rules))
            flow.autoplim(trick, seat, self.sizes, target if hit else None, self.two_of_oros_played)
        else:
            assert choice.take is not None
            combo = classify(choice.take, self.rules)
            assert combo is not None
            for p, k in enumerate(choice.take):
                hand[p] -= k
            self.sizes[seat] -= sum(choice.take)
            self.two_of_oros_played |= combo.kind == TWO_OF_OROS_PLAY
            flow.play(trick, seat, combo, self.sizes)
        if not self.sizes[seat] and seat not in self.finished:
            self.finished.append(seat)
        if self.over:
            self.finished.extend(s for s in range(len(self.sizes)) if self.sizes[s])
        elif trick.closed:
            assert trick.winner is not None
            leader = flow.next_with_cards(trick.winner, self.sizes, include_self=True)
            assert leader is not None
            self.trick = Trick(leader, leader)

    def rollout(self, seat: int) -> int:
        """Play on with every seat greedy until ``seat``'s finishing position (0 = first) is known."""
        plim_on = self.plim_mode != PLIM_OFF
        while seat not in self.finished:
            s = self.trick.turn
            self.apply(s, greedy(self.hands[s], self.trick, s, self.sizes, self.two_of_oros_played,
                                 self.rules, plim_on))
        return self.finished.index(seat)


def simulate(k: Knowledge, hands: Sequence[Sequence[int]], first: Choice) -> int:
    """The finishing position of ``k.seat`` if it plays ``first`` and all then play greedy."""
    trick = Trick(k.trick.leader, k.trick.turn, k.trick.top, k.trick.last, set(k.trick.passed),
                  set(k.trick.blocked))
    sim = SimRound([list(h) for h in hands], trick, list(k.finished), k.two_of_oros_played, k.rules,
                   k.plim_mode)
    sim.apply(k.seat, first)
    return sim.rollout(k.seat)


def reward(position: int, n: int) -> float:
    """1 for the Presidente down to 0 for the Culo, the first place weighted double."""
    return (n - 1 - position) / (n - 1) + (1.0 if position == 0 else 0.0)


def search(k: Knowledge, rng: random.Random, rollouts: int, seconds: float) -> Choice:
    """Determinized Monte Carlo: deal the unseen cards at random, try every candidate on the same
    deal (all seats greedy afterwards), and keep the candidate with the best mean reward. Stops
    after ``rollouts`` simulations or ``seconds``, whichever comes first (at least one deal)."""
    options = candidates(k.counts, k.trick, k.rules, k.plim_on)
    if len(options) == 1:
        return options[0]
    totals = [0.0] * len(options)
    deadline = time.perf_counter() + seconds
    done = 0
    while True:
        hands = k.sample(rng)
        for i, choice in enumerate(options):
            totals[i] += reward(simulate(k, hands, choice), k.n)
        done += len(options)
        if done + len(options) > rollouts or time.perf_counter() > deadline:
            break
    return options[max(range(len(options)), key=lambda i: (totals[i], -i))]
