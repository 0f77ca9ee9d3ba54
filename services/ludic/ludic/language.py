"""The rule language: parse text into a typed syntax tree, and write a tree back as text.

``parse(text)`` reads a rule with the grammar in ``rule.lark`` (lark, LALR) and returns a
:data:`Rule` tree; anything wrong raises :class:`RuleError` with the line, the column and what was
expected there. ``render(tree)`` writes the canonical text of a tree (``parse(render(t))`` means
the same thing as ``t``). The meaning of a tree, its truth table over the 576 sets, is
:mod:`ludic.tables`'s business; LANGUAGE.md is the reference for players.

The tree is made of frozen dataclasses:

- cards: :class:`Card` (``top``, ``bottom``, ``high``, ``low``) and :class:`Quantified` (``some red
  card``, ``both cards``, ``the other card``);
- numbers: :class:`Const`, :class:`ValueOf` (a card's value), :class:`Aggregate` (the sum,
  difference, product of the two cards), :class:`Arith` (``+ - * mod``); a bare card in a
  numeric place stands for its value;
- statements: :class:`Property`, :class:`CardIs`, :class:`Compare`, :class:`Between`,
  :class:`SetLike`;
- logic: :class:`Not`, :class:`And`, :class:`Or`, :class:`Implies`.
"""

from __future__ import annotations

import contextvars
import functools
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from ludic.suggest import nearest, offset
from ludic.universe import RANK_WORDS

MAX_TEXT = 2000
MIN_RANK, MAX_RANK = 2, 13
"""A card's rank: 2 to king (aces are not in play)."""
MAX_NUMBER = 1000
MAX_PARENTHESES = 16
"""How deep parentheses may nest (no rule about two cards needs more than a few)."""
MAX_DEPTH = 64
"""How deep the parse tree may grow (``not not not ...``, ``1 + 1 + ...``): bounds every
recursive walk of a rule (building, compiling, rendering)."""

Position = Literal["top", "bottom", "high", "low"]
QuantifierKind = Literal["some", "every", "no", "exactly_one", "at_most_one", "other"]
CARD_ADJECTIVES = frozenset({"red", "black", "face", "pip"})
NUMBER_ADJECTIVES = frozenset({"even", "odd", "prime", "square"})
ADJECTIVES = ("red", "black", "even", "odd", "prime", "face", "pip", "square")
Attribute = Literal["color", "value", "parity"]


# ---- the tree ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Card:
    position: Position


@dataclass(frozen=True)
class Quantified:
    """A quantified card: ``some red card``, ``every card``, ``the other card``.

    ``word`` is only how it was written (``both``, ``neither``, ``a`` ...), kept for rendering;
    the meaning is ``kind`` and ``restrictors`` (adjectives the card must have).
    """

    kind: QuantifierKind
    restrictors: tuple[str, ...] = ()
    word: str = field(default="", compare=False)


@dataclass(frozen=True)
class Const:
    value: int


@dataclass(frozen=True)
class ValueOf:
    card: Card


@dataclass(frozen=True)
class Aggregate:
    kind: Literal["sum", "difference", "product"]


@dataclass(frozen=True)
class Arith:
    op: Literal["+", "-", "*", "mod"]
    left: Number
    right: Number


Number = Const | Card | ValueOf | Aggregate | Arith
Term = Number | Quantified
CompareOp = Literal["eq", "ne", "lt", "le", "gt", "ge", "divides", "multiple", "same", "different"]


@dataclass(frozen=True)
class Property:
    """``subject is [not] <adjectives> [card|number]``."""

    subject: Term
    adjectives: tuple[str, ...]
    negated: bool = False
    noun: Literal["card", "number", ""] = ""


@dataclass(frozen=True)
class CardIs:
    """``subject is [not] a red 7``: the card's color and value together."""

    subject: Term
    red: bool
    value: int
    negated: bool = False


@dataclass(frozen=True)
class Compare:
    """``subject <op> target``; ``same``/``different`` compare ``attribute`` (color, value, parity)."""

    subject: Term
    op: CompareOp
    target: Term
    negated: bool = False
    attribute: Attribute | None = None


@dataclass(frozen=True)
class Between:
    subject: Term
    low: Number
    high: Number
    negated: bool = False


@dataclass(frozen=True)
class SetLike:
    """``the cards have the same color`` / ``the cards are different ranks``."""

    attribute: Attribute
    same: bool
    negated: bool = False


@dataclass(frozen=True)
class Not:
    operand: Rule


@dataclass(frozen=True)
class And:
    operands: tuple[Rule, ...]


@dataclass(frozen=True)
class Or:
    operands: tuple[Rule, ...]


@dataclass(frozen=True)
class Implies:
    condition: Rule
    consequence: Rule


Statement = Property | CardIs | Compare | Between | SetLike
Rule = Statement | Not | And | Or | Implies


# ---- errors -------------------------------------------------------------------------------------
class RuleError(ValueError):
    """A rule that cannot be accepted, and why.

    ``reason``: ``syntax`` (not in the language), ``external`` (it names something outside the
    set), ``suit`` (2-card Ludic knows colors, not suits), ``type`` (words that do not fit
    together, e.g. a red sum), ``size`` (too long, numbers too large), ``ambiguous`` or
    ``illegal`` (see :mod:`ludic.rules`). ``line``/``column`` are 1-based (0 when not about a place);
    ``expected`` lists what could have come there, in words.
    """

    def __init__(self, message: str, *, reason: str = "syntax", line: int = 0, column: int = 0,
                 expected: list[str] | None = None, terminals: frozenset[str] = frozenset()) -> None:
        where = f"line {line}, column {column}: " if line else ""
        super().__init__(where + message)
        self.message = message
        self.reason = reason
        self.line = line
        self.column = column
        self.expected = expected or []
        self.terminals = terminals
        self.suggestion: str | None = None
        self.suggestible = True
        self.readings: list[dict[str, Any]] | None = None
        """For a rule read more than one way: each reading (canonical, obeying_sets, sets)."""

    def suggest(self, text: str) -> None:
        """Name the nearest wording the language accepts (in the message too)."""
        self.suggestion = text
        self.message += f"; the nearest wording the language accepts: '{text}'"
        where = f"line {self.line}, column {self.column}: " if self.line else ""
        self.args = (where + self.message,)

    def as_json(self) -> dict[str, Any]:
        return {"message": str(self), "reason": self.reason, "line": self.line,
                "column": self.column, "expected": self.expected, "suggestion": self.suggestion,
                "readings": self.readings}


