"""Bounded request bodies: the one JSON parser of the hosting layer.

Every request body is read at most ``Settings.max_body_bytes`` long (413 beyond, chunked bodies
without ``Content-Length`` included) and every JSON body is parsed here, before any schema sees
it, with these bounds (400 problem+json past any of them, naming the bound):

- UTF-8 only (RFC 8259); a byte-order mark or any invalid byte is refused;
- nesting at most :data:`MAX_DEPTH` arrays/objects deep;
- integers within +/- :data:`MAX_SAFE_INTEGER` (2^53 - 1, what every JSON client represents
  exactly); no ``NaN`` / ``Infinity``, no float that overflows to infinity.

Flask's ``request.get_json`` goes through :class:`BoundedJSONProvider`; flask-smorest's argument
parser (webargs) reads the body again with the standard library, which is safe once the gate of
:func:`install_body_bounds` has admitted it. The routes encode their responses with
:mod:`ludoteca.core.jsontext` (orjson).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import orjson
from flask import Flask, current_app, g, request
from flask.json.provider import DefaultJSONProvider
from ludoteca.core.errors import BadRequestError, FieldValidationError, LudotecaError
from werkzeug.exceptions import RequestEntityTooLarge

MAX_BODY_BYTES = 64 * 1024
MAX_DEPTH = 32
MAX_SAFE_INTEGER = 2**53 - 1
_MAX_INT_DIGITS = len(str(MAX_SAFE_INTEGER))

LIMITS_DOC = (
    f"\n\nRequest bounds: a body is at most {MAX_BODY_BYTES // 1024} KiB (413 beyond; the service's "
    "`LUDOTECA_MAX_BODY` setting); JSON bodies are UTF-8, nested at most "
    f"{MAX_DEPTH} deep, with integers within ±(2^53 − 1) and no NaN or Infinity (400 beyond)."
)
"""The bounds in words, for the OpenAPI document's description."""

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


class BodyTooLargeError(LudotecaError):
    status = 413
    slug = "content-too-large"
    title = "Request body too large"


class JSONBodyError(BadRequestError, ValueError):
    """A body that is not JSON within the bounds above (400). A ``ValueError`` too, as the JSON
    provider's ``loads`` must raise for callers such as ``get_json(silent=True)``."""


def nesting_depth(text: str, limit: int = MAX_DEPTH) -> int:
    """How deep arrays/objects nest in a JSON text (strings skipped); stops counting past ``limit``.

    Linear and recursion-free. On malformed text the count may be off, but such text is then
    refused by the parser anyway.
    """
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING.sub("", text)):
        if match.group() in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    break
        else:
            depth -= 1
    return deepest


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > _MAX_INT_DIGITS or abs(value := int(text)) > MAX_SAFE_INTEGER:
        shown = text if len(text) <= 24 else f"{text[:12]}...({len(text)} digits)"
        raise JSONBodyError(f"The integer {shown} is out of range: integers must be within ±{MAX_SAFE_INTEGER}.")
    return value


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JSONBodyError(f"The number {text[:24]} is too large for a double.")
    return value


def _parse_constant(name: str) -> Any:
    raise JSONBodyError(f"{name} is not JSON: numbers must be finite.")


_SLOW = re.compile(rb"\d{17}|^\xef\xbb\xbf")
"""Texts the fast path leaves to the careful parser: a run of 17 digits (an integer orjson
might read past 2^64 as a float; a long fraction too, which is merely slower), a byte-order mark."""


def _within_bounds(value: Any, max_depth: int, depth: int = 0) -> bool:
    """Every integer within ±2^53-1, every float finite, nesting at most ``max_depth``."""
    if isinstance(value, dict):
        if depth >= max_depth:
            return False
        return all(_within_bounds(v, max_depth, depth + 1) for v in value.values())
    if isinstance(value, list):
        if depth >= max_depth:
            return False
        return all(_within_bounds(v, max_depth, depth + 1) for v in value)
    if isinstance(value, int) and not isinstance(value, bool):
        return -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER
    if isinstance(value, float):
        return math.isfinite(value)
    return True


