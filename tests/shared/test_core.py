"""The shared library's pure primitives: RNG, tokens, cards, dice, evolve."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import FrozenInstanceError, dataclass, field, replace
from fractions import Fraction
from functools import cached_property

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ludoteca.core import tokens
from ludoteca.core.cards import (
    CardParseError,
    Color,
    FrenchCard,
    FrenchSuit,
    Joker,
    SpanishCard,
    SpanishSuit,
    SpecialCard,
    french_deck,
    parse_french_deck_card,
    parse_spanish_deck_card,
    spanish_deck,
)
from ludoteca.core.dice import Die, multiset_distribution, roll_all
from ludoteca.core.engine import evolve
from ludoteca.core.rng import Rng, commitment, new_seed

seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)


class TestRng:
    @given(seeds)
    @settings(max_examples=30, deadline=None)
    def test_same_seed_same_sequence(self, seed: str) -> None:
        a, b = Rng(seed), Rng(seed)
        assert [a.randbelow(1000) for _ in range(20)] == [b.randbelow(1000) for _ in range(20)]

    @given(seeds, st.integers(0, 50))
    @settings(max_examples=30, deadline=None)
    def test_dump_load_continues_the_sequence(self, seed: str, skip: int) -> None:
        a = Rng(seed)
        for _ in range(skip):
            a.randbelow(7)
        b = Rng.load(a.dump())
        assert [a.randbelow(52) for _ in range(10)] == [b.randbelow(52) for _ in range(10)]

    def test_commitment_is_sha256_of_seed_bytes(self) -> None:
        seed = new_seed()
        assert commitment(seed) == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
        assert seed not in repr(Rng(seed))

    def test_shuffle_is_a_permutation_and_roughly_uniform(self) -> None:
        rng = Rng("11" * 32)
        firsts = Counter(rng.shuffled(range(4))[0] for _ in range(4000))
        assert sorted(firsts) == [0, 1, 2, 3]
        assert all(800 < n < 1200 for n in firsts.values())

    def test_randbelow_range_and_errors(self) -> None:
        rng = Rng("22" * 32)
        assert {rng.randbelow(3) for _ in range(200)} == {0, 1, 2}
        assert 0 <= rng.random() < 1
        with pytest.raises(ValueError):
            rng.randbelow(0)
        with pytest.raises(ValueError):
            Rng("ab")


class TestTokens:
    def test_token_matches_only_its_hash(self) -> None:
        t1, h1 = tokens.new_token()
        t2, h2 = tokens.new_token()
        assert t1 != t2 and h1 != t1
        assert tokens.matches(t1, h1) and not tokens.matches(t1, h2)
        assert tokens.find_seat(t2, [h1, None, h2]) == 2
        assert tokens.find_seat("nope", [h1, None, h2]) is None


class TestCards:
    def test_french_deck(self) -> None:
        deck = french_deck(jokers=2)
        assert len(deck) == 54 and len(set(deck)) == 54
        assert FrenchCard.parse("10h") == FrenchCard(10, FrenchSuit.HEARTS)
        assert FrenchCard(12, FrenchSuit.SPADES).code == "QS"
        assert FrenchCard(1, FrenchSuit.DIAMONDS).color is Color.RED
        assert parse_french_deck_card("JK2") == Joker(2)
        for card in deck:
            assert parse_french_deck_card(card.code) == card

    def test_spanish_deck(self) -> None:
        deck = spanish_deck(jokers=2, specials=["Autoplim"])
        assert len(deck) == 51 and len(set(deck)) == 51
        assert len(spanish_deck(ranks=[1, 2, 3, 4, 5, 6, 7, 10, 11, 12])) == 40
        assert SpanishCard(2, SpanishSuit.OROS).name == "2 de Oros"
        assert SpanishCard(11, SpanishSuit.COPAS).name == "Caballo de Copas"
        for card in deck:
            assert parse_spanish_deck_card(card.code, specials=["Autoplim"]) == card
        assert parse_spanish_deck_card("autoplim", ["Autoplim"]) == SpecialCard("Autoplim")

    @pytest.mark.parametrize("code", ["", "1X", "11S", "ZZ", "0H", "14C"])
    def test_bad_french_codes(self, code: str) -> None:
        with pytest.raises(CardParseError):
            FrenchCard.parse(code)

    @pytest.mark.parametrize("code", ["", "13O", "0B", "XO", "5Z"])
    def test_bad_spanish_codes(self, code: str) -> None:
        with pytest.raises(CardParseError):
            SpanishCard.parse(code)


class TestDice:
    def test_distribution_and_multisets(self) -> None:
        die = Die(("L", "X", "X", "V", "I", "I"))
        assert die.distribution() == {"L": Fraction(1, 6), "X": Fraction(1, 3), "V": Fraction(1, 6),
                                      "I": Fraction(1, 3)}
        dist = multiset_distribution([die] * 4)
        assert len(dist) == 35 and sum(dist.values()) == 1
        assert roll_all([die] * 4, Rng("33" * 32)) == roll_all([die] * 4, Rng("33" * 32))


@dataclass(frozen=True)
class Plain:
    a: int
    b: tuple[int, ...] = ()


@dataclass(frozen=True)
class Derived:
    a: int
    double: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "double", 2 * self.a)


@dataclass(frozen=True)
class Cached:
    a: int

    @cached_property
    def square(self) -> int:
        return self.a * self.a


class TestEvolve:
    """``evolve``: ``dataclasses.replace``, faster for a plain frozen state, the same answers."""

    def test_a_plain_state_is_copied_with_the_changes(self) -> None:
        old = Plain(1, (2,))
        new = evolve(old, b=(3,))
        assert new == replace(old, b=(3,)) == Plain(1, (3,)) and old == Plain(1, (2,))
        assert list(vars(new)) == list(vars(Plain(1, (3,))))
        with pytest.raises(FrozenInstanceError):
            new.a = 2  # type: ignore[misc]

    def test_anything_else_goes_through_replace(self) -> None:
        assert evolve(Derived(2), a=3).double == 6
        cached = Cached(2)
        assert cached.square == 4 and evolve(cached, a=3).square == 9
        with pytest.raises(TypeError):
            evolve(Plain(1), c=2)
        with pytest.raises(ValueError):
            evolve(Derived(1), double=5)
