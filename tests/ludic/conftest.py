"""Fixtures of Ludic's pure tests: an engine, and rounds started with the cards a test needs."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import pytest
from ludic.engine import LudicEngine
from ludic.rules import InitialSets, illegality
from ludic.state import HintSource, LudicState, Phase, PlacedSet, SetKind, StepKind
from ludic.tables import table_of
from ludic.universe import BREAK, OBEY, all_cards, card_type, deck_pile, set_of_codes
from ludoteca.core.rng import Rng

SEED = "1dc0" * 16

RULES = [
    "the top card is red", "the top card is black", "the bottom card is red", "the bottom card is black",
    "the sum is even", "the sum is odd", "the top card outranks the bottom card",
    "the bottom card outranks the top card", "a red card outranks a black card", "the sum is at least 15",
    "the sum is less than 15", "the cards have the same color", "the cards are different colors",
]
GUESSES = [*RULES, "both cards are even", "the high card is red", "the top card is"]

Start = Callable[..., LudicState]


@pytest.fixture(scope="session")
def engine() -> LudicEngine:
    return LudicEngine()


def arrange(state: LudicState, obey: tuple[str, str], broken: tuple[str, str],
            hands: dict[int, Sequence[str]] | None = None, deck: Sequence[str] | None = None) -> LudicState:
    """The state with the current round's deck-pile cards re-dealt: these initial sets, these
    hands (the others keep cards not named), this deck order on top (the rest below, in pile
    order)."""
    rnd = state.round
    assert rnd is not None
    dealt = {s: tuple(h) for s, h in (hands or {}).items()}
    named = [*obey, *broken, *(c for h in dealt.values() for c in h), *(deck or [])]
    assert len(named) == len(set(named)) and set(named) <= set(deck_pile()), named
    rest = [c for c in deck_pile() if c not in named]
    for seat in rnd.hands:
        if seat not in dealt:
            dealt[seat] = tuple(rest.pop(0) for _ in range(len(rnd.hands[seat])))
    columns = {OBEY: (PlacedSet(*obey, SetKind.INITIAL, None),), BREAK: (PlacedSet(*broken, SetKind.INITIAL, None),)}
    deck_size = len(deck_pile()) - 4 - sum(len(h) for h in dealt.values())
    state = replace(state, round=replace(rnd, hands=dealt, columns=columns,
                                         deck=tuple([*(deck or []), *rest][:deck_size])))
    assert _cards_in_play(state) == sorted(all_cards())
    return state


def _cards_in_play(state: LudicState) -> list[str]:
    """Every card of the round: deck, hands, columns, hintbook, hints made of hintbook cards, and a
    set the Vexer is placing (while choosing which set to flip)."""
    rnd = state.round
    assert rnd is not None
    cards = [*rnd.deck, *rnd.hintbook, *(c for h in rnd.hands.values() for c in h)]
    cards += [c for column in rnd.columns.values() for s in column for c in (s.top, s.bottom)]
    cards += [c for hints in rnd.hints.values() for h in hints if h.source is HintSource.HINTBOOK
              for c in (h.top, h.bottom)]
    cards += [c for step in rnd.steps if step.do is StepKind.PLACE for c in (step.top, step.bottom) if c]
    return sorted(cards)


@pytest.fixture(scope="session")
def cards_in_play() -> Callable[[LudicState], list[str]]:
    """The sorted cards of the current round, wherever they are (48 when all are conserved)."""
    return _cards_in_play


@pytest.fixture
def start(engine: LudicEngine) -> Start:
    """``start(rule, seats=3, vexer=0, obey=..., broken=..., hands=..., deck=..., options=...)``:
    a game past the cut with the given Vexer, the round's cards arranged, and the rule written."""

    def _start(rule: str | None = "the top card is red", *, seats: int = 3, vexer: int = 0,
               obey: tuple[str, str] = ("QD", "4C"), broken: tuple[str, str] = ("JC", "3D"),
               hands: dict[int, Sequence[str]] | None = None, deck: Sequence[str] | None = None,
               options: dict[str, Any] | None = None) -> LudicState:
        state = engine.new_game(["human"] * seats, options or {}, Rng(SEED))
        state, _ = engine._start_round(replace(state, vexer=vexer, token=(vexer + 1) % seats, cut_pending=()))
        state = arrange(state, obey, broken, hands, deck)
        if rule is not None:
            state, _ = engine.apply(state, vexer, {"type": "write_rule", "rule": rule})
        return state

    return _start


def literal_rule(state: LudicState) -> str:
    """A rule naming the 'obey' initial set exactly: always legal."""
    assert state.round is not None
    obey = state.round.initial(OBEY)
    top, bottom = card_type(obey.top), card_type(obey.bottom)
    return (f"the top card is a {'red' if top.red else 'black'} {top.rank} and the bottom card is a "
            f"{'red' if bottom.red else 'black'} {bottom.rank}")


def legal_rules(state: LudicState) -> list[str]:
    assert state.round is not None
    rnd = state.round
    initial = InitialSets(set_of_codes(rnd.initial(OBEY).top, rnd.initial(OBEY).bottom),
                          set_of_codes(rnd.initial(BREAK).top, rnd.initial(BREAK).bottom))
    return [r for r in RULES if illegality(table_of(r), initial) is None] + [literal_rule(state)]


def choose(engine: LudicEngine, state: LudicState, rng: random.Random) -> tuple[int, dict[str, Any]]:
    seat = rng.choice(sorted(engine.to_act(state)))
    if state.phase is Phase.RULE:
        return seat, {"type": "write_rule", "rule": rng.choice(legal_rules(state))}
    if state.phase in (Phase.GUESS, Phase.FINAL) and rng.random() < 0.4:
        return seat, {"type": "guess", "rule": rng.choice(GUESSES)}
    return seat, rng.choice(engine.legal_actions(state, seat))




@pytest.fixture(scope="session")
def policy() -> Callable[[LudicEngine, LudicState, random.Random], tuple[int, dict[str, Any]]]:
    """A random player: legal rules as Vexer, random legal actions, random guesses (some bad)."""
    return choose


@pytest.fixture(name="legal_rules", scope="session")
def legal_rules_fixture() -> Callable[[LudicState], list[str]]:
    """Rules fitting the current round's initial sets (a rule naming the 'obey' set last)."""
    return legal_rules
