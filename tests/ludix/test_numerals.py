"""Oracle tests of Roman numerals and the four dice: facts computed independently here, checked
against :mod:`ludix.numerals` (RULES-NOTES "Verified facts")."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest
from ludix.numerals import (
    all_multisets,
    canonical,
    from_roman,
    is_valid,
    numerals_for,
    numerals_of,
    odds,
    parse_throw,
    to_roman,
)

# The 14 scoring multisets and their best numeral: the rules text's 13 plus LXXX.
BEST = {
    "VIII": 8, "XIII": 13, "XVII": 17, "XXII": 22, "XXVI": 26, "XXXI": 31, "XXXV": 35,
    "LIII": 53, "LVII": 57, "LXII": 62, "LXVI": 66, "LXXI": 71, "LXXV": 75, "LXXX": 80,
}  # fmt: skip
# The text's 21 incorrect throws (as multisets).
TEXT_BUSTS = [
    "IIII", "VVII", "VVVI", "VVVV", "XVVI", "XVVV", "XXVV", "XXXX", "LVVI", "LVVV", "LXVV",
    "LLII", "LLVI", "LLVV", "LLXI", "LLXV", "LLXX", "LLLI", "LLLV", "LLLX", "LLLL",
]  # fmt: skip


class TestRomanNumerals:
    @pytest.mark.parametrize(
        "n, text",
        [(1, "I"), (4, "IV"), (9, "IX"), (14, "XIV"), (40, "XL"), (49, "XLIX"), (80, "LXXX"),
         (85, "LXXXV"), (444, "CDXLIV"), (629, "DCXXIX"), (1958, "MCMLVIII"), (2014, "MMXIV"), (3999, "MMMCMXCIX")],
    )  # fmt: skip
    def test_the_texts_examples_format_and_parse(self, n: int, text: str) -> None:
        assert to_roman(n) == text
        assert from_roman(text) == n
        assert is_valid(text)

    def test_every_value_round_trips(self) -> None:
        assert all(from_roman(to_roman(n)) == n and is_valid(to_roman(n)) for n in range(1, 4000))

    @pytest.mark.parametrize("text", ["IIII", "VV", "XXXX", "LL", "IL", "IC", "VX", "XVV", "IIV", "XIIX", "LXL",
                                      "", "ABC", "iv", "IXI"])  # fmt: skip
    def test_non_canonical_forms_are_invalid(self, text: str) -> None:
        assert not is_valid(text)

    def test_out_of_range(self) -> None:
        for n in (0, -1, 4000):
            with pytest.raises(ValueError):
                to_roman(n)


class TestThrows:
    def test_35_multisets(self) -> None:
        assert len(all_multisets()) == len(set(all_multisets())) == 35
        faces = "LXVI"
        assert set(all_multisets()) == {canonical(p) for p in product(faces, repeat=4)}

    def test_exactly_14_valid_with_the_best_values(self) -> None:
        valid = {m: numerals_of(m)[0].value for m in all_multisets() if numerals_of(m)}
        assert valid == BEST
        assert numerals_of("LXXX")[0].text == "LXXX"  # the one the rules text misses

    def test_the_texts_21_busts(self) -> None:
        assert sorted(m for m in all_multisets() if not numerals_of(m)) == sorted(TEXT_BUSTS)

    @pytest.mark.parametrize(
        "dice, expected",
        [
            ("LXXI", [("LXXI", 71), ("LXIX", 69), ("XLIX", 49)]),
            ("IXLX", [("LXXI", 71), ("LXIX", 69), ("XLIX", 49)]),
            ("LXVI", [("LXVI", 66), ("LXIV", 64), ("XLVI", 46), ("XLIV", 44)]),
            ("XXXI", [("XXXI", 31), ("XXIX", 29)]),  # the text's example: XXIX counts less
            ("XXII", [("XXII", 22)]),
            ("LVVI", []),  # the text's example: no numeral with two V
        ],
    )
    def test_every_numeral_best_first(self, dice: str, expected: list[tuple[str, int]]) -> None:
        assert [(n.text, n.value) for n in numerals_for(dice)] == expected

    def test_numerals_use_all_four_symbols_and_are_valid(self) -> None:
        for m in all_multisets():
            for n in numerals_of(m):
                assert sorted(n.text) == sorted(m) and is_valid(n.text) and from_roman(n.text) == n.value

    @pytest.mark.parametrize("bad", ["", "LXV", "LXVII", "LXVC", "lxvi", "ABCD", "LX I"])
    def test_parse_throw_rejects(self, bad: str) -> None:
        with pytest.raises(ValueError):
            parse_throw(bad)

    def test_parse_throw_sorts(self) -> None:
        assert parse_throw("IVXL") == "LXVI"


class TestOdds:
    def brute_force(self) -> dict[str, Fraction]:
        """6^4 equally likely ordered outcomes of the four L-X-X-V-I-I dice."""
        dist: dict[str, Fraction] = {}
        for faces in product("LXXVII", repeat=4):
            key = canonical(faces)
            dist[key] = dist.get(key, Fraction(0)) + Fraction(1, 6**4)
        return dist

    def test_distribution_matches_brute_force(self) -> None:
        brute = self.brute_force()
        assert {t.multiset: t.probability for t in odds().throws} == brute
        assert sum(brute.values()) == 1

    def test_bust_is_23_over_81_not_one_in_four(self) -> None:
        assert odds().bust_probability == Fraction(23, 81)
        assert sum(p for m, p in self.brute_force().items() if m not in BEST) == Fraction(23, 81)

    def test_expected_points(self) -> None:
        expected = sum(p * BEST[m] for m, p in self.brute_force().items() if m in BEST)
        assert odds().expected_points == expected == Fraction(836, 27)
        assert round(float(expected), 2) == 30.96
        assert odds().expected_points_given_valid == Fraction(1254, 29)
        assert round(float(odds().expected_points_given_valid), 2) == 43.24

    def test_order_valid_best_first_then_busts(self) -> None:
        assert len(odds().valid) == 14 and len(odds().busts) == 21
        values = [t.best.value for t in odds().valid if t.best]
        assert values == sorted(values, reverse=True)


class TestJson:
    def test_odds_as_exact_fractions_and_decimals(self) -> None:
        from ludix.schemas import OddsSchema

        data = odds().to_json()
        assert OddsSchema().validate(data) == {}
        assert data["bust"] == {"fraction": "23/81", "decimal": 23 / 81}
        assert data["expected_points"]["fraction"] == "836/27"
        assert [t["multiset"] for t in data["valid"]][-1] == "VIII" and data["valid"][0]["best"] == {
            "numeral": "LXXX",
            "value": 80,
        }
        assert len(data["valid"]) == 14 and len(data["busts"]) == 21 and data["multisets"] == 35
        assert sum(Fraction(t["probability"]["fraction"]) for t in data["valid"] + data["busts"]) == 1
