"""The OpenAPI documents: in sync with the code, valid, and honest about the responses
(schemathesis fuzzes every documented operation of every game against the real stack and checks
that nothing answers 500 and every response matches its documented status, type and schema)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from ludoteca import registry
from ludoteca.openapi import render
from openapi_spec_validator import validate
from schemathesis.specs.openapi.checks import positive_data_acceptance

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("game", registry.names())
def test_exported_document_matches_the_code(game: str) -> None:
    path = ROOT / "openapi" / f"{game}.json"
    assert path.exists(), f"run `make openapi`: {path} is missing"
    assert path.read_text() == render(game), f"openapi/{game}.json drifted from the code: run `make openapi`"


@pytest.mark.parametrize("game", registry.names())
def test_document_is_valid_openapi(game: str) -> None:
    validate(json.loads(render(game)))


@pytest.mark.parametrize("game", registry.names())
def test_api_conforms_to_its_document(game: str, app_factory: Any) -> None:
    """Every documented operation, fuzzed: no 500, documented status, content type and schema."""
    schema = schemathesis.openapi.from_wsgi("/openapi.json", app_factory(game))
    failures = []
    for result in schema.get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy())
        @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck),
                  derandomize=True, database=None)
        def check(case: Any) -> None:
            # Cross-field rules (the creator's seat must be a human seat, a seat must be open)
            # cannot be written in OpenAPI 3.0, so "schema-valid data must be accepted" is off.
            case.call_and_validate(excluded_checks=[positive_data_acceptance])

        try:
            check()
        except Exception as err:  # collect every operation's failure, then report them all
            failures.append(f"{operation.label}: {err}")
    assert not failures, "\n\n".join(failures)