def loads(data: str | bytes | bytearray, max_depth: int = MAX_DEPTH) -> Any:
    """Parse one JSON text within the bounds; :class:`JSONBodyError` (a 400) otherwise.

    orjson parses first (it refuses invalid UTF-8, NaN and Infinity, and numbers that overflow a
    double); a walk checks the integers and the depth. Anything it refuses or the walk finds out
    of bounds goes through the careful parser below, which names the bound that was passed."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    if _SLOW.search(raw) is None:
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
        else:
            if _within_bounds(value, max_depth):
                return value
    return _careful_loads(data, max_depth)


def _careful_loads(data: str | bytes | bytearray, max_depth: int) -> Any:
    if isinstance(data, (bytes, bytearray)):
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as err:
            raise JSONBodyError(f"The request body is not UTF-8 (invalid byte at offset {err.start}).") from None
    else:
        text = data
    if text.startswith("\ufeff"):
        raise JSONBodyError("The request body starts with a byte-order mark; send plain UTF-8 JSON.")
    if nesting_depth(text, max_depth) > max_depth:
        raise JSONBodyError(f"The JSON body nests deeper than {max_depth} levels.")
    try:
        return json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)
    except json.JSONDecodeError as err:
        raise JSONBodyError(f"The request body is not valid JSON: {err.msg} (line {err.lineno}, "
                            f"column {err.colno}).") from None
    except RecursionError:  # pragma: no cover - the depth check comes first
        raise JSONBodyError(f"The JSON body nests deeper than {max_depth} levels.") from None


class BoundedJSONProvider(DefaultJSONProvider):
    """Flask's default JSON provider with a bounded ``loads`` (``dumps`` unchanged)."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return loads(s)


def body_bytes() -> bytes:
    """The request body, read at most the configured size (413 beyond)."""
    limit: int = current_app.config.get("LUDOTECA_MAX_BODY", MAX_BODY_BYTES)
    if request.content_length is not None and request.content_length > limit:
        raise BodyTooLargeError(f"The request body has {request.content_length} bytes; the limit is {limit}.")
    try:
        # werkzeug reads a body without Content-Length (chunked) up to MAX_CONTENT_LENGTH, one
        # byte past the limit, and stops there silently: that byte says it was too long.
        data = request.get_data(cache=True)
    except RequestEntityTooLarge:
        data = b"x" * (limit + 1)
    if len(data) > limit:
        raise BodyTooLargeError(f"The request body is longer than the limit of {limit} bytes.")
    return data


def json_body() -> Any:
    """The request's JSON body (any content type), parsed within the bounds; 400 if absent or bad."""
    if "ludoteca_json" in g:
        return g.ludoteca_json
    g.ludoteca_json = parse_body(body_bytes())
    return g.ludoteca_json


def parse_body(data: bytes) -> Any:
    """A request body read within its size bound, parsed within the bounds; 400 if blank or bad."""
    if not data.strip():
        raise JSONBodyError("The request body must be a JSON object.")
    return loads(data)


ANY_BODY_ENDPOINTS = frozenset({"games.Actions"})
"""The routes that read their body as JSON whatever its ``Content-Type`` says (:func:`json_body`:
a move, as it always has, on the hot route too)."""


def _admit_body() -> None:
    """Before every request: bound the body and, when it says it is JSON, parse it here once. A
    body that does not say it is JSON is refused (422) on every route but a move's, never read as
    no body: a join or a leave sent as curl's default form type had its body ignored, and its
    defaults claimed another seat or gave the seat to another bot (a hostile-client probe)."""
    data = body_bytes()
    if not data:
        return
    if request.is_json:
        g.ludoteca_json = loads(data)
    elif request.endpoint not in ANY_BODY_ENDPOINTS:
        raise FieldValidationError(
            f"The request body must be JSON sent as Content-Type: application/json, not "
            f"{request.mimetype or 'without a Content-Type'}.", errors={"body": ["Send application/json."]})


def install_body_bounds(app: Flask, max_body_bytes: int = MAX_BODY_BYTES) -> None:
    """Bound every request body of ``app`` and parse JSON with the bounded parser."""
    app.config["LUDOTECA_MAX_BODY"] = max_body_bytes
    app.config["MAX_CONTENT_LENGTH"] = max_body_bytes + 1
    app.json = BoundedJSONProvider(app)
    app.before_request(_admit_body)