TERMINAL_WORDS: dict[str, str] = {
    "IF": "'if'", "THEN": "'then'", "OR": "'or'", "AND": "'and'", "NOT": "'not'",
    "NOT_THE_CASE": "'it is not the case that'", "BE": "'is'", "HAVE": "'has'", "DO": "'does'",
    "VERB": "'outranks' or 'divides'", "A": "'a'", "THE": "'the'", "THE_CARDS": "'the cards'",
    "OF": "'of'", "AS": "'as'", "FROM": "'from'", "THAN": "'than'", "TO": "'to'",
    "BETWEEN": "'between'", "SAME": "'same'", "DIFFERENT": "'different'",
    "ATTRIBUTE": "'color', 'rank' or 'parity'", "OTHER": "'other'", "CARD": "'card'",
    "NUMBER_WORD": "'number'", "POSITION": "a card ('top', 'bottom', 'high', 'low')",
    "RED": "'red'", "BLACK": "'black'", "EVEN": "'even'", "ODD": "'odd'", "PRIME": "'prime'",
    "FACE": "'face'", "PIP": "'pip'", "SQUARE": "'square'",
    "SOME": "'some'", "AT_LEAST_ONE": "'at least one'", "EVERY": "'every'", "EACH": "'each'",
    "BOTH": "'both'", "ALL": "'all'", "NO": "'no'", "NEITHER": "'neither'",
    "EXACTLY_ONE": "'exactly one'", "EITHER": "'either'", "ANOTHER": "'another'",
    "AT_LEAST_AS": "'greater than or equal to'", "AT_MOST_AS": "'less than or equal to'",
    "GREATER_THAN": "'greater than'", "LESS_THAN": "'less than'", "AT_LEAST": "'at least'",
    "AT_MOST": "'at most'", "EQUAL_TO": "'equal to'", "DIVISIBLE_BY": "'divisible by'",
    "OUTRANKED_BY": "'outranked by'", "MULTIPLE_OF": "'multiple of'", "DIVISOR_OF": "'divisor of'",
    "DIVIDED_BY": "'divided by'", "BOUND": "'or more' / 'or less'", "SYMBOL": "a comparison (=, <, >= ...)",
    "VALUE_OF": "'value of'", "SUM": "'sum'", "DIFFERENCE": "'difference'", "PRODUCT": "'product'",
    "REMAINDER": "'remainder'", "WHEN": "'when'", "PLUS": "'+'", "MINUS": "'-'", "TIMES": "'*'",
    "MOD": "'mod'", "NUMBER": "a number", "RANK_WORD": "'jack', 'queen' or 'king'", "PERIOD": "'.'",
    "LPAR": "'('", "RPAR": "')'", "$END": "the end of the rule",
    "ISNT": "'isn't'", "DOESNT": "'doesn't'", "NOR": "'nor'", "BUT": "'but'", "UNLESS": "'unless'", "COMMA": "','",
    "EITHER_LEAD": "'either'", "BOTH_WORD": "'both'", "CONSECUTIVE": "'consecutive'",
    "NUMBER_CARD": "'number card'", "NUMBER_NAME": "a number word ('seven')",
    "QUANTIFIER": "'some', 'every', 'no', 'exactly one' ...", "QUANTIFIER_OF": "'one of the cards'",
    "ONE_CARD": "'one card'", "OTHER_ONE": "'the other'", "TOP_AND_BOTTOM": "'the top and bottom cards'",
    "EITHER_TOP_OR_BOTTOM": "'the top or the bottom card'", "DIFFER": "'differ'", "BY": "'by'",
    "NOT_BOTH": "'but not both'", "OTHERWISE": "'otherwise'", "IT": "'it'", "FORM": "'forms'",
    "PAIR": "'pair'", "ONE_WORD": "'one'", "DIFFERENCE_WORD": "'more than'", "ADD_UP_TO": "'add up to'",
    "APART": "'apart'", "COUNT": "'one card', 'two cards'",
    "THERE_BE": "'there is'", "THERE_BE_NO": "'there is no'", "THERE_BE_COUNT": "'there is at least one'",
    "CONTAIN": "'contains'", "CONTAIN_NO": "'contains no'", "HIGHER_RANK": "'a higher rank than'",
    "LOWER_RANK": "'a lower rank than'", "MULTIPLE_WORD": "'twice', 'double', 'half'", "ALL_WORD": "'all'",
    "THAT_IS": "'that is'",
}

EXTERNAL_WORDS = (
    "column", "columns", "obey", "obeys", "break", "breaks", "played", "placed", "time", "turn",
    "round", "previous", "last", "next", "earlier", "later", "before", "after", "sets", "letter",
    "letters", "name", "named", "spelled", "spelling", "word", "words", "player", "players", "vexer",
    "seeker", "seekers", "hand", "deck", "hintbook", "pile", "hint", "hints", "slip", "table",
    "token", "query", "queries", "guess",
)
SUIT_WORDS = ("suit", "suits", "heart", "hearts", "spade", "spades", "club", "clubs", "diamond",
              "diamonds")


def _describe_expected(names: set[str] | frozenset[str]) -> list[str]:
    return sorted({TERMINAL_WORDS.get(n, n.lower()) for n in names})


def _explain_outside(text: str) -> RuleError | None:
    """The text's reason for rejecting rules about things outside the set, if it names one."""
    for match in re.finditer(r"[A-Za-z]+", text):
        word = match.group().lower()
        line = text.count("\n", 0, match.start()) + 1
        column = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
        if word in SUIT_WORDS:
            return RuleError(f"'{match.group()}': in 2-card Ludic there is no reference to suit, only "
                             "color", reason="suit", line=line, column=column)
        if word in ("ace", "aces"):
            return RuleError("Aces are not in play: ranks go from 2 to king", reason="type",
                             line=line, column=column)
        if word in EXTERNAL_WORDS:
            return RuleError(
                f"'{match.group()}' names something outside the set: a rule may only refer to the "
                "intrinsic identities and relationships of the two cards of each set (color, rank, "
                "value and position) [external relationship]",
                reason="external", line=line, column=column)
    return None


_ACCEPTED: dict[tuple[int, ...], frozenset[str]] = {}
"""The terminals the parser accepts, by its state stack (what they depend on): lark finds them by
feeding each terminal to a copy of the parser, ~1 ms a refusal, most of a suggestion search's
CPU (:mod:`ludic.suggest` parses dozens of edits, which fail at few distinct states)."""


def _accepted(error: UnexpectedToken) -> frozenset[str]:
    parser = error.interactive_parser
    if parser is None:
        return frozenset(error.accepts or error.expected)
    key = tuple(parser.parser_state.state_stack)
    found = _ACCEPTED.get(key)
    if found is None:
        found = frozenset(error.accepts or error.expected)
        if len(_ACCEPTED) >= 4096:
            _ACCEPTED.clear()
        _ACCEPTED[key] = found
    return found


def _syntax_error(text: str, error: UnexpectedInput) -> RuleError:
    line, column = error.line, error.column
    names: set[str] = set()
    if isinstance(error, UnexpectedCharacters):
        names = set(error.allowed or set())
        expected = _describe_expected(names)
        found = re.match(r"\S+", text[error.pos_in_stream:])
        what = f"'{found.group()}'" if found else "this"
        message = f"unexpected {what}"
    elif isinstance(error, UnexpectedToken) and error.token.type != "$END":
        names = set(_accepted(error))
        expected = _describe_expected(names)
        message = f"unexpected '{error.token}'"
    else:
        names = set(error.expected) if isinstance(error, (UnexpectedEOF, UnexpectedToken)) else set()
        expected = _describe_expected(names)
        lines = text.split("\n")
        line, column = len(lines), len(lines[-1]) + 1
        message = "the rule ends too early"
    if line is None or line < 1:
        line, column = 1, 1
    outside = _explain_outside(text)
    if outside is not None:
        outside.expected = expected
        outside.terminals = frozenset(names)
        return outside
    if expected:
        message += "; expected " + (expected[0] if len(expected) == 1 else "one of: " + ", ".join(expected))
    return RuleError(message, reason="syntax", line=line, column=column, expected=expected,
                     terminals=frozenset(names))


# ---- parse tree -> syntax tree -------------------------------------------------------------------
QUANTIFIER_WORDS: dict[str, QuantifierKind] = {
    "some": "some", "a": "some", "an": "some", "at least one": "some", "either": "some",
    "another": "some", "every": "every", "each": "every", "both": "every", "all": "every",
    "no": "no", "neither": "no", "none": "no", "exactly one": "exactly_one", "only one": "exactly_one",
    "one": "some", "every one": "every", "two": "every", "at most one": "at_most_one",
    "no more than one": "at_most_one", "not more than one": "at_most_one",
}
POSITIONS: dict[str, Position] = {
    "top": "top", "bottom": "bottom", "high": "high", "higher": "high", "highest": "high",
    "low": "low", "lower": "low", "lowest": "low",
}
COMPARATIVES: dict[str, CompareOp] = {
    "GREATER_THAN": "gt", "LESS_THAN": "lt", "AT_LEAST_AS": "ge", "AT_MOST_AS": "le", "AT_LEAST": "ge",
    "AT_MOST": "le", "EQUAL_TO": "eq",
    "DIVISIBLE_BY": "multiple", "OUTRANKED_BY": "lt", "MULTIPLE_OF": "multiple",
    "DIVISOR_OF": "divides",
}
SYMBOLS: dict[str, CompareOp] = {"=": "eq", "==": "eq", "!=": "ne", "≠": "ne", "<": "lt", "<=": "le",
                                 "≤": "le", ">": "gt", ">=": "ge", "≥": "ge"}
NEGATED_OP: dict[CompareOp, CompareOp] = {"eq": "ne", "ne": "eq", "lt": "ge", "ge": "lt", "gt": "le",
                                          "le": "gt"}


def _words(token: Token) -> str:
    return " ".join(str(token).lower().split())


def _attribute(token: Token) -> Attribute:
    word = _words(token)
    if word.startswith(("color", "colour")):
        return "color"
    if word.startswith("parit"):
        return "parity"
    return "value"


def _adjective(token: Token) -> str:
    word = _words(token)
    for name in ADJECTIVES:
        if word.startswith(name) or word.endswith(name) or word.endswith(name + "s"):
            return name
    return {"court": "face", "picture": "face", "spot": "pip"}[word]


def _is_card(term: Any) -> bool:
    return isinstance(term, (Card, Quantified))


