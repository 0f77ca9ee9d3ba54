"""Judging rules: what the Vexer may write, what a Seeker may guess, and the rule checker's report.

- A Vexer's rule must parse, be unambiguous (defined on all 576 sets) and be legal: the initial
  set of the 'obey' column obeys it and the initial set of the 'break' column breaks it.
- A Seeker's guess must parse and be unambiguous (otherwise "the Vexer asks for clarification");
  it is correct when it is logically equivalent to the rule: the same truth table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ludic.language import RuleError, parse, render
from ludic.tables import Table, table_of
from ludic.universe import EQUAL_RANKS, SETS, describe_set


@dataclass(frozen=True)
class InitialSets:
    """Set indices of the initial sets: ``obey`` heads the 'obey' column, ``broken`` the 'break' one."""

    obey: int
    broken: int


def ambiguity(table: Table) -> RuleError | None:
    """Why a table is ambiguous (with one set where it is undefined), or None."""
    s = table.first_undefined()
    if s is None:
        return None
    count = table.undefined.bit_count()
    if EQUAL_RANKS[s]:
        why = ("it speaks of the high or low card of two cards of equal rank, and then neither can "
               "be considered highest or lowest")
    else:
        why = "it divides by zero"
    return RuleError(f"the rule is ambiguous: for {count} of the 576 sets (e.g. {describe_set(s)}) {why}",
                     reason="ambiguous")


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
    problem = ambiguity(table)
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
            raise RuleError(f"the Vexer asks for clarification: {error.message}", reason="ambiguous") from None
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
    report["canonical"] = render(tree)
    report["obeying_sets"] = table.count
    report["undefined_sets"] = table.undefined.bit_count()
    problem = ambiguity(table)
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
