"""The nearest wording the language accepts, for a rule it refuses.

A refused rule is edited a little and parsed again, cheapest edits first, until one reads:
known rewrites (a suit becomes a color, ``more 3`` becomes ``more than 3``, a leading fragment
gets a subject), a misspelt word replaced by the nearest word of the language, and at the place
of the error a word deleted, replaced or inserted (one of the words the parser expected there,
or a card such as ``the bottom card`` where a card or number was expected); then the same
edits twice. The first edit that parses, compiles and keeps the meaning of the refused text
(:func:`keeps_meaning`: no negation, number, connective or same/different added or dropped, no
word that says something dropped) is the suggestion; when none does, there is no suggestion
rather than a wrong one. Only refusals pay for this (a few dozen parses of a short text, a few
milliseconds).
"""

from __future__ import annotations

import difflib
import functools
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

MAX_TRIES = 80
"""Parses at most, per refused rule."""
MAX_CANDIDATES = 300
"""Edits looked at, at most, per refused rule (most are not parsed: they lose a word that says something)."""
PARSED_CHARACTERS = 2_400
SCREENED_CHARACTERS = 9_000
"""The same bounds in characters, for long texts: a parse and a meaning check cost about their
length, so a 300-character refusal gets 8 parses of 30 edits (was 80 of 300: 75-105 ms of CPU
for a refused text of random rule words), while a rule of 30 characters keeps all 80 of 300."""
CPU_SECONDS = 0.1
"""And at most this much CPU (the thread's) per search, whatever the text: a guard for the
pathological, not the usual bound (the suggestion of 'the top card is greater then 5' takes
~60 ms with cold caches). The usual cost is set by the counts above and by the parser's cache of
accepted terminals (:func:`ludic.language._accepted`): ``tests/bench/bench_rule_check.py``."""
MAX_SUGGESTED = 300
"""Longer texts get no suggestion (each try parses the whole text again)."""

EXAMPLES: dict[str, tuple[str, ...]] = {
    "BE": ("is",), "HAVE": ("has",), "NOT": ("not",), "AND": ("and",), "OR": ("or",), "THEN": ("then",),
    "A": ("a",), "THE": ("the",), "OF": ("of",), "AS": ("as",), "FROM": ("from",), "THAN": ("than",),
    "CARD": ("card",), "POSITION": ("the bottom card", "top", "bottom"), "RED": ("red",), "BLACK": ("black",),
    "EVEN": ("even",), "ODD": ("odd",), "PRIME": ("prime",), "FACE": ("face card",), "PIP": ("pip card",),
    "NUMBER": ("7",), "RANK_WORD": ("king",), "ATTRIBUTE": ("color", "rank"), "SAME": ("same",),
    "GREATER_THAN": ("greater than",), "LESS_THAN": ("less than",), "AT_LEAST": ("at least",),
    "AT_MOST": ("at most",), "VERB": ("outranks",), "QUANTIFIER": ("some",), "THE_CARDS": ("the cards",),
    "SUM": ("sum",), "DIVISIBLE_BY": ("divisible by",), "BETWEEN": ("between",), "DIFFERENT": ("different",),
}
REWRITES: tuple[tuple[str, str], ...] = (
    (r"\b(an?\s+)?(hearts?|diamonds?)\b", "red"),
    (r"\b(an?\s+)?(spades?|clubs?)\b", "black"),
    (r"\b(are|is)\s+(the\s+)?same\s+(colou?rs?|ranks?|parity|parities)\b(?!\s+as)", r"have the same \3"),
    (r"\bsuits?\b", "color"),
    (r"\b(bigger|higher|greater|larger|more|less|lower|smaller|fewer)\b(?!\s+than)", r"\1 than"),
    (r"\b(bigger|higher|greater|larger)\s+than\s*$", r"\1 than the bottom card"),
    (r"\b(the\s+)?(top|bottom)\s+(card\s+)?(is|are)\s+(bigger|higher|greater|larger)\s*\.?\s*$",
     r"the \2 card outranks the other card"),
    (r"\bequals?\s+to\b", "is equal to"),
    (r"\bthe\s+other\s+(card\s+|one\s+)?(?!is\b|has\b|isn)", r"the other \1is "),
    (r"\bsame\s+(colou?r|rank|parity)\b(?!\s+as)", r"same \1 as the bottom card"),
    (r"\bcolou?r\s+is\s+(red|black)\b", r"is \1"),
    (r"\bthe\s+(top|bottom)\s+card'?s\s+(colou?r|value|rank)\s+is\b", r"the \1 card is"),
    (r"\bdivisible\b(?!\s+by)", "divisible by"),
    (r"\bmultiple\b(?!\s+of)", "multiple of"),
    (r"\bthe\s+cards?\s+is\b", "the cards are"),
    (r"\bcards\s+is\b", "cards are"),
    (r"\bcard\s+are\b", "card is"),
    (r"\b(cards\s+)(adds?\s+up|sums?)\s+(?!to\b)", r"\1\2 to "),
)
SUBJECTS = ("the top card is ", "the sum is ")
QUANTIFIED_START = r"\s*(both|neither|either|every|each|all|some|no|none|one|two|exactly|at|only|any)\b"
"""A text that begins with a quantifier has a subject: no card is put before it."""
SOME_CARD = re.compile(r"(^|\b(and|or|but|if|then|unless)\b|,)\s*an?\s+((red|black|even|odd|prime|face|court|"
                       r"picture|pip|spot|number|numbered|non-face)\s+)*cards?\s+(is|are|has|have|does|do|isn't|aren't|"
                       r"outranks?|beats?|divides?|equals?|exceeds?)\b", re.I)
