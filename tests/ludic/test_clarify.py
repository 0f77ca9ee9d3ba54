"""Clarification (issue 26, item 1): a rule or guess whose scope can be read more than one way,
with readings that differ on some set, is never judged silently. It is refused (a guess: "the
Vexer asks for clarification"), listing each reading's canonical text and the sets obeying it, and
``/rules/check`` says the same. Every reading is checked against brute force over the 576 sets."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from api_client import Api
from hypothesis import given, settings
from hypothesis import strategies as st
from ludic.language import RuleError
from ludic.rules import InitialSets, accept_guess, accept_rule, check
from ludic.tables import table_of
from ludic.universe import SETS, CardType, describe_set, members, set_of_codes, split_set

Card = Callable[[CardType], bool]
CARDS = [tuple(CardType.from_index(t) for t in split_set(s)) for s in range(SETS)]


def oracle_mask(holds: Callable[[CardType, CardType], bool]) -> int:
    """Brute force: the sets (top, bottom) for which ``holds`` is true, as a bitset."""
    return sum(1 << s for s, (top, bottom) in enumerate(CARDS) if holds(top, bottom))

ISSUE_EXAMPLES = [
    # text, the default reading (the color of the first rank only), the other (the color of all)
    ("the top card is a red king, queen or jack",
     lambda t, b: (t.red and t.rank == 13) or t.rank in (11, 12), lambda t, b: t.red and t.rank >= 11, 120, 72),
    ("the top card is a black 7 or 8",
     lambda t, b: (not t.red and t.rank == 7) or t.rank == 8, lambda t, b: not t.red and t.rank in (7, 8), 72, 48),
]


@pytest.mark.parametrize(("text", "default", "meant", "n_default", "n_meant"), ISSUE_EXAMPLES)
def test_the_issues_examples_list_both_readings(text: str, default: Any, meant: Any, n_default: int,
                                                n_meant: int) -> None:
    report = check(text)
    assert report["valid"] is False and report["ambiguous"] is True
    assert report["canonical"] is None and report["obeying_sets"] is None  # no reading is judged silently
    [error] = report["errors"]
    assert error["reason"] == "ambiguous"
    readings = error["readings"]
    assert [r["obeying_sets"] for r in readings] == [n_default, n_meant]
    assert [table_of(r["canonical"]).obey for r in readings] == [oracle_mask(default), oracle_mask(meant)]
    for reading in readings:  # resubmitting a reading's canonical text chooses it
        again = check(reading["canonical"])
        assert again["valid"] and again["obeying_sets"] == reading["obeying_sets"]
        assert reading["canonical"] in error["message"]


def test_a_guess_is_sent_back_and_a_rule_refused_with_the_readings() -> None:
    text = ISSUE_EXAMPLES[0][0]
    with pytest.raises(RuleError) as guessed:
        accept_guess(text)
    assert guessed.value.reason == "ambiguous"
    assert str(guessed.value).startswith("the Vexer asks for clarification: the rule can be read 2 ways")
    assert guessed.value.readings == check(text)["errors"][0]["readings"]
    initial = InitialSets(set_of_codes("KD", "4C"), set_of_codes("JC", "3D"))  # both readings are legal here
    with pytest.raises(RuleError) as written:
        accept_rule(text, initial)
    assert written.value.reason == "ambiguous" and written.value.readings == guessed.value.readings
    assert table_of(written.value.readings[1]["canonical"]) == accept_rule(written.value.readings[1]["canonical"],
                                                                          initial)


def test_a_small_reading_lists_its_sets() -> None:
    report = check("both cards are a red king or queen")
    readings = report["errors"][0]["readings"]
    meant = oracle_mask(lambda t, b: t.red and b.red and t.rank in (12, 13) and b.rank in (12, 13))
    assert [r["obeying_sets"] for r in readings] == [9, 5, 4]  # each card / both the same / colored
    assert readings[2]["sets"] == [describe_set(s) for s in members(meant)]
    assert len(readings[0]["sets"]) == 9
    large = check("the top card is a red king, queen or jack")["errors"][0]["readings"]
    assert [r["sets"] for r in large] == [None, None]  # 120 and 72 sets: counted, not listed


@pytest.mark.parametrize("text", [
    "if the top card is red then it is a red king or queen",  # red either way
    "neither card is red or a king",  # none is either: the one reading of 'neither ... or'
    "each card is odd or red",  # one card at a time
    "every card is a king or a queen",
    "some card is red or odd",  # some card is red or some card is odd: the same either way
    "the top card is a red king or a queen",  # the article: 'a queen' of any color
    "the top card is a red king or the top card is a queen",
    "the top card is a king, queen or jack",
])
def test_readings_that_agree_on_every_set_or_one_reading_are_not_ambiguous(text: str) -> None:
    report = check(text)
    assert report["valid"] and not report["ambiguous"], report


# ---- brute force: a color and a list of bare ranks, in several contexts -------------------------
RANK_WORDS = {11: "jack", 12: "queen", 13: "king"}
CONTEXTS: dict[str, tuple[str, Callable[[Card, CardType, CardType], bool]]] = {
    "plain": ("the top card is {list}", lambda f, t, b: f(t)),
    "negated": ("the bottom card is not {list}", lambda f, t, b: not f(b)),
    "conditional": ("if the top card is {color} then it is {list}", None),  # type: ignore[dict-item]
    "both": ("both cards are {list}", lambda f, t, b: f(t) and f(b)),
    "repeated": ("the top card is {list} and the bottom card is not", lambda f, t, b: f(t) and not f(b)),
}


def _rank_text(rank: int, word: bool) -> str:
    return RANK_WORDS.get(rank, str(rank)) if word or rank > 10 else str(rank)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(CONTEXTS)), st.booleans(), st.booleans(),
       st.lists(st.integers(2, 13), min_size=2, max_size=4), st.booleans())
def test_a_color_before_bare_ranks_is_read_both_ways_against_brute_force(
        context: str, red: bool, condition_red: bool, ranks: list[int], words: bool) -> None:
    color = "red" if red else "black"
    texts = [_rank_text(r, words) for r in ranks]
    listed = f"a {color} {texts[0]}" + "".join(f", {x}" for x in texts[1:-1]) + f" or {texts[-1]}"
    template, combine = CONTEXTS[context]
    if context == "conditional":
        cond = condition_red

        def combine(f: Card, t: CardType, b: CardType) -> bool:
            return t.red != cond or f(t)

        text = template.format(color="red" if cond else "black", list=listed)
    else:
        text = template.format(list=listed)

    def default(c: CardType) -> bool:
        return (c.red == red and c.rank == ranks[0]) or c.rank in ranks[1:]

    def meant(c: CardType) -> bool:
        return c.red == red and c.rank in ranks

    first = oracle_mask(lambda t, b: combine(default, t, b))
    expected = [first]
    if context == "both":  # 'both cards are A or B' may also mean both A, or both B
        items = [lambda c: c.red == red and c.rank == ranks[0]] + [lambda c, r=r: c.rank == r for r in ranks[1:]]
        expected.append(oracle_mask(lambda t, b: any(item(t) and item(b) for item in items)))
    expected.append(oracle_mask(lambda t, b: combine(meant, t, b)))
    distinct = [m for i, m in enumerate(expected) if m not in expected[:i]]
    report = check(text)
    if len(distinct) == 1:
        assert report["valid"] and table_of(text).obey == first, text
        return
    assert report["ambiguous"] and not report["valid"], text
    readings = report["errors"][0]["readings"]
    assert [table_of(r["canonical"]).obey for r in readings] == distinct, text
    assert [r["obeying_sets"] for r in readings] == [m.bit_count() for m in distinct]


def test_the_rule_checker_over_http_shows_the_readings(client_factory: Any) -> None:
    api = Api(client_factory("ludic"))
    status, report, _ = api.call("POST", "/rules/check", body={"rule": ISSUE_EXAMPLES[1][0]})
    assert status == 200 and report["ambiguous"] is True and report["valid"] is False
    assert [r["obeying_sets"] for r in report["errors"][0]["readings"]] == [72, 48]


# ---- 'and' and 'or' at one level: which binds tighter ---------------------------------------------
ATOMS: list[tuple[str, Callable[[CardType, CardType], bool]]] = [
    ("the top card is red", lambda t, b: t.red),
    ("the bottom card is even", lambda t, b: b.rank % 2 == 0),
    ("the sum is 14", lambda t, b: t.rank + b.rank == 14),
    ("the top card outranks the bottom card", lambda t, b: t.rank > b.rank),
    ("the bottom card is a face card", lambda t, b: b.rank > 10),
    ("the cards have the same color", lambda t, b: t.red == b.red),
]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(range(len(ATOMS))), min_size=3, max_size=3),
       st.sampled_from([("and", "or"), ("or", "and")]), st.sampled_from(["", "first", "second"]))
def test_and_or_at_one_level_is_read_both_ways_unless_a_comma_groups_it(
        picked: list[int], joints: tuple[str, str], comma: str) -> None:
    (a, fa), (b, fb), (c, fc) = (ATOMS[i] for i in picked)
    j1, j2 = joints
    text = f"{a}{',' if comma == 'first' else ''} {j1} {b}{',' if comma == 'second' else ''} {j2} {c}"

    def joined(op: str, x: bool, y: bool) -> bool:
        return (x and y) if op == "and" else (x or y)

    left = oracle_mask(lambda t, b_: joined(j2, joined(j1, fa(t, b_), fb(t, b_)), fc(t, b_)))  # (A j1 B) j2 C
    right = oracle_mask(lambda t, b_: joined(j1, fa(t, b_), joined(j2, fb(t, b_), fc(t, b_))))  # A j1 (B j2 C)
    tighter_first = joints[0] == "and"  # and-before-or: (A and B) or C; A or (B and C)
    report = check(text)
    if comma:  # 'A and B, or C': the comma's connective is the loosest
        expected = left if comma == "second" else right
        assert report["valid"] and table_of(text).obey == expected, text
        return
    default, other = (left, right) if tighter_first else (right, left)
    if default == other:
        assert report["valid"] and table_of(text).obey == default, text
        return
    assert report["ambiguous"] and not report["valid"], text
    readings = report["errors"][0]["readings"]
    assert [table_of(r["canonical"]).obey for r in readings] == [default, other], text


@pytest.mark.parametrize(("text", "counts"), [
    ("the top card is red and odd or a king", [168, 144]),
    ("the top card is red and the bottom card is even or the sum is 14", [176, 154]),
])
def test_and_or_examples(text: str, counts: list[int]) -> None:
    readings = check(text)["errors"][0]["readings"]
    assert [r["obeying_sets"] for r in readings] == counts
    for reading in readings:
        assert check(reading["canonical"])["valid"]


@pytest.mark.parametrize("text", [
    "the top card is odd and red or the sum is 14",  # a shared subject binds tighter: two levels
    "the top card is red or black and the bottom card is odd",
    "(the top card is red and the bottom card is even) or the sum is 14",
    "if the top card is red then the bottom card is odd, otherwise the sum is 14",
])
def test_and_or_at_different_levels_or_in_parentheses_have_one_reading(text: str) -> None:
    assert check(text)["valid"], check(text)


TREES = st.recursive(st.sampled_from(range(len(ATOMS))),
                     lambda inner: st.tuples(st.sampled_from(["and", "or", "not"]), inner, inner), max_leaves=6)


def _tree(node: Any) -> tuple[str, Callable[[CardType, CardType], bool]]:
    """A rule written with parentheses everywhere, and its meaning."""
    if isinstance(node, int):
        return ATOMS[node]
    op, x, y = node
    (tx, fx), (ty, fy) = _tree(x), _tree(y)
    if op == "not":
        return f"not ({tx})", lambda t, b: not fx(t, b)
    if op == "and":
        return f"({tx}) and ({ty})", lambda t, b: fx(t, b) and fy(t, b)
    return f"({tx}) or ({ty})", lambda t, b: fx(t, b) or fy(t, b)


@settings(max_examples=80, deadline=None)
@given(TREES)
def test_a_canonical_text_has_one_reading(node: Any) -> None:
    """What the server writes back (and what bots guess) is never ambiguous, and means the rule."""
    text, meaning = _tree(node)
    report = check(text)
    assert report["valid"], report
    again = check(report["canonical"])
    assert again["valid"] and table_of(report["canonical"]).obey == oracle_mask(meaning)


def test_a_rule_read_two_ways_is_a_422_of_its_own_type_over_http(client_factory: Any) -> None:
    """The Vexer writes 'the top card is a black 7 or 8': a problem+json 422 whose type names the
    clarification, its rule_error listing both readings; the reading chosen is accepted or refused
    on its own merits (legal or not for the deal), never as the other reading."""
    api = Api(client_factory("ludic"))
    gid, first = api.create(["human"] * 3)
    tokens = [first] + [api.join(gid)[1]["token"] for _ in range(2)]
    for _ in range(30):
        view = api.view(gid)
        if view["state"]["phase"] != "cut":
            break
        for seat in view["to_act"]:
            assert api.play(gid, tokens[seat], {"type": "cut"})[0] == 200
    view = api.view(gid)
    assert view["state"]["phase"] == "rule"
    vexer = view["to_act"][0]
    status, problem, _ = api.play(gid, tokens[vexer], {"type": "write_rule", "rule": "the top card is a black 7 or 8"})
    assert status == 422 and problem["type"].endswith("/ambiguous-rule")
    assert problem["rule_error"]["reason"] == "ambiguous"
    readings = problem["rule_error"]["readings"]
    assert [r["obeying_sets"] for r in readings] == [72, 48]
    assert api.view(gid)["state"]["phase"] == "rule"  # not judged: the round waits for the Vexer
    for reading in readings:
        status, answer, _ = api.play(gid, tokens[vexer], {"type": "write_rule", "rule": reading["canonical"]})
        assert status in (200, 422)
        if status == 422:
            assert answer["rule_error"]["reason"] == "illegal"  # this deal's initial sets, not the wording
            continue
        break


@pytest.mark.parametrize(("text", "each", "same"), [
    ("both cards are odd or red", lambda t, b: (t.rank % 2 or t.red) and (b.rank % 2 or b.red),
     lambda t, b: (t.rank % 2 and b.rank % 2) or (t.red and b.red)),
    ("the cards are red or black", lambda t, b: True, lambda t, b: t.red == b.red),
])
def test_both_cards_are_a_or_b_is_read_both_ways(text: str, each: Any, same: Any) -> None:
    """'both cards are odd or red': each card odd or red, or both odd or both red."""
    readings = check(text)["errors"][0]["readings"]
    assert [table_of(r["canonical"]).obey for r in readings] == [oracle_mask(each), oracle_mask(same)]