def _check_rank(value: int, meta: Any) -> None:
    """Refuse a card said to be of a rank that is not in play (like an ace)."""
    if not MIN_RANK <= value <= MAX_RANK:
        ace = "; aces are not in play" if value in (1, 14) else ""
        raise _TypeError(f"{value} is not a card's rank: ranks go from 2 to king (13){ace}", meta, suggest=False)


class _TypeError(Exception):
    """Words that do not fit together; ``suggest``: whether a nearby wording may fix it (not for a
    rank that is not in play: no wording of it means anything)."""

    def __init__(self, message: str, meta: Any, suggest: bool = True) -> None:
        super().__init__(message)
        self.message = message
        self.suggest = suggest
        self.line = getattr(meta, "line", 1) or 1
        self.column = getattr(meta, "column", 1) or 1


NUMBER_NAMES = {
    "zero": 0, "one": 1, "two": 2, "deuce": 2, "three": 3, "trey": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
    "twenty": 20, "twenty one": 21, "twenty two": 22, "twenty three": 23, "twenty four": 24,
    "twenty five": 25, "twenty six": 26,
}


NUMBER_NAME_PATTERN = "(" + "|".join(sorted((n.replace(" ", r"[\s-]+") for n in NUMBER_NAMES), key=len,
                                             reverse=True)) + ")"
"""A number written as a word (``seven``, ``twenty-one``)."""


def _number_name(word: str) -> int:
    word = word.replace("-", " ")
    for candidate in (word, word[:-1], word[:-2]):
        if candidate in NUMBER_NAMES:
            return NUMBER_NAMES[candidate]
    raise KeyError(word)  # pragma: no cover - the terminal only matches these words


Builder = Callable[[Any, bool], Rule]
"""A predicate's meaning for a subject: ``build(subject, negated)`` is the statement."""


@dataclass(frozen=True)
class _Pred:
    """A predicate waiting for its subject (``is red``, ``or a queen``, ``differ by 3``).

    ``explicit``: it says its own verb or ``not`` (so a negated head does not reach it);
    ``set_level``: it speaks of the two cards together (``the same color``, ``consecutive``), so
    it cannot be said of one card; ``subject``: what the statement's subject becomes (``the
    cards differ by 3`` speaks of the difference); ``amount``: the number of a bare ``is 2``;
    ``offset``: for ``3 more than the bottom card``, the builder of the same offset by another
    amount (so ``2 or 3 more than the bottom card`` is 2 more or 3 more)."""

    build: Builder
    negated: bool = False
    explicit: bool = True
    set_level: bool = False
    subject: Callable[[Any], Any] | None = None
    ellipsis: bool = False
    amount: Any = None
    offset: Callable[[Any], Builder] | None = None
    color: bool | None = None
    """A card of a color and rank (``a red king``): True for red; its color may reach bare ranks after it."""
    rank: int | None = None
    """A bare rank without its article (``queen`` in ``a red king, queen or jack``)."""
    existential: bool = False
    """Said after ``there is`` / ``contains``: of some card of the set."""
    after_comma: bool = False
    """A fragment after a comma and its connective (``..., or a king``): grouped by the speaker."""


def _no_build(subject: Any, negated: bool) -> Rule:  # pragma: no cover - an ellipsis is never built
    raise AssertionError("an ellipsis takes the predicate of the statement before it")


@dataclass(frozen=True)
class _Said:
    """A statement of a chain: its rule, and its subject and predicate for the fragments after it."""

    rule: Rule
    subject: Any = None
    pred: _Pred | None = None


@dataclass(frozen=True)
class _Fragment:
    """A predicate without its subject in a chain (``or a queen``); with ``other``, a statement
    about ``the other card``: the card the statement before did not name."""

    pred: _Pred
    meta: Any
    kind: Literal["fragment", "other", "it", "ellipsis"] = "fragment"
    subject: Any = None


OTHER_POSITION: dict[Position, Position] = {"top": "bottom", "bottom": "top", "high": "low", "low": "high"}


def _joint_kind(tokens: list[Token]) -> str:
    """What the words between two parts of a chain say: if, then, unless, and, or, or a comma."""
    types = [t.type for t in tokens if t.type != "EITHER_LEAD"]
    for kind in ("OTHERWISE", "IF", "THEN", "UNLESS"):
        if kind in types:
            return kind.lower()
    if any(t in ("OR", "NOR") for t in types):
        return "or"
    if any(t in ("AND", "BUT") for t in types):
        return "and"
    return "comma" if types else ""


def _resolve_commas(kinds: list[str]) -> list[str]:
    """A comma takes the connective that ends its list (``A, B or C``), ``and`` if none follows."""
    out = list(kinds)
    following = "and"
    for i in range(len(out) - 1, -1, -1):
        if out[i] in ("and", "or"):
            following = out[i]
        elif out[i] == "comma":
            out[i] = following
    return out


def _grouping(tokens: list[Token]) -> bool:
    """A comma with its connective (``A and B, or C``): the speaker's grouping, this joint the loosest."""
    types = {t.type for t in tokens}
    return "COMMA" in types and bool(types & {"AND", "OR", "BUT", "NOR"})


def _bindings(kinds: list[str], commas: list[bool]) -> tuple[str, ...]:
    """Which connective binds tighter in a chain (commas resolved): ``("and",)`` when it does not mix
    them, or when commas group it (``A and B, or C``); ``("or",)`` for ``A or B, and C``; both
    (``and`` first, the default reading) when ``A and B or C`` can be read either way."""
    if not ("and" in kinds and "or" in kinds):
        return ("and",)
    ors = [c for k, c in zip(kinds, commas, strict=True) if k == "or"]
    ands = [c for k, c in zip(kinds, commas, strict=True) if k == "and"]
    if all(ors) and not any(ands):
        return ("and",)
    if all(ands) and not any(ors):
        return ("or",)
    return ("and", "or")


def _and_or(rules: list[Rule], kinds: list[str], tight: str = "and") -> Rule:
    """The rules joined by the connectives between them (commas resolved), ``tight`` binding tighter."""
    kinds = _resolve_commas(kinds)
    loose = "or" if tight == "and" else "and"
    groups: list[list[Rule]] = [[rules[0]]]
    for kind, rule in zip(kinds, rules[1:], strict=True):
        if kind == loose:
            groups.append([rule])
        else:
            groups[-1].append(rule)
    inner, outer = (And, Or) if tight == "and" else (Or, And)
    terms: list[Rule] = [g[0] if len(g) == 1 else inner(tuple(g)) for g in groups]
    return terms[0] if len(terms) == 1 else outer(tuple(terms))


def _over_positions(q: Quantified, body: Callable[[Card], Rule]) -> Rule:
    """A quantified card said to do several things at once (``both cards are red or black``): the
    quantifier over the two positions, each card doing all of it."""
    cases = []
    for position in ("top", "bottom"):
        card = Card(position)
        holds = body(card)
        if q.restrictors:
            holds = And((Property(card, q.restrictors), holds))
        cases.append(holds)
    some: Rule = Or(tuple(cases))
    if q.kind == "some":
        return some
    if q.kind == "no":
        return Not(some)
    if q.kind == "every":
        if not q.restrictors:
            return And(tuple(body(Card(p)) for p in ("top", "bottom")))
        return And(tuple(Implies(Property(Card(p), q.restrictors), body(Card(p)))
                         for p in ("top", "bottom")))
    if q.kind == "at_most_one":
        return Not(And(tuple(cases)))
    return Or((And((cases[0], Not(cases[1]))), And((cases[1], Not(cases[0])))))


