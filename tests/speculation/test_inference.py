"""The expert's mathematics against brute force and computed facts: tier odds, the question count,
the joker solver and its book."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import combinations
from typing import Any

import numpy as np
import pytest
from speculation import book
from speculation.board import TIER_SIZE, VALUE_CARDS, Tier, value_of
from speculation.engine import JokerGuesses
from speculation.inference import Knowledge, joker_hands, tier_odds
from speculation.joker import GUESS_INDEX, HANDS, is_hand, score
from speculation.questions import expected_questions
from speculation.solver import JokerSolver, capacity


def knowledge(target: Tier, found: dict[Tier, tuple[int, ...]] | None = None,
              excluded: dict[Tier, set[int]] | None = None, answers: tuple[Any, ...] = ()) -> Knowledge:
    found = found or {}
    excluded = excluded or {}
    return Knowledge(target, {t: tuple(sorted(found.get(t, ()))) for t in Tier},
                     {t: frozenset(excluded.get(t, set())) for t in Tier}, answers)


def brute_force_odds(cleared: list[str], tier: Tier, history: list[tuple[int, str | None]]) -> dict[int, Fraction]:
    """P(yes) per value by enumerating every set of cards the tier could hold, each weighted by the
    chance of the observed history: a "yes" revealed the card it did with chance 1/(unfound copies)."""
    pool = [c for c in VALUE_CARDS if c not in cleared]
    weights: dict[int, Fraction] = Counter()
    total = Fraction(0)
    for held in combinations(pool, TIER_SIZE[tier]):
        unfound, like = list(held), Fraction(1)
        for value, card in history:
            copies = [c for c in unfound if value_of(c) == value]
            if card is None:
                like *= not copies
            else:
                like *= Fraction(1, len(copies)) if card in copies else 0
                if card in copies:
                    unfound.remove(card)
        if like:
            total += like
            for v in {value_of(c) for c in unfound}:
                weights[v] += like
    return {v: weights[v] / total for v in range(1, 11)}


class TestTierOdds:
    def test_nothing_known_jacks(self) -> None:
        odds = tier_odds(knowledge(Tier.JACKS))
        assert all(p == pytest.approx(37 / 190) for p in odds.values())  # 1 - C(18,2)/C(20,2)

    def test_the_second_copy_after_a_yes_is_half_as_likely(self) -> None:
        odds = tier_odds(knowledge(Tier.JACKS, found={Tier.JACKS: (5,)}))
        assert odds[5] == pytest.approx(1 / 37)  # not 1/19
        assert odds[4] == pytest.approx(4 / 37)

    @pytest.mark.parametrize(("cleared", "tier", "history"), [
        ([], Tier.JACKS, [(5, "5C"), (3, None)]),
        (["5C", "7S"], Tier.QUEENS, [(2, "2S"), (8, None), (2, None), (9, "9C")]),
        (["5C", "7S"], Tier.QUEENS, [(2, "2S"), (2, "2C"), (4, None)]),
        (["5C", "5S", "2C", "2S", "3C", "9C"], Tier.KINGS, [(1, "AC"), (1, None), (4, "4S"), (10, None)]),
        (["5C", "7S", "2C", "7C", "3C", "9C"], Tier.KINGS, [(7, None), (6, "6S"), (6, "6C"), (9, "9S")]),
    ])
    def test_matches_brute_force(self, cleared: list[str], tier: Tier, history: list[tuple[int, str | None]]) -> None:
        order = list(Tier)
        found: dict[Tier, list[int]] = {t: [] for t in Tier}
        sizes = [TIER_SIZE[t] for t in order[:order.index(tier)]]
        rest = list(cleared)
        for t, n in zip(order, sizes, strict=False):
            found[t] = [value_of(c) for c in rest[:n]]
            rest = rest[n:]
        found[tier] = [v for v, c in history if c is not None]
        k = knowledge(tier, {t: tuple(v) for t, v in found.items()},
                      {tier: {v for v, c in history if c is None}})
        exact = brute_force_odds(cleared, tier, history)
        odds = tier_odds(k)
        for v in range(1, 11):
            assert odds[v] == pytest.approx(float(exact[v]), abs=1e-12)


class TestQuestions:
    def test_greedy_is_optimal_and_within_target(self) -> None:
        greedy, optimal = expected_questions(greedy=True), expected_questions(greedy=False)
        assert greedy == pytest.approx(optimal, abs=1e-12)
        assert greedy == pytest.approx(27.3724, abs=1e-4)
        assert greedy <= 28.5


class TestJokerHands:
    def test_prior_after_the_tiers(self) -> None:
        k = knowledge(Tier.JOKER, {Tier.JACKS: (1, 2), Tier.QUEENS: (3, 4, 5, 6), Tier.KINGS: (1, 2, 3, 4, 7, 8)})
        hands, weights = joker_hands(k)
        # unseen: 5, 6, 7, 8 once; 9, 10 twice: 8 cards, C(8, 4) = 70 deals
        assert sum(weights) == pytest.approx(1.0)
        by_hand = dict(zip(hands, weights, strict=True))
        assert by_hand[(9, 9, 10, 10)] == pytest.approx(1 / 70)
        assert by_hand[(5, 6, 9, 10)] == pytest.approx(4 / 70)
        assert (1, 5, 6, 7) not in by_hand

    def test_answers_filter(self) -> None:
        k = knowledge(Tier.JOKER, {Tier.JACKS: (1, 2), Tier.QUEENS: (3, 4, 5, 6), Tier.KINGS: (1, 2, 3, 4, 7, 8)},
                      answers=(((5, 6, 9, 9), 2),))
        hands, _ = joker_hands(k)
        assert hands and all(score((5, 6, 9, 9), h) == 2 for h in hands)


class TestSolver:
    def test_capacity(self) -> None:
        assert [capacity(d) for d in range(1, 8)] == [1, 5, 21, 85, 341, 1365, 5461]

    def test_eight_distinct_unseen_values_need_six_guesses(self) -> None:
        hands, _ = book.prior(book.pattern_copies(0))
        cands = np.array(sorted(GUESS_INDEX[h] for h in hands))
        solver = JokerSolver()
        assert len(hands) == 70 and capacity(5) >= 70
        assert not solver.feasible(cands, 5) and solver.feasible(cands, 6)

    @pytest.mark.parametrize("pattern", [3, 4])
    def test_the_book_is_the_solvers_plan(self, pattern: int) -> None:
        hands, weights = book.prior(book.pattern_copies(pattern))
        tree = book.build_tree(JokerSolver(breadth=book.PLAY_BREADTH), hands, weights)
        assert tree == book.tree(JokerGuesses.ANY, pattern)


def book_depth(node: dict[str, Any], hand: tuple[int, ...], d: int = 1) -> int:
    if tuple(node["guess"]) == hand:
        return d
    return book_depth(node["then"][str(score(node["guess"], hand))], hand, d + 1)


def book_guesses(node: dict[str, Any]) -> list[tuple[int, ...]]:
    return [tuple(node["guess"])] + [g for c in node.get("then", {}).values() for g in book_guesses(c)]


class TestBook:
    @pytest.mark.parametrize("kind", list(JokerGuesses))
    def test_nothing_known_within_seven_and_the_target_mean(self, kind: JokerGuesses) -> None:
        tree = book.tree(kind, book.UNKNOWN)
        assert tree is not None, "build it: python -m speculation.book build"
        depths = [book_depth(tree, h) for h in HANDS]
        assert max(depths) == 7 and sum(depths) / len(depths) <= 6.05

    @pytest.mark.parametrize("kind", list(JokerGuesses))
    @pytest.mark.parametrize(("pattern", "worst"), [(0, 6), (1, 5), (2, 5), (3, 4), (4, 4)])
    def test_real_play_trees(self, kind: JokerGuesses, pattern: int, worst: int) -> None:
        tree = book.tree(kind, pattern)
        assert tree is not None
        hands, _weights = book.prior(book.pattern_copies(pattern))
        depths = [book_depth(tree, h) for h in hands]
        assert max(depths) == worst
        if kind is JokerGuesses.HANDS:
            assert all(is_hand(g) for g in book_guesses(tree))

    def test_real_play_mean_over_the_deal(self) -> None:
        """Exact: the patterns' chances times the trees' weighted means."""
        from math import comb
        mean = 0.0
        for n2 in book.PATTERNS:
            n1 = 8 - 2 * n2
            chance = comb(10, n2) * comb(10 - n2, n1) * 2 ** n1 / comb(20, 8)
            hands, weights = book.prior(book.pattern_copies(n2))
            tree = book.tree(JokerGuesses.ANY, n2)
            assert tree is not None
            mean += chance * sum(w * book_depth(tree, h) for h, w in zip(hands, weights, strict=True)) / sum(weights)
        assert mean <= 4.0

    def test_book_guess_maps_real_values(self) -> None:
        copies = {1: 0, 2: 1, 3: 2, 4: 0, 5: 1, 6: 0, 7: 2, 8: 1, 9: 0, 10: 1}
        guess = book.book_guess(JokerGuesses.ANY, copies, [])
        assert guess is not None
        canon = book.canonical_order(copies)
        root = book.tree(JokerGuesses.ANY, 2)
        assert root is not None
        assert sorted(canon[v] for v in guess) == root["guess"]
        assert book.book_guess(JokerGuesses.ANY, copies, [((1, 1, 1, 1), 0)]) is None  # off the book
