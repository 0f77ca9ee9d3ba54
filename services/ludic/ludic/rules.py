"""Judging rules: what the Vexer may write, what a Seeker may guess, and the rule checker's report.

- A Vexer's rule must parse, be unambiguous (defined on all 576 sets) and be legal: the initial
  set of the 'obey' column obeys it and the initial set of the 'break' column breaks it.
- A Seeker's guess must parse and be unambiguous (otherwise "the Vexer asks for clarification");
  it is correct when it is logically equivalent to the rule: the same truth table.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any

from ludic.language import Card, Rule, RuleError, parse, readings, render
from ludic.tables import Table, compile_rule, table_of
from ludic.universe import EQUAL_RANKS, SETS, describe_set, members


@dataclass(frozen=True)
class InitialSets:
    """Set indices of the initial sets: ``obey`` heads the 'obey' column, ``broken`` the 'break' one."""

    obey: int
    broken: int


def ambiguity(table: Table, rule: Rule | None = None) -> RuleError | None:
    """Why a table is ambiguous (with one set where it is undefined), or None. ``rule``, its syntax
    tree, tells the cause apart (high/low of equal ranks, or a division by zero)."""
    s = table.first_undefined()
    if s is None:
        return None
    count = table.undefined.bit_count()
    causes = _undefined_causes(table, rule) if rule is not None else (
        ["high_low"] if EQUAL_RANKS[s] else ["zero"])
    why = " and ".join(CAUSES[c] for c in causes)
    return RuleError(f"the rule is ambiguous: for {count} of the 576 sets (e.g. {describe_set(s)}) {why}",
                     reason="ambiguous")


CAUSES = {"high_low": "it speaks of the high or low card of two cards of equal rank, and then neither can "
                      "be considered highest or lowest",
          "zero": "it divides by zero (a remainder, 'divides' or 'a multiple of' by a number that is 0 there)"}


def _undefined_causes(table: Table, rule: Rule) -> list[str]:
    """What makes a rule undefined where it is: the high/low card of equal ranks, a division by zero,
    or both (the rule read with top and bottom for high and low is undefined only by division)."""
    by_division = compile_rule(_without_high_low(rule)).undefined
    causes = []
    if table.undefined & ~by_division:
        causes.append("high_low")
    if by_division & table.undefined or not causes:
        causes.append("zero")
    return causes


def _without_high_low(node: Any) -> Any:
    """The tree with the top card for the high one and the bottom card for the low one."""
    if isinstance(node, Card):
        return Card({"high": "top", "low": "bottom"}.get(node.position, node.position))  # type: ignore[arg-type]
    if isinstance(node, tuple):
        return tuple(_without_high_low(x) for x in node)
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return dataclasses.replace(node, **{f.name: _without_high_low(getattr(node, f.name))
                                            for f in dataclasses.fields(node) if f.init})
    return node


@functools.lru_cache(maxsize=1024)
def scope_readings(text: str) -> tuple[tuple[str, Table], ...]:
    """The readings of a rule whose scope can be read more than one way and whose readings differ
    on some set (canonical text and table of each, the default reading first); () when it has one
    meaning. Raises RuleError if the text is not a rule."""
    found = readings(text)
    if len(found) < 2:
        return ()
    out: list[tuple[str, Table]] = []
    for rule in found:
        table = compile_rule(rule)
        if all(table != seen for _, seen in out):
            out.append((render(rule), table))
    return tuple(out) if len(out) > 1 else ()


SMALL = 12
"""A reading obeyed by at most this many sets lists them."""


def scope_ambiguity(text: str) -> RuleError | None:
    """The clarification a rule of several readings needs: each reading, its canonical text (to
    resubmit) and the sets obeying it; None when the rule has one meaning."""
    found = scope_readings(text)
    if not found:
        return None
    listed = []
    for canonical, table in found:
        listed.append({"canonical": canonical, "obeying_sets": table.count,
                       "sets": [describe_set(s) for s in members(table.obey)] if table.count <= SMALL else None})
    ways = "; ".join(f"({i}) '{r['canonical']}' ({r['obeying_sets']} sets)" for i, r in enumerate(listed, 1))
    error = RuleError(f"the rule can be read {len(listed)} ways that differ on some sets: {ways}; write the one "
                      "you mean", reason="ambiguous")
    error.readings = listed
    return error


def illegality(table: Table, initial: InitialSets) -> RuleError | None:
    """Why a table cannot be the rule for these initial sets (in the text's words), or None."""
    obey_breaks = not table.obeys(initial.obey)
    break_obeys = table.obeys(initial.broken)
    if obey_breaks and break_obeys:
        why = "'obey' breaks, 'break' obeys"
    elif obey_breaks:
        why = "the 'obey' column breaks"
    elif break_obeys:
        why = "the 'break' column obeys"
    else:
        return None
    return RuleError(f"the rule does not fit the initial sets [{why}]", reason="illegal")


def compile_checked(text: str) -> Table:
    """The table of a rule that must be unambiguous (a guess, or a rule before legality)."""
    table = table_of(text)
    problem = scope_ambiguity(text) or ambiguity(table, parse(text))
    if problem is not None:
        raise problem
    return table


def accept_rule(text: str, initial: InitialSets) -> Table:
    """The table of the Vexer's rule, or RuleError (syntax, ambiguous, illegal)."""
    table = compile_checked(text)
    problem = illegality(table, initial)
    if problem is not None:
        raise problem
    return table


def accept_guess(text: str) -> Table:
    """The table of a Seeker's guess; RuleError when unreadable or ambiguous (clarification)."""
    try:
        return compile_checked(text)
    except RuleError as error:
        if error.reason == "ambiguous":
            clarification = RuleError(f"the Vexer asks for clarification: {error.message}", reason="ambiguous")
            clarification.readings = error.readings
            raise clarification from None
        raise


def check(text: str, initial: InitialSets | None = None) -> dict[str, Any]:
    """The rule checker's report (``POST /rules/check``): never raises on a bad rule."""
    report: dict[str, Any] = {"rule": text, "valid": False, "canonical": None, "errors": [],
                              "ambiguous": None, "undefined_sets": None, "obeying_sets": None,
                              "legal": None, "total_sets": SETS}
    try:
        tree = parse(text)
        table = table_of(text)
    except RuleError as error:
        report["errors"] = [error.as_json()]
        return report
    scope = scope_ambiguity(text)
    if scope is not None:  # several meanings: none of them is the rule's until the player picks one
        report["ambiguous"] = True
        report["errors"].append(scope.as_json())
        return report
    report["canonical"] = render(tree)
    report["obeying_sets"] = table.count
    report["undefined_sets"] = table.undefined.bit_count()
    problem = ambiguity(table, tree)
    report["ambiguous"] = problem is not None
    if problem is not None:
        report["errors"].append(problem.as_json())
    if initial is not None:
        illegal = illegality(table, initial)
        report["legal"] = illegal is None and problem is None
        if illegal is not None:
            report["errors"].append(illegal.as_json())
    report["valid"] = not report["errors"]
    return report
