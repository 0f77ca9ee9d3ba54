"""JSON text for the shell: orjson where it gives the same data, the standard library where not.

orjson encodes and decodes several times faster than :mod:`json`, but differs at the edges; each
edge falls back to the standard library, so the data is always what :mod:`json` gives:

- integers beyond 64 bits: orjson refuses to encode them and decodes them as floats; a text
  with a number of 19 digits or more (a run of 19 digits right where a value starts: at the
  text's start or after ``[``, ``,`` or ``:`` and blanks, with its sign) is decoded by :mod:`json`,
  and encoding falls back. A string holding such a run (``"a:1234567890123456789"``) sends its
  text to :mod:`json` as well, which gives the same value, only slower; a run of digits inside
  a string elsewhere (hex digests, tables) does not;
- lone surrogates: orjson refuses them both ways (falls back);
- non-string keys are encoded as strings, as :mod:`json` does.

Encoded text is compact UTF-8 (no ASCII escapes, no spaces): still what :func:`json.loads`
reads, so documents and events written by either encoder load with the other.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS
# A number of 19 digits or more where a value starts, found without a regular expression (a
# search for any run of 20 digits cost twice orjson's whole parse on a 16 KB document): digits
# become 0, blanks go, then a plain substring search for a delimiter (and sign) before 19 zeros.
_DIGITS = bytes.maketrans(b"0123456789", b"0" * 10)
_BLANKS = b" \t\n\r"
_RUN = b"0" * 19  # -9223372036854775809 (19 digits) is already beyond 64 bits
_STARTS = tuple(start + _RUN for start in (b":", b"[", b",", b":-", b"[-", b",-"))


def _long_number(raw: bytes) -> bool:
    flat = raw.translate(_DIGITS, _BLANKS)
    return flat.startswith((_RUN, b"-" + _RUN)) or any(start in flat for start in _STARTS)


def dumps(obj: Any) -> bytes:
    """Compact UTF-8 JSON of ``obj``."""
    try:
        return orjson.dumps(obj, option=_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError: a huge integer, a lone surrogate, another type
        return json.dumps(obj, separators=(",", ":")).encode("ascii")


def loads(data: bytes | str) -> Any:
    """The value of a JSON text written by :func:`dumps` or by :mod:`json` (the store's data)."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if not _long_number(raw):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return json.loads(data)
