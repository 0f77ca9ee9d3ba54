"""A Seeker's drill: one Seeker alone against a rule, with a deck that never runs out.

Used to *measure* Seekers (the difficulty of the Vexer catalogue's rules, the benchmark): in a real
round the deck lasts only a few turns, too few to tell how many observations a strategy needs. The
drill keeps the game's mechanics for one Seeker: two legal initial sets, a hand of 4 from the deck
pile, queries (two cards back), plays (right: two cards and a chance to guess; wrong: moved, no
cards), drawing with fewer than 4 cards, guesses judged by equivalence and answered, when wrong,
by a counterexample chosen at random (as the server does for a Vexer that does not choose). When
the deck is empty it is refilled with every deck-pile card not in the hand or the initial sets.

The Seeker is called with views and legal actions shaped exactly like the engine's.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ludoteca.core.engine import Bot

from ludic.rules import accept_guess
from ludic.universe import BREAK, OBEY, codes_for_set, deck_pile, members, set_of_codes

HAND = 4
HintPolicy = Callable[[dict[str, Any], int, list[int]], int]
"""How a Vexer picks a hint: (the public view, the rule's table, the counterexample sets) -> one set."""


@dataclass
class DrillResult:
    solved: bool = False
    queries: int = 0
    plays: int = 0
    guesses: int = 0
    draws: int = 0
    decision_seconds: list[float] = field(default_factory=list)

    @property
    def actions(self) -> int:
        """Queries, plays and guesses (the issue's measure)."""
        return self.queries + self.plays + self.guesses


def legal_initial_sets(rule: int, cards: list[str], rng: random.Random) -> tuple[tuple[str, str], tuple[str, str]]:
    """Two initial sets of four distinct cards for which ``rule`` is legal."""
    while True:
        a, b, c, d = rng.sample(cards, 4)
        if rule >> set_of_codes(a, b) & 1 and not rule >> set_of_codes(c, d) & 1:
            return (a, b), (c, d)


class _Drill:
    def __init__(self, rule: int, rng: random.Random) -> None:
        self.rule = rule
        self.rng = rng
        cards = deck_pile()
        obey, broken = legal_initial_sets(rule, cards, rng)
        self.reserved = {*obey, *broken}
        self.columns: dict[str, list[dict[str, Any]]] = {
            c: [{"face_up": True, "initial": True, "top": t, "bottom": b, "kind": "initial", "seat": None}]
            for c, (t, b) in ((OBEY, obey), (BREAK, broken))}
        self.hand: list[str] = []
        self.deck: list[str] = []
        self.log: list[dict[str, Any]] = []
        self.hints: list[dict[str, Any]] = []
        self.deal(HAND)

    def deal(self, n: int) -> None:
        for _ in range(n):
            if not self.deck:
                self.deck = [c for c in deck_pile() if c not in self.reserved and c not in self.hand]
                self.rng.shuffle(self.deck)
            self.hand.append(self.deck.pop())

    def view(self, phase: str) -> dict[str, Any]:
        return {"phase": phase, "you": 1, "role": "seeker", "vexer": 0, "turn": 1, "hand": list(self.hand),
                "columns": self.columns, "log": self.log, "hints": self.hints, "deck_count": len(self.deck),
                "last_phase": False}

    def legal(self, phase: str) -> list[dict[str, Any]]:
        if phase == "guess":
            return [{"type": "pass"}, {"type": "guess", "rule": "<rule>"}]
        pairs = [(a, b) for a in self.hand for b in self.hand if a != b]
        actions: list[dict[str, Any]] = [{"type": "query", "top": a, "bottom": b} for a, b in pairs]
        actions += [{"type": "play", "top": a, "bottom": b, "column": c} for a, b in pairs for c in (OBEY, BREAK)]
        if len(self.hand) < HAND:
            actions.append({"type": "draw"})
        return actions

    def column(self, top: str, bottom: str) -> str:
        return OBEY if self.rule >> set_of_codes(top, bottom) & 1 else BREAK

    def place(self, top: str, bottom: str, kind: str) -> str:
        column = self.column(top, bottom)
        self.hand.remove(top)
        self.hand.remove(bottom)
        self.columns[column].append({"face_up": True, "initial": False, "top": top, "bottom": bottom,
                                     "kind": kind, "seat": 1})
        return column

    def hint(self, guess: int, text: str, vexer: HintPolicy | None) -> None:
        wrong = members(self.rule ^ guess)
        s = self.rng.choice(wrong) if vexer is None else vexer({**self.view("turn"), "hints": []}, self.rule, wrong)
        top, bottom = codes_for_set(s)
        self.hints.append({"source": "slip", "top": top, "bottom": bottom, "obeys": bool(self.rule >> s & 1),
                           "guess": text})


def drill(rule: int, seeker: Bot, rng: random.Random, *, max_actions: int = 80,
          clock: Callable[[], float] | None = None, vexer: HintPolicy | None = None) -> DrillResult:
    """Run one Seeker against the rule with obey bitset ``rule`` until a correct guess (or
    ``max_actions``). ``clock`` (e.g. ``time.perf_counter``) times each decision. ``vexer`` picks
    each hint among the counterexamples (the Vexer bot's :func:`ludic.bots.least_telling`);
    without it the hint is random, as the server picks for a human Vexer."""
    game = _Drill(rule, rng)
    result = DrillResult()
    bot_rng = random.Random(rng.random())

    def decide(phase: str) -> dict[str, Any]:
        started = clock() if clock else 0.0
        action = seeker(game.view(phase), game.legal(phase), bot_rng)
        if clock:
            result.decision_seconds.append(clock() - started)
        return action

    while result.actions < max_actions:
        action = decide("turn")
        if action["type"] == "draw":
            result.draws += 1
            game.deal(2)
            continue
        top, bottom = action["top"], action["bottom"]
        if action["type"] == "query":
            result.queries += 1
            column = game.place(top, bottom, "query")
            game.log.append({"event": "query", "seat": 1, "top": top, "bottom": bottom, "column": column})
            game.deal(2)
            continue
        result.plays += 1
        correct = game.column(top, bottom) == action["column"]
        column = game.place(top, bottom, "play" if correct else "misplay")
        game.log.append({"event": "play", "seat": 1, "top": top, "bottom": bottom, "column": column,
                         "correct": correct})
        if not correct:
            continue
        game.deal(2)
        answer = decide("guess")
        if answer["type"] != "guess":
            continue
        result.guesses += 1
        guess = accept_guess(answer["rule"])
        correct = guess.obey == rule
        game.log.append({"event": "guess", "seat": 1, "rule": answer["rule"], "correct": correct})
        if correct:
            result.solved = True
            return result
        game.hint(guess.obey, answer["rule"], vexer)
    return result
