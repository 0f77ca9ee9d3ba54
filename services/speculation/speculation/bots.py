"""Speculation's bots: pure functions of their own view and legal actions.

- ``random``: any legal action, uniformly.
- ``basic``: never makes a guess that cannot be right: on a tier, a value not answered "no" there
  and with a copy not found yet; at the joker, a hand consistent with every answer so far.
- ``expert``: exact inference (:mod:`speculation.inference`). On a tier it guesses the value most
  likely to be there (an exact dynamic programme over the tiers shows this greedy rule is also
  optimal for the expected number of questions: 27.37 per board). At the joker it follows the
  joker book (:mod:`speculation.book`), i.e. the solver's plan: fewest guesses in the worst case,
  then fewest on average; off the book it asks the solver directly.

In the starting ritual the ``basic`` and ``expert`` bots report a typical number of clothing items
(4 to 7); a bot in the dressing race puts on an item (the only legal action; the engine lets a
bot act there only when no human is in the race).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache

from ludoteca.core.engine import JSON, Bot

from speculation.board import Tier
from speculation.book import allowed_guesses, book_guess
from speculation.engine import JokerGuesses
from speculation.inference import Knowledge, joker_hands, tier_odds
from speculation.joker import ALL_GUESSES, Hand, is_hand
from speculation.solver import JokerSolver

TYPICAL_ITEMS = (4, 7)
FALLBACK_BREADTH = 3


def random_bot(view: JSON, legal: Sequence[JSON], rng: random.Random) -> JSON:
    return dict(rng.choice(list(legal)))


def _ritual(legal: Sequence[JSON], rng: random.Random) -> JSON | None:
    """The clothing report or the race, for the bots that play them like a person."""
    kinds = {a["type"] for a in legal}
    if "report_clothing" in kinds:
        return {"type": "report_clothing", "items": rng.randint(*TYPICAL_ITEMS)}
    if "put_on_item" in kinds:
        return {"type": "put_on_item"}
    return None


def _joker_kind(legal: Sequence[JSON]) -> JokerGuesses:
    any_allowed = any(a["type"] == "guess_joker" and not is_hand(a["values"]) for a in legal)
    return JokerGuesses.ANY if any_allowed else JokerGuesses.HANDS


def _checked(action: JSON, legal: Sequence[JSON], rng: random.Random) -> JSON:
    """``action`` if it is legal (joker values in any order), else a random legal action."""
    norm = {**action, "values": sorted(action["values"])} if "values" in action else action
    return norm if norm in legal else random_bot({}, legal, rng)


def _guess_joker(values: Hand) -> JSON:
    return {"type": "guess_joker", "values": list(values)}


def basic_bot(view: JSON, legal: Sequence[JSON], rng: random.Random) -> JSON:
    ritual = _ritual(legal, rng)
    if ritual is not None:
        return ritual
    k = Knowledge.from_view(view)
    if k.target is Tier.JOKER:
        hands, _ = joker_hands(k)
        return _checked(_guess_joker(rng.choice(hands)), legal, rng)
    values = [v for v in range(1, 11) if k.is_possible(v)]
    return _checked({"type": "guess", "value": rng.choice(values)}, legal, rng)


@cache
def _solver(kind: JokerGuesses) -> JokerSolver:
    return JokerSolver(allowed_guesses(kind), breadth=FALLBACK_BREADTH)


def expert_joker_guess(k: Knowledge, kind: JokerGuesses) -> Hand:
    """The expert's joker guess: the book's, else the solver's."""
    hands, weights = joker_hands(k)
    if len(hands) == 1:
        return hands[0]
    copies = k.copies_outside(set(Tier))
    guess = book_guess(kind, copies, k.joker_answers)
    if guess is None:
        guess = ALL_GUESSES[_solver(kind).plan(hands, weights).guess]
    return guess


def expert_bot(view: JSON, legal: Sequence[JSON], rng: random.Random) -> JSON:
    ritual = _ritual(legal, rng)
    if ritual is not None:
        return ritual
    k = Knowledge.from_view(view)
    if k.target is Tier.JOKER:
        return _checked(_guess_joker(expert_joker_guess(k, _joker_kind(legal))), legal, rng)
    odds = tier_odds(k)
    best = max(odds.values())
    return _checked({"type": "guess", "value": rng.choice([v for v, p in odds.items() if p >= best - 1e-12])},
                    legal, rng)


BOTS: dict[str, Bot] = {"random": random_bot, "basic": basic_bot, "expert": expert_bot}
