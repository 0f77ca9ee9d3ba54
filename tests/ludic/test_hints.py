"""The hints the Vexer may give, built one at a time (:mod:`ludic.hints`), are exactly the ones
the whole listing gave, in its order: the server's random pick draws the same hint."""

from __future__ import annotations

import random

import pytest
from ludic.hints import HintOption, _unseen_options
from ludic.state import HintSource
from ludic.universe import ALL, SETS, codes_for_set, hintbook_pile, members, set_index, type_index


def listed(hintbook: tuple[str, ...], rule: int, wrong: int) -> tuple[HintOption, ...]:
    """Every hint as the engine listed them before they were built on demand."""
    types = [(code, type_index(code)) for code in hintbook]
    book = tuple(HintOption(HintSource.HINTBOOK, top, bottom, bool(rule >> s & 1))
                 for top, t in types for bottom, b in types
                 if top != bottom and wrong >> (s := set_index(t, b)) & 1)
    if book:
        return book
    return tuple(HintOption(HintSource.SLIP, *codes_for_set(s), obeys=bool(rule >> s & 1)) for s in members(wrong))


def cases() -> list[tuple[tuple[str, ...], int, int]]:
    rnd = random.Random(7)
    pile = hintbook_pile()
    out = []
    for size in (0, 1, 2, 3, 7, 16, 24):
        for density in (0.0, 0.01, 0.3, 1.0):
            book = tuple(rnd.sample(pile, size))
            rule = rnd.getrandbits(SETS)
            wrong = ALL if density == 1.0 else sum(1 << s for s in range(SETS) if rnd.random() < density)
            if wrong:  # a guess that no set contradicts was accepted
                out.append((book, rule, wrong))
    return out


@pytest.mark.parametrize(("hintbook", "rule", "wrong"), cases())
def test_the_hints_are_listed_in_the_same_order(hintbook: tuple[str, ...], rule: int, wrong: int) -> None:
    expected = listed(hintbook, rule, wrong)
    options = _unseen_options.__wrapped__(hintbook, rule, wrong)
    assert len(options) == len(expected) and bool(options)
    assert tuple(options) == expected
    assert [options[i] for i in range(len(options))] == list(expected)
    assert options[-1] == expected[-1] and tuple(options[1:3]) == expected[1:3]
    with pytest.raises(IndexError):
        options[len(options)]
