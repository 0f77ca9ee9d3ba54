"""Fresh rules, written the way people write them, for measuring bots on what they have not seen.

A small grammar of its own (issue 26, item 3): statements about one card, the sum, the product,
the difference, both cards together, and quantified cards ("there is a face card", "neither card
is odd"), alone or joined as people join them ("A and B", "A or B", "A unless B", "if A, B", "A
but not B", "A and B, or C"), each with numbers drawn at random. Nothing here is used to build,
tune or test a bot: the catalogue (:mod:`ludic.catalogue`), the hypothesis space
(:mod:`ludic.space`) and ``tests/ludic/human_rules.txt`` are other lists, and a rule whose table
is in the catalogue or that list is drawn again. A seed draws a sequence of distinct rules, each
readable, with one meaning, and *playable* (1/8 to 7/8 of the 576 sets obey it, as the Vexer's
catalogue); ``tests/bench/bench_ludic_bots.py --quick`` draws from a new seed each run.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator

from ludic.catalogue import PLAYABLE
from ludic.language import RuleError
from ludic.rules import compile_checked

CARDS = ("the top card", "the bottom card")
COLORS = ("red", "black")
KINDS = ("even", "odd", "a face card", "a number card", "prime", "red", "black")
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king")
ABOVE = ("over", "above", "higher than", "greater than", "more than", "at least")
BELOW = ("under", "below", "lower than", "less than", "at most")

Draw = Callable[[random.Random], str]


def _card_statement(r: random.Random) -> str:
    card = r.choice(CARDS)
    form = r.randrange(6)
    if form == 0:
        return f"{card} is {r.choice(KINDS)}"
    if form == 1:
        return f"{card} is {r.choice(ABOVE + BELOW)} {r.randint(3, 11)}"
    if form == 2:
        a, b = sorted(r.sample(RANKS, 2), key=RANKS.index)
        return f"{card} is a {a} or a {b}"
    if form == 3:
        low = r.randint(2, 9)
        return f"{card} is between {low} and {r.randint(low + 2, 13)}"
    if form == 4:
        return f"{card} is a {r.choice(COLORS)} {r.choice(RANKS[6:])}"
    return f"{card} is {r.choice(('even', 'odd'))} and {r.choice(COLORS)}"


def _number_statement(r: random.Random) -> str:
    form = r.randrange(6)
    if form == 0:
        return f"the sum is {r.choice(ABOVE + BELOW)} {r.randint(8, 20)}"
    if form == 1:
        return f"the sum is {r.choice(('even', 'odd', 'prime'))}"
    if form == 2:
        return f"the product is {r.choice(ABOVE + BELOW)} {r.randrange(12, 100, 2)}"
    if form == 3:
        return f"the product is {r.choice(('even', 'odd', 'a multiple of 3', 'a multiple of 5'))}"
    if form == 4:
        return f"the difference is {r.choice(ABOVE + BELOW)} {r.randint(1, 7)}"
    return f"the cards add up to {r.choice(('more than', 'less than', 'at least', 'at most'))} {r.randint(9, 19)}"


def _pair_statement(r: random.Random) -> str:
    return r.choice((
        "the top card is higher than the bottom card", "the bottom card is higher than the top card",
        "the top card has a higher rank than the bottom card", "the cards are the same color",
        "the cards are different colors", "the cards have the same parity", "the cards are consecutive",
        "the cards are a pair", f"the cards differ by {r.randint(1, 6)}",
        f"the cards differ by at least {r.randint(2, 7)}", f"the cards are at most {r.randint(1, 5)} apart",
        "the top card divides the bottom card", "the top card is twice the bottom card",
        "one card is red and the other is black", "one card is even and the other is odd",
    ))


def _quantified_statement(r: random.Random) -> str:
    kind = r.choice(KINDS[:5])
    noun = {"even": "even card", "odd": "odd card", "a face card": "face card", "a number card": "number card",
            "prime": "prime card"}[kind]
    return r.choice((
        f"there is {'an' if noun[0] in 'aeiou' else 'a'} {noun}", f"there are no {noun}s",
        f"both cards are {kind}", f"neither card is {kind}", f"exactly one card is {kind}",
        f"at least one card is {kind}", f"the set contains a {r.choice(RANKS)}",
        f"the cards are all {r.choice(('red', 'black', 'even', 'odd'))}",
        f"there is a {r.choice(COLORS)} card {r.choice(ABOVE)} {r.randint(5, 11)}",
    ))


STATEMENTS: tuple[tuple[Draw, int], ...] = (
    (_card_statement, 4), (_number_statement, 3), (_pair_statement, 2), (_quantified_statement, 3))


def _statement(r: random.Random) -> str:
    draw: Draw = r.choices([d for d, _ in STATEMENTS], [w for _, w in STATEMENTS])[0]
    return draw(r)


def _text(r: random.Random) -> str:
    """One rule as a person might write it: a statement, or two or three joined."""
    shape = r.choices(("one", "and", "or", "unless", "if", "three"), (3, 3, 3, 1, 2, 2))[0]
    a = _statement(r)
    if shape == "one":
        return a
    b = _statement(r)
    if shape in ("and", "or"):
        return f"{a} {shape} {b}"
    if shape == "unless":
        return f"{a} unless {b}"
    if shape == "if":
        return f"if {a}, {b}"
    c = _statement(r)
    outer, inner = r.choice((("or", "and"), ("and", "or")))
    return f"{a} {inner} {b}, {outer} {c}"


def fresh_rules(seed: int, exclude: Iterable[int] = ()) -> Iterator[tuple[str, int]]:
    """Distinct playable rules (text, table) drawn from ``seed``, none with a table in ``exclude``."""
    r = random.Random(seed)
    seen = set(exclude)
    while True:
        text = _text(r)
        try:
            table = compile_checked(text)
        except RuleError:  # a few draws the language does not read ('exactly one card is odd and one card is
            continue  # red and the other is black'): drawn again (the benchmark counts them)
        if table.obey in seen or not PLAYABLE[0] <= table.count <= PLAYABLE[1]:
            continue
        seen.add(table.obey)
        yield text, table.obey


__all__ = ["fresh_rules"]
