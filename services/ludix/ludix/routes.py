"""Ludix's REST extras: ``GET /numerals?dice=LXVI`` and ``GET /odds``.

Both are pure reads of :mod:`ludix.numerals`; probabilities go out as exact fractions with their
decimals. A bad dice string is a 422 problem (field ``dice``), like every validation error.
"""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint
from ludoteca.errors import FieldValidationError
from marshmallow import RAISE

from ludix.numerals import odds, parse_throw
from ludix.schemas import NumeralsQuerySchema, NumeralsSchema, OddsSchema


def numerals_json(dice: str) -> dict[str, Any]:
    """Everything about one throw: its valid numerals, best first, and how likely it is."""
    try:
        multiset = parse_throw(dice)
    except ValueError as err:
        raise FieldValidationError(str(err), errors={"dice": [str(err)]}) from err
    throw = next(t for t in odds().throws if t.multiset == multiset)
    return {"dice": dice, "valid": not throw.is_bust, **throw.to_json()}


def extras() -> Blueprint:
    blp = Blueprint("ludix", __name__, url_prefix="/", description="Ludix's numerals and odds.")

    @blp.route("/numerals")
    class Numerals(MethodView):
        @blp.arguments(NumeralsQuerySchema, location="query", unknown=RAISE)
        @blp.response(200, NumeralsSchema, example=numerals_json("LXVI"))
        @blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
        @blp.doc(operationId="getNumerals")
        def get(self, query: dict[str, Any]) -> dict[str, Any]:
            """Read a throw

            Every valid numeral of a throw (its four symbols in any order), best first, and how
            likely the throw is."""
            return numerals_json(query["dice"])

    @blp.route("/odds")
    class Odds(MethodView):
        @blp.response(200, OddsSchema, example=odds().to_json())
        @blp.doc(operationId="getOdds")
        def get(self) -> dict[str, Any]:
            """Get the odds of a throw

            The exact distribution of one throw of the four dice: the 14 scoring multisets, bust
            23/81, the expected points; probabilities as exact fractions with their decimals."""
            return odds().to_json()

    return blp