def _group(head: _Said, members: list[tuple[str, _Pred]]) -> Rule:
    """A statement and the fragments that share its subject: ``the top card is a king or a queen``.

    A negated head (``is not``, ``isn't``, ``is neither ... nor``) negates the whole list when no
    fragment says its own ``not`` (``the top card is not a king or a queen``: neither).

    Bare numbers before a fragment share what it says of its number: ``2 or 3 more than the bottom
    card`` (2 more or 3 more), ``the cards are 2 or 3 apart`` (the difference is 2 or 3). A
    fragment with its own verb that speaks of another subject (``... or add up to 14``: the sum)
    says it of that subject."""
    assert head.pred is not None
    # the head's subject is applied; a fragment without a verb shares it ('2 apart or 3 apart')
    shared = head.pred.subject is not None
    preds = [replace(head.pred, subject=None)] + [p if p.explicit or not shared else replace(p, subject=None)
                                                  for _, p in members]
    kinds = [k for k, _ in members]
    for i in range(len(preds) - 1, 0, -1):
        by, renamed = preds[i].offset, None if preds[i].explicit else preds[i].subject
        j = i - 1
        while (by is not None or renamed is not None) and j >= 0 and isinstance(preds[j].amount, Const) \
                and preds[j].subject is None:
            if by is not None:
                preds[j] = replace(preds[j], build=by(preds[j].amount), amount=None, offset=by)
            preds[j] = replace(preds[j], subject=renamed)
            j -= 1
    wrap = head.pred.negated and not any(p.explicit for _, p in members)
    subject = head.subject
    if head.pred.existential and "and" in _resolve_commas(kinds):
        # 'the set contains a red card and a black card': two cards, one each
        if not (len(preds) == 2 and isinstance(subject, Quantified) and subject.kind == "some"):
            raise _TypeError("say of each card what it is: 'one card is red and the other is black', or 'there "
                             "is a red card and there is a black card'", None)
        first, second = preds
        top, bottom = Card("top"), Card("bottom")
        return Or((And((first.build(top, first.negated), second.build(bottom, second.negated))),
                   And((first.build(bottom, first.negated), second.build(top, second.negated)))))

    resolved = _resolve_commas(kinds)
    bindings = _bindings(resolved, [p.after_comma for _, p in members])

    def said(preds: list[_Pred], tight: str = bindings[0]) -> Rule:
        def body(card: Any) -> Rule:
            parts = [p.build(card if p.subject is None else p.subject(card), False if (wrap and i == 0) else p.negated)
                     for i, p in enumerate(preds)]
            joined = _and_or(parts, kinds, tight)
            return Not(joined) if wrap else joined

        if isinstance(subject, Quantified) and subject.kind != "other" and not any(
                p.set_level or p.subject is not None for p in preds):
            return _over_positions(subject, body)
        return body(subject)

    rule = said(preds)
    points = _POINTS.get()
    if points is not None:
        runs = _color_runs(preds, resolved)
        distributed = _distributed(subject, preds, resolved, wrap)
        if runs or len(bindings) > 1 or distributed is not None:
            alternatives = [] if distributed is None else [distributed]
            for tight, chosen in itertools.product(bindings, itertools.product((False, True), repeat=len(runs))):
                if tight != bindings[0] or any(chosen):
                    alternative = list(preds)
                    for (red, at), take in zip(runs, chosen, strict=True):
                        for j in at if take else ():
                            alternative[j] = _colored(preds[j], red)
                    alternatives.append(said(alternative, tight))
            points.append(_Point(tuple(id(p) for _, p in members), rule, tuple(alternatives)))
    return rule


def _distributed(subject: Any, preds: list[_Pred], kinds: list[str], wrap: bool) -> Rule | None:
    """``both cards are odd or red`` read the other way: both odd, or both red (the quantifier
    over each alternative, not each card doing one of them); None when the words do not allow it
    (``every card`` and ``each card`` speak of one card at a time: one reading)."""
    if not (isinstance(subject, Quantified) and subject.kind == "every" and subject.word not in ("every", "each")
            and len(preds) > 1 and not wrap
            and all(k == "or" for k in kinds) and not any(p.set_level or p.subject is not None for p in preds)):
        return None
    def each(pred: _Pred) -> Callable[[Card], Rule]:
        return lambda card: pred.build(card, pred.negated)

    return Or(tuple(_over_positions(subject, each(p)) for p in preds))


def _color_runs(preds: list[_Pred], kinds: list[str]) -> list[tuple[bool, list[int]]]:
    """Where a color may reach bare ranks after it: ``a red king, queen or jack`` (each run: the
    color, and the places of the ranks joined to it by 'or' without an article or a verb)."""
    runs = []
    for i, pred in enumerate(preds):
        if pred.color is None:
            continue
        at = []
        for j in range(i + 1, len(preds)):
            if kinds[j - 1] != "or" or preds[j].rank is None or preds[j].explicit:
                break
            at.append(j)
        if at:
            runs.append((pred.color, at))
    return runs


def _colored(pred: _Pred, red: bool) -> _Pred:
    """A bare rank read as a card of the color before it (``queen`` as ``a red queen``)."""
    rank = pred.rank
    assert rank is not None
    return replace(pred, build=lambda s, n: CardIs(s, red, rank, n), rank=None)


@dataclass(frozen=True)
class _Point:
    """A place where a rule can be read more than one way: the rule built there as read by
    default, and the other readings of that place. ``key`` names the words read (a statement
    repeated by ``... and the bottom card is not`` is read the same way both times)."""

    key: tuple[int, ...]
    rule: Rule
    alternatives: tuple[Rule, ...]


_POINTS: contextvars.ContextVar[list[_Point] | None] = contextvars.ContextVar("ludic_points", default=None)
"""While :func:`readings` parses: the places read more than one way (None otherwise)."""
MAX_READINGS = 16


def readings(text: str) -> list[Rule]:
    """Every way a rule's text can be read (the first is the default, :func:`parse`'s), when its
    scope can be read more than one way (``the top card is a red king, queen or jack``: the color
    of the king only, or of all three). Readings may still have the same meaning: comparing their
    tables is the caller's business (:func:`ludic.rules.scope_readings`). Raises like :func:`parse`."""
    parse(text)
    token = _POINTS.set([])
    try:
        rule = _parse(text)
        points = _POINTS.get() or []
    finally:
        _POINTS.reset(token)
    by_key: dict[tuple[int, ...], list[_Point]] = {}
    for point in points:
        by_key.setdefault(point.key, []).append(point)
    groups = list(by_key.values())
    out: list[Rule] = []
    for choice in itertools.product(*(range(len(g[0].alternatives) + 1) for g in groups)):
        swap = {id(p.rule): p.alternatives[k - 1] for g, k in zip(groups, choice, strict=True) if k for p in g}
        out.append(_substitute(rule, swap))
        if len(out) >= MAX_READINGS:
            break
    return out


def _substitute(rule: Rule, swap: dict[int, Rule]) -> Rule:
    """The rule with the parts named (by identity) in ``swap`` replaced."""
    if not swap:
        return rule
    rule = swap.get(id(rule), rule)  # and the places read another way inside it
    if isinstance(rule, Not):
        return Not(_substitute(rule.operand, swap))
    if isinstance(rule, And):
        return And(tuple(_substitute(r, swap) for r in rule.operands))
    if isinstance(rule, Or):
        return Or(tuple(_substitute(r, swap) for r in rule.operands))
    if isinstance(rule, Implies):
        return Implies(_substitute(rule.condition, swap), _substitute(rule.consequence, swap))
    return rule


def _repeat(pred: _Pred, members: list[tuple[str, _Pred]]) -> Callable[[Any, bool], Rule]:
    """A statement's predicate (with its fragments) said again of another subject, negated or not
    (``... and the bottom card is not``)."""

    def said(subject: Any, negated: bool) -> Rule:
        return _group(_Said(pred.build(subject, negated), subject, replace(pred, negated=negated)), members)

    return said


