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

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from ludic.universe import RANK_WORDS

MAX_TEXT = 2000
MAX_NUMBER = 1000
MAX_PARENTHESES = 16
"""How deep parentheses may nest (no rule about two cards needs more than a few)."""
MAX_DEPTH = 64
"""How deep the parse tree may grow (``not not not ...``, ``1 + 1 + ...``): bounds every
recursive walk of a rule (building, compiling, rendering)."""

Position = Literal["top", "bottom", "high", "low"]
QuantifierKind = Literal["some", "every", "no", "exactly_one", "other"]
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
                 expected: list[str] | None = None) -> None:
        where = f"line {line}, column {column}: " if line else ""
        super().__init__(where + message)
        self.message = message
        self.reason = reason
        self.line = line
        self.column = column
        self.expected = expected or []

    def as_json(self) -> dict[str, Any]:
        return {"message": str(self), "reason": self.reason, "line": self.line,
                "column": self.column, "expected": self.expected}


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


def _syntax_error(text: str, error: UnexpectedInput) -> RuleError:
    line, column = error.line, error.column
    if isinstance(error, UnexpectedCharacters):
        expected = _describe_expected(error.allowed or set())
        found = re.match(r"\S+", text[error.pos_in_stream:])
        what = f"'{found.group()}'" if found else "this"
        message = f"unexpected {what}"
    elif isinstance(error, UnexpectedToken) and error.token.type != "$END":
        expected = _describe_expected(error.accepts or error.expected)
        message = f"unexpected '{error.token}'"
    else:
        names = error.expected if isinstance(error, (UnexpectedEOF, UnexpectedToken)) else set()
        expected = _describe_expected(set(names))
        lines = text.split("\n")
        line, column = len(lines), len(lines[-1]) + 1
        message = "the rule ends too early"
    if line is None or line < 1:
        line, column = 1, 1
    outside = _explain_outside(text)
    if outside is not None:
        outside.expected = expected
        return outside
    if expected:
        message += "; expected " + (expected[0] if len(expected) == 1 else "one of: " + ", ".join(expected))
    return RuleError(message, reason="syntax", line=line, column=column, expected=expected)


