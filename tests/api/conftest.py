"""Fixtures for API tests."""

from __future__ import annotations

from typing import Any

import pytest
from api_client import Api


@pytest.fixture()
def ludix(client_factory: Any) -> Api:
    return Api(client_factory("ludix"))