@v_args(meta=True)
class _Build(Transformer[Token, Rule]):
    """Turns lark's parse tree into the syntax tree, checking that the words fit together."""

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self.text = text

    # ---- logic: the chain of statements, fragments and connectives ----
    def start(self, meta: Any, children: list[Any]) -> Rule:
        rule: Rule = children[0]
        return rule

    def joint(self, meta: Any, c: list[Token]) -> Token:
        return c[0]

    def group(self, meta: Any, c: list[Any]) -> Rule:
        return _rule(c[0])

    def negation(self, meta: Any, c: list[Any]) -> Rule:
        return Not(_rule(c[1]))

    def chain(self, meta: Any, c: list[Any]) -> Rule:
        leading: list[Token] = []
        while isinstance(c[0], Token):
            leading.append(c.pop(0))
        exclusive = isinstance(c[-1], Token) and c[-1].type == "NOT_BOTH"
        if exclusive:
            c = c[:-1]
        parts: list[Any] = []  # rules and lists of joint tokens, alternating
        head: _Said | None = None
        members: list[tuple[str, _Pred]] = []
        pending: list[Token] = []
        last_subject: Any = None
        last_body: Callable[[Any, bool], Rule] | None = None

        def flush() -> None:
            nonlocal head, members, last_body
            if head is not None:
                parts.append(_group(head, members) if members else head.rule)
                if head.pred is not None:
                    last_body = _repeat(head.pred, list(members))
            head, members = None, []

        for item in c:
            if isinstance(item, Token):
                pending.append(item)
                continue
            joint, pending = pending, []
            if isinstance(item, _Fragment) and item.kind == "fragment":
                kind = _joint_kind(joint)
                if item.pred.ellipsis:
                    raise _TypeError("'is not' alone needs its subject: say which card or number is not "
                                     "(e.g. 'the top card is red and the bottom card is not')", item.meta)
                if head is None or head.pred is None or kind not in ("and", "or", "comma"):
                    raise _TypeError("this part has no subject: say which card or number it is about "
                                     "(e.g. 'the top card is a king or a queen', not 'or a queen' alone)",
                                     item.meta)
                members.append((kind, replace(item.pred, after_comma=_grouping(joint))))
                continue
            flush()
            if parts:
                parts.append(joint)
            if isinstance(item, _Fragment):
                head = self._deferred(item, last_subject, last_body)
            elif isinstance(item, _Said):
                head = item
            else:
                head = _Said(item)
            last_subject = head.subject
        flush()
        rule = _structure(leading, parts, meta)
        if exclusive:
            if not (isinstance(rule, Or) and len(rule.operands) == 2):
                raise _TypeError("'but not both' follows two statements joined by 'or'", meta)
            a, b = rule.operands
            rule = Or((And((a, Not(b))), And((b, Not(a)))))
        return rule

    @staticmethod
    def _deferred(item: _Fragment, subject: Any, body: Callable[[Any, bool], Rule] | None) -> _Said:
        """A statement that needs the one before it: ``the other card is ...`` (the card it did not
        name), ``it is ...`` (its subject), ``... and the bottom card is not`` (its predicate)."""
        if item.kind == "ellipsis":
            if body is None:
                raise _TypeError("'is not' alone needs a statement before it to repeat", item.meta)
            return _Said(body(item.subject, item.pred.negated), item.subject)
        if item.kind == "it":
            if subject is None:
                raise _TypeError("'it' needs a card or number named before it", item.meta)
        else:
            if not isinstance(subject, Card):
                raise _TypeError("'the other card' needs a card named before it (e.g. 'the top card is "
                                 "red and the other card is black')", item.meta)
            subject = Card(OTHER_POSITION[subject.position])
        return _Said(item.pred.build(subject, item.pred.negated), subject, item.pred)

    def ellipsis(self, meta: Any, c: list[Any]) -> _Pred:
        return _Pred(_no_build, True, True, ellipsis=True)

    def it_statement(self, meta: Any, c: list[Any]) -> _Fragment:
        return _Fragment(c[-1], meta, kind="it")

    # ---- statements ----
    def statement(self, meta: Any, c: list[Any]) -> _Said | _Fragment:
        subject, pred = c
        if pred.ellipsis:
            return _Fragment(pred, meta, kind="ellipsis", subject=subject)
        if pred.subject is not None:
            subject = pred.subject(subject)
        return _Said(pred.build(subject, pred.negated), subject, pred)

    def one_and_other(self, meta: Any, c: list[Any]) -> _Said:
        first, second = (x for x in c if isinstance(x, _Pred))
        top, bottom = Card("top"), Card("bottom")
        return _Said(Or((And((first.build(top, first.negated), second.build(bottom, second.negated))),
                         And((first.build(bottom, first.negated), second.build(top, second.negated))))))

    def there_is(self, meta: Any, c: list[Any], restrictors: tuple[str, ...] = ()) -> _Said:
        """``there is a face card`` (some card is), ``there are no face cards`` (no card is), ``there
        is a pair`` (the cards form a pair)."""
        kind: QuantifierKind = "no" if c[0].type == "THERE_BE_NO" else "some"
        if c[0].type == "THERE_BE_COUNT":
            kind = QUANTIFIER_WORDS[" ".join(_words(c[0]).split()[2:])]
        pred = replace(c[-1], explicit=True, existential=True)
        if pred.set_level and not restrictors and kind in ("some", "no"):
            cards = Quantified("every", (), "the cards")
            return _Said(pred.build(cards, kind == "no"), cards, replace(pred, negated=kind == "no"))
        subject = Quantified(kind, restrictors, kind)
        return _Said(pred.build(subject, False), subject, pred)

    def there_is_card(self, meta: Any, c: list[Any]) -> _Said:
        """``there is no card greater than 9``, ``there is a red card that is odd``."""
        restrictors = next((x for x in c if isinstance(x, tuple)), ())
        if any(isinstance(t, Token) and t.type == "NUMBER_CARD" for t in c):
            restrictors = (*restrictors, "pip")
        return self.there_is(meta, [c[0], c[-1]], restrictors)

    def other_statement(self, meta: Any, c: list[Any]) -> _Fragment:
        return _Fragment(c[-1], meta, kind="other")

    def fragment(self, meta: Any, c: list[Any]) -> _Fragment:
        pred: _Pred = c[-1]
        if isinstance(c[0], Token) and c[0].type == "NOT":
            pred = replace(pred, negated=True, explicit=True)
        return _Fragment(pred, meta)

    # ---- predicates ----
    def be(self, meta: Any, c: list[Token]) -> bool:
        return any(t.type in ("NOT", "ISNT", "NEITHER") for t in c)

    def predicate(self, meta: Any, c: list[Any]) -> _Pred:
        negated: bool = c[0]
        comp: _Pred = c[1]
        return replace(comp, negated=negated, explicit=True)

    def _pred(self, build: Builder, *, negated: bool = False, set_level: bool = False,
              subject: Callable[[Any], Any] | None = None) -> _Pred:
        return _Pred(build, negated, True, set_level, subject)

    def have(self, meta: Any, c: list[Any]) -> _Pred:
        return self._likeness_pred(meta, c[-1], False)

    def have_not(self, meta: Any, c: list[Any]) -> _Pred:
        return self._likeness_pred(meta, c[-1], True)

    def _likeness_pred(self, meta: Any, likeness: tuple[Any, ...], negated: bool) -> _Pred:
        if len(likeness) == 2:
            same, attribute = likeness
            return self._pred(lambda s, n: self._set_like(meta, s, attribute, same, n), negated=negated,
                              set_level=True)
        same, attribute, right = likeness
        return self._pred(lambda s, n: self._compare(meta, s, "same" if same else "different", right, n, attribute),
                          negated=negated)

    def symbol(self, meta: Any, c: list[Any]) -> _Pred:
        op = SYMBOLS[str(c[0])]
        return self._pred(lambda s, n: self._compare(meta, s, op, c[1], n))

    def _verb_pred(self, meta: Any, c: list[Any], negated: bool) -> _Pred:
        verb = _words(next(t for t in c if isinstance(t, Token) and t.type == "VERB"))
        op: CompareOp = "divides" if verb.startswith("divide") else "eq" if verb.startswith("equal") else "gt"
        target = c[-1]
        return self._pred(lambda s, n: self._compare(meta, s, op, target, n), negated=negated)

    def verb(self, meta: Any, c: list[Any]) -> _Pred:
        return self._verb_pred(meta, c, False)

    def verb_not(self, meta: Any, c: list[Any]) -> _Pred:
        return self._verb_pred(meta, c, True)

    def _both_cards(self, meta: Any, subject: Any, what: str) -> Aggregate:
        if not (isinstance(subject, Quantified) and subject.kind == "every" and not subject.restrictors):
            example = {"contain": "the set contains a face card", "a pair": "the cards are a pair",
                       "consecutive": "the cards are consecutive", "are ... apart": "the cards are 2 apart",
                       "differ by": "the cards differ by 2", "add up to": "the cards add up to 14"}[what]
            raise _TypeError(f"'{what}' speaks of the two cards of the set together: say '{example}'", meta)
        return Aggregate("difference")

    def differ_by(self, meta: Any, c: list[Any]) -> _Pred:
        comp: _Pred = c[-1]
        return replace(comp, explicit=True, subject=lambda s: self._both_cards(meta, s, "differ by"))

    def differ_by_not(self, meta: Any, c: list[Any]) -> _Pred:
        return replace(self.differ_by(meta, c), negated=True)

    def add_up_to(self, meta: Any, c: list[Any]) -> _Pred:
        comp: _Pred = c[-1]

        def total(s: Any) -> Aggregate:
            self._both_cards(meta, s, "add up to")
            return Aggregate("sum")

        return replace(comp, explicit=True, subject=total)

    def add_up_to_not(self, meta: Any, c: list[Any]) -> _Pred:
        return replace(self.add_up_to(meta, c), negated=True)

    def _contain(self, meta: Any, comp: _Pred, kind: QuantifierKind) -> _Pred:
        def some_card(subject: Any) -> Quantified:
            self._both_cards(meta, subject, "contain")
            return Quantified(kind, (), kind)

        return replace(comp, explicit=True, existential=True, subject=some_card)

    def contain(self, meta: Any, c: list[Any]) -> _Pred:
        """``the set contains a face card`` (some card is), ``contains no face card`` (no card is)."""
        return self._contain(meta, c[-1], "no" if c[0].type == "CONTAIN_NO" else "some")

    def contain_not(self, meta: Any, c: list[Any]) -> _Pred:
        return self._contain(meta, c[-1], "no")

    def _have_rank(self, meta: Any, c: list[Any], negated: bool) -> _Pred:
        higher = any(isinstance(t, Token) and t.type == "HIGHER_RANK" for t in c)
        target = c[-1]
        op: CompareOp = "gt" if higher else "lt"
        return self._pred(lambda s, n: self._compare(meta, s, op, target, n), negated=negated)

    def have_rank(self, meta: Any, c: list[Any]) -> _Pred:
        """``the top card has a higher rank than the bottom card`` (outranks)."""
        return self._have_rank(meta, c, False)

    def have_rank_not(self, meta: Any, c: list[Any]) -> _Pred:
        return self._have_rank(meta, c, True)

    def form_pair(self, meta: Any, c: list[Any]) -> _Pred:
        return self.pair(meta, c)

    def form_pair_not(self, meta: Any, c: list[Any]) -> _Pred:
        return replace(self.pair(meta, c), negated=True)

    # ---- complements (what follows 'is') ----
    def _comp(self, build: Builder, *, set_level: bool = False) -> _Pred:
        return _Pred(build, False, False, set_level)

    def adjectives(self, meta: Any, c: list[str]) -> tuple[str, ...]:
        return tuple(c)

    def property(self, meta: Any, c: list[Any]) -> _Pred:
        adjectives = next(x for x in c if isinstance(x, tuple))
        noun = next((t.type for t in c if isinstance(t, Token) and t.type in ("CARD", "NUMBER_WORD")), "")
        word: Literal["card", "number", ""] = "card" if noun == "CARD" else "number" if noun else ""
        return self._comp(lambda s, n: self._property(meta, s, adjectives, word, n))

    def number_card(self, meta: Any, c: list[Any]) -> _Pred:
        adjectives = next((x for x in c if isinstance(x, tuple)), ())
        return self._comp(lambda s, n: self._property(meta, s, (*adjectives, "pip"), "card", n))

    def _property(self, meta: Any, subject: Any, adjectives: tuple[str, ...], noun: Literal["card", "number", ""],
                  negated: bool) -> Property:
        if not _is_card(subject):
            wrong = [a for a in adjectives if a in CARD_ADJECTIVES]
            if wrong or noun == "card":
                raise _TypeError(f"'{(wrong or ['card'])[0]}' describes a card, and the subject here is a "
                                 "number", meta)
        return Property(subject, adjectives, negated, noun)

    def rank_literal(self, meta: Any, c: list[Token]) -> Const:
        return self.number(meta, c)

    def card_literal(self, meta: Any, c: list[Any]) -> _Pred:
        red = any(isinstance(t, Token) and t.type == "RED" for t in c)
        value = c[-1].value

        _check_rank(value, meta)

        def build(subject: Any, negated: bool) -> CardIs:
            if not _is_card(subject):
                raise _TypeError("only a card can be a red or black card of some rank", meta)
            return CardIs(subject, red, value, negated)

        return replace(self._comp(build), color=red)

    def comparative(self, meta: Any, c: list[Token]) -> CompareOp:
        return COMPARATIVES[c[-1].type]

    def compare(self, meta: Any, c: list[Any]) -> _Pred:
        op, target = c[-2], c[-1]
        return self._comp(lambda s, n: self._compare(meta, s, op, target, n))

    def equals(self, meta: Any, c: list[Any]) -> _Pred:
        comp = self._comp(lambda s, n: self._compare(meta, s, "eq", c[-1], n))
        written = self.text[getattr(meta, "start_pos", 0):getattr(meta, "end_pos", 0)]
        if isinstance(c[-1], Const) and MIN_RANK <= c[-1].value <= MAX_RANK and not re.match(r"an?\b", written.strip(),
                                                                                           flags=re.I):
            comp = replace(comp, rank=c[-1].value)  # a bare rank ('queen' in 'a red king, queen or jack')
        if re.fullmatch(r"\d+|" + NUMBER_NAME_PATTERN, written.strip(), flags=re.I):
            return replace(comp, amount=c[-1])  # a bare number ('2 or 3 more than ...'), not 'a king'
        return comp

    def bounded(self, meta: Any, c: list[Any]) -> _Pred:
        bound = _words(c[-1]).split()[-1]
        op: CompareOp = "ge" if bound in ("more", "higher", "greater", "above", "over") else "le"
        return self._comp(lambda s, n: self._compare(meta, s, op, c[-2], n))

    def offset(self, meta: Any, c: list[Any]) -> _Pred:
        amount, word, target = c
        if isinstance(target, Quantified):
            raise _TypeError("say which card: 'the top card is 2 more than the bottom card'", meta)
        more = _words(word).split()[0] in ("more", "higher", "greater", "larger", "bigger")

        def by(amount: Any) -> Builder:
            value = Arith("+" if more else "-", target, amount)
            return lambda s, n: self._compare(meta, s, "eq", value, n)

        return replace(self._comp(by(amount)), offset=by)

    def apart(self, meta: Any, c: list[Any]) -> _Pred:
        amount = c[0]
        comp = self._comp(lambda s, n: self._compare(meta, s, "eq", amount, n))
        return replace(comp, subject=lambda s: self._both_cards(meta, s, "are ... apart"))

    def apart_compare(self, meta: Any, c: list[Any]) -> _Pred:
        op, amount = c[0], c[1]
        comp = self._comp(lambda s, n: self._compare(meta, s, op, amount, n))
        return replace(comp, subject=lambda s: self._both_cards(meta, s, "are ... apart"))

    def times(self, meta: Any, c: list[Any]) -> _Pred:
        """``twice the bottom card`` (= bottom * 2), ``half the bottom card`` (the subject * 2 = bottom)."""
        word = _words(c[0]).split()[0]
        target = c[-1]
        if isinstance(target, Quantified):
            raise _TypeError(f"say which card: 'the top card is {word} the bottom card'", meta)

        def build(subject: Any, negated: bool) -> Compare:
            if isinstance(subject, Quantified):
                raise _TypeError(f"say which card is {word} another: 'the top card is {word} the bottom card'", meta)
            if word == "half":
                return self._compare(meta, Arith("*", subject, Const(2)), "eq", target, negated)
            factor = 2 if word in ("twice", "double") else 3
            return self._compare(meta, subject, "eq", Arith("*", target, Const(factor)), negated)

        return self._comp(build)

    def between(self, meta: Any, c: list[Any]) -> _Pred:
        low, high = (x for x in c if not isinstance(x, Token))
        return self._comp(lambda s, n: Between(s, low, high, n))

    def likeness(self, meta: Any, c: list[Any]) -> _Pred:
        same, attribute, right = c[-1]
        return self._comp(lambda s, n: self._compare(meta, s, "same" if same else "different", right, n, attribute))

    def set_likeness(self, meta: Any, c: list[Any]) -> _Pred:
        same, attribute = c[-1]
        return self._comp(lambda s, n: self._set_like(meta, s, attribute, same, n), set_level=True)

    def consecutive(self, meta: Any, c: list[Any]) -> _Pred:
        return self._comp(lambda s, n: Compare(self._both_cards(meta, s, "consecutive"), "eq", Const(1), n),
                          set_level=True)

    def pair(self, meta: Any, c: list[Any]) -> _Pred:
        def build(subject: Any, negated: bool) -> SetLike:
            self._both_cards(meta, subject, "a pair")
            return SetLike("value", True, negated)

        return _Pred(build, False, False, True)

    def _set_like(self, meta: Any, subject: Any, attribute: Attribute, same: bool, negated: bool) -> SetLike:
        if not (isinstance(subject, Quantified) and subject.kind == "every" and not subject.restrictors):
            raise _TypeError("'the same ...' without 'as' compares the two cards of the set: say 'the "
                             "cards' or 'both cards'", meta)
        return SetLike(attribute, same, negated)

    def same(self, meta: Any, c: list[Any]) -> tuple[bool, Attribute, Any]:
        return True, _attribute(c[2]), c[-1]

    def different(self, meta: Any, c: list[Any]) -> tuple[bool, Attribute, Any]:
        attribute = next(t for t in c if isinstance(t, Token) and t.type == "ATTRIBUTE")
        return False, _attribute(attribute), c[-1]

    def set_same(self, meta: Any, c: list[Token]) -> tuple[bool, Attribute]:
        return True, _attribute(c[-1])

    def set_different(self, meta: Any, c: list[Token]) -> tuple[bool, Attribute]:
        return False, _attribute(c[-1])

    def _compare(self, meta: Any, left: Any, op: CompareOp, right: Any, negated: bool,
                 attribute: Attribute | None = None) -> Compare:
        if isinstance(right, Quantified) and right.kind == "other" and not _is_card(left):
            raise _TypeError("'the other card' needs a card before it", meta)
        if attribute == "color" and not (_is_card(left) and _is_card(right)):
            raise _TypeError("only cards have a color", meta)
        if op in ("eq", "ne") and attribute is None:
            for card, number in ((left, right), (right, left)):
                if isinstance(card, (Card, Quantified, ValueOf)) and isinstance(number, Const):
                    _check_rank(number.value, meta)
        return Compare(left, op, right, negated, attribute)

    # ---- cards ----
    def card(self, meta: Any, c: list[Token]) -> Card:
        return Card(POSITIONS[next(_words(t) for t in c if t.type == "POSITION")])

    def adjective(self, meta: Any, c: list[Token]) -> str:
        return _adjective(c[0])

    def quantified(self, meta: Any, c: list[Any]) -> Quantified:
        word = _words(c[0])
        restrictors = next((x for x in c if isinstance(x, tuple)), ())
        if word == "two" and restrictors:
            raise _TypeError("say 'both cards are ...' with every property they have (e.g. 'both cards are "
                             "red and odd')", meta)
        return Quantified(QUANTIFIER_WORDS[word], restrictors, word)

    def quantified_number_card(self, meta: Any, c: list[Any]) -> Quantified:
        q = self.quantified(meta, c)
        return replace(q, restrictors=(*q.restrictors, "pip"))

    def quantified_of(self, meta: Any, c: list[Token]) -> Quantified:
        word = re.split(r"\s+of\s+", _words(c[0]))[0]
        return Quantified(QUANTIFIER_WORDS[word], (), word)

    def the_cards(self, meta: Any, c: list[Any]) -> Quantified:
        return Quantified("every", (), "the cards")

    def either_card(self, meta: Any, c: list[Any]) -> Quantified:
        return Quantified("some", (), "either")

    def other_card(self, meta: Any, c: list[Any]) -> Quantified:
        return Quantified("other", (), "the other")

    # ---- numbers ----
    def number(self, meta: Any, c: list[Token]) -> Const:
        token = c[0]
        if token.type == "NUMBER_NAME":
            return Const(_number_name(_words(token)))
        word = _words(token).rstrip("s")
        ranks = {v: k for k, v in RANK_WORDS.items()}
        if word in ranks:
            return Const(ranks[word])
        value = int(word) if len(word) <= len(str(MAX_NUMBER)) else MAX_NUMBER + 1
        if value > MAX_NUMBER:
            raise _TypeError(f"numbers above {MAX_NUMBER} are not needed for two cards", meta)
        return Const(value)
    def value_of(self, meta: Any, c: list[Any]) -> ValueOf:
        return ValueOf(c[-1])

    def total(self, meta: Any, c: list[Any]) -> Aggregate:
        return Aggregate("sum")

    def difference(self, meta: Any, c: list[Any]) -> Aggregate:
        return Aggregate("difference")

    def product(self, meta: Any, c: list[Any]) -> Aggregate:
        return Aggregate("product")

    def _arith(self, op: Literal["+", "-", "*", "mod"], meta: Any, c: list[Any]) -> Arith:
        left, right = c[0], c[-1]
        for side in (left, right):
            if isinstance(side, Quantified):
                raise _TypeError("a quantified card cannot be used in arithmetic", meta)
        return Arith(op, left, right)

    def add(self, meta: Any, c: list[Any]) -> Arith:
        return self._arith("+", meta, c)

    def subtract(self, meta: Any, c: list[Any]) -> Arith:
        return self._arith("-", meta, c)

    def multiply(self, meta: Any, c: list[Any]) -> Arith:
        return self._arith("*", meta, c)

    def modulo(self, meta: Any, c: list[Any]) -> Arith:
        return self._arith("mod", meta, c)

    def remainder(self, meta: Any, c: list[Any]) -> Arith:
        amounts = [x for x in c if not isinstance(x, Token)]
        return Arith("mod", amounts[0], amounts[1])

    def article(self, meta: Any, c: list[Any]) -> Number:
        amount: Number = c[1]
        return amount



