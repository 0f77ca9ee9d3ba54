"""The name rule (``ludoteca.core.names``): one for seat names and players' names."""

from __future__ import annotations

import pytest
from ludoteca.core.names import NAME_MAX, hidden_character, plain_name


@pytest.mark.parametrize("name", ["Ada", "  Ada  ", "José", "李", "👩\u200d👩\u200d👧", "می\u200cخواهم",
                                  "a" * NAME_MAX])
def test_names_a_player_writes_are_kept(name: str) -> None:
    assert plain_name(name) == name.strip() and hidden_character(name) is None


@pytest.mark.parametrize("name", ["", "   ", "a" * (NAME_MAX + 1), "\u202eevil", "\u200bx", "a\x00b", "a\x85b",
                                  "a\ufeffb", "a\u2066b\u2069", "soft\u00adhyphen", "\ud800", 7, None])
def test_hidden_or_out_of_bounds_names_are_refused(name: object) -> None:
    assert plain_name(name) is None
