"""``ludoteca.core.jsontext`` reads every JSON text as the standard library does: orjson where it
gives the same value, :mod:`json` where not (integers beyond 64 bits), whatever the layout."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from ludoteca.core import jsontext

digits = st.text(alphabet="0123456789abcdef:,[", min_size=15, max_size=45)
scalars = (st.none() | st.booleans() | st.integers() | st.integers(min_value=2**63 - 5, max_value=2**70)
           | st.integers(min_value=-(2**70), max_value=-(2**63) + 5) | st.floats(allow_nan=False, allow_infinity=False)
           | st.text(max_size=8) | digits)
values = st.recursive(scalars, lambda sub: st.lists(sub, max_size=4)
                      | st.dictionaries(st.text(max_size=4) | digits, sub, max_size=4), max_leaves=12)


def same(a: Any, b: Any) -> bool:
    """Equal, and of the same JSON types all the way down (an int is not a float)."""
    return json.dumps(a) == json.dumps(b)


@given(values, st.sampled_from([None, 0, 2]))
@settings(max_examples=400, deadline=None)
def test_every_text_reads_as_the_standard_library_reads_it(value: Any, indent: int | None) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    assert same(jsontext.loads(text.encode()), json.loads(text))
    assert same(jsontext.loads(jsontext.dumps(value)), json.loads(text))


def test_huge_integers_wherever_a_value_starts() -> None:
    huge = 2**64 + 1
    for text in ("-9223372036854775809", "[-9223372036854775809]"):  # 19 digits, below the 64-bit range
        assert same(jsontext.loads(text.encode()), json.loads(text)), text
    for text in (f"{huge}", f" -{huge}", f"[{huge}]", f'{{"a": {huge}}}', f'{{"a":[1,\n\t-{huge}]}}'):
        assert same(jsontext.loads(text.encode()), json.loads(text)), text
    hexed = {"rule_obey": "0" * 40 + "f" * 24, "n": 1}  # digit runs inside strings: orjson reads them
    assert jsontext.loads(jsontext.dumps(hexed)) == hexed
