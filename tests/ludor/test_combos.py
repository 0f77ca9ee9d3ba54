"""The hierarchy and the combinations: what a play is, what it answers, when it is a PLIM, and
an oracle check that the engine lists exactly the plays it accepts (every subset of a hand)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ludor.combos import (
    AUTOPLIM_COMBO,
    SET,
    STRAIGHT,
    TWO_OF_OROS_COMBO,
    Combo,
    Ruleset,
    answers,
    can_match,
    classify,
    is_plim,
    ruleset,
)
from ludor.engine import NAMEABLE, LudorEngine
from ludor.hierarchy import (
    AS,
    AUTOPLIM,
    JOKER,
    POWER_OF,
    TWO,
    TWO_OF_OROS,
    best,
    build_deck,
    counts_of,
    deck_counts,
    sorted_cards,
    worst,
)
from ludoteca.core.errors import IllegalActionError

Table = Callable[..., Any]

PLAIN = ruleset()
STRAIGHTS = ruleset(straights=True)
STRAIGHTS_40 = ruleset(straights=True, short_deck=True)


class TestHierarchy:
    LOW_TO_HIGH = ["3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "11C", "12C", "1C", "2C", "JK1",
                   "Autoplim", "2O"]

    def test_the_text_order_low_to_high(self) -> None:
        powers = [POWER_OF[c] for c in self.LOW_TO_HIGH]
        assert powers == sorted(powers) and len(set(powers)) == len(powers)
        assert (POWER_OF["1C"], POWER_OF["2C"], POWER_OF["JK2"]) == (AS, TWO, JOKER)
        assert (POWER_OF["Autoplim"], POWER_OF["2O"]) == (AUTOPLIM, TWO_OF_OROS)

    @pytest.mark.parametrize("rank", ["3", "7", "10", "12", "1", "2"])
    def test_suits_do_not_matter_except_the_2_de_oros(self, rank: str) -> None:
        powers = {POWER_OF[rank + s] for s in "CEB"}
        assert len(powers) == 1 and (POWER_OF[rank + "O"] in powers) == (rank != "2")

    @pytest.mark.parametrize(("short", "size"), [(False, 51), (True, 43)])
    def test_decks(self, short: bool, size: int) -> None:
        deck = build_deck(short)
        assert len(deck) == len(set(deck)) == size
        assert {"JK1", "JK2", "Autoplim", "2O", "3O"} <= set(deck)
        assert ("8O" in deck) == (not short) and sum(deck_counts(short)) == size

    def test_best_and_worst(self) -> None:
        hand = ["3B", "3O", "12C", "JK1", "2O", "2E", "Autoplim"]
        assert best(hand, 2) == ["2O", "Autoplim"]
        assert best(["2E", "2C", "3O"], 1) == ["2E"]
        assert worst(hand, 2) == ["3O", "3B"]
        assert sorted_cards(hand) == ["3O", "3B", "12C", "2E", "JK1", "Autoplim", "2O"]


def combo(kind: int, rank: str, size: int) -> Combo:
    return Combo(kind, POWER_OF[rank] if rank not in ("JK", "AP") else {"JK": JOKER, "AP": AUTOPLIM}[rank], size)


class TestClassify:
    @pytest.mark.parametrize(("cards", "rules", "expected"), [
        ("7O", PLAIN, combo(SET, "7C", 1)),
        ("7O 7C 7E", PLAIN, combo(SET, "7C", 3)),
        ("7O JK1", PLAIN, combo(SET, "7C", 2)),
        ("7O JK1 JK2", PLAIN, combo(SET, "7C", 3)),
        ("JK1", PLAIN, combo(SET, "JK", 1)),
        ("JK1 JK2", PLAIN, combo(SET, "JK", 2)),
        ("2C 2E JK2", PLAIN, combo(SET, "2C", 3)),
        ("2O", PLAIN, TWO_OF_OROS_COMBO),
        ("2O 2C", PLAIN, None),
        ("2O JK1", PLAIN, None),
        ("Autoplim", PLAIN, None),
        ("7O 8C", PLAIN, None),
        ("5O 6C 7E", PLAIN, None),
        ("5O 6C 7E", STRAIGHTS, combo(STRAIGHT, "7C", 3)),
        ("5O 7C JK1", STRAIGHTS, combo(STRAIGHT, "7C", 3)),
        ("5O 6C JK1", STRAIGHTS, combo(STRAIGHT, "7C", 3)),
        ("5O 6C JK1 JK2", STRAIGHTS, combo(STRAIGHT, "8C", 4)),
        ("12O 1C JK1", STRAIGHTS, combo(STRAIGHT, "1C", 3)),
        ("11O 1C JK1 JK2", STRAIGHTS, combo(STRAIGHT, "1C", 4)),
        ("3O 4O 5O 6O 7O 8O 9O 10O 11O 12O 1O", STRAIGHTS, combo(STRAIGHT, "1C", 11)),
        ("5O 6C", STRAIGHTS, None),
        ("5O 8C JK1", STRAIGHTS, None),
        ("5O 5C 6E", STRAIGHTS, None),
        ("1C 2E 3O", STRAIGHTS, None),
        ("12C 1E 2C", STRAIGHTS, None),
        ("5O JK1 JK2", STRAIGHTS, combo(SET, "5C", 3)),
        ("7O 10C 11E", STRAIGHTS, None),
        ("7O 10C 11E", STRAIGHTS_40, combo(STRAIGHT, "11C", 3)),
        ("6O 7C JK1", STRAIGHTS_40, combo(STRAIGHT, "10C", 3)),
    ])
    def test_table(self, cards: str, rules: Ruleset, expected: Combo | None) -> None:
        assert classify(counts_of(cards.split()), rules) == expected


class TestAnswers:
    PAIR_7 = combo(SET, "7C", 2)

    @pytest.mark.parametrize(("top", "play", "ok", "plim"), [
        (None, combo(SET, "3C", 1), True, False),
        (PAIR_7, combo(SET, "8C", 2), True, False),
        (PAIR_7, combo(SET, "7C", 2), True, True),
        (PAIR_7, combo(SET, "6C", 2), False, False),
        (PAIR_7, combo(SET, "9C", 1), False, False),
        (PAIR_7, combo(SET, "9C", 3), False, False),
        (PAIR_7, combo(SET, "JK", 2), True, False),
        (PAIR_7, TWO_OF_OROS_COMBO, True, False),
        (combo(SET, "1C", 3), TWO_OF_OROS_COMBO, True, False),
        (combo(SET, "2C", 1), combo(SET, "JK", 1), True, False),
        (combo(SET, "JK", 1), combo(SET, "2C", 1), False, False),
        (combo(SET, "JK", 1), combo(SET, "JK", 1), True, True),
        (AUTOPLIM_COMBO, combo(SET, "JK", 1), False, False),
        (AUTOPLIM_COMBO, TWO_OF_OROS_COMBO, True, False),
        (combo(STRAIGHT, "7C", 3), combo(STRAIGHT, "7C", 3), True, True),
        (combo(STRAIGHT, "7C", 3), combo(STRAIGHT, "8C", 3), True, False),
        (combo(STRAIGHT, "7C", 3), combo(STRAIGHT, "9C", 4), False, False),
        (combo(STRAIGHT, "7C", 3), combo(SET, "9C", 3), False, False),
    ])
    def test_table(self, top: Combo | None, play: Combo, ok: bool, plim: bool) -> None:
        assert answers(top, play) == ok
        assert is_plim(top, play) == plim

    @pytest.mark.parametrize(("hand", "target", "rules", "ok"), [
        ("7E 7B", PAIR_7, PLAIN, True),
        ("7E JK1", PAIR_7, PLAIN, True),
        ("7E 9O", PAIR_7, PLAIN, False),
        ("JK1 JK2", PAIR_7, PLAIN, True),  # two jokers named 7s
        ("JK1 JK2", combo(SET, "JK", 2), PLAIN, True),
        ("5O 6C 9O JK1", combo(STRAIGHT, "7C", 3), STRAIGHTS, True),
        ("5O 9O", combo(STRAIGHT, "7C", 3), STRAIGHTS, False),
    ])
    def test_can_match(self, hand: str, target: Combo, rules: Ruleset, ok: bool) -> None:
        assert can_match(counts_of(hand.split()), target, rules) == ok


DECK = build_deck()
hands = st.lists(st.sampled_from(DECK), min_size=1, max_size=9, unique=True)


@settings(max_examples=25, deadline=None)
@given(lead=hands, answer=hands, straights=st.booleans(), pick=st.integers(0, 10_000))
def test_engine_lists_exactly_the_plays_it_accepts(engine: LudorEngine, table: Table, lead: list[str],
                                                   answer: list[str], straights: bool, pick: int) -> None:
    """Oracle: every subset of the answering hand is tried through ``apply`` (jokers alone also
    named every rank); the accepted ones are exactly the listed ``play`` bodies (on an empty
    table, then on a lead)."""
    answer = [c for c in answer if c not in lead] or [next(c for c in DECK if c not in lead)]
    rest = [c for c in DECK if c not in lead and c not in answer][:2]
    state = table([lead, answer, rest], options={"straights": straights})
    for seat, hand in ((0, lead), (1, answer)):
        listed = sorted((sorted(a["cards"]), a.get("rank", "")) for a in engine.legal_actions(state, seat)
                        if a["type"] == "play")
        accepted = []
        for k in range(1, len(hand) + 1):
            for cards in combinations(sorted(hand), k):
                jokers_alone = all(c.startswith("JK") for c in cards)
                for rank in ["", *(r for r in NAMEABLE[:-1] if jokers_alone)]:
                    body = {"type": "play", "cards": list(cards), **({"rank": rank} if rank else {})}
                    try:
                        engine.apply(state, seat, body)
                    except IllegalActionError:
                        continue
                    accepted.append((sorted(cards), rank))
        assert listed == sorted(accepted)
        if seat == 0:
            plays = [a for a in engine.legal_actions(state, 0) if a["type"] == "play"]
            if not plays:
                return
            state, _ = engine.apply(state, 0, plays[pick % len(plays)])
            if state.trick is None or state.trick.turn != 1:
                return