def _rule(item: Any) -> Rule:
    """The rule of a chain's part (a statement, or a rule already built)."""
    if isinstance(item, _Said):
        return item.rule
    if isinstance(item, _Fragment):
        raise _TypeError("this part has no subject: say which card or number it is about", item.meta)
    rule: Rule = item
    return rule


def _structure(leading: list[Token], parts: list[Any], meta: Any) -> Rule:
    """The logic of a chain: ``parts`` alternates rules and the joint words between them.

    ``if A then B`` / ``if A, B`` (everything after ``then`` or the first such comma is B),
    ``B if A``, ``B unless A`` (= B or A), ``unless A, B``; else ``and`` before ``or``."""
    rules: list[Rule] = parts[0::2]
    kinds = [_joint_kind(j) for j in parts[1::2]]
    lead = _joint_kind(leading)
    where = leading[0] if leading else meta

    def before(at: int) -> list[Any]:  # the rules up to the at-th and the joints between them
        return parts[: 2 * at + 1]

    def after(at: int) -> list[Any]:  # the rules after the at-th joint
        return parts[2 * at + 2:]

    if lead == "if" and "otherwise" in kinds:
        at = kinds.index("otherwise")
        condition_and_then = _structure(leading, before(at), meta)
        otherwise = _structure([], after(at), meta)
        assert isinstance(condition_and_then, Implies)
        return And((condition_and_then, Implies(Not(condition_and_then.condition), otherwise)))
    if lead in ("if", "unless"):
        split = next((i for i, k in enumerate(kinds) if k == "then"), None)
        if split is None:
            split = next((i for i, k in enumerate(kinds) if k == "comma"), None)
        if split is None:
            raise _TypeError(f"'{lead}' needs its consequence: '{lead} A then B' or '{lead} A, B'", where)
        condition = _structure([], before(split), meta)
        consequence = _structure([], after(split), meta)
        return Implies(condition, consequence) if lead == "if" else Or((consequence, condition))
    if lead not in ("", "or"):
        raise _TypeError(f"a rule cannot begin with '{leading[0]}'", where)
    for kind in ("if", "unless"):
        if kind in kinds:
            at = kinds.index(kind)
            consequence = _structure([], before(at), meta)
            condition = _structure([], after(at), meta)
            return Implies(condition, consequence) if kind == "if" else Or((consequence, condition))
    if "then" in kinds:
        raise _TypeError("'then' without 'if': write 'if A then B'", meta)
    bindings = _bindings(_resolve_commas(kinds), [_grouping(j) for j in parts[1::2]])
    rule = _and_or(rules, kinds, bindings[0])
    points = _POINTS.get()
    if points is not None and len(bindings) > 1:
        points.append(_Point((id(rule),), rule, (_and_or(rules, kinds, bindings[1]),)))
    return rule


