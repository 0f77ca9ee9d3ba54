"""The shared state codec (:mod:`ludoteca.core.codec`): derived from the state's type, it round-trips.

Properties over random values of a state type that uses every supported form (enums, nested
dataclasses, tuples, frozensets, dicts with int and enum keys, optionals, the RNG), through real
JSON text; then the per-field rules (flattened, derived, added later) and the types it refuses.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, make_dataclass, replace
from enum import Enum, IntEnum, IntFlag, StrEnum
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ludoteca.core import codec
from ludoteca.core.rng import Rng


class Colour(StrEnum):
    RED = "red"
    BLACK = "black"


class Rank(IntEnum):
    LOW = 1
    HIGH = 2


class Kind(str, Enum):
    A = "a"
    B = "b"


@dataclass(frozen=True)
class Card:
    rank: Rank
    colour: Colour
    label: str | None = None


@dataclass(frozen=True)
class Settings:
    size: int = 3
    kind: Kind = Kind.A


@dataclass(frozen=True)
class Everything:
    players: tuple[str, ...]
    settings: Settings
    rng: Rng
    hands: dict[int, tuple[Card, ...]]
    by_colour: dict[Colour, list[int]]
    by_rank: dict[Rank, frozenset[int]]
    seats: frozenset[int]
    colours: frozenset[Colour]
    pair: tuple[int, Colour]
    plain_pair: tuple[int, str]
    first: Card | None
    maybe: int | None
    either: int | str | None
    ratio: float
    mode: Literal["x", "y"]
    extra: dict[str, Any]
    rows: list[list[bool]]
    phase: Colour = Colour.RED
    shade: Colour | None = None
    level: Rank | None = None


@dataclass(frozen=True)
class Flat:
    name: str
    settings: Settings = field(default_factory=Settings, metadata=codec.FLATTEN)
    turns: int = 0


@dataclass(frozen=True)
class Guess:
    tier: str
    card: str | None = None
    answer: str | None = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "answer", None if self.tier == "joker" else "yes" if self.card else "no")


@dataclass(frozen=True)
class Tree:
    label: int
    children: tuple[Tree, ...] = ()


rngs = st.builds(Rng, st.binary(min_size=16, max_size=32).map(bytes.hex), st.integers(0, 2**62))
json_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=5)
everything = st.builds(
    Everything,
    rng=rngs,
    ratio=st.floats(allow_nan=False, allow_infinity=False),
    extra=st.dictionaries(st.text(max_size=5), json_scalars, max_size=3),
)
trees = st.recursive(st.builds(Tree, st.integers(), st.just(())),
                     lambda sub: st.builds(Tree, st.integers(), st.lists(sub, max_size=3).map(tuple)), max_leaves=10)


def through_json(data: Any) -> Any:
    return json.loads(json.dumps(data, allow_nan=False))


def is_plain(data: Any) -> bool:
    if isinstance(data, dict):
        return all(isinstance(k, str) and is_plain(v) for k, v in data.items())
    if isinstance(data, list):
        return all(is_plain(v) for v in data)
    return data is None or type(data) in (str, int, float, bool)


class TestRoundTrip:
    @given(everything)
    @settings(max_examples=200, deadline=None)
    def test_every_form_round_trips_through_json_text(self, value: Everything) -> None:
        data = codec.dump(value)
        assert is_plain(data), "the dump is plain JSON data: no enum, tuple, set or int key left"
        loaded = codec.load(Everything, through_json(data))
        assert loaded == value
        assert codec.dump(loaded) == data

    @given(everything)
    @settings(max_examples=50, deadline=None)
    def test_sets_are_dumped_sorted(self, value: Everything) -> None:
        """So equal values dump to equal text whatever a set's iteration order (replays compare
        dumps)."""
        data = codec.dump(value)
        assert data["seats"] == sorted(value.seats)
        assert data["colours"] == sorted(c.value for c in value.colours)
        assert all(v == sorted(v) for v in data["by_rank"].values())

    @given(trees)
    @settings(max_examples=50, deadline=None)
    def test_a_type_inside_itself(self, tree: Tree) -> None:
        assert codec.load(Tree, through_json(codec.dump(tree))) == tree

    def test_the_forms(self) -> None:
        value = Everything(
            players=("human", "bot:x"), settings=Settings(), rng=Rng("ab" * 16, 5),
            hands={2: (Card(Rank.HIGH, Colour.BLACK),)}, by_colour={Colour.RED: [1]},
            by_rank={Rank.LOW: frozenset({3, 1})},
            seats=frozenset({2, 0}), colours=frozenset({Colour.RED, Colour.BLACK}), pair=(1, Colour.RED),
            plain_pair=(1, "a"), first=None, maybe=None, either="s", ratio=0.5, mode="y", extra={"k": [1]},
            rows=[[True]],
        )
        assert codec.dump(value) == {
            "players": ["human", "bot:x"], "settings": {"size": 3, "kind": "a"},
            "rng": {"seed": "ab" * 16, "counter": 5},
            "hands": {"2": [{"rank": 2, "colour": "black", "label": None}]}, "by_colour": {"red": [1]},
            "by_rank": {"1": [1, 3]}, "seats": [0, 2], "colours": ["black", "red"], "pair": [1, "red"],
            "plain_pair": [1, "a"], "first": None, "maybe": None, "either": "s", "ratio": 0.5, "mode": "y",
            "extra": {"k": [1]}, "rows": [[True]], "phase": "red", "shade": None, "level": None,
        }
        dumped = codec.dump(replace(value, shade=Colour.BLACK, level=Rank.HIGH))
        assert (dumped["shade"], dumped["level"]) == ("black", 2)
        assert codec.load(Everything, dumped) == replace(value, shade=Colour.BLACK, level=Rank.HIGH)

    def test_the_dump_shares_no_container_with_the_state(self) -> None:
        rows = [[1]]

        @dataclass(frozen=True)
        class Holder:
            rows: list[list[int]]

        data = codec.dump(Holder(rows))
        data["rows"][0].append(2)
        assert rows == [[1]]


@dataclass(frozen=True)
class Awkward:
    """Field names that are names inside the generated functions too."""

    value: int
    data: Colour
    cls: str | None = None
    e0: tuple[int, ...] = ()
    decode_slowly: bool = False


class TestFieldRules:
    def test_field_names_of_the_generated_code(self) -> None:
        value = Awkward(1, Colour.RED, "c", (2,), True)
        data = codec.dump(value)
        assert data == {"value": 1, "data": "red", "cls": "c", "e0": [2], "decode_slowly": True}
        assert codec.load(Awkward, data) == value
        assert codec.load(Awkward, {"value": 1, "data": "black"}) == Awkward(1, Colour.BLACK)

    def test_a_flattened_field_sits_beside_the_others(self) -> None:
        value = Flat("n", Settings(5, Kind.B), 2)
        assert codec.dump(value) == {"name": "n", "size": 5, "kind": "b", "turns": 2}
        assert codec.load(Flat, {"name": "n", "size": 5, "kind": "b", "turns": 2}) == value

    def test_a_derived_field_is_dumped_and_recomputed(self) -> None:
        assert codec.dump(Guess("kings", "5S")) == {"tier": "kings", "card": "5S", "answer": "yes"}
        assert codec.load(Guess, {"tier": "joker", "card": None, "answer": "stale"}) == Guess("joker")

    def test_a_field_added_later_takes_its_default(self) -> None:
        assert codec.load(Flat, {"name": "n", "size": 3, "kind": "a"}) == Flat("n")

    def test_a_missing_field_without_default_is_an_error(self) -> None:
        with pytest.raises(KeyError, match="name"):
            codec.load(Flat, {"size": 3, "kind": "a"})


class Access(IntFlag):
    READ = 1
    WRITE = 2


@dataclass(frozen=True)
class Permit:
    access: Access
    maybe: Access | None = None


@codec.interned
@dataclass(frozen=True)
class Shared:
    colour: Colour
    values: tuple[int, ...]
    note: str | None = None
    size: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", len(self.values))


@dataclass(frozen=True)
class Holds:
    items: tuple[Shared, ...]


class TestEnumsAndInterning:
    def test_a_flag_dumps_its_combined_members_by_value(self) -> None:
        assert codec.dump(Permit(Access.READ | Access.WRITE, Access.WRITE)) == {"access": 3, "maybe": 2}
        assert codec.dump(Permit(Access.READ)) == {"access": 1, "maybe": None}
        assert codec.load(Permit, {"access": 2, "maybe": 1}) == Permit(Access.WRITE, Access.READ)

    def test_an_interned_class_loads_one_instance_per_value(self) -> None:
        value = Holds((Shared(Colour.RED, (1, 2)), Shared(Colour.RED, (1, 2)), Shared(Colour.BLACK, (), "n")))
        data = through_json(codec.dump(value))
        assert data["items"][0] == {"colour": "red", "values": [1, 2], "note": None, "size": 2}
        loaded = codec.load(Holds, data)
        again = codec.load(Holds, through_json(data))
        assert loaded == value and codec.dump(loaded) == data
        assert loaded.items[0] is loaded.items[1] is again.items[0]
        assert loaded.items[2] is again.items[2] and loaded.items[2].size == 0
        assert codec.load(Holds, {"items": [{"colour": "red", "values": [1, 2]}]}).items == (value.items[0],)

    def test_the_interned_table_is_bounded(self, monkeypatch: pytest.MonkeyPatch) -> None:
        @codec.interned
        @dataclass(frozen=True)
        class Small:
            n: int

        monkeypatch.setattr(codec, "INTERN_LIMIT", 3)
        items = make_dataclass("Items", [("items", tuple[Small, ...])], frozen=True)
        loaded = codec.load(items, {"items": [{"n": n} for n in range(10)] + [{"n": 9}]})
        assert [s.n for s in loaded.items] == [*range(10), 9] and loaded.items[-1] is loaded.items[-2]
        assert len(codec._INTERNED[Small]) <= 3

    def test_only_a_frozen_dataclass_is_interned_before_its_plan(self) -> None:
        @dataclass
        class Loose:
            n: int

        with pytest.raises(codec.CodecError, match="frozen"):
            codec.interned(Loose)
        codec.dump(Card(Rank.LOW, Colour.RED))
        with pytest.raises(codec.CodecError, match="after its plan"):
            codec.interned(Card)


class TestRefusals:
    @pytest.mark.parametrize("hint", [
        "int | Settings", "dict[float, int]", "object", "tuple[Settings | Colour, ...]", "set[complex]",
    ])
    def test_a_type_without_a_form_fails_at_plan_time(self, hint: str) -> None:
        odd = make_dataclass("Odd", [("x", eval(hint))], frozen=True)  # a fresh class: no cached plan
        with pytest.raises(codec.CodecError):
            codec.dump(odd(None))

    def test_only_a_dataclass_has_a_plan(self) -> None:
        with pytest.raises(codec.CodecError):
            codec.dump(Rng("ab" * 16))

    def test_a_flattened_field_must_not_clash(self) -> None:
        @dataclass(frozen=True)
        class Clash:
            size: int
            settings: Settings = field(default_factory=Settings, metadata=codec.FLATTEN)

        with pytest.raises(codec.CodecError, match="clash"):
            codec.dump(Clash(1))
