"""Ludic's REST extra: ``POST /rules/check``, for a Vexer composing a rule and for client developers.

It parses a rule, explains errors (line, column, what was expected, why), says whether the rule
is ambiguous, how many of the 576 sets obey it, and, given the two initial sets, whether it is
legal for them. A bad rule is a normal answer (200, ``valid: false``); a malformed request is a
422 problem like every validation error.
"""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from ludic.rules import InitialSets, check
from ludic.schemas import RuleCheckRequestSchema, RuleCheckSchema
from ludic.universe import set_of_codes


def check_json(body: dict[str, Any]) -> dict[str, Any]:
    """The checker's report for a loaded request body."""
    initial = None
    if "obey_set" in body:
        obey, broken = body["obey_set"], body["break_set"]
        initial = InitialSets(set_of_codes(obey["top"], obey["bottom"]),
                              set_of_codes(broken["top"], broken["bottom"]))
    return check(body["rule"], initial)


EXAMPLE = {"rule": "the top card is red"}
"""The request of the document's example (its answer is the checker's own)."""


def extras() -> Blueprint:
    blp = Blueprint("ludic", __name__, url_prefix="/", description="Ludic's rule checker.")

    @blp.route("/rules/check")
    class RulesCheck(MethodView):
        @blp.arguments(RuleCheckRequestSchema, location="json", example=EXAMPLE)
        @blp.response(200, RuleCheckSchema, example=check_json(EXAMPLE))
        @blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
        @blp.doc(operationId="checkRule")
        def post(self, body: dict[str, Any]) -> dict[str, Any]:
            """Check a rule

            Parse a rule and report: its errors with line and column, whether it is ambiguous,
            how many of the 576 sets obey it, and its legality against two initial sets if given.
            A bad rule is a normal answer (200, `valid: false`)."""
            return check_json(body)

    return blp