"""``a card`` as a subject: 'some card', a quantifier (a suggestion may add 'a' as an article, not this)."""
ONE_OF_CARDS = re.compile(r"\b(top|bottom|high|higher|highest|low|lower|lowest)\s+cards\b", re.I)
"""``top cards``: one card, where ``cards`` said both."""
DEFAULT_WORDS = ("even", "odd", "7", "the bottom card", "red")
"""Tried where the parser expected nothing in particular (a type error: the words do not fit)."""


@functools.lru_cache(maxsize=1)
def vocabulary() -> tuple[str, ...]:
    """Every word the grammar's terminals spell out (for spelling corrections)."""
    grammar = Path(__file__).with_name("rule.lark").read_text(encoding="utf-8")
    words: set[str] = set()
    for pattern in re.findall(r"^[A-Z_]+(?:\.\d)?:\s*/(.*)/i?\s*$", grammar, flags=re.M):
        cleaned = re.sub(r"\\[a-z]", " ", pattern)
        words |= {w for w in re.findall(r"[a-z]{2,}", cleaned)}
    return tuple(sorted(words))


@functools.lru_cache(maxsize=4096)
def _spellings(word: str) -> tuple[str, ...]:
    """The words of the language nearest a word it does not know, fewest typing slips first
    (``eevn`` is ``even``, one transposition, before ``eleven``, which difflib rates higher), and
    of as many slips, a word that says nothing by itself before a number or a property."""
    close = difflib.get_close_matches(word, vocabulary(), n=5, cutoff=0.7)
    return tuple(sorted(close, key=lambda w: (_slips(word, w), _guarded(w)))[:3])  # 'thre': 'there', then 'three'