@functools.lru_cache(maxsize=1)
def _parser() -> Lark:
    # Beside this module (not importlib.resources: under pytest, tests/ludic can shadow the
    # package name as a namespace portion).
    grammar = Path(__file__).with_name("rule.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=False)


@functools.lru_cache(maxsize=4096)
def parse(text: str) -> Rule:
    """The syntax tree of a rule; :class:`RuleError` with line and column if it is not one, and
    the nearest wording the language accepts when there is one (:mod:`ludic.suggest`)."""
    try:
        return _parse(text)
    except RuleError as error:
        if error.reason in SUGGESTED and error.suggestible:
            found = nearest(text, offset(text, error.line, error.column), sorted(error.terminals), _attempt)
            if found is not None:
                error.suggest(found)
        raise


SUGGESTED = ("syntax", "type", "suit")
"""Refusals worth a suggestion (not: outside the set, too large, ambiguous, illegal)."""


def _attempt(text: str) -> tuple[int, list[str]] | None:
    try:
        _parse(text)
    except RuleError as error:
        return offset(text, error.line, error.column), sorted(error.terminals)
    return None


def _parse(text: str) -> Rule:
    if not text or not text.strip():
        raise RuleError("the rule is empty", reason="syntax", line=1, column=1,
                        expected=["a statement about the set, e.g. 'the top card is red'"])
    if len(text) > MAX_TEXT:
        raise RuleError(f"a rule is at most {MAX_TEXT} characters", reason="size")
    _check_parentheses(text)
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as error:
        raise _syntax_error(text, error) from None
    if _depth(tree) > MAX_DEPTH:
        raise RuleError(f"the rule nests too deeply (more than {MAX_DEPTH} levels of 'not', operators "
                        "or parentheses)", reason="size", line=1, column=1)
    try:
        return _Build(text).transform(tree)
    except VisitError as error:
        inner = error.orig_exc
        if isinstance(inner, _TypeError):
            refused = RuleError(inner.message, reason="type", line=inner.line, column=inner.column)
            refused.suggestible = inner.suggest
            raise refused from None
        raise
    except RecursionError:  # pragma: no cover - the depth bound comes first; a last resort
        raise RuleError("the rule nests too deeply", reason="size", line=1, column=1) from None


def _check_parentheses(text: str) -> None:
    """Refuse parentheses nested deeper than :data:`MAX_PARENTHESES`, at the one too many."""
    depth = 0
    for index, char in enumerate(text):
        if char == "(":
            depth += 1
            if depth > MAX_PARENTHESES:
                line = text.count("\n", 0, index) + 1
                column = index - (text.rfind("\n", 0, index) + 1) + 1
                raise RuleError(f"parentheses nest more than {MAX_PARENTHESES} deep", reason="size",
                                line=line, column=column)
        elif char == ")":
            depth -= 1


def _depth(tree: Tree[Token]) -> int:
    """The height of lark's parse tree, walked without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(tree, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        if isinstance(node, Tree) and level <= MAX_DEPTH:
            stack.extend((child, level + 1) for child in node.children)
    return deepest


# ---- syntax tree -> text ---------------------------------------------------------------------------
def _number_text(value: int) -> str:
    return RANK_WORDS.get(value, str(value))


def _card_text(card: Card) -> str:
    return f"the {card.position} card"


def _quantified_text(q: Quantified, as_object: bool = False) -> str:
    adjectives = "".join(f"{a} " for a in q.restrictors)
    if q.kind == "other":
        return "the other card"
    if q.word == "the cards" and not adjectives and not as_object:
        return "the cards"
    if not adjectives and q.kind in ("every", "no") and not as_object:
        return "both cards" if q.kind == "every" else "neither card"
    word = {"some": "some", "every": "every", "no": "no", "exactly_one": "exactly one",
            "at_most_one": "at most one"}[q.kind]
    return f"{word} {adjectives}card"


def _is_plural(term: Term) -> bool:
    return isinstance(term, Quantified) and _quantified_text(term) in ("the cards", "both cards")


PRECEDENCE = {"+": 1, "-": 1, "*": 2, "mod": 2}


def _number(term: Term, parent: int = 0, right: bool = False) -> str:
    if isinstance(term, Const):
        return str(term.value)
    if isinstance(term, Card):
        return _card_text(term)
    if isinstance(term, Quantified):
        return _quantified_text(term)
    if isinstance(term, ValueOf):
        return f"the value of {_card_text(term.card)}"
    if isinstance(term, Aggregate):
        return f"the {term.kind}"
    level = PRECEDENCE[term.op]
    text = f"{_number(term.left, level)} {term.op} {_number(term.right, level, right=True)}"
    return f"({text})" if level < parent or (right and level == parent) else text


OP_TEXT: dict[CompareOp, tuple[str, str]] = {
    "eq": ("is", "is not"), "ne": ("is not", "is"), "lt": ("is less than", "is not less than"),
    "le": ("is at most", "is not at most"), "gt": ("is greater than", "is not greater than"),
    "ge": ("is at least", "is not at least"), "divides": ("divides", "does not divide"),
    "multiple": ("is a multiple of", "is not a multiple of"),
}


def _be(subject: Term, negated: bool = False) -> str:
    verb = "are" if _is_plural(subject) else "is"
    return f"{verb} not" if negated else verb


def _property_text(p: Property) -> str:
    subject = _number(p.subject)
    adjectives = list(p.adjectives)
    noun = p.noun
    if len(adjectives) == 1 and not noun and adjectives[0] in ("face", "pip"):
        noun = "card"
    if len(adjectives) == 1 and not noun and adjectives[0] == "square":
        return f"{subject} {_be(p.subject, p.negated)} a square"
    words = " ".join(adjectives)
    if noun:
        article = "an" if words[:1] in "aeiou" else "a"
        words = f"{article} {words} {noun}"
    return f"{subject} {_be(p.subject, p.negated)} {words}"


def _compare_text(c: Compare) -> str:
    left = _number(c.subject)
    right = _quantified_text(c.target, as_object=True) if isinstance(c.target, Quantified) else _number(c.target)
    if c.op in ("same", "different"):
        attribute = "rank" if c.attribute == "value" else str(c.attribute)
        have = ("do not have" if _is_plural(c.subject) else "does not have") if c.negated else (
            "have" if _is_plural(c.subject) else "has")
        if c.op == "same":
            return f"{left} {have} the same {attribute} as {right}"
        return f"{left} {have} a different {attribute} from {right}"
    cards = _is_card(c.subject) and _is_card(c.target)
    if c.op == "gt" and cards:
        return f"{left} {'does not outrank' if c.negated else 'outranks'} {right}"
    if c.op == "eq" and isinstance(c.target, Const) and _is_card(c.subject) and c.target.value in RANK_WORDS:
        return f"{left} {_be(c.subject, c.negated)} a {_number_text(c.target.value)}"
    text = OP_TEXT[c.op][1 if c.negated else 0]
    if _is_plural(c.subject) and text.startswith("is"):
        text = "are" + text[2:]
    if _is_plural(c.subject) and text.startswith("does"):
        text = "do" + text[4:]
    if _is_plural(c.subject) and text == "divides":
        text = "divide"
    return f"{left} {text} {right}"


def render(rule: Rule, parent: str = "") -> str:
    """The canonical text of a syntax tree (parses back to a rule with the same meaning)."""
    if isinstance(rule, Property):
        return _property_text(rule)
    if isinstance(rule, CardIs):
        color = "red" if rule.red else "black"
        return f"{_number(rule.subject)} {_be(rule.subject, rule.negated)} a {color} {_number_text(rule.value)}"
    if isinstance(rule, Compare):
        return _compare_text(rule)
    if isinstance(rule, Between):
        return (f"{_number(rule.subject)} {_be(rule.subject, rule.negated)} between "
                f"{_number(rule.low)} and {_number(rule.high)}")
    if isinstance(rule, SetLike):
        attribute = {"color": "color", "value": "rank", "parity": "parity"}[rule.attribute]
        if rule.same:
            verb = "do not have" if rule.negated else "have"
            return f"the cards {verb} the same {attribute}"
        plural = {"color": "colors", "rank": "ranks", "parity": "parities"}[attribute]
        return f"the cards {'are not' if rule.negated else 'are'} different {plural}"
    if isinstance(rule, Not):
        inner = render(rule.operand, "not")
        return f"not {inner}"
    if isinstance(rule, Implies):
        text = f"if {render(rule.condition, 'if')} then {render(rule.consequence, 'then')}"
        return f"({text})" if parent else text
    joiner = " and " if isinstance(rule, And) else " or "
    kind = "and" if isinstance(rule, And) else "or"
    text = joiner.join(render(op, kind) for op in rule.operands)
    needs_parens = parent in ("not", "and", "if", "or")  # 'A and B or C' can be read two ways: never written
    return f"({text})" if needs_parens else text


def statements(rule: Rule) -> int:
    """How many statements a rule joins with and, or, not, if (``A and (B or not C)``: 3)."""
    stack: list[Rule] = [rule]
    count = 0
    while stack:
        node = stack.pop()
        if isinstance(node, (And, Or)):
            stack.extend(node.operands)
        elif isinstance(node, Not):
            stack.append(node.operand)
        elif isinstance(node, Implies):
            stack += [node.condition, node.consequence]
        else:
            count += 1
    return count


def normalise(text: str) -> str:
    """The canonical text of a rule given as text."""
    return render(parse(text))


__all__ = [
    "Aggregate", "And", "Arith", "Between", "Card", "CardIs", "Compare", "Const", "Implies", "Not",
    "Or", "Property", "Quantified", "Rule", "RuleError", "SetLike", "ValueOf", "normalise", "parse",
    "readings", "render", "statements",
]
