"""JSON text for the shell: orjson where it gives the same data, the standard library where not.

orjson encodes and decodes several times faster than :mod:`json`, but differs at the edges; each
edge falls back to the standard library, so the data is always what :mod:`json` gives:

- integers beyond 64 bits: orjson refuses to encode them and decodes them as floats; a text
  with a run of 20 digits or more is decoded by :mod:`json`, and encoding falls back;
- lone surrogates: orjson refuses them both ways (falls back);
- non-string keys are encoded as strings, as :mod:`json` does.

Encoded text is compact UTF-8 (no ASCII escapes, no spaces): still what :func:`json.loads`
reads, so documents and events written by either encoder load with the other.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS
_LONG_DIGITS = re.compile(rb"\d{20}")


def dumps(obj: Any) -> bytes:
    """Compact UTF-8 JSON of ``obj``."""
    try:
        return orjson.dumps(obj, option=_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError: a huge integer, a lone surrogate, another type
        return json.dumps(obj, separators=(",", ":")).encode("ascii")


def loads(data: bytes | str) -> Any:
    """The value of a JSON text written by :func:`dumps` or by :mod:`json` (the store's data)."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if _LONG_DIGITS.search(raw) is None:
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return json.loads(data)
