"""The language a player writes (issue 26, item 2): existential and universal forms, multiples,
"has a higher rank than", ranks outside 2-13 refused like aces, messages naming the real cause, and
suggestions that never change what the refused text most plausibly meant. Every meaning is checked
against brute force over the 576 sets."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ludic.language import RuleError, parse
from ludic.rules import check
from ludic.tables import table_of
from ludic.universe import SETS, CardType, split_set

Oracle = Callable[[CardType, CardType], bool]
CARDS = [tuple(CardType.from_index(t) for t in split_set(s)) for s in range(SETS)]


def brute(holds: Oracle) -> int:
    """The sets (top, bottom) for which ``holds`` is true, as a bitset, one set at a time."""
    return sum(1 << s for s, (top, bottom) in enumerate(CARDS) if holds(top, bottom))


def face(c: CardType) -> bool:
    return c.rank > 10


PHRASINGS: list[tuple[str, Oracle]] = [
    # existential and universal forms
    ("there is a face card", lambda t, b: face(t) or face(b)),
    ("there is at least one face card", lambda t, b: face(t) or face(b)),
    ("there are no face cards", lambda t, b: not face(t) and not face(b)),
    ("there is no face card", lambda t, b: not face(t) and not face(b)),
    ("there is no king", lambda t, b: 13 not in (t.rank, b.rank)),
    ("there are no kings", lambda t, b: 13 not in (t.rank, b.rank)),
    ("there is exactly one red card", lambda t, b: t.red != b.red),
    ("there are two red cards", lambda t, b: t.red and b.red),
    ("there is at most one face card", lambda t, b: not (face(t) and face(b))),
    ("there is a red king", lambda t, b: (t.red and t.rank == 13) or (b.red and b.rank == 13)),
    ("there is a king or a queen", lambda t, b: bool({t.rank, b.rank} & {12, 13})),
    ("there is no card greater than 9", lambda t, b: t.rank <= 9 and b.rank <= 9),
    ("there are no red cards above 9", lambda t, b: not ((t.red and t.rank > 9) or (b.red and b.rank > 9))),
    ("there is a red card that is odd", lambda t, b: (t.red and t.rank % 2 == 1) or (b.red and b.rank % 2 == 1)),
    ("there is a pair", lambda t, b: t.rank == b.rank),
    ("there is a red card and a black card", lambda t, b: t.red != b.red),
    ("there is a king and a queen", lambda t, b: {t.rank, b.rank} == {12, 13}),
    ("the set contains a face card", lambda t, b: face(t) or face(b)),
    ("the cards contain a king or a queen", lambda t, b: bool({t.rank, b.rank} & {12, 13})),
    ("the set does not contain a face card", lambda t, b: not face(t) and not face(b)),
    ("the set contains no face cards", lambda t, b: not face(t) and not face(b)),
    ("the set doesn't contain a 7", lambda t, b: 7 not in (t.rank, b.rank)),
    ("the set includes an even card", lambda t, b: t.rank % 2 == 0 or b.rank % 2 == 0),
    ("the set contains a red card and a black card", lambda t, b: t.red != b.red),
    ("the cards are all black", lambda t, b: not t.red and not b.red),
    ("all the cards are black", lambda t, b: not t.red and not b.red),
    ("all of the cards are odd", lambda t, b: t.rank % 2 == 1 and b.rank % 2 == 1),
    ("all cards are face cards", lambda t, b: face(t) and face(b)),
    ("no cards are red", lambda t, b: not t.red and not b.red),
    # multiples
    ("the top card is twice the bottom card", lambda t, b: t.rank == 2 * b.rank),
    ("the top card is double the bottom card", lambda t, b: t.rank == 2 * b.rank),
    ("the top card is twice as high as the bottom card", lambda t, b: t.rank == 2 * b.rank),
    ("the top card is half the bottom card", lambda t, b: 2 * t.rank == b.rank),
    ("the bottom card is triple the top card", lambda t, b: b.rank == 3 * t.rank),
    ("the top card is not twice the bottom card", lambda t, b: t.rank != 2 * b.rank),
    ("the sum is double the top card", lambda t, b: t.rank + b.rank == 2 * t.rank),
    # ranks compared in words
    ("the top card has a higher rank than the bottom card", lambda t, b: t.rank > b.rank),
    ("the top card has a greater value than the bottom card", lambda t, b: t.rank > b.rank),
    ("the top card has a lower rank than the bottom card", lambda t, b: t.rank < b.rank),
    ("the top card has a rank higher than 9", lambda t, b: t.rank > 9),
    ("the top card does not have a higher rank than the bottom card", lambda t, b: t.rank <= b.rank),
    ("the bottom card doesn't have a lower rank than the top card", lambda t, b: b.rank >= t.rank),
]


@pytest.mark.parametrize(("text", "oracle"), PHRASINGS, ids=[p[0] for p in PHRASINGS])
def test_a_phrasing_means_what_brute_force_says(text: str, oracle: Oracle) -> None:
    report = check(text)
    assert report["valid"], report
    assert table_of(text).obey == brute(oracle)
    assert table_of(report["canonical"]).obey == brute(oracle)  # the canonical form means the same


@pytest.mark.parametrize("text", [
    "the top card is 1", "the top card is 14", "the top card is one", "the bottom card is 0",
    "the top card is a red 14", "the top card is a black 1", "some card is 15", "the top card = 1",
    "the top card is not 14", "the top card is 7 or 14", "the value of the top card is 1",
])
def test_a_rank_outside_2_to_13_is_refused_like_an_ace(text: str) -> None:
    with pytest.raises(RuleError) as caught:
        parse(text)
    assert caught.value.reason == "type" and "not a card's rank: ranks go from 2 to king" in caught.value.message
    assert caught.value.suggestion is None
    with pytest.raises(RuleError) as ace:
        parse("the top card is an ace")
    assert ace.value.reason == caught.value.reason


@pytest.mark.parametrize("text", ["the top card is greater than 1", "the sum is 14", "the difference is 0",
                                  "the top card is less than 14", "the sum is 26"])
def test_numbers_that_are_not_ranks_stay_valid(text: str) -> None:
    assert check(text)["valid"]


@pytest.mark.parametrize(("text", "cause", "not_cause"), [
    ("the sum is divisible by the difference", "divides by zero", "equal rank"),
    ("the top card mod the difference is 0", "divides by zero", "equal rank"),
    ("the difference divides 12", "divides by zero", "equal rank"),
    ("the high card is red", "high or low card of two cards of equal rank", "divides by zero"),
    ("the low card is odd or the sum is a multiple of the difference", "high or low card", None),
])
def test_an_undefined_rule_names_its_real_cause(text: str, cause: str, not_cause: str | None) -> None:
    report = check(text)
    assert report["ambiguous"] and not report["valid"]
    message = report["errors"][0]["message"]
    assert cause in message, message
    if not_cause:
        assert not_cause not in message, message


def test_both_causes_are_named_when_both_leave_sets_undefined() -> None:
    message = check("the low card is odd and the top card mod (the top card - 7) is 1")["errors"][0]["message"]
    assert "high or low card" in message and "divides by zero" in message


# ---- suggestions keep the meaning the refused text most plausibly had ----------------------------
CORPUS = [text for text, _ in PHRASINGS] + [
    "the top card is red", "the bottom card is even", "both cards are even", "The total is 15 or more",
    "the total is not 14", "The top card is divisible by the bottom card", "A red card outranks a black card",
    "neither card is prime", "the top card is a king or a queen", "the sum is 14, 15 or 16",
    "the top card is red or black and the bottom card is odd", "the top card is odd and red",
    "the top card is greater than 5 and less than 10", "the top card is not a king or a queen",
    "both cards are odd or red", "one card is red and the other is black", "the top card is red and the other card "
    "is black", "exactly one of the cards is even", "the cards are both red", "the top card is 2 more than the "
    "bottom card", "the cards are consecutive", "the cards differ by 3", "the cards add up to 14",
    "the cards are of the same colour", "one card is higher than the other", "the cards form a pair",
    "if the top card is red, the bottom card is odd", "the bottom card is even unless the top card is red",
    "the top card is odd or it is even and the bottom card is red", "the cards have the same parity",
    "the top card has the same color as the bottom card", "the high card has a different color from the low card",
    "every red card is odd", "no black card is greater than 9", "the product is at least 40",
    "the top card is between 4 and 8", "the bottom card divides 12", "at most one card is a face card",
    "the top card is a red face card or a black pip card", "the sum is prime", "the difference is odd",
]
FILLERS = ("the", "is", "are", "a", "an")


def _misspell(text: str, data: st.DataObject) -> str:
    """A typing slip in a word of four letters or more: two letters swapped, one dropped or doubled."""
    words = [m for m in re.finditer(r"[A-Za-z]{4,}", text)]
    if not words:
        return text
    word = data.draw(st.sampled_from(words))
    w, i = word.group(), data.draw(st.integers(1, len(word.group()) - 2))
    slip = data.draw(st.sampled_from(["swap", "drop", "double"]))
    typed = {"swap": w[:i] + w[i + 1] + w[i] + w[i + 2:], "drop": w[:i] + w[i + 1:], "double": w[:i] + w[i] + w[i:]}
    return text[:word.start()] + typed[slip] + text[word.end():]


def _drop_filler(text: str, data: st.DataObject) -> str:
    """A word that says nothing left out ('the', 'is', 'a')."""
    words = [m for m in re.finditer(r"[A-Za-z]+", text) if m.group().lower() in FILLERS]
    if not words:
        return text
    word = data.draw(st.sampled_from(words))
    return re.sub(r"\s{2,}", " ", text[:word.start()] + text[word.end():]).strip()


def _then(text: str, data: st.DataObject) -> str:
    return text.replace("than", "then", 1)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(CORPUS), st.sampled_from([_misspell, _drop_filler, _then]), st.data())
def test_a_suggestion_means_what_the_refused_text_meant(text: str, slip: Callable[..., str],
                                                        data: st.DataObject) -> None:
    """A refused text made from a rule by a slip that loses nothing of what it says (a typing slip,
    a word that says nothing left out, 'then' for 'than') most plausibly means that rule: a
    suggestion, when there is one, is obeyed by exactly its sets."""
    slipped = slip(text, data)
    try:
        parse(slipped)
    except RuleError as error:
        if error.suggestion is not None:
            assert table_of(error.suggestion) == table_of(text), (slipped, error.suggestion)


@pytest.mark.parametrize(("refused", "meant"), [
    ("the set contians a face card", "the set contains a face card"),
    ("there is a fcae card", "there is a face card"),
    ("the top card is twcie the bottom card", "the top card is twice the bottom card"),
    ("the top card has a highr rank than the bottom card", "the top card has a higher rank than the bottom card"),
    ("the cards are all blak", "the cards are all black"),
    ("the top card is not red and not eevn", "the top card is not red and not even"),
    ("the top card is a red face card or a black pip crd", "the top card is a red face card or a black pip card"),
    ("thre is at least one face card", "there is at least one face card"),
])
def test_the_issues_suggestions_keep_the_meaning(refused: str, meant: str) -> None:
    with pytest.raises(RuleError) as caught:
        parse(refused)
    assert caught.value.suggestion is not None and table_of(caught.value.suggestion) == table_of(meant)


@pytest.mark.parametrize("refused", ["cards are both red", "both red", "the top card is one or two"])
def test_no_suggestion_that_changes_the_meaning(refused: str) -> None:
    """'cards are both red' is not 'a cards are...' (some card) nor 'top cards' (one card); 'both red' gets
    no card put before it; a rank outside 2-13 has no nearby wording."""
    with pytest.raises(RuleError) as caught:
        parse(refused)
    suggestion = caught.value.suggestion
    assert suggestion is None or table_of(suggestion) == table_of(
        {"cards are both red": "the cards are both red", "both red": "both cards are red"}[refused])