def _slips(a: str, b: str) -> int:
    """Typing slips between two words: letters inserted, deleted, replaced or swapped with the next
    (the optimal string alignment distance)."""
    rows = [[max(i, j) if i == 0 or j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
    return rows[-1][-1]


def _words(text: str) -> list[re.Match[str]]:
    return list(re.finditer(r"[A-Za-z']+|\d+|[^\sA-Za-z\d]", text))


def offset(text: str, line: int, column: int) -> int:
    """The index in ``text`` of a 1-based line and column."""
    lines = text.split("\n")
    line = min(max(line, 1), len(lines))
    return sum(len(x) + 1 for x in lines[: line - 1]) + max(column - 1, 0)


def _single_edits(text: str, at: int, expected: list[str]) -> Iterator[str]:
    """Texts one edit away: rewrites, spelling, and a word deleted, replaced or inserted at ``at``."""
    for pattern, replacement in REWRITES:
        edited = re.sub(pattern, replacement, text, count=1, flags=re.I)
        if edited != text:
            yield edited
    vocab = vocabulary()
    tokens = _words(text)
    for token in tokens:
        word = token.group().lower()
        if word.isalpha() and word not in vocab:
            for close in _spellings(word):
                yield text[: token.start()] + close + text[token.end():]
    here = next((i for i, t in enumerate(tokens) if t.end() > at), len(tokens))
    inserts = [e for name in expected for e in EXAMPLES.get(name, ())] or list(DEFAULT_WORDS)
    position = tokens[here].start() if here < len(tokens) else len(text.rstrip(". "))
    for word in inserts:
        yield text[:position].rstrip() + " " + word + " " + text[position:].lstrip()
    for i in (here, here - 1, here + 1):
        if 0 <= i < len(tokens):
            token = tokens[i]
            for word in inserts:
                yield text[: token.start()] + word + text[token.end():]
            yield text[: token.start()] + text[token.end():]
    if not re.match(QUANTIFIED_START, text, flags=re.I):  # 'both red' has its subject: 'both'
        stripped = re.sub(r"^\s*(or|and|but|,)\s+", "", text, flags=re.I)
        for subject in SUBJECTS:
            yield subject + stripped


FILLER = frozenset({"a", "an", "the", "is", "are", "has", "have", "do", "does", "it", "its", "be"})
"""Words a suggestion may add or drop: they say nothing by themselves."""
NEGATIONS = frozenset({"not", "no", "none", "neither", "nor", "never"})
CONNECTIVES = frozenset({"and", "or", "but", "if", "then", "unless", "otherwise", "else", "either"})
NUMBER_WORDS = frozenset({
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "deuce",
    "trey", "jack", "queen", "king", "ace"})
FIXED = frozenset({"same", "different", "differ", "least", "most", "exactly", "only", "some", "every",
                   "each", "both", "all", "any", "plus", "minus", "times", "mod", "color", "rank", "value",
                   "parity", "paritie", "red", "black", "even", "odd", "prime", "face", "pip", "square"})
"""Words whose adding changes what is said (besides negations, numbers and connectives): a
suggestion may add a card (``or a queen`` -> ``the top card is a queen``), not a property."""
SYNONYMS: dict[str, str] = {
    **dict.fromkeys(("bigger", "higher", "greater", "larger", "more", "over", "above", "exceeds", "exceed",
                     "outranks", "outrank", "beats", "beat"), ">"),
    **dict.fromkeys(("less", "lower", "smaller", "fewer", "under", "below"), "<"),
    **dict.fromkeys(("heart", "diamond"), "red"), **dict.fromkeys(("spade", "club"), "black"),
    "suit": "color", "colour": "color", "then": "then",
}


def _without_dangling(text: str) -> str:
    """``text`` without a connective that ends it (``the top card is red or``: it says nothing)."""
    return re.sub(r"(\s+(and|or|but|nor)|\s*,)\s*\.?\s*$", "", text, flags=re.I)


@functools.lru_cache(maxsize=4096)
def _meaning_words(text: str, filler: bool = False) -> tuple[tuple[str, str], ...]:
    """The words of ``text`` that say something (``filler``: every word), each as written and in one
    spelling (``isn't`` is ``not``, ``cards`` is ``card``, ``hearts`` is ``red``, ``bigger`` is ``>``)."""
    text = re.sub(r"\b(bigger|higher|greater|larger|more|less|lower|smaller|fewer)\s+then\b", r"\1 than", text,
                  flags=re.I)
    text = re.sub(r"^\s*(or|and|but|,)\s+", "", text, flags=re.I)
    text = _without_dangling(text)
    out: list[tuple[str, str]] = []
    for raw in re.findall(r"[a-z']+|\d+", text.lower().replace("\u2019", "'")):
        if raw.endswith("n't") or raw in ("isnt", "arent", "doesnt", "dont"):
            out.append((raw, "not"))
            continue
        token = raw.strip("'")
        if token.endswith("s") and len(token) > 3 and not token.endswith("ss"):
            token = token[:-1]
        if token and (filler or token not in FILLER):
            out.append((raw, SYNONYMS.get(token, token)))
    return tuple(out)


ADDABLE = FILLER | {"than", "as", "to", "of", "by", "top", "bottom", "high", "low", "card", "other"}
"""The words a suggestion may add: grammar, and a card (``or a queen`` -> ``the top card is a
queen``, ``bigger`` -> ``outranks the other card``); nothing that says what is true of it."""


def _guarded(word: str) -> bool:
    return word in NEGATIONS or word in CONNECTIVES or word in NUMBER_WORDS or word in FIXED or word.isdigit()


def keeps_meaning(text: str, candidate: str, *, adds: bool = True) -> bool:
    """Whether ``candidate`` may be offered for ``text``: it keeps every word of ``text`` that says
    something (a misspelt word may become the word it resembles) and (unless not ``adds``: an
    edit on the way, which a further edit may undo) adds only words of :data:`ADDABLE` (no
    negation, number, connective, quantifier, property or comparison of its own)."""
    after = _meaning_words(candidate, filler=True)
    left = list(range(len(after)))  # the candidate's words not yet matched
    vocab = vocabulary()
    unknown = []
    for raw, word in _meaning_words(text):
        match = next((i for i in left if after[i][1] == word), None)
        if match is not None:
            left.remove(match)
        elif raw in vocab or _guarded(word):
            return False
        else:
            unknown.append(raw)
    guarded = sorted(NEGATIONS | CONNECTIVES | NUMBER_WORDS | FIXED)
    for raw in unknown:  # a misspelt word: the word it resembles most must be kept
        close = sorted(difflib.get_close_matches(raw, [after[i][0] for i in left] + guarded, n=4, cutoff=0.6),
                       key=lambda w: (_slips(raw, w), _guarded(w)))[:1]
        match = next((i for i in left if close and after[i][0] == close[0]), None)
        if match is None:
            return False
        left.remove(match)
    if adds and any(len(p.findall(candidate)) > len(p.findall(text)) for p in (SOME_CARD, ONE_OF_CARDS)):
        return False  # 'cards are red' -> 'a cards are red' (some card) or 'top cards are red' (one card)
    return not adds or all(after[i][1] in ADDABLE for i in left)


def _tidy(text: str) -> str:
    return re.sub(r"[ \t]{2,}", " ", text).strip()


Attempt = Callable[[str], tuple[int, list[str]] | None]
"""Parses a text: None when it reads, else where its error is (an offset) and the terminals
expected there."""


def _fresh(candidates: Iterator[str], seen: set[str]) -> Iterator[str]:
    for candidate in map(_tidy, candidates):
        if candidate and candidate not in seen:
            seen.add(candidate)
            yield candidate


def nearest(text: str, at: int, expected: list[str], attempt: Attempt) -> str | None:
    """The nearest text ``attempt`` accepts, or None when nothing near reads."""
    if len(text) > MAX_SUGGESTED:
        return None
    seen = {text}
    first: list[tuple[str, tuple[int, list[str]]]] = []
    dangling = _without_dangling(text)
    if dangling != text and attempt(dangling) is None:
        return dangling  # 'the top card is red or': what it says, without the connective left over

    def rounds() -> Iterator[tuple[str, bool]]:
        yield from ((c, True) for c in _fresh(_single_edits(text, at, expected), seen))
        for candidate, (where, again) in first[:24]:
            yield from ((c, False) for c in _fresh(_single_edits(candidate, where, again), seen))

    tries = 0
    max_tries = min(MAX_TRIES, PARSED_CHARACTERS // max(1, len(text)))
    max_looked = min(MAX_CANDIDATES, SCREENED_CHARACTERS // max(1, len(text)))
    vocabulary()  # built once per process: not this search's cost
    deadline = time.thread_time() + CPU_SECONDS
    for looked, (candidate, is_first) in enumerate(rounds()):
        if looked >= max_looked or time.thread_time() > deadline:
            return None
        if not keeps_meaning(text, candidate, adds=False):
            continue  # not worth a parse: it lost a word that says something
        if tries >= max_tries:
            return None
        tries += 1
        result = attempt(candidate)
        if result is None:
            if keeps_meaning(text, candidate):
                return candidate
            continue
        if is_first:
            first.append((candidate, result))
    return None