# ---- parse tree -> syntax tree -------------------------------------------------------------------
QUANTIFIER_WORDS: dict[str, QuantifierKind] = {
    "some": "some", "a": "some", "an": "some", "at least one": "some", "either": "some",
    "another": "some", "every": "every", "each": "every", "both": "every", "all": "every",
    "no": "no", "neither": "no", "exactly one": "exactly_one", "only one": "exactly_one",
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


class _TypeError(Exception):
    def __init__(self, message: str, meta: Any) -> None:
        super().__init__(message)
        self.message = message
        self.line = getattr(meta, "line", 1) or 1
        self.column = getattr(meta, "column", 1) or 1


@v_args(meta=True)
class _Build(Transformer[Token, Rule]):
    """Turns lark's parse tree into the syntax tree, checking that the words fit together."""

    # logic
    def start(self, meta: Any, children: list[Any]) -> Rule:
        rule: Rule = children[0]
        return rule

    def implication(self, meta: Any, c: list[Any]) -> Rule:
        return Implies(c[1], c[3])

    def any_of(self, meta: Any, c: list[Any]) -> Rule:
        items = tuple(x for x in c if not isinstance(x, Token))
        return items[0] if len(items) == 1 else Or(items)

    def all_of(self, meta: Any, c: list[Any]) -> Rule:
        items = tuple(x for x in c if not isinstance(x, Token))
        return items[0] if len(items) == 1 else And(items)

    def negation(self, meta: Any, c: list[Any]) -> Rule:
        return Not(c[1])

    # cards
    def card(self, meta: Any, c: list[Token]) -> Card:
        return Card(POSITIONS[next(_words(t) for t in c if t.type == "POSITION")])

    def quantifier(self, meta: Any, c: list[Token]) -> str:
        return _words(c[0])

    def adjective(self, meta: Any, c: list[Token]) -> str:
        return _adjective(c[0])

    def quantified(self, meta: Any, c: list[Any]) -> Quantified:
        word = c[0]
        return Quantified(QUANTIFIER_WORDS[word], tuple(a for a in c[1:-1]), word)

    def the_cards(self, meta: Any, c: list[Any]) -> Quantified:
        return Quantified("every", (), "the cards")

    def other_card(self, meta: Any, c: list[Any]) -> Quantified:
        return Quantified("other", (), "the other")

    # numbers
    def number(self, meta: Any, c: list[Token]) -> Const:
        word = _words(c[0]).rstrip("s")
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

    # statements
    @staticmethod
    def _negated(c: list[Any]) -> bool:
        return any(isinstance(x, Token) and x.type == "NOT" for x in c)

    def property(self, meta: Any, c: list[Any]) -> tuple[tuple[str, ...], str]:
        adjectives = tuple(x for x in c if isinstance(x, str) and not isinstance(x, Token))
        noun = next((t.type for t in c if isinstance(t, Token) and t.type in ("CARD", "NUMBER_WORD")), "")
        return adjectives, {"CARD": "card", "NUMBER_WORD": "number", "": ""}[noun]

    def has_property(self, meta: Any, c: list[Any]) -> Property:
        subject, (adjectives, noun) = c[0], c[-1]
        if not _is_card(subject):
            wrong = [a for a in adjectives if a in CARD_ADJECTIVES]
            if wrong or noun == "card":
                raise _TypeError(f"'{(wrong or ['card'])[0]}' describes a card, and the subject here is a "
                                 "number", meta)
        return Property(subject, adjectives, self._negated(c), noun)

    def card_literal(self, meta: Any, c: list[Token]) -> tuple[bool, int]:
        red = any(t.type == "RED" for t in c)
        return red, self.number(meta, [c[-1]]).value

    def is_card(self, meta: Any, c: list[Any]) -> CardIs:
        subject = c[0]
        if not _is_card(subject):
            raise _TypeError("only a card can be a red or black card of some rank", meta)
        red, value = c[-1]
        return CardIs(subject, red, value, self._negated(c))

    def comparative(self, meta: Any, c: list[Token]) -> CompareOp:
        return COMPARATIVES[c[-1].type]

    def _compare(self, meta: Any, left: Any, op: CompareOp, right: Any, negated: bool,
                 attribute: Attribute | None = None) -> Compare:
        if isinstance(right, Quantified) and right.kind == "other" and not _is_card(left):
            raise _TypeError("'the other card' needs a card before it", meta)
        if attribute == "color" and not (_is_card(left) and _is_card(right)):
            raise _TypeError("only cards have a color", meta)
        return Compare(left, op, right, negated, attribute)

    def compare(self, meta: Any, c: list[Any]) -> Compare:
        return self._compare(meta, c[0], c[-2], c[-1], self._negated(c))

    def equals(self, meta: Any, c: list[Any]) -> Compare:
        return self._compare(meta, c[0], "eq", c[-1], self._negated(c))

    def bounded(self, meta: Any, c: list[Any]) -> Compare:
        bound = _words(c[-1]).split()[-1]
        op: CompareOp = "ge" if bound in ("more", "higher", "greater", "above") else "le"
        return self._compare(meta, c[0], op, c[-2], self._negated(c))

    def between(self, meta: Any, c: list[Any]) -> Between:
        amounts = [x for x in c[1:] if not isinstance(x, Token)]
        return Between(c[0], amounts[0], amounts[1], self._negated(c))

    def same(self, meta: Any, c: list[Any]) -> tuple[bool, Attribute, Any]:
        return True, _attribute(c[2]), c[-1]

    def different(self, meta: Any, c: list[Any]) -> tuple[bool, Attribute, Any]:
        attribute = next(t for t in c if isinstance(t, Token) and t.type == "ATTRIBUTE")
        return False, _attribute(attribute), c[-1]

    def _likeness(self, meta: Any, c: list[Any], negated: bool) -> Compare:
        same, attribute, right = c[-1]
        return self._compare(meta, c[0], "same" if same else "different", right, negated, attribute)

    def likeness(self, meta: Any, c: list[Any]) -> Compare:
        return self._likeness(meta, c, self._negated(c))

    def likeness_have(self, meta: Any, c: list[Any]) -> Compare:
        return self._likeness(meta, c, False)

    def likeness_have_not(self, meta: Any, c: list[Any]) -> Compare:
        return self._likeness(meta, c, True)

    def set_same(self, meta: Any, c: list[Token]) -> tuple[bool, Attribute]:
        return True, _attribute(c[-1])

    def set_different(self, meta: Any, c: list[Token]) -> tuple[bool, Attribute]:
        return False, _attribute(c[-1])

    def _set_likeness(self, meta: Any, c: list[Any], negated: bool) -> SetLike:
        subject = c[0]
        if not (isinstance(subject, Quantified) and subject.kind == "every" and not subject.restrictors):
            raise _TypeError("'the same ...' without 'as' compares the two cards of the set: say 'the "
                             "cards' or 'both cards'", meta)
        same, attribute = c[-1]
        return SetLike(attribute, same, negated)

    def set_likeness(self, meta: Any, c: list[Any]) -> SetLike:
        return self._set_likeness(meta, c, self._negated(c))

    def set_likeness_have(self, meta: Any, c: list[Any]) -> SetLike:
        return self._set_likeness(meta, c, False)

    def set_likeness_have_not(self, meta: Any, c: list[Any]) -> SetLike:
        return self._set_likeness(meta, c, True)

    def symbol(self, meta: Any, c: list[Any]) -> Compare:
        return self._compare(meta, c[0], SYMBOLS[str(c[1])], c[2], False)

    def _verb(self, meta: Any, c: list[Any], negated: bool) -> Compare:
        verb = next(t for t in c if isinstance(t, Token) and t.type == "VERB")
        if _words(verb).startswith("outrank"):
            return self._compare(meta, c[0], "gt", c[-1], negated)
        return self._compare(meta, c[0], "divides", c[-1], negated)

    def verb(self, meta: Any, c: list[Any]) -> Compare:
        return self._verb(meta, c, False)

    def verb_not(self, meta: Any, c: list[Any]) -> Compare:
        return self._verb(meta, c, True)


@functools.lru_cache(maxsize=1)
def _parser() -> Lark:
    # Beside this module (not importlib.resources: under pytest, tests/ludic can shadow the
    # package name as a namespace portion).
    grammar = Path(__file__).with_name("rule.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=False)


@functools.lru_cache(maxsize=4096)
def parse(text: str) -> Rule:
    """The syntax tree of a rule; :class:`RuleError` with line and column if it is not one."""
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
        return _Build().transform(tree)
    except VisitError as error:
        inner = error.orig_exc
        if isinstance(inner, _TypeError):
            raise RuleError(inner.message, reason="type", line=inner.line, column=inner.column) from None
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
    word = {"some": "some", "every": "every", "no": "no", "exactly_one": "exactly one"}[q.kind]
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
    needs_parens = parent in ("not", "and", "if") or (parent == "or" and kind == "or")
    return f"({text})" if needs_parens else text


def normalise(text: str) -> str:
    """The canonical text of a rule given as text."""
    return render(parse(text))


__all__ = [
    "Aggregate", "And", "Arith", "Between", "Card", "CardIs", "Compare", "Const", "Implies", "Not",
    "Or", "Property", "Quantified", "Rule", "RuleError", "SetLike", "ValueOf", "normalise", "parse",
    "render",
]
