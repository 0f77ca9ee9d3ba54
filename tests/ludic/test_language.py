"""The rule language: the text's examples, error positions, ambiguity, and truth tables checked
against an independent brute-force oracle over the 576 sets."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ludic import suggest
from ludic.language import RuleError, parse, render
from ludic.rules import InitialSets, accept_guess, accept_rule, check
from ludic.suggest import keeps_meaning
from ludic.tables import table_of
from ludic.universe import ALL, SETS, TWINS, CardType, set_of_codes, split_set

# The diagram of the text is lost; these initial sets are the only ones consistent with all its
# examples (deduced in RULES.md): 'obey' = queen of hearts over 4 of spades, 'break' = jack of
# spades over 3 of hearts.
DIAGRAM = InitialSets(set_of_codes("QH", "4S"), set_of_codes("JS", "3H"))

TEXT_RULES = [
    "The bottom card is black",
    "the top card is red",
    "the top card is even",
    "the bottom card is even",
    "both cards are even",
    "The total is 15 or more",
    "The total is a multiple of 4",
    "the total is not 14",
    "The top card is divisible by the bottom card",
    "A red card outranks a black card",
    "neither card is prime",
]

TEXT_COUNTEREXAMPLES = [
    ("The top card is a face card", "illegal", "the 'break' column obeys"),
    ("The difference between the cards is 6", "illegal", "the 'obey' column breaks"),
    ("The bottom card is red", "illegal", "'obey' breaks, 'break' obeys"),
    ("The top card in the 'obey' column is greater than the top card in the 'break' column",
     "external", "external relationship"),
]


def _prime(n: int) -> bool:
    return n > 1 and all(n % d for d in range(2, n))


Oracle = Callable[[CardType, CardType], bool]
ORACLES: dict[str, Oracle] = {
    "The bottom card is black": lambda t, b: not b.red,
    "the top card is red": lambda t, b: t.red,
    "both cards are even": lambda t, b: t.rank % 2 == 0 and b.rank % 2 == 0,
    "The total is 15 or more": lambda t, b: t.rank + b.rank >= 15,
    "The total is a multiple of 4": lambda t, b: (t.rank + b.rank) % 4 == 0,
    "the total is not 14": lambda t, b: t.rank + b.rank != 14,
    "The top card is divisible by the bottom card": lambda t, b: t.rank % b.rank == 0,
    "A red card outranks a black card": lambda t, b: (t.red and not b.red and t.rank > b.rank)
    or (b.red and not t.red and b.rank > t.rank),
    "neither card is prime": lambda t, b: not _prime(t.rank) and not _prime(b.rank),
    "The difference between the cards is 6": lambda t, b: abs(t.rank - b.rank) == 6,
    "exactly one card is a face card": lambda t, b: (t.rank > 10) != (b.rank > 10),
    "the cards have different ranks and the high card is red": lambda t, b: t.rank != b.rank
    and (t.red if t.rank > b.rank else b.red),
    "some card outranks the other card": lambda t, b: t.rank != b.rank,
    "every red card is odd": lambda t, b: (not t.red or t.rank % 2 == 1) and (not b.red or b.rank % 2 == 1),
    "no black card is greater than 9": lambda t, b: not ((not t.red and t.rank > 9) or (not b.red and b.rank > 9)),
    "the remainder of the top card divided by 3 is the bottom card mod 3": lambda t, b: t.rank % 3 == b.rank % 3,
    "the product is odd or the difference is at most 2": lambda t, b: (t.rank * b.rank) % 2 == 1
    or abs(t.rank - b.rank) <= 2,
    "if the top card is red then the bottom card is a king": lambda t, b: not t.red or b.rank == 13,
    "the top card is a red 7 or the bottom card is a black queen": lambda t, b: (t.red and t.rank == 7)
    or (not b.red and b.rank == 12),
    "the top card has the same color as the bottom card": lambda t, b: t.red == b.red,
    "the bottom card divides 12": lambda t, b: 12 % b.rank == 0,
    "the top card is between 4 and 8": lambda t, b: 4 <= t.rank <= 8,
    "the sum is prime": lambda t, b: _prime(t.rank + b.rank),
    "some card is a perfect square": lambda t, b: t.rank in (4, 9) or b.rank in (4, 9),
    "the top card * 2 > the bottom card + 5": lambda t, b: t.rank * 2 > b.rank + 5,
    "the cards have the same parity": lambda t, b: t.rank % 2 == b.rank % 2,
    "the top card outranks every card": lambda t, b: t.rank > b.rank,
    "the sum is greater than every card": lambda t, b: True,
    "at least one card is a face card and (the cards have the same rank or the low card is a pip card)":
    lambda t, b: (t.rank > 10 or b.rank > 10) and (t.rank == b.rank or min(t.rank, b.rank) <= 10),
}


def oracle_mask(oracle: Oracle) -> int:
    mask = 0
    for s in range(SETS):
        top, bottom = (CardType.from_index(t) for t in split_set(s))
        if oracle(top, bottom):
            mask |= 1 << s
    return mask


class TestUniverse:
    def test_576_sets_24_twins(self) -> None:
        assert ALL.bit_count() == 576 and TWINS.bit_count() == 24

    def test_set_index_of_codes(self) -> None:
        top, bottom = split_set(set_of_codes("QH", "4S"))
        assert CardType.from_index(top) == CardType(12, True)
        assert CardType.from_index(bottom) == CardType(4, False)


class TestTextExamples:
    @pytest.mark.parametrize("text", TEXT_RULES)
    def test_every_example_rule_is_accepted(self, text: str) -> None:
        table = accept_rule(text, DIAGRAM)
        assert not table.is_ambiguous

    @pytest.mark.parametrize(("text", "reason", "why"), TEXT_COUNTEREXAMPLES)
    def test_every_rule_that_would_not_work_is_rejected_with_the_text_reason(
            self, text: str, reason: str, why: str) -> None:
        with pytest.raises(RuleError) as caught:
            accept_rule(text, DIAGRAM)
        assert caught.value.reason == reason
        assert why in str(caught.value)

    def test_the_external_rule_error_points_at_the_outside_word(self) -> None:
        with pytest.raises(RuleError) as caught:
            parse(TEXT_COUNTEREXAMPLES[3][0])
        assert (caught.value.line, caught.value.column) == (1, 22)

    def test_suits_are_refused(self) -> None:
        with pytest.raises(RuleError) as caught:
            parse("the top card is a heart")
        assert caught.value.reason == "suit"


class TestTruthTables:
    @pytest.mark.parametrize("text", sorted(ORACLES))
    def test_table_matches_brute_force_oracle(self, text: str) -> None:
        table = table_of(text)
        assert not table.is_ambiguous
        assert table.obey == oracle_mask(ORACLES[text])

    @pytest.mark.parametrize("text", sorted(ORACLES) + TEXT_RULES)
    def test_render_parses_back_to_the_same_table(self, text: str) -> None:
        assert table_of(render(parse(text))) == table_of(text)

    @pytest.mark.parametrize(("a", "b"), [
        ("the top card is red", "the top card is not black"),
        ("the top card is red", "not (the top card is black)"),
        ("The total is 15 or more", "top + bottom > 14"),
        ("The total is 15 or more", "the sum is greater than or equal to 15"),
        ("the top card is less than or equal to 6", "the top card is 6 or less"),
        ("the sum >= 15", "it is not the case that the total is less than 15"),
        ("exactly one card is red", "the cards are different colors"),
        ("both cards are red", "every card is red"),
        ("both cards are red", "the top card is red and the bottom card is red"),
        ("neither card is a face card", "no card is a face card"),
        ("neither card is a face card", "both cards are pip cards"),
        ("some card outranks some card", "the cards do not have the same rank"),
        ("the top card is divisible by the bottom card", "the bottom card divides the top card"),
        ("the top card is outranked by the bottom card", "the bottom card outranks the top card"),
        ("the cards have different ranks and the value of the high card is the top card",
         "the top card outranks the bottom card"),
    ])
    def test_equivalent_wordings(self, a: str, b: str) -> None:
        assert table_of(a).is_equivalent(table_of(b))

    @pytest.mark.parametrize(("text", "count"), [
        ("the top card is red", 288), ("both cards are even", 144), ("the cards have the same rank", 48),
        ("The difference between the cards is 6", 2 * 6 * 4), ("the top card is a face card", 144),
    ])
    def test_counts(self, text: str, count: int) -> None:
        assert table_of(text).count == count


class TestAmbiguity:
    @pytest.mark.parametrize("text", [
        "the high card is red",
        "the high card is even",
        "the low card is a pip card or the top card is red",
        "the top card mod (the top card - the bottom card) is 0",
        "the sum is divisible by the difference",
    ])
    def test_ambiguous(self, text: str) -> None:
        assert table_of(text).is_ambiguous
        with pytest.raises(RuleError) as caught:
            accept_guess(text)
        assert caught.value.reason == "ambiguous" and "clarification" in str(caught.value)

    @pytest.mark.parametrize("text", [
        "the cards have different ranks and the high card is red",
        "the cards have the same rank or the high card is red",
        "if the cards have different ranks then the low card is black",
        "the top card is red or the top card is black or the high card is red",
    ])
    def test_guarded_high_and_low_are_defined(self, text: str) -> None:
        assert not table_of(text).is_ambiguous

    def test_high_is_undefined_exactly_on_equal_ranks(self) -> None:
        assert table_of("the high card is red").undefined == table_of("the cards have the same rank").obey


class TestErrors:
    @pytest.mark.parametrize(("text", "line", "column", "expects"), [
        ("top is purple", 1, 8, "'red'"),
        ("the top card is", 1, 16, "a number"),
        ("the top card is red\nand bottom is greenish", 2, 15, "'black'"),
        ("top is red the bottom", 1, 12, "'and'"),
        ("the sum is more 3", 1, 12, "'greater than'"),
    ])
    def test_line_column_and_expected(self, text: str, line: int, column: int, expects: str) -> None:
        with pytest.raises(RuleError) as caught:
            parse(text)
        error = caught.value
        assert (error.line, error.column) == (line, column)
        assert expects in error.expected
        assert f"line {line}, column {column}" in str(error)

    @pytest.mark.parametrize(("text", "words"), [
        ("the sum is red", "describes a card"),
        ("the sum is greater than the other card", "needs a card"),
        ("the sum has the same color as the top card", "only cards have a color"),
        ("some card has the same color", "the cards"),
        ("the top card is 5000", "numbers above"),
    ])
    def test_words_that_do_not_fit_together(self, text: str, words: str) -> None:
        with pytest.raises(RuleError) as caught:
            parse(text)
        assert caught.value.reason == "type" and words in str(caught.value)

    def test_empty_rule(self) -> None:
        with pytest.raises(RuleError):
            parse("   ")


class TestChecker:
    def test_report_of_a_legal_rule(self) -> None:
        report = check("A red card outranks a black card", DIAGRAM)
        assert report["valid"] and report["legal"] and report["ambiguous"] is False
        assert report["obeying_sets"] == 132

    def test_report_of_an_illegal_rule(self) -> None:
        report = check("The bottom card is red", DIAGRAM)
        assert not report["valid"] and report["legal"] is False
        assert report["errors"][0]["reason"] == "illegal"

    def test_report_of_a_syntax_error(self) -> None:
        report = check("top is purple")
        assert report["errors"][0]["column"] == 8 and report["obeying_sets"] is None


# ---- exact arithmetic ---------------------------------------------------------------------------
E = "(512 * 512 * 512 * 32)"
"""2^32: in 64-bit integers E * E wraps around to 0."""


def _oracle_value(expr: Any, top: CardType, bottom: CardType) -> int | None:
    """The exact value of an expression tree over one set (None: a remainder by zero)."""
    kind = expr[0]
    if kind == "const":
        return int(expr[1])
    if kind == "card":
        return top.rank if expr[1] == "top" else bottom.rank
    if kind == "sum":
        return top.rank + bottom.rank
    if kind == "product":
        return top.rank * bottom.rank
    left, right = _oracle_value(expr[1], top, bottom), _oracle_value(expr[2], top, bottom)
    if left is None or right is None:
        return None
    if kind == "+":
        return left + right
    if kind == "-":
        return left - right
    if kind == "*":
        return left * right
    return None if right == 0 else left % right


def _expr_text(expr: Any) -> str:
    kind = expr[0]
    if kind == "const":
        return str(expr[1])
    if kind == "card":
        return f"the {expr[1]} card"
    if kind in ("sum", "product"):
        return f"the {kind}"
    return f"({_expr_text(expr[1])} {kind} {_expr_text(expr[2])})"


EXPRESSIONS = st.recursive(
    st.one_of(st.tuples(st.just("const"), st.integers(0, 1000)),
              st.tuples(st.just("card"), st.sampled_from(["top", "bottom"])),
              st.tuples(st.sampled_from(["sum", "product"]))),
    lambda inner: st.tuples(st.sampled_from(["+", "-", "*", "mod"]), inner, inner),
    max_leaves=12,
)


class TestExactArithmetic:
    def test_a_product_past_64_bits_does_not_wrap_around(self) -> None:
        assert table_of(f"{E} * {E} = 0").obey == 0
        assert table_of(f"{E} * {E} = {E} * {E}").obey == ALL
        assert table_of(f"{E} * {E} * the top card > {E} * {E} * 12").obey == oracle_mask(lambda t, b: t.rank == 13)

    def test_huge_values_are_compared_exactly(self) -> None:
        huge = " * ".join(["1000"] * 30)  # 10^90
        assert table_of(f"{huge} + the top card - {huge} = the top card").obey == ALL
        assert table_of(f"({huge} + 1) mod 7 = {(10**90 + 1) % 7}").obey == ALL
        assert table_of(f"{huge} * the bottom card is even").obey == ALL
        above_14 = oracle_mask(lambda t, b: t.rank + b.rank > 14)
        assert table_of(f"({huge} + 1) * (the sum - 14) is at least 1").obey == above_14

    def test_parity_squares_and_primes_of_large_values(self) -> None:
        assert table_of(f"{E} * {E} + 1 is odd").obey == ALL
        assert table_of(f"{E} * {E} is a square").obey == ALL
        assert table_of(f"{E} * {E} + 1 is a square").obey == 0
        # 2^61 - 1 is a Mersenne prime; 2^64 + 1 = 274177 x 67280421310721 is not.
        assert table_of("(512 * 512 * 512 * 512 * 512 * 512 * 128) - 1 is prime").obey == ALL
        assert table_of(f"{E} * {E} + 1 is prime").obey == 0

    def test_primality_beyond_the_exact_test_is_refused(self) -> None:
        with pytest.raises(RuleError) as caught:
            table_of(" * ".join(["1000"] * 10) + " + 1 is prime")
        assert caught.value.reason == "size"

    @settings(max_examples=150, deadline=None)
    @given(EXPRESSIONS, st.sampled_from(["=", ">", "<="]), st.integers(0, 60))
    def test_random_expressions_match_exact_python_integers(self, expr: Any, op: str, k: int) -> None:
        text = f"{_expr_text(expr)} {op} {k}"
        if expr[0] == "card" and op == "=" and not 2 <= k <= 13:  # a rank not in play, refused like an ace
            with pytest.raises(RuleError) as caught:
                table_of(text)
            assert caught.value.reason == "type" and "not a card's rank" in caught.value.message
            return
        table = table_of(text)
        compare = {"=": lambda v: v == k, ">": lambda v: v > k, "<=": lambda v: v <= k}[op]
        obey = undefined = 0
        for s in range(SETS):
            top, bottom = (CardType.from_index(t) for t in split_set(s))
            value = _oracle_value(expr, top, bottom)
            if value is None:
                undefined |= 1 << s
            elif compare(value):
                obey |= 1 << s
        assert (table.obey, table.undefined) == (obey, undefined), text


# ---- natural English: each phrasing means exactly its canonical rule -----------------------------
NATURAL = [
    # several predicates for one subject ("a king or a queen", "red or black", "odd and red")
    ("the top card is a king or a queen", "the top card is a king or the top card is a queen"),
    ("the top card is king or queen", "the top card is 13 or the top card is 12"),
    ("the top card is a jack, a queen or a king", "the top card is a face card"),
    ("the sum is 14 or 15", "the sum is 14 or the sum is 15"),
    ("the sum is 14, 15 or 16", "the sum is between 14 and 16"),
    ("the bottom card is red or black and the top card is odd", "the top card is odd"),
    ("the top card is odd and red", "the top card is red and the top card is odd"),
    ("the top card is odd and red or the sum is 14", "(the top card is odd and the top card is red) or the sum is 14"),
    ("the top card is red and even, or the sum is 14",
     "(the top card is red and the top card is even) or the sum is 14"),
    ("the top card is a red face card or a black pip card",
     "(the top card is red and the top card is a face card) or (the top card is black and the top card is a pip card)"),
    ("the top card is greater than 5 and less than 10", "the top card is between 6 and 9"),
    ("the top card is red but not a king", "the top card is red and the top card is not a king"),
    ("the top card is red or is a king", "the top card is red or the top card is a king"),
    ("the top card is not a king or a queen", "not (the top card is a king or the top card is a queen)"),
    ("the top card isn't a king or a queen", "the top card is not a king and the top card is not a queen"),
    ("the top card is neither red nor a face card", "the top card is black and the top card is a pip card"),
    ("the top card is not red and not even", "the top card is black and the top card is odd"),
    ("both cards are red or black", "the top card is red or the top card is black"),
    ("both cards are odd or red", "(the top card is odd or the top card is red) and "
     "(the bottom card is odd or the bottom card is red)"),
    ("neither card is red or a king", "no card is red and no card is a king"),
    ("some card is red and even", "the top card is red and the top card is even or "
     "the bottom card is red and the bottom card is even"),
    ("every red card is odd or a king", "(if the top card is red then the top card is odd or the top card is a king) "
     "and (if the bottom card is red then the bottom card is odd or the bottom card is a king)"),
    # compound subjects
    ("the top card and the bottom card are red", "both cards are red"),
    ("the top and bottom cards are red", "the top card is red and the bottom card is red"),
    ("the top card or the bottom card is a king", "some card is a king"),
    ("either the top card or the bottom card is a king", "at least one card is a king"),
    ("the sum of the top card and the bottom card is 10", "the top card + the bottom card = 10"),
    ("the top card and the bottom card have the same color", "the cards have the same color"),
    ("they are the same color", "the top card has the same color as the bottom card"),
    # one ... the other
    ("one card is red and the other is black", "exactly one card is red"),
    ("one card is a face card and the other is a pip card", "exactly one card is a face card"),
    ("one card is even and the other card is odd", "the cards have different parities"),
    ("one card is a king and the other is a 2", "the top card is a king and the bottom card is 2 or "
     "the top card is 2 and the bottom card is a king"),
    ("the top card is red and the other card is black", "the top card is red and the bottom card is black"),
    ("the high card is red and the other is black", "the high card is red and the low card is black"),
    # quantified subjects without 'card'
    ("one of the cards is red", "some card is red"),
    ("at least one of the cards is a face card", "some card is a face card"),
    ("exactly one of the cards is even", "exactly one card is even"),
    ("none of the cards is a king", "no card is a king"),
    ("both are red", "both cards are red"),
    ("both of them are even", "every card is even"),
    ("neither is prime", "neither card is prime"),
    ("either is a king", "some card is a king"),
    ("the cards are both red", "both cards are red"),
    # negation
    ("the top card isn't red", "the top card is not red"),
    ("the cards aren't the same color", "the cards are different colors"),
    ("the sum isn't 14", "the sum is not 14"),
    ("the top card doesn't divide the bottom card", "the top card does not divide the bottom card"),
    # comparisons in words
    ("the sum is over 14", "the sum > 14"),
    ("the sum is under 10", "the sum < 10"),
    ("the sum exceeds 14", "the sum is greater than 14"),
    ("the sum does not exceed 14", "the sum is at most 14"),
    ("the sum equals 14", "the sum is 14"),
    ("the top card equals the bottom card", "the cards have the same rank"),
    ("the top card beats the bottom card", "the top card outranks the bottom card"),
    ("the top card is beaten by the bottom card", "the bottom card outranks the top card"),
    ("the sum is no more than 12", "the sum is at most 12"),
    ("the sum is not less than 12", "the sum is at least 12"),
    ("the total is fifteen or over", "the sum is at least 15"),
    ("the top card is the same as the bottom card", "the cards have the same rank"),
    ("the top card is 2 more than the bottom card", "the top card - the bottom card = 2"),
    ("the top card is three less than the bottom card", "the bottom card - the top card = 3"),
    # number words
    ("the top card is seven", "the top card is 7"),
    ("the top card is a seven", "the top card is 7"),
    ("both cards are sevens", "both cards are 7"),
    ("the sum is twenty-one", "the sum is 21"),
    ("the sum is twenty one or more", "the sum is at least 21"),
    ("the top card is a red ten", "the top card is a red 10"),
    ("the difference is one", "the difference is 1"),
    # consecutive, differ by, a pair
    ("the cards are consecutive", "the difference is 1"),
    ("the ranks are consecutive", "the difference is 1"),
    ("the cards are not consecutive", "the difference is not 1"),
    ("the cards differ by 3", "the difference is 3"),
    ("the cards differ by at least 3", "the difference >= 3"),
    ("the cards differ by more than 3", "the difference > 3"),
    ("the cards differ by 1 or 2", "the difference is 1 or the difference is 2"),
    ("the cards do not differ by 3", "the difference is not 3"),
    ("the top card and the bottom card differ by 3", "the difference is 3"),
    ("the cards are a pair", "the cards have the same rank"),
    ("the cards form a pair", "the cards have the same rank"),
    ("the cards do not form a pair", "the cards are different ranks"),
    ("the set is a pair", "the top card = the bottom card"),
    # number cards
    ("the top card is a number card", "the top card is a pip card"),
    ("the top card is a red number card", "the top card is red and the top card is a pip card"),
    ("every number card is red", "every pip card is red"),
    ("both cards are number cards", "neither card is a face card"),
    # commas, if, unless, either
    ("the top card is red, the bottom card is black", "the top card is red and the bottom card is black"),
    ("the top card is red, the bottom card is black, or the sum is 10",
     "the top card is red or the bottom card is black or the sum is 10"),
    ("if the top card is red, the bottom card is black", "if the top card is red then the bottom card is black"),
    ("if the top card is red, then the bottom card is black", "the top card is black or the bottom card is black"),
    ("the bottom card is black if the top card is red", "if the top card is red then the bottom card is black"),
    ("the bottom card is even unless the top card is red", "the bottom card is even or the top card is red"),
    ("unless the top card is red, the bottom card is even", "the top card is red or the bottom card is even"),
    ("either the top card is red or the bottom card is odd", "the top card is red or the bottom card is odd"),
    ("The top card is red.", "the top card is red"),
    # ellipsis, 'it', 'but not both', 'if not', 'or over' lists
    ("the top card is between 4 and 9 and the bottom card is not",
     "the top card is between 4 and 9 and not (the bottom card is between 4 and 9)"),
    ("the top card is a prime and the bottom card is not, or the sum is 12",
     "the top card is prime and the bottom card is not prime or the sum is 12"),
    ("the top card is odd, or it is even and the bottom card is red", "the top card is odd or the bottom card is red"),
    ("the top card is red or the bottom card is black, but not both",
     "the top card has the same color as the bottom card"),
    ("if the top card is a face card then the bottom card is red, and if not then the bottom card is black",
     "the top card is a face card and the bottom card is red or "
     "the top card is a pip card and the bottom card is black"),
    ("if the top card is red, the bottom card is odd, otherwise it is even",
     "the top card is red and the bottom card is odd or the top card is black and the bottom card is even"),
    ("the sum is over 20 or under 8", "the sum > 20 or the sum < 8"),
    ("the top card is under 5 or over 10, and the bottom card is red",
     "(the top card < 5 or the top card > 10) and the bottom card is red"),
    ("at least one of the cards is a face card and the other is a number card", "exactly one card is a face card"),
    # counted cards, 'add up to', 'apart', 'of the same colour', a shared offset
    ("at most one card is red", "neither card is red or exactly one card is red"),
    ("at most one red card is odd", "not (both cards are red and both cards are odd)"),
    ("one card is a king", "some card is a king"),
    ("two cards are even", "both cards are even"),
    ("the cards add up to 14", "the sum is 14"),
    ("the cards sum to at least 20", "the sum is at least 20"),
    ("the top and bottom cards add up to 10", "the top card + the bottom card = 10"),
    ("the cards are 3 apart", "the cards differ by 3"),
    ("the cards are of the same colour", "the cards have the same color"),
    ("the cards are of different ranks", "the cards are not a pair"),
    ("the top card is 2 or 3 more than the bottom card",
     "the top card is 2 more than the bottom card or the top card is 3 more than the bottom card"),
]


NEAREST = {
    "the cards are same color": "the cards have the same color",
    "the top card is greater then 5": "the top card is greater than 5",
    "one card is red and the other black": "one card is red and the other is black",
    "or a queen": "the top card is a queen",
    "the top card is a heart": "the top card is red",
    "the top card is a king or a qeen": "the top card is a king or a queen",
    "the top card is red or": "the top card is red",
    "the cards sums to 14": "the cards sum to 14",
    "the cards add up 14": "the cards add up to 14",
}
HUMAN_RULES = Path(__file__).with_name("human_rules.txt")


class TestNaturalEnglish:
    @pytest.mark.parametrize(("natural", "canonical"), NATURAL)
    def test_same_table_as_the_canonical_rule(self, natural: str, canonical: str) -> None:
        assert table_of(natural) == table_of(canonical), (natural, render(parse(natural)))

    @pytest.mark.parametrize(("natural", "canonical"), NATURAL)
    def test_the_canonical_text_means_the_same(self, natural: str, canonical: str) -> None:
        assert table_of(render(parse(natural))) == table_of(natural)

    @pytest.mark.parametrize(("text", "oracle"), [
        ("the top card is a king or a queen", lambda t, b: t.rank in (12, 13)),
        ("the sum is 14 or 15", lambda t, b: t.rank + b.rank in (14, 15)),
        ("one card is red and the other is black", lambda t, b: t.red != b.red),
        ("the top card and the bottom card are red", lambda t, b: t.red and b.red),
        ("both cards are odd or red", lambda t, b: (t.rank % 2 == 1 or t.red) and (b.rank % 2 == 1 or b.red)),
        ("the top card is not a king or a queen", lambda t, b: t.rank not in (12, 13)),
        ("the cards are consecutive", lambda t, b: abs(t.rank - b.rank) == 1),
        ("the cards differ by 3", lambda t, b: abs(t.rank - b.rank) == 3),
        ("the top card is red or black and the bottom card is odd", lambda t, b: b.rank % 2 == 1),
        ("exactly one card is red or a king", lambda t, b: (t.red or t.rank == 13) != (b.red or b.rank == 13)),
        ("every red card is odd or a king", lambda t, b: all(not c.red or c.rank % 2 == 1 or c.rank == 13
                                                            for c in (t, b))),
        ("the top card is 2 more than the bottom card", lambda t, b: t.rank == b.rank + 2),
        # "or" shares "more than the bottom card" between like terms (numbers), not "is 2"
        ("the top card is 2 or 3 more than the bottom card", lambda t, b: t.rank - b.rank in (2, 3)),
        ("the top card is 2, 3 or 4 less than the bottom card", lambda t, b: b.rank - t.rank in (2, 3, 4)),
        ("the top card is not 2 or 3 more than the bottom card", lambda t, b: t.rank - b.rank not in (2, 3)),
        ("the top card is 7 or the bottom card + 2", lambda t, b: t.rank == 7 or t.rank == b.rank + 2),
        ("the top card is a king or 2 more than the bottom card", lambda t, b: t.rank == 13 or t.rank == b.rank + 2),
        ("the top card is two or three more than the bottom card", lambda t, b: t.rank - b.rank in (2, 3)),
        ("the cards are red or differ by 3", lambda t, b: (t.red and b.red) or abs(t.rank - b.rank) == 3),
        ("the cards are consecutive or differ by 3", lambda t, b: abs(t.rank - b.rank) in (1, 3)),
        ("at most one card is red", lambda t, b: not (t.red and b.red)),
        ("at most one of the cards is a face card", lambda t, b: not (t.rank > 10 and b.rank > 10)),
        ("at most one card is red or a king", lambda t, b: not ((t.red or t.rank == 13) and (b.red or b.rank == 13))),
        ("one card is red", lambda t, b: t.red or b.red),
        ("one card is even", lambda t, b: t.rank % 2 == 0 or b.rank % 2 == 0),
        ("one red card is odd", lambda t, b: any(c.red and c.rank % 2 == 1 for c in (t, b))),
        ("two cards are red", lambda t, b: t.red and b.red),
        ("the cards add up to 14", lambda t, b: t.rank + b.rank == 14),
        ("the cards sum to 14", lambda t, b: t.rank + b.rank == 14),
        ("the cards do not add up to 14", lambda t, b: t.rank + b.rank != 14),
        ("the cards add up to more than 14", lambda t, b: t.rank + b.rank > 14),
        ("the cards are 2 apart", lambda t, b: abs(t.rank - b.rank) == 2),
        ("the cards are not 2 apart", lambda t, b: abs(t.rank - b.rank) != 2),
        ("the cards are two apart from each other", lambda t, b: abs(t.rank - b.rank) == 2),
        ("the cards add to 9", lambda t, b: t.rank + b.rank == 9),
        ("the cards are of the same colour", lambda t, b: t.red == b.red),
        ("the cards are of different colours", lambda t, b: t.red != b.red),
        ("the top card is of the same colour as the bottom card", lambda t, b: t.red == b.red),
        ("the cards are 2 or 3 apart", lambda t, b: abs(t.rank - b.rank) in (2, 3)),
        ("the cards are not 2 or 3 apart", lambda t, b: abs(t.rank - b.rank) not in (2, 3)),
        ("the cards are 2 apart or 3 apart", lambda t, b: abs(t.rank - b.rank) in (2, 3)),
        ("the cards are at most 2 apart", lambda t, b: abs(t.rank - b.rank) <= 2),
        ("the cards are more than 2 apart", lambda t, b: abs(t.rank - b.rank) > 2),
        ("the cards are red or 3 apart", lambda t, b: (t.red and b.red) or abs(t.rank - b.rank) == 3),
        ("the cards are red or add up to 14", lambda t, b: (t.red and b.red) or t.rank + b.rank == 14),
        ("the cards add up to 14 or 15", lambda t, b: t.rank + b.rank in (14, 15)),
        ("the cards total 14", lambda t, b: t.rank + b.rank == 14),
        ("one of the two cards is red", lambda t, b: t.red or b.red),
        ("no more than one card is red", lambda t, b: not (t.red and b.red)),
        ("not more than one of the cards is a king", lambda t, b: not (t.rank == 13 and b.rank == 13)),
        ("the cards are a different colour", lambda t, b: t.red != b.red),
        ("the cards are of a different colour", lambda t, b: t.red != b.red),
        ("one card is higher than the other", lambda t, b: t.rank != b.rank),
    ])
    def test_against_brute_force(self, text: str, oracle: Oracle) -> None:
        assert table_of(text).obey == oracle_mask(oracle)

    @pytest.mark.parametrize("text", [
        "the top card is hihger than 5", "the sum is more 3", "the top card is red or",
        "or a queen", "the top card is bigger", "the cards are same color", "top card red",
        "the top card is greater then 5", "one card is red and the other black", "the top card is a heart",
        "the cards are the same suit", "the top card is a king or a qeen", "the cards are of teh same colour",
        "one crad is even", "the cards are 2 aparts", "the cards sums to 14", "the cards adds up to 14",
        "the cards add up 14",
    ])
    def test_every_refusal_suggests_a_wording_that_reads(self, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
        # what is suggested, not how fast: the search's CPU guard (0.1 s, a bound against hostile
        # texts) is near what "the top card is greater then 5" needs on a loaded machine (90-127 ms)
        monkeypatch.setattr(suggest, "CPU_SECONDS", 2.0)
        with pytest.raises(RuleError) as caught:
            parse(text)
        suggestion = caught.value.suggestion
        assert suggestion is not None and suggestion != text
        parse(suggestion)
        assert keeps_meaning(text, suggestion)
        assert caught.value.as_json()["suggestion"] == suggestion
        assert f"'{suggestion}'" in str(caught.value)
        assert NEAREST.get(text, suggestion) == suggestion

    @pytest.mark.parametrize(("text", "wrong"), [
        # found by a review: each of these was offered, and each says something else
        ("the cards are of the same colour", "the cards are not the same colour"),
        ("the cards are of different colours", "the cards are not different colours"),
        ("one card is even", "one is even"),
        ("the cards are 2 apart", "the cards are 2"),
        ("the cards sum to 14", "the cards is sum and 14"),
        ("the top card is an ace", "the top card is an face"),
        ("the sum is 2000", "the sum is 7"),
        ("the top crad is nto red", "the top card is a red"),
        ("the sum is red", "the sum is even"),
        ("the top card is red", "the top card is red or the sum is 14"),
        ("the top card is red", "the top card is 7"),
        ("the top card is a king", "the top card is a queen"),
        ("the cards are the same colour", "the cards are different colours"),
        ("the cards are the same", "the cards are the same color"),
        ("the top card is red or", "the top card is red or black"),
        ("the top card is and red", "the top card is black and red"),
        ("the top card is than or equal to 6", "the top card is greater than or equal to 6"),
        ("the cards by 3", "the cards is divisible by 3"),
        ("the sum is", "the sum is even"),
    ])
    def test_a_suggestion_never_changes_the_meaning(self, text: str, wrong: str) -> None:
        assert not keeps_meaning(text, wrong)

    @pytest.mark.parametrize("text", [
        "top is purple", "the sum is red", "the top card is an ace", "the sum is 2000", "the top crad is nto red",
        "the top card is purple or red", "the cards are the same",
    ])
    def test_no_suggestion_when_no_near_wording_keeps_the_meaning(self, text: str) -> None:
        with pytest.raises(RuleError) as caught:
            parse(text)
        assert caught.value.suggestion is None
        assert caught.value.as_json()["suggestion"] is None

    @pytest.mark.parametrize("text", [
        "the cards are of the same colour", "the cards are of different colours", "one card is even",
        "the cards are 2 apart", "the cards sum to 14", "the cards add up to 14", "at most one card is red",
        "one card is red", "two cards are red",
    ])
    def test_the_reviewed_phrasings_are_accepted(self, text: str) -> None:
        parse(text)

    @pytest.mark.parametrize("text", ["the top card is red and is not", "king are not"])
    def test_an_ellipsis_without_its_subject_is_refused(self, text: str) -> None:
        with pytest.raises(RuleError) as caught:  # was an internal error (lark's VisitError)
            parse(text)
        assert caught.value.reason == "type"

    @pytest.mark.parametrize("text", ["the top card is 2 or 3 apart", "the top card is 2 apart"])
    def test_apart_is_said_of_the_two_cards(self, text: str) -> None:
        with pytest.raises(RuleError) as caught:
            parse(text)
        assert caught.value.reason == "type"

    def test_every_human_rule_reads(self) -> None:
        rules = [line.strip() for line in HUMAN_RULES.read_text().splitlines() if line.strip() and line[0] != "#"]
        assert len(rules) >= 50
        for text in rules:
            table = table_of(text)
            assert 0 < table.count < SETS and not table.is_ambiguous, text

    def test_an_external_rule_gets_no_suggestion(self) -> None:
        with pytest.raises(RuleError) as caught:
            parse(TEXT_COUNTEREXAMPLES[3][0])
        assert caught.value.suggestion is None



class TestSuggestionWork:
    """A refused rule's suggestion search is bounded by its length as well as by counts: a
    parse and a meaning check cost about the text's length, so a client sending long garbage
    within its rate limit cannot buy ~0.1 s of CPU a request (issue 20, finding 7; the figures:
    ``tests/bench/bench_rule_check.py``)."""

    LONG = ("card same card the face the or color rank greater queen queen king than color and card "
            "card as or king odd even bottom black color red and the cards are as not sum prime 7 top "
            "card is the top card is the bottom black or odd color black as cards king rank same than "
            "face red or and card queen odd prime the card sum greater black as the and even 7 king is")

    @pytest.mark.parametrize("length", [60, 150, 299])
    def test_a_refusal_parses_and_screens_a_bounded_number_of_characters(
            self, length: int, monkeypatch: pytest.MonkeyPatch) -> None:
        import ludic.language as language
        import ludic.suggest as suggest

        text = self.LONG[:length].strip()
        with pytest.raises(RuleError) as caught:
            language._parse(text)
        at = suggest.offset(text, caught.value.line, caught.value.column)
        parsed, screened = [0], [0]
        real_keeps = suggest.keeps_meaning

        def attempt(candidate: str) -> tuple[int, list[str]] | None:
            parsed[0] += 1
            return language._attempt(candidate)

        def keeps(original: str, candidate: str, *, adds: bool = True) -> bool:
            if not adds:
                screened[0] += 1
            return real_keeps(original, candidate, adds=adds)

        monkeypatch.setattr(suggest, "keeps_meaning", keeps)
        suggest.nearest(text, at, sorted(caught.value.terminals), attempt)
        # about the text's length in characters at most, parsed and screened (was: 80 parses
        # and 300 edits screened whatever the length)
        assert parsed[0] <= min(suggest.MAX_TRIES, suggest.PARSED_CHARACTERS // len(text)), parsed
        assert screened[0] <= min(suggest.MAX_CANDIDATES, suggest.SCREENED_CHARACTERS // len(text)), screened
